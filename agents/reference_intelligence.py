"""The reference analyst: the creator's reference images → one `ReferenceAnalysis` per image.

Each image (already stored as an asset by whoever started the run) is first measured with Pillow
(`tools.vision.analyze_image`, reported as the `analyzeImage` tool): palette, light, composition, text
density. Then a model reads it: the vision role's model (`STUDIO_VISION_MODEL`), or else the text model when
litellm reports it can see images, sees the image itself plus the measurements (an OpenAI-style multimodal
message); otherwise — and when the vision model fails — the text model reads the measurements alone. Images
are analysed concurrently; an image that is missing or does not decode is skipped with a message, it never
fails the run.

Text in the image is read by real OCR (`tools.image_analysis`, cached per asset), which takes about a second
an image — too long for the run to wait on. Each image's OCR starts first thing, in a worker thread, and runs
while the pixels are measured and the model reads them; its lines are used if they are ready by then, or
within `OCR_WAIT_S` of the start (reported as the `readText` tool). Ready before the model call, they are in
its prompt (`ocrText`); ready after it, they still become the analysis's `textRegions` (each line with where
it sits) and a 图中文字 note in its summary, which the writer, layout planner and image planner read, so a
reference whose text says 「3天2晚」 shapes the plan. OCR that is late goes on in the background and is
stored for the detail page and for a redo of this stage; OCR that cannot run is reported and skipped.
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
from tools.errors import ImageInputError, LLMError, StudioError
from tools.image_analysis import StoredAnalysis, analyses_for
from tools.labels import label as label_of
from tools.ocr import TextRegion
from tools.vision import ImageAnalysis, analyze_image

NAME = "reference_intelligence_agent"
Usage = Literal["style", "layout", "content"]
USAGES: tuple[Usage, ...] = ("style", "layout", "content")
VISION_MAX_SIDE = 1024  # longer images are downscaled before they are sent to a vision model
VISION_MAX_BYTES = 1_500_000
OCR_WAIT_S = 1.5  # how long after its start an image's OCR may still be waited for
OCR_MIN_CONFIDENCE = 0.6  # lines recognised with less confidence are not reported to the models
OCR_MAX_LINES = 10
_BACKGROUND: set[asyncio.Task[Any]] = set()  # OCR that outlived its wait (kept referenced until done)


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


def analysis_for_prompt(analysis: ImageAnalysis, lines: list[TextRegion] | None = None) -> dict[str, Any]:
    """The pixel measurements as the prompt shows them, with the one-line Chinese summary first, and the
    recognised text when it is ready."""
    shown = {"summary": analysis.summary(), **analysis.model_dump(mode="json")}
    if lines:
        shown["ocrText"] = [
            {"text": line.text, "confidence": line.confidence, "box": line.box.model_dump()} for line in lines
        ]
    return shown


def _where(box: Any) -> str:
    middle = box.y + box.h / 2
    return "顶部" if middle < 1 / 3 else "中部" if middle < 2 / 3 else "底部"


def ocr_lines(regions: list[TextRegion]) -> list[TextRegion]:
    """The recognised lines worth telling a model: confident enough, at most `OCR_MAX_LINES`."""
    return [r for r in regions if r.confidence >= OCR_MIN_CONFIDENCE][:OCR_MAX_LINES]


def ocr_regions(lines: list[TextRegion]) -> list[str]:
    """Recognised lines as text-region phrases: 「顶部文字「3天2晚」」."""
    return [f"{_where(line.box)}文字「{line.text}」" for line in lines]


def _region_text(analysis: ImageAnalysis) -> list[str]:
    """Candidate text regions as short phrases, for models that named none."""
    out = []
    for box in analysis.text_regions[:10]:
        middle = box.y + box.h / 2
        where = "顶部" if middle < 1 / 3 else "中部" if middle < 2 / 3 else "底部"
        out.append(f"{where}疑似文字区（x {box.x:.2f}, y {box.y:.2f}, 宽 {box.w:.2f}, 高 {box.h:.2f}）")
    return out


def build_analysis(
    insight: ReferenceInsightOutput,
    measured: ImageAnalysis,
    ref: ReferenceInput,
    lines: list[TextRegion] | None = None,
) -> ReferenceAnalysis:
    """The model's reading plus what only the pixels know; gaps in the reading are filled from the pixels.
    Recognised text (`lines`), when there is some, replaces the text regions with where each line is and what
    it says, and is noted at the end of the summary."""
    palette = insight.palette or [colour.hex.upper() for colour in measured.palette[:5]]
    regions = ocr_regions(lines) if lines else insight.text_regions or _region_text(measured)
    summary = insight.summary
    if lines:
        note = "图中文字：" + "、".join(f"「{line.text}」" for line in lines)
        summary = f"{summary.rstrip()} {note}"[:400]
    return ReferenceAnalysis.model_validate(
        {
            **insight.model_dump(by_alias=False),  # field names, which the keys below replace
            "summary": summary,
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


async def start_reading(ref: ReferenceInput, ctx: StudioContext) -> asyncio.Task[StoredAnalysis] | None:
    """Start the image's OCR (or its cached analysis) in the background; None when the asset is not usable."""
    record = await ctx.assets.get(ref.asset_id)
    if record is None or not record.ok:
        return None
    task = asyncio.ensure_future(analyses_for(ctx.sessions, ctx.assets).get(record))
    _BACKGROUND.add(task)
    task.add_done_callback(_settled)
    return task


