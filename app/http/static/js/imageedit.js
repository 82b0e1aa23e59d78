// 编辑图片: under a finished result, each picture gets an "编辑图片" button that opens a dialog with three
// ways to change it (issue 17) — 涂抹修改 (paint a mask over the picture and say what to draw there),
// 参数调整 (the card's palette, layout, text size, overlay text, badge, a crop) and 文字编辑 (the text OCR
// reads in it, `GET /api/assets/{id}/analysis`, each line editable). 生成新图片 posts the active section's
// changes to `POST /api/assets/{id}/edit` with `basedOn` = the version on screen; the edit's stream is
// followed by the page's RunSession like a revision's (its events are numbered on in the thread's log), so
// the result view shows the new picture and version, and the dialog shows the progress and what was done.

import { describeError, getCreative, request } from "./api.js";
import { clear, h, progressBar } from "./dom.js";
import { CARD_LAYOUTS, label } from "./labels.js";
import { postStream } from "./sse.js";

const FINISHED = new Set(["completed", "failed", "aborted"]);
const MAX_INSTRUCTION = 300;
const MAX_HEADLINE = 40;
const MAX_LINE = 60;
const MAX_LINES = 8;
const MAX_TEXT_EDITS = 20;
const OFFLINE = new Set(["offline", "studio/offline"]);

/** Palettes to start from (data/lexicon/moods.json's, dominant colour first), by their Chinese names. */
export const PALETTES = [
  ["夜色", ["#141B2D", "#24304F", "#F2B84B", "#E8E6F0"]],
  ["温暖", ["#F6E7D7", "#EBC9A8", "#B5653A", "#4A3426"]],
  ["清新", ["#E9F6F2", "#C5E8DE", "#2E9C83", "#1F3B35"]],
  ["海盐蓝", ["#EAF4FB", "#C9E2F5", "#2F7EC1", "#1C2F40"]],
  ["活力", ["#FFF1E0", "#FFD166", "#EF476F", "#26233A"]],
  ["沉静", ["#EEF0F3", "#D5DAE1", "#3D5A80", "#1E2633"]],
];

/** Crops as fractions of the picture; `square` is worked out from the picture's size. */
const CROPS = [
  ["", "不裁剪"],
  ["top", "保留上半部分"],
  ["bottom", "保留下半部分"],
  ["center", "居中（去掉四周各 10%）"],
  ["square", "居中裁成正方形"],
];

function cropBox(key, width, height) {
  if (key === "top") return { x: 0, y: 0, w: 1, h: 0.5 };
  if (key === "bottom") return { x: 0, y: 0.5, w: 1, h: 0.5 };
  if (key === "center") return { x: 0.1, y: 0.1, w: 0.8, h: 0.8 };
  if (key === "square") {
    if (height >= width) {
      const h2 = width / height;
      return { x: 0, y: (1 - h2) / 2, w: 1, h: h2 };
    }
    const w2 = height / width;
    return { x: (1 - w2) / 2, y: 0, w: w2, h: 1 };
  }
  return null;
}

/** Quick regions to paint without a pointer (keyboard users), as fractions of the picture. */
const QUICK_AREAS = [
  ["整张", [0, 0, 1, 1]],
  ["上半", [0, 0, 1, 0.5]],
  ["下半", [0, 0.5, 1, 0.5]],
  ["中间", [0.25, 0.25, 0.5, 0.5]],
];

const TABS = [
  ["mask", "涂抹修改"],
  ["params", "参数调整"],
  ["text", "文字编辑"],
];

const place = (box) => {
  const pct = (v) => `${Math.max(0, Math.min(100, (Number(v) || 0) * 100))}%`;
  return { left: pct(box.x), top: pct(box.y), width: pct(box.w), height: pct(box.h) };
};

const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

export class ImageEditor {
  /**
   * view, session: the page's RunView and RunSession; allowed(): whether this account may edit the run on
   * screen; basedOn(threadId): the version on screen (ReviseBox.currentVersion); onSent(sent): an edit's
   * stream opened (the 继续修改 box words its note from it).
   */
  constructor({ view, session, allowed = () => true, basedOn, onSent = () => {} }) {
    this.view = view;
    this.session = session;
    this.allowed = allowed;
    this.basedOn = basedOn;
    this.onSent = onSent;
    this.busy = false; // the edit's request is on its way (until its stream opens or it is refused)
    this.watching = false; // the dialog follows the edit's events (until workflow_complete or error)
    this.current = null; // {taskId, assetId, version, plan, overlay, provider, redrawable, width, height, url}
    this.tab = "mask";
    this.opener = null;
    this.loadToken = 0;
    view.observers.add((event) => this.observe(event));
    this.build();
  }

