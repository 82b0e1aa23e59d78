// 继续修改: the box under a finished run's result (completed, failed or aborted) that sends a new message on
// the same thread — `POST /api/agent/stream` with its `threadId` starts a revision run that redoes only what
// the message asks (the text, the pictures or the whole post) and ends with a new version (docs/protocol.md,
// issue 17). The revision's stream is followed by the page's RunSession exactly as a new run's: the same
// view, the same reconnection, the events numbered on from the thread's log.
// 一键改写: a row of buttons that post `POST /api/agent/threads/{threadId}/rewrite` with `basedOn` = the version
// on screen (a text revision with the action's instruction) and follow the stream through the same path.
// The box also owns the result's two editors, offered to the same accounts: 编辑图片 on each picture
// (imageedit.js) and 改写选中文字 in the draft's body (selectedit.js).

import { describeError, getCreative, getThread } from "./api.js";
import { clear, h } from "./dom.js";
import { ImageEditor } from "./imageedit.js";
import { SelectionEditor } from "./selectedit.js";
import { postStream } from "./sse.js";

/** One-click starts for a message (they fill the box; the creator can still edit before submitting). */
export const SUGGESTIONS = ["标题更吸引人", "正文短一点", "语气更活泼", "换成写给大学生", "封面换个配色"];
/** 一键改写: [action, button text] (docs/protocol.md, …/rewrite); `audience` asks for the audience inline. */
export const REWRITES = [
  ["shorter", "更短"], ["longer", "更长"], ["livelier", "更活泼"], ["formal", "更正式"],
  ["more_emoji", "多点表情"], ["fewer_emoji", "少点表情"], ["new_title", "换个标题"], ["audience", "换受众"],
];
const AUDIENCE_MAX = 20;
const FINISHED = new Set(["completed", "failed", "aborted"]);
const MAX_LENGTH = 4000;

