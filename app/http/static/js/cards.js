// Readable cards for the run's artifacts: brief, evidence, layout (with text–image bindings), draft.

import { chip, clear, h, paragraphs, toast } from "./dom.js";
import { BRIEF_FIELDS, label, labels } from "./labels.js";

function dl(rows) {
  const list = h("dl", { class: "kv" });
  for (const [label, value] of rows) {
    if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) continue;
    list.append(h("dt", {}, label), h("dd", {}, value));
  }
  return list;
}

const chips = (items, cls = "") => h("div", { class: "chips" }, (items || []).map((t) => chip(String(t), cls)));
const tagChips = (tags) => chips((tags || []).map((t) => `#${String(t).replace(/^#/, "")}`), "chip-tag");

export function renderBrief(target, brief) {
  clear(target);
  if (!brief) return;
  target.append(
    dl([
      ...BRIEF_FIELDS.map(([key, label]) => [label, brief[key]]),
      ["关键词", brief.keywords?.length ? chips(brief.keywords) : null],
      ["内容类型", label("contentType", brief.contentType)],
      ["题材", label("theme", brief.theme)],
      ["发布平台", label("platform", brief.platform)],
    ]),
  );
  if (brief.constraints?.length) {
    target.append(h("div", { class: "sub-title" }, "约束"), h("ul", { class: "bullets" }, brief.constraints.map((c) => h("li", {}, c))));
  }
}

/** Evidence: the stored pack when we have it, else what the research tools returned so far. */
export class EvidenceCard {
  constructor(target) {
    this.target = target;
    this.reset();
  }

  reset() {
    this.tools = {};
    this.pack = null;
    clear(this.target);
  }

  toolResult(event) {
    if (this.pack || event.agent !== "research_evidence_agent") return;
    this.tools[event.tool] = event.toolOutput;
    this.render();
  }

  setPack(pack) {
    if (!pack || typeof pack !== "object") return;
    this.pack = pack;
    this.render();
  }

  render() {
    const t = this.target;
    clear(t);
    const pack = this.pack;
    if (pack) {
      if (pack.summary) t.append(h("p", { class: "lead" }, pack.summary));
      if (pack.facts?.length) {
        t.append(h("div", { class: "sub-title" }, "要点"), h("ul", { class: "bullets" }, pack.facts.slice(0, 8).map((f) =>
          h("li", {}, f.text || "", f.sourceTitle ? h("span", { class: "muted" }, `（${f.sourceTitle}）`) : null))));
      }
      if (pack.titlePatterns?.length) t.append(h("div", { class: "sub-title" }, "爆款标题套路"), chips(pack.titlePatterns));
      const tags = pack.recommendedTags?.length ? pack.recommendedTags : pack.topTags;
      if (tags?.length) t.append(h("div", { class: "sub-title" }, "推荐标签"), tagChips(tags));
      if (pack.notes?.length) t.append(h("div", { class: "sub-title" }, "参考笔记"), noteList(pack.notes));
      if (pack.webFindings) t.append(h("div", { class: "sub-title" }, "网络搜索"), h("p", { class: "pre-line" }, pack.webFindings));
      return;
    }
    const hits = this.tools.searchNotes?.hits || [];
    if (hits.length) t.append(h("div", { class: "sub-title" }, "相关笔记"), noteList(hits.map((x) => x.note || x)));
    const tags = (this.tools.analyzeTopTags?.tags || []).map((x) => x.tag).filter(Boolean);
    if (tags.length) t.append(h("div", { class: "sub-title" }, "热门标签"), tagChips(tags.slice(0, 10)));
    const titles = (this.tools.getTopTitles?.titles || []).map((x) => x.title).filter(Boolean);
    if (titles.length) t.append(h("div", { class: "sub-title" }, "高互动标题"), h("ol", { class: "bullets" }, titles.slice(0, 5).map((x) => h("li", {}, x))));
  }
}

function noteList(notes) {
  return h("ul", { class: "notes" }, notes.slice(0, 6).map((n) =>
    h("li", {}, h("span", { class: "note-title" }, n.title || n.id || ""),
      n.likes !== undefined ? h("span", { class: "muted" }, ` ♥ ${n.likes}`) : null)));
}

