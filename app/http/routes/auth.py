"""Logging in and out, and who you are: the login page, the one-time login link, the account page.

- `GET /login` — the login form (already logged in: straight on to `next`); `GET /login?token=…` redeems a
  one-time login link (what a first start prints) and goes on to the studio.
- `POST /login` — the form (`name`, `password`, `csrf`, `next`), URL-encoded. The form's CSRF value is a
  double-submit cookie (`studio_login_csrf`) set with the page; a wrong password re-shows the form (401),
  too many attempts answer 429 with `Retry-After`.
- `POST /logout` — the session's form (`csrf` = the session's CSRF secret); ends the session.
- `GET /account`, `POST /account/password` — change one's password (the current one is checked as a login).
- `GET /api/me` — `{"userId", "name", "role", "roleLabel", "via", "permissions", "csrfToken"}`: the web
  studio's header; `csrfToken` is what cookie-authenticated API calls send as `X-CSRF-Token`.

The pages are rendered here (they carry per-request CSRF values), in the studio's own stylesheet, with no
script at all.
"""

from __future__ import annotations

import hmac
import secrets
from html import escape
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from app.http.auth import (
    SESSION_COOKIE,
    accounts_of,
    client_address,
    cookie_options,
    media_type,
    principal_of,
    safe_next,
    session_of,
)
from app.http.request import settings_of
from app.http.web import PAGE_HEADERS
from tools.accounts import (
    PASSWORD_MIN,
    Action,
    InvalidAccount,
    LoginFailed,
    LoginThrottled,
    Principal,
    UserNotFound,
)
from tools.labels import label

LOGIN_CSRF_COOKIE = "studio_login_csrf"
FORM_LIMIT = 16 * 1024
PAGE_NO_STORE = {**PAGE_HEADERS, "Cache-Control": "no-store"}


async def read_form(request: Request) -> dict[str, str] | None:
    """A URL-encoded form's fields (the first value of each); None when the body is not such a form or is
    over 16 KB."""
    if media_type(request.headers) != "application/x-www-form-urlencoded":
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_LIMIT:
            return None
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return None
    fields: dict[str, str] = {}
    for key, value in pairs:
        fields.setdefault(key, value)
    return fields


