"""Authentication and the browser-side guards over real HTTP through the ASGI app: who may reach what
(401 / redirect to the login page), the Host allowlist, Origin and content-type checks, the session cookie
and its CSRF secret, the login form and its throttle, the one-time login link and the local admin's token
file, what each role may do, ownership, the audit trail, and the per-user run limits."""

from __future__ import annotations

import asyncio
import re
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import argon2
import httpx
import pytest
from starlette.applications import Starlette

import tools.accounts as accounts_module
from app.http.auth import SESSION_COOKIE, TOKEN_FILE
from app.http.limits import _Ledger
from app.settings import Settings
from tests.serving import asgi_client, bearer, events_of
from tools.accounts import Accounts
from tools.database import Creative, CreativeStatus, utcnow

REQUEST = "写一篇成都三天两晚美食攻略，预算有限"
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounts_module, "PASSWORD_HASH_PARAMETERS", argon2.profiles.CHEAPEST)


@dataclass
class Site:
    """The app, an admin client, and one token per role (users alice=creator, carol=creator, eddie=editor,
    anna=analyst, each with the password PASSWORD)."""

    app: Starlette
    admin: httpx.AsyncClient
    tokens: dict[str, str]

    @property
    def accounts(self) -> Accounts:
        accounts: Accounts = self.app.state.accounts
        return accounts

    def client(self, user: str | None = None, **kwargs: Any) -> httpx.AsyncClient:
        headers = {**(bearer(self.tokens[user]) if user else {}), **kwargs.pop("headers", {})}
        return httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url=kwargs.pop("base_url", "http://localhost"),
            headers=headers, timeout=60, **kwargs,
        )


USERS = {"alice": "creator", "carol": "creator", "eddie": "editor", "anna": "analyst"}


async def make_site(settings: Settings) -> AsyncIterator[Site]:
    async with asgi_client(settings) as admin:
        app = admin._transport.app  # type: ignore[attr-defined]
        accounts: Accounts = app.state.accounts
        tokens = {}
        for name, role in USERS.items():
            await accounts.add_user(name, role, PASSWORD, actor="test")
            tokens[name], _ = await accounts.create_token(name, actor="test")
        yield Site(app, admin, tokens)


@pytest.fixture
async def site(seeded_settings: Settings) -> AsyncIterator[Site]:
    async for value in make_site(seeded_settings):
        yield value


async def start(client: httpx.AsyncClient, **extra: Any) -> list[dict[str, Any]]:
    response = await client.post("/api/agent/stream", json={"message": REQUEST, "imageCount": 1, **extra})
    assert response.status_code == 200, response.text
    return events_of(response.text)


async def ids(client: httpx.AsyncClient, events: list[dict[str, Any]]) -> tuple[str, int]:
    """The thread id and creative id of a run whose events these are."""
    thread_id = events[0]["threadId"]
    view = (await client.get(f"/api/agent/threads/{thread_id}")).json()
    return thread_id, view["creativeId"]


async def login(
    client: httpx.AsyncClient, name: str, password: str = PASSWORD, **form: str
) -> httpx.Response:
    page = await client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf, page.text
    return await client.post(
        "/login", data={"csrf": csrf[1], "name": name, "password": password, "next": "/creatives", **form}
    )


# --- who may reach what ---------------------------------------------------------------------------------


async def test_without_credentials_only_health_login_and_static_answer(site: Site) -> None:
    async with site.client() as anonymous:
        for path in ("/api/creatives", "/api/agent/inbox", "/api/me", "/openapi.json", "/api/assets/1"):
            response = await anonymous.get(path)
            assert response.status_code == 401, path
            assert response.json()["error"]["code"] == "UNAUTHENTICATED"
            assert response.headers["www-authenticate"] == "Bearer"
        response = await anonymous.post("/api/agent/stream", json={"message": REQUEST})
        assert response.status_code == 401
        # a page sends the browser to the login page and back
        page = await anonymous.get("/creatives?status=completed", headers={"Accept": "text/html"})
        assert page.status_code == 303
        assert page.headers["location"] == "/login?next=%2Fcreatives%3Fstatus%3Dcompleted"
        assert (await anonymous.get("/healthz")).status_code == 200
        assert (await anonymous.get("/static/css/app.css")).status_code == 200
        login_page = await anonymous.get("/login")
        assert login_page.status_code == 200 and "登录内容工坊" in login_page.text
        assert login_page.headers["x-content-type-options"] == "nosniff"


