"""A run handed on when its server stops, seen in a real browser: two `studio serve` processes on one data
dir, the page on the first (A). A is stopped (SIGTERM) mid-run; its stream ends with `reconnect` and
`[DONE]`, the page follows the run again, and — as a reverse proxy would, once A is gone — its requests
reach the second server (B), which has taken the run over. The page ends with the finished post and no
error, each event on the timeline once."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.serving import LiveServer, events_of
from tests.web.conftest import DESKTOP, Studio, _studio

REQUEST = "帮我写一篇第一次养猫准备清单的小红书笔记，面向租房的年轻人"


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path
) -> Iterator[tuple[LiveServer, LiveServer]]:
    data_dir = tmp_path_factory.mktemp("web-handover") / "data"
    shutil.copytree(knowledge_dir, data_dir / "lancedb")
    # slow enough models that the run is still going when A stops
    env = {"STUDIO_OFFLINE_LATENCY_MS": "400", "STUDIO_RUN_TICK_S": "0.5"}
    first = LiveServer(data_dir, env).start()
    second = LiveServer(data_dir, env).start()
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def on_first(
    request: pytest.FixtureRequest, browser: Browser, pair: tuple[LiveServer, LiveServer]
) -> Iterator[Studio]:
    yield from _studio(request, browser, pair[0], DESKTOP)


def test_a_run_handed_on_by_a_stopping_server_finishes_on_the_page(
    on_first: Studio, pair: tuple[LiveServer, LiveServer]
) -> None:
    studio = on_first
    first, second = pair

    def proxy(route: Route) -> None:
        """A's address, as a reverse proxy in front of both: A while it is up, then B."""
        if first.proc is not None and first.proc.poll() is None:
            route.fallback()
            return
        response = route.fetch(url=second.url + route.request.url.removeprefix(first.url))
        route.fulfill(response=response)

    studio.context.route(f"{first.url}/**", proxy)
    # the page may ask A again while A stops (503 SERVER_STOPPING): it retries, as it does on any 5xx
    studio.expect_console_error(r"status of 503")

    page = studio.goto("/")
    page.fill("#message", REQUEST)
    page.fill("#image-count", "1")
    page.locator("label.switch").click()  # no checkpoints on the way
    expect(page.locator("#hitl")).not_to_be_checked()
    page.click("#start-btn")
    page.wait_for_function("() => document.querySelectorAll('.timeline > li').length >= 4", timeout=60_000)
    thread_id = page.evaluate("() => new URLSearchParams(location.search).get('thread')")
    before = page.locator(".timeline > li").count()

    first.stop()  # SIGTERM: A hands the run on to B, whose sweeper continues it from its last checkpoint
    assert first.proc is not None and first.proc.returncode is not None

    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator("#draft-card .draft-title")).not_to_be_empty()
    assert page.locator(".timeline > li").count() > before
    assert not page.locator(".run-error").is_visible()
    studio.shot("finished-after-handover", full_page=False)

    # B ran the rest: the stored log says A handed the run on and B took it over, and holds each event once
    with second.client() as api:
        log = events_of(api.get(f"/api/agent/threads/{thread_id}/events").text)
    seqs = [event["seq"] for event in log]
    assert seqs == sorted(set(seqs)) and log[-1]["type"] == "workflow_complete"
    timeline_types = page.eval_on_selector_all(".timeline > li", "items => items.map(li => li.dataset.seq)")
    numbered = [seq for seq in timeline_types if seq]
    assert len(numbered) == len(set(numbered)), "an event shown twice on the timeline"
    assert "INTERRUPTED" not in {str(event.get("code")) for event in log if event["type"] == "error"}