def _page(title: str, body: str, *, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    html = f"""<!doctype html>
<html lang="zh-CN">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{escape(title)} · 内容工坊</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/css/app.css">
</head>
<body data-page="login">
  <header class="topbar">
    <a class="brand" href="/"><img src="/static/favicon.svg" alt="" width="28" height="28">内容工坊</a>
  </header>
  <main id="main" class="page auth-page">
{body}
  </main>
</body>
</html>
"""
    return HTMLResponse(html, status_code=status, headers={**PAGE_NO_STORE, **(headers or {})})


def _alert(message: str | None) -> str:
    return f'    <div class="alert error" role="alert">{escape(message)}</div>\n' if message else ""


def _login_page(
    request: Request, *, error: str | None = None, name: str = "", next_path: str = "/", status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    body = f"""    <form class="card auth-card" method="post" action="/login">
      <h1>登录内容工坊</h1>
{_alert(error)}      <input type="hidden" name="csrf" value="{escape(token)}">
      <input type="hidden" name="next" value="{escape(next_path)}">
      <label class="field"><span>用户名</span>
        <input name="name" autocomplete="username" required maxlength="64" value="{escape(name)}" autofocus>
      </label>
      <label class="field"><span>密码</span>
        <input name="password" type="password" autocomplete="current-password" required maxlength="1024">
      </label>
      <button type="submit" class="btn primary">登录</button>
      <p class="muted small">第一次使用？启动服务时终端里打印了一次性登录链接；
        也可以用 <code>studio users add 名字 --role creator</code> 添加账号。</p>
    </form>"""
    response = _page("登录", body, status=status, headers=headers)
    response.set_cookie(
        LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/login",
        secure=request.url.scheme == "https", max_age=3600,
    )
    return response


def _logged_in(request: Request, cookie: str, target: str) -> Response:
    response = RedirectResponse(safe_next(target), status_code=303)
    response.set_cookie(SESSION_COOKIE, cookie, **cookie_options(request, settings_of(request)))
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
    return response


async def login_page(request: Request) -> Response:
    """GET /login — the form, or a one-time link redeemed (`?token=`)."""
    target = safe_next(request.query_params.get("next"))
    link = request.query_params.get("token")
    accounts = accounts_of(request)
    if link:
        redeemed = await accounts.redeem_login_link(link, address=client_address(request))
        if redeemed is None:
            return _login_page(
                request, error="登录链接无效、已过期或已经用过。重启服务会打印新的链接，或用账号密码登录。",
                next_path=target, status=401,
            )
        cookie, _, _ = redeemed
        return _logged_in(request, cookie, target)
    if request.scope.get("user") is not None:
        return RedirectResponse(target, status_code=303)
    return _login_page(request, next_path=target)


async def login_submit(request: Request) -> Response:
    """POST /login — check the form and the password; a session cookie and on to `next`."""
    form = await read_form(request)
    if form is None:
        return _login_page(request, error="登录表单格式不对，请在本页重新登录。", status=400)
    target = safe_next(form.get("next"))
    name = form.get("name", "")[:64]
    cookie_token = request.cookies.get(LOGIN_CSRF_COOKIE, "")
    sent = form.get("csrf", "")
    if not cookie_token or not hmac.compare_digest(cookie_token.encode(), sent.encode()):
        return _login_page(request, error="页面已过期，请重新登录。", name=name, next_path=target, status=403)
    accounts = accounts_of(request)
    address = client_address(request)
    try:
        principal = await accounts.verify_password(name, form.get("password", ""), address)
    except LoginThrottled as exc:
        return _login_page(request, error=exc.message, name=name, next_path=target, status=429,
                           headers={"Retry-After": str(exc.details["retryAfter"])})
    except LoginFailed:
        return _login_page(request, error="用户名或密码不正确。", name=name, next_path=target, status=401)
    cookie, _ = await accounts.create_session(principal.name, address=address)
    return _logged_in(request, cookie, target)


async def logout(request: Request) -> Response:
    """POST /logout — end the session (its CSRF value in the form) and go to the login page."""
    session = session_of(request)
    form = await read_form(request)
    if session is None:
        return RedirectResponse("/login", status_code=303)
    if form is None or not session.check_csrf(form.get("csrf")):
        return _page("退出登录", _alert("页面已过期，请回到工作台再点一次「退出」。"), status=403)
    cookie = request.cookies.get(SESSION_COOKIE, "")
    await accounts_of(request).end_session(cookie, address=client_address(request))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def _account_page(request: Request, principal: Principal, *, message: str | None = None,
                  error: str | None = None, status: int = 200) -> Response:
    session = session_of(request)
    csrf = session.csrf_secret if session else ""
    done = f'    <div class="alert success" role="status">{escape(message)}</div>\n' if message else ""
    body = f"""    <form class="card auth-card" method="post" action="/account/password">
      <h1>我的账号</h1>
      <p>{escape(principal.name)} · {escape(label("accountRole", principal.role.value))}</p>
{done}{_alert(error)}      <input type="hidden" name="csrf" value="{escape(csrf)}">
      <label class="field"><span>当前密码（还没有设置过密码就留空）</span>
        <input name="current" type="password" autocomplete="current-password" maxlength="1024">
      </label>
      <label class="field"><span>新密码（至少 {PASSWORD_MIN} 个字符）</span>
        <input name="password" type="password" autocomplete="new-password" required minlength="{PASSWORD_MIN}"
               maxlength="1024">
      </label>
      <button type="submit" class="btn primary">修改密码</button>
      <p><a href="/">返回工作台</a></p>
    </form>"""
    return _page("我的账号", body, status=status)


async def account_page(request: Request) -> Response:
    """GET /account — who you are, and the password form."""
    return _account_page(request, principal_of(request))


async def change_password(request: Request) -> Response:
    """POST /account/password — the form; the current password is checked (throttled) when one is set."""
    principal = principal_of(request)
    session = session_of(request)
    form = await read_form(request)
    if session is None or form is None or not session.check_csrf(form.get("csrf")):
        return _account_page(request, principal, error="页面已过期，请刷新后重试。", status=403)
    accounts = accounts_of(request)
    user = await accounts.get_user(principal.name)
    current = form.get("current") or None
    if user is not None and user.has_password and current is None:
        return _account_page(request, principal, error="请输入当前密码。", status=422)
    try:
        await accounts.change_password(
            principal.name, form.get("password", ""), actor=principal.actor, address=client_address(request),
            current_password=current if user is not None and user.has_password else None,
            keep_session=request.cookies.get(SESSION_COOKIE),
        )
    except InvalidAccount as exc:
        return _account_page(request, principal, error=exc.message, status=422)
    except LoginFailed:
        return _account_page(request, principal, error="当前密码不正确。", status=401)
    except LoginThrottled as exc:
        return _account_page(request, principal, error=exc.message, status=429)
    except UserNotFound:
        return _account_page(request, principal, error="账号不存在。", status=404)
    return _account_page(request, principal, message="密码已修改；其他设备上的登录已退出。")


def me_view(principal: Principal, csrf: str | None) -> dict[str, Any]:
    return {
        "userId": principal.user_id,
        "name": principal.name,
        "role": principal.role.value,
        "roleLabel": label("accountRole", principal.role.value),
        "via": principal.via,
        "permissions": sorted(action.value for action in Action if principal.can(action)),
        "csrfToken": csrf,
    }


async def me(request: Request) -> Response:
    """GET /api/me — who the request acts as and what it may do."""
    session = session_of(request)
    view = me_view(principal_of(request), session.csrf_secret if session else None)
    return JSONResponse(view, headers={"Cache-Control": "no-store"})


routes: list[BaseRoute] = [
    Route("/login", login_page, methods=["GET", "HEAD"]),
    Route("/login", login_submit, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/account", account_page, methods=["GET", "HEAD"]),
    Route("/account/password", change_password, methods=["POST"]),
    Route("/api/me", me, methods=["GET"]),
]
