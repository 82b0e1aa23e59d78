// Shared page chrome: the account corner, the navigation links the account may use, and the inbox count
// badge (polled only for accounts that have an inbox — anyone else would only collect 403s).

import { describeError, getInbox, getMe, itemsOf } from "./api.js";
import { accountCorner, applyPermissions, can } from "./account.js";
import { toast } from "./dom.js";

let badgeAllowed = false;

export async function refreshInboxBadge() {
  const badge = document.getElementById("inbox-count");
  if (!badge || !badgeAllowed) return;
  try {
    const count = itemsOf(await getInbox()).length;
    badge.textContent = String(count);
    badge.hidden = count === 0;
    badge.setAttribute("aria-label", `${count} 个待审核`);
  } catch {
    badge.hidden = true;
  }
}

/** Set up the chrome for the logged-in account; resolves with `/api/me` (null if it could not be read:
 * then only what needs no permission is shown). */
export async function initNav() {
  let me = null;
  try {
    me = await getMe();
  } catch (err) {
    if (err?.status !== 401) toast(`无法读取登录信息：${describeError(err).title}`, "error", 8000); // 401: off to log in
  }
  applyPermissions(me);
  if (me) document.querySelector(".topbar")?.append(accountCorner(me));
  document.body.dataset.role = me?.role || "";
  badgeAllowed = can(me, "inbox");
  if (badgeAllowed) {
    refreshInboxBadge();
    setInterval(() => {
      if (document.visibilityState === "visible") refreshInboxBadge();
    }, 20_000);
  }
  return me;
}
