// A run's audit records (`GET /api/creatives/{id}/audit`) in words: who started it, who approved,
// rejected (with the feedback), modified (which fields, from what to what), answered or cancelled it.
// Shared by the creative's detail page (审核记录) and the run's timeline.

import { actorName } from "./account.js";
import { fmtDateTime, h, toDate } from "./dom.js";
import { KIND, label } from "./labels.js";

const FIELDS = { title: "标题", body: "正文", tags: "标签", plans: "配图规划" };
const PLAN_FIELDS = {
  index: "序号",
  role: "用途",
  subject: "主体",
  basePrompt: "提示词",
  prompt: "完整提示词",
  style: "风格",
  styleSimilarity: "风格相似度",
  palette: "配色",
  background: "背景",
  layout: "版式",
  overlay: "图上文字",
};
const ICONS = { start: "▶", approve: "✓", reject: "↺", modify: "✎", answer: "✎", cancel: "■", resume: "▶" };
const LONG = 60; // longer values are folded behind a toggle

/** `plans[2].subject` → 图2 的主体; `plans.length` → 配图数量; `title` → 标题. */
function fieldName(field) {
  const text = String(field || "");
  if (text === "plans.length") return "配图数量";
  const plan = /^plans\[(\d+)\]\.(\w+)$/.exec(text);
  if (plan) return `图${plan[1]} 的${PLAN_FIELDS[plan[2]] || "其他设置"}`;
  return FIELDS[text] || "其他字段";
}

/** A changed value as text: lists joined, tags with #, a plan's role in Chinese, objects only noted. */
function valueText(field, value) {
  if (value === null || value === undefined || value === "") return "（空）";
  let parsed = value;
  if (typeof value === "string" && /^[[{]/.test(value.trim())) {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = value; // cut to 200 characters by the server: no longer JSON, shown as it is
    }
  }
  if (/\.role$/.test(field)) return label("role", parsed);
  if (Array.isArray(parsed)) return parsed.map((v) => (field === "tags" ? `#${v}` : String(v))).join(field === "tags" ? " " : "、");
  if (parsed && typeof parsed === "object") return "（已修改）";
  return String(parsed);
}

function changeLine(change) {
  const field = String(change?.field || "");
  const before = valueText(field, change?.before);
  const after = valueText(field, change?.after);
  const name = fieldName(field);
  if (before.length + after.length <= LONG) {
    return h("span", { class: "audit-change" }, `${name}：`, h("del", {}, before), " → ", h("ins", {}, after));
  }
  return h("details", { class: "audit-change tl-detail" }, h("summary", {}, `${name}：已修改`),
    h("div", { class: "audit-before pre-line" }, h("span", { class: "muted" }, "原来："), before),
    h("div", { class: "audit-after pre-line" }, h("span", { class: "muted" }, "改为："), after));
}

function answerText(answer) {
  const chosen = (answer?.selectedIds || []).map((id) => label("theme", id)).filter(Boolean);
  const custom = String(answer?.customInput || "").trim();
  return [chosen.length ? `选择：${chosen.join("、")}` : "", custom ? `补充：${custom}` : ""].filter(Boolean).join("；");
}

/** One record as {icon, who, what, kind, at, lines}: `lines` are text or nodes to show under it. */
export function describeAudit(item) {
  const d = (item && item.details) || {};
  const lines = [];
  if (d.feedback) lines.push(h("span", { class: "audit-feedback" }, `修改意见：${d.feedback}`));
  if (Array.isArray(d.changes)) lines.push(...d.changes.map(changeLine));
  if (item.action === "answer" && d.answer) lines.push(`回答：${answerText(d.answer) || "（空）"}`);
  if (item.action === "start" && d.imageCount) lines.push(`配图 ${d.imageCount} 张`);
  return {
    icon: ICONS[item.action] || "•",
    who: actorName(item.actor),
    what: item.actionLabel || label("auditAction", item.action),
    kind: d.kind ? KIND[d.kind] || "" : "",
    at: item.at,
    lines,
  };
}

/** The record's time in milliseconds (for ordering among a timeline's events). */
export function auditTime(item) {
  return toDate(item?.at)?.getTime() ?? 0;
}

/** The records as a list (the detail page's 审核记录). */
export function auditList(items) {
  if (!items.length) return h("p", { class: "muted empty-note" }, "还没有审核记录。");
  return h("ol", { class: "audit-list" }, items.map((item) => {
    const a = describeAudit(item);
    return h("li", { class: "audit-item", dataset: { action: item.action, id: String(item.id ?? "") } },
      h("div", { class: "audit-head" },
        h("span", { class: "audit-icon", "aria-hidden": "true" }, a.icon),
        h("strong", { class: "audit-who" }, a.who),
        h("span", { class: "audit-what" }, a.what),
        a.kind ? h("span", { class: "chip" }, a.kind) : null,
        h("time", { class: "audit-time", datetime: item.at || "" }, fmtDateTime(item.at))),
      a.lines.length ? h("div", { class: "audit-lines" }, a.lines.map((line) => h("div", {}, line))) : null);
  }));
}
