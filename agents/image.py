"""The image agent: generates every planned image concurrently, stores the results as assets, and reports
each image's progress (`image_progress`: queued → generating → complete | failed).

One `ImageRequest` per plan carries the final prompt for real models and the structured parts (palette,
overlay text, layout density) for the offline card renderer. Generation is bounded by
`RunOptions.image_concurrency` (1 in the sequential baseline); an image whose attempt fails (with a
retryable error) is tried once more.
Successes are saved with `AssetStore.save`, failures get a `failed` asset row. Some failures still complete
the stage (their slots are `None` in `generatedImageAssetIds`); only when every image failed does the stage
end with a retryable `lastError` for the supervisor.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agents.artifacts import ImagePlan, LayoutSpec, TextDensity, TextOverlay
from agents.context import StudioContext
from agents.events import ImageProgress, Message, Progress, emit
from agents.node import agent
from agents.state import StudioState
from tools.art import layout_key
from tools.cardtext import is_page_mark
from tools.errors import StudioError
from tools.images import GeneratedImage, ImageRequest

NAME = "image_agent"
NEUTRAL_PALETTE = ["#F5F1EA", "#D9CFC1", "#8C7B6B", "#2F2A26"]
ATTEMPTS = 2  # the first try plus one retry


@dataclass(frozen=True)
class Task:
    plan: ImagePlan
    request: ImageRequest | None  # None when the plan could not become a valid request
    problem: str | None = None


def build_request(
    plan: ImagePlan, overlay: TextOverlay | None, density: TextDensity | None, total: int
) -> ImageRequest:
    """The provider request for one plan, with its overlay text and the layout's text density. An overlay
    the editor wrote into the plan wins over the planned one; a caption that only repeats the page number is
    dropped (the card shows its page number once)."""
    overlay = plan.overlay or overlay
    caption = overlay.caption if overlay else None
    return ImageRequest(
        prompt=plan.prompt or plan.base_prompt,
        role=plan.role,
        palette=list(plan.palette) or list(NEUTRAL_PALETTE),
        background=plan.background,
        headline=overlay.headline if overlay else None,
        body=list(overlay.lines) if overlay else [],
        caption=None if is_page_mark(caption) else caption,
        text_position=overlay.position if overlay else "center",
        text_density=density or ("low" if plan.role == "cover" else "medium"),
        visual_focus=plan.subject,
        style_name=plan.style,
        layout=layout_key(plan.layout, plan.role),
        index=plan.index,
        total=total,
        first_number=overlay.first_number if overlay else 1,
    )


def build_tasks(state: StudioState) -> list[Task]:
    plans = [ImagePlan.model_validate(p) for p in state.get("imagePlans") or []]
    overlays = {
        o.image_index: o
        for o in (TextOverlay.model_validate(raw) for raw in state.get("textOverlayPlan") or [])
    }
    raw_layout = state.get("layoutSpec")
    densities: dict[int, TextDensity] = (
        {item.index: item.text_density for item in LayoutSpec.model_validate(raw_layout).items}
        if raw_layout
        else {}
    )
    total = max([len(plans), *(p.index for p in plans)], default=1)
    tasks = []
    for plan in plans:
        try:
            request = build_request(plan, overlays.get(plan.index), densities.get(plan.index), total)
        except ValidationError as exc:
            tasks.append(Task(plan, None, f"图片请求无效：{exc.errors()[0]['msg']}"))
        else:
            tasks.append(Task(plan, request))
    return tasks


def _retryable(exc: Exception) -> bool:
    return exc.retryable if isinstance(exc, StudioError) else True


def _describe(exc: Exception) -> str:
    return exc.message if isinstance(exc, StudioError) else f"{type(exc).__name__}: {exc}"[:300]


async def _generate(request: ImageRequest, ctx: StudioContext, slots: asyncio.Semaphore) -> GeneratedImage:
    """One image from the provider, holding a concurrency slot per attempt; one retry for retryable errors."""
    for attempt in range(1, ATTEMPTS + 1):
        async with slots:
            emit(
                ImageProgress(
                    task_id=request.index, status="generating", progress=0.1 if attempt == 1 else 0.5
                )
            )
            try:
                return await ctx.images.generate(request)
            except Exception as exc:  # any provider failure is this image's failure, not the run's
                if attempt == ATTEMPTS or not _retryable(exc):
                    raise
                emit(
                    Progress(
                        agent=NAME,
                        content=f"第{request.index}张图生成失败（{_describe(exc)[:60]}），重试一次",
                    )
                )
    raise AssertionError("unreachable: the last attempt returns or raises")


async def generate_one(task: Task, ctx: StudioContext, slots: asyncio.Semaphore) -> int | None:
    """Generate, store and report one image; its asset id, or None when it failed."""
    plan, request = task.plan, task.request
    problem = task.problem or "图片生成失败"
    if request is not None:
        try:
            image = await _generate(request, ctx, slots)
            record = await ctx.assets.save(
                image.data,
                mime=image.mime,
                width=image.width,
                height=image.height,
                role=plan.role,
                provider=image.provider,
                prompt=request.prompt,
                creative_id=ctx.creative_id,
                task_index=plan.index,
            )
        except Exception as exc:
            problem = _describe(exc)
        else:
            url = ctx.asset_url(record.id)
            emit(
                ImageProgress(
                    task_id=plan.index, status="complete", progress=1.0, url=url, asset_id=record.id
                )
            )
            return record.id
    await ctx.assets.record_failure(
        role=plan.role,
        provider=getattr(ctx.images, "name", "unknown"),
        error=problem,
        prompt=plan.prompt or plan.base_prompt,
        creative_id=ctx.creative_id,
        task_index=plan.index,
        width=request.width if request else 0,
        height=request.height if request else 0,
    )
    emit(ImageProgress(task_id=plan.index, status="failed", progress=0.0, error_message=problem))
    return None


@agent(NAME)
async def image_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Generate all planned images (bounded concurrency), store them and report per-image progress."""
    tasks = build_tasks(state)
    if not tasks:
        raise StudioError("没有可生成的图片规划", code="NO_IMAGE_PLANS")
    for task in tasks:
        emit(ImageProgress(task_id=task.plan.index, status="queued", progress=0.0))
    slots = asyncio.Semaphore(ctx.options.effective_image_concurrency)
    asset_ids = list(await asyncio.gather(*(generate_one(task, ctx, slots) for task in tasks)))
    done = sum(asset_id is not None for asset_id in asset_ids)
    if done == 0:
        emit(Message(agent=NAME, content=f"{len(tasks)} 张图片全部生成失败"))
        return {
            "generatedImageAssetIds": asset_ids,
            "imagesComplete": False,
            "lastError": {
                "agent": NAME,
                "code": "IMAGE_GENERATION_FAILED",
                "message": f"{len(tasks)} 张图片全部生成失败",
                "retryable": True,
                "critical": False,
            },
        }
    failed = len(tasks) - done
    note = f"，{failed} 张失败（可在审核后重试）" if failed else ""
    emit(Message(agent=NAME, content=f"已生成 {done}/{len(tasks)} 张图片{note}"))
    return {"generatedImageAssetIds": asset_ids, "imagesComplete": True}
