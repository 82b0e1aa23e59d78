// The analysts' explorer (`/creatives`, `/creatives/{id}`): filters, summary charts, sortable table,
// CSV export honouring the filters, and the detail view. Filters live in the query string. Statistics and
// the export are for accounts that may see them (analysts, admins); a creator sees only their own works.

import { can } from "./account.js";
import { describeError, exportUrl, getAudit, getCreative, getStats, itemsOf, listCreatives } from "./api.js";
import { perDayChart, scoreDistributionChart, topTagsChart } from "./charts.js";
import { renderDetail } from "./detail.js";
import { $, chip, clear, fmtDateTime, fmtDuration, fmtScore, h, replace, safeUrl } from "./dom.js";
import { label } from "./labels.js";
import { initNav } from "./nav.js";

const PAGE = 20;
const FILTERS = ["q", "status", "tag", "from", "to", "minScore"];
const form = $("#filters");
const listView = $("#list-view");
const detailView = $("#detail-view");
const listError = $("#list-error");
const meReady = initNav(); // `/api/me`: what this account may see (statistics, export)

let state = { filters: {}, sort: "-created", offset: 0 };
let lastListUrl = "/creatives";
let total = 0;

function readUrl() {
  const params = new URLSearchParams(location.search);
  const filters = {};
  for (const key of FILTERS) if (params.get(key)) filters[key] = params.get(key);
  state = { filters, sort: params.get("sort") || "-created", offset: Math.max(0, Number(params.get("offset")) || 0) };
  for (const key of FILTERS) form.elements[key].value = filters[key] || "";
}

function urlFor() {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(state.filters)) if (v) params.set(k, v);
  if (state.sort !== "-created") params.set("sort", state.sort);
  if (state.offset) params.set("offset", String(state.offset));
  const q = params.toString();
  return `/creatives${q ? `?${q}` : ""}`;
}

function showListError(error) {
  const d = describeError(error);
  replace(listError, h("strong", {}, d.title), ...d.lines.map((l) => h("div", {}, l)));
  listError.hidden = false;
}

function formFilters() {
  const filters = {};
  for (const key of FILTERS) {
    const value = String(form.elements[key].value || "").trim();
    if (value) filters[key] = value;
  }
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  if (filters.minScore !== undefined) {
    const n = Number(filters.minScore);
    if (!Number.isFinite(n) || n < 0 || n > 1) return { error: "最低综合分需要在 0 到 1 之间。", control: form.elements.minScore };
  }
  if (filters.from && filters.to && filters.from > filters.to) {
    return { error: "开始日期不能晚于结束日期。", control: form.elements.from };
  }
  return { filters };
}

async function loadList() {
  const me = await meReady;
  const params = { ...state.filters, sort: state.sort, limit: PAGE, offset: state.offset };
  $("#export-btn").href = exportUrl({ ...state.filters, sort: state.sort });
  renderSortHeaders();
  try {
    const stats = can(me, "stats") ? getStats(state.filters).catch(() => null) : null;
    const [list, summary] = await Promise.all([listCreatives(params), stats]);
    listError.hidden = true;
    total = Number(list.total ?? itemsOf(list).length);
    renderRows(itemsOf(list), me);
    renderStats(summary);
  } catch (err) {
    showListError(err);
  }
}

function renderRows(items, me) {
  const body = clear($("#creatives-body"));
  // an account that may read only its own works sees only those: say so
  $("#list-summary").textContent = can(me, "read_all") ? `共 ${total} 篇` : `我的作品，共 ${total} 篇`;
  const from = total ? state.offset + 1 : 0;
  const to = Math.min(total, state.offset + items.length);
  $("#page-info").textContent = total ? `第 ${from}–${to} 条，共 ${total} 条` : "";
  $("#prev-page").disabled = state.offset <= 0;
  $("#next-page").disabled = state.offset + PAGE >= total;
  if (!items.length) {
    body.append(h("tr", {}, h("td", { colspan: "7", class: "muted empty-note" },
      Object.keys(state.filters).length ? "没有符合筛选条件的作品。" : "还没有作品，去「创作」页生成第一篇吧。")));
    return;
  }
  for (const item of items) {
    const cover = safeUrl(item.coverUrl);
    const title = item.title || "（未生成标题）";
    body.append(h("tr", { dataset: { id: String(item.id) } },
      h("td", {}, cover ? h("img", { class: "thumb", src: cover, alt: "" }) : h("span", { class: "thumb empty" }, "无图")),
      h("td", { class: "title-cell" },
        h("a", { href: `/creatives/${encodeURIComponent(item.id)}`, dataset: { nav: "detail" } }, title),
        h("div", { class: "muted" }, item.request || "")),
      h("td", {}, h("span", { class: "status-pill", dataset: { status: item.status } }, label("status", item.status))),
      h("td", {}, fmtScore(item.score)),
      h("td", { class: "hide-narrow" }, h("div", { class: "chips" }, (item.tags || []).slice(0, 3).map((t) => chip(`#${t}`, "chip-tag")))),
      h("td", { class: "hide-narrow" }, String(item.imageCount ?? "—")),
      h("td", { class: "hide-narrow" }, fmtDateTime(item.createdAt))));
  }
}

