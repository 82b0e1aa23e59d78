// The editors' inbox (`/inbox`): every paused run, newest first, with who started it, who is expected to
// answer and the last action taken on it; open one, review it in place, confirm.

import { actorName, can, mayAct } from "./account.js";
import { describeError, getInbox, itemsOf } from "./api.js";
import { $, clear, fmtAge, fmtDateTime, h, toast } from "./dom.js";
import { KIND, label } from "./labels.js";
import { initNav, refreshInboxBadge } from "./nav.js";
import { RunView } from "./runview.js";
import { RunSession } from "./session.js";

const list = $("#inbox-list");
const summary = $("#inbox-summary");
const listError = $("#inbox-error");
const review = $("#review");
const reviewEmpty = $("#review-empty");

let items = [];
let selected = null;
let wasStreaming = false;

// the review pane: request header, the run (compact), its timeline folded away
const requestText = h("p", { class: "review-request-text pre-line" });
const requestMeta = h("div", { class: "muted" });
const requestCard = h("section", { class: "card review-request", "aria-label": "原始需求", hidden: true },
  h("div", { class: "sub-title" }, "创作需求"), requestText, requestMeta);
const runMain = h("div", { hidden: true });
const timelineBody = h("div", { class: "card-body review-timeline" });
const timelineCard = h("details", { class: "card timeline-fold", hidden: true },
  h("summary", { class: "card-head" }, h("h2", {}, "智能体时间线")), timelineBody);
review.append(requestCard, runMain, timelineCard);

let me = null; // `/api/me`, read once the page is wired up (below)
const view = new RunView(runMain, timelineBody, { compact: true });
view.focusCheckpoints = true;
view.mayConfirm = () => mayAct(me, "confirm", items.find((i) => i.threadId === selected)?.startedBy);
const session = new RunSession(view, {
  onChange: () => {
    // a confirm was accepted (stream opened) or a stream ended: the inbox changed
    if (session.streaming !== wasStreaming) load();
    wasStreaming = session.streaming;
  },
});

function renderList() {
  // a periodic refresh must not steal a keyboard user's place in the list
  const focused = document.activeElement?.closest?.(".inbox-item")?.dataset.thread;
  clear(list);
  summary.textContent = items.length ? `${items.length} 个运行等待审核` : "";
  // the "choose one" hint only makes sense when there is something to choose
  reviewEmpty.hidden = !items.length || selected !== null;
  if (!items.length) {
    list.append(h("li", { class: "card inbox-empty" }, "没有待审核的运行。开启「人工审核」的创作会在检查点暂停，出现在这里。"));
    return;
  }
  for (const item of items) {
    const kind = item.kind || (item.pending?.context?.__clarification ? "clarification" : item.pending?.context?.kind);
    const button = h("button", {
      type: "button",
      class: "inbox-item",
      "aria-current": item.threadId === selected ? "true" : "false",
      dataset: { thread: item.threadId },
      onclick: () => select(item.threadId, true),
    },
    h("div", { class: "inbox-item-head" },
      h("span", { class: "badge badge-pause" }, KIND[kind] || "待确认"),
      h("time", { class: "inbox-age", datetime: item.pausedAt || "", title: fmtDateTime(item.pausedAt) }, fmtAge(item.pausedAt))),
    h("div", { class: "inbox-item-request" }, item.request || "（无需求文本）"),
    h("div", { class: "inbox-item-question" }, item.question || item.pending?.question || ""),
    whoLine(item));
    list.append(h("li", {}, button));
    if (item.threadId === focused) button.focus({ preventScroll: true });
  }
}

/** Who started the run, who is expected to answer it, and the last thing done to it. */
function whoLine(item) {
  const last = item.lastAction;
  return h("div", { class: "inbox-item-who" },
    h("span", {}, "发起：", h("strong", {}, item.startedBy ? actorName(item.startedBy) : "未知")),
    item.waitingFor?.label ? h("span", {}, "等待：", h("strong", {}, item.waitingFor.label)) : null,
    last ? h("span", { class: "inbox-last" },
      `最近：${actorName(last.actor)} ${label("auditAction", last.action)} · `,
      h("time", { datetime: last.at || "", title: fmtDateTime(last.at) }, fmtAge(last.at))) : null);
}

async function load() {
  try {
    const payload = await getInbox();
    items = itemsOf(payload).slice().sort((a, b) => String(b.pausedAt || "").localeCompare(String(a.pausedAt || "")));
    listError.hidden = true;
    renderList();
  } catch (err) {
    const d = describeError(err);
    clear(listError).append(h("strong", {}, `收件箱加载失败：${d.title}`), ...d.lines.map((l) => h("div", {}, l)));
    listError.hidden = false;
  }
  refreshInboxBadge();
}

async function select(threadId, userAction = false) {
  selected = threadId;
  for (const b of list.querySelectorAll(".inbox-item")) b.setAttribute("aria-current", String(b.dataset.thread === threadId));
  history.replaceState(null, "", `/inbox#thread=${encodeURIComponent(threadId)}`);
  const item = items.find((i) => i.threadId === threadId);
  reviewEmpty.hidden = true;
  requestCard.hidden = false;
  runMain.hidden = false;
  timelineCard.hidden = false;
  requestText.textContent = item?.request || "";
  clear(requestMeta).append(
    item?.pausedAt ? `暂停于 ${fmtDateTime(item.pausedAt)} · ` : "",
    h("a", { href: `/?thread=${encodeURIComponent(threadId)}`, class: "link" }, "在工作台打开"),
    item?.creativeId ? " · " : "",
    item?.creativeId ? h("a", { href: `/creatives/${encodeURIComponent(item.creativeId)}`, class: "link" }, "作品详情") : "",
  );
  try {
    await session.open(threadId);
    if (userAction && window.matchMedia("(max-width: 820px)").matches) review.scrollIntoView({ block: "start" });
  } catch (err) {
    const d = describeError(err);
    view.showError(`无法打开这个运行：${d.title}`, d.lines);
  }
}

$("#refresh-btn").addEventListener("click", async () => {
  await load();
  toast("已刷新", "ok", 1500);
});

/** For an account without an inbox (the nav hides the link; someone typed the address): a word, no 403s. */
function noInbox() {
  clear(listError).append(h("strong", {}, "审核收件箱只对编辑和管理员开放"),
    h("div", {}, h("a", { href: "/creatives", class: "link" }, "去作品库查看作品")));
  listError.hidden = false;
  reviewEmpty.hidden = true;
  $("#refresh-btn").hidden = true;
}

async function main() {
  await load();
  const threadInHash = () => new URLSearchParams(location.hash.slice(1)).get("thread");
  if (threadInHash()) select(threadInHash());
  window.addEventListener("hashchange", () => {
    const threadId = threadInHash();
    if (threadId && threadId !== selected) select(threadId);
  });
  setInterval(() => {
    if (document.visibilityState === "visible" && !session.streaming) load();
  }, 15_000);
}

me = await initNav();
if (can(me, "inbox")) await main();
else noInbox();
