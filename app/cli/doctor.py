"""`studio doctor`: one tiny call per configured model role (text, vision, image, web search) and a plain
report of what works, what fails and which setting to fix.

The calls go through the same gateway and providers a run uses (endpoint resolution, one retry layer, error
mapping), so what the doctor says is what a run will meet. A paid image model is only called with
`--images` (one picture costs money); without it the doctor says how the role is configured.
"""

from __future__ import annotations

import asyncio
import io
import os
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.settings import get_settings

if TYPE_CHECKING:
    from app.settings import Settings
    from tools.llm import LLMGateway, Message
    from tools.providers import Endpoint

console = Console(highlight=False)
ROLE_NAMES = {"text": "文字", "vision": "识图", "image": "配图", "web_search": "联网搜索"}
PING = [{"role": "user", "content": "请只回复一个字：好"}]


@dataclass(frozen=True)
class Finding:
    """One role's outcome: ok (True), failed (False) or not checked (None)."""

    role: str
    model: str
    where: str
    ok: bool | None
    detail: str
    fix: str = ""
    ms: float | None = None


def _where(endpoint: Endpoint | None) -> str:
    from tools.llm import is_offline

    if endpoint is None or is_offline(endpoint.model):
        return "本机"
    return endpoint.api_base or "服务商默认地址"


async def _timed(call: Awaitable[object]) -> float:
    """Milliseconds the call took."""
    started = time.perf_counter()
    await call
    return (time.perf_counter() - started) * 1000


def _failure(role: str, model: str, where: str, exc: Exception, fix: str) -> Finding:
    from tools.errors import StudioError

    message = exc.message if isinstance(exc, StudioError) else f"{type(exc).__name__}: {exc}"
    code = exc.code if isinstance(exc, StudioError) else "ERROR"
    return Finding(role, model, where, False, f"{message}（{code}）", fix)


def _fix_for(exc: Exception, endpoint: Endpoint | None, model_setting: str) -> str:
    code = getattr(exc, "code", "")
    if code in ("LLM_AUTH", "IMAGE_PROVIDER_AUTH"):
        return endpoint.key_setting if endpoint else model_setting
    if code in ("LLM_UNAVAILABLE", "LLM_TIMEOUT", "IMAGE_PROVIDER_UNAVAILABLE", "IMAGE_GENERATION_TIMEOUT"):
        return "接口地址（*_API_BASE）或稍后再试"
    return model_setting


async def _ping(
    role: str, gateway: LLMGateway, messages: Sequence[Message], model_setting: str, note: str = ""
) -> Finding:
    """One tiny call of `role` through `gateway`: usable, or what failed and the setting to fix."""
    from tools.errors import LLMError

    where = _where(gateway.endpoint)
    try:
        ms = await _timed(gateway.complete_raw(role, messages, max_tokens=16))
    except LLMError as exc:
        if exc.code == "LLM_OUTPUT_TRUNCATED":  # an answer arrived; only its length was cut
            return Finding(role, gateway.model, where, True, f"可用{note}")
        return _failure(role, gateway.model, where, exc, _fix_for(exc, gateway.endpoint, model_setting))
    return Finding(role, gateway.model, where, True, f"可用{note}", ms=ms)


async def _check_text(llm: LLMGateway) -> Finding:
    return await _ping("text", llm, PING, "STUDIO_LLM_MODEL")


def _tiny_png() -> str:
    from PIL import Image

    from agents.reference_intelligence import vision_data_url

    out = io.BytesIO()
    Image.new("RGB", (64, 64), (230, 80, 60)).save(out, format="PNG")
    return vision_data_url(out.getvalue(), "image/png")


async def _check_vision(llm: LLMGateway) -> Finding:
    vision = llm.for_role("vision")
    if vision is None and not llm.supports_vision():
        return Finding(
            "vision", "离线像素分析", "本机", None, "未配置识图模型，文字模型也不能看图：参考图用像素分析"
        )
    gateway = vision or llm
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "这张图主要是什么颜色？只回答颜色。"},
                {"type": "image_url", "image_url": {"url": _tiny_png()}},
            ],
        }
    ]
    note = "" if vision else "（未单独配置，使用文字模型看图）"
    return await _ping("vision", gateway, messages, "STUDIO_VISION_MODEL", note)


