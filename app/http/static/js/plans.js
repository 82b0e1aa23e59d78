// Editing image plans at the `image_plans` checkpoint: change role/subject/prompt, reorder, delete.
// The server renumbers the plans 1..N in the order sent.

import { clear, h } from "./dom.js";
import { label } from "./labels.js";

const IMAGE_ROLES = ["cover", "detail", "result"]; // agents/artifacts.ImageRole

let uid = 0;

export function planEditor(initial) {
  // working copies; `prompt` is what the image model gets, so that is what the editor edits
  let plans = initial.map((p) => ({ ...p, prompt: p.prompt || p.basePrompt || "" }));
  const list = h("ol", { class: "plan-editor", "aria-label": "配图规划（可编辑）" });
  const live = h("div", { class: "sr-only", "aria-live": "polite" });
  const node = h("div", { class: "cp-edit" },
    h("p", { class: "muted" }, "可修改每张图的类型、主体和提示词，也可以调整顺序或删除（至少保留 1 张）。"), list, live);

  function move(from, to, focusAction) {
    if (to < 0 || to >= plans.length) return;
    sync();
    const [item] = plans.splice(from, 1);
    plans.splice(to, 0, item);
    render();
    live.textContent = `已将图片移动到第 ${to + 1} 位`;
    list.children[to]?.querySelector(`[data-action="${focusAction}"]:not([disabled])`)?.focus()
      || list.children[to]?.querySelector("input")?.focus();
  }

  function remove(index) {
    if (plans.length <= 1) return;
    sync();
    plans.splice(index, 1);
    render();
    live.textContent = `已删除，剩余 ${plans.length} 张`;
    (list.children[Math.min(index, plans.length - 1)]?.querySelector("input"))?.focus();
  }

  // read the form back into `plans` (before re-rendering or submitting)
  function sync() {
    [...list.children].forEach((li, i) => {
      plans[i] = {
        ...plans[i],
        role: li.querySelector("select").value,
        subject: li.querySelector("input").value,
        prompt: li.querySelector("textarea").value,
      };
    });
  }

  function render() {
    clear(list);
    plans.forEach((plan, i) => {
      const id = `plan-${++uid}`;
      const role = h("select", { id: `${id}-role`, name: "role" },
        IMAGE_ROLES.map((value) => h("option", { value, selected: plan.role === value }, label("role", value))));
      const subject = h("input", { id: `${id}-subject`, type: "text", value: plan.subject || "", maxlength: "200", name: "subject" });
      const prompt = h("textarea", { id: `${id}-prompt`, rows: "3", value: plan.prompt || "", maxlength: "1200", name: "prompt" });
      const n = i + 1;
      list.append(h("li", { class: "plan plan-edit", dataset: { index: String(n) } },
        h("div", { class: "plan-head" },
          h("strong", {}, `图${n}`),
          h("div", { class: "plan-tools" },
            h("button", { type: "button", class: "btn small ghost", dataset: { action: "up" }, disabled: i === 0,
              "aria-label": `上移图${n}`, onclick: () => move(i, i - 1, "up") }, "↑ 上移"),
            h("button", { type: "button", class: "btn small ghost", dataset: { action: "down" }, disabled: i === plans.length - 1,
              "aria-label": `下移图${n}`, onclick: () => move(i, i + 1, "down") }, "↓ 下移"),
            h("button", { type: "button", class: "btn small danger", dataset: { action: "delete" }, disabled: plans.length <= 1,
              "aria-label": `删除图${n}`, onclick: () => remove(i) }, "删除"))),
        h("div", { class: "plan-fields" },
          h("div", { class: "field" }, h("label", { for: role.id }, "类型"), role),
          h("div", { class: "field grow" }, h("label", { for: subject.id }, "主体"), subject)),
        h("div", { class: "field" }, h("label", { for: prompt.id }, "提示词"), prompt)));
    });
  }

  render();
  return {
    node,
    value() {
      sync();
      for (let i = 0; i < plans.length; i += 1) {
        const li = list.children[i];
        if (!plans[i].subject.trim()) return { error: `图${i + 1} 的主体不能为空。`, control: li.querySelector("input") };
        if (!plans[i].prompt.trim()) return { error: `图${i + 1} 的提示词不能为空。`, control: li.querySelector("textarea") };
      }
      return {
        plans: plans.map((p, i) => ({ ...p, index: i + 1, subject: p.subject.trim(), prompt: p.prompt.trim() })),
      };
    },
  };
}
