"""Image providers behind one interface: `ImageProvider.generate(ImageRequest) -> GeneratedImage`.

- `OfflineImageProvider` ("offline"): the embedded card renderer (`tools.renderer`), with scriptable latency
  (each call's total duration: the card renders inside it) and a deterministic failure rate for tests and
  benchmarks (a failed attempt can succeed when retried).
- `LiteLLMImageProvider` (any other name): `litellm.aimage_generation` with that model; the answer's base64
  or URL goes through `tools.image_input`, so size, type and address rules apply to what the model returns.

`make_image_provider(name, ...)` picks one. Provider failures are `ImageGenerationError`s with a stable `code`
and `retryable` set (timeouts and unavailability are retryable; auth, bad requests and refusals are not).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import random
import re
import time
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any, Literal, Protocol, runtime_checkable

import httpx
from PIL import Image, ImageOps
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools.errors import ImageGenerationError, ImageInputError
from tools.image_input import normalize_image_input
from tools.renderer import CardRenderer

OFFLINE_NAMES = frozenset({"offline", "studio/offline"})
DEFAULT_DOWNLOAD_BYTES = 25 * 1024 * 1024
_HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")
# Sizes the OpenAI-style image endpoints accept; other providers get the closest of the default set.
_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "dall-e-3": ((1024, 1024), (1024, 1792), (1792, 1024)),
    "dall-e-2": ((1024, 1024), (512, 512)),
}
_DEFAULT_SIZES = ((1024, 1024), (1024, 1536), (1536, 1024))


class ImageRequest(BaseModel):
    """Everything a provider needs for one image. Real providers use `prompt`; the offline renderer uses the
    structured fields (text, palette, layout) to compose a card."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, max_length=8000, description="Full text-to-image prompt.")
    role: Literal["cover", "detail", "result"]
    width: int = Field(1080, ge=256, le=4096)
    height: int = Field(1440, ge=256, le=4096)
    palette: list[str] = Field(min_length=1, max_length=8, description="#RRGGBB colours, dominant first.")
    background: Literal["gradient", "solid", "split", "pattern"] = "gradient"
    headline: str | None = Field(None, description="Big text, e.g. the title on a cover.")
    body: list[str] = Field(default_factory=list, description="Lines/bullets of body text.")
    caption: str | None = Field(None, description="Small footer, e.g. '#露营 #周末'.")
    text_position: Literal["top", "center", "bottom"] = "center"
    text_density: Literal["low", "medium", "high"] = "medium"
    visual_focus: str | None = Field(None, description="Short subject label, e.g. '帐篷'.")
    style_name: str | None = None
    layout: str | None = Field(None, description="Card layout for the offline renderer (tools.art.LAYOUTS).")
    index: int = Field(1, ge=1, description="1-based position of the image in the post.")
    total: int = Field(1, ge=1)
    first_number: int = Field(1, ge=1, description="Number of the first body line (a list continued).")
    seed: int | None = None

    @field_validator("palette")
    @classmethod
    def _hex_colours(cls, palette: list[str]) -> list[str]:
        bad = [colour for colour in palette if not _HEX_COLOUR.match(colour)]
        if bad:
            raise ValueError(f"palette colours must be #RRGGBB, got {bad}")
        return [colour.upper() for colour in palette]

    @model_validator(mode="after")
    def _index_within_total(self) -> ImageRequest:
        if self.index > self.total:
            raise ValueError(f"index {self.index} is beyond total {self.total}")
        return self

    def stable_seed(self) -> int:
        """`seed`, or a stable hash of what the image is about (same request → same image)."""
        if self.seed is not None:
            return self.seed
        key = f"{self.prompt}|{self.role}|{self.index}|{self.headline}"
        return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


@dataclass(frozen=True, slots=True)
class GeneratedImage:
    data: bytes = field(repr=False)
    mime: str
    width: int
    height: int
    provider: str
    revised_prompt: str | None = None


@runtime_checkable
class ImageProvider(Protocol):
    name: str

    async def generate(self, request: ImageRequest) -> GeneratedImage: ...


