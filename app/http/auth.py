"""Who a request acts as, and what a browser may not make it do: the `Guard` every request passes.

In order, for every HTTP request (`Guard`, an ASGI wrapper inside the app's error handling):

1. **Host** — the `Host` header must name the bind address, `localhost`, `127.0.0.1`, `::1` or one of
   `STUDIO_ALLOWED_HOSTS` (`*`: any): a page on another name that resolves here (DNS rebinding) gets a 400
   `HOST_NOT_ALLOWED`.
2. **Who** — `Authorization: Bearer <token>` (scripts, the CLI) or the `studio_session` cookie (the web
   studio). A bad token is a 401 even with a cookie beside it; a stale cookie counts as none.
3. **Browser-side attacks**, for state-changing methods (everything but GET, HEAD, OPTIONS): an `Origin`
   header, when present, must be the server's own origin or one of `STUDIO_ALLOWED_ORIGINS` /
   `STUDIO_CORS_ORIGINS` (403 `FORBIDDEN`); an API request with a body must be `application/json` (415
   `UNSUPPORTED_MEDIA_TYPE` — a cross-site form cannot send it); and a cookie-authenticated API request
   must carry the session's CSRF secret in `X-CSRF-Token` (403). Forms (`/login`, `/logout`,
   `/account/password`) carry it as a `csrf` field, checked by their handlers (`app/http/routes/auth.py`).
4. **Authenticated or public** — only `/healthz`, the login page and `/static/` answer without a principal;
   otherwise a page redirects to `/login?next=…` and anything else is a 401 `UNAUTHENTICATED` with
   `WWW-Authenticate: Bearer`.

Routes then ask `require(request, action)` / `require_on(request, verb, owner_id)` (403 `FORBIDDEN`).

**First start** (`bootstrap_local_admin`): with no users at all, the server creates the token-only admin
`admin`, writes its API token to `<data dir>/admin-token` (mode 0600, what the local CLI's HTTP commands use)
and prints a one-time login URL — so `make run` still leads straight into the studio, the way Jupyter does.
Every later start prints a fresh one-time URL for that admin while its token file is valid.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.http.errors import ApiError, error_response
from app.settings import Settings
from tools.accounts import (
    Accounts,
    Action,
    Principal,
    Role,
    SessionInfo,
    UserExists,
    Verb,
    can_on,
)
from tools.labels import label

log = logging.getLogger("studio.auth")

SESSION_COOKIE = "studio_session"
CSRF_HEADER = "x-csrf-token"
LOCAL_ADMIN = "admin"
TOKEN_FILE = "admin-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_PATHS = frozenset({"/healthz", "/login", "/favicon.ico"})
_HOST = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?")


class Unauthenticated(ApiError):
    code = "UNAUTHENTICATED"
    status = 401


class Forbidden(ApiError):
    code = "FORBIDDEN"
    status = 403


# --- what routes use --------------------------------------------------------------------------------------


def principal_of(request: Request) -> Principal:
    """The request's principal (the `Guard` let it through, so there is one on every non-public route)."""
    principal = request.scope.get("user")
    if not isinstance(principal, Principal):
        raise Unauthenticated("请先登录")
    return principal


def session_of(request: Request) -> SessionInfo | None:
    """The web session behind the request, when it came with the session cookie."""
    info = request.scope.get("studio.session")
    return info if isinstance(info, SessionInfo) else None


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


def _refusal(principal: Principal, what: str) -> Forbidden:
    role = label("accountRole", principal.role.value)
    return Forbidden(f"没有权限：{role}不能{what}", details={"role": principal.role.value})


WHAT = {
    Action.START_RUN: "发起创作",
    Action.INBOX: "查看审核收件箱",
    Action.STATS: "查看统计",
    Action.EXPORT: "导出作品",
    Action.MANAGE_USERS: "管理账号",
    Action.MODEL_OVERRIDE: "为单次运行指定模型",
    Action.READ_ALL: "查看所有人的作品",
}
VERB_WHAT = {"confirm": "审核别人的运行", "cancel": "取消或继续别人的运行", "read": "查看别人的运行和作品"}


