"""Editing a creative's pictures through the ASGI app (`POST /api/assets/{id}/edit`), on each backend: a
painted mask changes only the masked pixels, new parameters draw the card again from its plan, a text edit
of the card's headline rewrites it — each a new asset and a new version, streamed like a run — and a later
revision starts from the edited pictures. A card an image model's picture became (gpt-image-1 on the local
Images API) is drawn again on that picture without a model call, and its mask goes to the model. Mistakes
are clear 4xx answers that change nothing."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from io import BytesIO
from typing import Any

import httpx
import numpy as np
import pytest
from PIL import Image, ImageDraw
from sqlalchemy import update

from app.settings import Settings
from tests.serving import asgi_client, completed_run, events_of, live_events_of
from tests.tools.images_api import EDIT_FILL, KEY, ImagesAPI, photo_png
from tools.assets import AssetRecord, AssetStore
from tools.database import ImageAsset, create_engine, session_factory

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


def mask_url(size: tuple[int, int], box: tuple[int, int, int, int] | None) -> str:
    """A mask PNG as the studio's editor sends it: white where to change (`box`; None: nowhere)."""
    mask = Image.new("L", size, 0)
    if box is not None:
        ImageDraw.Draw(mask).rectangle(box, fill=255)
    out = BytesIO()
    mask.save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


async def pixels(api: httpx.AsyncClient, asset_id: int) -> np.ndarray:
    response = await api.get(f"/api/assets/{asset_id}")
    assert response.status_code == 200
    return np.asarray(Image.open(BytesIO(response.content)).convert("RGB"))


