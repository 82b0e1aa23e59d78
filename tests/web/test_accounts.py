"""Accounts in the browser: the login page and coming back to the page asked for, the header per role,
logging out, what each role may see and do (creator, editor, analyst), the audit records on the detail
page, the one-time login link, and cross-site form posts the server must refuse."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from playwright.sync_api import Page, Response, expect

from tests.web.conftest import (
    ARTIFACTS,
    PHONE,
    Accounts,
    Browsers,
    Studio,
    log_in,
    no_horizontal_overflow,
    run_as,
    run_workflow,
)

ROLE_LABELS = {"admin": "管理员", "creator": "创作者", "editor": "编辑", "analyst": "分析师"}


def failed_responses(page: Page) -> list[str]:
    """Every API answer of 400 or more this page gets from now on (a role must not fire refused calls)."""
    failed: list[str] = []

    def on_response(response: Response) -> None:
        if "/api/" in response.url and response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    page.on("response", on_response)
    return failed


def artifact(name: str) -> str:
    """A path in tests/web/artifacts/ for an element's screenshot."""
    ARTIFACTS.mkdir(exist_ok=True)
    return str(ARTIFACTS / name)


def titles_of(accounts: Accounts, started_by: str) -> set[int]:
    """The ids of every creative started by `started_by`, through the admin's API."""
    with accounts.server.client() as client:
        items = client.get("/api/creatives", params={"limit": 100}).json()["items"]
    return {item["id"] for item in items if item.get("startedBy") == started_by}


# --- logging in and out ---------------------------------------------------------------------------


def test_login_page_then_back_to_the_page_asked_for(browsers: Browsers, accounts: Accounts) -> None:
    creator = accounts.of("creator")
    visitor = browsers.anonymous(label="login")
    page = visitor.goto("/creatives?status=completed")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fcreatives%3Fstatus%3Dcompleted$"))
    expect(page.locator("h1")).to_have_text("登录内容工坊")
    expect(page.locator("#account")).to_have_count(0)
    assert no_horizontal_overflow(page)
    visitor.shot("1-desktop")

    # a wrong password: the form again, with the name kept and a Chinese error
    page.fill("input[name=name]", creator.name)
    page.fill("input[name=password]", "not-the-password")
    page.click("button[type=submit]")
    expect(page.locator(".alert.error")).to_have_text("用户名或密码不正确。")
    expect(page.locator("input[name=name]")).to_have_value(creator.name)
    visitor.expect_console_error("401")  # the re-shown form answers 401
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    assert no_horizontal_overflow(page)
    visitor.shot("2-phone-error", full_page=False)

    page.fill("input[name=password]", creator.password)
    page.click("button[type=submit]")
    expect(page).to_have_url(visitor.server.url + "/creatives?status=completed")
    expect(page.locator("#f-status")).to_have_value("completed")
    expect(page.locator("#account")).to_contain_text(f"{creator.name} · 创作者")


def test_the_header_shows_who_is_logged_in_on_every_page(browsers: Browsers) -> None:
    for role, label in ROLE_LABELS.items():
        user = browsers.login_as(role)
        page = user.page
        assert user.account is not None
        for path in ("/", "/creatives"):
            user.goto(path)
            corner = page.locator(".topbar #account")
            expect(corner.locator(".account-who")).to_have_text(f"{user.account.name} · {label}")
            expect(corner.locator("a.account-link")).to_have_attribute("href", "/account")
            expect(corner.locator("form.logout-form input[name=csrf]")).to_have_value(re.compile(r".{16,}"))
        inbox_link = page.locator("nav a[href='/inbox']")
        if role in ("admin", "editor"):
            expect(inbox_link).to_be_visible()
        else:
            expect(inbox_link).to_be_hidden()
        page.locator(".topbar").screenshot(path=artifact(f"header-{role}-desktop.png"))
        page.set_viewport_size(PHONE)  # type: ignore[arg-type]
        page.reload()
        expect(page.locator("#account .account-who")).to_be_visible()
        assert no_horizontal_overflow(page)
        page.locator(".topbar").screenshot(path=artifact(f"header-{role}-phone.png"))


