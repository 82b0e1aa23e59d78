"""The reference analyst: the creator's reference images → one `ReferenceAnalysis` per image.

Each image (already stored as an asset by whoever started the run) is first measured with Pillow
(`tools.vision.analyze_image`, reported as the `analyzeImage` tool): palette, light, composition, text
density. Then a model reads it: the vision role's model (`STUDIO_VISION_MODEL`), or else the text model when
litellm reports it can see images, sees the image itself plus the measurements (an OpenAI-style multimodal
message); otherwise — and when the vision model fails — the text model reads the measurements alone. Images
are analysed concurrently; an image that is missing or does not decode is skipped with a message, it never
fails the run.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Literal, cast

from PIL import Image

from agents.artifacts import Brief, ReferenceAnalysis, ReferenceInsightOutput
from agents.context import StudioContext
from agents.events import Message, Progress, emit
from agents.node import agent, call_tool, prompt
from agents.state import StudioState
from tools.errors import ImageInputError, LLMError
from tools.labels import label as label_of
from tools.vision import ImageAnalysis, analyze_image

NAME = "reference_intelligence_agent"
Usage = Literal["style", "layout", "content"]
USAGES: tuple[Usage, ...] = ("style", "layout", "content")
VISION_MAX_SIDE = 1024  # longer images are downscaled before they are sent to a vision model
VISION_MAX_BYTES = 1_500_000


@dataclass(frozen=True)
class ReferenceInput:
    position: int  # 1-based, in the order the creator attached them
    asset_id: int
    usage: Usage


def reference_inputs(state: StudioState) -> list[ReferenceInput]:
    """The run's `referenceInputs`, cleaned: integer asset ids, unknown usages read as `style`."""
    refs: list[ReferenceInput] = []
    for raw in state.get("referenceInputs") or []:
        if not isinstance(raw, dict):
            continue
        asset_id = raw.get("assetId", raw.get("asset_id"))
        if not isinstance(asset_id, int) or isinstance(asset_id, bool):
            continue
        usage = raw.get("usage") if raw.get("usage") in USAGES else "style"
        refs.append(ReferenceInput(len(refs) + 1, asset_id, cast(Usage, usage)))
    return refs


def analysis_for_prompt(analysis: ImageAnalysis) -> dict[str, Any]:
    """The pixel measurements as the prompt shows them, with the one-line Chinese summary first."""
    return {"summary": analysis.summary(), **analysis.model_dump(mode="json")}


def _region_text(analysis: ImageAnalysis) -> list[str]:
    """Candidate text regions as short phrases, for models that named none."""
    out = []
    for box in analysis.text_regions[:10]:
        middle = box.y + box.h / 2
        where = "顶部" if middle < 1 / 3 else "中部" if middle < 2 / 3 else "底部"
        out.append(f"{where}疑似文字区（x {box.x:.2f}, y {box.y:.2f}, 宽 {box.w:.2f}, 高 {box.h:.2f}）")
    return out


def build_analysis(
    insight: ReferenceInsightOutput, measured: ImageAnalysis, ref: ReferenceInput
) -> ReferenceAnalysis:
    """The model's reading plus what only the pixels know; gaps in the reading are filled from the pixels."""
    palette = insight.palette or [colour.hex.upper() for colour in measured.palette[:5]]
    regions = insight.text_regions or _region_text(measured)
    return ReferenceAnalysis.model_validate(
        {
            **insight.model_dump(),
            "palette": palette,
            "text_regions": regions,
            "asset_id": ref.asset_id,
            "usage": ref.usage,
            "brightness": measured.brightness,
            "text_density": measured.text_density,
        }
    )


