"""The creators' studio (`/`) in a real browser: a full run with both checkpoints, reconnection, the
clarification question, API errors, a phone-sized screen, and model output that looks like HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route, expect

from tests.fakes import reference_png
from tests.web.conftest import PHONE, Studio, no_horizontal_overflow, run_workflow

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
XSS = "<img src=x onerror=alert(1)>"


def reference_file(path: Path) -> Path:
    path.write_bytes(reference_png())
    return path


def start(page: Page, message: str, *, images: int = 3, hitl: bool = True) -> None:
    page.fill("#message", message)
    page.fill("#image-count", str(images))
    if not hitl:
        page.locator("label.switch").click()
        expect(page.locator("#hitl")).not_to_be_checked()
    page.click("#start-btn")


def checkpoint(page: Page, kind: str) -> Any:
    panel = page.locator(f".checkpoint[data-kind={kind}]")
    expect(panel).to_be_visible(timeout=60_000)
    return panel


def rendered_seqs(page: Page) -> list[str]:
    seqs: list[str] = page.eval_on_selector_all(
        ".timeline > li[data-seq]", "els => els.map(e => e.dataset.seq)"
    )
    return seqs


def test_creator_completes_a_run_with_a_reference_image_a_rejection_and_an_edited_plan(
    studio: Studio, tmp_path: Path
) -> None:
    studio.name = "creator"
    page = studio.goto("/")
    expect(page.locator("h1")).to_have_text("创作需求")
    expect(page.locator("#hero")).to_be_visible()
    studio.shot("1-empty")

    # a reference image through the file picker: previewed, typed, size shown
    page.set_input_files("#ref-input", str(reference_file(tmp_path / "露营参考.png")))
    item = page.locator(".ref-item")
    expect(item).to_have_count(1)
    expect(item.locator("img.ref-thumb")).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
    item.locator("select").select_option("layout")
    page.select_option("#layout-pref", "visual-first")
    page.fill("#message", REQUEST)
    page.fill("#image-count", "3")
    studio.shot("2-request")
    page.click("#start-btn")

    # first checkpoint: the draft, shown in the panel; reject needs feedback
    panel = checkpoint(page, "content")
    expect(page.locator("#request-summary")).to_contain_text(REQUEST)
    expect(page.locator("#request-summary")).to_contain_text("1 张参考图")
    expect(page.locator(".status-pill").first).to_have_text("待审核")
    first_title = panel.locator(".draft-title").inner_text()
    assert first_title
    expect(page.locator("#brief-card")).to_contain_text("周末城市露营")
    expect(page.locator("#evidence-card .notes li").first).to_be_visible()
    studio.shot("3-content-checkpoint")

    panel.locator("[data-action=reject]").click()
    panel.locator("[data-action=submit-reject]").click()
    expect(panel.locator(".alert.error")).to_contain_text("请先写下修改意见")
    expect(panel.locator("textarea")).to_have_attribute("aria-invalid", "true")
    panel.locator("textarea").fill("标题更口语化一点，正文加上预算和交通方式")
    studio.shot("4-reject-feedback")
    panel.locator("[data-action=submit-reject]").click()

    # the writer redoes the draft and pauses again: two content pauses in the timeline
    expect(page.locator(".timeline [data-type=ask_user]")).to_have_count(2, timeout=60_000)
    panel = checkpoint(page, "content")
    panel.locator("[data-action=approve]").click()

    # second checkpoint: the image plans; edit one subject, delete the last, move the new first down
    panel = checkpoint(page, "image_plans")
    expect(panel.locator(".plan-list > li")).to_have_count(3)
    panel.locator("[data-action=modify]").click()
    editor = panel.locator(".plan-edit")
    expect(editor).to_have_count(3)
    second_subject = editor.nth(1).locator("input[name=subject]").input_value()
    editor.nth(0).locator("input[name=subject]").fill("帐篷与天幕特写")
    editor.nth(2).locator("[data-action=delete]").click()
    expect(editor).to_have_count(2)
    editor.nth(0).locator("[data-action=down]").click()
    expect(editor.nth(1).locator("input[name=subject]")).to_have_value("帐篷与天幕特写")
    expect(editor.nth(0).locator("input[name=subject]")).to_have_value(second_subject)
    studio.shot("5-plans-edit")
    panel.locator("[data-action=submit-modify]").click()

    # the run finishes: images, scores, progress, timeline
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator(".run-status [role=progressbar]")).to_have_attribute("aria-valuenow", "100")
    images = page.locator(".image-grid img")
    expect(images).to_have_count(2)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.image-grid img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    expect(page.locator(".image-slot").nth(1)).to_contain_text("帐篷与天幕特写")
    bars = page.locator("#scores-card .score-bars li")
    expect(bars).to_have_count(5)
    expect(page.locator("#scores-card .score-head .badge")).to_have_text(re.compile("通过|未通过"))
    expect(page.locator("#layout-card .layout-items li").first).to_be_visible()
    expect(page.locator(".timeline .decision").first).to_contain_text("主管决策")
    expect(page.locator(".timeline .decision .chip").first).to_have_text("规则")
    expect(page.locator(".timeline .agent.done .tl-status").first).to_contain_text("完成 ·")
    tool = page.locator("details.tool[data-tool=searchNotes]").first
    expect(tool.locator(".tool-body")).to_be_hidden()
    tool.locator("summary").click()
    expect(tool.locator(".tool-io-label")).to_have_text(["输入", "输出"])
    seqs = rendered_seqs(page)
    assert len(seqs) == len(set(seqs)), "an event was rendered twice"
    studio.shot("6-completed")

    # what the editor did reached the server
    link = page.locator(".run-links a")
    expect(link).to_have_attribute("href", re.compile(r"^/creatives/\d+$"))
    creative_id = (link.get_attribute("href") or "").rsplit("/", 1)[-1]
    with studio.api() as client:
        creative = client.get(f"/api/creatives/{creative_id}").json()
    assert creative["status"] == "completed"
    assert [p["subject"] for p in creative["imagePlans"]] == [second_subject, "帐篷与天幕特写"]
    assert len([a for a in creative["assets"] if a["role"] != "reference"]) == 2
    assert creative["options"]["referenceCount"] == 1

    # a reload reopens the same run from the URL (?thread=) by replaying its events
    page.reload()
    expect(page.locator(".status-pill").first).to_have_text("已完成")
    expect(page.locator("[data-testid=draft-title]")).to_have_text(creative["title"])
    expect(page.locator(".image-grid img")).to_have_count(2)


def test_a_dropped_stream_resumes_from_the_last_event_without_duplicates(studio: Studio) -> None:
    studio.name = "reconnect"
    page = studio.page
    reconnects: list[str | None] = []

    def truncate(route: Route) -> None:
        # the real response, cut off mid-frame: the browser sees the connection drop before [DONE]
        response = route.fetch()
        body = response.body()
        cut = body[: int(len(body) * 0.55)]
        dropped = {"content-length", "transfer-encoding"}
        headers = {k: v for k, v in response.headers.items() if k.lower() not in dropped}
        route.fulfill(status=response.status, headers=headers, body=cut)

    def replay_from_zero(route: Route) -> None:
        # remember what the client asked for, then replay everything so the client has to dedupe
        reconnects.append(route.request.headers.get("last-event-id"))
        route.continue_(headers={**route.request.headers, "last-event-id": "0"})

    page.route("**/api/agent/stream", truncate)
    page.route(re.compile(r".*/api/agent/threads/[^/]+/events.*"), replay_from_zero)
    studio.goto("/")
    start(page, REQUEST, images=2)
    panel = checkpoint(page, "content")
    expect(panel.locator(".draft-title")).not_to_be_empty()

    assert reconnects and reconnects[0] is not None and int(reconnects[0]) > 0, reconnects
    seqs = rendered_seqs(page)
    assert len(seqs) == len(set(seqs)), "an event was rendered twice"
    thread_id = page.evaluate("() => new URLSearchParams(location.search).get('thread')")
    with studio.api() as client:
        status = client.get(f"/api/agent/threads/{thread_id}").json()
        starts = client.get(f"/api/agent/threads/{thread_id}/events").text.count('"type": "agent_start"')
    assert status["status"] == "paused"
    expect(page.locator(".timeline > li[data-type=agent_start]")).to_have_count(starts)
    expect(page.locator(".timeline [data-type=ask_user]")).to_have_count(1)
    studio.shot("reconnected")


def test_a_clarification_question_offers_its_options_and_a_free_answer(studio: Studio) -> None:
    studio.name = "clarification"
    page = studio.goto("/")
    start(page, "写点东西")
    panel = checkpoint(page, "clarification")
    expect(panel.locator("input[type=radio]")).to_have_count(8)
    expect(panel.locator(".option").first).to_contain_text("户外露营")
    expect(panel.locator("textarea[name=customInput]")).to_be_visible()
    studio.shot("question")
    panel.locator("[data-action=answer]").click()
    expect(panel.locator(".alert.error")).to_contain_text("请至少选择一个选项")
    panel.locator(".option", has_text="美食探店").click()
    panel.locator("textarea[name=customInput]").fill("面向上班族的快手晚餐")
    panel.locator("[data-action=answer]").click()
    panel = checkpoint(page, "content")
    expect(panel.locator(".draft-title")).not_to_be_empty()


def test_bad_input_and_api_errors_are_explained(studio: Studio, tmp_path: Path) -> None:
    studio.name = "errors"
    studio.expect_console_error("status of 409")
    page = studio.goto("/")
    # checked in the browser: an empty request, a file that is not an image, a "PNG" that does not decode
    page.click("#start-btn")
    expect(page.locator("#form-error")).to_have_text("请先写下你的创作需求。")
    expect(page.locator("#message")).to_be_focused()
    (tmp_path / "notes.txt").write_text("not an image", encoding="utf-8")
    page.set_input_files("#ref-input", str(tmp_path / "notes.txt"))
    expect(page.locator("#form-error")).to_contain_text("不是支持的图片格式")
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    page.set_input_files("#ref-input", str(tmp_path / "broken.png"))
    expect(page.locator("#form-error")).to_contain_text("无法识别为图片")
    expect(page.locator(".ref-item")).to_have_count(0)
    page.fill("#image-count", "12")
    page.fill("#message", REQUEST)
    page.click("#start-btn")
    expect(page.locator("#form-error")).to_contain_text("1–9")
    studio.shot("1-form")

    # the API's own verdict: the same pause confirmed from two tabs — the second gets the 409 body
    page.fill("#image-count", "1")
    page.click("#start-btn")
    checkpoint(page, "content")
    other = studio.new_page()
    other.goto(page.url)
    checkpoint(other, "content").locator("[data-action=approve]").click()
    checkpoint(other, "image_plans")
    panel = checkpoint(page, "content")
    panel.locator("[data-action=approve]").click()
    error = panel.locator(".alert.error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("状态冲突")
    expect(panel.locator("[data-action=approve]")).to_be_enabled()
    studio.shot("2-conflict")
    panel.locator("[data-action=refresh]").click()
    checkpoint(page, "image_plans")
    expect(page.locator(".checkpoint[data-kind=content]")).to_have_count(0)


def test_model_output_that_looks_like_html_is_shown_as_text(studio: Studio) -> None:
    studio.name = "xss"
    page = studio.goto("/")
    start(page, XSS, images=1)
    panel = checkpoint(page, "content")
    # the offline model wrote the request's words, markup included, into the title and body
    title = panel.locator(".draft-title").inner_text()
    assert "<img src=" in title  # (cut before the half English phrase: the title never ends on one)
    expect(panel.locator(".draft-body")).to_contain_text("<img src=")
    expect(page.locator("#request-summary")).to_contain_text(XSS)
    # an editor puts the whole payload into the title; it comes back in content_update and the result
    panel.locator("[data-action=modify]").click()
    panel.locator("input[name=title]").fill(f"{XSS}标题")
    panel.locator("[data-action=submit-modify]").click()
    checkpoint(page, "image_plans").locator("[data-action=approve]").click()
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator("[data-testid=draft-title]")).to_have_text(f"{XSS}标题")
    assert page.locator("img[src='x'], img[src$='/x']").count() == 0
    assert page.evaluate("() => document.querySelectorAll('[onerror]').length") == 0
    studio.shot("studio")

    # the same text in the explorer's table and detail view, and in the inbox
    creative_url = page.locator(".run-links a").get_attribute("href") or ""
    studio.goto(creative_url)
    expect(page.locator("#detail-view h1")).to_have_text(f"{XSS}标题")
    expect(page.locator("#detail-request")).to_contain_text(XSS)
    studio.goto("/creatives?q=onerror")
    expect(page.locator("#creatives-body tr").first).to_contain_text(XSS)
    assert page.locator("img[src='x'], img[src$='/x']").count() == 0
    studio.shot("creatives")
    assert not studio.dialogs


def test_the_studio_works_on_a_phone(phone: Studio, tmp_path: Path) -> None:
    phone.name = "phone"
    page = phone.goto("/")
    assert no_horizontal_overflow(page)
    phone.shot("1-empty")
    page.set_input_files("#ref-input", str(reference_file(tmp_path / "ref.png")))
    start(page, REQUEST, images=2, hitl=False)
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator(".image-grid img")).to_have_count(2)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.image-grid img')].every(i => i.complete && i.naturalWidth > 0)"
    )
    assert no_horizontal_overflow(page)
    # composer first, then the run, the timeline last
    boxes = [page.locator(sel).bounding_box() for sel in (".composer", ".run-status", ".timeline-card")]
    assert all(boxes) and boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]  # type: ignore[index]
    assert boxes[1]["width"] <= PHONE["width"]  # type: ignore[index]
    phone.shot("2-completed")


def test_keyboard_only_creator_can_start_a_run(studio: Studio) -> None:
    studio.name = "keyboard"
    page = studio.goto("/")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    # the form shows once the page knows who is signed in; focus() alone would not wait for that
    expect(page.locator("#message")).to_be_visible()
    page.locator("#message").focus()
    page.keyboard.type("帮我写一篇秋天城市骑行的笔记")
    page.keyboard.press("Tab")
    expect(page.locator("#dropzone")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#message")).to_be_focused()
    page.keyboard.press("Control+Enter")
    panel = checkpoint(page, "content")
    expect(panel.locator("h2")).to_be_focused()
    page.keyboard.press("Tab")
    expect(panel.locator("[data-action=approve]")).to_be_focused()
    page.keyboard.press("Enter")
    checkpoint(page, "image_plans")


def test_runs_started_elsewhere_can_be_reopened_in_the_studio(studio: Studio) -> None:
    studio.name = "reopen"
    events = run_workflow(studio.server, "帮我写一篇周末去公园野餐的笔记", images=1)
    done = events[-1]
    assert done["type"] == "workflow_complete"
    page = studio.goto(f"/?thread={done['threadId']}")
    expect(page.locator(".status-pill").first).to_have_text("已完成")
    expect(page.locator("[data-testid=draft-title]")).to_have_text(done["title"])
    expect(page.locator("#request-summary")).to_contain_text("野餐")
    studio.goto("/?thread=no-such-thread")
    studio.expect_console_error("status of 404")
    expect(page.locator("#form-error")).to_contain_text("无法打开任务")


def test_reference_images_can_be_dropped_and_are_checked(studio: Studio) -> None:
    studio.name = "drop"
    page = studio.goto("/")
    expect(page.locator("#message")).to_be_visible()  # the form shows once the page knows who is signed in
    drop = """async ({ name, type, size, count }) => {
      const canvas = document.createElement('canvas');
      canvas.width = 60; canvas.height = 80;
      canvas.getContext('2d').fillRect(0, 0, 30, 40);
      const png = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
      const transfer = new DataTransfer();
      for (let i = 0; i < count; i += 1) {
        const body = size ? new Uint8Array(size) : png;
        transfer.items.add(new File([body], `${name}-${i}.png`, { type }));
      }
      const zone = document.getElementById('dropzone');
      const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
      zone.dispatchEvent(new DragEvent('dragover', init));
      zone.dispatchEvent(new DragEvent('drop', init));
    }"""
    page.evaluate(drop, {"name": "草地", "type": "image/png", "size": 0, "count": 2})
    expect(page.locator(".ref-item")).to_have_count(2)
    expect(page.locator(".ref-item img").first).to_have_attribute("alt", "参考图 1：草地-0.png")
    page.evaluate(drop, {"name": "huge", "type": "image/png", "size": 11 * 1024 * 1024, "count": 1})
    expect(page.locator("#form-error")).to_contain_text("太大")
    page.evaluate(drop, {"name": "more", "type": "image/png", "size": 0, "count": 5})
    expect(page.locator(".ref-item")).to_have_count(6)
    expect(page.locator("#form-error")).to_contain_text("最多添加 6 张参考图")
    page.get_by_role("button", name="移除参考图 1").click()
    expect(page.locator(".ref-item")).to_have_count(5)
    studio.shot("references")


def test_the_content_checkpoint_shows_what_the_checks_still_find(studio: Studio) -> None:
    """When the text checks still fail after the bounded redos, the pause carries `context.warnings`
    (tests/agents/test_quality_loop.py shows when); the panel lists them for the editor, in Chinese."""
    studio.name = "warnings"
    page = studio.page
    warning = "正文提到成都，但需求是周末城市露营"

    def with_warnings(route: Route) -> None:
        # the real stream, with the content pause's context carrying what the checks found
        response = route.fetch()
        frames = []
        for line in response.text().split("\n"):
            if line.startswith("data: {"):
                event = json.loads(line[len("data: ") :])
                if event.get("type") == "ask_user" and event.get("context", {}).get("kind") == "content":
                    event["context"]["warnings"] = [warning]
                line = "data: " + json.dumps(event, ensure_ascii=False)
            frames.append(line)
        dropped = {"content-length", "transfer-encoding"}
        headers = {k: v for k, v in response.headers.items() if k.lower() not in dropped}
        route.fulfill(status=response.status, headers=headers, body="\n".join(frames))

    page.route("**/api/agent/stream", with_warnings)
    studio.goto("/")
    start(page, REQUEST, images=2)
    panel = checkpoint(page, "content")
    notes = panel.locator(".cp-warnings")
    expect(notes).to_be_visible()
    expect(notes).to_contain_text("自动检查提醒")
    expect(notes.locator("li")).to_have_text([warning])
    studio.shot("checkpoint-warnings")
    panel.locator("[data-action=approve]").click()
    checkpoint(page, "image_plans")
