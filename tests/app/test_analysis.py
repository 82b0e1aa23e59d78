"""`GET /api/assets/{id}/analysis` through the ASGI app, on each backend: a run's card is read by real OCR
once, with exact boxes from its own layout, stored in `asset_analyses` and then served from there (the row
says so, not the timing); identical bytes stored as another asset reuse it; unknown ids are 404; an OCR
engine that cannot load is a 503, after the same access rules as the image bytes."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.settings import Settings
from tests.serving import asgi_client, bearer, completed_run, events_of
from tools import ocr
from tools.assets import AssetStore
from tools.database import AssetAnalysisRow, create_engine, session_factory

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


async def stored_rows(settings: Settings) -> dict[int, dict[str, Any]]:
    """The `asset_analyses` rows: asset id → analysis."""
    engine = create_engine(settings.db_url)
    try:
        async with session_factory(engine)() as session:
            rows = (await session.scalars(select(AssetAnalysisRow))).all()
            return {row.asset_id: row.analysis for row in rows}
    finally:
        await engine.dispose()


def flat(text: str) -> str:
    return "".join(text.split())


async def test_an_image_is_analysed_once_then_served_from_the_cache(
    api: httpx.AsyncClient, backend_settings: Settings
) -> None:
    final = await completed_run(api, REQUEST)
    [asset_id] = final["imageAssetIds"]
    assert await stored_rows(backend_settings) == {}

    first = await api.get(f"/api/assets/{asset_id}/analysis")
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["assetId"] == asset_id and body["cached"] is False and body["layoutKnown"] is True
    assert body["ocrEngine"].startswith("rapidocr-onnxruntime")
    # the card's own layout says what its headline is and where; OCR read that text
    headline = next(e for e in body["elements"] if e["kind"] == "text" and e["label"] == "headline")
    assert headline["source"] == "layout" and headline["text"]
    assert flat(headline["text"]) in flat(body["text"]), (headline["text"], body["text"])
    for region in body["textRegions"]:
        assert region["text"] and 0 <= region["confidence"] <= 1 and len(region["polygon"]) == 4
        assert all(0 <= region["box"][k] <= 1 for k in ("x", "y", "w", "h"))

    rows = await stored_rows(backend_settings)
    assert list(rows) == [asset_id]
    assert rows[asset_id]["textRegions"] == body["textRegions"]

    second = await api.get(f"/api/assets/{asset_id}/analysis")
    assert second.status_code == 200
    again = second.json()
    assert again["cached"] is True and again["createdAt"] == body["createdAt"]
    assert again["textRegions"] == body["textRegions"] and again["elements"] == body["elements"]
    assert list(await stored_rows(backend_settings)) == [asset_id]

    # the same bytes stored as another asset reuse the analysis (copied to that asset's row)
    data = (await api.get(f"/api/assets/{asset_id}")).content
    app = api._transport.app  # type: ignore[attr-defined]
    assets: AssetStore = app.state.resources.assets
    twin = await assets.save(data, mime="image/png", width=body["width"], height=body["height"],
                             role="reference", provider="upload", creative_id=final["creativeId"])
    reused = (await api.get(f"/api/assets/{twin.id}/analysis")).json()
    assert reused["cached"] is True and reused["assetId"] == twin.id
    assert reused["textRegions"] == body["textRegions"]
    assert sorted(await stored_rows(backend_settings)) == sorted([asset_id, twin.id])


async def test_unknown_assets_are_404(api: httpx.AsyncClient) -> None:
    for asset_id in (0, 999_999, 2**40):
        response = await api.get(f"/api/assets/{asset_id}/analysis")
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_ocr_that_cannot_run_is_a_503_after_the_access_rules(
    api: httpx.AsyncClient, backend_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # as when OpenCV cannot load libGL
    monkeypatch.setattr(ocr, "_shared", ocr.OcrEngine())
    app = api._transport.app  # type: ignore[attr-defined]
    tokens = {}
    for name in ("alice", "carol"):
        await app.state.accounts.add_user(name, "creator", None, actor="test")
        tokens[name], _ = await app.state.accounts.create_token(name, actor="test")
    started = await api.post(
        "/api/agent/stream", headers=bearer(tokens["alice"]),
        json={"message": REQUEST, "imageCount": 1, "enableHITL": False},
    )
    [asset_id] = events_of(started.text)[-1]["imageAssetIds"]

    other = await api.get(f"/api/assets/{asset_id}/analysis", headers=bearer(tokens["carol"]))
    assert other.status_code == 403  # another creator's image: refused before any OCR
    for headers in (bearer(tokens["alice"]), {}):  # its owner, and the admin
        response = await api.get(f"/api/assets/{asset_id}/analysis", headers=headers)
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "OCR_UNAVAILABLE" and "文字识别" in error["message"]
    assert await stored_rows(backend_settings) == {}
