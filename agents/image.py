"""The image agent: generates every planned image concurrently, stores the results as assets, and reports
each image's progress (`image_progress`: queued → generating → complete | failed).

One `ImageRequest` per plan carries the final prompt for real models and the structured parts (palette,
overlay text, layout density) the card renderer draws — on its own background offline, on the model's picture
otherwise. Generation is bounded by `RunOptions.image_concurrency` (1 in the sequential baseline).

This is the one place an image call is retried (providers never retry, and the OpenAI SDK's retries are off):
an attempt that fails with a retryable error is tried again, up to `ATTEMPTS` in all, after the wait the
provider asked for (`Retry-After`, at most `MAX_WAIT_S`) or else a short jittered backoff, without holding a
concurrency slot meanwhile; each retry is told as a `progress` event ("图片服务繁忙，3 秒后重试（第 2 次）").
Authentication, missing-key, bad-request and content-policy errors are never retried. A success records its
attempts on the `GeneratedImage`.
Successes are saved with `AssetStore.save` (with an image model's picture as it came, before the overlay,
so an edit can draw the card on it again), failures get a `failed` asset row. Some failures still complete
the stage (their slots are `None` in `generatedImageAssetIds`); only when every image failed does the stage
end with a `lastError` for the supervisor — with the failures' own code and message when they all share one,
retryable (worth trying again later) only when some failure was, and marked `retried`: the supervisor does not
rerun the stage, so a persistent failure costs `ATTEMPTS` calls per image, not twice that.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
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
from tools.images import OFFLINE_NAMES, GeneratedImage, ImageRequest, closest_size, retry_after_s
from tools.llm import CallRecord
from tools.providers import image_price_usd

NAME = "image_agent"
NEUTRAL_PALETTE = ["#F5F1EA", "#D9CFC1", "#8C7B6B", "#2F2A26"]
ATTEMPTS = 2  # the first try plus one retry: the only retries an image call gets
BACKOFF_S = 0.5  # the wait before a retry when the provider named none, doubling per retry (±20 % jitter)
MAX_WAIT_S = 30.0  # a provider's Retry-After is honoured up to this


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
        text_scale=plan.text_scale,
        badge=plan.badge,
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


def kept_pictures(state: StudioState, count: int) -> dict[int, Outcome]:
    """The pictures a revision of some of them keeps (`redrawOnly`: the 1-based positions to draw again),
    by position, as outcomes of their own; none unless the thread has a picture for every position."""
    only = state.get("redrawOnly") or []
    previous = list(state.get("generatedImageAssetIds") or [])
    if not only or len(previous) != count:
        return {}
    return {k: Outcome(asset_id) for k, asset_id in enumerate(previous) if k + 1 not in only and asset_id}


def _retryable(exc: Exception) -> bool:
    return exc.retryable if isinstance(exc, StudioError) else True


def _describe(exc: Exception) -> str:
    return exc.message if isinstance(exc, StudioError) else f"{type(exc).__name__}: {exc}"[:300]


def retry_wait(exc: Exception, attempt: int) -> float:
    """Seconds to wait before retrying after failed attempt number `attempt`: the provider's Retry-After (at
    most `MAX_WAIT_S`), else `BACKOFF_S` doubled per earlier retry, jittered."""
    asked = retry_after_s(exc)
    if asked is not None:
        return min(asked, MAX_WAIT_S)
    return min(MAX_WAIT_S, BACKOFF_S * 2 ** (attempt - 1) * random.uniform(0.8, 1.2))


def _retry_reason(exc: Exception) -> str:
    """Why an image is retried, in a few Chinese words."""
    if not isinstance(exc, StudioError):
        return "图片生成失败"
    status = exc.details.get("status") if isinstance(exc.details, dict) else None
    if status == 429:
        return "图片服务繁忙"
    return {
        "IMAGE_GENERATION_TIMEOUT": "图片生成超时",
        "IMAGE_PROVIDER_UNAVAILABLE": "图片服务暂时不可用",
    }.get(exc.code, "图片生成失败")


def _seconds(wait: float) -> str:
    return f"{wait:.0f}" if wait >= 1 else f"{wait:.1f}"


async def generate_image(
    request: ImageRequest, ctx: StudioContext, slots: asyncio.Semaphore, tried: list[int] | None = None
) -> GeneratedImage:
    """One image from the provider, holding a concurrency slot per attempt (not while waiting to retry); up to
    `ATTEMPTS` attempts for retryable errors, each counted in `tried`. A paid picture that would take the run
    past its spending cap is not asked for (`BUDGET_EXCEEDED`)."""
    price = image_price(ctx.images, request)
    for attempt in range(1, ATTEMPTS + 1):
        ctx.llm.ensure_budget("image", price)
        if tried is not None:
            tried.append(attempt)
        async with slots:
            emit(
                ImageProgress(
                    task_id=request.index, status="generating", progress=0.1 if attempt == 1 else 0.5
                )
            )
            try:
                image = await ctx.images.generate(request)
            except Exception as exc:  # any provider failure is this image's failure, not the run's
                if attempt == ATTEMPTS or not _retryable(exc):
                    raise
                failure, wait = exc, retry_wait(exc, attempt)
            else:
                return dataclasses.replace(image, attempts=attempt)
        emit(
            Progress(
                agent=NAME,
                content=f"第{request.index}张图：{_retry_reason(failure)}，"
                f"{_seconds(wait)} 秒后重试（第 {attempt + 1} 次）",
            )
        )
        await asyncio.sleep(wait)
    raise AssertionError("unreachable: the last attempt returns or raises")


def image_price(provider: Any, request: ImageRequest) -> float | None:
    """What one picture of `request` costs with `provider`: 0 offline, litellm's price, or None (unknown)."""
    name = getattr(provider, "name", "offline")
    if name.strip().lower() in OFFLINE_NAMES:
        return 0.0
    return image_price_usd(name, closest_size(name, request.width, request.height))


