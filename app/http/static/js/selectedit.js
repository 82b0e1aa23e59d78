// 改写选中文字: in a finished draft's body, selecting text offers "改写选中文字" (a button beside the
// selection, also reachable with Tab right after the body); it opens a small box under the draft with the
// selection quoted, an instruction and quick chips (更简洁 / 更生动 / 更正式 / 删掉这段). Sending posts
// `{action: "selection", selection: {start, end, text}, instruction, basedOn}` to
// `POST /api/agent/threads/{threadId}/rewrite` and follows the stream like a one-click rewrite (ReviseBox.send).
// `start` and `end` count code points of the body, as the server does (a JS string counts UTF-16 units).

import { h } from "./dom.js";

const FINISHED = new Set(["completed", "failed", "aborted"]);
const MAX_INSTRUCTION = 200;
/** Quick instructions: [button text, instruction sent]. */
export const SELECTION_CHIPS = [
  ["更简洁", "改得更简洁"],
  ["更生动", "改得更生动"],
  ["更正式", "改得更正式"],
  ["删掉这段", "删掉这段"],
];

const codePoints = (text) => [...text].length;

/** The paragraphs of a body as DraftCard shows them (cards.js `paragraphs`: split at blank lines, trimmed,
 * empty ones dropped), each with its start in the body (UTF-16 offsets). */
export function paragraphSpans(body) {
  const spans = [];
  const gap = /\n\s*\n/g;
  let from = 0;
  const pieces = [];
  for (let m = gap.exec(body); m; m = gap.exec(body)) {
    pieces.push([from, m.index]);
    from = m.index + m[0].length;
  }
  pieces.push([from, body.length]);
  for (const [a, b] of pieces) {
    const raw = body.slice(a, b);
    const text = raw.trim();
    if (text) spans.push({ start: a + (raw.length - raw.trimStart().length), text });
  }
  return spans;
}

