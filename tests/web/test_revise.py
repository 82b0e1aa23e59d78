"""继续修改 in the studio (issue 17): under a finished run's result, a new message on the same thread starts a
revision run that the page follows like any run — a title change keeps the picture and makes version 2, a
picture change redraws it and makes version 3 — and a thread busy elsewhere is refused in Chinese."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import ARTIFACTS, Studio, run_workflow
from tests.web.test_labels import raw_on_screen
from tests.web.test_studio import REQUEST, rendered_seqs, start

DONE_TIMEOUT = 90_000


def image_src(page: Page) -> str:
    images = page.locator(".image-grid img")
    expect(images).to_have_count(1)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.image-grid img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    return images.first.get_attribute("src") or ""


def wait_done(page: Page, version: int) -> None:
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=DONE_TIMEOUT)
    expect(page.locator(".run-version")).to_have_text(f"第 {version} 版")
    expect(page.locator("#revise-btn")).to_be_enabled()


def box_shot(studio: Studio, label: str) -> None:
    """The 继续修改 box alone (a page shot starts at the top, far above it)."""
    ARTIFACTS.mkdir(exist_ok=True)
    studio.page.locator("#revise-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-{label}.png"))


def revise(page: Page, message: str) -> None:
    page.fill("#revise-message", message)
    page.click("#revise-btn")


def test_a_finished_post_is_revised_in_place_text_then_picture(studio: Studio) -> None:
    studio.name = "revise"
    studio.expect_console_error("status of 409")
    page = studio.goto("/")
    start(page, REQUEST, images=1, hitl=False)
    box = page.locator("#revise-card")
    expect(box).to_be_hidden()  # nothing to revise while the first run goes
    wait_done(page, 1)
    expect(box).to_be_visible()
    expect(box.locator("#revise-hitl")).not_to_be_checked()  # the page's 人工审核 setting
    expect(box.locator("#revise-message")).to_have_attribute("placeholder", re.compile("第2张图换成蓝色调"))
    expect(box.locator(".revise-chip")).to_have_text(
        ["标题更吸引人", "正文短一点", "语气更活泼", "换成写给大学生", "封面换个配色"]
    )
    first_title = page.locator("[data-testid=draft-title]").inner_text()
    first_image = image_src(page)
    thread = page.evaluate("() => new URLSearchParams(location.search).get('thread')")

    # an empty message is explained; a chip fills the box, and the creator edits it before submitting
    page.click("#revise-btn")
    expect(box.locator("#revise-error")).to_have_text("请先写下想怎么修改。")
    box.locator(".revise-chip", has_text="标题更吸引人").click()
    expect(box.locator("#revise-message")).to_have_value("标题更吸引人")
    expect(box.locator("#revise-error")).to_be_hidden()
    box_shot(studio, "1-box")

    # a text revision: the draft is rewritten, the picture kept, version 2
    revise(page, "标题里加上「新手必看」")
    expect(page.locator(".status-pill").first).not_to_have_text("已完成")
    expect(page.locator("#revise-btn")).to_be_disabled()
    wait_done(page, 2)
    expect(page.locator("[data-testid=draft-title]")).to_contain_text("新手必看")
    assert page.locator("[data-testid=draft-title]").inner_text() != first_title
    assert image_src(page) == first_image, "a text revision keeps the picture"
    expect(box.locator("#revise-message")).to_have_value("")
    expect(box.locator("#revise-note")).to_have_text("已按要求修改，生成第 2 版。")
    expect(box.locator("#revise-base")).to_have_text("基于第 2 版")
    expect(page.locator(".run-status .phase")).to_have_text("修改完成")
    expect(page.locator(".timeline [data-type=workflow_progress]")).to_have_text(re.compile("修订：修改文案"))
    expect(page.locator("#scores-card .score-head .badge")).to_have_text(re.compile("通过|未通过"))
    seqs = rendered_seqs(page)
    assert len(seqs) == len(set(seqs)), "an event was rendered twice"
    assert page.evaluate("() => new URLSearchParams(location.search).get('thread')") == thread
    studio.shot("2-version-2")
    box_shot(studio, "2-box-done")

    # a picture revision: the text stays, the picture is drawn again, version 3
    second_title = page.locator("[data-testid=draft-title]").inner_text()
    revise(page, "第1张图换成蓝色调")
    wait_done(page, 3)
    third_image = image_src(page)
    assert third_image != first_image, "the picture was redrawn"
    expect(page.locator("[data-testid=draft-title]")).to_have_text(second_title)
    expect(page.locator(".timeline [data-type=workflow_progress]").last).to_contain_text("修订：重做配图")
    assert not raw_on_screen(page.locator("body")), raw_on_screen(page.locator("body"))
    studio.shot("3-version-3")
    page.locator(".timeline [data-type=workflow_progress]").last.scroll_into_view_if_needed()
    page.locator(".timeline-card").screenshot(path=str(ARTIFACTS / f"{studio.name}-3-timeline.png"))

    with studio.api() as client:
        creative_id = client.get(f"/api/agent/threads/{thread}").json()["creativeId"]
        versions = client.get(f"/api/creatives/{creative_id}/versions").json()
    assert [v["number"] for v in versions["items"]] == [1, 2, 3]
    assert "新手必看" in versions["items"][-1]["title"]

    # reopening the thread replays all three runs and offers the box on version 3
    page.reload()
    wait_done(page, 3)
    expect(page.locator("[data-testid=draft-title]")).to_have_text(second_title)
    assert image_src(page) == third_image
    expect(page.locator(".timeline [data-type=workflow_progress]")).to_have_count(2)

    # the thread paused by a revision from elsewhere: this page's message is refused, in Chinese
    with studio.api() as client:
        paused = client.post(
            "/api/agent/stream", json={"threadId": thread, "message": "正文短一点", "enableHITL": True}
        )
        assert paused.status_code == 200 and '"workflow_paused"' in paused.text
    revise(page, "语气更活泼")
    error = box.locator("#revise-error")
    expect(error).to_contain_text("状态冲突")
    expect(error).to_contain_text("正在运行或等待审核")
    expect(error).not_to_contain_text("THREAD_BUSY")
    expect(page.locator(".status-pill").first).to_have_text("已完成")
    expect(box.locator("#revise-message")).to_have_value("语气更活泼")
    box_shot(studio, "4-busy")


def test_the_box_is_offered_on_a_reopened_finished_thread(studio: Studio) -> None:
    studio.name = "revise-reopen"
    done = run_workflow(studio.server, "帮我写一篇周末去公园野餐的笔记", images=1)[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 1
    page = studio.goto(f"/?thread={done['threadId']}")
    wait_done(page, 1)
    box = page.locator("#revise-card")
    expect(box).to_be_visible()
    expect(box.locator("#revise-hitl")).not_to_be_checked()  # the thread's own setting
    box.locator(".revise-chip", has_text="正文短一点").click()
    box.locator(".revise-chip", has_text="语气更活泼").click()
    expect(box.locator("#revise-message")).to_have_value("正文短一点，语气更活泼")

    # 人工审核 on for this revision: the new draft pauses for a check like any run's, then goes on
    box.locator("label.revise-switch").click()
    expect(box.locator("#revise-hitl")).to_be_checked()
    expect(page.locator("#hitl")).to_be_checked()  # the page's switch follows
    page.click("#revise-btn")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    expect(page.locator(".status-pill").first).to_have_text("待审核")
    expect(box.locator("#revise-note")).to_have_text("修改已暂停，等待审核确认（见上方）。")
    expect(page.locator("#revise-btn")).to_be_disabled()
    panel.locator("[data-action=approve]").click()
    wait_done(page, 2)
    expect(box.locator("#revise-note")).to_have_text("已按要求修改，生成第 2 版。")


def test_one_click_rewrites_make_a_shorter_draft_then_a_new_title(studio: Studio) -> None:
    studio.name = "revise-rewrite"
    page = studio.goto("/")
    start(page, REQUEST, images=1, hitl=False)
    wait_done(page, 1)
    box = page.locator("#revise-card")
    rewrites = box.locator(".revise-rewrite")
    expect(rewrites).to_have_text(
        ["更短", "更长", "更活泼", "更正式", "多点表情", "少点表情", "换个标题", "换受众"]
    )
    first_title = page.locator("[data-testid=draft-title]").inner_text()
    first_body = page.locator("[data-testid=draft-body]").inner_text()
    first_image = image_src(page)

    # 换受众 asks for the audience inline (no dialog); an empty one is explained, 取消 closes it
    rewrites.filter(has_text="换受众").click()
    expect(box.locator("#revise-audience")).to_be_visible()
    expect(box.locator("#revise-audience")).to_be_focused()
    box.locator("#revise-audience-ok").click()
    expect(box.locator("#revise-error")).to_have_text("请先写下新的受众，比如：大学生。")
    box.locator("#revise-audience-cancel").click()
    expect(box.locator("#revise-audience")).to_be_hidden()
    box_shot(studio, "1-box")

    # 更短: a text revision based on version 1 — a shorter body, the same picture, version 2
    rewrites.filter(has_text="更短").click()
    expect(page.locator("#revise-btn")).to_be_disabled()
    wait_done(page, 2)
    second_body = page.locator("[data-testid=draft-body]").inner_text()
    assert len(second_body) < len(first_body), (len(second_body), len(first_body))
    assert image_src(page) == first_image, "a rewrite keeps the picture"
    expect(box.locator("#revise-note")).to_have_text("已一键改写（更短），生成第 2 版。")
    expect(box.locator("#revise-base")).to_have_text("基于第 2 版")

    # 换个标题: version 3 with another title
    second_title = page.locator("[data-testid=draft-title]").inner_text()
    rewrites.filter(has_text="换个标题").click()
    wait_done(page, 3)
    third_title = page.locator("[data-testid=draft-title]").inner_text()
    assert third_title not in (first_title, second_title), third_title
    expect(box.locator("#revise-note")).to_have_text("已一键改写（换个标题），生成第 3 版。")
    assert not raw_on_screen(page.locator("body")), raw_on_screen(page.locator("body"))
    seqs = rendered_seqs(page)
    assert len(seqs) == len(set(seqs)), "an event was rendered twice"
    box_shot(studio, "2-box-done")

    thread = page.evaluate("() => new URLSearchParams(location.search).get('thread')")
    with studio.api() as client:
        creative_id = client.get(f"/api/agent/threads/{thread}").json()["creativeId"]
        versions = client.get(f"/api/creatives/{creative_id}/versions").json()["items"]
    assert [v["number"] for v in versions] == [1, 2, 3]
    assert [v.get("sourceLabel") for v in versions[1:]] == ["一键改写", "一键改写"], versions
