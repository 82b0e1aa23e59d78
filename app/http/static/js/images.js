// The image grid (per-image progress, then the image itself) and the quality score panel.

import { assetUrl, clear, clamp01, fmtScore, h, progressBar, safeUrl } from "./dom.js";
import { DIMENSIONS, DIMENSION_KEYS, label } from "./labels.js";

export class ImageGrid {
  constructor(target) {
    this.target = target;
    this.grid = h("div", { class: "image-grid" });
    this.empty = h("p", { class: "muted empty-note" }, "配图规划确认后开始生成图片。");
    target.append(this.empty, this.grid);
    this.reset();
  }

  reset() {
    clear(this.grid);
    this.slots = new Map();
    this.captions = {};
    this.empty.hidden = false;
  }

  /** Captions from the layout spec or the image plans: {index: "封面 · 主体"}. */
  setCaptions(items) {
    for (const item of items || []) {
      const role = label("role", item.role);
      const what = item.subject || item.visualFocus || "";
      this.captions[item.index] = [role, what].filter(Boolean).join(" · ");
      const slot = this.slots.get(Number(item.index));
      if (slot) slot.caption.textContent = this.caption(item.index);
    }
  }

  caption(index) {
    return `图${index}${this.captions[index] ? ` · ${this.captions[index]}` : ""}`;
  }

  slot(taskId) {
    const id = Number(taskId);
    let slot = this.slots.get(id);
    if (slot) return slot;
    const bar = progressBar(`图${id} 生成进度`, { small: true });
    const frame = h("div", { class: "image-frame" }, h("span", { class: "image-placeholder", "aria-hidden": "true" }, String(id)));
    const status = h("span", { class: "image-status" }, "排队中");
    const caption = h("span", { class: "image-caption" }, this.caption(id));
    const node = h("figure", { class: "image-slot", dataset: { task: String(id) } },
      frame, h("figcaption", {}, caption, h("div", { class: "image-meta" }, status), bar.node));
    slot = { node, frame, status, caption, bar, url: null };
    this.slots.set(id, slot);
    this.empty.hidden = true;
    // keep slots in task order whatever order events arrive in
    const after = [...this.slots.keys()].sort((a, b) => a - b).find((k) => k > id);
    this.grid.insertBefore(node, after !== undefined ? this.slots.get(after).node : null);
    return slot;
  }

  progress(event) {
    const slot = this.slot(event.taskId);
    slot.node.dataset.status = event.status;
    slot.status.textContent = event.status === "failed" && event.errorMessage
      ? `失败：${event.errorMessage}` : label("imageStatus", event.status);
    slot.bar.set(event.status === "complete" ? 1 : clamp01(event.progress), slot.status.textContent);
    const url = safeUrl(event.url) || (event.status === "complete" ? assetUrl(event.assetId) : null);
    if (event.status === "complete" && url) this.show(slot, url);
    else if (event.status === "queued" || event.status === "generating") slot.node.classList.remove("has-image");
  }

  show(slot, url) {
    if (slot.url === url) return;
    slot.url = url;
    const img = h("img", { src: url, alt: slot.caption.textContent });
    const link = h("a", { href: url, target: "_blank", rel: "noopener", class: "image-link", title: "查看原图" }, img);
    clear(slot.frame).append(link);
    slot.node.classList.add("has-image");
    slot.node.dataset.status = "complete";
    slot.bar.set(1);
  }

  /** The URLs of the images shown so far, in post order (the cover first). */
  urls() {
    return [...this.slots.keys()].sort((a, b) => a - b).map((k) => this.slots.get(k).url).filter(Boolean);
  }

  /** Final images by asset id (workflow_complete or a stored creative). */
  setAssets(ids) {
    (ids || []).forEach((id, i) => {
      const url = assetUrl(typeof id === "object" && id ? id.id : id);
      if (!url) return;
      const slot = this.slot(i + 1);
      slot.status.textContent = "已完成";
      this.show(slot, url);
    });
  }
}

// agents/artifacts.IMAGE_DIMENSIONS: what an image-only package (no post text) is judged on
export const IMAGE_DIMENSION_KEYS = ["textImageAlignment", "styleConsistency", "readability"];

export class ScorePanel {
  constructor(target) {
    this.target = target;
    this.reset();
  }

  reset() {
    this.only = null; // dimension keys to show (an image-only run), null for all
    this.rounds = new Map();
    clear(this.target);
    this.target.append(h("p", { class: "muted empty-note" }, "图文齐备后，质量审核员会按五个维度打分。"));
  }

  add(report) {
    if (!report || !report.scores) return;
    const round = Number(report.round) || this.rounds.size + 1;
    this.rounds.set(round, report);
    this.render();
  }

  render() {
    const t = clear(this.target);
    const rounds = [...this.rounds.keys()].sort((a, b) => a - b);
    const latest = this.rounds.get(rounds[rounds.length - 1]);
    t.append(scoreBlock(latest, this.only));
    if (rounds.length > 1) {
      t.append(h("div", { class: "sub-title" }, "历次审核"), h("ol", { class: "rounds" }, rounds.map((r) => {
        const rep = this.rounds.get(r);
        return h("li", {}, `第 ${r} 轮：综合 ${fmtScore(rep.overall)} · `,
          h("span", { class: rep.passed ? "pass" : "fail" }, rep.passed ? "通过" : "未通过"),
          rep.failReasons?.length ? h("span", { class: "muted" }, `（${rep.failReasons.join("；")}）`) : null);
      })));
    }
  }
}

/** One review round: overall, pass/fail, one bar per dimension, reasons. Also used by the explorer. */
export function scoreBlock(report, only = null) {
  const scores = report.scores || {};
  const keys = [...DIMENSION_KEYS.filter((k) => k in scores), ...Object.keys(scores).filter((k) => !DIMENSIONS[k])]
    .filter((k) => !only || only.includes(k));
  return h("div", { class: "score-block" },
    h("div", { class: "score-head" },
      h("span", { class: "score-overall" }, fmtScore(report.overall)),
      h("span", { class: ["badge", report.passed ? "badge-pass" : "badge-fail"] }, report.passed ? "通过" : "未通过"),
      h("span", { class: "muted" }, `第 ${report.round ?? 1} 轮`)),
    h("ul", { class: "score-bars" }, keys.map((key) => {
      const value = Number(scores[key]);
      const fill = h("span", { class: "bar-fill", style: { width: `${Math.round(clamp01(value) * 100)}%` } });
      return h("li", { dataset: { dim: key } },
        h("span", { class: "bar-label" }, label("dimension", key)),
        h("span", { class: "bar", role: "img", "aria-label": `${label("dimension", key)} ${fmtScore(value)}` }, fill),
        h("span", { class: "bar-value" }, fmtScore(value)));
    })),
    report.failReasons?.length ? h("ul", { class: "bullets fail-reasons" }, report.failReasons.map((r) => h("li", {}, r))) : null,
    report.suggestions?.length ? h("ul", { class: "bullets muted" }, report.suggestions.map((r) => h("li", {}, r))) : null,
  );
}
