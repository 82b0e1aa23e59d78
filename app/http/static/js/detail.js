// One creative in full: the post, its images, its versions (版本记录, versions.js), who did what to it
// (审核记录), brief, evidence, the quality review's rounds, per-agent timings, usage.

import { actorName, can, mayAct } from "./account.js";
import { attachAnalysis } from "./analysis.js";
import { getAudit, getCreative, itemsOf } from "./api.js";
import { auditList } from "./audit.js";
import { EvidenceCard, renderBrief, renderLayout } from "./cards.js";
import { card, chip, clamp01, clear, fmtDateTime, fmtDuration, fmtScore, h, paragraphs, replace, safeUrl } from "./dom.js";
import { scoreBlock } from "./images.js";
import { agentLabel, label, modelLabel } from "./labels.js";
import { previewCard } from "./preview.js";
import { getVersions, versionsCard } from "./versions.js";

/** The post on a phone, as readers will see it: only for a post (a direct answer has no title). */
function phoneCard(c) {
  if (!c.title) return null;
  const { node, preview } = previewCard("detail-preview");
  const images = (c.assets || [])
    .filter((a) => a.role !== "reference" && a.status === "complete" && safeUrl(a.url))
    .sort((a, b) => (a.taskIndex ?? 0) - (b.taskIndex ?? 0));
  preview.setImages(images.map((a) => safeUrl(a.url)));
  preview.setPost({ title: c.title, body: c.body, tags: c.tags });
  return node;
}

function postCard(c) {
  const { node, body } = card("文案", { id: "detail-post" });
  if (!c.title && !c.body) {
    body.append(h("p", { class: "muted empty-note" }, "这篇作品还没有文案。"));
    return node;
  }
  body.append(
    h("h3", { class: "draft-title" }, c.title || ""),
    h("div", { class: "draft-body" }, paragraphs(c.body)),
    h("div", { class: "chips" }, (c.tags || []).map((t) => chip(`#${t}`, "chip-tag"))));
  return node;
}

function imagesCard(c) {
  const { node, body } = card("配图", { id: "detail-images" });
  const assets = (c.assets || []).filter((a) => a.role !== "reference");
  const refs = (c.assets || []).filter((a) => a.role === "reference");
  const figure = (a, caption) => {
    const url = safeUrl(a.url);
    const node = h("figure", { class: "image-slot" },
      url ? h("a", { href: url, target: "_blank", rel: "noopener" }, h("img", { src: url, alt: caption }))
        : h("div", { class: "image-frame" }, h("span", { class: "image-placeholder" }, "✕")),
      h("figcaption", {}, h("span", { class: "image-caption" }, caption),
        a.status !== "complete" && a.error ? h("span", { class: "image-meta" }, `失败：${a.error}`) : null));
    if (url && a.status === "complete") attachAnalysis(node, a, caption); // 识别文字: OCR and element boxes
    return node;
  };
  if (!assets.length) body.append(h("p", { class: "muted empty-note" }, "没有生成的图片。"));
  else body.append(h("div", { class: "detail-images" }, assets.map((a) => figure(a, `图${a.taskIndex ?? ""} · ${label("role", a.role)}`))));
  if (refs.length) {
    body.append(h("div", { class: "sub-title" }, "参考图"),
      h("div", { class: "detail-images" }, refs.map((a, i) => figure(a, `参考图 ${i + 1}`))));
  }
  return node;
}

/** Who started the run and who approved, rejected or modified it, with the feedback and the changes. */
function auditCard(items) {
  const { node, body } = card("审核记录", { id: "detail-audit" });
  body.append(items ? auditList(items) : h("p", { class: "muted empty-note" }, "审核记录暂时无法读取。"));
  return node;
}

function reviewCard(c) {
  const { node, body } = card("质量评审", { id: "detail-review" });
  const rounds = c.reviewRounds || [];
  if (!rounds.length) body.append(h("p", { class: "muted empty-note" }, "还没有质量评审。"));
  for (const round of rounds) {
    body.append(h("div", { class: ["review-round", round.round === c.chosenRound && "chosen"] }, scoreBlock(round)));
  }
  return node;
}