export class SelectionEditor {
  /**
   * view: the page's RunView; revise: the page's ReviseBox (its send(), currentVersion(), 人工审核 switch);
   * allowed(): whether this account may revise the run on screen.
   */
  constructor({ view, session, revise, allowed = () => true }) {
    this.view = view;
    this.session = session;
    this.revise = revise;
    this.allowed = allowed;
    this.selection = null; // {start, end, text} in UTF-16 offsets of the body
    this.busy = false;

    this.offer = h("button", {
      type: "button", class: "btn small selection-offer", id: "selection-offer", hidden: true,
      "aria-controls": "selection-box", "aria-expanded": "false",
    }, "改写选中文字");
    // keep the selection: a mouse press on the button would otherwise clear it before the click
    this.offer.addEventListener("mousedown", (event) => event.preventDefault());
    this.offer.addEventListener("click", () => this.openBox());

    this.quote = h("blockquote", { class: "selection-quote", id: "selection-quote" });
    this.input = h("input", {
      type: "text", id: "selection-instruction", name: "instruction", maxlength: MAX_INSTRUCTION,
      placeholder: "比如：语气更俏皮一点 / 加一个具体的例子",
    });
    this.chips = SELECTION_CHIPS.map(([text, instruction]) => h("button", {
      type: "button", class: "chip revise-rewrite selection-chip", dataset: { instruction },
      onclick: () => this.send(instruction, text),
    }, text));
    this.error = h("div", { class: "alert error", id: "selection-error", role: "alert", hidden: true });
    this.submitButton = h("button", { type: "submit", class: "btn primary small", id: "selection-send" }, "改写");
    this.cancelButton = h("button", { type: "button", class: "btn small", id: "selection-cancel" }, "取消");
    this.cancelButton.addEventListener("click", () => this.closeBox());
    this.box = h("form", {
      class: "selection-box", id: "selection-box", hidden: true, novalidate: true,
      role: "group", "aria-labelledby": "selection-title",
    },
    h("div", { class: "selection-head" }, h("strong", { id: "selection-title" }, "改写选中文字"),
      h("span", { class: "muted", id: "selection-count" })),
    this.quote,
    h("div", { class: "selection-row" },
      h("label", { for: "selection-instruction", class: "sr-only" }, "怎么改这段文字"),
      this.input, this.submitButton, this.cancelButton),
    h("div", { class: "chips selection-chips", role: "group", "aria-label": "快捷改写" }, this.chips),
    this.error);
    this.box.addEventListener("submit", (event) => {
      event.preventDefault();
      const instruction = this.input.value.trim();
      if (!instruction) {
        this.showError("请先写下想怎么改，或点一个快捷选项。");
        this.input.setAttribute("aria-invalid", "true");
        this.input.focus();
        return;
      }
      this.send(instruction, "按要求");
    });
    this.box.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.closeBox();
      }
    });
    this.input.addEventListener("input", () => {
      this.input.removeAttribute("aria-invalid");
      this.hideError();
    });

    // both live in the draft card, after its body (the draft card re-renders only its body)
    const card = view.cards.draft;
    card.classList.add("selection-host");
    card.append(this.offer, this.box);
    this.card = card;
    document.addEventListener("selectionchange", () => this.selectionChanged());
    view.observers.add((event) => {
      if (event.type === "content_update" || event.type === "workflow_complete") this.closeBox({ focus: false });
    });
  }

  /** The finished body on screen, or null (streaming, a live draft, no draft). */
  bodyNode() {
    const node = this.view.draft.target.querySelector("[data-testid=draft-body]");
    return node && !node.classList.contains("live") ? node : null;
  }

  ready() {
    const view = this.view;
    return Boolean(view.threadId) && FINISHED.has(view.status) && Boolean(view.version) && this.allowed()
      && !view.answerOnly && !this.session.streaming && !this.revise.busy && !this.busy && Boolean(view.draft.draft);
  }

  /** Show or hide the offer for the text selected now. */
  selectionChanged() {
    if (!this.box.hidden) return; // the box keeps what was selected when it opened
    const found = this.ready() ? this.read() : null;
    this.selection = found;
    this.offer.hidden = !found;
    if (!found) return;
    this.offer.textContent = `改写选中文字（${codePoints(found.text)} 字）`;
    this.position(found.range);
  }

  /** The selection within the body, as offsets into the draft's body text (UTF-16), trimmed of spaces. */
  read() {
    const node = this.bodyNode();
    const sel = document.getSelection();
    if (!node || !sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    const inside = document.createRange();
    inside.selectNodeContents(node);
    if (range.compareBoundaryPoints(Range.END_TO_START, inside) >= 0) return null; // starts after the body
    if (range.compareBoundaryPoints(Range.START_TO_END, inside) <= 0) return null; // ends before it
    const clipped = range.cloneRange();
    if (range.compareBoundaryPoints(Range.START_TO_START, inside) < 0) clipped.setStart(inside.startContainer, inside.startOffset);
    if (range.compareBoundaryPoints(Range.END_TO_END, inside) > 0) clipped.setEnd(inside.endContainer, inside.endOffset);
    const body = this.view.draft.draft.body;
    let start = this.offset(node, clipped.startContainer, clipped.startOffset, body);
    let end = this.offset(node, clipped.endContainer, clipped.endOffset, body);
    if (start === null || end === null || end <= start) return null;
    while (start < end && /\s/.test(body[start])) start += 1;
    while (end > start && /\s/.test(body[end - 1])) end -= 1;
    if (end <= start) return null;
    return { start, end, text: body.slice(start, end), range: clipped };
  }

  /** A DOM point inside the body's paragraphs as an offset into the body text (null when it cannot be). */
  offset(node, container, at, body) {
    const paras = [...node.children];
    const spans = paragraphSpans(body);
    if (paras.length !== spans.length) return null;
    if (container === node) {
      if (at >= paras.length) return spans.length ? spans[spans.length - 1].start + spans[spans.length - 1].text.length : 0;
      return spans[at].start;
    }
    const index = paras.findIndex((p) => p === container || p.contains(container));
    if (index < 0 || paras[index].textContent !== spans[index].text) return null;
    const before = document.createRange();
    before.setStart(paras[index], 0);
    before.setEnd(container, at);
    return spans[index].start + before.toString().length;
  }

  /** The offer beside the end of the selection (inside the draft card). */
  position(range) {
    const rects = range.getClientRects();
    const last = rects[rects.length - 1] || range.getBoundingClientRect();
    const card = this.card.getBoundingClientRect();
    this.offer.style.position = "absolute";
    const width = this.offer.offsetWidth || 140;
    const left = Math.max(8, Math.min(last.right - card.left - width / 2, card.width - width - 8));
    this.offer.style.left = `${Math.round(left)}px`;
    this.offer.style.top = `${Math.round(last.bottom - card.top + 6)}px`;
  }

  openBox() {
    const found = this.selection;
    if (!found || !this.ready()) return;
    const text = found.text;
    const shown = codePoints(text) > 80 ? `${[...text].slice(0, 80).join("")}…` : text;
    this.quote.textContent = shown;
    this.box.querySelector("#selection-count").textContent = `共 ${codePoints(text)} 字`;
    this.hideError();
    this.input.value = "";
    this.box.hidden = false;
    this.offer.hidden = true;
    this.offer.setAttribute("aria-expanded", "true");
    this.refresh();
    this.input.focus();
  }

  closeBox({ focus = true } = {}) {
    const wasOpen = !this.box.hidden;
    this.box.hidden = true;
    this.offer.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-invalid");
    this.selectionChanged();
    if (wasOpen && focus) (this.offer.hidden ? this.view.draft.target.querySelector(".card-actions button") : this.offer)?.focus();
  }

  refresh() {
    const disabled = !this.ready();
    for (const button of [...this.chips, this.submitButton]) button.disabled = disabled;
    if (!this.box.hidden && !this.ready() && !this.busy && !this.session.streaming && !this.revise.busy) this.closeBox({ focus: false });
    if (this.box.hidden) this.offer.hidden = this.offer.hidden || !this.ready();
  }

  /** Post the selection's rewrite (based on the version on screen) and follow it like a quick action. */
  async send(instruction, what) {
    const found = this.selection;
    const view = this.view;
    if (!found || this.busy || !view.threadId) return;
    this.hideError();
    const body = view.draft.draft.body;
    if (body.slice(found.start, found.end) !== found.text) {
      this.showError("正文已经变了，请重新选择要改写的文字。");
      return;
    }
    const threadId = view.threadId;
    let basedOn;
    this.busy = true;
    try {
      basedOn = await this.revise.currentVersion(threadId);
    } catch {
      basedOn = null;
    }
    if (!basedOn) {
      this.busy = false;
      this.showError("还没有可改写的版本，请先完成一次创作。");
      return;
    }
    const start = codePoints(body.slice(0, found.start));
    const payload = {
      action: "selection",
      selection: { start, end: start + codePoints(found.text), text: found.text },
      instruction,
      basedOn,
      enableHITL: this.revise.hitlInput.checked,
    };
    const url = `/api/agent/threads/${encodeURIComponent(threadId)}/rewrite`;
    const done = what === "按要求" ? "已改写选中文字" : `已改写选中文字（${what}）`;
    this.busy = false;
    const ok = await this.revise.send(url, payload, "正在改写选中文字…", { message: instruction, threadId, done },
      { showError: (title, lines) => this.showError(title, lines) });
    if (ok) {
      this.box.hidden = true;
      this.offer.hidden = true;
      this.offer.setAttribute("aria-expanded", "false");
      document.getSelection()?.removeAllRanges();
    } else {
      this.input.focus();
    }
  }

  showError(title, lines = []) {
    this.error.replaceChildren(h("strong", {}, title), ...lines.map((line) => h("div", {}, line)));
    this.error.hidden = false;
  }

  hideError() {
    this.error.hidden = true;
  }
}
