"""The reference analyst and real OCR: a reference whose text says 「3天2晚」 reports that text (text regions,
summary, the model's prompt) when the OCR is ready in time; when it is not, the run goes on without it and
the OCR finishes in the background, stored for later."""

from __future__ import annotations

import asyncio

import pytest

from agents import reference_intelligence
from agents.artifacts import ReferenceAnalysis
from agents.context import StudioContext
from agents.reference_intelligence import reference_intelligence_agent
from agents.state import StudioState
from tests.agents.harness import run_node
from tools.database import AssetAnalysisRow
from tools.image_analysis import analyses_for
from tools.images import ImageRequest
from tools.renderer import CardRenderer

POSTER = ImageRequest(
    prompt="成都 美食 攻略",
    role="cover",
    width=600,
    height=800,
    palette=["#FFF4E0", "#E8A87C", "#7A3B2E"],
    headline="成都美食｜3天2晚",
    body=["人均300吃遍老街"],
    visual_focus="火锅",
)


async def stored_reference(ctx: StudioContext) -> int:
    data = CardRenderer().render_png(POSTER)
    record = await ctx.assets.save(
        data, mime="image/png", width=600, height=800, role="reference", provider="upload"
    )
    return record.id


def state(asset_id: int) -> StudioState:
    return {"request": "写一篇成都美食攻略", "referenceInputs": [{"assetId": asset_id, "usage": "content"}]}


async def test_a_reference_whose_text_is_read_in_time_reports_it(ctx: StudioContext) -> None:
    asset_id = await stored_reference(ctx)
    record = await ctx.assets.get(asset_id)
    assert record is not None
    await analyses_for(ctx.sessions, ctx.assets).get(record)  # read before: ready at once (from the cache)

    run = await run_node(reference_intelligence_agent, state(asset_id), ctx)
    [raw] = run.update["referenceAnalyses"]
    analysis = ReferenceAnalysis.model_validate(raw)
    assert any("「3天2晚」" in region for region in analysis.text_regions), analysis.text_regions
    assert any(region.startswith("顶部") for region in analysis.text_regions)
    assert "图中文字" in analysis.summary and "3天2晚" in analysis.summary
    assert any("3天2晚" in e["content"] for e in run.of_type("message"))
    # ready before the model was asked: no wait was needed, and no readText call was made
    assert not [e for e in run.of_type("tool_call") if e["tool"] == "readText"]


async def test_ocr_that_is_late_does_not_hold_up_the_run(
    ctx: StudioContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reference_intelligence, "OCR_WAIT_S", 0.0)
    asset_id = await stored_reference(ctx)
    run = await run_node(reference_intelligence_agent, state(asset_id), ctx)

    [raw] = run.update["referenceAnalyses"]
    assert "图中文字" not in raw["summary"]  # went on without the text
    [result] = [e for e in run.of_type("tool_result") if e["tool"] == "readText"]
    assert result["toolOutput"]["ready"] is False
    assert any("文字还没识别完" in e["content"] for e in run.of_type("progress"))
    # the OCR finished in the background and was stored
    for _ in range(200):
        async with ctx.sessions() as session:
            row = await session.get(AssetAnalysisRow, asset_id)
        if row is not None:
            break
        await asyncio.sleep(0.05)
    assert row is not None and "3天2晚" in row.analysis["text"]
