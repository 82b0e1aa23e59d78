// The checkpoint panel for an `ask_user`: approve / reject with feedback / modify (draft fields, or
// image plans: edit, reorder, delete), and clarification questions with their options.

import { describeError } from "./api.js";
import { charCount, clear, h, paragraphs, TITLE_LIMIT } from "./dom.js";
import { KIND, kindOf, label } from "./labels.js";
import { planEditor } from "./plans.js";

let uid = 0;
const nextId = (p) => `${p}-${++uid}`;

function field(label, control, hint) {
  const id = control.id || nextId("f");
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("div", { class: "field-hint" }, hint) : null);
}

function draftPreview(data) {
  return h("div", { class: "cp-preview" },
    h("h3", { class: "draft-title" }, data.title || ""),
    h("div", { class: "draft-body" }, paragraphs(data.body)),
    h("div", { class: "chips" }, (data.tags || []).map((t) => h("span", { class: "chip chip-tag" }, `#${t}`))));
}

function plansPreview(plans) {
  return h("ol", { class: "plan-list" }, (plans || []).map((p) =>
    h("li", { class: "plan" },
      h("div", { class: "plan-head" }, h("strong", {}, `图${p.index} · ${label("role", p.role)}`), h("span", {}, p.subject || "")),
      h("p", { class: "plan-prompt" }, p.basePrompt || p.prompt || ""),
      // the final prompt adds the style library's (often English) wording: shown on request only
      p.prompt && p.basePrompt && p.prompt !== p.basePrompt
        ? h("details", { class: "plan-full" }, h("summary", {}, "完整提示词（含风格增强）"), h("p", { class: "plan-prompt" }, p.prompt))
        : null,
      p.style ? h("span", { class: "chip" }, `风格：${p.style}`) : null,
      swatches(p.palette))));
}

