// The agent timeline: one entry per agent run (start → end with duration), supervisor decisions with
// their reason and source, tool calls with collapsible input/output, checkpoints and errors. Every value
// goes through the label table; numbers meant for debugging (confidences, similarity scores, error
// codes, a message's `detail`) sit behind a collapsed "详情" toggle. The run's audit records (who started,
// approved, rejected…) are placed among the events by their time.

import { auditTime, describeAudit } from "./audit.js";
import { fmtDuration, fmtJson, h, clear } from "./dom.js";
import { agentLabel, KIND, kindOf, label } from "./labels.js";

const MAX_JSON = 6000;

function clock(ts) {
  const d = new Date(Number(ts) || Date.now());
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function jsonBlock(label, value) {
  let text = fmtJson(value);
  const cut = text.length > MAX_JSON;
  if (cut) text = `${text.slice(0, MAX_JSON)}\n…（已截断，共 ${text.length} 字符）`;
  return h("div", { class: "tool-io" }, h("div", { class: "tool-io-label" }, label), h("pre", { class: "code" }, text));
}

/** A collapsed "详情" toggle around `text` (null when there is nothing to show). */
export function detailToggle(text) {
  const body = Array.isArray(text) ? text.filter(Boolean).join("\n") : String(text ?? "");
  if (!body.trim()) return null;
  return h("details", { class: "tl-detail" }, h("summary", {}, "详情"), h("div", { class: "tl-detail-body pre-line" }, body));
}

const pct = (value) => `${Math.round(Number(value || 0) * 100)}%`;

export class Timeline {
  constructor(root) {
    this.root = root;
    this.list = h("ol", { class: "timeline", "aria-label": "智能体时间线" });
    this.empty = h("p", { class: "muted empty-note" }, "开始创作后，这里会实时显示每个智能体的工作过程。");
    root.append(this.empty, this.list);
    this.reset();
  }

  reset() {
    clear(this.list);
    this.empty.hidden = false;
    this.openAgents = new Map(); // agent name → entry of its current run
    this.tools = new Map(); // toolCallId → {details, status}
    this.count = 0;
  }

  add(event) {
    const node = this.render(event);
    if (!node) return;
    this.empty.hidden = true;
    const nearBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 80;
    if (node.parentNode === null) this.list.append(node);
    if (nearBottom) this.root.scrollTop = this.root.scrollHeight;
  }

  entry(event, cls, icon, title, ...rest) {
    this.count += 1;
    return h(
      "li",
      { class: ["tl-item", ...[cls].flat()],
        dataset: { seq: String(event.seq ?? ""), type: event.type, ts: String(Number(event.timestamp) || Date.now()) } },
      h("span", { class: "tl-icon", "aria-hidden": "true" }, icon),
      h("div", { class: "tl-main" },
        h("div", { class: "tl-title" }, title, h("time", { class: "tl-time" }, clock(event.timestamp))),
        ...rest),
    );
  }

  /** The run's audit records, each placed among the events by its time (each added once). */
  setAudit(items) {
    for (const item of items || []) {
      const id = String(item.id ?? "");
      if ([...this.list.children].some((li) => li.dataset.audit === id)) continue;
      const at = auditTime(item);
      const a = describeAudit(item);
      const node = h("li", { class: "tl-item audit", dataset: { audit: id, action: item.action, ts: String(at) } },
        h("span", { class: "tl-icon", "aria-hidden": "true" }, a.icon),
        h("div", { class: "tl-main" },
          h("div", { class: "tl-title" }, h("strong", {}, a.who), h("span", {}, a.kind ? `${a.what} · ${a.kind}` : a.what),
            h("time", { class: "tl-time" }, clock(at))),
          a.lines.map((line) => h("div", { class: "tl-reason" }, line))));
      const next = [...this.list.children].find((li) => Number(li.dataset.ts) > at);
      this.list.insertBefore(node, next || null);
      this.empty.hidden = true;
    }
  }

  agentEntry(event) {
    const open = this.openAgents.get(event.agent);
    if (open) return open;
    // an event from an agent whose start we did not see (the supervisor, a resumed pause): a plain entry
    return this.startAgent({ ...event, type: "agent_note", content: "" }, { running: false });
  }

  startAgent(event, { running = true } = {}) {
    const status = h("span", { class: ["tl-status", running && "running"] }, running ? "进行中…" : "");
    const details = h("ul", { class: "tl-sub" });
    const node = this.entry(event, ["agent", running && "running"], "●", h("strong", {}, agentLabel(event.agent)),
      status, details);
    const item = { node, status, details };
    this.openAgents.set(event.agent, item);
    this.list.append(node);
    return item;
  }

  sub(item, ...children) {
    item.details.append(h("li", {}, ...children));
  }

  render(event) {
    switch (event.type) {
      case "agent_start":
        if (event.agent === "supervisor") {
          // the supervisor opens the run and then speaks through its decisions; it has no agent_end
          return this.entry(event, "info", "◆", h("strong", {}, event.content || "主管 开始调度"));
        }
        return this.startAgent(event).node;
      case "agent_end": {
        const item = this.agentEntry(event);
        item.node.classList.remove("running");
        item.node.classList.add("done");
        item.status.className = "tl-status done";
        item.status.textContent = `完成 · ${fmtDuration(event.durationMs)}`;
        this.openAgents.delete(event.agent);
        return item.node;
      }
      case "supervisor_decision":
        return this.entry(event, "decision", "➜",
          h("span", {}, "主管决策 → ", h("strong", {}, agentLabel(event.decision))),
          h("div", { class: "tl-reason" }, event.reason || ""),
          h("span", { class: ["chip", event.source === "llm" ? "chip-llm" : "chip-rule"] }, label("source", event.source) || "规则"));
      case "intent_detected":
        return this.entry(event, "info", "◆", h("span", {}, "识别意图：", h("strong", {}, label("intent", event.intent))),
          h("div", { class: "tl-reason" }, [
            event.suggestedCategory ? `题材：${label("theme", event.suggestedCategory)}` : "",
            event.keywords?.length ? `关键词：${event.keywords.join("、")}` : "",
          ].filter(Boolean).join(" · ")),
          detailToggle(`置信度 ${pct(event.confidence)} · 判断方式：${label("source", event.source) || "规则"}`));
      case "content_type_detected":
        return this.entry(event, "info", "◆", h("span", {}, "内容类型：", h("strong", {}, label("contentType", event.contentType))),
          h("div", { class: "tl-reason" }, event.reasoning || ""),
          detailToggle(`置信度 ${pct(event.confidence)}`));
      case "message":
      case "progress": {
        if (!event.agent) return null;
        const item = this.agentEntry(event);
        this.sub(item, h("span", { class: ["tl-msg", event.type === "progress" && "tl-progress"] }, event.content || ""),
          detailToggle(event.detail));
        return item.node;
      }
      case "tool_call":
        return this.toolCall(event);
      case "tool_result":
        return this.toolResult(event);
      case "ask_user": {
        const kind = kindOf(event);
        return this.entry(event, "pause", "‖", h("strong", {}, `等待${KIND[kind] || "确认"}`),
          h("div", { class: "tl-reason" }, event.question || ""));
      }
      case "quality_score":
        return this.entry(event, event.passed ? "ok" : "warn", event.passed ? "✓" : "!",
          h("span", {}, `第 ${event.round} 轮评分：`, h("strong", {}, Number(event.overall).toFixed(2)),
            event.passed ? " · 通过" : " · 未通过"),
          event.failReasons?.length ? h("div", { class: "tl-reason" }, event.failReasons.join("；")) : null);
      case "workflow_complete":
        return this.entry(event, "ok", "★", h("strong", {}, "创作完成"));
      case "error":
        return this.entry(event, "error", "✕", h("strong", {}, event.agent ? `${agentLabel(event.agent)}出错` : "运行出错"),
          h("div", { class: "tl-reason" }, event.message || "未知错误"),
          detailToggle(event.code ? `错误代码 ${event.code}${event.retryable ? " · 可重试" : ""}` : ""));
      default:
        return null; // state_update, workflow_progress, content/brief/etc. are shown elsewhere
    }
  }

  toolCall(event) {
    const item = this.agentEntry(event);
    const status = h("span", { class: "tool-status" }, "调用中…");
    const body = h("div", { class: "tool-body" }, jsonBlock("输入", event.toolInput));
    const details = h("details", { class: "tool", dataset: { tool: event.tool || "" } },
      h("summary", {}, h("span", { class: "tool-name" }, label("tool", event.tool) || "工具调用"), status), body);
    this.tools.set(event.toolCallId, { body, status });
    this.sub(item, details);
    return item.node;
  }

  toolResult(event) {
    let tool = this.tools.get(event.toolCallId);
    if (!tool) {
      this.toolCall({ ...event, type: "tool_call", toolInput: null });
      tool = this.tools.get(event.toolCallId);
    }
    tool.status.textContent = "已返回";
    tool.status.classList.add("done");
    tool.body.append(jsonBlock("输出", event.toolOutput));
    return this.agentEntry(event).node;
  }
}