async def _check_web_search(llm: LLMGateway) -> Finding:
    from tools.research import web_search

    searcher = llm.for_role("web_search")
    if searcher is None:
        return Finding("web_search", "—", "—", None, "未配置（STUDIO_WEB_SEARCH_MODEL）：只用本地笔记库")
    started = time.perf_counter()
    result = await web_search("今天是几月几号？", searcher, search_context_size="low")
    ms = (time.perf_counter() - started) * 1000
    where = _where(searcher.endpoint)
    if result.status == "ok":
        return Finding(
            "web_search", searcher.model, where, True, f"可用（引用 {len(result.citations)} 条）", ms=ms
        )
    return Finding(
        "web_search", searcher.model, where, False, result.message or "失败", searcher.endpoint.key_setting
    )


def _provider_key_in_env(endpoint: Endpoint) -> bool:
    """Whether litellm will find the provider's own key variable (OPENAI_API_KEY …) or needs none."""
    from tools.providers import KEYLESS_PROVIDERS, PROVIDER_KEY_VARIABLE

    variable = PROVIDER_KEY_VARIABLE.get(endpoint.provider)
    return endpoint.provider in KEYLESS_PROVIDERS or bool(variable and os.environ.get(variable))


async def _check_image(settings: Settings, generate: bool) -> Finding:
    from app.resources import image_providers, role_endpoint
    from tools.errors import StudioError
    from tools.images import OFFLINE_NAMES, ImageRequest

    model = settings.image_provider
    offline = model.strip().lower() in OFFLINE_NAMES
    endpoint = None if offline else role_endpoint(settings, "image")
    where = _where(endpoint)
    if not offline and not generate:
        assert endpoint is not None
        if not endpoint.api_key and not _provider_key_in_env(endpoint):
            return Finding("image", model, where, False, "缺少 API Key", endpoint.key_setting)
        return Finding("image", model, where, None, "已配置；加 --images 实际生成一张来检查（会产生费用）")
    request = ImageRequest(
        prompt="a calm mountain lake at dawn",
        role="cover",
        palette=["#3A6EA5"],
        headline="体检",
        width=512,
        height=512,
    )
    started = time.perf_counter()
    try:
        image = await image_providers(settings)(None).generate(request)
    except StudioError as exc:
        return _failure("image", model, where, exc, _fix_for(exc, endpoint, "STUDIO_IMAGE_PROVIDER"))
    ms = (time.perf_counter() - started) * 1000
    return Finding("image", model, where, True, f"可用（{image.width}×{image.height} {image.mime}）", ms=ms)


async def diagnose(settings: Settings, *, images: bool = False) -> list[Finding]:
    """Check every role; never raises for a provider problem — that is what the report is for."""
    from app.resources import llm_config
    from tools.llm import LLMGateway

    llm = LLMGateway(llm_config(settings))
    return list(
        await asyncio.gather(
            _check_text(llm), _check_vision(llm), _check_image(settings, images), _check_web_search(llm)
        )
    )


def _report(findings: list[Finding]) -> None:
    """One block per role: mark, role, model and where; then what happened and what to fix."""
    marks = {True: "[green]✓[/green]", False: "[red]✗[/red]", None: "[dim]·[/dim]"}
    console.print("[bold]模型体检[/bold]")
    for f in findings:
        took = f" · {f.ms / 1000:.1f} 秒" if f.ms is not None else ""
        console.print(
            f"{marks[f.ok]} {ROLE_NAMES[f.role]}  {escape(f.model)}  [dim]{escape(f.where)}[/dim]{took}"
        )
        console.print(f"    {escape(f.detail)}")
        if f.fix:
            console.print(f"    [yellow]要检查：{escape(f.fix)}[/yellow]")


def doctor(
    images: Annotated[
        bool, typer.Option("--images", help="也实际生成一张图片（付费图片模型会产生费用）")
    ] = False,
) -> None:
    """检查已配置的每个模型角色（文字、识图、配图、联网搜索）能否调用，并指出要修改的设置。"""
    settings = get_settings()
    findings = asyncio.run(diagnose(settings, images=images))
    _report(findings)
    failed = [f for f in findings if f.ok is False]
    if failed:
        console.print(f"[red]{len(failed)} 个角色不可用[/red]，请按“要检查的设置”修改 .env 后重试。")
        raise typer.Exit(1)
    console.print("[green]已配置的模型都可以使用。[/green]")