async def test_a_bad_token_is_refused_even_beside_a_good_cookie(site: Site) -> None:
    async with site.client() as browser:
        assert (await login(browser, "eddie")).status_code == 303
        assert (await browser.get("/api/me")).json()["name"] == "eddie"
        for header in ("Bearer cs_" + "x" * 43, "Bearer nonsense", "Basic ZWRkaWU6cHc=", "Bearer"):
            response = await browser.get("/api/me", headers={"Authorization": header})
            assert response.status_code == 401, header
    revoked = site.tokens["anna"]
    await site.accounts.revoke_token(revoked, actor="test")
    async with site.client("anna") as anna:
        assert (await anna.get("/api/me")).status_code == 401


async def test_the_host_header_must_be_one_the_server_answers_to(
    site: Site, seeded_settings: Settings
) -> None:
    for host in ("localhost", "127.0.0.1", "localhost:8000", "[::1]:8000"):
        response = await site.admin.get("/healthz", headers={"Host": host})
        assert response.status_code == 200, host
    for host in ("evil.example", "localhost.evil.example", "evil.example:8000", "user@localhost", ""):
        response = await site.admin.get("/api/me", headers={"Host": host})
        assert response.status_code == 400, host
        assert response.json()["error"]["code"] == "HOST_NOT_ALLOWED"
    seeded_settings.allowed_hosts = ["studio.example.com"]
    async with site.client("anna", base_url="http://studio.example.com") as anna:
        # settings are read at start-up: the running app still refuses it
        assert (await anna.get("/api/me")).status_code == 400


async def test_configured_hosts_are_allowed(seeded_settings: Settings) -> None:
    seeded_settings.allowed_hosts = ["studio.example.com"]
    async for site in make_site(seeded_settings):
        async with site.client("anna", base_url="http://studio.example.com") as anna:
            assert (await anna.get("/api/me")).json()["role"] == "analyst"


# --- browser-side attacks -------------------------------------------------------------------------------


async def test_state_changes_from_another_origin_or_not_json_are_refused(site: Site) -> None:
    async with site.client("alice") as alice:
        evil = await alice.post(
            "/api/agent/stream", json={"message": REQUEST}, headers={"Origin": "http://evil.example"}
        )
        assert evil.status_code == 403 and evil.json()["error"]["details"]["reason"] == "origin"
        for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            response = await alice.post(
                "/api/agent/stream", content=b'{"message": "x"}', headers={"Content-Type": content_type}
            )
            assert response.status_code == 415, content_type
            assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
        # the server's own origin is fine
        own = await alice.post(
            "/api/agent/stream", json={"message": REQUEST, "imageCount": 1},
            headers={"Origin": "http://localhost"},
        )
        assert own.status_code == 200


