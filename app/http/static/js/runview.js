// The live view of one run: status and progress, the checkpoint panel, the draft, images, scores,
// brief/evidence/layout cards and the agent timeline. Events are applied once each (deduped by seq).
// A thread's log may hold several runs: a revision of a finished thread (issue 17) starts with a
// `workflow_progress` whose phase is `修订：…`, and each completed run carries its version number.

import { describeError } from "./api.js";
import { DraftCard, EvidenceCard, renderBrief, renderLayout } from "./cards.js";
import { renderCheckpoint } from "./checkpoint.js";
import { card, clear, h, progressBar } from "./dom.js";
import { IMAGE_DIMENSION_KEYS, ImageGrid, ScorePanel } from "./images.js";
import { agentLabel, kindOf, label, STATUS } from "./labels.js";
import { previewCard } from "./preview.js";
import { Timeline } from "./timeline.js";

const STATUS_TEXT = { idle: "未开始", connecting: "连接中", ...STATUS };

export class RunView {
  /**
   * main: where the run's cards go; timelineRoot: where the timeline goes (may be inside main).
   * confirm(payload): sends a checkpoint decision; resolves once the resumed stream is open.
   */
  constructor(main, timelineRoot, { confirm, compact = false } = {}) {
    this.confirmFn = confirm;
    this.bar = progressBar("整体进度");
    this.pill = h("span", { class: "status-pill", dataset: { status: "idle" } }, STATUS_TEXT.idle);
    this.phase = h("span", { class: "phase" }, "");
    this.links = h("span", { class: "run-links" });
    this.versionBadge = h("span", { class: "chip run-version", hidden: true });
    this.conn = h("div", { class: "conn-note", role: "status", hidden: true });
    this.alert = h("div", { class: "alert error run-error", role: "alert", hidden: true });
    this.checkpointSlot = h("div", { class: "checkpoint-slot" });
    this.statusCard = h("section", { class: "card run-status", "aria-label": "运行状态" },
      h("div", { class: "run-status-row" }, this.pill, this.versionBadge, this.phase, this.links), this.bar.node, this.conn);

    const draft = card("文案", { id: "draft-card", cls: "draft-card" });
    const images = card("配图", { id: "images-card" });
    const scores = card("质量评分", { id: "scores-card" });
    const brief = card("创作简报", { id: "brief-card", cls: "artifact" });
    const evidence = card("调研素材", { id: "evidence-card", cls: "artifact" });
    const layout = card("版式规划", { id: "layout-card", cls: "artifact" });
    const preview = previewCard("preview-card");
    this.preview = preview.preview;
    this.draftEmpty = h("p", { class: "muted empty-note" }, "文案生成后会显示在这里。");
    draft.body.append(this.draftEmpty);
    this.draft = new DraftCard(draft.body);
    this.images = new ImageGrid(images.body);
    this.scores = new ScorePanel(scores.body);
    this.briefBody = brief.body;
    this.evidence = new EvidenceCard(evidence.body);
    this.layoutBody = layout.body;
    // cards appear when they have something to show; the draft and images placeholders show from the
    // start in the full studio (they tell the creator what is coming), not in the compact review pane
    this.cards = { brief: brief.node, evidence: evidence.node, layout: layout.node, scores: scores.node,
      draft: draft.node, images: images.node, preview: preview.node };
    this.compact = compact;
    this.draftCard = draft.node;
    // functions called with every event after the view applied it (a page's editors follow their streams)
    this.observers = new Set();

    // the result's column: a page may add what follows the result under it (`addAfterResult`)
    // a completed run's version as a zip (pictures in order, post.txt, manifest.json)
    this.download = h("a", { class: "btn", download: true, dataset: { action: "download-package" } }, "下载发布包");
    this.downloadRow = h("div", { class: "card-actions result-download", hidden: true }, this.download);
    this.resultCol = h("div", { class: "run-col" }, draft.node, images.node, scores.node, this.downloadRow);
    this.root = h("div", { class: ["run-view", compact && "compact"] },
      this.statusCard, this.alert, this.checkpointSlot,
      h("div", { class: "run-grid" },
        this.resultCol,
        h("div", { class: "run-col artifacts" }, preview.node, brief.node, evidence.node, layout.node)));
    main.append(this.root);
    this.timeline = new Timeline(timelineRoot);
    this.reset(null);
  }