  // ---- the dialog ------------------------------------------------------------------------------------

  build() {
    this.title = h("h2", { id: "ie-title", tabindex: "-1" }, "编辑图片");
    this.versionNote = h("span", { class: "muted ie-version", id: "ie-version" });
    this.closeButton = h("button", { type: "button", class: "btn ghost small ie-close", "aria-label": "关闭图片编辑" }, "关闭");
    this.closeButton.addEventListener("click", () => this.close());

    this.tabButtons = TABS.map(([key, text]) => h("button", {
      type: "button", role: "tab", id: `ie-tab-${key}`, class: "ie-tab", "aria-controls": `ie-panel-${key}`,
      "aria-selected": "false", tabindex: "-1", dataset: { tab: key },
    }, text));
    this.tabList = h("div", { class: "ie-tabs", role: "tablist", "aria-label": "编辑方式" }, this.tabButtons);
    this.tabList.addEventListener("click", (event) => {
      const button = event.target.closest("[role=tab]");
      if (button) this.select(button.dataset.tab);
    });
    this.tabList.addEventListener("keydown", (event) => {
      const keys = { ArrowRight: 1, ArrowLeft: -1, Home: "first", End: "last" };
      if (!(event.key in keys)) return;
      event.preventDefault();
      const at = TABS.findIndex(([key]) => key === this.tab);
      const step = keys[event.key];
      const next = step === "first" ? 0 : step === "last" ? TABS.length - 1 : (at + step + TABS.length) % TABS.length;
      this.select(TABS[next][0], { focus: true });
    });

    this.maskPanel = this.buildMask();
    this.paramsPanel = this.buildParams();
    this.textPanel = this.buildText();
    this.panels = { mask: this.maskPanel, params: this.paramsPanel, text: this.textPanel };

    this.loading = h("p", { class: "muted ie-loading", role: "status" });
    this.bar = progressBar("图片编辑进度");
    this.statusText = h("p", { class: "ie-status", id: "ie-status", role: "status" });
    this.messages = h("ul", { class: "ie-messages", id: "ie-messages" });
    this.progress = h("div", { class: "ie-progress", hidden: true }, this.bar.node, this.statusText, this.messages);
    this.error = h("div", { class: "alert error ie-error", id: "ie-error", role: "alert", hidden: true });
    this.send = h("button", { type: "submit", class: "btn primary", id: "ie-send" }, "生成新图片");
    this.cancel = h("button", { type: "button", class: "btn", id: "ie-cancel" }, "关闭");
    this.cancel.addEventListener("click", () => this.close());

    this.form = h("form", { class: "ie-form", novalidate: true },
      this.tabList, this.maskPanel, this.paramsPanel, this.textPanel,
      this.progress, this.error,
      h("div", { class: "form-actions ie-actions" }, this.send, this.cancel));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    // a change answers the last complaint (nothing painted, nothing changed …)
    this.form.addEventListener("input", () => this.hideError());
    this.form.addEventListener("change", () => this.hideError());

    this.body = h("div", { class: "ie-body" }, this.loading, this.form);
    this.dialog = h("dialog", { class: "ie-dialog", id: "image-editor", "aria-labelledby": "ie-title" },
      h("header", { class: "ie-head" }, this.title, this.versionNote, this.closeButton),
      this.body);
    this.dialog.addEventListener("close", () => this.closed());
    document.body.append(this.dialog);
  }

  /** A section's picture: the image with an overlay on top (the mask canvas, or the text boxes). */
  stage(extra) {
    const img = h("img", { class: "ie-picture", alt: "", draggable: "false" });
    const node = h("div", { class: "ie-stage" }, img, extra);
    return { node, img };
  }

