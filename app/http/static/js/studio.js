// The creators' studio (`/`): the request form, then the live run. `/?thread=<id>` reopens a run.
// Under a finished run's result, 继续修改 sends a new message on the same thread: a revision (revise.js).
// Accounts that may not start runs (editors, analysts) get a note pointing at what they can do instead,
// and see a run's checkpoints without the buttons when they may not answer them.

import { can, mayAct } from "./account.js";
import { describeError, getCreative } from "./api.js";
import { $, chip, clear, h, replace, toast } from "./dom.js";
import { label } from "./labels.js";
import { initNav, refreshInboxBadge } from "./nav.js";
import { ReferencePicker } from "./references.js";
import { ReviseBox } from "./revise.js";
import { RunView } from "./runview.js";
import { RunSession } from "./session.js";

const form = $("#run-form");
const message = $("#message");
const formError = $("#form-error");
const startBtn = $("#start-btn");
const stopBtn = $("#stop-btn");
const newBtn = $("#new-btn");
const hero = $("#hero");
const summary = $("#request-summary");
const startNote = $("#start-note");
const noteError = $("#note-error");

let me = null; // `/api/me`, read once the page is wired up (below)
let canStart = false;
let startedBy = null; // who started the run on screen (`user:<name>`), when known

const view = new RunView($("#run-main"), $("#timeline"));
view.focusCheckpoints = true;
view.mayConfirm = () => mayAct(me, "confirm", startedBy);
// a direct answer's "写成笔记": a new run with the suggested request (the form is reused as-is)
function suggest(request) {
  session.stop();
  view.reset(null);
  updateButtons();
  message.value = request;
  $("#message-count").textContent = String(request.length);
  form.requestSubmit();
}
const session = new RunSession(view, { onChange: updateButtons });
// revising (and editing pictures, passages) is for whoever may act on this run: its owner, or an editor
const revise = new ReviseBox({ view, session, hitl: $("#hitl"), allowed: () => mayAct(me, "confirm", startedBy) });
view.addAfterResult(revise.node);

const refs = new ReferencePicker({
  dropzone: $("#dropzone"),
  input: $("#ref-input"),
  list: $("#ref-list"),
  onError: (problems) => (problems.length ? showFormError("部分图片未添加", problems) : hideFormError()),
});

function showFormError(title, lines = []) {
  const target = canStart ? formError : noteError; // without the form, errors go under the note
  clear(target).append(h("strong", {}, title), ...lines.map((l) => h("div", {}, l)));
  target.hidden = false;
}

function hideFormError() {
  formError.hidden = true;
  noteError.hidden = true;
}

/** The note for accounts that may not start runs: what they can do here instead. */
function fillStartNote() {
  $("#start-note-role").textContent = me?.roleLabel || "未登录";
  const links = [];
  if (can(me, "inbox")) links.push(["/inbox", "在审核收件箱审核等待确认的运行"]);
  if (can(me, "read_all")) links.push(["/creatives", can(me, "stats") ? "在作品库查看所有作品、统计并导出" : "在作品库查看所有作品"]);
  else links.push(["/creatives", "在作品库查看作品"]);
  replace($("#start-links"), links.map(([href, text]) => h("li", {}, h("a", { href, class: "link" }, text))));
}

// while a run is shown, the form folds into a summary of the request (the timeline gets the room)
function showSummary(body) {
  $("#summary-text").textContent = body.message;
  const chips = [
    `${body.imageCount} 张配图`,
    label("layout", body.layoutPreference),
    body.enableHITL === false ? "人工审核：关" : "人工审核：开",
    body.refCount ? `${body.refCount} 张参考图` : null,
  ];
  replace($("#summary-chips"), chips.filter(Boolean).map((c) => chip(c)));
}

function updateButtons() {
  const idle = view.status === "idle";
  startBtn.disabled = session.streaming;
  stopBtn.hidden = !(session.streaming && ["running", "connecting"].includes(view.status) && mayAct(me, "cancel", startedBy));
  newBtn.hidden = !canStart;
  form.hidden = !idle || !canStart;
  startNote.hidden = canStart || !idle; // while a run is shown, the run speaks for itself
  summary.hidden = idle;
  hero.hidden = !idle;
  document.body.dataset.run = view.status;
  revise.refresh();
  if (!session.streaming) refreshInboxBadge();
}

function readForm() {
  const text = message.value.trim();
  if (!text) return { error: "请先写下你的创作需求。", control: message };
  const count = Number($("#image-count").value);
  if (!Number.isInteger(count) || count < 1 || count > 9) return { error: "配图数量需要是 1–9 之间的整数。", control: $("#image-count") };
  return {
    body: {
      message: text,
      referenceImages: refs.value(),
      imageCount: count,
      layoutPreference: $("#layout-pref").value,
      enableHITL: $("#hitl").checked,
    },
  };
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  hideFormError();
  message.removeAttribute("aria-invalid");
  const { body, error, control } = readForm();
  if (error) {
    showFormError(error);
    control.setAttribute("aria-invalid", "true");
    control.focus();
    return;
  }
  startBtn.disabled = true;
  startBtn.textContent = "正在启动…";
  try {
    showSummary({ ...body, refCount: body.referenceImages.length });
    startedBy = me ? `user:${me.name}` : null;
    await session.start(body);
    history.replaceState(null, "", `/?thread=${encodeURIComponent(session.threadId)}`);
  } catch (err) {
    const d = describeError(err);
    view.reset(null);
    showFormError(d.title, d.lines);
  } finally {
    startBtn.textContent = "开始创作";
    updateButtons();
  }
});

message.addEventListener("input", () => {
  $("#message-count").textContent = String(message.value.length);
});
message.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) form.requestSubmit();
});

stopBtn.addEventListener("click", async () => {
  stopBtn.disabled = true;
  try {
    await session.cancel();
    toast("已请求停止运行", "info");
  } catch (err) {
    toast(describeError(err).title, "error");
  } finally {
    stopBtn.disabled = false;
  }
});

newBtn.addEventListener("click", () => {
  session.stop();
  view.reset(null);
  refs.clear();
  history.replaceState(null, "", "/");
  updateButtons();
  message.focus();
});

async function reopen(threadId) {
  try {
    $("#summary-text").textContent = "";
    startedBy = null;
    const info = await session.open(threadId);
    if (info.creativeId) {
      getCreative(info.creativeId).then((c) => {
        startedBy = c?.startedBy || null;
        const o = c?.options || {};
        showSummary({ message: c?.request || "", imageCount: o.imageCount ?? "?", layoutPreference: o.layoutPreference,
          enableHITL: o.enableHITL, refCount: o.referenceCount || 0 });
        message.value = c?.request || "";
        $("#message-count").textContent = String(message.value.length);
        if (typeof o.enableHITL === "boolean") revise.setHitl(o.enableHITL); // the run's own, for a revision
        updateButtons();
      }).catch(() => {});
    }
  } catch (err) {
    const d = describeError(err);
    view.reset(null);
    showFormError(`无法打开任务 ${threadId}`, [d.title, ...d.lines]);
  } finally {
    updateButtons();
  }
}

me = await initNav();
canStart = can(me, "start_run");
if (canStart) view.suggestFn = suggest;
else fillStartNote();
const params = new URLSearchParams(location.search);
if (params.get("thread")) reopen(params.get("thread"));
else updateButtons();