  reset(threadId) {
    this.threadId = threadId;
    this.lastSeq = 0;
    this.status = threadId ? "connecting" : "idle";
    this.pending = null;
    this.creativeId = null;
    this.layoutSpec = null;
    this.alignment = null;
    this.imageOnly = false;
    this.answerOnly = false;
    this.version = null; // the last completed run's version (workflow_complete.version)
    this.revising = false; // the run on screen is a revision of the thread's earlier result
    this.timeline.reset();
    this.images.reset();
    this.preview.reset();
    this.scores.reset();
    this.evidence.reset();
    clear(this.briefBody);
    clear(this.layoutBody);
    this.clearPending();
    clear(this.links);
    this.download.removeAttribute("href");
    this.draftEmpty.hidden = false;
    for (const node of [...this.draft.target.children]) if (node !== this.draftEmpty) node.remove();
    this.draft.draft = null;
    this.draft.live = null;
    for (const c of Object.values(this.cards)) c.hidden = true;
    this.cards.draft.hidden = this.cards.images.hidden = this.compact || !threadId;
    this.root.dataset.state = threadId ? "active" : "idle";
    this.hideError();
    this.bar.set(0);
    this.phase.textContent = threadId ? "准备中…" : "";
    this.setStatus(this.status);
  }

  setStatus(status) {
    this.status = status;
    this.pill.dataset.status = status;
    this.pill.textContent = STATUS_TEXT[status] || label("status", status);
    this.versionBadge.hidden = status !== "completed" || !this.version;
    this.downloadRow.hidden = status !== "completed" || this.answerOnly || !this.download.hasAttribute("href");
  }

  /** Put `node` under the result (the draft, images and scores), in the same column. */
  addAfterResult(node) {
    this.resultCol.append(node);
  }

  setCreative(id) {
    if (!id || this.creativeId === id) return;
    this.creativeId = id;
    clear(this.links).append(h("a", { href: `/creatives/${encodeURIComponent(id)}`, class: "link" }, "在作品库查看 →"));
  }

  connection(state) {
    if (state.state === "reconnecting") {
      this.conn.hidden = false;
      this.conn.textContent = `连接中断，正在从第 ${state.lastSeq} 条事件后恢复…（第 ${state.attempt} 次）`;
    } else {
      this.conn.hidden = true;
    }
  }

  showError(title, lines = []) {
    clear(this.alert).append(h("strong", {}, title), ...lines.map((l) => h("div", {}, l)));
    this.alert.hidden = false;
  }

  hideError() {
    this.alert.hidden = true;
  }

  fail(error) {
    const d = describeError(error);
    this.showError(d.title, d.lines);
    if (this.status === "running" || this.status === "connecting") this.setStatus("failed");
  }

