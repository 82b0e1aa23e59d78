"""编辑图片 in the studio (issue 17): under a finished result every picture has an "编辑图片" button that
opens the image editor — a mask painted with the mouse plus an instruction changes only the painted
pixels, new parameters (a palette, the badge off) redraw the card, an edited text region rewrites the
card's text — each a new picture in the result and a new version; a stale page is told to refresh. Also
on a phone. A card an image model drew (gpt-image-1 on the local Images API) whose picture was kept has
its parameters enabled and is drawn again without the model; one from before pictures were kept has them
disabled, with a note saying why."""

from __future__ import annotations

import base64
import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Locator, Page, Request, expect

from tests.serving import LiveServer
from tests.tools.images_api import KEY, ImagesAPI
from tests.web.conftest import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    Studio,
    _studio,
    no_horizontal_overflow,
    run_workflow,
)
from tests.web.test_labels import raw_on_screen

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族，编辑图片用"
DONE_TIMEOUT = 90_000


def finished_thread(studio: Studio, message: str = REQUEST, images: int = 2) -> dict[str, Any]:
    done = run_workflow(studio.server, message, images=images)[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 1, done
    return done


def wait_version(page: Page, version: int) -> None:
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=DONE_TIMEOUT)
    expect(page.locator(".run-version")).to_have_text(f"第 {version} 版", timeout=DONE_TIMEOUT)


def slot_src(page: Page, task: int) -> str:
    img = page.locator(f".image-slot[data-task='{task}'] .image-frame img")
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
    return img.get_attribute("src") or ""


def pixels_of(studio: Studio, asset_id: int) -> np.ndarray:
    with studio.api() as client:
        response = client.get(f"/api/assets/{asset_id}")
    assert response.status_code == 200
    return np.asarray(Image.open(BytesIO(response.content)).convert("RGB"))


def asset_id(src: str) -> int:
    found = re.search(r"/api/assets/(\d+)$", src)
    assert found, src
    return int(found.group(1))


def open_editor(page: Page, task: int) -> Locator:
    page.locator(f".image-slot[data-task='{task}'] .image-edit-btn").click()
    dialog = page.locator("#image-editor")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#ie-title")).to_have_text(f"编辑图{task}")
    expect(dialog.locator("#ie-send")).to_be_enabled()
    return dialog