export function renderLayout(target, spec, alignment) {
  clear(target);
  if (spec) {
    target.append(dl([["版式偏好", label("layout", spec.preference)], ["说明", spec.notes]]));
    target.append(h("ol", { class: "layout-items" }, (spec.items || []).map((item) =>
      h("li", {},
        h("strong", {}, `图${item.index} · ${label("role", item.role)}`),
        h("div", {}, `视觉焦点：${item.visualFocus || "—"}`),
        h("div", { class: "muted" },
          `文字量 ${label("density", item.textDensity) || "—"} · 文字位置 ${label("position", item.textPosition) || "—"}` +
          (item.blocks?.length ? ` · 文字块 ${labels("block", item.blocks)}` : ""))))));
  }
  const bindings = alignment?.paragraphImageBindings || [];
  if (bindings.length) {
    target.append(h("div", { class: "sub-title" }, "图文对应"), h("ul", { class: "bullets" }, bindings.slice(0, 12).map((b) =>
      h("li", {}, `第${Number(b.paragraphIndex) + 1}段 → 图${b.imageIndex}`, b.reason ? h("span", { class: "muted" }, `：${b.reason}`) : null))));
  }
}

const codePoints = (text) => [...text].length; // delta offsets count code points, not UTF-16 units

/** The draft (title / body / tags) as it would be posted, with a copy button; while the writer streams,
 * its title and body as they grow (`stream`), until the final draft replaces them (`set`). */
export class DraftCard {
  constructor(target) {
    this.target = target;
    this.draft = null;
    this.live = null;
  }

  /** Apply a `content_delta`; false when it was ignored. A `reset` starts the text over (a new draft, a
   * redo, or the whole draft so far on joining); otherwise the delta is appended only at the offsets this
   * card has reached — a delta that does not fit waits for the next reset or the final draft. */
  stream(delta) {
    const titleText = String(delta.titleDelta || "");
    const bodyText = String(delta.bodyDelta || "");
    if (delta.reset) {
      const title = document.createTextNode("");
      const body = document.createTextNode("");
      const attempt = Number(delta.attempt) || 1;
      const note = attempt > 1 ? `模型重新生成中（第 ${attempt} 次）…` : "正在撰写…";
      const noteNode = h("p", { class: "muted stream-note", dataset: { testid: "draft-streaming" } }, note);
      const bodyNode = h("div", { class: "draft-body live streaming", dataset: { testid: "draft-body" } }, body);
      clear(this.target).append(
        noteNode,
        h("h3", { class: "draft-title", dataset: { testid: "draft-title" } }, title),
        bodyNode,
      );
      this.live = { title, body, titleLength: 0, bodyLength: 0, noteNode, bodyNode };
    } else if (!this.live || delta.titleOffset !== this.live.titleLength || delta.bodyOffset !== this.live.bodyLength) {
      return false;
    }
    const live = this.live;
    if (titleText) live.title.appendData(titleText);
    if (bodyText) live.body.appendData(bodyText);
    live.titleLength += codePoints(titleText);
    live.bodyLength += codePoints(bodyText);
    return true;
  }

  /** The run stopped while the draft was streaming (an error, a cancel): what arrived stays, marked. */
  interrupt() {
    if (!this.live) return;
    this.live.bodyNode.classList.remove("streaming");
    this.live.noteNode.textContent = "文案没有写完：运行已中断";
    this.live = null;
  }

  set(draft) {
    if (!draft) return;
    this.live = null;
    this.draft = { title: draft.title || "", body: draft.body || "", tags: draft.tags || [] };
    const t = clear(this.target);
    t.append(
      h("h3", { class: "draft-title", dataset: { testid: "draft-title" } }, this.draft.title),
      h("div", { class: "draft-body", dataset: { testid: "draft-body" } }, paragraphs(this.draft.body)),
      tagChips(this.draft.tags),
      h("div", { class: "card-actions" }, h("button", { type: "button", class: "btn small", onclick: () => this.copy() }, "复制文案")),
    );
  }

  async copy() {
    const { title, body, tags } = this.draft || {};
    const text = `${title}\n\n${body}\n\n${(tags || []).map((t) => `#${t}`).join(" ")}`;
    try {
      await navigator.clipboard.writeText(text);
      toast("文案已复制", "ok");
    } catch {
      toast("浏览器不允许访问剪贴板，请手动选择复制", "error");
    }
  }
}