  apply(event) {
    if (event.type === "content_delta") {
      this.streamDraft(event); // ephemeral: no seq, not on the timeline
      return;
    }
    const seq = Number(event.seq);
    if (Number.isFinite(seq)) {
      if (seq <= this.lastSeq) return; // already on screen
      this.lastSeq = seq;
    }
    if (event.threadId && !this.threadId) this.threadId = event.threadId;
    this.timeline.add(event);
    if (!["ask_user", "workflow_paused", "workflow_complete", "error"].includes(event.type)) {
      // anything after a pause means it was answered (a replay of a resumed run, or our own confirm)
      if (this.pending) this.clearPending();
      if (this.status !== "running") this.setStatus("running");
    }
    switch (event.type) {
      case "agent_start":
        this.phase.textContent = `${agentLabel(event.agent)} 工作中…`;
        break;
      case "workflow_progress":
        if (String(event.phase || "").startsWith("修订")) this.beginRevision(event);
        this.bar.set(event.progress, event.phase);
        this.phase.textContent = `${event.phase || ""} · ${agentLabel(event.currentAgent)}`;
        break;
      case "intent_detected":
        // an image-only package has no post text and is judged on the image dimensions only
        this.imageOnly = event.intent === "image_only";
        // a direct answer is not a post: no phone preview for it
        this.answerOnly = event.intent === "question" || event.intent === "time_query";
        this.scores.only = this.imageOnly ? IMAGE_DIMENSION_KEYS : null;
        if (this.imageOnly) this.cards.draft.hidden = true;
        break;
      case "brief_ready":
        this.cards.brief.hidden = false;
        renderBrief(this.briefBody, event.brief);
        break;
      case "tool_result":
        this.evidence.toolResult(event);
        if (this.evidence.target.childElementCount) this.cards.evidence.hidden = false;
        break;
      case "layout_spec_ready":
        this.layoutSpec = event.layoutSpec;
        this.cards.layout.hidden = false;
        renderLayout(this.layoutBody, this.layoutSpec, this.alignment);
        this.images.setCaptions(event.layoutSpec?.items);
        break;
      case "alignment_map_ready":
        this.alignment = event;
        renderLayout(this.layoutBody, this.layoutSpec, this.alignment);
        break;
      case "content_update":
        this.setDraft(event);
        break;
      case "image_progress":
        this.cards.images.hidden = false;
        this.images.progress(event);
        this.preview.setImages(this.images.urls());
        break;
      case "quality_score":
        this.cards.scores.hidden = false;
        this.scores.add(event);
        break;
      case "ask_user":
        this.ask(event);
        break;
      case "workflow_paused":
        this.setStatus("paused");
        this.phase.textContent = "已暂停，等待确认";
        break;
      case "workflow_complete":
        this.complete(event);
        break;
      case "error":
        this.draft.interrupt();
        this.setStatus(event.code === "ABORTED" || event.code === "CANCELLED" ? "aborted" : "failed");
        this.showError(`运行出错：${event.message || "未知错误"}`,
          event.agent ? [`出错的环节：${agentLabel(event.agent)}`] : []);
        this.clearPending();
        break;
      default:
        break;
    }
    for (const observer of this.observers) observer(event);
  }

  clearPending() {
    this.pending = null;
    this.draftCard.hidden = this.compact ? !this.draft.draft : this.status === "idle" || this.imageOnly;
    clear(this.checkpointSlot);
  }

  setDraft(draft) {
    if (this.imageOnly && !String(draft?.body || "").trim()) {
      this.cards.draft.hidden = true; // nothing to read or copy
      return;
    }
    this.draftEmpty.hidden = true;
    this.cards.draft.hidden = false;
    this.draft.set(draft);
    this.preview.setPost(this.draft.draft);
    this.cards.preview.hidden = this.answerOnly;
  }

  /** The draft as the writer streams it: the title and body fill in until the final content_update. */
  streamDraft(delta) {
    if (this.imageOnly || this.pending) return;
    if (!this.draft.stream(delta)) return;
    this.draftEmpty.hidden = true;
    this.cards.draft.hidden = false;
    if (this.status !== "running") this.setStatus("running");
  }