export function swatches(palette) {
  const ok = (palette || []).filter((c) => /^#[0-9a-f]{6}$/i.test(c));
  if (!ok.length) return null;
  return h("span", { class: "swatches", "aria-label": `配色 ${ok.join(" ")}` },
    ok.map((c) => h("span", { class: "swatch", title: c, style: { backgroundColor: c } })));
}

/** "12 / 20" under the title field, turning into a warning past the platform's limit (typing is not blocked:
 * the editor may still want the longer title, but knows it will be cut). */
function titleCounter(input) {
  const count = h("span", { class: "count-value" });
  const warn = h("span", { class: "count-warn" });
  const node = h("span", { class: "title-counter", "aria-live": "polite" }, count, warn);
  const update = () => {
    const n = charCount(input.value);
    const over = n > TITLE_LIMIT;
    count.textContent = `${n} / ${TITLE_LIMIT}`;
    warn.textContent = over ? ` · 超出 ${n - TITLE_LIMIT} 个字，平台只显示前 ${TITLE_LIMIT} 个字` : "";
    node.classList.toggle("over", over);
    input.setAttribute("aria-describedby", counterId);
    if (over) input.dataset.over = "true";
    else delete input.dataset.over;
  };
  const counterId = nextId("count");
  node.id = counterId;
  input.addEventListener("input", update);
  update();
  return node;
}

const splitTags = (text) => text.split(/[\s,，、#]+/).map((t) => t.trim()).filter(Boolean);

/**
 * Build the panel. `submit(payload)` sends the confirm (the caller adds threadId) and returns a promise;
 * while it runs the panel is busy; an error is shown inside the panel so the editor can retry, and a
 * 409 (the pause was already answered) offers `onStale()` to load the run's current state. With
 * `readOnly` (a sentence saying who may answer) the panel only shows what is under review.
 */
export function renderCheckpoint(ask, submit, { onStale = null, onEdit = null, readOnly = null } = {}) {
  const kind = kindOf(ask);
  const data = (ask.context && ask.context.data) || {};
  const headingId = nextId("cp");
  const content = h("div", { class: "cp-content" });
  const actions = h("div", { class: "cp-actions" });
  const error = h("div", { class: "alert error", role: "alert", hidden: true });
  const heading = h("h2", { id: headingId, tabindex: "-1" }, ask.question || "请确认");
  // what the automatic checks still find in the draft: the editor decides knowing it
  const warnings = (ask.context && ask.context.warnings) || [];
  const checks = warnings.length
    ? h("div", { class: "alert warn cp-warnings", role: "note" },
      h("strong", {}, "自动检查提醒"), h("ul", {}, warnings.map((w) => h("li", {}, w))))
    : null;
  const panel = h("section", { class: "card checkpoint", "aria-labelledby": headingId, dataset: { kind } },
    h("header", { class: "card-head" }, h("span", { class: "badge badge-pause" }, KIND[kind] || "待确认"), heading),
    checks, content, error, actions);

  const base = ask.interruptId ? { interruptId: ask.interruptId } : {};
  const option = (id) => (ask.options || []).find((o) => o.id === id);
  const label = (id, fallback) => option(id)?.label || fallback;

  async function send(payload, button) {
    error.hidden = true;
    panel.classList.add("busy");
    for (const b of panel.querySelectorAll("button, input, textarea, select")) b.disabled = true;
    const original = button?.textContent;
    if (button) button.textContent = "提交中…";
    try {
      await submit({ ...payload, ...base });
      panel.classList.add("submitted");
    } catch (err) {
      const d = describeError(err);
      clear(error).append(h("strong", {}, d.title), ...d.lines.map((l) => h("div", {}, l)));
      if (err?.status === 409 && onStale) {
        // someone else answered this pause (another tab, another editor): offer the current state
        error.append(h("div", { class: "alert-actions" },
          h("button", { type: "button", class: "btn small", dataset: { action: "refresh" }, onclick: onStale }, "查看最新进度")));
      }
      error.hidden = false;
      for (const b of panel.querySelectorAll("button, input, textarea, select")) b.disabled = false;
      if (button) button.textContent = original;
    } finally {
      panel.classList.remove("busy");
    }
  }

  function invalid(control, message) {
    control.setAttribute("aria-invalid", "true");
    clear(error).append(message);
    error.hidden = false;
    control.focus();
  }

  const btn = (text, cls, onclick, extra = {}) => h("button", { type: "button", class: ["btn", cls], onclick, ...extra }, text);

  function readOnlyMode() {
    const choices = (ask.options || []).map((o) => h("li", {}, o.label || "选项"));
    replaceContent(kind === "image_plans" ? plansPreview(data.plans)
      : kind === "clarification" ? h("ul", { class: "bullets" }, choices) : draftPreview(data));
    clear(actions).append(h("p", { class: "muted cp-readonly", role: "note" }, readOnly));
  }

  function viewMode() {
    error.hidden = true;
    if (readOnly) return readOnlyMode();
    if (kind === "clarification") return clarificationMode();
    replaceContent(kind === "image_plans" ? plansPreview(data.plans) : draftPreview(data));
    const buttons = [btn(label("approve", "继续"), "primary", (e) => send({ action: "approve" }, e.currentTarget),
      { dataset: { action: "approve" }, title: option("approve")?.description || "" })];
    buttons.push(btn(label("reject", "重新生成"), "", rejectMode,
      { dataset: { action: "reject" }, title: option("reject")?.description || "" }));
    buttons.push(btn(label("modify", "修改后继续"), "", modifyMode, { dataset: { action: "modify" }, title: option("modify")?.description || "" }));
    clear(actions).append(...buttons);
  }

  function replaceContent(node) {
    clear(content).append(node);
  }

  function rejectMode() {
    const feedback = h("textarea", { rows: "4", maxlength: "4000", placeholder: "例如：标题更口语化一点，正文加上预算和交通方式", name: "feedback" });
    replaceContent(h("div", {}, kind === "image_plans" ? plansPreview(data.plans) : draftPreview(data),
      field("修改意见（必填）", feedback, "智能体会根据你的意见重做这一步，完成后再次请你确认。")));
    const submitBtn = btn("提交意见并重新生成", "primary", (e) => {
      const text = feedback.value.trim();
      if (!text) return invalid(feedback, "请先写下修改意见，再提交。");
      send({ action: "reject", userFeedback: text }, e.currentTarget);
    }, { dataset: { action: "submit-reject" } });
    clear(actions).append(submitBtn, btn("取消", "ghost", viewMode));
    feedback.focus();
  }

  function modifyMode() {
    if (kind === "image_plans") return modifyPlans();
    const title = h("input", { type: "text", value: data.title || "", maxlength: "40", name: "title" });
    const body = h("textarea", { rows: "10", value: data.body || "", maxlength: "3000", name: "body" });
    const tags = h("input", { type: "text", value: (data.tags || []).join(" "), name: "tags" });
    const counter = titleCounter(title);
    replaceContent(h("div", { class: "cp-edit" },
      field("标题", title, counter), field("正文", body, "段落之间空一行"), field("标签", tags, "用空格或逗号分隔，1–12 个")));
    if (onEdit) {
      // the phone preview follows the editor as the creator types
      const edited = () => onEdit({ title: title.value.trim(), body: body.value, tags: splitTags(tags.value) });
      for (const control of [title, body, tags]) control.addEventListener("input", edited);
    }
    const save = btn("保存并继续", "primary", (e) => {
      const t = title.value.trim();
      const b = body.value.trim();
      const tagList = splitTags(tags.value);
      if (charCount(t) < 2 || t.length > 40) return invalid(title, "标题需要 2–40 个字。");
      if (b.length < 20) return invalid(body, "正文至少需要 20 个字。");
      if (!tagList.length || tagList.length > 12) return invalid(tags, "请填写 1–12 个标签。");
      if (tagList.some((x) => x.length > 24)) return invalid(tags, "每个标签不超过 24 个字。");
      send({ action: "modify", modifiedData: { title: t, body: b, tags: tagList } }, e.currentTarget);
    }, { dataset: { action: "submit-modify" } });
    clear(actions).append(save, btn("取消", "ghost", () => {
      if (onEdit) onEdit(null); // back to the draft as it was
      viewMode();
    }));
    title.focus();
  }

  function modifyPlans() {
    const editor = planEditor(data.plans || []);
    replaceContent(editor.node);
    const save = btn("保存并继续", "primary", (e) => {
      const result = editor.value();
      if (result.error) return invalid(result.control, result.error);
      send({ action: "modify", modifiedData: { plans: result.plans } }, e.currentTarget);
    }, { dataset: { action: "submit-modify" } });
    clear(actions).append(save, btn("取消", "ghost", viewMode));
  }

  function clarificationMode() {
    const single = ask.selectionType === "single";
    const multiple = ask.selectionType === "multiple";
    const name = nextId("opt");
    const inputs = [];
    const options = (ask.options || []).map((o) => {
      if (!single && !multiple) return null;
      const input = h("input", { type: single ? "radio" : "checkbox", name, value: o.id });
      inputs.push(input);
      return h("label", { class: "option" }, input,
        h("span", { class: "option-text" }, h("strong", {}, o.label || o.id), o.description ? h("span", { class: "muted" }, o.description) : null));
    });
    const custom = ask.allowCustomInput !== false
      ? h("textarea", { rows: "2", maxlength: "2000", placeholder: "也可以直接描述你的主题和读者", name: "customInput" }) : null;
    replaceContent(h("div", { class: "cp-clarify" },
      options.some(Boolean) ? h("fieldset", { class: "options-grid" }, h("legend", { class: "sr-only" }, ask.question || "选项"), options) : null,
      custom ? field("补充说明", custom) : null));
    const submitBtn = btn("提交回答", "primary", (e) => {
      const selectedIds = inputs.filter((i) => i.checked).map((i) => i.value);
      const customInput = custom ? custom.value.trim() : "";
      if (!selectedIds.length && !customInput) {
        return invalid(inputs[0] || custom, "请至少选择一个选项或填写补充说明。");
      }
      send({ userResponse: { selectedIds, customInput: customInput || null } }, e.currentTarget);
    }, { dataset: { action: "answer" } });
    clear(actions).append(submitBtn);
  }

  viewMode();
  return { node: panel, focus: () => heading.focus({ preventScroll: true }) };
}
