"""The draft fills in as the writer streams it, in a real browser against a real server whose offline model
streams slowly (first token after 300 ms, then 50 characters a second): the title and body grow in the
draft card, a second tab opening the run mid-draft shows the whole draft so far at once, the timeline shows
nothing of the deltas, and the checkpoint then shows the final draft."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from bench.server import wait_for_health
from tests.serving import ROOT, LiveServer
from tests.web.conftest import ARTIFACTS, DESKTOP, Studio, _studio

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


class PacedServer(LiveServer):
    """`studio serve` through `python -m bench.streaming serve`: the offline model streams at a pace."""

    def __init__(self, data_dir: Path, *, first_token_ms: float, chars_per_s: float) -> None:
        super().__init__(data_dir)
        self.pace = ["--first-token-ms", str(first_token_ms), "--chars-per-s", str(chars_per_s)]

    def start(self, timeout: float = 90) -> PacedServer:
        log = self.log_path.open("a", encoding="utf-8")
        command = [sys.executable, "-m", "bench.streaming", "serve", *self.pace, "--", "serve", "--port",
                   str(self.port)]
        self.proc = subprocess.Popen(command, env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                     text=True)
        log.close()
        wait_for_health(self.proc, self.url, timeout, self.log, every_s=0.1)
        return self


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path) -> Iterator[PacedServer]:
    data_dir = tmp_path_factory.mktemp("web-streaming") / "data"
    shutil.copytree(knowledge_dir, data_dir / "lancedb")
    server = PacedServer(data_dir, first_token_ms=300, chars_per_s=50).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def paced_studio(
    request: pytest.FixtureRequest, browser: Browser, paced_server: PacedServer
) -> Iterator[Studio]:
    yield from _studio(request, browser, paced_server, DESKTOP)


def body_length(page: Page) -> int:
    script = "() => document.querySelector('#draft-card .draft-body')?.textContent.length ?? 0"
    return int(page.evaluate(script))


def test_the_draft_fills_in_as_the_writer_streams_it(paced_studio: Studio) -> None:
    studio = paced_studio
    studio.name = "streaming"
    page = studio.goto("/")
    page.fill("#message", REQUEST)
    page.fill("#image-count", "1")
    page.click("#start-btn")

    card = page.locator("#draft-card")
    expect(card.locator("[data-testid=draft-streaming]")).to_have_text("正在撰写…", timeout=60_000)
    page.wait_for_function(
        "() => (document.querySelector('#draft-card .draft-body.streaming')?.textContent.length ?? 0) > 40",
        timeout=60_000,
    )
    title = card.locator(".draft-title").inner_text()
    assert title, "the title streams first"
    grown = body_length(page)
    studio.shot("1-mid-stream", full_page=False)
    page.wait_for_function(
        f"() => (document.querySelector('#draft-card .draft-body')?.textContent.length ?? 0) > {grown + 20}"
    )
    assert card.locator(".draft-title").inner_text().startswith(title)

    # a second tab opening the run mid-draft: the whole draft so far at once, then it grows there too
    thread_id = page.evaluate("() => new URLSearchParams(location.search).get('thread')")
    other = studio.new_page(DESKTOP)
    other.goto(f"{studio.server.url}/?thread={thread_id}")
    other_card = other.locator("#draft-card")
    expect(other_card.locator("[data-testid=draft-streaming]")).to_be_visible()
    assert body_length(other) >= grown and other_card.locator(".draft-title").inner_text().startswith(title)
    ARTIFACTS.mkdir(exist_ok=True)
    other.screenshot(path=str(ARTIFACTS / f"{studio.name}-2-joined-mid-stream.png"))

    # the deltas never reach the timeline; the checkpoint then holds the final draft
    expect(page.locator(".timeline > li[data-type=content_delta]")).to_have_count(0)
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    final_title = panel.locator(".draft-title").inner_text()
    assert final_title.startswith(title.strip())
    expect(page.locator("[data-testid=draft-streaming]")).to_have_count(0)
    expect(other.locator(".checkpoint[data-kind=content] .draft-title")).to_have_text(final_title)
    studio.shot("3-checkpoint")


def test_a_run_stopped_mid_draft_keeps_what_arrived_marked_unfinished(paced_studio: Studio) -> None:
    studio = paced_studio
    studio.name = "streaming-stopped"
    page = studio.goto("/")
    page.fill("#message", "写一篇新手在家练普拉提的小红书笔记")
    page.fill("#image-count", "1")
    page.click("#start-btn")
    page.wait_for_function(
        "() => (document.querySelector('#draft-card .draft-body.streaming')?.textContent.length ?? 0) > 10",
        timeout=60_000,
    )
    page.click("#stop-btn")
    note = page.locator("#draft-card [data-testid=draft-streaming]")
    expect(note).to_have_text("文案没有写完：运行已中断")
    expect(page.locator("#draft-card .draft-body.streaming")).to_have_count(0)  # no caret left blinking
    assert body_length(page) > 10
    expect(page.locator(".status-pill").first).to_have_text("已中止")
    studio.shot("stopped", full_page=False)