def dialog_shot(studio: Studio, label: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    studio.page.screenshot(path=str(ARTIFACTS / f"{studio.name}-{label}.png"))


def drag(
    page: Page, target: Locator, start: tuple[float, float], end: tuple[float, float], steps: int = 12
) -> None:
    """Press the mouse at `start` and move it to `end` (fractions of the target's box), then let go."""
    box = target.bounding_box()
    assert box is not None
    x0, y0 = box["x"] + start[0] * box["width"], box["y"] + start[1] * box["height"]
    x1, y1 = box["x"] + end[0] * box["width"], box["y"] + end[1] * box["height"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=steps)
    page.mouse.up()


def edit_bodies(page: Page) -> list[dict[str, Any]]:
    """The bodies of the page's `POST /api/assets/{id}/edit` requests, collected from now on."""
    bodies: list[dict[str, Any]] = []

    def on_request(request: Request) -> None:
        if request.method == "POST" and re.search(r"/api/assets/\d+/edit$", request.url):
            bodies.append(json.loads(request.post_data or "{}"))

    page.on("request", on_request)
    return bodies


def decode_mask(data_url: str) -> np.ndarray:
    assert data_url.startswith("data:image/png;base64,")
    image = Image.open(BytesIO(base64.b64decode(data_url.split(",", 1)[1])))
    return np.asarray(image.convert("L"))


def test_a_painted_mask_changes_only_its_pixels_then_parameters_then_text(studio: Studio) -> None:
    studio.name = "image-edit"
    studio.expect_console_error("status of 409")
    done = finished_thread(studio)
    page = studio.goto(f"/?thread={done['threadId']}")
    wait_version(page, 1)
    buttons = page.locator(".image-edit-btn")
    expect(buttons).to_have_count(2)
    expect(buttons.first).to_have_text("编辑图片")
    expect(buttons.first).to_have_attribute("aria-label", "编辑图片（图1）")
    old_src = slot_src(page, 1)
    old_id = asset_id(old_src)
    assert old_id == done["imageAssetIds"][0]
    bodies = edit_bodies(page)

    # 涂抹修改: the picture at its own pixel size under the canvas; paint by dragging the mouse
    dialog = open_editor(page, 1)
    expect(dialog.locator("#ie-tab-mask")).to_have_attribute("aria-selected", "true")
    canvas = dialog.locator("canvas.ie-mask")
    before = pixels_of(studio, old_id)
    height, width = before.shape[:2]
    expect(canvas).to_have_attribute("width", str(width))
    expect(canvas).to_have_attribute("height", str(height))
    expect(dialog.locator("#ie-mask-state")).to_have_text("还没有涂抹。")
    # sending without a mask is explained
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-error")).to_have_text("请先在图上涂抹要修改的地方。")
    drag(page, canvas, (0.55, 0.12), (0.85, 0.12))
    drag(page, canvas, (0.85, 0.2), (0.55, 0.2))
    expect(dialog.locator("#ie-mask-state")).to_have_text(re.compile(r"已涂抹约 \d+% 的画面。"))
    # the eraser takes paint away; 清除涂抹 takes it all
    dialog.locator("label[for=ie-tool-eraser]").click()
    drag(page, canvas, (0.3, 0.5), (0.4, 0.5), steps=3)  # nothing there: nothing changes
    dialog.locator("label[for=ie-tool-brush]").click()
    dialog.locator("#ie-instruction").fill("画一个黄色的太阳")
    dialog_shot(studio, "1-mask")
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-status")).to_have_text(re.compile("第 2 版"), timeout=DONE_TIMEOUT)
    wait_version(page, 2)
    expect(dialog.locator("#ie-messages")).to_contain_text("已完成")
    new_src = slot_src(page, 1)
    assert new_src != old_src, "the new picture replaces the old one in the result"
    new_id = asset_id(new_src)
    expect(page.locator("#revise-base")).to_have_text("基于第 2 版")
    expect(page.locator("#revise-note")).to_have_text("已编辑图1（按涂抹修改），生成第 2 版。")
    expect(dialog.locator("#ie-version")).to_have_text("基于第 2 版")  # the editor now edits the new picture
    expect(dialog.locator(".ie-picture").first).to_have_attribute("src", new_src)
    dialog_shot(studio, "2-mask-done")

    # the request: the mask is a PNG of the picture's size, white where painted; only those pixels changed
    assert len(bodies) == 1
    sent = bodies[0]
    assert sent["basedOn"] == 1 and sent["instruction"] == "画一个黄色的太阳"
    mask = decode_mask(sent["mask"])
    assert mask.shape == (height, width)
    painted = mask >= 128
    assert 0.01 < painted.mean() < 0.3, painted.mean()
    ys, xs = np.nonzero(painted)
    assert xs.min() > width * 0.4 and xs.max() < width * 0.95, (xs.min(), xs.max())
    assert ys.max() < height * 0.35, ys.max()
    after = pixels_of(studio, new_id)
    assert after.shape == before.shape
    assert np.array_equal(after[~painted], before[~painted]), "pixels outside the painted region changed"
    assert (after[painted] != before[painted]).any(axis=1).mean() > 0.05, "the painted region did not change"

    # 参数调整: the 海盐蓝 palette and no badge — the card is drawn again, version 3
    dialog.locator("#ie-tab-params").click()
    expect(dialog.locator("#ie-panel-params")).to_be_visible()
    expect(dialog.locator("#ie-panel-mask")).to_be_hidden()
    expect(dialog.locator(".ie-params-note")).to_be_hidden()  # the studio's own card: nothing to explain
    expect(dialog.locator("#ie-badge")).to_be_checked()
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-error")).to_contain_text("参数没有改动")
    dialog.locator(".ie-palette", has_text="海盐蓝").click()
    expect(dialog.locator(".ie-palette", has_text="海盐蓝")).to_have_attribute("aria-pressed", "true")
    dialog.locator("label[for=ie-badge]").click()
    expect(dialog.locator("#ie-badge")).not_to_be_checked()
    layouts = dialog.locator("#ie-layout option")
    expect(layouts).to_have_text(["左对齐大标题", "居中海报", "色块标题", "杂志边框"])  # a cover's layouts
    dialog_shot(studio, "3-params")
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-status")).to_have_text(re.compile("第 3 版"), timeout=DONE_TIMEOUT)
    wait_version(page, 3)
    expect(dialog.locator("#ie-messages")).to_contain_text("换了配色")
    expect(dialog.locator("#ie-messages")).to_contain_text("去掉了角标")
    third_src = slot_src(page, 1)
    assert third_src != new_src
    assert bodies[-1] == {"params": {"palette": ["#EAF4FB", "#C9E2F5", "#2F7EC1", "#1C2F40"], "badge": False},
                          "basedOn": 2}
    with studio.api() as client:
        three = client.get(f"/api/creatives/{done['creativeId']}/versions/3").json()["version"]
    assert three["imagePlans"][0]["palette"] == ["#EAF4FB", "#C9E2F5", "#2F7EC1", "#1C2F40"]
    assert three["imagePlans"][0]["badge"] is False
    assert three["sourceLabel"] == "图片编辑"

    # 文字编辑: the text OCR reads, each line editable; a piece of the headline rewritten, version 4
    dialog.locator("#ie-tab-text").click()
    inputs = dialog.locator("#ie-text-list input")
    expect(inputs.first).to_be_visible(timeout=30_000)
    headline = (three["imagePlans"][0].get("overlay") or {}).get("headline") or next(
        o["headline"] for o in three["textOverlayPlan"] if o["imageIndex"] == 1)
    originals = [inputs.nth(i).input_value() for i in range(inputs.count())]
    squashed = "".join(headline.split())
    piece = next(t for t in originals if len(t) >= 2 and "".join(t.split()) in squashed)
    target = inputs.nth(originals.index(piece))
    target.focus()
    expect(dialog.locator(".ie-text-box.active")).to_have_count(1)  # its box is marked over the picture
    target.fill("夜游" + piece[2:])
    dialog_shot(studio, "4-text")
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-status")).to_have_text(re.compile("第 4 版"), timeout=DONE_TIMEOUT)
    wait_version(page, 4)
    text_edit = bodies[-1]["textEdits"][0]
    assert text_edit["original"] == piece and text_edit["text"].startswith("夜游")
    with studio.api() as client:
        four = client.get(f"/api/creatives/{done['creativeId']}/versions/4").json()["version"]
    assert "夜游" in four["imagePlans"][0]["overlay"]["headline"]
    assert not raw_on_screen(page.locator("#image-editor")), raw_on_screen(page.locator("#image-editor"))

    # Esc closes the editor and gives the focus back to its button
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(".image-slot[data-task='1'] .image-edit-btn")).to_be_focused()

    # a version made behind the page's back: the edit is refused with a way to refresh
    with studio.api() as client:
        current = asset_id(slot_src(page, 2))
        behind = client.post(f"/api/assets/{current}/edit", json={"params": {"textScale": 1.2}, "basedOn": 4})
        assert behind.status_code == 200 and "workflow_complete" in behind.text
    dialog = open_editor(page, 1)
    expect(dialog.locator("#ie-version")).to_have_text("基于第 4 版")  # what the page shows
    dialog.locator("#ie-tab-params").click()
    dialog.locator(".ie-palette", has_text="活力").click()
    dialog.locator("#ie-send").click()
    error = dialog.locator("#ie-error")
    expect(error).to_contain_text("请刷新后在最新版本上编辑")
    expect(error).not_to_contain_text("VERSION_CONFLICT")
    dialog_shot(studio, "5-conflict")
    error.locator("#ie-reload").click()
    expect(dialog).to_be_hidden()
    wait_version(page, 5)


