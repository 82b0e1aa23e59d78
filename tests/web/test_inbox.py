"""The editors' inbox (`/inbox`) in a real browser: paused runs newest first, reviewed and confirmed there."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.web.conftest import Studio, no_horizontal_overflow, run_workflow


def test_an_editor_confirms_a_paused_run_from_the_inbox(studio: Studio) -> None:
    studio.name = "inbox"
    older = run_workflow(studio.server, "帮我写一篇冬天围炉煮茶的笔记，面向大学生", hitl=True)
    newer = run_workflow(studio.server, "帮我写一篇秋天徒步武功山的攻略", hitl=True)
    assert older[-1]["type"] == newer[-1]["type"] == "workflow_paused"
    older_id, newer_id = older[-1]["threadId"], newer[-1]["threadId"]

    page = studio.goto("/inbox")
    items = page.locator(".inbox-item")
    expect(items.first).to_be_visible()
    threads = [items.nth(i).get_attribute("data-thread") for i in range(items.count())]
    assert threads.index(newer_id) < threads.index(older_id), "newest first"
    item = page.locator(f".inbox-item[data-thread='{newer_id}']")
    expect(item).to_contain_text("秋天徒步武功山")
    expect(item.locator(".badge")).to_have_text("文案审核")
    expect(item.locator(".inbox-age")).to_have_text(re.compile("刚刚|分钟前"))
    expect(page.locator("#inbox-count")).to_have_text(str(len(threads)))
    studio.shot("1-list")

    # open it: the paused draft with its brief and evidence, the checkpoint in place
    item.click()
    expect(item).to_have_attribute("aria-current", "true")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible()
    expect(page.locator(".review-request")).to_contain_text("秋天徒步武功山")
    expect(panel.locator(".draft-title")).not_to_be_empty()
    expect(page.locator("#brief-card")).to_be_visible()
    studio.shot("2-review")

    # approve: the run goes on, the list updates, and the run comes back at its next checkpoint
    panel.locator("[data-action=approve]").click()
    plans = page.locator(".checkpoint[data-kind=image_plans]")
    expect(plans).to_be_visible(timeout=60_000)
    expect(page.locator(f".inbox-item[data-thread='{newer_id}'] .badge")).to_have_text("配图规划审核")
    plans.locator("[data-action=approve]").click()
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成", timeout=90_000)
    expect(page.locator(f".inbox-item[data-thread='{newer_id}']")).to_have_count(0)
    expect(page.locator(f".inbox-item[data-thread='{older_id}']")).to_have_count(1)
    expect(page.locator(".image-grid img").first).to_be_visible()
    studio.shot("3-confirmed")
    with studio.api() as client:
        assert client.get(f"/api/agent/threads/{newer_id}").json()["status"] == "completed"

    # a deep link opens a run directly
    studio.goto(f"/inbox#thread={older_id}")
    expect(page.locator(f".inbox-item[data-thread='{older_id}']")).to_have_attribute("aria-current", "true")
    expect(page.locator(".checkpoint[data-kind=content]")).to_be_visible()


def test_the_inbox_on_a_phone(phone: Studio) -> None:
    phone.name = "inbox-phone"
    paused = run_workflow(phone.server, "帮我写一篇租房改造的笔记，预算一千元", hitl=True)
    page = phone.goto("/inbox")
    item = page.locator(f".inbox-item[data-thread='{paused[-1]['threadId']}']")
    expect(item).to_be_visible()
    assert no_horizontal_overflow(page)
    phone.shot("1-list", full_page=False)
    item.click()
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible()
    assert no_horizontal_overflow(page)
    phone.shot("2-review")
    panel.locator("[data-action=reject]").click()
    panel.locator("textarea").fill("多写一些预算分配的细节")
    panel.locator("[data-action=submit-reject]").click()
    expect(page.locator(".timeline [data-type=ask_user]")).to_have_count(2, timeout=60_000)
    expect(page.locator(".checkpoint[data-kind=content]")).to_be_visible()