def require(request: Request, action: Action) -> Principal:
    """The principal, if its role may do `action`; else 403 `FORBIDDEN`."""
    principal = principal_of(request)
    if not principal.can(action):
        raise _refusal(principal, WHAT.get(action, action.value))
    return principal


def require_on(request: Request, verb: Verb, owner_id: int | None) -> Principal:
    """The principal, if it may `verb` a run or creative owned by `owner_id`; else 403 `FORBIDDEN`."""
    principal = principal_of(request)
    if not principal.can_on(verb, owner_id):
        raise _refusal(principal, VERB_WHAT[verb])
    return principal


def may_read_all(principal: Principal) -> bool:
    return can_on(principal.role, "read", owned=False)


# --- the guard ------------------------------------------------------------------------------------------


def host_name(host_header: str) -> str | None:
    """The name part of a `Host` header (lower case, IPv6 without brackets); None when it is malformed."""
    match = _HOST.fullmatch(host_header.strip())
    if match is None:
        return None
    return match["name"].strip("[]").lower()


def allowed_hosts(settings: Settings) -> frozenset[str]:
    """The host names the server answers to: loopback names, the bind address, `STUDIO_ALLOWED_HOSTS`."""
    names = {"localhost", "127.0.0.1", "::1", settings.host.lower()}
    names.update(h.strip().strip("[]").lower() for h in settings.allowed_hosts if h.strip())
    names.discard("0.0.0.0")  # a wildcard bind is not a name anyone should send
    return frozenset(names)


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith("/static/")


def is_page(request: Request) -> bool:
    """A browser asking for a page (redirected to the login page rather than answered 401)."""
    path = request.url.path
    return (
        request.method in ("GET", "HEAD")
        and not path.startswith("/api/")
        and path != "/openapi.json"
        and "text/html" in request.headers.get("accept", "")
    )


def _has_body(headers: Headers) -> bool:
    length = headers.get("content-length")
    return bool(headers.get("transfer-encoding")) or (length is not None and length.strip() not in ("", "0"))


def media_type(headers: Headers) -> str:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