def test_the_account_page_and_logging_out(browsers: Browsers) -> None:
    editor = browsers.login_as("editor")
    page = editor.page
    page.locator("#account a.account-link").click()
    expect(page).to_have_url(editor.server.url + "/account")
    expect(page.locator("h1")).to_have_text("我的账号")
    expect(page.locator(".auth-card")).to_contain_text("bob · 编辑")
    editor.shot("account-desktop")
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    assert no_horizontal_overflow(page)
    editor.shot("account-phone", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 900})

    editor.goto("/creatives")
    page.locator("#account [data-action=logout]").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    expect(page.locator("h1")).to_have_text("登录内容工坊")
    # the session is over: every page asks for a login again, the API answers 401
    editor.goto("/")
    expect(page).to_have_url(re.compile(r"/login\?next=%2F$"))
    status = page.evaluate("async () => (await fetch('/api/me')).status")
    assert status == 401
    editor.expect_console_error("401")


def test_the_one_time_login_link_logs_in_as_the_local_admin(browsers: Browsers) -> None:
    server = browsers.server
    links = re.findall(r"https?://[^/\s]+(/login\?token=[A-Za-z0-9_\-]+)", server.log())
    assert links, "the server printed no one-time login link"
    visitor = browsers.anonymous(label="link")
    page = visitor.goto(links[-1])
    expect(page).to_have_url(server.url + "/")
    expect(page.locator("#account .account-who")).to_have_text("admin · 管理员")
    expect(page.locator("#run-form")).to_be_visible()
    # one time only: the same link again (a fresh browser) is refused
    again = browsers.anonymous(label="link-again")
    again.goto(links[-1])
    expect(again.page.locator(".alert.error")).to_contain_text("登录链接无效")
    again.expect_console_error("401")


# --- what each role sees --------------------------------------------------------------------------


def test_a_creator_runs_and_approves_their_own_work_and_sees_only_theirs(
    browsers: Browsers, accounts: Accounts
) -> None:
    others = run_workflow(browsers.server, "帮我写一篇早春去杭州太子湾看郁金香的笔记")
    others_id = others[-1]["creativeId"]
    creator = browsers.login_as("creator")
    page = creator.page
    failed = failed_responses(page)
    expect(page.locator("#run-form")).to_be_visible()
    expect(page.locator("#start-note")).to_be_hidden()
    expect(page.locator("nav a[href='/inbox']")).to_be_hidden()

    page.fill("#message", "帮我写一篇周末在家做手冲咖啡的入门笔记")
    page.fill("#image-count", "1")
    page.click("#start-btn")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    # the run's own audit record: alice started it
    start = page.locator("#timeline .tl-item.audit[data-action=start]")
    expect(start).to_contain_text("alice")
    expect(start).to_contain_text("发起创作")
    panel.locator("[data-action=approve]").click()
    plans = page.locator(".checkpoint[data-kind=image_plans]")
    expect(plans).to_be_visible(timeout=60_000)
    expect(page.locator("#timeline .tl-item.audit[data-action=approve]")).to_have_count(1)
    plans.locator("[data-action=approve]").click()
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成", timeout=90_000)
    approvals = page.locator("#timeline .tl-item.audit[data-action=approve]")
    expect(approvals).to_have_count(2)
    expect(approvals.first).to_contain_text("审核通过 · 文案审核")
    creator.shot("1-run")

    # the library: only their own works, no statistics, no export
    creator.goto("/creatives")
    rows = page.locator("#creatives-body tr[data-id]")
    expect(rows.first).to_be_visible()
    shown = {int(rows.nth(i).get_attribute("data-id") or 0) for i in range(rows.count())}
    assert shown == titles_of(accounts, "user:alice"), shown
    assert others_id not in shown
    expect(page.locator("#list-summary")).to_have_text(re.compile(r"^我的作品，共 \d+ 篇$"))
    expect(page.locator("#stat-tiles")).to_be_hidden()
    expect(page.locator("#stats-grid")).to_be_hidden()
    expect(page.locator("#export-btn")).to_be_hidden()
    creator.shot("2-library")
    page.wait_for_load_state("networkidle")
    assert not failed, failed


