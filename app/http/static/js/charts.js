// Summary charts as inline SVG (no libraries): creatives per day, score distribution per dimension,
// top tags. Every chart has a text alternative (aria-label + <title> per mark).

import { h, s } from "./dom.js";
import { DIMENSIONS, label as labelOf } from "./labels.js";

const BRAND = "#e8465b";
const OK = "#12805c";

function empty(text) {
  return h("p", { class: "muted empty-note" }, text);
}

/** perDay: [{date, count, completed}] → stacked bars (completed / other). */
export function perDayChart(perDay) {
  const days = (perDay || []).slice(-30);
  if (!days.length) return empty("暂无数据");
  const W = 360;
  const H = 170;
  const pad = { l: 28, r: 8, t: 10, b: 26 };
  const max = Math.max(1, ...days.map((d) => Number(d.count) || 0));
  const step = (W - pad.l - pad.r) / days.length;
  const bw = Math.max(2, Math.min(28, step * 0.7));
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const marks = days.map((d, i) => {
    const x = pad.l + i * step + (step - bw) / 2;
    const total = Number(d.count) || 0;
    const done = Math.min(total, Number(d.completed) || 0);
    return s("g", {},
      s("title", { text: `${d.date}：共 ${total} 篇，完成 ${done} 篇` }),
      s("rect", { x, y: y(total), width: bw, height: Math.max(0, y(0) - y(total)), rx: 2, fill: "#f5b3bd" }),
      s("rect", { x, y: y(done), width: bw, height: Math.max(0, y(0) - y(done)), rx: 2, fill: BRAND }));
  });
  const every = Math.ceil(days.length / 6);
  const labels = days.map((d, i) => (i % every === 0 || i === days.length - 1
    ? s("text", { x: pad.l + i * step + step / 2, y: H - 8, "text-anchor": "middle", text: String(d.date).slice(5) })
    : null));
  const total = days.reduce((n, d) => n + (Number(d.count) || 0), 0);
  return h("div", {},
    s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `最近 ${days.length} 天共 ${total} 篇创作` },
      s("line", { class: "axis", x1: pad.l, x2: W - pad.r, y1: y(0), y2: y(0) }),
      s("text", { x: pad.l - 6, y: y(max) + 4, "text-anchor": "end", text: String(max) }),
      s("text", { x: pad.l - 6, y: y(0) + 4, "text-anchor": "end", text: "0" }),
      ...marks, ...labels),
    h("div", { class: "chart-legend" },
      h("span", {}, h("span", { class: "legend-dot", style: { backgroundColor: BRAND } }), "已完成"),
      h("span", {}, h("span", { class: "legend-dot", style: { backgroundColor: "#f5b3bd" } }), "其他状态")));
}

/**
 * scoreDistribution: {bucketEdges: [0, .1, … 1], counts: {dim: [n × 10]}} → one histogram per dimension
 * (small multiples on one count scale): how many creatives scored in each 0.1-wide band, the count written
 * over every non-empty bar, the average only as a side note — the chart is the spread, not the mean.
 */
export function scoreDistributionChart(distribution, averages = {}) {
  const counts = distribution?.counts || {};
  const keys = ["overall", ...Object.keys(DIMENSIONS), ...Object.keys(counts)]
    .filter((k, i, all) => all.indexOf(k) === i && Array.isArray(counts[k]) && counts[k].length);
  if (!keys.length || keys.every((k) => counts[k].every((n) => !Number(n)))) return empty("暂无评分数据");
  const edges = distribution.bucketEdges || Array.from({ length: counts[keys[0]].length + 1 }, (_, i) => i / counts[keys[0]].length);
  const max = Math.max(1, ...keys.flatMap((k) => counts[k].map(Number)));
  const charts = keys.map((key) => histogram(key, counts[key].map((n) => Number(n) || 0), edges, max, averages?.[key]));
  return h("div", { class: "hist-block" },
    h("div", { class: "hist-grid" }, charts),
    h("p", { class: "chart-legend" }, `横轴：分数（0–1，每 ${fmtEdge(edges[1] - edges[0])} 一段）；柱上数字：该分数段的作品数`));
}