# --- offline --------------------------------------------------------------------------------------------
class OfflineImageProvider:
    """The card renderer as a provider. `failure_rate` of attempts fail, decided by a hash of the request's
    seed and its attempt number, so runs are reproducible and a retry of a failed image may succeed."""

    name = "offline"

    def __init__(
        self, *, latency_ms: float = 0.0, failure_rate: float = 0.0, renderer: CardRenderer | None = None
    ) -> None:
        if latency_ms < 0 or not 0.0 <= failure_rate <= 1.0:
            raise ValueError("latency_ms must be >= 0 and failure_rate within 0..1")
        self._latency_s = latency_ms / 1000.0
        self._failure_rate = failure_rate
        self._renderer = renderer or CardRenderer()
        self._attempts: dict[str, int] = {}

    async def generate(self, request: ImageRequest) -> GeneratedImage:
        """Render the card; the call lasts at least `latency_ms` in all (the render happens inside it)."""
        started = time.perf_counter()
        key = f"{request.stable_seed()}:{request.role}:{request.index}"
        attempt = self._attempts.get(key, 0) + 1
        self._attempts[key] = attempt
        if self._failure_rate and random.Random(f"{key}:{attempt}").random() < self._failure_rate:
            await asyncio.sleep(self._latency_s)
            raise ImageGenerationError(
                f"离线图片渲染失败（模拟故障，第 {attempt} 次尝试）",
                details={"simulated": True, "attempt": attempt, "index": request.index},
            )
        data = await self._renderer.render(request)
        remaining = self._latency_s - (time.perf_counter() - started)
        if remaining > 0:
            await asyncio.sleep(remaining)
        return GeneratedImage(
            data=data, mime="image/png", width=request.width, height=request.height, provider=self.name
        )


# --- litellm --------------------------------------------------------------------------------------------
class LiteLLMImageProvider:
    """Any litellm image model (`dall-e-3`, `gpt-image-1`, …). The result is cropped/scaled to the requested
    size when `fit` (default), so every image of a post has the planned dimensions."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        api_base: str | None = None,
        timeout_s: float = 120.0,
        size: str | None = None,
        fit: bool = True,
        max_download_bytes: int = DEFAULT_DOWNLOAD_BYTES,
        allow_private_downloads: bool = False,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.name = model
        self._api_key = api_key
        self._api_base = api_base
        self._timeout_s = timeout_s
        self._size = size
        self._fit = fit
        self._max_bytes = max_download_bytes
        self._allow_private = allow_private_downloads
        self._http = http

    async def generate(self, request: ImageRequest) -> GeneratedImage:
        litellm = _litellm()
        kwargs: dict[str, Any] = {
            "model": self.name,
            "prompt": request.prompt,
            "size": self._size or closest_size(self.name, request.width, request.height),
            "n": 1,
            "timeout": self._timeout_s,
        }
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self._api_base:
            kwargs["api_base"] = self._api_base
        try:
            async with asyncio.timeout(self._timeout_s + 5.0):
                response = await litellm.aimage_generation(**kwargs)
        except Exception as exc:
            raise _convert(exc, litellm) from exc

        items = getattr(response, "data", None) or []
        first = items[0] if items else None
        b64 = getattr(first, "b64_json", None)
        url = getattr(first, "url", None)
        if not b64 and not url:
            raise ImageGenerationError("图片模型没有返回图片", code="IMAGE_EMPTY_RESPONSE")
        try:
            image = await normalize_image_input(
                {"data": b64} if b64 else {"url": url},
                max_bytes=self._max_bytes,
                allow_private=self._allow_private,
                http=self._http,
                allow_paths=False,
                timeout_s=self._timeout_s,
            )
        except ImageInputError as exc:
            raise ImageGenerationError(
                f"图片模型返回的图片不可用：{exc.message}", code="IMAGE_BAD_OUTPUT", details=exc.to_dict()
            ) from exc
        data, mime, width, height = image.data, image.mime, image.width, image.height
        if self._fit and (width, height) != (request.width, request.height):
            data = await asyncio.to_thread(_fit_png, data, request.width, request.height)
            mime, width, height = "image/png", request.width, request.height
        return GeneratedImage(
            data=data,
            mime=mime,
            width=width,
            height=height,
            provider=self.name,
            revised_prompt=getattr(first, "revised_prompt", None),
        )


def _litellm() -> Any:
    """litellm, imported on first use (it takes seconds), told not to fetch its cost map (it would stall)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def closest_size(model: str, width: int, height: int) -> str:
    """The supported `WxH` whose aspect ratio is closest to the requested one."""
    sizes = next((sizes for key, sizes in _SIZES.items() if key in model), _DEFAULT_SIZES)
    target = math.log(width / height)
    best = min(sizes, key=lambda size: abs(math.log(size[0] / size[1]) - target))
    return f"{best[0]}x{best[1]}"


