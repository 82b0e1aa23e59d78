"""The visual agents — reference analysis, layout, image planning, image generation — each run as a real
one-node graph on real components: LanceDB with the shipped corpus and style library, SQLite, the asset
store, the offline model and the offline card renderer."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw
from sqlalchemy import select

from agents.artifacts import (
    Draft,
    ImagePlan,
    LayoutItem,
    LayoutSpec,
    ParagraphImageBinding,
    ReferenceAnalysis,
    TextOverlay,
)
from agents.checks.cards import card_findings
from agents.context import StudioContext
from agents.hitl import ConfirmationError, apply_plans_edit
from agents.image import build_request, image_agent
from agents.image_planner import image_planner_agent, request_subject, requested_count
from agents.layout_planner import body_indexes, layout_planner_agent, normalize_layout
from agents.node import prompt
from agents.reference_intelligence import reference_intelligence_agent
from agents.state import StudioState
from tests.agents.harness import NodeRun, run_node
from tests.fakes import RecordingOffline, ScriptedProvider
from tools.art import LAYOUT_LABELS, is_dark
from tools.database import ImageAsset
from tools.images import GeneratedImage, ImageRequest, make_image_provider
from tools.knowledge import KnowledgeStore, Style
from tools.labels import BLOCK_LABELS, plain
from tools.llm import LLMConfig, LLMGateway, LLMUnavailableError
from tools.prompting import parse_sections
from tools.providers import Endpoint

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
BRIEF = {
    "topic": "周末城市露营",
    "audience": "工作日忙碌、想在周末放松的上班族",
    "goal": "让新手用最低成本完成第一次城市露营",
    "tone": "松弛、真诚、像朋友分享",
    "constraints": ["标题不超过20个字"],
    "keywords": ["城市露营", "上班族", "露营装备"],
    "callToAction": "收藏起来，这个周末就出发吧",
    "theme": "outdoor",
    "contentType": "guide",
}
DRAFT = {
    "title": "上班族周末城市露营指南",
    "body": "\n\n".join(
        [
            "工作日被会议塞满？周末不用请假，在城市边上就能露营回血⛺",
            "装备清单\n1. 帐篷：选3秒速开的，新手10分钟搭好\n2. 防潮垫+睡袋，夜里降温也不怕"
            "\n3. 营地灯和充电宝",
            "选址攻略\n· 优先选有水电的公园营地，一晚80元左右\n· 提前在小程序预约，周六上午最抢手",
            "吃什么\n· 卡式炉煮火锅最省事\n· 前一晚把食材切好装盒",
            "避坑提醒\n· 别忘了驱蚊液\n· 垃圾全部带走，不留痕迹",
            "收藏起来，这个周末就去草地上躺平吧，评论区告诉我你的露营地～",
        ]
    ),
    "tags": ["城市露营", "周末去哪儿", "露营装备", "上班族"],
}
PARAGRAPHS = Draft.model_validate(DRAFT).paragraphs()

# A tiny style library for when the shipped one (data/styles.jsonl) is not there yet.
FALLBACK_STYLES = [
    Style(
        name="户外露营自然风",
        keywords=["露营", "户外", "帐篷", "草地", "自然光", "野餐"],
        prompt="outdoor camping lifestyle photo, tent on green grass, warm natural light, film grain",
        palette=["#EDE3D1", "#7A9E7E", "#3F4A3C"],
        description="户外露营、帐篷草地、自然光的生活方式摄影",
    ),
    Style(
        name="赛博朋克",
        keywords=["霓虹", "赛博", "未来城市", "夜景"],
        prompt="cyberpunk neon city at night, magenta and cyan glow",
        palette=["#0D0221", "#FF2A6D", "#05D9E8"],
        description="霓虹灯、未来都市夜景",
    ),
    Style(
        name="奶油风",
        keywords=["奶油色", "温柔", "治愈", "家居"],
        prompt="soft cream tones, cozy interior, gentle diffused light",
        palette=["#F6EEE3", "#E8D5C0", "#C9A98B"],
        description="奶油色调的温柔家居风",
    ),
]


def full_post_state(**extra: Any) -> StudioState:
    state: dict[str, Any] = {
        "request": REQUEST,
        "intent": {"intent": "full_post"},
        "creativeBrief": BRIEF,
        "generatedContent": DRAFT,
        "imageCount": 4,
        "layoutPreference": "balanced",
        "referenceAnalyses": [],
        **extra,
    }
    return state  # type: ignore[return-value]


def png_bytes(width: int = 600, height: int = 800) -> bytes:
    """A cream card with a green 'lawn' and dark text-like strokes near the top."""
    image = Image.new("RGB", (width, height), "#F2E6D8")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, height * 5 // 8, width, height), fill="#6E8C5A")
    for row in range(3):
        y = 60 + row * 28
        for x in range(60, width - 60, 14):
            draw.rectangle((x, y, x + 8, y + 16), outline="#2F2A26", width=2)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def store_reference(ctx: StudioContext, data: bytes) -> int:
    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
    record = await ctx.assets.save(
        data, mime="image/png", width=width, height=height, role="reference", provider="upload"
    )
    return record.id


@pytest.fixture
async def styled_ctx(ctx: StudioContext, tmp_path: Path) -> AsyncIterator[StudioContext]:
    """`ctx` whose style library has a camping style: the shipped library, or a small one if it is absent."""
    if await ctx.knowledge.count_styles():
        yield ctx
        return
    store = await KnowledgeStore.open(tmp_path / "styles-lancedb")
    try:
        await store.upsert_styles(FALLBACK_STYLES)
        yield dataclasses.replace(ctx, knowledge=store)
    finally:
        await store.close()


def progress_by_task(run: NodeRun) -> dict[int, list[str]]:
    statuses: dict[int, list[str]] = {}
    for event in run.of_type("image_progress"):
        statuses.setdefault(event["taskId"], []).append(event["status"])
    return statuses


# --- prompts --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("reference", {"analysis", "usage", "brief"}),
        ("layout", {"brief", "draft", "image_count", "preference", "references", "review_feedback"}),
        (
            "image_plan",
            {"request", "brief", "draft", "layout", "references", "feedback", "review_feedback"},
        ),
    ],
)
def test_prompt_sections_are_the_keys_the_offline_model_reads(name: str, keys: set[str]) -> None:
    template = prompt(name)
    assert template.variables() == keys
    system, user = template.render(**{key: None for key in keys})
    assert set(parse_sections(user["content"])) == keys
    assert "（无）" in user["content"] and len(system["content"]) > 300


# --- reference intelligence -----------------------------------------------------------------------
async def test_reference_analysis_of_a_real_png(ctx: StudioContext) -> None:
    style_id = await store_reference(ctx, png_bytes())
    layout_id = await store_reference(ctx, png_bytes(800, 800))
    state: StudioState = {
        "request": REQUEST,
        "creativeBrief": BRIEF,
        "referenceInputs": [
            {"assetId": style_id, "usage": "style"},
            {"assetId": 999_999, "usage": "content"},  # not stored: skipped, not fatal
            {"assetId": layout_id, "usage": "layout"},
        ],
    }
    run = await run_node(reference_intelligence_agent, state, ctx)

    assert run.update["referenceIntelligenceComplete"] is True
    analyses = [ReferenceAnalysis.model_validate(a) for a in run.update["referenceAnalyses"]]
    assert [(a.asset_id, a.usage) for a in analyses] == [(style_id, "style"), (layout_id, "layout")]
    for analysis in analyses:
        assert analysis.palette and all(c.startswith("#") and len(c) == 7 for c in analysis.palette)
        assert analysis.brightness is not None and 0.4 < analysis.brightness < 0.95
        assert analysis.text_density in ("low", "medium", "high")
        assert analysis.style and analysis.summary
    # the pixels were measured with a reported tool call per usable image
    calls = [e for e in run.of_type("tool_call") if e["tool"] == "analyzeImage"]
    results = [e for e in run.of_type("tool_result") if e["tool"] == "analyzeImage"]
    assert len(calls) == len(results) == 2
    assert {c["toolCallId"] for c in calls} == {r["toolCallId"] for r in results}
    assert results[0]["toolOutput"]["palette"]
    assert any("已跳过" in e["content"] for e in run.of_type("message"))
    assert run.types[0] == "agent_start" and "agent_end" in run.types
    assert "lastError" not in run.update


async def test_no_references_is_quick_and_complete(ctx: StudioContext) -> None:
    run = await run_node(reference_intelligence_agent, {"request": REQUEST, "referenceInputs": []}, ctx)
    assert run.update["referenceAnalyses"] == []
    assert run.update["referenceIntelligenceComplete"] is True
    assert "未提供参考图，按主题默认风格处理" in [e["content"] for e in run.of_type("message")]
    assert not run.of_type("tool_call")


def with_vision(model: str) -> LLMGateway:
    """The offline text model with `model` in the vision role."""
    return LLMGateway(LLMConfig(roles={"vision": Endpoint(model, role="vision")}))


async def test_vision_model_sees_the_image_and_falls_back_when_it_fails(ctx: StudioContext) -> None:
    asset_id = await store_reference(ctx, png_bytes(1600, 2000))
    state: StudioState = {"request": REQUEST, "referenceInputs": [{"assetId": asset_id, "usage": "style"}]}

    spy = RecordingOffline().install()
    vision = dataclasses.replace(ctx, llm=with_vision("spy/offline"))
    run = await run_node(reference_intelligence_agent, state, vision)
    [analysis] = run.update["referenceAnalyses"]
    assert analysis["assetId"] == asset_id and analysis["palette"]
    [(task, messages)] = spy.calls
    parts = messages[-1]["content"]
    assert task == "reference" and isinstance(parts, list)
    assert "## 像素分析 (analysis)" in parts[0]["text"]
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")  # 1600x2000 was downscaled for the model

    ScriptedProvider().script(
        LLMUnavailableError("down"), LLMUnavailableError("down"), LLMUnavailableError("down")
    ).install()
    broken = dataclasses.replace(ctx, llm=with_vision("scripted/vision"))
    run = await run_node(reference_intelligence_agent, state, broken)
    assert run.update["referenceAnalyses"][0]["palette"]
    assert any("视觉模型不可用" in e["content"] for e in run.of_type("progress"))


# --- layout ---------------------------------------------------------------------------------------
def assert_valid_layout(spec: LayoutSpec, count: int, paragraph_count: int) -> None:
    assert [item.index for item in spec.items] == list(range(1, count + 1))
    assert spec.items[0].role == "cover"
    assert all(item.role != "cover" for item in spec.items[1:])
    for item in spec.items:
        assert all(0 <= p < paragraph_count for p in item.paragraph_indexes)
    if count > 1:
        shown = {p for item in spec.items for p in item.paragraph_indexes}
        assert set(body_indexes(paragraph_count)) <= shown
        assert all(item.paragraph_indexes for item in spec.items)


@pytest.mark.parametrize("count", [1, 4, 9])
async def test_layout_has_exactly_image_count_items(ctx: StudioContext, count: int) -> None:
    run = await run_node(layout_planner_agent, full_post_state(imageCount=count), ctx)
    assert run.update["layoutComplete"] is True
    spec = LayoutSpec.model_validate(run.update["layoutSpec"])
    assert_valid_layout(spec, count, len(PARAGRAPHS))
    [ready] = run.of_type("layout_spec_ready")
    assert ready["layoutSpec"] == run.update["layoutSpec"]


@pytest.mark.parametrize(
    ("preference", "detail_density"), [("dense", "high"), ("visual-first", "low"), ("balanced", "medium")]
)
async def test_layout_follows_the_preference(
    ctx: StudioContext, preference: str, detail_density: str
) -> None:
    run = await run_node(layout_planner_agent, full_post_state(layoutPreference=preference), ctx)
    spec = LayoutSpec.model_validate(run.update["layoutSpec"])
    assert spec.preference == preference
    assert {item.text_density for item in spec.items[1:]} == {detail_density}
    if preference == "visual-first":
        assert spec.items[0].text_density == "low"


async def test_a_layout_reference_sets_the_text_density(ctx: StudioContext) -> None:
    reference = ReferenceAnalysis(
        style="极简",
        mood="克制",
        layout="大面积留白，底部一行小字",
        summary="留白很多的版式参考",
        usage="layout",
        text_density="low",
        palette=["#FFFFFF", "#222222"],
    ).model_dump(mode="json", by_alias=True)
    run = await run_node(layout_planner_agent, full_post_state(referenceAnalyses=[reference]), ctx)
    spec = LayoutSpec.model_validate(run.update["layoutSpec"])
    assert {item.text_density for item in spec.items[1:]} == {"low"}
    assert "版式参考图" in spec.notes


def test_normalize_layout_repairs_a_bad_answer() -> None:
    bad = LayoutSpec(
        items=[
            LayoutItem(index=7, role="detail", visual_focus="装备", paragraph_indexes=[1, 42]),
            LayoutItem(index=3, role="cover", visual_focus="帐篷", paragraph_indexes=[-1]),
            LayoutItem(index=9, role="cover", visual_focus="火锅", paragraph_indexes=[]),
        ]
    )
    spec = normalize_layout(
        bad, paragraph_count=len(PARAGRAPHS), count=5, preference="balanced", topic="周末城市露营"
    )
    assert_valid_layout(spec, 5, len(PARAGRAPHS))
    assert spec.items[0].visual_focus == "帐篷"  # sorted by the model's index, then renumbered
    assert spec.items[0].paragraph_indexes == [0]


async def test_layout_without_a_draft_is_an_error(ctx: StudioContext) -> None:
    run = await run_node(layout_planner_agent, full_post_state(generatedContent=None), ctx)
    assert run.update["lastError"]["code"] == "LAYOUT_NO_DRAFT"
    assert "layoutComplete" not in run.update


# --- image planning -------------------------------------------------------------------------------
async def planned_state(ctx: StudioContext, **extra: Any) -> StudioState:
    layout = await run_node(layout_planner_agent, full_post_state(**extra), ctx)
    return full_post_state(layoutSpec=layout.update["layoutSpec"], **extra)


async def test_image_planner_binds_paragraphs_and_enhances_prompts_from_the_style_library(
    styled_ctx: StudioContext,
) -> None:
    state = await planned_state(styled_ctx)
    run = await run_node(image_planner_agent, state, styled_ctx)
    update = run.update
    layout = LayoutSpec.model_validate(state["layoutSpec"])
    plans = [ImagePlan.model_validate(p) for p in update["imagePlans"]]
    assert [(p.index, p.role) for p in plans] == [(i.index, i.role) for i in layout.items]
    assert update["imagePlansComplete"] is True and update["imagePlansApproved"] is False
    assert update["userFeedback"] == {"image_planner_agent": ""}

    bindings = [ParagraphImageBinding.model_validate(b) for b in update["paragraphImageBindings"]]
    assert all(0 <= b.paragraph_index < len(PARAGRAPHS) and 1 <= b.image_index <= 4 for b in bindings)
    for item in layout.items:
        bound = {b.paragraph_index for b in bindings if b.image_index == item.index}
        assert set(item.paragraph_indexes) <= bound
    overlays = [TextOverlay.model_validate(o) for o in update["textOverlayPlan"]]
    assert [o.image_index for o in overlays] == [1, 2, 3, 4]
    assert overlays[0].headline and all(o.headline for o in overlays)

    # style retrieval: one searchStyles call; a camping draft matches an outdoor style above the threshold
    [call] = [e for e in run.of_type("tool_call") if e["tool"] == "searchStyles"]
    assert call["toolInput"]["limit"] == 3
    threshold = styled_ctx.options.style_similarity_threshold
    for plan in plans:
        assert plan.style is not None and plan.style_similarity is not None
        assert plan.style_similarity >= threshold
        assert plan.prompt.startswith(plan.base_prompt + "，") and len(plan.prompt) > len(plan.base_prompt)
    [style] = [s for s in await styled_ctx.knowledge.all_styles() if s.name == plans[0].style]
    assert any(w in f"{style.name}{style.keywords}{style.description}" for w in ("露营", "户外", "camp"))
    assert plans[0].palette == style.palette[:8] or is_dark(plans[0].palette)  # a night scene is dark
    assert plans[0].prompt.endswith(style.prompt)

    [aligned] = run.of_type("alignment_map_ready")
    assert aligned["paragraphImageBindings"] == update["paragraphImageBindings"]
    assert aligned["textOverlayPlan"] == update["textOverlayPlan"]
    assert aligned["bodyBlocks"] == PARAGRAPHS
    [matched] = [e for e in run.of_type("message") if "匹配到风格" in e["content"]]
    assert "相似度" not in matched["content"] and matched["detail"].startswith("风格库检索")


async def test_image_planner_keeps_the_original_prompt_below_the_threshold(
    styled_ctx: StudioContext,
) -> None:
    strict = dataclasses.replace(
        styled_ctx, options=dataclasses.replace(styled_ctx.options, style_similarity_threshold=0.99)
    )
    run = await run_node(image_planner_agent, await planned_state(strict), strict)
    plans = [ImagePlan.model_validate(p) for p in run.update["imagePlans"]]
    assert all(p.prompt == p.base_prompt and p.style is None and p.style_similarity is None for p in plans)
    said = [e for e in run.of_type("message") if "风格库" in e["content"]]
    assert said and all("阈值" not in e["content"] and "相似度" not in e["content"] for e in said)
    assert any("阈值 0.99" in e.get("detail", "") for e in said)


async def test_a_style_reference_palette_beats_the_style_library(styled_ctx: StudioContext) -> None:
    reference = ReferenceAnalysis(
        style="日系清新",
        mood="干净",
        layout="居中",
        summary="清新风格参考",
        usage="style",
        palette=["#112233", "#445566", "#778899"],
    ).model_dump(mode="json", by_alias=True)
    state = await planned_state(styled_ctx, referenceAnalyses=[reference])
    run = await run_node(image_planner_agent, state, styled_ctx)
    plans = [ImagePlan.model_validate(p) for p in run.update["imagePlans"]]
    assert all(p.palette == ["#112233", "#445566", "#778899"] for p in plans)


async def test_image_planner_uses_reject_feedback(ctx: StudioContext) -> None:
    spy = RecordingOffline().install()
    recording = dataclasses.replace(ctx, llm=ctx.llm.with_model("spy/offline"))
    state = await planned_state(ctx, userFeedback={"image_planner_agent": "封面换成夜景，暖色灯串"})
    run = await run_node(image_planner_agent, state, recording)
    assert run.update["userFeedback"] == {"image_planner_agent": ""}
    [text] = spy.prompts("image_plan")
    assert parse_sections(text)["feedback"] == "封面换成夜景，暖色灯串"


@pytest.mark.parametrize(
    ("request_text", "image_count", "expected"),
    [
        ("帮我生成三张周末露营的图片", 4, 3),
        ("画12张猫咪在窗台晒太阳的插画", 4, 9),
        ("生成一些秋天穿搭的配图", 2, 2),
    ],
)
async def test_image_only_path_plans_from_the_request(
    ctx: StudioContext, request_text: str, image_count: int, expected: int
) -> None:
    state: StudioState = {
        "request": request_text,
        "intent": {"intent": "image_only"},
        "imageCount": image_count,
        "referenceAnalyses": [],
    }
    run = await run_node(image_planner_agent, state, ctx)
    plans = [ImagePlan.model_validate(p) for p in run.update["imagePlans"]]
    assert [p.index for p in plans] == list(range(1, expected + 1))
    assert [p.role for p in plans] == ["cover"] + ["detail"] * (expected - 1)
    subject = request_subject(request_text)
    overlays = [TextOverlay.model_validate(o) for o in run.update["textOverlayPlan"]]
    assert len(overlays) == expected and all(o.headline and o.headline[:2] == subject[:2] for o in overlays)
    assert run.update["paragraphImageBindings"] == []
    [aligned] = run.of_type("alignment_map_ready")
    assert aligned["bodyBlocks"] == []


def test_request_subject_and_count() -> None:
    assert request_subject("帮我生成三张周末露营的图片") == "周末露营"
    assert request_subject("画3张猫咪在窗台晒太阳的插画，要温柔一点") == "猫咪在窗台晒太阳"
    assert requested_count("来两张封面") == 2
    assert requested_count("做十张图") == 9
    assert requested_count("3 张就好") == 3
    assert requested_count("生成一些图") is None


# --- image generation -----------------------------------------------------------------------------
async def image_state(ctx: StudioContext, count: int = 4) -> StudioState:
    state = await planned_state(ctx, imageCount=count)
    plans = await run_node(image_planner_agent, state, ctx)
    return {**state, **plans.update, "imagePlansApproved": True}  # type: ignore[typeddict-item]


async def test_image_agent_produces_real_png_assets(ctx: StudioContext) -> None:
    state = await image_state(ctx)
    run = await run_node(image_agent, state, ctx)
    ids = run.update["generatedImageAssetIds"]
    assert run.update["imagesComplete"] is True and len(ids) == 4 and all(isinstance(i, int) for i in ids)
    for task_id, asset_id in enumerate(ids, start=1):
        found = await ctx.assets.open_path(asset_id)
        assert found is not None and found[1] == "image/png"
        with Image.open(found[0]) as image:
            assert image.format == "PNG" and image.size == (1080, 1440)
        record = await ctx.assets.get(asset_id)
        assert record is not None and record.task_index == task_id and record.status == "complete"

    statuses = progress_by_task(run)
    assert statuses == {i: ["queued", "generating", "complete"] for i in range(1, 5)}
    events = run.of_type("image_progress")
    assert [e["status"] for e in events[:4]] == ["queued"] * 4  # every task is queued first
    complete = {e["taskId"]: e for e in events if e["status"] == "complete"}
    assert all(complete[i]["url"] == ctx.asset_url(ids[i - 1]) for i in range(1, 5))
    assert all(complete[i]["assetId"] == ids[i - 1] and complete[i]["progress"] == 1 for i in range(1, 5))


async def test_every_image_failing_retries_once_and_sets_last_error(ctx: StudioContext) -> None:
    state = await image_state(ctx, count=3)
    failing = dataclasses.replace(ctx, images=make_image_provider("offline", offline_failure_rate=1.0))
    run = await run_node(image_agent, state, failing)
    assert progress_by_task(run) == {i: ["queued", "generating", "generating", "failed"] for i in (1, 2, 3)}
    failed = [e for e in run.of_type("image_progress") if e["status"] == "failed"]
    assert all("第 2 次尝试" in e["errorMessage"] for e in failed)
    assert run.update["generatedImageAssetIds"] == [None, None, None]
    assert run.update.get("imagesComplete") is False
    error = run.update["lastError"]
    assert error["code"] == "IMAGE_GENERATION_FAILED" and error["retryable"] is True
    assert error["retried"] is True  # the one retry layer spent: the supervisor will not rerun the stage
    assert error["agent"] == "image_agent"


class CountingProvider:
    """An ImageProvider that records how many generations run at once; fails the indexes it is told to."""

    name = "counting"

    def __init__(self, delay_s: float = 0.05, fail: frozenset[int] = frozenset()) -> None:
        self.delay_s = delay_s
        self.fail = fail
        self.running = 0
        self.peak = 0
        self.calls: list[int] = []

    async def generate(self, request: ImageRequest) -> GeneratedImage:
        self.calls.append(request.index)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(self.delay_s)
            if request.index in self.fail:
                raise RuntimeError(f"boom {request.index}")
            image = Image.new("RGB", (request.width, request.height), request.palette[0])
            out = io.BytesIO()
            image.save(out, format="PNG")
            return GeneratedImage(out.getvalue(), "image/png", request.width, request.height, self.name)
        finally:
            self.running -= 1


async def test_generation_concurrency_is_bounded(ctx: StudioContext) -> None:
    state = await image_state(ctx, count=4)
    provider = CountingProvider(delay_s=0.2)
    bounded = dataclasses.replace(
        ctx, images=provider, options=dataclasses.replace(ctx.options, image_concurrency=2)
    )
    started = time.perf_counter()
    run = await run_node(image_agent, state, bounded)
    elapsed = time.perf_counter() - started
    # (two at a time, never more: the peak says it; the clock only says there were at least two waves — an
    # upper bound on wall time fails on a loaded machine and is the concurrency benchmark's to measure)
    assert provider.peak == 2 and sorted(provider.calls) == [1, 2, 3, 4]
    assert elapsed >= 0.4
    assert run.update["imagesComplete"] is True


async def test_some_failures_still_complete_the_stage(ctx: StudioContext) -> None:
    state = await image_state(ctx, count=4)
    provider = CountingProvider(delay_s=0.0, fail=frozenset({3}))
    run = await run_node(image_agent, state, dataclasses.replace(ctx, images=provider))
    ids = run.update["generatedImageAssetIds"]
    assert ids[2] is None and all(isinstance(i, int) for i in (ids[0], ids[1], ids[3]))
    assert run.update["imagesComplete"] is True and "lastError" not in run.update
    assert provider.calls.count(3) == 2  # one retry
    assert progress_by_task(run)[3] == ["queued", "generating", "generating", "failed"]
    async with ctx.sessions() as session:
        failed = (await session.scalars(select(ImageAsset).where(ImageAsset.status == "failed"))).all()
    assert [(row.task_index, row.provider) for row in failed] == [(3, "counting")]
    assert failed[0].error == "RuntimeError: boom 3"


# --- plan edits change the card -------------------------------------------------------------------------
def _card(plan: dict[str, Any], overlay: dict[str, Any] | None, total: int = 4) -> tuple[Any, Any]:
    from tools.renderer import CardRenderer

    renderer = _card.__dict__.setdefault("renderer", CardRenderer())
    request = build_request(
        ImagePlan.model_validate(plan), TextOverlay.model_validate(overlay) if overlay else None, None, total
    )
    canvas = renderer.draw(request)
    return canvas.drawn, canvas.image


async def test_each_kind_of_plan_edit_visibly_changes_the_card(ctx: StudioContext) -> None:
    state = await image_state(ctx)
    plans, overlays = state["imagePlans"], state["textOverlayPlan"]
    cover, cover_overlay = plans[0], overlays[0]
    text, image = _card(cover, cover_overlay)
    assert [t for slot, t in text if slot == "headline"]  # the cover headline is the post title
    assert "".join(t for slot, t in text if slot == "headline").replace(" ", "") == DRAFT["title"]

    def edited(**changes: Any) -> dict[str, Any]:
        [plan] = apply_plans_edit({"plans": [{**cover, **changes}]})
        return plan

    # subject: the motif names the new subject
    new_text, new_image = _card(edited(subject="星空帐篷"), cover_overlay)
    assert "".join(t for slot, t in new_text if slot == "motif") == "星空帐篷"
    assert new_image.tobytes() != image.tobytes()
    # prompt: the prompt's scene words appear on the card
    new_text, new_image = _card(edited(prompt="湖边的篝火和吊床，远处是雪山"), cover_overlay)
    scene = "".join(t for slot, t in new_text if slot == "scene")
    assert "篝火" in scene and new_image.tobytes() != image.tobytes()
    # palette: the background takes the new colours
    new_text, new_image = _card(edited(palette=["#FFF4E0", "#FFE0B2", "#2A9D8F"]), cover_overlay)
    before, after = image.resize((1, 1)).getpixel((0, 0)), new_image.resize((1, 1)).getpixel((0, 0))
    assert sum(abs(a - b) for a, b in zip(before, after, strict=True)) > 90
    # layout: another cover layout, by key or by its Chinese name
    other = next(k for k in ("band", "frame", "centered", "classic") if k != cover.get("layout"))
    assert edited(layout=LAYOUT_LABELS[other])["layout"] == other
    new_text, new_image = _card(edited(layout=other), cover_overlay)
    assert new_image.tobytes() != image.tobytes()
    with pytest.raises(ConfirmationError):
        edited(layout="steps")  # a detail layout is no cover layout
    # overlay text written by the editor replaces the planned one, headline included
    plan = edited(overlay={"headline": "下班就去露营", "lines": ["城市边上的草地就够了"]})
    new_text, _ = _card(plan, cover_overlay)
    assert "".join(t for slot, t in new_text if slot == "headline") == "下班就去露营"
    assert card_findings(draft=DRAFT, plans=[plan, *plans[1:]], overlays=overlays) == []


async def test_plan_feedback_changes_the_plans(ctx: StudioContext) -> None:
    state = await planned_state(ctx)
    before = await run_node(image_planner_agent, state, ctx)
    after = await run_node(
        image_planner_agent,
        {**state, "userFeedback": {"image_planner_agent": "主体改成篝火，换深色，版式换一个"}},  # type: ignore[typeddict-item]
        ctx,
    )
    old, new = before.update["imagePlans"], after.update["imagePlans"]
    assert all(p["subject"] == "篝火" for p in new) and old[0]["subject"] != "篝火"
    assert is_dark(new[0]["palette"])
    assert [p["layout"] for p in new] != [p["layout"] for p in old] or new[0]["palette"] != old[0]["palette"]


async def test_a_night_scene_gets_a_dark_palette_and_the_messages_speak_chinese(ctx: StudioContext) -> None:
    night = {
        **DRAFT,
        "title": "城市夜景露营指南",
        "body": DRAFT["body"].replace("工作日", "晚上看星空，工作日"),
    }
    state = await planned_state(ctx, generatedContent=night)
    run = await run_node(image_planner_agent, state, ctx)
    assert all(is_dark(p["palette"]) for p in run.update["imagePlans"])
    for event in run.of_type("message") + run.of_type("progress"):
        assert not re.search(r"[a-z]{4,}", event["content"]), event["content"]
        assert "阈值" not in event["content"] and "相似度" not in event["content"]


@pytest.mark.parametrize("preference", ["balanced", "dense", "visual-first"])
async def test_the_layout_planner_speaks_chinese(ctx: StudioContext, preference: str) -> None:
    run = await run_node(layout_planner_agent, full_post_state(layoutPreference=preference), ctx)
    [said] = run.of_type("message")
    notes = run.update["layoutSpec"]["notes"]
    for text in (said["content"], notes):
        assert not re.search(r"[A-Za-z]{3,}", text), text
    label = said["content"].rsplit("「", 1)[1].rstrip("」")
    assert {"均衡": "balanced", "信息密集": "dense", "图片优先": "visual-first"}[label] == preference
    assert "封面" in said["content"] and BLOCK_LABELS["headline"] in said["content"]
    assert plain("文字密度按「balanced」安排，模块 headline / subtitle，outdoor") == (
        "文字密度按「均衡」安排，模块 大标题 / 副标题，户外"
    )
