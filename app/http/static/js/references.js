// Reference images: drag & drop or file picker → data URLs, with previews, type and size checks.
// Large photos are downscaled in the browser so a request stays well under the server's body limit.

import { clear, h, safeUrl } from "./dom.js";
import { REF_TYPES } from "./labels.js";

export const MAX_IMAGES = 6;
export const MAX_BYTES = 10 * 1024 * 1024; // the server's per-image limit
const COMPRESS_ABOVE = 2 * 1024 * 1024;
const MAX_SIDE = 2048;
const ACCEPTED = ["image/png", "image/jpeg", "image/webp", "image/gif"];

const fmtSize = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`);

function readAsDataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error || new Error("read failed"));
    reader.readAsDataURL(blob);
  });
}

async function decodes(dataUrl) {
  const img = new Image();
  img.src = dataUrl;
  try {
    await img.decode();
    return img.naturalWidth > 0;
  } catch {
    return false;
  }
}

async function shrink(file) {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close?.();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.88));
  return blob ? { dataUrl: await readAsDataUrl(blob), size: blob.size } : null;
}

export class ReferencePicker {
  constructor({ dropzone, input, list, onError }) {
    this.items = [];
    this.list = list;
    this.onError = onError;
    this.seq = 0;
    this.input = input;
    dropzone.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      this.add([...input.files]);
      input.value = "";
    });
    for (const type of ["dragenter", "dragover"]) {
      dropzone.addEventListener(type, (e) => {
        e.preventDefault();
        dropzone.classList.add("dragging");
      });
    }
    for (const type of ["dragleave", "drop"]) {
      dropzone.addEventListener(type, () => dropzone.classList.remove("dragging"));
    }
    dropzone.addEventListener("drop", (e) => {
      e.preventDefault();
      this.add([...(e.dataTransfer?.files || [])]);
    });
  }

  async add(files) {
    const problems = [];
    for (const file of files) {
      if (this.items.length >= MAX_IMAGES) {
        problems.push(`最多添加 ${MAX_IMAGES} 张参考图，已忽略「${file.name}」`);
        continue;
      }
      if (!ACCEPTED.includes(file.type)) {
        problems.push(`「${file.name}」不是支持的图片格式（PNG / JPEG / WebP / GIF）`);
        continue;
      }
      if (file.size > MAX_BYTES) {
        problems.push(`「${file.name}」太大（${fmtSize(file.size)}），单张不超过 ${fmtSize(MAX_BYTES)}`);
        continue;
      }
      try {
        let dataUrl;
        let size = file.size;
        if (file.size > COMPRESS_ABOVE && file.type !== "image/gif") {
          const small = await shrink(file);
          if (small) ({ dataUrl, size } = small);
        }
        dataUrl = dataUrl || (await readAsDataUrl(file));
        if (!safeUrl(dataUrl) || !(await decodes(dataUrl))) throw new Error("not an image");
        this.items.push({ id: ++this.seq, name: file.name, size, dataUrl, type: "style" });
      } catch {
        problems.push(`「${file.name}」无法识别为图片，可能已损坏`);
      }
    }
    this.render();
    this.onError(problems);
  }

  remove(id) {
    this.items = this.items.filter((i) => i.id !== id);
    this.render();
  }

  clear() {
    this.items = [];
    this.render();
  }

  value() {
    return this.items.map((i) => ({ data: i.dataUrl, type: i.type }));
  }

  render() {
    clear(this.list);
    this.items.forEach((item, n) => {
      const selectId = `ref-type-${item.id}`;
      const select = h("select", { id: selectId, onchange: (e) => { item.type = e.target.value; } },
        Object.entries(REF_TYPES).map(([value, label]) => h("option", { value, selected: item.type === value }, label)));
      this.list.append(h("li", { class: "ref-item", dataset: { ref: String(item.id) } },
        h("img", { src: safeUrl(item.dataUrl), alt: `参考图 ${n + 1}：${item.name}`, class: "ref-thumb" }),
        h("div", { class: "ref-info" },
          h("span", { class: "ref-name", title: item.name }, item.name),
          h("span", { class: "muted" }, fmtSize(item.size)),
          h("label", { for: selectId, class: "sr-only" }, `参考图 ${n + 1} 的用途`), select),
        h("button", { type: "button", class: "btn small ghost", "aria-label": `移除参考图 ${n + 1}`,
          onclick: () => this.remove(item.id) }, "移除")));
    });
  }
}