def test_the_editor_fits_a_phone_and_paints_with_touch(phone: Studio) -> None:
    phone.name = "image-edit-phone"
    done = finished_thread(phone, "帮我写一篇新手在家做手冲咖啡的笔记，编辑图片用", images=1)
    page = phone.goto(f"/?thread={done['threadId']}")
    wait_version(page, 1)
    page.locator(".image-edit-btn").first.scroll_into_view_if_needed()
    dialog = open_editor(page, 1)
    assert no_horizontal_overflow(page)
    box = dialog.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    canvas = dialog.locator("canvas.ie-mask")
    cbox = canvas.bounding_box()
    assert cbox is not None and cbox["width"] <= PHONE["width"], cbox
    # a finger's stroke (pointer events of a touch) and a quick area for fingers and keyboards
    for kind, fx in (("pointerdown", 0.3), ("pointermove", 0.5), ("pointermove", 0.7), ("pointerup", 0.7)):
        canvas.dispatch_event(kind, {
            "pointerId": 7, "pointerType": "touch", "isPrimary": True, "button": 0, "bubbles": True,
            "clientX": cbox["x"] + cbox["width"] * fx, "clientY": cbox["y"] + cbox["height"] * 0.8,
        })
    expect(dialog.locator("#ie-mask-state")).to_have_text(re.compile(r"已涂抹约 \d+% 的画面。"))
    dialog.locator(".ie-quick", has_text="上半").click()
    expect(dialog.locator("#ie-mask-state")).to_have_text(re.compile(r"已涂抹约 5\d% 的画面。"))
    dialog_shot(phone, "1-mask")
    # the send button stays on screen
    send = dialog.locator("#ie-send")
    sbox = send.bounding_box()
    assert sbox is not None and sbox["y"] + sbox["height"] <= PHONE["height"] + 1, sbox
    dialog.locator("#ie-tab-params").click()
    expect(dialog.locator("#ie-panel-params")).to_be_visible()
    assert no_horizontal_overflow(page)
    dialog_shot(phone, "2-params")
    dialog.locator("#ie-tab-text").click()
    expect(dialog.locator("#ie-text-list input").first).to_be_visible(timeout=30_000)
    dialog_shot(phone, "3-text")
    dialog.locator("#ie-cancel").click()
    expect(dialog).to_be_hidden()


