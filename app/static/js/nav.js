// Shared page chrome: the inbox count badge in the top navigation.

import { getInbox, itemsOf } from "./api.js";

export async function refreshInboxBadge() {
  const badge = document.getElementById("inbox-count");
  if (!badge) return;
  try {
    const count = itemsOf(await getInbox()).length;
    badge.textContent = String(count);
    badge.hidden = count === 0;
    badge.setAttribute("aria-label", `${count} 个待审核`);
  } catch {
    badge.hidden = true;
  }
}

export function initNav() {
  refreshInboxBadge();
  setInterval(() => {
    if (document.visibilityState === "visible") refreshInboxBadge();
  }, 20_000);
}