  buildMask() {
    this.canvas = h("canvas", { class: "ie-mask", width: 1, height: 1, "aria-hidden": "true" });
    const stage = this.stage(this.canvas);
    this.maskStage = stage;
    this.brushInput = h("input", { type: "radio", name: "ie-tool", id: "ie-tool-brush", value: "brush", checked: true });
    this.eraserInput = h("input", { type: "radio", name: "ie-tool", id: "ie-tool-eraser", value: "eraser" });
    this.sizeInput = h("input", { type: "range", id: "ie-size", min: 10, max: 240, step: 5, value: 80 });
    this.sizeOut = h("output", { for: "ie-size", class: "ie-size-out" }, "80");
    this.sizeInput.addEventListener("input", () => {
      this.sizeOut.textContent = this.sizeInput.value;
    });
    this.clearButton = h("button", { type: "button", class: "btn small", id: "ie-clear" }, "清除涂抹");
    this.clearButton.addEventListener("click", () => this.clearMask());
    this.quick = QUICK_AREAS.map(([text, area]) => h("button", {
      type: "button", class: "chip ie-quick", dataset: { area: text }, onclick: () => this.fillArea(area),
    }, text));
    this.instruction = h("textarea", {
      id: "ie-instruction", name: "instruction", rows: 3, maxlength: MAX_INSTRUCTION,
      placeholder: "例如：画一个黄色的太阳 / 换成蓝色 / 写上「周末快乐」", "aria-describedby": "ie-instruction-hint",
    });
    this.maskState = h("p", { class: "muted ie-mask-state", id: "ie-mask-state", "aria-live": "polite" }, "还没有涂抹。");

    const canvas = this.canvas;
    canvas.addEventListener("pointerdown", (event) => this.paintStart(event));
    canvas.addEventListener("pointermove", (event) => this.paintMove(event));
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
      canvas.addEventListener(type, () => this.paintEnd());
    }

