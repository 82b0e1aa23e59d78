// The post as a reader sees it on a phone: a phone-sized screen with the images as a swipeable carousel
// (cover first, "1/N"), the title (cut where the platform cuts it), the body with its line breaks, the tags
// as blue "#话题" links after the body, the date line and the comment bar. Used by the studio's run view
// (following the draft, the checkpoint editor and the images as they arrive) and the creative's detail page.

import { card, charCount, clear, h, s, TITLE_LIMIT } from "./dom.js";

/** The first `limit` characters of a title as charCount counts them (an emoji stays whole). */
function cutTitle(title, limit) {
  const out = [];
  let n = 0;
  for (const ch of String(title || "").trim()) {
    const joiner = /[\ufe0e\ufe0f\u20e3\u200d\u{1F3FB}-\u{1F3FF}]/u.test(ch) || out[out.length - 1] === "\u200d";
    if (!joiner) n += 1;
    if (n > limit) break;
    out.push(ch);
  }
  return out.join("");
}

function icon(path, label) {
  return h("span", { class: "pp-action" },
    s("svg", { viewBox: "0 0 24 24", width: "20", height: "20", "aria-hidden": "true" },
      s("path", { d: path, fill: "none", stroke: "currentColor", "stroke-width": "1.8", "stroke-linejoin": "round" })),
    label);
}

export const PHONE_WIDTH = 375; // CSS px of a common phone screen
const PHONE_OUTER = PHONE_WIDTH + 16; // with the frame (.phone's 8 px border on each side)

const HEART = "M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10z";
const STAR = "M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L12 16.9l-5.2 2.7 1-5.8-4.3-4.1 5.9-.9z";
const BUBBLE = "M4 5h16v11H9l-4 3.5V16H4z";

export class PhonePreview {
  constructor(target) {
    this.media = h("div", { class: "pp-media", tabindex: "0", "aria-label": "配图（左右滑动查看）" });
    this.index = h("span", { class: "pp-index", "aria-hidden": "true" });
    this.dots = h("div", { class: "pp-dots", "aria-hidden": "true" });
    this.title = h("h3", { class: "pp-title", dataset: { testid: "preview-title" } });
    this.body = h("div", { class: "pp-body", dataset: { testid: "preview-body" } });
    this.tags = h("p", { class: "pp-tags", dataset: { testid: "preview-tags" } });
    this.note = h("p", { class: "pp-note", role: "note", hidden: true });
    const now = new Date();
    const date = `编辑于 ${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
    this.node = h("div", { class: "phone-wrap" },
      h("div", { class: "phone", role: "group", "aria-label": "笔记在手机上的样子" },
        h("div", { class: "pp-status", "aria-hidden": "true" }, h("span", {}, "9:41"), h("span", {}, "●●●")),
        h("div", { class: "phone-screen" },
          h("div", { class: "pp-author", "aria-hidden": "true" },
            h("span", { class: "pp-back" }, "‹"), h("span", { class: "pp-avatar" }, "我"),
            h("span", { class: "pp-name" }, "我的账号"), h("span", { class: "pp-follow" }, "关注")),
          h("div", { class: "pp-media-wrap" }, this.media, this.index),
          this.dots,
          h("div", { class: "pp-text" }, this.title, this.body, this.tags, h("p", { class: "pp-date" }, date))),
        h("div", { class: "pp-bar", "aria-hidden": "true" },
          h("span", { class: "pp-say" }, "说点什么…"), icon(HEART, "赞"), icon(STAR, "收藏"), icon(BUBBLE, "评论"))),
      this.note);
    this.media.addEventListener("scroll", () => this.updateIndex(), { passive: true });
    target.append(this.node);
    // the screen is always a phone's width (PHONE_WIDTH CSS px), so the text wraps where it wraps on a
    // phone; a narrower column shows it scaled down whole rather than reflowed
    this.phone = this.node.querySelector(".phone");
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.fit()).observe(this.node);
    this.fit();
    this.urls = [];
    this.reset();
  }

  fit() {
    const room = this.node.clientWidth;
    if (!room) return;
    const scale = Math.min(1, room / PHONE_OUTER);
    this.phone.style.zoom = scale < 1 ? String(Math.floor(scale * 1000) / 1000) : "";
  }

  reset() {
    this.post = { title: "", body: "", tags: [] };
    this.setImages([]);
    this.setPost(this.post);
  }

  /** {title, body, tags} — the draft, or the checkpoint editor's current values. */
  setPost(post) {
    const title = String(post?.title || "").trim();
    const tags = (post?.tags || []).map((t) => String(t).replace(/^#/, "").trim()).filter(Boolean);
    this.post = { title, body: String(post?.body || ""), tags };
    const over = charCount(title) > TITLE_LIMIT;
    this.title.textContent = over ? `${cutTitle(title, TITLE_LIMIT)}…` : title;
    this.title.hidden = !title;
    // the platform keeps the writer's line breaks and blank lines as they are
    clear(this.body).append(...this.post.body.trim().split(/\n{2,}/).map((p) => h("p", {}, p.trim())).filter((p) => p.textContent));
    clear(this.tags).append(...tags.map((t) => h("span", { class: "pp-tag" }, `#${t}`)));
    this.tags.hidden = !tags.length;
    this.note.hidden = !over;
    this.note.textContent = over ? `标题有 ${charCount(title)} 个字，平台只显示前 ${TITLE_LIMIT} 个字。` : "";
    if (!this.urls.length) this.renderMedia();
  }

  /** Image URLs in post order (the cover first); none yet shows a text cover. */
  setImages(urls) {
    const list = (urls || []).filter(Boolean);
    if (list.length === this.urls.length && list.every((u, i) => u === this.urls[i])) return;
    this.urls = list;
    this.renderMedia();
  }

  renderMedia() {
    clear(this.media);
    clear(this.dots);
    if (!this.urls.length) {
      this.media.append(h("div", { class: "pp-slide pp-cover-placeholder" },
        h("strong", {}, this.post.title || "封面"), h("span", {}, "配图生成后，这里显示封面")));
      this.index.hidden = true;
      return;
    }
    this.urls.forEach((url, i) => {
      this.media.append(h("div", { class: "pp-slide" }, h("img", { src: url, alt: i === 0 ? "封面" : `第 ${i + 1} 张图`, loading: "lazy" })));
      this.dots.append(h("span", { class: "pp-dot" }));
    });
    this.index.hidden = this.urls.length < 2;
    this.media.scrollLeft = 0;
    this.updateIndex();
  }

  updateIndex() {
    const n = this.urls.length;
    if (!n) return;
    const i = Math.min(n - 1, Math.max(0, Math.round(this.media.scrollLeft / Math.max(1, this.media.clientWidth))));
    this.index.textContent = `${i + 1}/${n}`;
    [...this.dots.children].forEach((dot, k) => dot.classList.toggle("on", k === i));
  }
}

/** A "手机预览" card around a PhonePreview; returns {node, preview}. */
export function previewCard(id) {
  const { node, body } = card("手机预览", { id, cls: "preview-card" });
  body.prepend(h("p", { class: "muted pp-lead" }, "读者在手机上看到的样子"));
  return { node, preview: new PhonePreview(body) };
}