function renderStats(stats) {
  const tiles = clear($("#stat-tiles"));
  if (!stats) return;
  const tile = (value, label) => h("div", { class: "card stat-tile" }, h("div", { class: "stat-value" }, value), h("div", { class: "stat-label" }, label));
  const avg = stats.scoreAverages?.overall;
  tiles.append(
    tile(String(stats.total ?? 0), "作品总数"),
    tile(String(stats.byStatus?.completed ?? 0), "已完成"),
    tile(typeof avg === "number" ? avg.toFixed(2) : "—", "平均综合分"),
    tile(stats.meanRunTimeMs ? fmtDuration(stats.meanRunTimeMs) : "—", "平均耗时"),
  );
  replace($("#chart-days"), perDayChart(stats.perDay));
  replace($("#chart-scores"), scoreDistributionChart(stats.scoreDistribution, stats.scoreAverages));
  replace($("#chart-tags"), topTagsChart(stats.topTags, {
    onPick: (tag) => {
      form.elements.tag.value = tag;
      form.requestSubmit();
    },
  }));
}

function renderSortHeaders() {
  const key = state.sort.replace(/^-/, "");
  for (const th of document.querySelectorAll("th[data-sort]")) {
    const button = th.querySelector("button");
    if (th.dataset.sort === key) {
      const asc = !state.sort.startsWith("-");
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      button.dataset.dir = asc ? "asc" : "desc";
    } else {
      th.removeAttribute("aria-sort");
      delete button.dataset.dir;
    }
  }
}

function navigate(url, { replace: replaceUrl = false } = {}) {
  if (replaceUrl) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route();
}

async function showDetail(id) {
  listView.hidden = true;
  detailView.hidden = false;
  replace(detailView, h("p", { class: "muted" }, "加载中…"));
  try {
    const me = await meReady;
    const [creative, audit] = await Promise.all([getCreative(id), getAudit(id).catch(() => null)]);
    renderDetail(detailView, creative, { listUrl: lastListUrl, audit: audit ? itemsOf(audit) : null, me });
    document.title = `${creative.title || `作品 #${creative.id}`} · 内容工坊`;
    detailView.querySelector("h1")?.focus();
  } catch (err) {
    const d = describeError(err);
    replace(detailView,
      h("div", { class: "alert error", role: "alert" }, h("strong", {}, d.title), ...d.lines.map((l) => h("div", {}, l))),
      h("a", { href: "/creatives", class: "btn", dataset: { nav: "list" } }, "← 返回作品库"));
  }
}

function route() {
  const match = /^\/creatives\/(\d+)\/?$/.exec(location.pathname);
  if (match) return showDetail(match[1]);
  detailView.hidden = true;
  listView.hidden = false;
  document.title = "作品库 · 内容工坊";
  readUrl();
  lastListUrl = `${location.pathname}${location.search}`;
  return loadList();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const { filters, error, control } = formFilters();
  if (error) {
    replace(listError, h("strong", {}, error));
    listError.hidden = false;
    control.setAttribute("aria-invalid", "true");
    control.focus();
    return;
  }
  state = { ...state, filters, offset: 0 };
  navigate(urlFor(), { replace: true });
});
// 重置 clears every filter from the form *and* the address (q, status, tag, dates, score, sort, page), so a
// reload or a shared link shows the whole list; done by hand rather than after the form's own reset so no
// stale value can be read back from the URL in between
form.addEventListener("reset", (event) => {
  event.preventDefault();
  for (const key of FILTERS) form.elements[key].value = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  listError.hidden = true;
  state = { filters: {}, sort: "-created", offset: 0 };
  lastListUrl = "/creatives";
  navigate("/creatives", { replace: true });
});
form.elements.status.addEventListener("change", () => form.requestSubmit());

for (const th of document.querySelectorAll("th[data-sort]")) {
  th.querySelector("button").addEventListener("click", () => {
    const key = th.dataset.sort;
    const current = state.sort.replace(/^-/, "");
    const descending = state.sort.startsWith("-");
    // first click: titles A→Z, scores and dates high/new first; second click flips
    const sort = current === key ? (descending ? key : `-${key}`) : key === "title" ? key : `-${key}`;
    state = { ...state, sort, offset: 0 };
    navigate(urlFor(), { replace: true });
  });
}
$("#prev-page").addEventListener("click", () => {
  state = { ...state, offset: Math.max(0, state.offset - PAGE) };
  navigate(urlFor(), { replace: true });
});
$("#next-page").addEventListener("click", () => {
  state = { ...state, offset: state.offset + PAGE };
  navigate(urlFor(), { replace: true });
});

// in-page navigation between the list and the detail view (plain links still work without JS)
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-nav]");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);

route();