    return h("div", { class: "ie-panel", role: "tabpanel", id: "ie-panel-mask", "aria-labelledby": "ie-tab-mask" },
      h("div", { class: "ie-split" },
        h("div", { class: "ie-canvas-col" }, stage.node,
          h("p", { class: "muted ie-stage-hint" }, "在图上按住拖动，涂出要修改的地方（白色半透明处）。")),
        h("div", { class: "ie-controls" },
          h("fieldset", { class: "ie-tools" },
            h("legend", {}, "工具"),
            h("div", { class: "ie-radios" },
              h("label", { class: "ie-radio", for: "ie-tool-brush" }, this.brushInput, "画笔"),
              h("label", { class: "ie-radio", for: "ie-tool-eraser" }, this.eraserInput, "橡皮")),
            h("div", { class: "ie-size" }, h("label", { for: "ie-size" }, "笔刷大小"), this.sizeInput, this.sizeOut),
            h("div", { class: "ie-quick-row" },
              h("span", { class: "muted", id: "ie-quick-label" }, "快速涂抹："),
              h("div", { class: "chips", role: "group", "aria-labelledby": "ie-quick-label" }, this.quick)),
            h("div", { class: "ie-tool-actions" }, this.clearButton, this.maskState)),
          h("div", { class: "field" },
            h("label", { for: "ie-instruction" }, "涂抹处改成什么？"),
            this.instruction,
            h("div", { class: "field-hint", id: "ie-instruction-hint" }, "留空则去掉涂抹处的内容；涂抹以外的地方保持不变。")))));
  }

  buildParams() {
    this.paramsNote = h("p", { class: "alert warn ie-params-note", hidden: true });
    this.paletteButtons = PALETTES.map(([name, colors]) => h("button", {
      type: "button", class: "ie-palette", dataset: { palette: name }, "aria-pressed": "false",
      onclick: () => {
        this.setPalette(colors);
        this.hideError();
      },
    }, h("span", { class: "ie-swatches", "aria-hidden": "true" },
      colors.map((c) => h("span", { class: "ie-swatch", style: { background: c } }))), name));
    this.colors = h("div", { class: "ie-colors" });
    this.layoutSelect = h("select", { id: "ie-layout", name: "layout" });
    this.scaleInput = h("input", { type: "range", id: "ie-scale", min: 0.7, max: 1.4, step: 0.05, value: 1 });
    this.scaleOut = h("output", { for: "ie-scale", class: "ie-scale-out" }, "100%");
    this.scaleInput.addEventListener("input", () => {
      this.scaleOut.textContent = `${Math.round(Number(this.scaleInput.value) * 100)}%`;
    });
    this.headlineInput = h("input", { type: "text", id: "ie-headline", name: "headline", maxlength: MAX_HEADLINE });
    this.linesInput = h("textarea", { id: "ie-lines", name: "lines", rows: 3, "aria-describedby": "ie-lines-hint" });
    this.badgeInput = h("input", { type: "checkbox", id: "ie-badge", name: "badge" });
    this.cropSelect = h("select", { id: "ie-crop", name: "crop" },
      CROPS.map(([key, text]) => h("option", { value: key }, text)));
    this.paramsPicture = this.stage(null);

    return h("div", { class: "ie-panel", role: "tabpanel", id: "ie-panel-params", "aria-labelledby": "ie-tab-params", hidden: true },
      h("div", { class: "ie-split" },
        h("div", { class: "ie-canvas-col" }, this.paramsPicture.node),
        h("div", { class: "ie-controls" },
          this.paramsNote,
          h("fieldset", { class: "ie-fieldset", id: "ie-palette-set" },
            h("legend", {}, "配色"),
            h("div", { class: "ie-palettes", role: "group", "aria-label": "预设配色" }, this.paletteButtons),
            this.colors),
          h("div", { class: "options-pair" },
            h("div", { class: "field" }, h("label", { for: "ie-layout" }, "版式"), this.layoutSelect),
            h("div", { class: "field" }, h("label", { for: "ie-crop" }, "裁剪"), this.cropSelect)),
          h("div", { class: "field ie-scale" },
            h("label", { for: "ie-scale" }, "文字大小"), this.scaleInput, this.scaleOut),
          h("div", { class: "field" }, h("label", { for: "ie-headline" }, "卡片标题"), this.headlineInput),
          h("div", { class: "field" },
            h("label", { for: "ie-lines" }, "卡片文字"),
            this.linesInput,
            h("div", { class: "field-hint", id: "ie-lines-hint" }, `一行一条，最多 ${MAX_LINES} 条，每条不超过 ${MAX_LINE} 字。`)),
          h("label", { class: "ie-check", for: "ie-badge" }, this.badgeInput, "显示角标"))));
  }

  buildText() {
    this.textBoxes = h("div", { class: "ie-text-boxes", "aria-hidden": "true" });
    this.textPicture = this.stage(this.textBoxes);
    this.textList = h("ol", { class: "ie-text-list", id: "ie-text-list" });
    this.textState = h("p", { class: "muted ie-text-state", role: "status" });
    return h("div", { class: "ie-panel", role: "tabpanel", id: "ie-panel-text", "aria-labelledby": "ie-tab-text", hidden: true },
      h("div", { class: "ie-split" },
        h("div", { class: "ie-canvas-col" }, this.textPicture.node),
        h("div", { class: "ie-controls" },
          h("p", { class: "field-hint" }, "下面是图中识别出的文字，改掉想换的那几处即可；没改的保持原样。"),
          this.textState,
          this.textList)));
  }

  // ---- the buttons on the pictures ---------------------------------------------------------------------

  /** Give every finished picture its 编辑图片 button (the page calls this whenever the run changes). */
  refresh() {
    const view = this.view;
    const finished = FINISHED.has(view.status);
    const show = Boolean(view.threadId) && Boolean(view.creativeId) && Boolean(view.version) && this.allowed()
      && !view.answerOnly;
    const ready = finished && Boolean(view.version) && !this.session.streaming && !this.busy;
    for (const [taskId, slot] of view.images.slots) {
      const caption = slot.node.querySelector("figcaption");
      if (!caption) continue;
      let button = caption.querySelector(".image-edit-btn");
      if (!button) {
        button = h("button", {
          type: "button", class: "btn small image-edit-btn", dataset: { task: String(taskId), action: "edit-image" },
          "aria-haspopup": "dialog", "aria-label": `编辑图片（图${taskId}）`,
        }, "编辑图片");
        button.addEventListener("click", () => this.open(taskId, button));
        caption.append(button);
      }
      button.hidden = !show || !slot.url;
      button.disabled = !ready;
    }
    this.send.disabled = this.busy || this.session.streaming || !this.current;
  }

  // ---- opening and loading -----------------------------------------------------------------------------

  async open(taskId, opener = null) {
    this.opener = opener;
    this.messagesClear();
    this.progress.hidden = true;
    this.hideError();
    if (!this.dialog.open) this.dialog.showModal();
    this.title.textContent = `编辑图${taskId}`;
    this.title.focus();
    await this.load(taskId);
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  closed() {
    this.painting = null;
    const opener = this.opener;
    if (opener && opener.isConnected && !opener.hidden) opener.focus();
    else this.view.images.grid.querySelector(".image-edit-btn:not([hidden])")?.focus();
  }

  /** Read the picture on screen at the version on screen: its asset, plan, overlay and pixel size. */
  async load(taskId, { keepMessages = false } = {}) {
    const token = ++this.loadToken;
    this.current = null;
    this.form.hidden = true;
    this.loading.hidden = false;
    this.loading.textContent = "正在读取图片…";
    if (!keepMessages) this.messagesClear();
    this.refresh();
    try {
      const creativeId = this.view.creativeId;
      const number = await this.basedOn(this.view.threadId);
      if (!creativeId || !number) throw new Error("还没有可编辑的版本，请先完成一次创作。");
      const [payload, creative] = await Promise.all([
        request(`/api/creatives/${encodeURIComponent(creativeId)}/versions/${number}`),
        getCreative(creativeId),
      ]);
      const version = payload.version || {};
      const assetId = Number((version.imageAssetIds || [])[taskId - 1]);
      if (!Number.isInteger(assetId)) throw new Error(`第 ${number} 版里没有图${taskId}。`);
      const asset = (creative.assets || []).find((a) => a.id === assetId) || {};
      const index = Number(asset.taskIndex) || taskId;
      const plan = (version.imagePlans || []).find((p) => Number(p.index) === index) || null;
      const overlay = plan?.overlay || (version.textOverlayPlan || []).find((o) => Number(o.imageIndex) === index) || null;
      const url = `/api/assets/${assetId}`;
      const picture = new Image();
      picture.src = url;
      await picture.decode();
      if (token !== this.loadToken) return;
      this.current = {
        taskId, assetId, version: number, plan, overlay, provider: asset.provider || null,
        redrawable: typeof asset.redrawable === "boolean" ? asset.redrawable : null,
        width: picture.naturalWidth, height: picture.naturalHeight, url, role: plan?.role || asset.role || null,
      };
      this.analysis = null;
      this.fill();
      this.loading.hidden = true;
      this.form.hidden = false;
      this.versionNote.textContent = `基于第 ${number} 版`;
      this.select(this.tab);
    } catch (err) {
      if (token !== this.loadToken) return;
      this.loading.textContent = "";
      this.loading.hidden = true;
      this.form.hidden = false;
      for (const panel of Object.values(this.panels)) panel.hidden = true;
      this.showError(`读取图片失败：${err?.status !== undefined ? describeError(err).title : err?.message || String(err)}`);
    } finally {
      if (token === this.loadToken) this.refresh();
    }
  }

  /** Put the loaded picture into every section and its plan into the parameters. */
  fill() {
    const c = this.current;
    for (const img of [this.maskStage.img, this.paramsPicture.img, this.textPicture.img]) {
      img.src = c.url;
      img.alt = `图${c.taskId}（${c.width}×${c.height}）`;
      img.width = c.width;
      img.height = c.height;
    }
    this.canvas.width = c.width;
    this.canvas.height = c.height;
    this.clearMask();
    this.instruction.value = "";

    // parameters: a card the studio can draw again from its plan (the asset's `redrawable`: its own offline
    // card, or an image model's card whose picture was kept); an older server without the flag: offline only
    const plan = c.plan;
    const offline = !c.provider || OFFLINE.has(c.provider);
    const card = Boolean(plan) && (typeof c.redrawable === "boolean" ? c.redrawable : offline);
    this.card = card;
    let note = "";
    if (!card && offline) note = "这张图没有配图规划，无法重新排版：配色、版式、文字大小、卡片文字和角标改不了，可以裁剪。";
    else if (!card) note = "这张图由图片模型生成，没有可重新排版的卡片：配色、版式、文字大小、卡片文字和角标改不了，可以裁剪。";
    else if (!offline) note = "这张卡片会在图片模型原来生成的图片上重新排版，不会再次调用图片模型。";
    this.paramsNote.className = card ? "field-hint ie-params-note" : "alert warn ie-params-note";
    this.paramsNote.textContent = note;
    this.paramsNote.hidden = !note;
    for (const control of [...this.paletteButtons, this.layoutSelect, this.scaleInput, this.headlineInput, this.linesInput, this.badgeInput]) {
      control.disabled = !card;
    }
    this.setPalette(plan?.palette?.length ? plan.palette : PALETTES[0][1], { initial: true });
    const role = c.role && CARD_LAYOUTS[c.role] ? c.role : null;
    const options = role ? CARD_LAYOUTS[role] : [];
    clear(this.layoutSelect).append(...options.map(([key, text]) => h("option", { value: key }, text)));
    if (plan?.layout && !options.some(([key]) => key === plan.layout)) {
      this.layoutSelect.append(h("option", { value: plan.layout }, label("layout", plan.layout)));
    }
    this.layoutSelect.value = plan?.layout || options[0]?.[0] || "";
    this.layoutSelect.disabled = !card || !options.length;
    const scale = Number(plan?.textScale) || 1;
    this.scaleInput.value = String(scale);
    this.scaleOut.textContent = `${Math.round(scale * 100)}%`;
    this.headlineInput.value = c.overlay?.headline || "";
    this.linesInput.value = (c.overlay?.lines || []).join("\n");
    this.badgeInput.checked = plan ? plan.badge !== false : true;
    this.cropSelect.value = "";

    // text: read again when the section is shown
    clear(this.textList);
    clear(this.textBoxes);
    this.textState.textContent = "";
  }

  select(tab, { focus = false } = {}) {
    this.tab = tab;
    for (const button of this.tabButtons) {
      const on = button.dataset.tab === tab;
      button.setAttribute("aria-selected", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      if (on && focus) button.focus();
    }
    for (const [key, panel] of Object.entries(this.panels)) panel.hidden = key !== tab || !this.current;
    this.send.textContent = { mask: "按涂抹生成新图片", params: "按参数生成新图片", text: "替换文字，生成新图片" }[tab];
    if (tab === "text" && this.current && !this.analysis) this.loadText();
  }

  // ---- 涂抹修改 -----------------------------------------------------------------------------------------

  point(event) {
    const rect = this.canvas.getBoundingClientRect();
    return {
      x: ((event.clientX - rect.left) * this.canvas.width) / rect.width,
      y: ((event.clientY - rect.top) * this.canvas.height) / rect.height,
    };
  }

  pen() {
    const ctx = this.canvas.getContext("2d");
    ctx.globalCompositeOperation = this.eraserInput.checked ? "destination-out" : "source-over";
    ctx.strokeStyle = "#ffffff";
    ctx.fillStyle = "#ffffff";
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.lineWidth = Number(this.sizeInput.value) || 80;
    return ctx;
  }

  paintStart(event) {
    if (!this.current || event.button > 0) return;
    event.preventDefault();
    try {
      this.canvas.setPointerCapture(event.pointerId); // keep painting when the pointer leaves the picture
    } catch {
      // not an active pointer (a synthetic event): paint without capture
    }
    const ctx = this.pen();
    const p = this.point(event);
    ctx.beginPath();
    ctx.arc(p.x, p.y, ctx.lineWidth / 2, 0, Math.PI * 2);
    ctx.fill();
    this.painting = { id: event.pointerId, last: p };
  }

  paintMove(event) {
    const painting = this.painting;
    if (!painting || painting.id !== event.pointerId) return;
    event.preventDefault();
    const ctx = this.pen();
    const events = event.getCoalescedEvents?.() || [event];
    ctx.beginPath();
    ctx.moveTo(painting.last.x, painting.last.y);
    for (const e of events.length ? events : [event]) {
      const p = this.point(e);
      ctx.lineTo(p.x, p.y);
      painting.last = p;
    }
    ctx.stroke();
  }

  paintEnd() {
    if (!this.painting) return;
    this.painting = null;
    this.maskChanged();
  }

  fillArea([x, y, w, h2]) {
    if (!this.current) return;
    const ctx = this.pen();
    ctx.globalCompositeOperation = "source-over";
    ctx.fillRect(x * this.canvas.width, y * this.canvas.height, w * this.canvas.width, h2 * this.canvas.height);
    this.maskChanged();
  }

  clearMask() {
    const ctx = this.canvas.getContext("2d");
    ctx.globalCompositeOperation = "source-over";
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.maskChanged();
  }

  /** The share of the picture painted (0–1). */
  painted() {
    const { width, height } = this.canvas;
    if (width < 2 || height < 2) return 0;
    const data = this.canvas.getContext("2d").getImageData(0, 0, width, height).data;
    let count = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] >= 128) count += 1;
    return count / (width * height);
  }

  maskChanged() {
    const share = this.painted();
    this.maskState.textContent = share > 0 ? `已涂抹约 ${Math.max(1, Math.round(share * 100))}% 的画面。` : "还没有涂抹。";
    this.hideError();
  }

  /** The mask as the API wants it: a PNG of the picture's size, white where painted, black elsewhere. */
  maskUrl() {
    const out = document.createElement("canvas");
    out.width = this.canvas.width;
    out.height = this.canvas.height;
    const ctx = out.getContext("2d");
    ctx.fillStyle = "#000000";
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(this.canvas, 0, 0);
    return out.toDataURL("image/png");
  }

  // ---- 参数调整 -----------------------------------------------------------------------------------------

  setPalette(colors, { initial = false } = {}) {
    const list = colors.map((c) => String(c).toUpperCase());
    clear(this.colors).append(...list.map((color, i) => {
      const id = `ie-color-${i + 1}`;
      const input = h("input", { type: "color", id, value: color.toLowerCase(), dataset: { index: String(i) } });
      input.disabled = this.card === false;
      input.addEventListener("input", () => this.markPalette());
      return h("label", { class: "ie-color", for: id }, input, h("span", {}, i === 0 ? "主色" : `颜色 ${i + 1}`));
    }));
    if (initial) this.initialPalette = list;
    this.markPalette();
  }

  palette() {
    return [...this.colors.querySelectorAll("input[type=color]")].map((i) => i.value.toUpperCase());
  }

  markPalette() {
    const now = this.palette();
    for (const [i, [, colors]] of PALETTES.entries()) {
      this.paletteButtons[i].setAttribute("aria-pressed", sameList(colors, now) ? "true" : "false");
    }
  }

  /** The parameters that differ from the picture's plan (null: nothing changed). */
  params() {
    const c = this.current;
    const plan = c.plan || {};
    const params = {};
    if (this.card) {
      const palette = this.palette();
      if (!sameList(palette, (plan.palette || []).map((x) => String(x).toUpperCase()))) params.palette = palette;
      if (this.layoutSelect.value && this.layoutSelect.value !== plan.layout) params.layout = this.layoutSelect.value;
      const scale = Number(this.scaleInput.value);
      if (Math.abs(scale - (Number(plan.textScale) || 1)) > 1e-6) params.textScale = scale;
      const headline = this.headlineInput.value.trim();
      if (headline !== (c.overlay?.headline || "")) params.headline = headline;
      const lines = this.linesInput.value.split("\n").map((l) => l.trim()).filter(Boolean);
      if (!sameList(lines, c.overlay?.lines || [])) params.lines = lines;
      if (this.badgeInput.checked !== (plan.badge !== false)) params.badge = this.badgeInput.checked;
    }
    const crop = cropBox(this.cropSelect.value, c.width, c.height);
    if (crop) params.crop = crop;
    return Object.keys(params).length ? params : null;
  }

  // ---- 文字编辑 -----------------------------------------------------------------------------------------

  async loadText() {
    const c = this.current;
    this.textState.textContent = "正在识别图中的文字…";
    try {
      const analysis = await request(`/api/assets/${c.assetId}/analysis`);
      if (this.current !== c) return;
      this.analysis = analysis;
      const regions = (analysis.textRegions || []).slice(0, 40);
      this.textState.textContent = regions.length ? `识别到 ${regions.length} 处文字。` : "这张图里没有识别出文字。";
      clear(this.textBoxes).append(...regions.map((r, i) => h("div", {
        class: "ie-text-box", dataset: { region: String(i) }, style: place(r.box),
      }, h("span", { class: "ie-text-num" }, String(i + 1)))));
      clear(this.textList).append(...regions.map((r, i) => {
        const id = `ie-text-${i}`;
        const input = h("input", {
          type: "text", id, maxlength: MAX_LINE, value: r.text, dataset: { region: String(i) },
        });
        const mark = (on) => this.textBoxes.querySelector(`[data-region="${i}"]`)?.classList.toggle("active", on);
        input.addEventListener("focus", () => mark(true));
        input.addEventListener("blur", () => mark(false));
        input.addEventListener("input", () => {
          input.closest("li").classList.toggle("changed", input.value.trim() !== r.text);
          this.hideError();
        });
        return h("li", { dataset: { region: String(i) } },
          h("label", { for: id }, h("span", { class: "ie-text-num" }, String(i + 1)), `原文：${r.text}`), input);
      }));
    } catch (err) {
      if (this.current !== c) return;
      this.textState.textContent = `识别文字失败：${describeError(err).title}`;
    }
  }

  textEdits() {
    const regions = this.analysis?.textRegions || [];
    const edits = [];
    for (const input of this.textList.querySelectorAll("input[data-region]")) {
      const region = regions[Number(input.dataset.region)];
      const text = input.value.trim();
      if (region && text && text !== region.text) edits.push({ box: region.box, text, original: region.text });
    }
    return edits;
  }

  // ---- sending -----------------------------------------------------------------------------------------

  /** The active section's changes as the edit's body; {error, control} when there is nothing to send. */
  collect() {
    if (this.tab === "mask") {
      if (!this.painted()) return { error: "请先在图上涂抹要修改的地方。", control: this.canvas };
      const body = { mask: this.maskUrl() };
      const instruction = this.instruction.value.trim();
      if (instruction) body.instruction = instruction;
      return { body, what: "按涂抹修改" };
    }
    if (this.tab === "params") {
      const params = this.params();
      if (!params) return { error: "参数没有改动：换个配色、版式、文字或裁剪后再生成。", control: this.paletteButtons[0] };
      if ((params.lines || []).length > MAX_LINES || (params.lines || []).some((l) => l.length > MAX_LINE)) {
        return { error: `卡片文字最多 ${MAX_LINES} 条，每条不超过 ${MAX_LINE} 字。`, control: this.linesInput };
      }
      return { body: { params }, what: "调整参数" };
    }
    if (!this.analysis) return { error: "文字还没有识别完，请稍等。", control: null };
    const edits = this.textEdits();
    if (!edits.length) return { error: "没有改动的文字：改掉想换的那一处再生成。", control: this.textList.querySelector("input") };
    if (edits.length > MAX_TEXT_EDITS) return { error: `一次最多改 ${MAX_TEXT_EDITS} 处文字。`, control: null };
    return { body: { textEdits: edits }, what: "替换文字" };
  }

  async submit() {
    const c = this.current;
    if (!c || this.busy || this.session.streaming) return;
    this.hideError();
    const { body, error, control, what } = this.collect();
    if (error) {
      this.showError(error);
      if (control && control !== this.canvas) control.focus();
      return;
    }
    const view = this.view;
    const before = { status: view.status, phase: view.phase.textContent, revising: view.revising };
    this.busy = true;
    this.watching = true;
    this.messagesClear();
    this.progress.hidden = false;
    this.bar.set(0.05, "正在提交");
    this.statusText.textContent = "正在提交…";
    this.refresh();
    view.revising = true; // its completion reads 修改完成
    view.setStatus("connecting");
    view.phase.textContent = `正在编辑图${c.taskId}（${what}）…`;
    try {
      const url = `/api/assets/${c.assetId}/edit`;
      await this.session.stream((signal) => postStream(url, { ...body, basedOn: c.version }, signal));
      this.onSent({ threadId: view.threadId, message: what, done: `已编辑图${c.taskId}（${what}）` });
      if (this.watching) this.statusText.textContent = "正在生成新图片…";
    } catch (err) {
      this.watching = false;
      this.progress.hidden = true;
      if (view.status === "connecting") {
        view.setStatus(before.status);
        view.phase.textContent = before.phase;
        view.revising = before.revising;
      }
      this.refused(err);
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  /** An edit refused before its stream opened, in words. */
  refused(err) {
    const code = err?.code;
    if (code === "VERSION_CONFLICT") {
      const reload = h("button", { type: "button", class: "btn small", id: "ie-reload" }, "刷新作品");
      reload.addEventListener("click", () => {
        this.close();
        this.view.reloadFn?.();
      });
      this.showError("作品已经被修改过（有了更新的版本），请刷新后在最新版本上编辑。", [err.message], reload);
      return;
    }
    // the server's message says it in Chinese; only a validation error's field list goes with it
    const d = describeError(err);
    this.showError(d.title, Array.isArray(err?.details) ? d.lines : []);
  }

  /** The edit's events as the view applies them: progress, what was done, the new version. */
  observe(event) {
    if (!this.watching) return;
    if (event.type === "image_progress") {
      const done = event.status === "complete";
      this.bar.set(done ? 0.95 : Math.max(0.1, Number(event.progress) || 0.1), done ? "新图片已生成" : "正在生成");
      this.statusText.textContent = done ? "新图片已生成，正在保存为新版本…" : "正在生成新图片…";
    } else if (event.type === "message" && event.content) {
      const text = String(event.content);
      this.messages.append(h("li", { class: text.startsWith("没能") ? "ie-msg-warn" : "ie-msg-ok" }, text));
    } else if (event.type === "workflow_complete") {
      this.watching = false;
      this.bar.set(1, "完成");
      const version = Number(event.version);
      this.statusText.textContent = version ? `已生成第 ${version} 版，结果中的图片已更新。` : "已完成，结果中的图片已更新。";
      if (this.dialog.open && this.current) this.load(this.current.taskId, { keepMessages: true });
    } else if (event.type === "error") {
      this.watching = false;
      this.progress.hidden = false;
      this.statusText.textContent = "";
      this.showError(`没能编辑这张图：${event.message || "未知错误"}`);
    }
  }

  messagesClear() {
    clear(this.messages);
  }

  showError(title, lines = [], action = null) {
    clear(this.error).append(h("strong", {}, title), ...lines.filter(Boolean).map((l) => h("div", {}, l)));
    if (action) this.error.append(action);
    this.error.hidden = false;
  }

  hideError() {
    this.error.hidden = true;
  }
}