def meter_image(ctx: StudioContext, request: ImageRequest, started: float, attempts: int, ok: bool) -> None:
    """Count one picture (its attempts, and its price when it was made) in the run's usage, task `image`."""
    ctx.llm.meter.add(
        CallRecord(
            task="image",
            model=getattr(ctx.images, "name", "offline"),
            prompt_tokens=0,
            completion_tokens=0,
            cost_usd=image_price(ctx.images, request) if ok else 0.0,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
            attempts=attempts,
            ok=ok,
        )
    )


@dataclass(frozen=True)
class Outcome:
    """One image's result: its asset id, or the error it failed with."""

    asset_id: int | None
    error: Exception | None = None


async def generate_one(task: Task, ctx: StudioContext, slots: asyncio.Semaphore) -> Outcome:
    """Generate, store and report one image."""
    plan, request = task.plan, task.request
    problem = task.problem or "图片生成失败"
    error: Exception | None = None
    if request is not None:
        started, tried = time.perf_counter(), list[int]()
        try:
            image = await generate_image(request, ctx, slots, tried)
        except Exception as exc:
            problem, error = _describe(exc), exc
            if tried:  # calls were made (not refused by the spending cap before the first)
                meter_image(ctx, request, started, len(tried), ok=False)
        else:
            meter_image(ctx, request, started, image.attempts, ok=True)
    if request is not None and error is None:
        try:
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
                picture=image.picture,
            )
        except Exception as exc:
            problem, error = _describe(exc), exc
        else:
            url = ctx.asset_url(record.id)
            emit(
                ImageProgress(
                    task_id=plan.index, status="complete", progress=1.0, url=url, asset_id=record.id
                )
            )
            return Outcome(record.id)
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
    return Outcome(None, error)


def _all_failed(errors: list[Exception | None], count: int) -> dict[str, Any]:
    """The stage's `lastError` when all `count` images failed: the failures' own code and message when they
    share a code (e.g. IMAGE_PROVIDER_AUTH naming the key setting), retryable only if some failure was."""
    studio = [e for e in errors if isinstance(e, StudioError)]
    codes = {e.code for e in studio}
    shared = studio[0] if studio and len(studio) == len(errors) and len(codes) == 1 else None
    retryable = any(e is None or _retryable(e) for e in errors)
    summary = f"{count} 张图片全部生成失败"
    return {
        "agent": NAME,
        "code": shared.code if shared and not retryable else "IMAGE_GENERATION_FAILED",
        "message": f"{summary}：{shared.message}" if shared else summary,
        "retryable": retryable,
        "retried": True,  # every image had its attempts here: the supervisor does not rerun the stage
        "critical": False,
    }


@agent(NAME)
async def image_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Generate all planned images (bounded concurrency), store them and report per-image progress."""
    tasks = build_tasks(state)
    if not tasks:
        raise StudioError("没有可生成的图片规划", code="NO_IMAGE_PLANS")
    kept = kept_pictures(state, len(tasks))
    todo = [task for k, task in enumerate(tasks) if k not in kept]
    for task in todo:
        emit(ImageProgress(task_id=task.plan.index, status="queued", progress=0.0))
    slots = asyncio.Semaphore(ctx.options.effective_image_concurrency)
    drawn = iter(await asyncio.gather(*(generate_one(task, ctx, slots) for task in todo)))
    outcomes = [kept[k] if k in kept else next(drawn) for k in range(len(tasks))]
    asset_ids = [outcome.asset_id for outcome in outcomes]
    done = sum(asset_id is not None for asset_id in asset_ids)
    if done == 0:
        error = _all_failed([outcome.error for outcome in outcomes], len(tasks))
        emit(Message(agent=NAME, content=error["message"]))
        return {"generatedImageAssetIds": asset_ids, "imagesComplete": False, "lastError": error}
    failed = len(tasks) - done
    note = f"，{failed} 张失败（可在审核后重试）" if failed else ""
    if kept:
        redrawn = "、".join(f"第{k + 1}张" for k in range(len(tasks)) if k not in kept)
        emit(Message(agent=NAME, content=f"重新生成了{redrawn}图片，其余 {len(kept)} 张保留原图{note}"))
    else:
        emit(Message(agent=NAME, content=f"已生成 {done}/{len(tasks)} 张图片{note}"))
    return {"generatedImageAssetIds": asset_ids, "imagesComplete": True}