  ask(event) {
    this.pending = event;
    this.setStatus("paused");
    const kind = kindOf(event);
    const data = event.context?.data;
    if (kind === "content" && data) this.setDraft(data);
    this.draftCard.hidden = kind === "content"; // the panel shows the draft under review
    if (kind === "image_plans" && data?.plans) this.images.setCaptions(data.plans);
    // an account that may not answer this pause sees it without the buttons (`mayConfirm`, set by the page)
    const readOnly = this.mayConfirm && !this.mayConfirm() ? "等待发起人或编辑审核；你的账号只能查看。" : null;
    const panel = renderCheckpoint(event, (payload) => this.confirm(payload), {
      readOnly,
      onStale: this.reloadFn ? () => this.reloadFn() : null,
      // the editor's values go to the phone preview as they are typed (null: editing was cancelled)
      onEdit: kind === "content" ? (post) => this.preview.setPost(post || this.draft.draft) : null,
    });
    clear(this.checkpointSlot).append(panel.node);
    if (this.focusCheckpoints && !readOnly) {
      const top = panel.node.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight * 0.6) panel.node.scrollIntoView({ block: "start" });
      panel.focus();
    }
  }

  async confirm(payload) {
    this.hideError();
    await this.confirmFn({ threadId: this.threadId, ...payload });
    const plans = payload.modifiedData?.plans;
    if (Array.isArray(plans)) this.images.setCaptions(plans.map((p, i) => ({ ...p, index: i + 1 })));
    this.clearPending();
    this.setStatus("running");
    this.phase.textContent = "已提交，继续运行…";
  }

  /** A revision run of this finished thread begins (its first event): the earlier result stays on screen
   * until the redone parts replace it, the review rounds start over, and the timeline marks the start. */
  beginRevision(event) {
    this.revising = true;
    this.hideError();
    this.scores.reset();
    this.scores.only = this.imageOnly ? IMAGE_DIMENSION_KEYS : null;
    const tl = this.timeline;
    const nearBottom = tl.root.scrollHeight - tl.root.scrollTop - tl.root.clientHeight < 80;
    tl.list.append(tl.entry(event, "revision", "↻", h("strong", {}, event.phase),
      h("div", { class: "tl-reason" }, this.version ? `在第 ${this.version} 版的基础上修改` : "在上次的结果上修改")));
    tl.empty.hidden = true;
    if (nearBottom) tl.root.scrollTop = tl.root.scrollHeight;
  }

  complete(event) {
    const version = Number(event.version);
    this.version = Number.isInteger(version) && version > 0 ? version : null;
    this.versionBadge.textContent = this.version ? `第 ${this.version} 版` : "";
    if (event.creativeId) {
      const query = this.version ? `?version=${this.version}` : "";
      this.download.setAttribute("href", `/api/creatives/${encodeURIComponent(event.creativeId)}/package.zip${query}`);
    }
    this.setStatus("completed");
    this.bar.set(1, "完成");
    this.phase.textContent = this.revising ? "修改完成" : "创作完成";
    this.clearPending();
    this.setDraft(event);
    this.offerPost(event.suggestedRequest);
    if (event.imageAssetIds?.length) {
      this.cards.images.hidden = false;
      this.images.setAssets(event.imageAssetIds);
      this.preview.setImages(this.images.urls());
    }
    if (event.qualityScores) {
      this.cards.scores.hidden = false;
      this.scores.add(event.qualityScores);
    }
    if (event.creativeId) this.setCreative(event.creativeId);
  }

  /** A direct answer's one-click "写成笔记": starts a post run on the same topic (`suggestFn`, set by the
   * page that can start runs); nothing when the answer came with no suggestion. */
  offerPost(request) {
    if (!request || !this.suggestFn) return;
    const button = h("button", { type: "button", class: "btn primary", dataset: { action: "write-post" } }, "写成笔记");
    button.addEventListener("click", () => this.suggestFn(request));
    this.draft.target.append(h("div", { class: "answer-offer" },
      h("p", { class: "muted" }, `想把这个话题写成一篇图文笔记？将以「${request}」开始新的创作。`), button));
  }

  /** The run's audit records (who started, approved, rejected…) into the timeline. */
  setAudit(items) {
    this.timeline.setAudit(items);
  }

  /** Fill what only the stored creative has (the evidence pack, review rounds) — best effort. */
  enrich(creative) {
    if (!creative || typeof creative !== "object") return;
    if (creative.evidence) {
      this.evidence.setPack(creative.evidence);
      this.cards.evidence.hidden = false;
    }
    if (creative.brief && !this.briefBody.childElementCount) {
      renderBrief(this.briefBody, creative.brief);
      this.cards.brief.hidden = false;
    }
    if (creative.id) this.setCreative(creative.id);
  }
}