export class ReviseBox {
  /**
   * view, session: the page's RunView and RunSession; hitl: the page's 人工审核 checkbox (the box shows its
   * own switch and keeps the two in step); allowed(): whether this account may revise the run on screen.
   */
  constructor({ view, session, hitl, allowed = () => true }) {
    this.view = view;
    this.session = session;
    this.hitl = hitl;
    this.allowed = allowed;
    this.busy = false; // the revision's request is on its way (until its stream opens or it is refused)
    this.sent = null; // {message, threadId} of the last revision sent from this box

    this.textarea = h("textarea", {
      id: "revise-message", name: "message", rows: 3, maxlength: MAX_LENGTH,
      placeholder: "比如：标题更有吸引力一点 / 第2张图换成蓝色调 / 正文短一点",
      "aria-describedby": "revise-hint",
    });
    this.chips = SUGGESTIONS.map((text) => h("button", {
      type: "button", class: "chip revise-chip", dataset: { suggestion: text }, onclick: () => this.suggest(text),
    }, text));
    this.hitlInput = h("input", { type: "checkbox", id: "revise-hitl", name: "enableHITL" });
    this.hitlInput.addEventListener("change", () => {
      this.hitl.checked = this.hitlInput.checked;
    });
    this.rewriteButtons = REWRITES.map(([action, text]) => h("button", {
      type: "button", class: "chip revise-rewrite", dataset: { action },
      onclick: () => (action === "audience" ? this.askAudience() : this.rewrite(action, text)),
    }, text));
    this.audienceInput = h("input", {
      type: "text", id: "revise-audience", name: "audience", maxlength: AUDIENCE_MAX,
      placeholder: "比如：大学生 / 新手妈妈", "aria-label": "新的受众",
    });
    this.audienceOk = h("button", { type: "button", class: "btn primary small", id: "revise-audience-ok" }, "确定");
    this.audienceCancel = h("button", { type: "button", class: "btn small", id: "revise-audience-cancel" }, "取消");
    this.audienceRow = h("div", { class: "revise-audience", id: "revise-audience-row", hidden: true },
      h("label", { for: "revise-audience" }, "写给谁看："), this.audienceInput, this.audienceOk, this.audienceCancel);
    this.audienceOk.addEventListener("click", () => this.confirmAudience());
    this.audienceCancel.addEventListener("click", () => this.closeAudience());
    this.audienceInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.confirmAudience();
      } else if (event.key === "Escape") {
        this.closeAudience();
      }
    });
    this.audienceInput.addEventListener("input", () => this.audienceInput.removeAttribute("aria-invalid"));
    this.rewriteRow = h("div", { class: "revise-rewrites", id: "revise-rewrites" },
      h("span", { class: "muted", id: "revise-rewrites-label" }, "一键改写："),
      h("div", { class: "chips", role: "group", "aria-labelledby": "revise-rewrites-label" }, this.rewriteButtons),
      this.audienceRow);
    this.error = h("div", { class: "alert error", id: "revise-error", role: "alert", hidden: true });
    this.note = h("p", { class: "revise-note", id: "revise-note", role: "status" });
    this.button = h("button", { type: "submit", class: "btn primary", id: "revise-btn" }, "提交修改");
    this.base = h("span", { class: "muted revise-base", id: "revise-base" });
    this.form = h("form", { class: "card-body revise-form", novalidate: true },
      h("div", { class: "field" },
        h("label", { for: "revise-message" }, "还想怎么改？"),
        this.textarea,
        h("div", { class: "revise-suggest" }, h("span", { class: "muted", "aria-hidden": "true" }, "试试："),
          h("div", { class: "chips revise-chips", role: "group", "aria-label": "修改建议（点一下填入）" }, this.chips)),
        h("div", { class: "field-hint", id: "revise-hint" },
          "只改文字（标题、正文、语气、读者）时配图保持不变；提到第几张图、封面或配色时只重做配图。")),
      this.rewriteRow,
      // looks like the form's switch; not `.switch` itself, so `label.switch` stays the form's one
      h("label", { class: "revise-switch", for: "revise-hitl" }, this.hitlInput,
        h("span", { class: "switch-track", "aria-hidden": "true" }),
        h("span", {}, "人工审核", h("span", { class: "muted" }, "（修改后的文案或配图规划先暂停，等你确认）"))),
      this.error,
      h("div", { class: "form-actions revise-actions" }, this.button, this.note));
    this.node = h("section", { class: "card revise-card", id: "revise-card", "aria-labelledby": "revise-title", hidden: true },
      h("header", { class: "card-head" }, h("h2", { id: "revise-title" }, "继续修改"), this.base),
      this.form);

    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    const editorAllowed = () => this.allowed();
    this.imageEditor = new ImageEditor({
      view, session, allowed: editorAllowed,
      basedOn: (threadId) => this.currentVersion(threadId),
      onSent: (sent) => {
        this.sent = sent;
      },
    });
    this.selectionEditor = new SelectionEditor({ view, session, revise: this, allowed: editorAllowed });
    this.textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) this.form.requestSubmit();
    });
    this.textarea.addEventListener("input", () => this.textarea.removeAttribute("aria-invalid"));
  }

  /** The run's own 人工审核 setting (a reopened thread's) as the default, here and in the page's form. */
  setHitl(on) {
    this.hitl.checked = on;
    this.hitlInput.checked = on;
  }

  /** A suggestion chip: into an empty box as it is, after what is already written otherwise. */
  suggest(text) {
    const current = this.textarea.value.trim();
    if (!current) this.textarea.value = text;
    else if (!current.includes(text)) this.textarea.value = `${current.replace(/[，,。；;\s]+$/u, "")}，${text}`;
    this.textarea.removeAttribute("aria-invalid");
    this.hideError();
    this.textarea.focus();
    const end = this.textarea.value.length;
    this.textarea.setSelectionRange(end, end);
  }

  showError(title, lines = []) {
    clear(this.error).append(h("strong", {}, title), ...lines.map((line) => h("div", {}, line)));
    this.error.hidden = false;
  }

  hideError() {
    this.error.hidden = true;
  }

  /** Show, enable and word the box for the run on screen (the page calls this whenever the run changes). */
  refresh() {
    this.imageEditor.refresh();
    this.selectionEditor.refresh();
    const view = this.view;
    const finished = FINISHED.has(view.status);
    const show = Boolean(view.threadId) && this.allowed() && !view.answerOnly
      && (finished || view.revising || Boolean(view.version) || this.busy);
    if (show && this.node.hidden) this.hitlInput.checked = this.hitl.checked; // the page's setting, when shown
    this.node.hidden = !show;
    if (!show) return;
    const ready = finished && !this.session.streaming && !this.busy;
    this.button.disabled = !ready;
    for (const button of [...this.rewriteButtons, this.audienceOk]) button.disabled = !ready;
    this.button.textContent = this.busy ? "正在提交…" : "提交修改";
    this.base.textContent = finished && view.version ? `基于第 ${view.version} 版` : "";
    this.note.textContent = this.noteText(finished);
  }

  noteText(finished) {
    const view = this.view;
    const mine = this.sent && this.sent.threadId === view.threadId;
    if (this.busy) return "";
    if (view.status === "paused") return "修改已暂停，等待审核确认（见上方）。";
    if (!finished || this.session.streaming) return view.revising ? "正在按要求修改，完成后可以继续提出修改。" : "";
    if (!mine) return "";
    if (view.status === "completed" && (this.sent.rewrite || this.sent.done)) {
      const done = this.sent.done || `已一键改写（${this.sent.rewrite}）`;
      return view.version ? `${done}，生成第 ${view.version} 版。` : `${done}。`;
    }
    if (view.status === "completed") return view.version ? `已按要求修改，生成第 ${view.version} 版。` : "已按要求修改。";
    return "这次修改没有完成（原因见上方），可以调整要求后再提交。";
  }

  async submit() {
    const message = this.textarea.value.trim();
    this.hideError();
    if (!message) {
      this.showError("请先写下想怎么修改。");
      this.textarea.setAttribute("aria-invalid", "true");
      this.textarea.focus();
      return;
    }
    const view = this.view;
    if (!view.threadId || this.busy) return;
    const body = { threadId: view.threadId, message, enableHITL: this.hitlInput.checked };
    const ok = await this.send("/api/agent/stream", body, "正在提交修改…", { message, threadId: body.threadId });
    if (ok) this.textarea.value = "";
    else this.textarea.focus();
  }

  /** 换受众: a small input in the row (no dialog); 确定 rewrites the draft for that audience. */
  askAudience() {
    this.hideError();
    this.audienceRow.hidden = false;
    this.audienceInput.focus();
  }

  closeAudience() {
    this.audienceRow.hidden = true;
    this.audienceInput.value = "";
    this.audienceInput.removeAttribute("aria-invalid");
  }

  confirmAudience() {
    const audience = this.audienceInput.value.trim();
    this.hideError();
    if (!audience) {
      this.showError("请先写下新的受众，比如：大学生。");
      this.audienceInput.setAttribute("aria-invalid", "true");
      this.audienceInput.focus();
      return;
    }
    this.rewrite("audience", `写给${audience}`, audience);
  }

  /** The version on screen: the last `workflow_complete.version`, else the creative's current version. */
  async currentVersion(threadId) {
    if (this.view.version) return this.view.version;
    const thread = await getThread(threadId);
    if (!thread?.creativeId) return null;
    const creative = await getCreative(thread.creativeId);
    const version = Number(creative?.currentVersion);
    return Number.isInteger(version) && version > 0 ? version : null;
  }

  /** 一键改写: `POST …/rewrite` based on the version on screen, followed like a revision from the box. */
  async rewrite(action, label, audience = null) {
    const view = this.view;
    if (!view.threadId || this.busy) return;
    this.hideError();
    const threadId = view.threadId;
    let basedOn;
    try {
      basedOn = await this.currentVersion(threadId);
    } catch (err) {
      this.showError(describeError(err).title);
      return;
    }
    if (!basedOn) {
      this.showError("还没有可改写的版本，请先完成一次创作。");
      return;
    }
    const body = { action, basedOn, enableHITL: this.hitlInput.checked };
    if (audience) body.audience = audience;
    const url = `/api/agent/threads/${encodeURIComponent(threadId)}/rewrite`;
    const ok = await this.send(url, body, `正在一键改写（${label}）…`, { message: label, rewrite: label, threadId });
    if (ok && action === "audience") this.closeAudience();
  }

  /**
   * Post a revision (the box's message, a one-click rewrite or a selection's rewrite) and follow its stream in
   * the page's run view; true when the stream opened, false when it was refused (the error is shown in the
   * box, or by `showError`).
   */
  async send(url, body, phase, sent, { showError = (title, lines) => this.showError(title, lines) } = {}) {
    const view = this.view;
    const before = { status: view.status, phase: view.phase.textContent };
    this.busy = true;
    this.refresh();
    view.setStatus("connecting");
    view.phase.textContent = phase;
    try {
      await this.session.stream((signal) => postStream(url, body, signal));
      this.sent = sent;
      return true;
    } catch (err) {
      // refused before it started (409 while another run goes, 403, 422 …): the result stays as it was
      if (view.status === "connecting") {
        view.setStatus(before.status);
        view.phase.textContent = before.phase;
      }
      // the server's message says it in Chinese; only a validation error's field list goes with it (other
      // details are identifiers and raw values: the thread id, a status)
      const d = describeError(err);
      showError(d.title, Array.isArray(err?.details) ? d.lines : []);
      return false;
    } finally {
      this.busy = false;
      this.refresh();
    }
  }
}
