"""改写选中文字 in the studio (issue 17): selecting text in a finished draft's body offers "改写选中文字"; its
small box rewrites just that text — a quick chip (更简洁) or an instruction of the creator's own — posting the
selection's offsets in code points (the body has emoji before it, so they differ from the browser's UTF-16
indexes) to `…/rewrite` with `action: selection`, followed like a one-click rewrite to a new version."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, Request, expect

from tests.web.conftest import ARTIFACTS, Studio, run_workflow
from tests.web.test_labels import raw_on_screen

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"  # an emoji (🔥) opens a heading
DONE_TIMEOUT = 90_000


def wait_version(page: Page, version: int) -> None:
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=DONE_TIMEOUT)
    expect(page.locator(".run-version")).to_have_text(f"第 {version} 版", timeout=DONE_TIMEOUT)


def paragraphs(body: str) -> list[str]:
    """The body's paragraphs as the draft card shows them (one <p> each)."""
    return [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]


def select_text(page: Page, index: int, needle: str) -> None:
    """Select `needle` inside the body's paragraph `index`, as a creator's drag would."""
    page.evaluate(
        """([index, needle]) => {
          const p = document.querySelectorAll('[data-testid=draft-body] p')[index];
          const node = p.firstChild;
          const at = node.data.indexOf(needle);
          if (at < 0) throw new Error('not in the paragraph: ' + needle);
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + needle.length);
          const selection = document.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
        }""",
        [index, needle],
    )


def rewrite_bodies(page: Page) -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = []

    def on_request(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/rewrite"):
            bodies.append(json.loads(request.post_data or "{}"))

    page.on("request", on_request)
    return bodies


def pick_passage(body: str) -> tuple[int, str]:
    """Lines of a paragraph after the first emoji of the body outside the Basic Multilingual Plane (so code
    points and UTF-16 units differ), which may open that paragraph's heading: all but the paragraph's first
    line (its heading), two sentences or more for 更简洁 to shorten."""
    emoji_at = next(i for i, ch in enumerate(body) if ord(ch) > 0xFFFF)
    for index, para in enumerate(paragraphs(body)):
        lines = para.split("\n")
        if body.index(para) + len(lines[0]) > emoji_at and len(lines) >= 3:
            return index, "\n".join(lines[1:])
    raise AssertionError("no passage to select after an emoji")


def test_selected_text_is_rewritten_by_a_chip_and_by_an_instruction(studio: Studio) -> None:
    studio.name = "selection-edit"
    done = run_workflow(studio.server, REQUEST, images=1)[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 1, done
    page = studio.goto(f"/?thread={done['threadId']}")
    wait_version(page, 1)
    body = done["body"]
    offer = page.locator("#selection-offer")
    box = page.locator("#selection-box")
    expect(offer).to_be_hidden()
    bodies = rewrite_bodies(page)

    # selecting a line offers the rewrite beside it; its box quotes the selection
    index, passage = pick_passage(body)
    select_text(page, index, passage)
    expect(offer).to_be_visible()
    expect(offer).to_have_text(f"改写选中文字（{len(passage)} 字）")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#draft-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-0-offer.png"))
    offer.click()
    expect(box).to_be_visible()
    expect(box.locator("#selection-quote")).to_have_text(passage)
    expect(box.locator("#selection-instruction")).to_be_focused()
    expect(box.locator(".selection-chip")).to_have_text(["更简洁", "更生动", "更正式", "删掉这段"])
    box.locator("#selection-send").click()
    expect(box.locator("#selection-error")).to_have_text("请先写下想怎么改，或点一个快捷选项。")
    page.locator("#draft-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-1-box.png"))
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()

    # 更简洁: only the selected lines are rewritten, version 2
    select_text(page, index, passage)
    offer.click()
    box.locator(".selection-chip", has_text="更简洁").click()
    wait_version(page, 2)
    expect(box).to_be_hidden()
    expect(page.locator("#revise-note")).to_have_text("已改写选中文字（更简洁），生成第 2 版。")
    expect(page.locator("#revise-base")).to_have_text("基于第 2 版")
    assert len(bodies) == 1
    sent = bodies[0]
    assert sent["action"] == "selection" and sent["basedOn"] == 1 and sent["instruction"]
    start, end = sent["selection"]["start"], sent["selection"]["end"]
    assert body[start:end] == sent["selection"]["text"] == passage  # code points, as Python counts
    assert any(ord(ch) > 0xFFFF for ch in body[:start]), "an emoji before it: UTF-16 indexes would differ"
    with studio.api() as client:
        creative = client.get(f"/api/creatives/{done['creativeId']}").json()
    new_body = creative["body"]
    assert new_body.startswith(body[:start]) and new_body.endswith(body[end:]), new_body
    assert len(new_body) < len(body), new_body
    # each selected line keeps at least its first clause (a list is shortened line by line)
    first_clause = passage.split("\n")[0].split("，")[0]
    expect(page.locator("[data-testid=draft-body]")).to_have_text(re.compile(re.escape(first_clause)))

    # an instruction of the creator's own (Enter sends it), version 3
    first = paragraphs(new_body)[0]
    select_text(page, 0, first)
    offer.click()
    box.locator("#selection-instruction").fill("改成「周末不想出远门？城市露营刚刚好」")
    box.locator("#selection-instruction").press("Enter")
    wait_version(page, 3)
    expect(page.locator("#revise-note")).to_have_text("已改写选中文字，生成第 3 版。")
    assert bodies[-1]["basedOn"] == 2 and bodies[-1]["selection"]["start"] == 0
    expect(page.locator("[data-testid=draft-body] p").first).to_have_text("周末不想出远门？城市露营刚刚好")
    for where in ("#draft-card", "#revise-card"):  # (the timeline names the run's starter, `admin`)
        assert not raw_on_screen(page.locator(where)), raw_on_screen(page.locator(where))
    page.locator("#draft-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-2-done.png"))