def vision_data_url(data: bytes, mime: str) -> str:
    """A data URL for a vision model; large images are downscaled to JPEG first (tokens and upload size)."""
    with Image.open(BytesIO(data)) as image:
        small_enough = max(image.size) <= VISION_MAX_SIDE and len(data) <= VISION_MAX_BYTES
        if not small_enough:
            copy = image.convert("RGB")
            copy.thumbnail((VISION_MAX_SIDE, VISION_MAX_SIDE), Image.Resampling.LANCZOS)
            out = BytesIO()
            copy.save(out, format="JPEG", quality=85)
            data, mime = out.getvalue(), "image/jpeg"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def with_image(messages: list[dict[str, Any]], data_url: str) -> list[dict[str, Any]]:
    """The rendered prompt with the image attached to the user message (OpenAI multimodal parts)."""
    system, user = messages
    parts = [
        {"type": "text", "text": user["content"]},
        {"type": "image_url", "image_url": {"url": data_url}},
    ]
    return [system, {"role": "user", "content": parts}]


async def _read(ref: ReferenceInput, ctx: StudioContext) -> tuple[bytes, str] | None:
    found = await ctx.assets.open_path(ref.asset_id)
    if found is None:
        return None
    path, mime = found
    return await asyncio.to_thread(path.read_bytes), mime


async def analyze_reference(
    ref: ReferenceInput, brief: Brief | None, ctx: StudioContext
) -> ReferenceAnalysis | None:
    """Measure and read one reference image; None (with a message) when it cannot be used."""
    label = f"参考图{ref.position}（{label_of('usage', ref.usage)}）"
    stored = await _read(ref, ctx)
    if stored is None:
        emit(Message(agent=NAME, content=f"{label}找不到或已损坏，已跳过"))
        return None
    data, mime = stored
    try:
        measured: ImageAnalysis = await call_tool(
            NAME,
            "analyzeImage",
            {"assetId": ref.asset_id, "usage": ref.usage},
            lambda: asyncio.to_thread(analyze_image, data),
        )
    except ImageInputError as exc:
        emit(Message(agent=NAME, content=f"{label}无法解析（{exc.message}），已跳过"))
        return None
    messages = prompt("reference").render(
        usage=ref.usage, analysis=analysis_for_prompt(measured), brief=brief
    )
    insight: ReferenceInsightOutput | None = None
    vision = ctx.llm.for_role("vision") or (ctx.llm if ctx.llm.supports_vision() else None)
    if vision is not None:
        try:
            url = await asyncio.to_thread(vision_data_url, data, mime)
            insight = await vision.complete_structured(
                "reference", with_image(messages, url), ReferenceInsightOutput
            )
        except LLMError as exc:  # fall back to reading the measurements with the text model
            emit(Progress(agent=NAME, content=f"视觉模型不可用（{exc.message[:80]}），{label}改用像素分析"))
    if insight is None:
        insight = await ctx.llm.complete_structured("reference", messages, ReferenceInsightOutput)
    analysis = build_analysis(insight, measured, ref)
    emit(Message(agent=NAME, content=f"{label}：{analysis.summary}"))
    return analysis


@agent(NAME)
async def reference_intelligence_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Analyse every reference image concurrently; no references is a normal, quick outcome."""
    refs = reference_inputs(state)
    if not refs:
        emit(Message(agent=NAME, content="未提供参考图，按主题默认风格处理"))
        return {"referenceAnalyses": [], "referenceIntelligenceComplete": True}
    raw_brief = state.get("creativeBrief")
    brief = Brief.model_validate(raw_brief) if raw_brief else None
    emit(Progress(agent=NAME, content=f"正在解析 {len(refs)} 张参考图"))
    results = await asyncio.gather(
        *(analyze_reference(ref, brief, ctx) for ref in refs), return_exceptions=True
    )
    for result in results:  # every task has finished; report the first real failure
        if isinstance(result, BaseException):
            raise result
    analyses = [r for r in results if isinstance(r, ReferenceAnalysis)]
    if not analyses:
        emit(Message(agent=NAME, content="参考图都无法使用，按主题默认风格处理"))
    return {
        "referenceAnalyses": [a.model_dump(mode="json", by_alias=True) for a in analyses],
        "referenceIntelligenceComplete": True,
    }