class Guard:
    """The ASGI wrapper that applies the rules of the module docstring and puts the principal in
    `scope["user"]` (and the web session in `scope["studio.session"]`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = await self._check(request)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _check(self, request: Request) -> Response | None:
        state = request.app.state
        settings: Settings = state.settings
        hosts: frozenset[str] = state.allowed_hosts
        host = request.headers.get("host", "")
        if "*" not in hosts and host_name(host) not in hosts:
            return error_response(
                400, "HOST_NOT_ALLOWED", f"不接受的 Host：{host[:100]}（见 STUDIO_ALLOWED_HOSTS）",
                {"host": host[:100]},
            )
        path, method = request.url.path, request.method
        if is_public(path) and path != "/login":
            return None
        accounts: Accounts = state.accounts
        principal: Principal | None = None
        session: SessionInfo | None = None
        authorization = request.headers.get("authorization")
        if authorization is not None:
            scheme, _, secret = authorization.partition(" ")
            if scheme.lower() == "bearer":
                principal = await accounts.authenticate_token(secret.strip())
            if principal is None:
                return _unauthenticated("API 令牌无效、已过期或已吊销", reason="token")
        elif cookie := request.cookies.get(SESSION_COOKIE):
            found = await accounts.authenticate_session(cookie)
            if found is not None:
                principal, session = found
        request.scope["user"], request.scope["studio.session"] = principal, session

        if method not in SAFE_METHODS:
            origin = request.headers.get("origin")
            if origin is not None and origin not in _origins(request, settings):
                return error_response(
                    403, "FORBIDDEN", f"拒绝来自其他网站（{origin[:100]}）的请求", {"reason": "origin"}
                )
            if path.startswith("/api/"):
                if _has_body(request.headers) and media_type(request.headers) != "application/json":
                    return error_response(
                        415, "UNSUPPORTED_MEDIA_TYPE", "请求体必须是 JSON（Content-Type: application/json）",
                        {"contentType": request.headers.get("content-type", "")[:100]},
                    )
                if session is not None and not session.check_csrf(request.headers.get(CSRF_HEADER)):
                    return error_response(
                        403, "FORBIDDEN", "缺少或错误的 CSRF 令牌（X-CSRF-Token），请刷新页面后重试",
                        {"reason": "csrf"},
                    )
        if principal is not None or is_public(path):
            return None
        if is_page(request):
            target = path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)
        return _unauthenticated("请先登录，或在 Authorization 头里带上 API 令牌（Bearer）", reason="missing")


def _unauthenticated(message: str, *, reason: str) -> Response:
    return error_response(
        401, "UNAUTHENTICATED", message, {"reason": reason}, headers={"WWW-Authenticate": "Bearer"}
    )


def _origins(request: Request, settings: Settings) -> set[str]:
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    return {own, *settings.allowed_origins, *settings.cors_origins}


def safe_next(target: str | None) -> str:
    """Where to go after logging in: a path on this server only (never `//other` or a full URL)."""
    if (
        not target
        or not target.startswith("/")
        # no backslash, space or control character: browsers read "/\\x" and "/\t/x" (tab dropped) as "//x"
        or any(ch == "\\" or ord(ch) < 0x21 or ord(ch) == 0x7F for ch in target)
        or target.startswith("//")
    ):
        return "/"
    return target[:2000]


# --- first start ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bootstrap:
    """What a start says about logging in: the one-time login secret (None when there is no local admin
    to log in as) and whether the local admin was created just now."""

    login_secret: str | None
    created: bool


def token_path(settings: Settings) -> Path:
    return settings.data_dir / TOKEN_FILE


def read_token_file(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, PermissionError, UnicodeDecodeError, IsADirectoryError):
        return None
    return text or None


def write_token_file(path: Path, token: str) -> None:
    """Write `token` readable by its owner only (0600 from the first byte, not chmod-ed afterwards)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT: set it
        os.write(fd, (token + "\n").encode())
    finally:
        os.close(fd)


async def bootstrap_local_admin(accounts: Accounts, settings: Settings) -> Bootstrap:
    """On a first start (no users), create the local admin and its token file; then, while the token file
    holds a live admin token, a one-time login secret for it."""
    path = token_path(settings)
    created = False
    if not await accounts.has_users():
        try:
            secret, _ = await accounts.create_token(
                LOCAL_ADMIN, role=Role.ADMIN, note="本机管理员（首次启动时创建）", actor="system"
            )
        except UserExists:  # another process made the first user meanwhile
            pass
        else:
            write_token_file(path, secret)
            created = True
            log.info("first start: created the local admin %r; its API token is in %s", LOCAL_ADMIN, path)
    token = read_token_file(path)
    principal = await accounts.authenticate_token(token) if token else None
    if principal is None or principal.role is not Role.ADMIN:
        return Bootstrap(None, created)
    ttl = timedelta(minutes=settings.login_link_ttl_minutes)
    link = await accounts.create_login_link(principal.name, ttl=ttl, actor="system")
    return Bootstrap(link, created)


def login_url(base: str, secret: str | None) -> str:
    base = base.rstrip("/")
    return f"{base}/login?token={secret}" if secret else f"{base}/login"


def cookie_options(request: Request, settings: Settings) -> dict[str, Any]:
    """HttpOnly, SameSite=Lax, Secure over HTTPS (uvicorn sets the scheme from a trusted proxy's
    `X-Forwarded-Proto`)."""
    return {
        "httponly": True,
        "samesite": "lax",
        "secure": request.url.scheme == "https",
        "path": "/",
        "max_age": int(settings.session_ttl_hours * 3600),
    }