def test_an_editor_reviews_someone_elses_run_from_the_inbox(browsers: Browsers, accounts: Accounts) -> None:
    alice = accounts.of("creator")
    paused = run_as(accounts, alice, "帮我写一篇城市夜跑路线推荐的笔记，面向刚开始跑步的人", hitl=True)
    assert paused[-1]["type"] == "workflow_paused"
    thread_id = paused[-1]["threadId"]

    editor = browsers.login_as("editor")
    page = editor.page
    failed = failed_responses(page)
    # no start form for an editor: a note and links to what they can do
    expect(page.locator("#start-note")).to_be_visible()
    expect(page.locator("#start-note")).to_contain_text("编辑")
    expect(page.locator("#start-links a[href='/inbox']")).to_be_visible()
    expect(page.locator("#run-form")).to_be_hidden()
    editor.shot("1-studio")

    editor.goto("/inbox")
    item = page.locator(f".inbox-item[data-thread='{thread_id}']")
    expect(item).to_be_visible()
    expect(item.locator(".inbox-item-who")).to_contain_text("发起：alice")
    expect(item.locator(".inbox-item-who")).to_contain_text("等待：alice 或任一编辑")
    expect(item.locator(".inbox-item-who")).to_contain_text("最近：alice 发起创作")
    editor.shot("2-inbox")
    item.click()
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible()
    panel.locator("[data-action=approve]").click()
    plans = page.locator(".checkpoint[data-kind=image_plans]")
    expect(plans).to_be_visible(timeout=60_000)
    expect(item.locator(".inbox-item-who")).to_contain_text("最近：bob 审核通过", timeout=30_000)
    plans.locator("[data-action=reject]").click()
    plans.locator("textarea").fill("封面换成夜景里的跑道")
    plans.locator("[data-action=submit-reject]").click()
    expect(page.locator(".review-timeline .tl-item.audit[data-action=reject]")).to_contain_text(
        "修改意见：封面换成夜景里的跑道", timeout=60_000
    )
    again = page.locator(".checkpoint[data-kind=image_plans]")
    expect(again).to_be_visible(timeout=60_000)
    again.locator("[data-action=approve]").click()
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成", timeout=90_000)
    page.wait_for_load_state("networkidle")
    assert not failed, failed

    # the detail page's 审核记录: who started, who approved, who rejected and why
    with accounts.server.client() as client:
        creative_id = client.get(f"/api/agent/threads/{thread_id}").json()["creativeId"]
    editor.goto(f"/creatives/{creative_id}")
    audit = page.locator("#detail-audit")
    expect(audit.locator("h2")).to_have_text("审核记录")
    records = audit.locator(".audit-item")
    expect(records).to_have_count(4)
    expect(records.nth(0)).to_contain_text("alice")
    expect(records.nth(0)).to_contain_text("发起创作")
    expect(records.nth(1)).to_contain_text("bob")
    expect(records.nth(1)).to_contain_text("审核通过")
    expect(records.nth(1)).to_contain_text("文案审核")
    expect(records.nth(2)).to_contain_text("驳回重写")
    expect(records.nth(2)).to_contain_text("修改意见：封面换成夜景里的跑道")
    expect(records.nth(3)).to_contain_text("配图规划审核")
    expect(page.locator("#detail-request")).to_contain_text("发起人alice")
    audit.scroll_into_view_if_needed()
    audit.screenshot(path=artifact("audit-desktop.png"))
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.reload()
    expect(audit.locator(".audit-item")).to_have_count(4)
    assert no_horizontal_overflow(page)
    audit.scroll_into_view_if_needed()
    audit.screenshot(path=artifact("audit-phone.png"))