async def test_a_cookie_session_needs_its_csrf_secret_for_every_state_change(site: Site) -> None:
    async with site.client() as browser:
        response = await login(browser, "alice")
        assert response.status_code == 303 and response.headers["location"] == "/creatives"
        cookie = next(h for h in response.headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
        me = (await browser.get("/api/me")).json()
        assert me["name"] == "alice" and me["role"] == "creator" and me["roleLabel"] == "创作者"
        assert me["via"] == "session" and "start_run" in me["permissions"] and me["csrfToken"]
        body = {"message": REQUEST, "imageCount": 1}
        for headers in ({}, {"X-CSRF-Token": "wrong"}):
            refused = await browser.post("/api/agent/stream", json=body, headers=headers)
            assert refused.status_code == 403 and refused.json()["error"]["details"]["reason"] == "csrf"
        ok = await browser.post("/api/agent/stream", json=body, headers={"X-CSRF-Token": me["csrfToken"]})
        assert ok.status_code == 200
        # logging out needs the session's form value, then the cookie is worthless
        assert (await browser.post("/logout", data={"csrf": "wrong"})).status_code == 403
        out = await browser.post("/logout", data={"csrf": me["csrfToken"]})
        assert out.status_code == 303 and out.headers["location"] == "/login"
        browser.cookies.clear()
        browser.cookies.set(SESSION_COOKIE, re.search(f"{SESSION_COOKIE}=([^;]+)", cookie)[1])  # type: ignore[index]
        assert (await browser.get("/api/me")).status_code == 401


async def test_login_form_needs_its_csrf_cookie_and_refuses_bad_passwords_then_throttles(site: Site) -> None:
    async with site.client() as browser:
        await browser.get("/login")
        forged = await browser.post("/login", data={"csrf": "forged", "name": "eddie", "password": PASSWORD})
        assert forged.status_code == 403 and "页面已过期" in forged.text
        wrong = await login(browser, "eddie", "not the password")
        assert wrong.status_code == 401 and "用户名或密码不正确" in wrong.text
        assert SESSION_COOKIE not in browser.cookies
        for _ in range(4):
            await login(browser, "eddie", "not the password")
        throttled = await login(browser, "eddie")  # even the right password, while locked
        assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) > 0
        not_a_form = await browser.post("/login", json={"name": "eddie", "password": PASSWORD})
        assert not_a_form.status_code == 400
    # only a path on this server is followed after the login
    async with site.client() as browser:
        response = await login(browser, "anna", next="//evil.example/")
        assert response.status_code == 303 and response.headers["location"] == "/"


async def test_the_first_start_makes_a_local_admin_token_file_and_a_one_time_login_link(
    site: Site, seeded_settings: Settings
) -> None:
    path = seeded_settings.data_dir / TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    boot = site.app.state.bootstrap
    assert boot.created and boot.login_secret
    async with site.client() as browser:
        first = await browser.get(f"/login?token={boot.login_secret}&next=/inbox")
        assert first.status_code == 303 and first.headers["location"] == "/inbox"
        me = (await browser.get("/api/me")).json()
        assert me["name"] == "admin" and me["role"] == "admin"
    async with site.client() as other:
        again = await other.get(f"/login?token={boot.login_secret}")
        assert again.status_code == 401 and "已经用过" in again.text
        assert (await other.get("/api/me")).status_code == 401
    logins = await site.accounts.audit_trail(action="login")
    assert [(e.actor, e.details["via"]) for e in logins] == [("user:admin", "link")]


async def test_a_later_start_keeps_the_admin_and_prints_a_fresh_link(seeded_settings: Settings) -> None:
    async with asgi_client(seeded_settings) as first:
        token = (seeded_settings.data_dir / TOKEN_FILE).read_text().strip()
        assert (await first.get("/api/me")).json()["name"] == "admin"
    async with asgi_client(seeded_settings) as second:
        boot = second._transport.app.state.bootstrap  # type: ignore[attr-defined]
        assert not boot.created and boot.login_secret
        assert (seeded_settings.data_dir / TOKEN_FILE).read_text().strip() == token
        assert [u.name for u in await second._transport.app.state.accounts.list_users()] == ["admin"]  # type: ignore[attr-defined]


async def test_users_made_before_the_first_start_mean_no_local_admin(seeded_settings: Settings) -> None:
    from app import migrate
    from tools.database import create_engine, session_factory

    await migrate.upgrade_async(seeded_settings.db_url)
    engine = create_engine(seeded_settings.db_url)
    try:
        accounts = Accounts(session_factory(engine))
        await accounts.add_user("boss", "admin", PASSWORD, actor="test")
        token, _ = await accounts.create_token("boss", actor="test")
    finally:
        await engine.dispose()
    async with asgi_client(seeded_settings, authenticated=False) as client:
        boot = client._transport.app.state.bootstrap  # type: ignore[attr-defined]
        assert not boot.created and boot.login_secret is None
        assert not (seeded_settings.data_dir / TOKEN_FILE).exists()
        assert (await client.get("/api/me", headers=bearer(token))).json()["name"] == "boss"


