"""A direct answer in the studio offers "写成笔记": one click starts a post run on the same topic."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.web.conftest import Studio
from tests.web.test_studio import start


def test_an_answer_offers_a_post_on_the_same_topic(studio: Studio) -> None:
    studio.name = "answer-offer"
    page = studio.goto("/")
    start(page, "上班族颈椎痛怎么办？", images=1, hitl=False)

    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=60_000)
    offer = page.locator("[data-action=write-post]")
    expect(offer).to_have_text("写成笔记")
    expect(page.locator(".answer-offer")).to_contain_text("写一篇上班族颈椎痛的笔记")
    studio.shot("1-answer")

    offer.click()
    expect(page.locator("#request-summary")).to_contain_text("写一篇上班族颈椎痛的笔记")
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator("#brief-card")).to_contain_text("上班族颈椎痛")
    expect(page.locator(".image-grid img")).to_have_count(1)
    expect(page.locator("[data-action=write-post]")).to_have_count(0)  # a post offers nothing
    studio.shot("2-post")
