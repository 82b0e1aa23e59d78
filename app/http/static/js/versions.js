// 版本记录: a creative's versions on its detail page (`GET /api/creatives/{id}/versions`), newest first, one
// selected with what it changed against the version before it (`…/versions/{n}`: the title and body as
// character runs, tags added/removed, pictures changed), and 恢复此版本 (`POST …/versions/{n}/restore` with
// the current version this page loaded as `basedOn`; a stale one is a 409 VERSION_CONFLICT).

import { actorName } from "./account.js";
import { describeError, request } from "./api.js";
import { card, chip, clear, fmtDateTime, h, replace, safeUrl } from "./dom.js";

const base = (id) => `/api/creatives/${encodeURIComponent(id)}/versions`;

/** The creative's versions: `{creativeId, current, items}` (oldest first). */
export const getVersions = (id) => request(base(id));
const getVersion = (id, n) => request(`${base(id)}/${encodeURIComponent(n)}`);
const restoreVersion = (id, n, basedOn) =>
  request(`${base(id)}/${encodeURIComponent(n)}/restore`, { method: "POST", body: { basedOn } });

const BUSY = new Set(["running", "paused"]);

function sourceText(v) {
  const source = v.sourceLabel || "其他来源";
  return v.restoredFrom ? `${source}（来自第 ${v.restoredFrom} 版）` : source;
}

function thumbs(v, cls = "version-thumbs") {
  const urls = (v.imageUrls || []).map(safeUrl);
  if (!urls.length) return h("span", { class: "muted version-noimg" }, "无配图");
  return h("span", { class: cls }, urls.map((url, i) => (url
    ? h("img", { src: url, loading: "lazy", decoding: "async", alt: `第 ${v.number} 版的第 ${i + 1} 张图` })
    : h("span", { class: "version-thumb-missing", title: "图片无法显示" }, "✕"))));
}

/** Text from diff runs: inserted text in <ins>, deleted in <del>; with nothing to compare, plain text. */
function diffRuns(runs, { compare }) {
  const parts = [];
  for (const run of runs || []) {
    const text = String(run?.text ?? "");
    if (!text) continue;
    if (!compare || run.op === "equal") parts.push(text);
    else if (run.op === "insert") parts.push(h("ins", { title: "新增" }, text));
    else if (run.op === "delete") parts.push(h("del", { title: "删除" }, text));
  }
  return parts;
}

const changed = (runs) => (runs || []).some((r) => r && r.op !== "equal" && r.text);

/** What a version changed, as a block: title, body, tags, pictures. */
function versionView(data, { current, actions }) {
  const v = data.version || {};
  const diff = data.diff || {};
  const compare = diff.against !== null && diff.against !== undefined;
  const added = diff.tags?.added || [];
  const removed = diff.tags?.removed || [];
  const images = (diff.imagesChanged || []).map((p) => Number(p) + 1).filter((n) => Number.isInteger(n) && n > 0);
  const anyChange = changed(diff.title) || changed(diff.body) || added.length || removed.length || images.length;

  const lead = !compare ? "这是第一版，没有更早的版本可以比较。"
    : anyChange ? `与第 ${diff.against} 版相比：新增的文字标为绿色，删除的标为红色并划线。`
      : `与第 ${diff.against} 版相比没有变化。`;
  const title = diff.title?.length ? diffRuns(diff.title, { compare }) : [v.title || "（无标题）"];
  const bodyRuns = diff.body?.length ? diffRuns(diff.body, { compare }) : [v.body || ""];

  const tagLines = [];
  if (!compare) {
    tagLines.push(h("div", { class: "chips" }, (v.tags || []).map((t) => chip(`#${t}`, "chip-tag"))));
  } else {
    if (added.length) {
      tagLines.push(h("div", { class: "version-tag-line" }, h("span", { class: "muted" }, "新增："),
        h("span", { class: "chips" }, added.map((t) => chip(`+ #${t}`, "chip-added")))));
    }
    if (removed.length) {
      tagLines.push(h("div", { class: "version-tag-line" }, h("span", { class: "muted" }, "移除："),
        h("span", { class: "chips" }, removed.map((t) => chip(`− #${t}`, "chip-removed")))));
    }
    if (!tagLines.length) tagLines.push(h("span", { class: "muted" }, "标签没有变化"));
  }
  const imageNote = !compare ? `共 ${(v.imageUrls || []).length} 张`
    : images.length ? images.map((n) => `第${n}张图有变化`).join("，") : "配图没有变化";

  return h("div", { class: "version-view", dataset: { version: String(v.number ?? "") } },
    h("div", { class: "version-view-head" },
      h("h3", { tabindex: "-1" }, `第 ${v.number} 版`),
      v.number === current ? h("span", { class: "badge badge-pass" }, "当前") : null,
      h("span", { class: "chip" }, sourceText(v)),
      h("span", { class: "muted version-meta" }, `${actorName(v.actor)} · ${fmtDateTime(v.createdAt)}`)),
    h("p", { class: ["version-lead", compare && anyChange ? "" : "muted"] }, lead),
    h("dl", { class: "version-fields" },
      h("dt", {}, "标题"), h("dd", { class: "version-title" }, title),
      h("dt", {}, "正文"), h("dd", { class: "version-body" }, bodyRuns),
      h("dt", {}, "标签"), h("dd", { class: "version-tags" }, tagLines),
      h("dt", {}, "配图"), h("dd", { class: "version-images" },
        h("div", { class: compare && images.length ? "version-images-changed" : "muted" }, imageNote),
        thumbs(v, "version-thumbs large"))),
    actions);
}