# --- cards an image model drew: gpt-image-1 on the local OpenAI Images API (tests/tools/images_api.py) -----
CARD_CONTROLS = ("#ie-layout", "#ie-scale", "#ie-headline", "#ie-lines", "#ie-badge")


@pytest.fixture(scope="module")
def model_server(
    tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path
) -> Iterator[tuple[LiveServer, ImagesAPI]]:
    """A second real server whose image model is gpt-image-1 on the local Images API (the text model
    offline), on its own data dir."""
    with ImagesAPI() as images:
        data_dir = tmp_path_factory.mktemp("web-image-model") / "data"
        shutil.copytree(knowledge_dir, data_dir / "lancedb")
        env = {"STUDIO_IMAGE_PROVIDER": "gpt-image-1", "STUDIO_IMAGE_API_BASE": images.base,
               "STUDIO_IMAGE_API_KEY": KEY}
        server = LiveServer(data_dir, env).start()
        try:
            yield server, images
        finally:
            server.stop()


@pytest.fixture
def on_model(
    request: pytest.FixtureRequest, browser: Browser, model_server: tuple[LiveServer, ImagesAPI]
) -> Iterator[Studio]:
    yield from _studio(request, browser, model_server[0], DESKTOP)


def forget_picture(server: LiveServer, asset: int) -> None:
    """Make `asset` a model's card from before pictures were kept: no `picture_path` (migration 0009)."""
    with sqlite3.connect(server.data_dir / "studio.db") as db:
        assert db.execute("UPDATE image_assets SET picture_path = NULL WHERE id = ?", (asset,)).rowcount == 1


def test_a_models_card_is_redrawn_when_its_picture_was_kept(
    on_model: Studio, model_server: tuple[LiveServer, ImagesAPI]
) -> None:
    studio = on_model
    studio.name = "image-edit-model"
    server, images = model_server
    images.clear()
    done = finished_thread(studio, "帮我写一篇周末城市露营的小红书笔记，模型配图编辑用")
    generated = [r.path for r in images.requests]
    assert generated and set(generated) == {"/v1/images/generations"}
    kept, old = done["imageAssetIds"]
    forget_picture(server, old)
    with studio.api() as client:
        assets = client.get(f"/api/creatives/{done['creativeId']}").json()["assets"]
    assert {a["id"]: (a["provider"], a["redrawable"]) for a in assets} == {
        kept: ("gpt-image-1", True), old: ("gpt-image-1", False),
    }
    page = studio.goto(f"/?thread={done['threadId']}")
    wait_version(page, 1)

    # the kept picture: every parameter can change, and the note says no model is called
    dialog = open_editor(page, 1)
    dialog.locator("#ie-tab-params").click()
    note = dialog.locator(".ie-params-note")
    expect(note).to_be_visible()
    expect(note).to_have_text("这张卡片会在图片模型原来生成的图片上重新排版，不会再次调用图片模型。")
    for control in CARD_CONTROLS:
        expect(dialog.locator(control)).to_be_enabled()
    expect(dialog.locator(".ie-palette").first).to_be_enabled()
    expect(dialog.locator(".ie-colors input").first).to_be_enabled()
    assert not raw_on_screen(dialog), raw_on_screen(dialog)
    dialog_shot(studio, "1-kept")
    dialog.locator(".ie-palette", has_text="海盐蓝").click()
    dialog.locator("#ie-send").click()
    expect(dialog.locator("#ie-status")).to_have_text(re.compile("第 2 版"), timeout=DONE_TIMEOUT)
    wait_version(page, 2)
    expect(dialog.locator("#ie-messages")).to_contain_text("换了配色")
    expect(dialog.locator("#ie-messages")).not_to_contain_text("没能做到")
    assert [r.path for r in images.requests] == generated  # drawn again without asking the model
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # the picture from before pictures were kept: only the crop, and today's note
    dialog = open_editor(page, 2)
    dialog.locator("#ie-tab-params").click()
    expect(note).to_be_visible()
    expect(note).to_have_text(
        "这张图由图片模型生成，没有可重新排版的卡片：配色、版式、文字大小、卡片文字和角标改不了，可以裁剪。"
    )
    for control in CARD_CONTROLS:
        expect(dialog.locator(control)).to_be_disabled()
    expect(dialog.locator(".ie-palette").first).to_be_disabled()
    expect(dialog.locator(".ie-colors input").first).to_be_disabled()
    expect(dialog.locator("#ie-crop")).to_be_enabled()
    assert not raw_on_screen(dialog), raw_on_screen(dialog)
    dialog_shot(studio, "2-not-kept")
    dialog.locator("#ie-cancel").click()
    expect(dialog).to_be_hidden()
