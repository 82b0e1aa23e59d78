// 识别文字: a toggle under an image of the detail page that fetches what the image shows
// (`GET /api/assets/{id}/analysis`: OCR lines and element boxes) and draws it over the image — recognised
// text in solid boxes labelled with the text and its confidence, the subject, panels and badges in dashed
// boxes — with the same content as lists below it for keyboards and screen readers. The first request for an
// image takes about a second (the server reads it then keeps the result).

import { describeError, request } from "./api.js";
import { h, replace } from "./dom.js";
import { label } from "./labels.js";

const loaded = new Map(); // asset id → the analysis promise (one request per image per page)

const percent = (value) => `${Math.round(Math.max(0, Math.min(1, Number(value) || 0)) * 100)}%`;

function place(box) {
  const clamp = (v) => Math.max(0, Math.min(100, (Number(v) || 0) * 100));
  return { left: `${clamp(box.x)}%`, top: `${clamp(box.y)}%`, width: `${clamp(box.w)}%`, height: `${clamp(box.h)}%` };
}

function elementName(e) {
  const slot = e.kind === "text" && e.label ? `（${label("textSlot", e.label)}）` : "";
  return `${label("elementKind", e.kind) || "元素"}${slot} · ${label("elementSource", e.source) || "估计"}`;
}

/** The boxes over the image: the subject, panels and badges first (under), then the recognised lines (text
 * blocks are not drawn: the recognised lines already mark the text). */
function overlay(analysis) {
  const shown = (analysis.elements || []).filter((e) => e.kind !== "text");
  return h("div", { class: "analysis-overlay", "aria-hidden": "true" },
    shown.map((e) => h("div", { class: "analysis-box element-box", dataset: { kind: e.kind, source: e.source }, style: place(e.box) },
      h("span", { class: "analysis-tag" }, elementName(e)))),
    (analysis.textRegions || []).map((r) => h("div", { class: "analysis-box ocr-box", style: place(r.box) },
      h("span", { class: "analysis-tag" }, `${r.text} · ${percent(r.confidence)}`))));
}

/** The same, as lists. */
function details(analysis) {
  const lines = analysis.textRegions || [];
  const elements = (analysis.elements || []).filter((e) => e.kind !== "text");
  return [
    h("p", { class: "analysis-legend" },
      h("span", { class: "legend-ocr" }, "实线框：识别出的文字"), " ",
      h("span", { class: "legend-element" }, "虚线框：画面元素"),
      analysis.layoutKnown ? "（来自这张卡片自己的版式，位置准确）" : "（主体位置为估计）"),
    h("h4", { class: "analysis-heading" }, lines.length ? `识别出的文字（${lines.length} 处）` : "没有识别出文字"),
    lines.length ? h("ol", { class: "analysis-lines" }, lines.map((r) => h("li", {},
      h("span", { class: "analysis-text" }, r.text), h("span", { class: "muted" }, ` 置信度 ${percent(r.confidence)}`)))) : null,
    elements.length ? h("h4", { class: "analysis-heading" }, "画面元素") : null,
    elements.length ? h("ul", { class: "analysis-elements" }, elements.map((e) => h("li", {},
      elementName(e), e.text ? `：${e.text}` : "", e.source === "heuristic" && e.confidence != null ? `（权重占比 ${percent(e.confidence)}）` : ""))) : null,
  ];
}

/**
 * Give an image's figure its 识别文字 toggle. `figure` holds the image link (`a > img`) and a figcaption;
 * `asset` is the creative detail's asset (`id`), `name` how the image is called (「图1 · 封面」).
 */
export function attachAnalysis(figure, asset, name) {
  const link = figure.querySelector("a");
  const caption = figure.querySelector("figcaption");
  if (!link || !caption || !Number.isInteger(asset.id)) return;
  const stage = h("div", { class: "analysis-stage" });
  link.replaceWith(stage);
  stage.append(link);
  const panelId = `analysis-${asset.id}-${Math.random().toString(36).slice(2, 8)}`;
  const status = h("span", { class: "analysis-status muted", role: "status" });
  const panel = h("div", { class: "analysis-panel", id: panelId, hidden: true, role: "region", "aria-label": `${name}的识别结果` });
  const button = h("button", {
    type: "button", class: "btn small analysis-toggle", "aria-pressed": "false", "aria-controls": panelId,
    title: `识别${name}中的文字和画面元素`,
  }, "识别文字");

  const hide = () => {
    button.setAttribute("aria-pressed", "false");
    figure.classList.remove("analysis-open");
    stage.querySelector(".analysis-overlay")?.remove();
    panel.hidden = true;
    status.textContent = "";
  };
  const show = async () => {
    button.setAttribute("aria-pressed", "true");
    button.disabled = true;
    status.textContent = "正在识别文字…";
    try {
      if (!loaded.has(asset.id)) loaded.set(asset.id, request(`/api/assets/${asset.id}/analysis`));
      const analysis = await loaded.get(asset.id);
      if (button.getAttribute("aria-pressed") !== "true") return;
      figure.classList.add("analysis-open");
      stage.querySelector(".analysis-overlay")?.remove();
      stage.append(overlay(analysis));
      replace(panel, ...details(analysis));
      panel.hidden = false;
      const count = (analysis.textRegions || []).length;
      status.textContent = count ? `识别到 ${count} 处文字` : "没有识别出文字";
    } catch (error) {
      loaded.delete(asset.id);
      button.setAttribute("aria-pressed", "false");
      status.textContent = `识别失败：${describeError(error).title}`;
    } finally {
      button.disabled = false;
      button.focus({ preventScroll: true });
    }
  };
  button.addEventListener("click", () => (button.getAttribute("aria-pressed") === "true" ? hide() : show()));
  caption.append(h("span", { class: "analysis-actions" }, button, status));
  figure.append(panel);
}