# --- roles and ownership --------------------------------------------------------------------------------


async def test_each_role_can_do_exactly_its_part(site: Site) -> None:
    async with (site.client("alice") as alice, site.client("carol") as carol, site.client("eddie") as eddie,
                site.client("anna") as anna):
        thread_id, creative_id = await ids(alice, await start(alice))
        for client in (eddie, anna):
            refused = await client.post("/api/agent/stream", json={"message": REQUEST})
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
        # reading: the owner and the all-readers, not another creator
        for client, status in ((alice, 200), (carol, 403), (eddie, 200), (anna, 200)):
            assert (await client.get(f"/api/agent/threads/{thread_id}")).status_code == status
            assert (await client.get(f"/api/creatives/{creative_id}")).status_code == status
            assert (await client.get(f"/api/creatives/{creative_id}/audit")).status_code == status
        assert [c["id"] for c in (await carol.get("/api/creatives")).json()["items"]] == []
        assert [c["id"] for c in (await alice.get("/api/creatives")).json()["items"]] == [creative_id]
        assert creative_id in [c["id"] for c in (await anna.get("/api/creatives")).json()["items"]]
        # inbox for editors; stats and export for analysts
        for client, status in ((alice, 403), (eddie, 200), (anna, 403), (site.admin, 200)):
            assert (await client.get("/api/agent/inbox")).status_code == status
        for client, status in ((alice, 403), (eddie, 403), (anna, 200)):
            assert (await client.get("/api/creatives/stats")).status_code == status
            assert (await client.get("/api/creatives/export.csv")).status_code == status
        # confirming: not another creator, not an analyst; an editor may
        body = {"threadId": thread_id, "action": "approve"}
        for client in (carol, anna):
            assert (await client.post("/api/agent/confirm", json=body)).status_code == 403
            assert (await client.post(f"/api/agent/threads/{thread_id}/cancel")).status_code == 403
        response = await eddie.post("/api/agent/confirm", json=body)
        assert response.status_code == 200
        assert events_of(response.text)[-1]["type"] in ("workflow_paused", "workflow_complete")


async def test_only_admins_choose_a_model_unless_a_setting_allows_it(
    site: Site, seeded_settings: Settings
) -> None:
    async with site.client("alice") as alice:
        refused = await alice.post("/api/agent/stream", json={"message": REQUEST, "model": "studio/offline"})
        assert refused.status_code == 403 and "指定模型" in refused.json()["error"]["message"]
    await start(site.admin, model="studio/offline", enableHITL=False)
    seeded_settings.allow_model_override = True
    async with site.client("alice") as alice:
        await start(alice, model="studio/offline", enableHITL=False)


# --- the audit trail --------------------------------------------------------------------------------------


async def test_every_run_decision_is_recorded_with_who_and_what(site: Site) -> None:
    async with site.client("alice") as alice, site.client("eddie") as eddie:
        thread_id, creative_id = await ids(alice, await start(alice, imageCount=2))
        inbox = (await eddie.get("/api/agent/inbox")).json()["items"]
        item = next(i for i in inbox if i["threadId"] == thread_id)
        assert item["startedBy"] == "user:alice" and item["waitingFor"]["owner"] == "alice"
        assert item["lastAction"]["actor"] == "user:alice" and item["lastAction"]["action"] == "start"
        rejected = await eddie.post("/api/agent/confirm", json={
            "threadId": thread_id, "action": "reject", "userFeedback": "标题里加上“小众”，正文不要出现火锅",
        })
        assert events_of(rejected.text)[-1]["type"] == "workflow_paused"
        pending = (await alice.get(f"/api/agent/threads/{thread_id}")).json()["pending"]
        data = pending["context"]["data"]
        modified = await alice.post("/api/agent/confirm", json={
            "threadId": thread_id, "action": "modify", "modifiedData": {**data, "title": "成都小众美食三日"},
        })
        assert modified.status_code == 200
        trail = (await eddie.get(f"/api/creatives/{creative_id}/audit")).json()["items"]
    assert [(e["actor"], e["action"]) for e in trail[:3]] == [
        ("user:alice", "start"), ("user:eddie", "reject"), ("user:alice", "modify"),
    ]
    assert trail[1]["details"]["feedback"] == "标题里加上“小众”，正文不要出现火锅"
    assert trail[1]["actionLabel"] == "驳回重写" and trail[1]["details"]["kind"] == "content"
    changes = trail[2]["details"]["changes"]
    assert {"field": "title", "before": data["title"], "after": "成都小众美食三日"} in changes
    detail = (await site.admin.get(f"/api/creatives/{creative_id}")).json()
    assert detail["startedBy"] == "user:alice"


