"""Browser tests: Playwright (sync API) driving Debian's Chromium against a real `studio serve` process.

One server and one browser for the whole `tests/web` package; every test gets a fresh browser context
(cookies, storage) that may only talk to that server — any other request is aborted and fails the test,
so the studio provably loads nothing from the internet. Screenshots go to `tests/web/artifacts/`.

The server is authenticated: `studio` and `phone` are logged in as an admin account (`chief`) through the
real login form (once; later contexts reuse its session cookie), and `login_as(role)` opens a fresh
context logged in as one account per role — `accounts` creates them with `studio users add` and gives
API tokens for them (`studio tokens create`), so a test can start runs as that role.

Chromium cannot be downloaded here (never `playwright install`): `make system-deps` installs Debian's
`chromium`; `STUDIO_CHROMIUM` overrides the path. The UI is Chinese, so the browser gets the Noto CJK font
shipped in the `noto-cjk-sans-otc` wheel through a private fontconfig file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route, expect, sync_playwright

from tests.serving import ROOT, LiveServer, events_of

CHROMIUM = Path(os.environ.get("STUDIO_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _fontconfig(directory: Path) -> Path:
    """A fontconfig file: the system fonts plus Noto Sans CJK from the wheel the renderer already uses."""
    from noto_cjk_sans_otc import FONT_PATH  # only the browser tests need it

    (directory / "cache").mkdir(parents=True, exist_ok=True)
    conf = directory / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{Path(FONT_PATH).parent}</dir>\n  <cachedir>{directory / 'cache'}</cachedir>\n"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return conf


@pytest.fixture(scope="package")
def web_server(tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path) -> Iterator[LiveServer]:
    """One real server for the browser tests, on a data dir holding a copy of the seeded knowledge store."""
    data_dir = tmp_path_factory.mktemp("web") / "data"
    shutil.copytree(knowledge_dir, data_dir / "lancedb")
    server = LiveServer(data_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make system-deps` (or set STUDIO_CHROMIUM)")
    fonts = _fontconfig(tmp_path_factory.mktemp("fonts"))
    env: dict[str, str | float | bool] = {**os.environ, "FONTCONFIG_FILE": str(fonts)}
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env=env)
    try:
        yield browser
    finally:
        browser.close()


# --- accounts ---------------------------------------------------------------------------------------

PASSWORD = "studio-test-密码-2024"
# one account per role; none of these names is a raw value the label tests look for (`admin` is the
# token-only local admin the server made at its first start, owner of every `run_workflow` run)
ACCOUNT_NAMES = {"admin": "chief", "creator": "alice", "editor": "bob", "analyst": "carol"}


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    password: str = PASSWORD

    @property
    def actor(self) -> str:
        return f"user:{self.name}"


class Accounts:
    """Accounts on the test server, made once each with the real CLI (`studio users add`, `studio tokens
    create`) on the server's data dir."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self._accounts: dict[str, Account] = {}
        self._tokens: dict[str, str] = {}
        self._states: dict[str, Any] = {}

    def _cli(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "app", *args, "--data-dir", str(self.server.data_dir)],
            input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
        )
        assert done.returncode == 0, f"studio {' '.join(args)}: {done.stderr}"
        return done.stdout

    def of(self, role: str, name: str | None = None) -> Account:
        """The account for `role` (or a further one called `name`), created with a password on first use."""
        name = name or ACCOUNT_NAMES[role]
        if name not in self._accounts:
            self._cli("users", "add", name, "--role", role, "--password-stdin", stdin=PASSWORD + "\n")
            self._accounts[name] = Account(name, role)
        return self._accounts[name]

    def token(self, account: Account) -> str:
        if account.name not in self._tokens:
            self._tokens[account.name] = self._cli("tokens", "create", account.name).strip()
        return self._tokens[account.name]

    def client(self, account: Account, **kwargs: Any) -> httpx.Client:
        """An API client acting as `account` (its own Bearer token)."""
        return httpx.Client(
            base_url=self.server.url, timeout=kwargs.pop("timeout", 120),
            headers={"Authorization": f"Bearer {self.token(account)}"}, **kwargs,
        )


    def browser_state(self, browser: Browser, account: Account) -> Any:
        """Cookies of a browser logged in as `account`: logged in through the form once, then reused."""
        if account.name not in self._states:
            context, _, _ = _context(browser, self.server, DESKTOP)
            try:
                log_in(context.new_page(), self.server, account)
                self._states[account.name] = context.storage_state()
            finally:
                context.close()
        return self._states[account.name]