def test_a_modify_is_recorded_with_what_changed(browsers: Browsers, accounts: Accounts) -> None:
    creator = browsers.login_as("creator")
    page = creator.page
    page.fill("#message", "帮我写一篇阳台种小番茄的新手笔记")
    page.fill("#image-count", "1")
    page.click("#start-btn")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    panel.locator("[data-action=modify]").click()
    panel.locator("input[name=title]").fill("阳台小番茄种植全记录")
    panel.locator("[data-action=submit-modify]").click()
    expect(page.locator(".checkpoint[data-kind=image_plans]")).to_be_visible(timeout=60_000)
    modify = page.locator("#timeline .tl-item.audit[data-action=modify]")
    expect(modify).to_contain_text("修改后通过")
    expect(modify).to_contain_text("阳台小番茄种植全记录")
    expect(modify).to_contain_text("标题：")
    modify.scroll_into_view_if_needed()
    page.locator(".timeline-card").screenshot(path=artifact("audit-timeline-desktop.png"))


def test_a_password_is_changed_on_the_account_page(browsers: Browsers, accounts: Accounts) -> None:
    dora = accounts.of("creator", name="dora")  # her own account: changing it ends her other sessions
    user = browsers.anonymous(label="dora")
    log_in(user.page, user.server, dora, "/account")
    page = user.page
    page.fill("input[name=current]", dora.password)
    page.fill("input[name=password]", "a-new-password-123")
    page.click("button[type=submit]")
    expect(page.locator(".alert.success")).to_contain_text("密码已修改")
    user.shot("changed", full_page=False)
    # the old password no longer works, the new one does
    user.goto("/")
    page.locator("#account [data-action=logout]").click()
    page.fill("input[name=name]", dora.name)
    page.fill("input[name=password]", dora.password)
    page.click("button[type=submit]")
    expect(page.locator(".alert.error")).to_have_text("用户名或密码不正确。")
    user.expect_console_error("401")
    page.fill("input[name=password]", "a-new-password-123")
    page.click("button[type=submit]")
    expect(page.locator("#account .account-who")).to_have_text("dora · 创作者")


def test_an_analyst_sees_all_works_with_statistics_and_starts_nothing(
    browsers: Browsers, accounts: Accounts
) -> None:
    alice = accounts.of("creator")
    paused = run_as(accounts, alice, "帮我写一篇露台烧烤聚会的准备清单", hitl=True)
    admins = run_workflow(browsers.server, "帮我写一篇秋天去北京香山看红叶的攻略")
    analyst = browsers.login_as("analyst", path="/creatives")
    page = analyst.page
    failed = failed_responses(page)
    rows = page.locator("#creatives-body tr[data-id]")
    expect(rows.first).to_be_visible()
    shown = {rows.nth(i).get_attribute("data-id") for i in range(rows.count())}
    with accounts.server.client() as client:
        alices = client.get(f"/api/agent/threads/{paused[-1]['threadId']}").json()["creativeId"]
    assert {str(alices), str(admins[-1]["creativeId"])} <= shown
    expect(page.locator("#list-summary")).to_have_text(re.compile(r"^共 \d+ 篇$"))
    expect(page.locator("#stat-tiles .stat-tile")).to_have_count(4)
    expect(page.locator("#stats-grid")).to_be_visible()
    expect(page.locator("#export-btn")).to_be_visible()
    expect(page.locator("nav a[href='/inbox']")).to_be_hidden()
    analyst.shot("1-library")

    # the studio: no start form; a paused run of someone else is shown without the decision buttons
    analyst.goto("/")
    expect(page.locator("#start-note")).to_be_visible()
    expect(page.locator("#run-form")).to_be_hidden()
    analyst.goto(f"/?thread={paused[-1]['threadId']}")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible()
    expect(panel.locator(".cp-readonly")).to_have_text("等待发起人或编辑审核；你的账号只能查看。")
    expect(panel.locator("button")).to_have_count(0)
    expect(page.locator("#new-btn")).to_be_hidden()
    expect(page.locator("#stop-btn")).to_be_hidden()
    analyst.shot("2-readonly-checkpoint")

    # the inbox by its address: a sentence, not a refused request
    analyst.goto("/inbox")
    expect(page.locator("#inbox-error")).to_contain_text("审核收件箱只对编辑和管理员开放")
    page.wait_for_load_state("networkidle")
    assert not failed, failed


