// The HTTP API (docs/protocol.md): JSON calls and the error body `{"error": {code, message, details}}`.
// The studio is logged in with the session cookie: every state-changing call sends the session's CSRF
// secret (`X-CSRF-Token`, from `GET /api/me`), and a 401 means the session is gone — back to the login page.

export class ApiError extends Error {
  constructor(status, code, message, details = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const STATUS_TEXT = {
  400: "请求格式有误",
  401: "需要登录",
  403: "没有权限",
  404: "找不到对应内容",
  409: "状态冲突",
  413: "内容太大",
  422: "输入未通过校验",
  429: "请求过于频繁",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Go to the login page; once logged in, the server brings the user back here. */
export function toLogin() {
  const here = `${location.pathname}${location.search}${location.hash}`;
  location.assign(`/login?next=${encodeURIComponent(here)}`);
}

/** Turn a non-2xx response into an ApiError, reading the protocol's error body when there is one.
 * A 401 (not logged in, or the session ended) also sends the page to the login form. */
export async function errorFrom(response) {
  if (response.status === 401) toLogin();
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const err = body && typeof body === "object" ? body.error : null;
  if (err && typeof err === "object") {
    return new ApiError(response.status, String(err.code || "ERROR"), String(err.message || ""), err.details ?? null);
  }
  return new ApiError(response.status, `HTTP_${response.status}`, STATUS_TEXT[response.status] || "服务器出错了");
}

export function networkError(cause) {
  const err = new ApiError(0, "NETWORK", "无法连接到服务器，请检查服务是否在运行");
  err.cause = cause;
  return err;
}

function detailLines(details) {
  if (!details) return [];
  if (Array.isArray(details)) {
    return details.slice(0, 5).map((d) => {
      if (d && typeof d === "object") {
        const where = Array.isArray(d.loc) ? d.loc.join(".") : d.field || d.path || "";
        const msg = d.msg || d.message || JSON.stringify(d);
        return where ? `${where}：${msg}` : String(msg);
      }
      return String(d);
    });
  }
  if (typeof details === "object") {
    return Object.entries(details)
      .slice(0, 5)
      .map(([k, v]) => `${k}：${typeof v === "object" ? JSON.stringify(v) : v}`);
  }
  return [String(details)];
}

/** A refusal in words: what the account may not do (the server's message already says it in Chinese),
 * or a stale page (the CSRF secret or the page's origin did not match). */
function describeForbidden(error) {
  const reason = error.details && error.details.reason;
  if (reason === "csrf" || reason === "origin") {
    return { title: "页面已过期或来源不对，请刷新页面后重试", code: error.code, lines: [] };
  }
  const message = error.message || "你的账号不能进行这个操作";
  return { title: message.startsWith("没有权限") ? message : `没有权限：${message}`, code: error.code, lines: [] };
}

/** A readable, Chinese-first description of any error (for alerts and toasts). */
export function describeError(error) {
  if (error instanceof ApiError && error.status === 403) return describeForbidden(error);
  if (error instanceof ApiError && error.status === 401) {
    return { title: "登录已失效，正在前往登录页…", code: error.code, lines: [] };
  }
  if (error instanceof ApiError) {
    const lead = error.status ? STATUS_TEXT[error.status] || `请求失败（${error.status}）` : "连接失败";
    const main = error.message && error.message !== lead ? `${lead}：${error.message}` : lead;
    return { title: main, code: error.code, lines: detailLines(error.details) };
  }
  return { title: `出错了：${error && error.message ? error.message : String(error)}`, code: null, lines: [] };
}

export async function request(path, { method = "GET", body, signal, headers = {} } = {}) {
  let response;
  const csrf = SAFE_METHODS.has(method) ? {} : await csrfHeaders();
  try {
    response = await fetch(path, {
      method,
      signal,
      headers: {
        Accept: "application/json",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...csrf,
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch (cause) {
    if (cause && cause.name === "AbortError") throw cause;
    throw networkError(cause);
  }
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return null;
  return response.json();
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value === null || value === undefined || value === "") continue;
    q.set(key, String(value));
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

// ---- who is logged in ----------------------------------------------------------------------------

let mePromise = null;

/** `GET /api/me` once per page: `{name, role, roleLabel, via, permissions, csrfToken}`. */
export function getMe() {
  if (!mePromise) {
    mePromise = request("/api/me").catch((err) => {
      mePromise = null; // a later call may try again
      throw err;
    });
  }
  return mePromise;
}

/** The header a state-changing call carries: the session's CSRF secret (none for a token-only principal,
 * or when /api/me cannot be read — the call itself then says what is wrong). */
export async function csrfHeaders() {
  try {
    const { csrfToken } = await getMe();
    return csrfToken ? { "X-CSRF-Token": csrfToken } : {};
  } catch {
    return {};
  }
}

export const getThread = (threadId) => request(`/api/agent/threads/${encodeURIComponent(threadId)}`);
export const cancelThread = (threadId) =>
  request(`/api/agent/threads/${encodeURIComponent(threadId)}/cancel`, { method: "POST", body: {} });
export const getInbox = () => request("/api/agent/inbox");
export const listCreatives = (params) => request(`/api/creatives${query(params)}`);
export const getCreative = (id) => request(`/api/creatives/${encodeURIComponent(id)}`);
export const getStats = (params) => request(`/api/creatives/stats${query(params)}`);
export const getAudit = (id) => request(`/api/creatives/${encodeURIComponent(id)}/audit`);
export const exportUrl = (params) => `/api/creatives/export.csv${query(params)}`;

/** Items of a list response, tolerating `{items}`, `{creatives}` or a bare array. */
export function itemsOf(payload) {
  if (Array.isArray(payload)) return payload;
  if (payload && Array.isArray(payload.items)) return payload.items;
  if (payload && Array.isArray(payload.creatives)) return payload.creatives;
  return [];
}