function requestCard(c) {
  const { node, body } = card("需求与选项", { id: "detail-request" });
  const o = c.options || {};
  const refs = o.referenceCount ?? (c.assets || []).filter((a) => a.role === "reference").length;
  const rows = [
    ["需求", h("span", { class: "pre-line" }, c.request || "")],
    ["配图数量", o.imageCount],
    ["版式偏好", label("layout", o.layoutPreference)],
    ["人工审核", o.enableHITL === undefined ? null : o.enableHITL === false ? "关闭" : "开启"],
    ["参考图", refs ? `${refs} 张` : null],
    ["发起人", c.startedBy ? actorName(c.startedBy) : null],
    ["模型", modelLabel(c.model)],
    ["创建时间", fmtDateTime(c.createdAt)],
    ["完成时间", c.completedAt ? fmtDateTime(c.completedAt) : null],
    ["总耗时", c.durationMs ? fmtDuration(c.durationMs) : null],
    ["会话编号", h("code", {}, c.threadId || "")],
  ];
  const list = h("dl", { class: "kv" });
  for (const [k, v] of rows) if (v !== null && v !== undefined && v !== "") list.append(h("dt", {}, k), h("dd", {}, v));
  body.append(list);
  const usages = (c.referenceAnalyses || []).map((r) => label("usage", r.usage)).filter(Boolean);
  if (usages.length) body.append(h("div", { class: "muted" }, `参考图用途：${usages.join("、")}`));
  return node;
}