_ACCOUNTS: dict[str, Accounts] = {}


def accounts_on(server: LiveServer) -> Accounts:
    """The accounts of one test server (every server has its own data dir, so its own accounts)."""
    if server.url not in _ACCOUNTS:
        _ACCOUNTS[server.url] = Accounts(server)
    return _ACCOUNTS[server.url]


@pytest.fixture(scope="package")
def accounts(web_server: LiveServer) -> Accounts:
    return accounts_on(web_server)


def log_in(page: Page, server: LiveServer, account: Account, path: str = "/") -> None:
    """Log in through the real login form, asking for `path` first (the server sends us to the form)."""
    page.goto(server.url + path)
    expect(page).to_have_url(re.compile(r"/login\?next="))
    page.fill("input[name=name]", account.name)
    page.fill("input[name=password]", account.password)
    page.click("button[type=submit]")
    expect(page).not_to_have_url(re.compile(r"/login"))


@dataclass
class Studio:
    """A page on the studio plus what the test should know about it: errors, dialogs, outside requests."""

    server: LiveServer
    context: BrowserContext
    page: Page
    name: str
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)  # regexes of console errors a test provokes on purpose
    allowed: list[str] = field(default_factory=list)  # other origins a test may load on purpose
    account: Account | None = None

    def expect_console_error(self, pattern: str) -> None:
        self.expected.append(pattern)

    def allow_origin(self, origin: str) -> None:
        """Let this context load from `origin` too (a test's attacker site)."""
        self.allowed.append(origin)

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(re.search(p, e) for p in self.expected)]

    def goto(self, path: str) -> Page:
        self.page.goto(self.server.url + path)
        return self.page

    def shot(self, label: str, *, full_page: bool = True) -> Path:
        """Screenshot into tests/web/artifacts/<test>-<label>.png (from the top of the page)."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}.png"
        self.page.evaluate("() => window.scrollTo(0, 0)")
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def api(self) -> httpx.Client:
        return self.server.client()

    def new_page(self, viewport: dict[str, int] | None = None) -> Page:
        page = self.context.new_page()
        if viewport:
            page.set_viewport_size(viewport)  # type: ignore[arg-type]
        _watch(self, page)
        return page


def _watch(studio: Studio, page: Page) -> None:
    def on_console(message: Any) -> None:
        if message.type == "error":
            studio.errors.append(f"console: {message.text}")

    def on_dialog(dialog: Any) -> None:
        studio.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda error: studio.errors.append(f"pageerror: {error}"))
    page.on("dialog", on_dialog)


def _context(
    browser: Browser, server: LiveServer, viewport: dict[str, int], *, storage_state: Any = None
) -> tuple[BrowserContext, list[str], list[str]]:
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        locale="zh-CN",
        timezone_id="Asia/Shanghai",
        accept_downloads=True,
        storage_state=storage_state,
    )
    context.set_default_timeout(30_000)
    outside: list[str] = []
    allowed: list[str] = [server.url]

    def only_our_server(route: Route) -> None:
        url = route.request.url
        ours = any(url == origin or url.startswith(origin + "/") for origin in allowed)
        if ours or url.startswith(("data:", "blob:")):
            route.fallback()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", only_our_server)
    return context, outside, allowed


def _test_name(request: pytest.FixtureRequest) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name.removeprefix("test_"))[:80]


def _open(
    browser: Browser, server: LiveServer, viewport: dict[str, int], name: str, *,
    storage_state: Any = None, account: Account | None = None,
) -> Studio:
    context, outside, allowed = _context(browser, server, viewport, storage_state=storage_state)
    page = context.new_page()
    studio = Studio(server, context, page, name, outside=outside, allowed=allowed, account=account)
    _watch(studio, page)
    return studio


def _finish(studio: Studio) -> None:
    studio.context.close()
    assert not studio.outside, f"the page tried to load from outside the server: {studio.outside}"
    assert not studio.unexpected_errors(), f"errors in the browser: {studio.unexpected_errors()}"
    assert not studio.dialogs, f"unexpected dialogs: {studio.dialogs}"


def _studio(
    request: pytest.FixtureRequest, browser: Browser, server: LiveServer, viewport: dict[str, int],
    role: str = "admin",
) -> Iterator[Studio]:
    """A context on `server` logged in as the account of `role` (an admin unless told)."""
    accounts = accounts_on(server)
    account = accounts.of(role)
    state = accounts.browser_state(browser, account)
    studio = _open(browser, server, viewport, _test_name(request), storage_state=state, account=account)
    try:
        yield studio
    finally:
        _finish(studio)


@pytest.fixture
def studio(request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer) -> Iterator[Studio]:
    """A desktop (1280×900) browser context on the live server, logged in as an admin."""
    yield from _studio(request, browser, web_server, DESKTOP)


@pytest.fixture
def phone(request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer) -> Iterator[Studio]:
    """A phone-sized (390×844) browser context on the live server, logged in as an admin."""
    yield from _studio(request, browser, web_server, PHONE)


class Browsers:
    """Fresh browser contexts for one test: anonymous, or logged in through the login form as a role."""

    def __init__(self, browser: Browser, server: LiveServer, accounts: Accounts, name: str) -> None:
        self.browser, self.server, self.accounts, self.name = browser, server, accounts, name
        self.opened: list[Studio] = []

    def anonymous(self, viewport: dict[str, int] = DESKTOP, *, label: str = "anonymous") -> Studio:
        studio = _open(self.browser, self.server, viewport, f"{self.name}-{label}")
        self.opened.append(studio)
        return studio

    def login_as(self, role: str, viewport: dict[str, int] = DESKTOP, *, path: str = "/") -> Studio:
        """A context logged in as the account of `role` through the login form, on `path`."""
        account = self.accounts.of(role)
        studio = self.anonymous(viewport, label=role)
        studio.account = account
        log_in(studio.page, self.server, account, path)
        return studio


@pytest.fixture
def browsers(
    request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer, accounts: Accounts
) -> Iterator[Browsers]:
    opened = Browsers(browser, web_server, accounts, _test_name(request))
    try:
        yield opened
    finally:
        for studio in opened.opened:
            _finish(studio)


# --- driving the API directly (to prepare data) ---------------------------------------------------


def run_workflow(
    server: LiveServer, message: str, *, hitl: bool = False, images: int = 1
) -> list[dict[str, Any]]:
    """Start a run through the API and read its stream to the end (completion or the first pause)."""
    with server.client(timeout=120) as client:
        response = client.post(
            "/api/agent/stream", json={"message": message, "enableHITL": hitl, "imageCount": images}
        )
        assert response.status_code == 200, response.text
        return events_of(response.text)


def run_as(
    accounts: Accounts, account: Account, message: str, *, hitl: bool = False, images: int = 1
) -> list[dict[str, Any]]:
    """`run_workflow`, started by `account` with its own API token (the run is that account's)."""
    with accounts.client(account) as client:
        response = client.post(
            "/api/agent/stream", json={"message": message, "enableHITL": hitl, "imageCount": images}
        )
        assert response.status_code == 200, response.text
        return events_of(response.text)


def no_horizontal_overflow(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"))
