// Who is logged in and what the account may do (`GET /api/me`), and the account corner of the top bar:
// the name and role, 我的账号, and 退出 — a real form POST to /logout carrying the session's CSRF secret.

import { h } from "./dom.js";

/** Whether the account may do `permission` (tools/accounts.py `Action`: start_run, inbox, stats, …). */
export function can(me, permission) {
  return Boolean(me && Array.isArray(me.permissions) && me.permissions.includes(permission));
}

/**
 * Whether the account may `verb` ("confirm" | "cancel") a run it can see, started by `startedBy`
 * (`user:<name>`, may be unknown). `_any` covers everyone's runs; `_own` one's own — and an account that
 * may not read everyone's runs only ever sees its own, so for it every visible run is its own.
 */
export function mayAct(me, verb, startedBy = null) {
  if (can(me, `${verb}_any`)) return true;
  if (!can(me, `${verb}_own`)) return false;
  return !can(me, "read_all") || startedBy === `user:${me.name}`;
}

/** An audit actor as people read it: `user:alice` → alice, `cli:root` → 命令行（root）, `system` → 系统. */
export function actorName(actor) {
  const text = String(actor || "");
  if (!text) return "未知";
  if (text === "system") return "系统";
  if (text.startsWith("user:")) return text.slice(5);
  if (text.startsWith("cli:")) return `命令行（${text.slice(4)}）`;
  return text;
}

/** Show the elements marked `data-permission="<action>"` (hidden in the HTML) to accounts that may. */
export function applyPermissions(me, root = document) {
  for (const node of root.querySelectorAll("[data-permission]")) node.hidden = !can(me, node.dataset.permission);
}

/** The top bar's account corner: who is logged in, a link to the account page, and the logout form. */
export function accountCorner(me) {
  const who = h("span", { class: "account-who", title: "当前登录的账号" },
    h("strong", { class: "account-name" }, me.name), " · ", h("span", { class: "account-role" }, me.roleLabel || "其他角色"));
  // a session has a CSRF secret; an API token (no session) has nothing to log out of
  const logout = me.csrfToken
    ? h("form", { class: "logout-form", method: "post", action: "/logout" },
      h("input", { type: "hidden", name: "csrf", value: me.csrfToken }),
      h("button", { type: "submit", class: "btn small ghost", dataset: { action: "logout" } }, "退出"))
    : null;
  return h("div", { class: "account", id: "account" },
    who, h("a", { class: "account-link", href: "/account" }, "我的账号"), logout);
}