async def edit(api: httpx.AsyncClient, asset_id: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await api.post(f"/api/assets/{asset_id}/edit", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return live_events_of(response.text)


async def redrawable(api: httpx.AsyncClient, creative_id: int) -> dict[int, bool]:
    """Each asset's `redrawable` in `GET /api/creatives/{id}`, current ones and history alike."""
    detail = (await api.get(f"/api/creatives/{creative_id}")).json()
    return {a["id"]: a["redrawable"] for a in [*detail["assets"], *detail["assetHistory"]]}


async def test_a_mask_changes_only_its_pixels_and_makes_a_version(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST, images=2)
    cover, detail = final["imageAssetIds"]
    before = await pixels(api, cover)
    height, width = before.shape[:2]
    box = (width // 2, 60, width - 60, height // 3)
    events = await edit(api, cover, {
        "instruction": "画一个黄色的太阳", "mask": mask_url((width, height), box), "basedOn": 1,
    })
    kinds = [e["type"] for e in events]
    assert kinds[0] == "image_progress" and kinds[-1] == "workflow_complete"
    progress = [e for e in events if e["type"] == "image_progress"]
    assert [p["status"] for p in progress] == ["generating", "complete"]
    assert progress[-1]["taskId"] == 1 and progress[-1]["assetId"] not in (cover, detail)
    messages = [e["content"] for e in events if e["type"] == "message"]
    assert any("太阳" in m for m in messages)
    done = events[-1]
    assert done["version"] == 2 and done["imageAssetIds"] == [progress[-1]["assetId"], detail]
    assert done["title"] == final["title"] and done["body"] == final["body"]

    after = await pixels(api, progress[-1]["assetId"])
    assert after.shape == before.shape
    inside = np.zeros(before.shape[:2], bool)
    inside[box[1]:box[3] + 1, box[0]:box[2] + 1] = True
    assert np.array_equal(after[~inside], before[~inside])  # outside the mask: the very same pixels
    region = after[inside].astype(int)
    assert (region != before[inside]).any(axis=1).mean() > 0.05
    red, green, blue = region[:, 0], region[:, 1], region[:, 2]
    assert ((red > 180) & (green > 140) & (blue < 120)).sum() > 500  # yellow drawn there

    two = (await api.get(f"/api/creatives/{final['creativeId']}/versions/2")).json()
    assert two["version"]["source"] == "image_edit" and two["version"]["sourceLabel"] == "图片编辑"
    assert two["diff"]["imagesChanged"] == [0]
    detail_view = (await api.get(f"/api/creatives/{final['creativeId']}")).json()
    current = [a["id"] for a in detail_view["assets"] if a["taskIndex"] is not None]  # the current set
    assert current == done["imageAssetIds"]
    audit = (await api.get(f"/api/creatives/{final['creativeId']}/audit")).json()["items"]
    assert [e["actionLabel"] for e in audit if e["action"] == "image_edit"] == ["编辑图片"]

    # a title-only revision keeps the edited picture
    revised = await api.post("/api/agent/stream", json={
        "threadId": final["threadId"], "message": "换个标题", "basedOn": 2, "enableHITL": False,
    })
    after_revision = events_of(revised.text)[-1]
    assert after_revision["type"] == "workflow_complete", revised.text[-400:]
    assert after_revision["imageAssetIds"] == done["imageAssetIds"]

    # new parameters draw the card again from its plan: what the mask drew is gone, and the creator is told
    redraw = await edit(api, done["imageAssetIds"][0], {"params": {"badge": False}, "basedOn": 3})
    notes = " ".join(e["content"] for e in redraw if e["type"] == "message")
    assert redraw[-1]["version"] == 4 and "没有保留" in notes


async def test_parameters_and_text_redraw_the_card_from_its_plan(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST, images=2)
    cover = final["imageAssetIds"][0]
    # the studio's own cards: the asset says they can be drawn again
    flags = await redrawable(api, final["creativeId"])
    assert [flags[i] for i in final["imageAssetIds"]] == [True, True]
    before = await pixels(api, cover)
    events = await edit(api, cover, {
        "params": {"palette": ["#1B2A4A", "#F2C14E"], "textScale": 1.2, "badge": False}, "basedOn": 1,
    })
    done = events[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 2
    redrawn = done["imageAssetIds"][0]
    assert (await redrawable(api, final["creativeId"]))[redrawn] is True  # the redrawn card too
    after = await pixels(api, redrawn)
    assert after.shape == before.shape and not np.array_equal(after, before)
    two = (await api.get(f"/api/creatives/{final['creativeId']}/versions/2")).json()["version"]
    plan = two["imagePlans"][0]
    assert plan["palette"] == ["#1B2A4A", "#F2C14E"] and plan["textScale"] == 1.2 and plan["badge"] is False
    messages = " ".join(e["content"] for e in events if e["type"] == "message")
    assert "配色" in messages and "角标" in messages

    # the headline's text, as OCR would read part of it, edited in the card's own overlay
    overlay_before = plan.get("overlay") or {}
    headline = overlay_before.get("headline") or final["title"]
    piece = headline[:2]
    events = await edit(api, redrawn, {
        "textEdits": [{"box": {"x": 0.1, "y": 0.1, "w": 0.5, "h": 0.1}, "text": "夜游", "original": piece}],
        "basedOn": 2,
    })
    assert events[-1]["type"] == "workflow_complete" and events[-1]["version"] == 3
    three = (await api.get(f"/api/creatives/{final['creativeId']}/versions/3")).json()["version"]
    assert three["imagePlans"][0]["overlay"]["headline"].startswith("夜游")
    assert three["imagePlans"][0]["palette"] == ["#1B2A4A", "#F2C14E"]  # the earlier edit is kept

    # a crop is the part of the picture in the box
    events = await edit(api, events[-1]["imageAssetIds"][0], {
        "params": {"crop": {"x": 0.0, "y": 0.0, "w": 0.5, "h": 0.5}}, "basedOn": 3,
    })
    cropped = await pixels(api, events[-1]["imageAssetIds"][0])
    assert cropped.shape[0] == before.shape[0] // 2 and cropped.shape[1] == before.shape[1] // 2


async def test_edit_mistakes_are_clear_and_change_nothing(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST, images=2)
    cover = final["imageAssetIds"][0]
    image = await pixels(api, cover)
    height, width = image.shape[:2]

    async def refused(asset_id: int, body: Any) -> dict[str, Any]:
        response = await api.post(f"/api/assets/{asset_id}/edit", json=body)
        assert 400 <= response.status_code < 500, response.text
        error: dict[str, Any] = response.json()["error"]
        assert error["message"]
        return {"status": response.status_code, **error}

    assert (await refused(cover + 10_000, {"params": {"badge": False}}))["status"] == 404
    wrong_size = await refused(cover, {"mask": mask_url((64, 64), (0, 0, 10, 10)), "instruction": "去掉"})
    assert wrong_size["status"] == 422 and wrong_size["code"] == "INVALID_MASK"
    empty = await refused(cover, {"mask": mask_url((width, height), None), "instruction": "去掉"})
    assert empty["code"] == "INVALID_MASK"
    assert (await refused(cover, {"instruction": "换成蓝色"}))["status"] == 422  # where? no mask
    assert (await refused(cover, {}))["status"] == 422
    assert (await refused(cover, {"params": {"layout": "no-such-layout"}}))["status"] == 422
    assert (await refused(cover, {"params": {"textScale": 3}}))["status"] == 422
    stale = await refused(cover, {"params": {"badge": False}, "basedOn": 5})
    assert stale["status"] == 409 and stale["code"] == "VERSION_CONFLICT"
    listed = (await api.get(f"/api/creatives/{final['creativeId']}/versions")).json()
    assert listed["current"] == 1

    # a picture no longer in the current version cannot be edited
    await edit(api, cover, {"params": {"badge": False}})
    old = await refused(cover, {"params": {"textScale": 0.8}})
    assert old["status"] == 409 and old["code"] == "NOT_EDITABLE"


# --- pictures an image model drew: the local OpenAI Images API (tests/tools/images_api.py) ----------------
@pytest.fixture(scope="module")
def images() -> Iterator[ImagesAPI]:
    """The local Images API, one per module like tests/tools/conftest.py's (whose fixtures the app tests do
    not see); cleared for each test by `model_api`."""
    with ImagesAPI() as fake:
        yield fake


@pytest.fixture
async def model_api(backend_settings: Settings, images: ImagesAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app with gpt-image-1 on the local Images API as its image model (the text model offline)."""
    images.clear()
    settings = backend_settings.model_copy(
        update={"image_provider": "gpt-image-1", "image_api_base": images.base, "image_api_key": KEY}
    )
    async with asgi_client(settings) as client:
        yield client


async def stored_asset(settings: Settings, asset_id: int) -> tuple[AssetRecord, bytes | None]:
    """The asset's row, read from the database, and the model's picture the store kept for it."""
    engine = create_engine(settings.db_url)
    try:
        store = AssetStore(settings.assets_dir, session_factory(engine))
        record = await store.get(asset_id)
        assert record is not None
        return record, await store.picture(record)
    finally:
        await engine.dispose()


async def test_new_parameters_draw_a_models_card_again_on_its_own_picture(
    model_api: httpx.AsyncClient, images: ImagesAPI, backend_settings: Settings
) -> None:
    final = await completed_run(model_api, REQUEST, images=1)
    cover = final["imageAssetIds"][0]
    generated = [r.path for r in images.requests]
    assert generated == ["/v1/images/generations"]
    record, picture = await stored_asset(backend_settings, cover)
    assert record.provider == "gpt-image-1" and record.picture_path is not None
    assert picture == photo_png(1024, 1536)  # the model's picture as it came, before the card's overlay
    detail = (await model_api.get(f"/api/creatives/{final['creativeId']}")).json()
    [asset] = detail["assets"]
    assert asset["id"] == cover and asset["provider"] == "gpt-image-1" and asset["redrawable"] is True
    before = await pixels(model_api, cover)

    events = await edit(model_api, cover, {
        "params": {"palette": ["#1B2A4A", "#F2C14E"], "headline": "夜色里的城市露营"}, "basedOn": 1,
    })
    assert [r.path for r in images.requests] == generated  # drawn again without asking the model
    progress = [e for e in events if e["type"] == "image_progress"]
    assert [p["status"] for p in progress] == ["generating", "complete"]
    new = progress[-1]["assetId"]
    assert new != cover and events[-1]["type"] == "workflow_complete" and events[-1]["version"] == 2
    assert events[-1]["imageAssetIds"] == [new]
    messages = [e["content"] for e in events if e["type"] == "message"]
    assert len(messages) == 1 and messages[0].startswith("已完成") and "配色" in messages[0], messages
    assert not any("没能做到" in m for m in messages)
    after = await pixels(model_api, new)
    assert after.shape == before.shape and not np.array_equal(after, before)
    new_record, _ = await stored_asset(backend_settings, new)
    assert new_record.picture_path == record.picture_path and new_record.provider == "gpt-image-1"
    assert await redrawable(model_api, final["creativeId"]) == {cover: True, new: True}
    two = (await model_api.get(f"/api/creatives/{final['creativeId']}/versions/2")).json()["version"]
    plan = two["imagePlans"][0]
    assert plan["palette"] == ["#1B2A4A", "#F2C14E"] and plan["overlay"]["headline"] == "夜色里的城市露营"
    assert two["source"] == "image_edit"


async def test_a_mask_on_a_models_picture_goes_to_the_model_and_changes_only_the_mask(
    model_api: httpx.AsyncClient, images: ImagesAPI, backend_settings: Settings
) -> None:
    final = await completed_run(model_api, REQUEST, images=1)
    cover = final["imageAssetIds"][0]
    images.requests.clear()
    before = await pixels(model_api, cover)
    height, width = before.shape[:2]
    box = (width // 4, height // 2, width * 3 // 4, height * 3 // 4)
    events = await edit(model_api, cover, {
        "instruction": "在草地上画一只小狗", "mask": mask_url((width, height), box), "basedOn": 1,
    })
    [call] = images.requests
    assert call.path == "/v1/images/edits" and call.status == 200 and call.body["model"] == "gpt-image-1"
    sent = np.asarray(Image.open(BytesIO(call.files["mask"][0])).getchannel("A")) == 0  # where to edit
    inside = np.zeros(before.shape[:2], bool)
    inside[box[1]:box[3] + 1, box[0]:box[2] + 1] = True
    assert np.array_equal(sent, inside)
    done = events[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 2, events
    masked = done["imageAssetIds"][0]
    after = await pixels(model_api, masked)
    assert np.array_equal(after[~inside], before[~inside])  # outside the mask: the very same pixels
    assert np.abs(after[inside].astype(int) - np.array(EDIT_FILL)).max(axis=1).mean() < 40  # the model's
    messages = " ".join(e["content"] for e in events if e["type"] == "message")
    assert "gpt-image-1" in messages
    record, _ = await stored_asset(backend_settings, cover)
    assert (await stored_asset(backend_settings, masked))[0].picture_path == record.picture_path

    # new parameters then draw the card again on the model's picture: the masked paint goes, as it says
    images.requests.clear()
    redraw = await edit(model_api, masked, {"params": {"badge": False}, "basedOn": 2})
    notes = " ".join(e["content"] for e in redraw if e["type"] == "message")
    assert redraw[-1]["version"] == 3 and "没有保留" in notes and "去掉了角标" in notes
    assert images.requests == []
    redrawn = await pixels(model_api, redraw[-1]["imageAssetIds"][0])
    assert np.abs(redrawn[inside].astype(int) - np.array(EDIT_FILL)).max(axis=1).mean() > 40


async def test_a_models_card_from_before_pictures_were_kept_says_what_it_cannot_do(
    model_api: httpx.AsyncClient, images: ImagesAPI, backend_settings: Settings
) -> None:
    final = await completed_run(model_api, REQUEST, images=1)
    cover = final["imageAssetIds"][0]
    engine = create_engine(backend_settings.db_url)
    try:
        async with session_factory(engine)() as session, session.begin():
            await session.execute(update(ImageAsset).values(picture_path=None))
    finally:
        await engine.dispose()
    # the asset says beforehand that new parameters cannot be applied
    assert await redrawable(model_api, final["creativeId"]) == {cover: False}
    images.requests.clear()
    events = await edit(model_api, cover, {"params": {"palette": ["#1B2A4A", "#F2C14E"]}, "basedOn": 1})
    messages = [e["content"] for e in events if e["type"] == "message"]
    assert messages and messages[-1].startswith("没能做到") and "图片模型" in messages[-1]
    assert images.requests == []
    # and after the edit, no picture of the creative has a model's picture to draw on
    assert set((await redrawable(model_api, final["creativeId"])).values()) == {False}