def _fit_png(data: bytes, width: int, height: int) -> bytes:
    with Image.open(BytesIO(data)) as image:
        fitted = ImageOps.fit(image.convert("RGB"), (width, height), Image.Resampling.LANCZOS)
    out = BytesIO()
    fitted.save(out, format="PNG")
    return out.getvalue()


def _convert(exc: BaseException, litellm: Any) -> ImageGenerationError:
    """Map a litellm/openai/asyncio exception onto `ImageGenerationError` with a code and retryability."""
    if isinstance(exc, ImageGenerationError):
        return exc
    message = (str(exc) or type(exc).__name__)[:500]
    # litellm's image path reports e.g. a 401 as BadRequestError, so the HTTP status decides first.
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else 0
    code, text, retryable = "IMAGE_GENERATION_FAILED", "图片生成失败", True
    if isinstance(exc, TimeoutError | litellm.Timeout) or status == 408:
        code, text = "IMAGE_GENERATION_TIMEOUT", "图片生成超时"
    elif status in (401, 403, 404) or isinstance(
        exc, litellm.AuthenticationError | litellm.PermissionDeniedError | litellm.NotFoundError
    ):
        code, text, retryable = "IMAGE_PROVIDER_AUTH", "图片模型认证失败或模型不存在", False
    elif isinstance(exc, litellm.ContentPolicyViolationError):
        code, text, retryable = "IMAGE_PROMPT_REJECTED", "图片模型拒绝了这个提示词", False
    elif (
        status == 429
        or status >= 500
        or isinstance(
            exc,
            litellm.RateLimitError
            | litellm.ServiceUnavailableError
            | litellm.InternalServerError
            | litellm.APIConnectionError
            | litellm.BadGatewayError,
        )
    ):
        code, text = "IMAGE_PROVIDER_UNAVAILABLE", "图片模型服务暂不可用"
    elif status in (400, 422) or isinstance(exc, litellm.BadRequestError | litellm.UnsupportedParamsError):
        code, text, retryable = "IMAGE_BAD_REQUEST", "图片模型不接受这个请求", False
    details = {"type": type(exc).__name__, "status": status or None}
    error = ImageGenerationError(f"{text}：{message}", code=code, details=details)
    error.retryable = retryable
    return error


# --- factory --------------------------------------------------------------------------------------------
def make_image_provider(
    name: str,
    *,
    api_key: str | None = None,
    api_base: str | None = None,
    timeout: float = 120.0,
    offline_latency_ms: float = 0.0,
    offline_failure_rate: float = 0.0,
    renderer: CardRenderer | None = None,
) -> ImageProvider:
    """`offline` (or `studio/offline`) → the card renderer (`renderer`, or a new in-process one); any other
    name → that litellm image model."""
    model = name.strip()
    if not model:
        raise ValueError("image provider name is empty")
    if model.lower() in OFFLINE_NAMES:
        return OfflineImageProvider(
            latency_ms=offline_latency_ms, failure_rate=offline_failure_rate, renderer=renderer
        )
    return LiteLLMImageProvider(model, api_key=api_key, api_base=api_base, timeout_s=timeout)
