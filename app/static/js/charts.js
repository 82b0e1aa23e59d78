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

/** scoreDistribution: {bucketEdges: [0, .1, … 1], counts: {dim: [n × 10]}} → one mini histogram per dimension. */
export function scoreDistributionChart(distribution, averages = {}) {
  const counts = distribution?.counts || {};
  const keys = ["overall", ...Object.keys(DIMENSIONS)].filter((k) => Array.isArray(counts[k]));
  if (!keys.length || keys.every((k) => counts[k].every((n) => !n))) return empty("暂无评分数据");
  const edges = distribution.bucketEdges || Array.from({ length: 11 }, (_, i) => i / 10);
  const max = Math.max(1, ...keys.flatMap((k) => counts[k]));
  const W = 360;
  const rowH = 24;
  const labelW = 74;
  const avgW = 40;
  const H = keys.length * rowH + 18;
  const bins = counts[keys[0]].length;
  const step = (W - labelW - avgW) / bins;
  const rows = keys.map((key, r) => {
    const top = r * rowH + 2;
    const label = labelOf("dimension", key);
    const avg = averages?.[key];
    return s("g", {},
      s("text", { x: 0, y: top + rowH / 2 + 2, text: label }),
      ...counts[key].map((n, i) => {
        const bh = (rowH - 6) * (n / max);
        return s("g", {},
          s("title", { text: `${label} ${Number(edges[i]).toFixed(1)}–${Number(edges[i + 1] ?? 1).toFixed(1)}：${n} 篇` }),
          s("rect", { x: labelW + i * step + 1, y: top + rowH - 4 - bh, width: step - 2, height: Math.max(n ? 1.5 : 0, bh),
            rx: 1.5, fill: key === "overall" ? BRAND : OK, opacity: n ? 0.85 : 0 }),
          s("rect", { x: labelW + i * step + 1, y: top + rowH - 4, width: step - 2, height: 1, fill: "#e4e7ec" }));
      }),
      s("text", { x: W, y: top + rowH / 2 + 2, "text-anchor": "end", text: typeof avg === "number" ? avg.toFixed(2) : "—" }));
  });
  const axisY = keys.length * rowH + 12;
  return s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `各维度评分分布（0 到 1 分成 ${bins} 段），右侧为平均分` },
    ...rows,
    s("text", { x: labelW, y: axisY, text: "0" }),
    s("text", { x: labelW + (W - labelW - avgW) / 2, y: axisY, "text-anchor": "middle", text: "0.5" }),
    s("text", { x: W - avgW, y: axisY, "text-anchor": "end", text: "1" }),
    s("text", { x: W, y: axisY, "text-anchor": "end", text: "均值" }));
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
