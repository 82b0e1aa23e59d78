"""改写选中文字 in the studio (issue 17): selecting text in a finished draft's body offers "改写选中文字"; its small
box rewrites just that text — a quick chip (更简洁) or an instruction of the creator's own — posting the
selection's offsets in code points (the body has emoji before it, so they differ from the browser's UTF-16
indexes) to `…/rewrite` with `action: selection`, followed like a one-click rewrite to a new version."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, Request, expect

from tests.web.conftest import ARTIFACTS, Studio, run_workflow
from tests.web.test_labels import raw_on_screen

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族，改写选中文字用"
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


def pick_line(body: str) -> tuple[int, str]:
    """A line of a paragraph after the first emoji of the body (so code points and UTF-16 units differ)."""
    emoji_at = next(i for i, ch in enumerate(body) if ord(ch) > 0xFFFF)
    for index, para in enumerate(paragraphs(body)):
        if body.index(para) <= emoji_at:
            continue
        for line in para.split("\n"):
            text = line.strip()
            if len(text) >= 6:
                return index, text
    raise AssertionError("no line to select after an emoji")


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
    index, line = pick_line(body)
    select_text(page, index, line)
    expect(offer).to_be_visible()
    expect(offer).to_have_text(f"改写选中文字（{len(line)} 字）")
    offer.click()
    expect(box).to_be_visible()
    expect(box.locator("#selection-quote")).to_have_text(line)
    expect(box.locator("#selection-instruction")).to_be_focused()
    expect(box.locator(".selection-chip")).to_have_text(["更简洁", "更生动", "更正式", "删掉这段"])
    box.locator("#selection-send").click()
    expect(box.locator("#selection-error")).to_have_text("请先写下想怎么改，或点一个快捷选项。")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#draft-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-1-box.png"))
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()

    # 更简洁: only the selected line is rewritten, version 2
    select_text(page, index, line)
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
    assert "".join(list(body)[start:end]) == sent["selection"]["text"] == line  # code points, as Python counts
    assert start != body.index(line), "the offsets are code points, not UTF-16 units"
    with studio.api() as client:
        creative = client.get(f"/api/creatives/{done['creativeId']}").json()
    new_body = creative["body"]
    at = body.index(line)
    assert new_body.startswith(body[:at]) and new_body.endswith(body[at + len(line):]), new_body
    assert new_body != body

    # an instruction of the creator's own (Enter sends it), version 3
    index2, line2 = pick_line(new_body)
    select_text(page, index2, line2)
    offer.click()
    box.locator("#selection-instruction").fill("加一个具体的例子")
    box.locator("#selection-instruction").press("Enter")
    wait_version(page, 3)
    expect(page.locator("#revise-note")).to_have_text("已改写选中文字，生成第 3 版。")
    assert bodies[-1]["instruction"] == "加一个具体的例子" and bodies[-1]["basedOn"] == 2
    assert not raw_on_screen(page.locator("body")), raw_on_screen(page.locator("body"))
    page.locator("#draft-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-2-done.png"))