async def test_cancel_is_recorded(site: Site) -> None:
    async with site.client("alice") as alice:
        thread_id = (await start(alice))[0]["threadId"]
        assert (await alice.post(f"/api/agent/threads/{thread_id}/cancel")).json()["status"] == "aborted"
    records = await site.accounts.audit_trail(thread_id=thread_id)
    assert [(r.actor, r.action) for r in records] == [("user:alice", "start"), ("user:alice", "cancel")]


# --- limits -------------------------------------------------------------------------------------------------


async def _running_rows(site: Site, user: str, count: int) -> None:
    """Runs of `user` that are going (as another process's would be)."""
    owner = await site.accounts.get_user(user)
    assert owner is not None
    async with site.app.state.resources.sessions.begin() as session:
        for i in range(count):
            session.add(Creative(
                thread_id=f"busy-{user}-{i}", status=CreativeStatus.RUNNING.value, request=REQUEST,
                owner_id=owner.id, created_at=utcnow() - timedelta(hours=1),
            ))


async def test_too_many_starts_a_minute_or_runs_at_once_are_a_429_with_retry_after(
    seeded_settings: Settings,
) -> None:
    seeded_settings.max_starts_per_minute = 2
    seeded_settings.max_concurrent_runs_per_user = 2
    async for site in make_site(seeded_settings):
        async with site.client("alice") as alice, site.client("carol") as carol:
            await start(alice, enableHITL=False)
            await start(alice, enableHITL=False)
            third = await alice.post("/api/agent/stream", json={"message": REQUEST})
            assert third.status_code == 429 and third.json()["error"]["code"] == "RATE_LIMITED"
            assert 0 < int(third.headers["retry-after"]) <= 60
            assert third.json()["error"]["details"]["kind"] == "per_minute"
            # another user is not affected; running runs count for their owner
            await _running_rows(site, "carol", 2)
            busy = await carol.post("/api/agent/stream", json={"message": REQUEST})
            assert busy.status_code == 429 and busy.json()["error"]["details"]["kind"] == "concurrent"
            assert int(busy.headers["retry-after"]) > 0


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/creatives?status=completed", "/creatives?status=completed"),
        ("/inbox", "/inbox"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("/\t/evil.example", "/"),  # browsers drop the tab: "//evil.example"
        ("/\n/evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("", "/"),
        (None, "/"),
    ],
)
def test_only_a_path_on_this_server_is_followed_after_login(target: str | None, expected: str) -> None:
    from app.http.auth import safe_next

    assert safe_next(target) == expected