function timingsCard(c) {
  const { node, body } = card("各环节耗时", { id: "detail-timings" });
  const rows = Object.entries(c.timings || {}).map(([agent, t]) => ({ agent, runs: Number(t.runs) || 0, ms: Number(t.totalMs) || 0 }))
    .sort((a, b) => b.ms - a.ms);
  if (!rows.length) {
    body.append(h("p", { class: "muted empty-note" }, "暂无耗时记录。"));
    return node;
  }
  const max = Math.max(1, ...rows.map((r) => r.ms));
  body.append(h("table", { class: "data timing-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "环节"), h("th", { scope: "col" }, "次数"), h("th", { scope: "col" }, "耗时"), h("th", { scope: "col" }, "总计"))),
    h("tbody", {}, rows.map((r) => h("tr", {},
      h("td", {}, agentLabel(r.agent)), h("td", {}, String(r.runs)),
      h("td", {}, h("span", { class: "bar", "aria-hidden": "true" }, h("span", { class: "bar-fill", style: { width: `${Math.round(clamp01(r.ms / max) * 100)}%` } }))),
      h("td", {}, fmtDuration(r.ms)))))));
  return node;
}

function usageCard(c) {
  const { node, body } = card("用量", { id: "detail-usage" });
  const u = c.usage || {};
  body.append(h("dl", { class: "kv" },
    h("dt", {}, "输入词元"), h("dd", {}, String(u.promptTokens ?? 0)),
    h("dt", {}, "输出词元"), h("dd", {}, String(u.completionTokens ?? 0)),
    h("dt", {}, "费用"), h("dd", {}, u.costUsd == null ? "未知" : `$${Number(u.costUsd).toFixed(4)}`)));
  const tasks = Object.entries(u.byTask || {});
  if (tasks.length) {
    body.append(h("div", { class: "table-wrap" }, h("table", { class: "data" },
      h("thead", {}, h("tr", {}, ...["环节", "调用次数", "缓存命中", "词元", "延迟"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, tasks.map(([task, row]) => h("tr", {},
        h("td", {}, label("task", task)), h("td", {}, String(row.calls ?? "")),
        h("td", {}, String(row.cacheHits ?? 0)),
        h("td", {}, String((row.promptTokens || 0) + (row.completionTokens || 0))),
        h("td", {}, fmtDuration(row.latencyMs))))))));
  }
  return node;
}

/**
 * Load the creative again (after a restore made a new version current) and render the page in place, the
 * versions card showing `selected` with `notice` above it.
 */
async function reloadDetail(container, id, options, { selected = null, notice = null } = {}) {
  const [creative, audit, versions] = await Promise.all([
    getCreative(id), getAudit(id).catch(() => null), getVersions(id).catch(() => null)]);
  renderDetail(container, creative, { ...options, audit: audit ? itemsOf(audit) : null, versions, selected, notice });
  document.title = `${creative.title || `作品 #${creative.id}`} · 内容工坊`;
  const section = container.querySelector("#detail-versions");
  section?.scrollIntoView({ block: "nearest" });
  section?.querySelector(".version-notice")?.focus({ preventScroll: true });
}

export function renderDetail(container, c, { listUrl = "/creatives", audit = [], me = null, versions = null, selected = null, notice = null } = {}) {
  clear(container);
  const versionsNode = versionsCard(c, {
    // restoring is answering for the creative's content: its owner, or an editor (as confirming its runs)
    mayRestore: mayAct(me, "confirm", c.startedBy),
    reload: (next) => reloadDetail(container, c.id, { listUrl, me }, next),
    preloaded: versions, selected, notice,
  });
  const actions = [h("a", { class: "btn", href: `/?thread=${encodeURIComponent(c.threadId)}` },
    c.status === "paused" && mayAct(me, "confirm", c.startedBy) ? "在工作台继续" : "在工作台打开")];
  if (c.currentVersion) { // the current version as a zip: pictures in order, post.txt, manifest.json
    const href = `/api/creatives/${encodeURIComponent(c.id)}/package.zip?version=${encodeURIComponent(c.currentVersion)}`;
    actions.push(h("a", { class: "btn", href, download: true, dataset: { action: "download-package" } }, "下载发布包"));
  }
  if (c.status === "paused" && can(me, "inbox")) {
    actions.push(h("a", { class: "btn primary", href: `/inbox#thread=${encodeURIComponent(c.threadId)}` }, "去审核"));
  }
  const brief = card("创作简报", { id: "detail-brief" });
  if (c.brief) renderBrief(brief.body, c.brief);
  else brief.body.append(h("p", { class: "muted empty-note" }, "暂无简报。"));
  const evidence = card("调研素材", { id: "detail-evidence" });
  if (c.evidence) new EvidenceCard(evidence.body).setPack(c.evidence);
  else evidence.body.append(h("p", { class: "muted empty-note" }, "暂无调研素材。"));
  const layout = card("版式规划", { id: "detail-layout" });
  if (c.layoutSpec) renderLayout(layout.body, c.layoutSpec, { paragraphImageBindings: c.bindings || [] });
  else layout.body.append(h("p", { class: "muted empty-note" }, "暂无版式规划。"));

  replace(container,
    h("div", { class: "page-head detail-head" },
      h("a", { href: listUrl, class: "btn ghost small", dataset: { nav: "list" } }, "← 返回作品库"),
      h("h1", { tabindex: "-1" }, c.title || `作品 #${c.id}`),
      h("span", { class: "status-pill", dataset: { status: c.status } }, label("status", c.status)),
      typeof c.score === "number" ? h("span", { class: "badge badge-pass" }, `综合 ${fmtScore(c.score)}`) : null,
      ...actions),
    c.error ? h("div", { class: "alert error", role: "alert" }, h("strong", {}, "运行出错："), c.error.message || "未知错误") : null,
    h("div", { class: "detail-grid" },
      h("div", { class: "run-col" }, postCard(c), imagesCard(c), versionsNode, auditCard(audit), reviewCard(c), layout.node),
      h("div", { class: "run-col" }, phoneCard(c), requestCard(c), brief.node, evidence.node, timingsCard(c), usageCard(c))));
}