# --- cross-site requests --------------------------------------------------------------------------


@contextmanager
def attacker_site(pages: dict[str, str]) -> Iterator[str]:
    """Another origin on this machine (127.0.0.1, another port) serving `pages`; yields its origin."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _form(action: str, enctype: str, name: str, value: str) -> str:
    return (
        '<!doctype html><meta charset="utf-8"><title>抽奖</title>'
        f'<form method="post" action="{action}" enctype="{enctype}">'
        f"<input type=\"hidden\" name='{name}' value='{value}'>"
        '<button id="go" type="submit">领取奖品</button></form>'
    )


def test_cross_site_form_posts_are_refused(browsers: Browsers, accounts: Accounts) -> None:
    creator = browsers.login_as("creator")
    page = creator.page
    studio_url = creator.server.url
    forged = "跨站伪造的创作请求"
    before = titles_of(accounts, "user:alice")
    pages = {
        # a JSON-looking body through a text/plain form: the classic way round a JSON-only API
        "/run.html": _form(f"{studio_url}/api/agent/stream", "text/plain",
                           f'{{"message": "{forged}", "imageCount": 1, "x": "', '"}'),
        "/logout.html": _form(f"{studio_url}/logout", "application/x-www-form-urlencoded", "csrf", "guess"),
    }
    with attacker_site(pages) as origin:
        creator.allow_origin(origin)
        creator.expect_console_error("403")
        for path, target in (("/run.html", "/api/agent/stream"), ("/logout.html", "/logout")):
            page.goto(origin + path)
            with page.expect_response(studio_url + target) as answer:
                page.click("#go")
            response = answer.value
            assert response.request.headers.get("content-type", "").startswith(
                "text/plain" if target.startswith("/api") else "application/x-www-form-urlencoded"
            )
            assert response.status == 403, (target, response.status)
            assert response.json()["error"]["details"]["reason"] == "origin"

    # nothing was started, and the session still works
    with accounts.server.client() as client:
        assert client.get("/api/creatives", params={"q": forged}).json()["total"] == 0
    assert titles_of(accounts, "user:alice") == before
    creator.goto("/")
    expect(page).to_have_url(studio_url + "/")
    expect(page.locator("#account .account-who")).to_have_text("alice · 创作者")


def test_studio_fixture_is_an_admin(studio: Studio) -> None:
    page = studio.goto("/")
    expect(page.locator("#account .account-who")).to_have_text("chief · 管理员")
    expect(page.locator("nav a[href='/inbox']")).to_be_visible()


def test_an_editor_revises_someone_elses_post_and_an_analyst_only_reads_it(
    browsers: Browsers, accounts: Accounts
) -> None:
    alice = accounts.of("creator")
    done = run_as(accounts, alice, "帮我写一篇周末去公园野餐的笔记", images=1)[-1]
    assert done["type"] == "workflow_complete"

    editor = browsers.login_as("editor", path=f"/?thread={done['threadId']}")
    page = editor.page
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=30_000)
    box = page.locator("#revise-card")
    expect(box).to_be_visible()  # no start form for an editor, but someone else's post to revise
    expect(page.locator("[data-action=edit-image]").first).to_be_visible()
    box.locator("#revise-message").fill("标题里加上「周末」")
    page.click("#revise-btn")
    expect(page.locator(".run-version")).to_have_text("第 2 版", timeout=90_000)
    with accounts.client(alice) as client:
        versions = client.get(f"/api/creatives/{done['creativeId']}/versions").json()["items"]
    assert versions[-1]["number"] == 2 and versions[-1]["actor"] == f"user:{accounts.of('editor').name}"

    analyst = browsers.login_as("analyst", path=f"/?thread={done['threadId']}")
    expect(analyst.page.locator(".status-pill").first).to_have_text("已完成", timeout=30_000)
    expect(analyst.page.locator(".run-version")).to_have_text("第 2 版")
    expect(analyst.page.locator("#revise-card")).to_be_hidden()
    expect(analyst.page.locator("[data-action=edit-image]").first).to_be_hidden()