def _settled(task: asyncio.Task[Any]) -> None:
    _BACKGROUND.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: a late failure is not "never retrieved"


def _ready(task: asyncio.Task[StoredAnalysis] | None) -> list[TextRegion] | None:
    """The recognised lines if the reading has finished well, else None."""
    if task is None or not task.done() or task.cancelled() or task.exception() is not None:
        return None
    return ocr_lines(task.result().analysis.text_regions)


async def wait_for_text(task: asyncio.Task[StoredAnalysis], deadline: float) -> dict[str, Any]:
    """The reading's outcome by `deadline` (loop time): `{"ready", "lines"}` or the error; never raises."""
    timeout = max(0.0, deadline - asyncio.get_running_loop().time())
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        return {"ready": False, "waitedMs": round(timeout * 1000)}
    error = task.exception() if not task.cancelled() else None
    if task.cancelled() or error is not None:
        reason = error.to_dict() if isinstance(error, StudioError) else {"message": "文字识别失败"}
        return {"ready": False, "error": reason}
    lines = ocr_lines(task.result().analysis.text_regions)
    return {"ready": True, "lines": [{"text": line.text, "confidence": line.confidence} for line in lines]}


async def analyze_reference(
    ref: ReferenceInput, brief: Brief | None, ctx: StudioContext
) -> ReferenceAnalysis | None:
    """Measure and read one reference image; None (with a message) when it cannot be used."""
    label = f"参考图{ref.position}（{label_of('usage', ref.usage)}）"
    deadline = asyncio.get_running_loop().time() + OCR_WAIT_S
    stored = await _read(ref, ctx)
    if stored is None:
        emit(Message(agent=NAME, content=f"{label}找不到或已损坏，已跳过"))
        return None
    data, mime = stored
    reading = await start_reading(ref, ctx)
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
    lines = _ready(reading)  # a cached analysis is ready at once: the model reads the text too
    messages = prompt("reference").render(
        usage=ref.usage, analysis=analysis_for_prompt(measured, lines), brief=brief
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
    if lines is None and reading is not None:
        outcome = await call_tool(
            NAME, "readText", {"assetId": ref.asset_id}, lambda: wait_for_text(reading, deadline)
        )
        lines = _ready(reading)
        if not outcome["ready"]:
            why = "无法识别" if "error" in outcome else "还没识别完"
            emit(Progress(agent=NAME, content=f"{label}的文字{why}，先按画面分析继续"))
    analysis = build_analysis(insight, measured, ref, lines)
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
