"""识别文字 on a creative's detail page in a real browser: the toggle under a finished card fetches its
analysis (real OCR on the server), draws the recognised lines and the element boxes over the image, lists
them below it, and hides them again; it works from the keyboard and shows no raw values."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import Accounts, Studio, run_as
from tests.web.test_labels import raw_on_screen

REQUEST = "帮我写一篇周末城市露营的小红书笔记，识别文字用"


def flat(text: str) -> str:
    return "".join(text.split())


def test_the_text_of_a_card_is_recognised_and_drawn_over_it(studio: Studio, accounts: Accounts) -> None:
    studio.name = "analysis"
    assert studio.account is not None
    done = run_as(accounts, studio.account, REQUEST)[-1]
    assert done["type"] == "workflow_complete", {k: done.get(k) for k in ("code", "message", "agent")}
    creative_id, [asset_id] = done["creativeId"], done["imageAssetIds"]

    page = studio.goto(f"/creatives/{creative_id}")
    figure = page.locator("#detail-images figure.image-slot").first
    toggle = figure.get_by_role("button", name="识别文字")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.focus()
    page.keyboard.press("Enter")  # from the keyboard
    expect(figure.locator(".analysis-status")).to_contain_text("识别到", timeout=30_000)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_be_focused()

    # what the page shows is the server's analysis: every recognised line boxed over the image and listed
    with accounts.client(studio.account) as api:
        analysis: dict[str, Any] = api.get(f"/api/assets/{asset_id}/analysis").json()
    assert analysis["cached"] is True  # the page's request computed and stored it
    lines = analysis["textRegions"]
    expect(figure.locator(".analysis-overlay .ocr-box")).to_have_count(len(lines))
    expect(figure.locator(".analysis-lines li")).to_have_count(len(lines))
    # the headline the card's layout drew is among the recognised text, on the image and in the list
    texts = [e for e in analysis["elements"] if e["kind"] == "text"]
    headline = next(e["text"] for e in texts if e.get("label") == "headline")
    longest = max(headline.splitlines(), key=len)
    assert flat(longest) in flat(figure.locator(".analysis-lines").inner_text()), (longest, lines)
    assert flat(longest) in flat(figure.locator(".analysis-overlay").inner_text())
    expect(figure.locator(".analysis-overlay .element-box").first).to_be_attached()
    panel = figure.get_by_role("region", name="识别结果")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("置信度")
    expect(panel).to_contain_text("画面元素")
    assert not raw_on_screen(figure), raw_on_screen(figure)
    studio.shot("1-overlay")

    toggle.click()  # and off again
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(figure.locator(".analysis-overlay")).to_have_count(0)
    expect(panel).to_be_hidden()
