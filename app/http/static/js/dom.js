// Safe DOM helpers. Data (model output, user input) only ever becomes text nodes or attribute values —
// never markup. There is deliberately no way to set innerHTML through these helpers.

const SVG_NS = "http://www.w3.org/2000/svg";
const BLOCKED_ATTRS = new Set(["innerhtml", "outerhtml", "srcdoc"]);

function applyAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (BLOCKED_ATTRS.has(key.toLowerCase())) throw new Error(`refusing to set ${key}`);
    if (key === "class") node.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.assign(node.style, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key.startsWith("on")) throw new Error(`refusing a non-function handler for ${key}`);
    else if (key === "value" || key === "checked" || key === "selected" || key === "disabled") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** h("div", {class: "card"}, "text", otherNode) — strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  applyAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Same as h() for SVG elements (charts). */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === "class") node.setAttribute("class", value);
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) throw new Error("no handlers on chart elements");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

export function replace(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** A URL from data that may go into src/href: same-origin paths and image data URLs only. */
export function safeUrl(url) {
  if (typeof url !== "string") return null;
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  if (/^data:image\/(png|jpeg|webp|gif);base64,/i.test(url)) return url;
  return null;
}

export function assetUrl(id) {
  return Number.isInteger(Number(id)) && id !== null && id !== "" ? `/api/assets/${Number(id)}` : null;
}

// ---- formatting ------------------------------------------------------------------------------------

export function fmtDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(Number(ms))) return "—";
  const n = Number(ms);
  if (n < 1000) return `${Math.round(n)} 毫秒`;
  if (n < 60_000) return `${(n / 1000).toFixed(1)} 秒`;
  return `${Math.floor(n / 60_000)} 分 ${Math.round((n % 60_000) / 1000)} 秒`;
}

export function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  let text = String(value);
  // the server's clock is UTC: an ISO time without an offset is UTC, not the browser's local time
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(text)) text += "Z";
  const d = typeof value === "number" ? new Date(value) : new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function fmtDateTime(value) {
  const d = toDate(value);
  if (!d) return "—";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fmtAge(value, now = Date.now()) {
  const d = toDate(value);
  if (!d) return "—";
  const sec = Math.max(0, Math.round((now - d.getTime()) / 1000));
  if (sec < 60) return "刚刚";
  if (sec < 3600) return `${Math.floor(sec / 60)} 分钟前`;
  if (sec < 86400) return `${Math.floor(sec / 3600)} 小时前`;
  return `${Math.floor(sec / 86400)} 天前`;
}

export function fmtScore(value) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(2) : "—";
}

export function fmtJson(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** Characters as the platform (and agents/checks/textutil.char_count) counts them: an emoji is one. */
export function charCount(text) {
  return [...String(text || "").trim().replace(/[\ufe0e\ufe0f\u20e3\u{1F3FB}-\u{1F3FF}]|\u200d./gu, "")].length;
}

export const TITLE_LIMIT = 20; // the platform shows at most 20 characters of a title (agents/checks/form.TITLE_MAX)

export function clamp01(value) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}

/** A labelled progress bar; returns {node, set(fraction, label?)}. */
export function progressBar(label, { small = false } = {}) {
  const fill = h("div", { class: "progress-fill" });
  const node = h(
    "div",
    { class: ["progress", small && "small"], role: "progressbar", "aria-label": label,
      "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": "0" },
    fill,
  );
  return {
    node,
    set(fraction, text) {
      const pct = Math.round(clamp01(fraction) * 100);
      fill.style.width = `${pct}%`;
      node.setAttribute("aria-valuenow", String(pct));
      if (text) node.setAttribute("aria-valuetext", text);
    },
  };
}

/** Toast notifications (aria-live region in every page). */
export function toast(message, kind = "info", ms = 4000) {
  let region = document.getElementById("toasts");
  if (!region) {
    region = h("div", { id: "toasts", class: "toasts", "aria-live": "polite" });
    document.body.append(region);
  }
  const node = h("div", { class: ["toast", kind], role: kind === "error" ? "alert" : "status" }, message);
  region.append(node);
  setTimeout(() => node.remove(), ms);
}

export function chip(text, cls = "") {
  return h("span", { class: ["chip", cls] }, text);
}

/** A titled card section; returns {node, body}. */
export function card(title, { id, cls, actions } = {}) {
  const body = h("div", { class: "card-body" });
  const headingId = id ? `${id}-title` : undefined;
  const node = h(
    "section",
    { class: ["card", cls], id, "aria-labelledby": headingId },
    h("header", { class: "card-head" }, h("h2", { id: headingId }, title), actions || null),
    body,
  );
  return { node, body };
}

/** Paragraphs of plain text (blank-line separated) as <p> elements with preserved line breaks. */
export function paragraphs(text) {
  return String(text || "")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => h("p", { class: "pre-line" }, p));
}