const fmtEdge = (v) => (Math.round(Number(v) * 100) / 100).toString();

function histogram(key, bins, edges, max, avg) {
  const name = labelOf("dimension", key);
  const total = bins.reduce((a, b) => a + b, 0);
  const W = 200;
  const H = 96;
  const pad = { l: 4, r: 4, t: 14, b: 16 };
  const step = (W - pad.l - pad.r) / bins.length;
  const base = H - pad.b;
  const bars = bins.map((n, i) => {
    const bh = (base - pad.t) * (n / max);
    const x = pad.l + i * step;
    const range = `${fmtEdge(edges[i])}–${fmtEdge(edges[i + 1] ?? 1)}`;
    return s("g", {},
      s("title", { text: `${name} ${range} 分：${n} 篇` }),
      s("rect", { class: "hist-bar", x: x + 1, y: base - bh, width: step - 2, height: bh, rx: 1.5,
        "data-count": n, "data-range": range, fill: key === "overall" ? BRAND : OK }),
      n ? s("text", { class: "hist-count", x: x + step / 2, y: base - bh - 3, "text-anchor": "middle", text: String(n) }) : null);
  });
  const avgText = typeof avg === "number" ? `均值 ${avg.toFixed(2)}` : "";
  return h("figure", { class: "histogram", dataset: { dim: key } },
    h("figcaption", {}, h("strong", {}, name), h("span", { class: "muted" }, [`${total} 篇`, avgText].filter(Boolean).join(" · "))),
    s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `${name}的评分分布：${bins.map((n, i) => (n ? `${fmtEdge(edges[i])}–${fmtEdge(edges[i + 1] ?? 1)} 分 ${n} 篇` : null)).filter(Boolean).join("，") || "无数据"}` },
    s("line", { class: "axis", x1: pad.l, x2: W - pad.r, y1: base + 0.5, y2: base + 0.5 }),
    ...bars,
    s("text", { x: pad.l, y: H - 3, text: "0" }),
    s("text", { x: W / 2, y: H - 3, "text-anchor": "middle", text: "0.5" }),
    s("text", { x: W - pad.r, y: H - 3, "text-anchor": "end", text: "1" })));
}

/** topTags: [{tag, count}] → horizontal bars. */
export function topTagsChart(tags, { onPick } = {}) {
  const top = (tags || []).slice(0, 10);
  if (!top.length) return empty("暂无标签");
  const W = 360;
  const rowH = 22;
  const labelW = 110;
  const H = top.length * rowH + 4;
  const max = Math.max(1, ...top.map((t) => Number(t.count) || 0));
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `热门标签：${top.map((t) => `${t.tag} ${t.count}`).join("，")}` },
  ...top.map((t, i) => {
    const y = i * rowH + 2;
    const bw = (W - labelW - 36) * ((Number(t.count) || 0) / max);
    const name = String(t.tag);
    return s("g", {},
      s("title", { text: `#${name}：${t.count} 篇` }),
      s("text", { x: labelW - 8, y: y + rowH / 2 + 4, "text-anchor": "end", text: name.length > 8 ? `${name.slice(0, 8)}…` : name }),
      s("rect", { x: labelW, y: y + 4, width: Math.max(2, bw), height: rowH - 8, rx: 3, fill: "#7da6e8" }),
      s("text", { x: labelW + bw + 6, y: y + rowH / 2 + 4, text: String(t.count) }));
  }));
  if (!onPick) return svg;
  // the bars are decorative for keyboards; offer the same tags as buttons to filter by
  return h("div", {}, svg, h("div", { class: "chips tag-picks" }, top.map((t) =>
    h("button", { type: "button", class: "chip chip-tag", onclick: () => onPick(String(t.tag)), "aria-label": `按标签「${t.tag}」筛选` },
      `#${t.tag}`))));
}
