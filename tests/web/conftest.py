"""Browser tests: Playwright (sync API) driving Debian's Chromium against a real `studio serve` process.

One server and one browser for the whole `tests/web` package; every test gets a fresh browser context
(cookies, storage) that may only talk to that server — any other request is aborted and fails the test,
so the studio provably loads nothing from the internet. Screenshots go to `tests/web/artifacts/`.

Chromium cannot be downloaded here (never `playwright install`): `make system-deps` installs Debian's
`chromium`; `STUDIO_CHROMIUM` overrides the path. The UI is Chinese, so the browser gets the Noto CJK font
shipped in the `noto-cjk-sans-otc` wheel through a private fontconfig file.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route, sync_playwright

from tests.serving import LiveServer, events_of

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
    env = {**os.environ, "FONTCONFIG_FILE": str(_fontconfig(tmp_path_factory.mktemp("fonts")))}
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, env=env)
    try:
        yield browser
    finally:
        browser.close()


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

    def expect_console_error(self, pattern: str) -> None:
        self.expected.append(pattern)

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
    browser: Browser, server: LiveServer, viewport: dict[str, int]
) -> tuple[BrowserContext, list[str]]:
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        locale="zh-CN",
        timezone_id="Asia/Shanghai",
        accept_downloads=True,
    )
    context.set_default_timeout(30_000)
    outside: list[str] = []
    origin = server.url

    def only_our_server(route: Route) -> None:
        url = route.request.url
        if url.startswith(origin + "/") or url == origin or url.startswith(("data:", "blob:")):
            route.fallback()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", only_our_server)
    return context, outside


def _studio(
    request: pytest.FixtureRequest, browser: Browser, server: LiveServer, viewport: dict[str, int]
) -> Iterator[Studio]:
    context, outside = _context(browser, server, viewport)
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", request.node.name.removeprefix("test_"))[:80]
    page = context.new_page()
    studio = Studio(server, context, page, name, outside=outside)
    _watch(studio, page)
    try:
        yield studio
    finally:
        context.close()
    assert not studio.outside, f"the page tried to load from outside the server: {studio.outside}"
    assert not studio.unexpected_errors(), f"errors in the browser: {studio.unexpected_errors()}"
    assert not studio.dialogs, f"unexpected dialogs: {studio.dialogs}"


@pytest.fixture
def studio(request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer) -> Iterator[Studio]:
    """A desktop (1280×900) browser context on the live server."""
    yield from _studio(request, browser, web_server, DESKTOP)


@pytest.fixture
def phone(request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer) -> Iterator[Studio]:
    """A phone-sized (390×844) browser context on the live server."""
    yield from _studio(request, browser, web_server, PHONE)


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


def no_horizontal_overflow(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"))