async def test_the_session_cookie_is_secure_over_https(site: Site) -> None:
    async with site.client(base_url="https://localhost") as browser:
        response = await login(browser, "anna")
        cookie = next(h for h in response.headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
        assert "Secure" in cookie and "HttpOnly" in cookie


async def test_cors_is_off_unless_origins_are_configured(site: Site, seeded_settings: Settings) -> None:
    preflight = {"Origin": "https://dash.example", "Access-Control-Request-Method": "POST"}
    response = await site.admin.options("/api/creatives", headers=preflight)
    assert "access-control-allow-origin" not in response.headers
    response = await site.admin.get("/api/creatives", headers={"Origin": "https://dash.example"})
    assert "access-control-allow-origin" not in response.headers


async def test_configured_cors_origins_get_preflights_without_a_login(seeded_settings: Settings) -> None:
    seeded_settings.cors_origins = ["https://dash.example"]
    async for site in make_site(seeded_settings):
        async with site.client() as anonymous:
            response = await anonymous.options("/api/creatives", headers={
                "Origin": "https://dash.example", "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "authorization",
            })
            assert response.status_code == 200
            assert response.headers["access-control-allow-origin"] == "https://dash.example"
        async with site.client("anna", headers={"Origin": "https://dash.example"}) as anna:
            response = await anna.get("/api/creatives")
            assert response.headers["access-control-allow-origin"] == "https://dash.example"
            # and a state change from that origin passes the Origin check (the token still decides)
            refused = await anna.post("/api/agent/stream", json={"message": REQUEST})
            assert refused.status_code == 403 and refused.json()["error"]["details"]["role"] == "analyst"


async def test_a_burst_of_starts_by_one_user_lets_exactly_the_limit_through(
    seeded_settings: Settings,
) -> None:
    """Six starts at once by one user with room for three: three run and three get a 429 — the check of each
    counts the starts let through before it that are still being stored."""
    seeded_settings.max_concurrent_runs_per_user = 3
    seeded_settings.offline_image_latency_ms = 2000  # the three stay running while the others are checked
    async for site in make_site(seeded_settings):
        async with site.client("alice") as alice:
            body = {"message": REQUEST, "imageCount": 1, "enableHITL": False}
            responses = await asyncio.gather(*(alice.post("/api/agent/stream", json=body) for _ in range(6)))
    codes = sorted(response.status_code for response in responses)
    assert codes == [200, 200, 200, 429, 429, 429]
    refused = [r.json()["error"]["details"] for r in responses if r.status_code == 429]
    assert all(details["kind"] == "concurrent" for details in refused)


def test_a_start_stored_while_a_check_reads_still_counts_once() -> None:
    """The check reads the database without a lock, so what it read may miss starts of this process: those
    pending when it began, and those reserved while it read — even once they are stored and done."""
    ledger = _Ledger()
    ledger.reserve("a")  # no check reading: not kept once done, a later read sees its row
    before, tick = set(ledger.pending), ledger.tick
    ledger.reading += 1  # a check begins its read with "a" pending
    ledger.reserve("b")  # a start checked meanwhile …
    ledger.pending.discard("b")  # … stored and done before the read ends
    ledger.pending.discard("a")
    assert ledger.overlapping(before, tick) == {"a", "b"}  # by id: a row the read did see counts once
    ledger.done_reading()
    assert not ledger.since  # nothing kept once no check is reading
    ledger.reserve("c")
    assert ledger.overlapping(set(ledger.pending), ledger.tick) == {"c"}


async def test_who_may_revise_a_finished_thread(site: Site) -> None:
    """Its owner and an editor may send a finished thread a new message; another creator and an analyst may
    not, and an editor still may not start a thread of their own."""
    async with (
        site.client("alice") as alice, site.client("carol") as carol, site.client("eddie") as eddie,
        site.client("anna") as anna,
    ):
        thread_id, creative_id = await ids(alice, await start(alice, enableHITL=False))
        revision = {"threadId": thread_id, "message": "正文短一点"}
        for outsider in (carol, anna):
            refused = await outsider.post("/api/agent/stream", json=revision)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
        by_editor = await eddie.post("/api/agent/stream", json=revision)
        assert by_editor.status_code == 200 and events_of(by_editor.text)[-1]["version"] == 2
        own = await eddie.post("/api/agent/stream", json={"message": REQUEST})
        assert own.status_code == 403
        trail = (await alice.get(f"/api/creatives/{creative_id}/audit")).json()["items"]
        assert [(e["action"], e["actionLabel"], e["actor"]) for e in trail if e["action"] == "revise"] == [
            ("revise", "修改作品", "user:eddie")
        ]