/**
 * The 版本记录 card. `c` is the creative the page shows (its `currentVersion` is what a restore is based
 * on); `mayRestore` whether the account may restore (the owner, an editor); `reload({selected, notice})`
 * loads the creative again and renders the page. `preloaded` is the versions list when the caller has it.
 */
export function versionsCard(c, { mayRestore = false, reload = null, preloaded = null, selected = null, notice = null } = {}) {
  const { node, body } = card("版本记录", { id: "detail-versions" });
  const count = h("span", { class: "muted version-count" });
  node.querySelector(".card-head").append(count);
  let loaded = Number(c.currentVersion) || 0; // the version this page shows: a restore's basedOn
  const cache = new Map();
  let items = [];
  let chosen = null;
  let ticket = 0;
  const list = h("ol", { class: "version-list", "aria-label": "版本列表（最新的在前）" });
  const view = h("div", { class: "version-panel", "aria-live": "polite" });
  const status = notice ? h("div", { class: "alert success version-notice", role: "status", tabindex: "-1" }, notice) : null;

  function mark() {
    for (const button of list.querySelectorAll("button.version-pick")) {
      button.setAttribute("aria-pressed", String(Number(button.dataset.version) === chosen));
    }
  }

  function row(v) {
    const isCurrent = v.number === loaded;
    return h("li", { class: ["version-item", isCurrent && "current"], dataset: { version: String(v.number), current: String(isCurrent) } },
      h("button", { type: "button", class: "version-pick", "aria-pressed": "false", dataset: { version: String(v.number) },
        onclick: () => select(v.number) },
      h("span", { class: "version-row-head" },
        h("strong", { class: "version-number" }, `第 ${v.number} 版`),
        isCurrent ? h("span", { class: "badge badge-pass" }, "当前") : null,
        h("span", { class: "version-source" }, sourceText(v)),
        h("span", { class: "version-actor" }, actorName(v.actor)),
        h("time", { class: "version-time", datetime: v.createdAt || "" }, fmtDateTime(v.createdAt))),
      h("span", { class: "version-row-main" },
        h("span", { class: "version-row-title" }, v.title || "（无标题）"),
        thumbs(v))));
  }

  function restoreArea(number) {
    if (number === loaded) return h("p", { class: "muted version-hint" }, "这是当前版本。");
    if (!mayRestore) return h("p", { class: "muted version-hint" }, "你的账号不能恢复这篇作品的版本。");
    if (BUSY.has(c.status)) return h("p", { class: "muted version-hint" }, "这篇作品正在运行或等待审核，完成后才能恢复旧版本。");
    const area = h("div", { class: "version-actions" });
    const error = h("div", { class: "alert error", role: "alert", hidden: true });
    const start = () => {
      error.hidden = true;
      if (status) status.hidden = true; // the last restore's notice is not about this one
      replace(area,
        h("div", { class: "version-confirm", role: "group", "aria-label": "确认恢复" },
          h("p", {}, `确定恢复第 ${number} 版吗？它的标题、正文、标签和配图会成为新的第 ${loaded + 1} 版，现在的内容仍保留在版本记录里。`),
          h("div", { class: "version-confirm-buttons" },
            h("button", { type: "button", class: "btn primary small", dataset: { action: "confirm-restore" }, onclick: (e) => send(e.currentTarget) }, "确认恢复"),
            h("button", { type: "button", class: "btn small", dataset: { action: "cancel-restore" }, onclick: idle }, "取消"))),
        error);
      area.querySelector("[data-action=confirm-restore]").focus();
    };
    const idle = () => {
      replace(area, h("button", { type: "button", class: "btn small", dataset: { action: "restore" }, onclick: start }, "恢复此版本"), error);
    };
    async function send(button) {
      for (const b of area.querySelectorAll("button")) b.disabled = true;
      button.textContent = "恢复中…";
      try {
        const done = await restoreVersion(c.id, number, loaded);
        const message = `已恢复第 ${done.restoredFrom ?? number} 版，现在的当前版本是第 ${done.version} 版。`;
        if (reload) await reload({ selected: done.version, notice: message });
        else location.reload();
      } catch (err) {
        clear(error);
        if (err?.status === 409 && err.code === "VERSION_CONFLICT") {
          const now = Number(err.details?.current) || null;
          error.append(h("strong", {}, "这篇作品刚刚被别人改过，没有恢复。"),
            h("div", {}, now ? `现在的当前版本是第 ${now} 版，请刷新后再决定是否恢复。` : "请刷新后再决定是否恢复。"),
            h("div", { class: "alert-actions" }, h("button", { type: "button", class: "btn small", dataset: { action: "reload" },
              onclick: () => (reload ? reload({ selected: number }) : location.reload()) }, "刷新作品")));
        } else {
          const d = describeError(err);
          error.append(h("strong", {}, d.title), ...d.lines.map((l) => h("div", {}, l)));
        }
        error.hidden = false;
        idle();
      }
    }
    idle();
    return area;
  }

  async function select(number) {
    chosen = number;
    mark();
    const mine = ++ticket;
    if (!cache.has(number)) replace(view, h("p", { class: "muted empty-note" }, `正在读取第 ${number} 版…`));
    try {
      if (!cache.has(number)) cache.set(number, await getVersion(c.id, number));
      if (mine !== ticket) return;
      replace(view, versionView(cache.get(number), { current: loaded, actions: restoreArea(number) }));
    } catch (err) {
      if (mine !== ticket) return;
      const d = describeError(err);
      replace(view, h("div", { class: "alert error", role: "alert" }, h("strong", {}, `第 ${number} 版暂时无法读取`), d.title));
    }
  }

  function render(payload) {
    items = [...(payload?.items || [])].sort((a, b) => b.number - a.number);
    if (!loaded) loaded = Number(payload?.current) || 0; // a creative read without `currentVersion`
    if (!items.length) {
      replace(body, h("p", { class: "muted empty-note" }, "还没有版本：作品完成后会保存第 1 版。"));
      return;
    }
    count.textContent = `共 ${items.length} 版`;
    replace(list, items.map(row));
    replace(body, status, list, view);
    const first = items.some((v) => v.number === selected) ? selected
      : items.some((v) => v.number === loaded) ? loaded : items[0].number;
    select(first);
  }

  if (preloaded) render(preloaded);
  else {
    body.append(h("p", { class: "muted empty-note" }, "正在读取版本记录…"));
    getVersions(c.id).then(render, (err) => {
      const d = describeError(err);
      replace(body, h("p", { class: "muted empty-note" }, `版本记录暂时无法读取（${d.title}）。`));
    });
  }
  return node;
}
