"""Image providers behind one interface: `ImageProvider.generate(ImageRequest) -> GeneratedImage`.

- `OfflineImageProvider` ("offline"): the embedded card renderer (`tools.renderer`), with scriptable latency
  (each call's total duration: the card renders inside it) and a deterministic failure rate for tests and
  benchmarks (a failed attempt can succeed when retried).
- `LiteLLMImageProvider` (any other name): `litellm.aimage_generation` with that model, asked for its nearest
  supported size of the card's orientation (dall-e-3 1024x1792, the gpt-image models 1024x1536), for base64
  where the API lets one ask (dall-e-2/3; the gpt-image models always answer base64 and reject
  `response_format`), and for a picture without any text. The answer's base64 or URL goes through
  `tools.image_input` (the guards reference images get); then the card renderer draws the planned overlay —
  headline, subtitle, body lines, tags, badge, page number, in the plan's layout and palette — on the picture
  at the requested size, exactly as it draws an offline card. The model's picture as it came, before the
  overlay, is kept on the result (`GeneratedImage.picture`): the asset store keeps it, so new parameters can
  be drawn on it again later (`OfflineImageProvider.renderer`, no model call). `edit` repaints where a mask
  says (`litellm.aimage_edit`, OpenAI's mask convention); its caller keeps only the masked pixels
  (`tools.image_edit`).

Providers never retry: the image agent's per-image attempts are the one retry layer (the OpenAI SDK's own
retries inside litellm are turned off with `max_retries=0`; litellm's `num_retries` does nothing for images).
Failures are `ImageGenerationError`s with a stable `code`, `retryable`, a Chinese message that names the
setting to fix where one is at fault, and `details` holding the provider's own words and, when it sent one,
its `Retry-After` (`retry_after_s` reads it back).

`make_image_provider(name, ...)` picks one.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
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
from tools.llm import retry_after_s as provider_retry_after
from tools.renderer import CardRenderer

OFFLINE_NAMES = frozenset({"offline", "studio/offline"})
DEFAULT_DOWNLOAD_BYTES = 25 * 1024 * 1024
# The settings a creator fixes when the image model fails (app/settings.py reads them; named in messages).
KEY_SETTING, BASE_SETTING = "STUDIO_IMAGE_API_KEY", "STUDIO_IMAGE_API_BASE"
MODEL_SETTING = "STUDIO_IMAGE_PROVIDER"
_HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")
# Sizes the OpenAI Images API accepts per model (API reference, "Create image": `size`); other providers get
# the closest of the default set.
_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "dall-e-3": ((1024, 1024), (1024, 1792), (1792, 1024)),
    "dall-e-2": ((1024, 1024), (512, 512), (256, 256)),
    "gpt-image": ((1024, 1024), (1024, 1536), (1536, 1024)),
}
_DEFAULT_SIZES = ((1024, 1024), (1024, 1536), (1536, 1024))
# Prompt length limits (characters) of the same reference; 4000 for models it does not list.
_PROMPT_LIMITS = {"dall-e-2": 1000, "dall-e-3": 4000, "gpt-image": 32000}
# Said at the end of every prompt: the studio sets the card's text itself, so the picture must have none.
NO_TEXT = (
    "The picture must contain no text at all: no words, no letters, no numbers, no captions, no signs, "
    "no logos, no watermark. 画面中不要出现任何文字、字母、数字、标志或水印。"
)
# A provider's error codes for a prompt its safety system refused (OpenAI: dall-e `content_policy_violation`,
# gpt-image `moderation_blocked`; Azure: `content_filter`).
_REFUSALS = frozenset({"content_policy_violation", "moderation_blocked", "content_filter"})
_MISSING_KEY = re.compile(r"missing credentials|api_key client option must be set|api key is required", re.I)
log = logging.getLogger(__name__)


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
    text_scale: float = Field(
        1.0,
        ge=0.7,
        le=1.4,
        description="Offline cards: scales headline, subtitle and body sizes (each still fitted to its box).",
    )
    badge: bool = Field(True, description="Offline cards: draw the cover's hashtag badge.")

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
    attempts: int = 1  # provider calls it took, set by whoever retried (the image agent)
    # an image model's picture as it came, before the card overlay was drawn on it (None: no overlay drawn)
    picture: bytes | None = field(default=None, repr=False)


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

    @property
    def renderer(self) -> CardRenderer:
        """The card renderer this provider draws with: also what draws a card's overlay again on an image
        model's stored picture (`renderer.render(request, picture)`), without calling any model."""
        return self._renderer

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
    """Any litellm image model (`dall-e-3`, `gpt-image-1`, …). With `overlay` (default) the picture becomes
    the card: the renderer (`renderer`, worker processes in the server) draws the request's planned text on it
    at the requested size, and the result keeps the model's picture as it came (`picture`). Without, it is
    cropped/scaled to that size when `fit`, or returned as it came."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        api_base: str | None = None,
        timeout_s: float = 120.0,
        size: str | None = None,
        overlay: bool = True,
        fit: bool = True,
        renderer: CardRenderer | None = None,
        key_setting: str = KEY_SETTING,
        max_download_bytes: int = DEFAULT_DOWNLOAD_BYTES,
        allow_private_downloads: bool = False,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.name = model
        self.key_setting = key_setting  # the setting that supplies the key, named when it is missing or wrong
        self._api_key = api_key
        self._api_base = api_base
        self._timeout_s = timeout_s
        self._size = size
        self._overlay = overlay
        self._fit = fit
        self._renderer = renderer
        self._max_bytes = max_download_bytes
        self._allow_private = allow_private_downloads
        self._http = http

    def call_arguments(self, request: ImageRequest) -> dict[str, Any]:
        """What `litellm.aimage_generation` is called with for `request` (the API key left out)."""
        model = litellm_model(self.name)
        kwargs: dict[str, Any] = {
            "model": model,
            "prompt": text_free_prompt(request.prompt, self.name),
            "size": self._size or closest_size(self.name, request.width, request.height),
            "n": 1,
            "timeout": self._timeout_s,
            "max_retries": 0,  # the OpenAI SDK's own retries: off, the image agent retries (once, visibly)
        }
        if _asks_for_base64(model):
            # litellm 1.110 checks every OpenAI image model against the gpt-image parameters, which lack
            # `response_format`; the SDK puts `extra_body` into the JSON body as it is.
            kwargs["extra_body"] = {"response_format": "b64_json"}
        if self._api_base:
            kwargs["api_base"] = self._api_base
        return kwargs

    async def _call(self, method: str, kwargs: dict[str, Any]) -> Any:
        """litellm's `method` with `kwargs` and this provider's key, bounded in time; its errors converted."""
        litellm = _litellm()
        if self._api_key:
            kwargs["api_key"] = self._api_key
        try:
            async with asyncio.timeout(self._timeout_s + 5.0):
                return await getattr(litellm, method)(**kwargs)
        except Exception as exc:
            raise _convert(exc, litellm, self.key_setting) from exc

    async def generate(self, request: ImageRequest) -> GeneratedImage:
        response = await self._call("aimage_generation", self.call_arguments(request))
        picture = await self._picture(response)
        data, mime, width, height = picture.data, picture.mime, picture.width, picture.height
        bare: bytes | None = None
        if self._overlay:
            if self._renderer is None:
                self._renderer = CardRenderer()
            bare = data
            data = await self._renderer.render(request, data)
            mime, width, height = "image/png", request.width, request.height
        elif self._fit and (width, height) != (request.width, request.height):
            data = await asyncio.to_thread(_fit_png, data, request.width, request.height)
            mime, width, height = "image/png", request.width, request.height
        return GeneratedImage(
            data=data,
            mime=mime,
            width=width,
            height=height,
            provider=self.name,
            revised_prompt=picture.revised_prompt,
            picture=bare,
        )

    def edit_arguments(
        self, image: bytes, mask_png: bytes, prompt: str, *, size: str | None = None
    ) -> dict[str, Any]:
        """What `litellm.aimage_edit` is called with (the API key left out): the picture and the mask (PNG
        bytes, sent as multipart files), the prompt cut to the model's limit, the size (`size`, else the
        provider's, else the model's closest to the picture's)."""
        with Image.open(BytesIO(image)) as opened:
            width, height = opened.size
        model = litellm_model(self.name)
        family = _family(self.name)
        limit = _PROMPT_LIMITS[family] if family else 4000
        kwargs: dict[str, Any] = {
            "model": model,
            "image": image,
            "mask": mask_png,
            "prompt": prompt.strip()[:limit],
            "size": size or self._size or closest_size(self.name, width, height),
            "n": 1,
            "timeout": self._timeout_s,
        }
        if _asks_for_base64(model):  # dall-e-2 edits take `response_format`; gpt-image answers base64
            kwargs["response_format"] = "b64_json"
        if self._api_base:
            kwargs["api_base"] = self._api_base
        return kwargs

    async def edit(
        self, image: bytes, mask_png: bytes, prompt: str, *, size: str | None = None
    ) -> GeneratedImage:
        """The model's edit of `image` (PNG bytes) where `mask_png` is transparent (OpenAI's convention:
        `tools.image_edit.provider_mask`), as `prompt` asks. The answer is the model's whole picture as it
        came (through the `tools.image_input` guards), at the model's size: models repaint all of it, so the
        caller keeps only the masked pixels (`tools.image_edit.paste_through`, or `edit_with_model`). No
        overlay is drawn. Errors and retryability as `generate` (`ImageGenerationError`; no retries here)."""
        response = await self._call("aimage_edit", self.edit_arguments(image, mask_png, prompt, size=size))
        return await self._picture(response)

    async def _picture(self, response: Any) -> GeneratedImage:
        """The first picture of an Images API answer, through the `tools.image_input` guards, as it came."""
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
        return GeneratedImage(
            data=image.data,
            mime=image.mime,
            width=image.width,
            height=image.height,
            provider=self.name,
            revised_prompt=getattr(first, "revised_prompt", None),
        )


def _litellm() -> Any:
    """litellm, imported on first use (it takes seconds), told not to fetch its cost map (it would stall)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _family(model: str) -> str | None:
    """The OpenAI image model family a name belongs to (`dall-e-3`, `dall-e-2`, `gpt-image`), if any."""
    return next((key for key in _SIZES if key in model.lower()), None)


def litellm_model(model: str) -> str:
    """The name litellm routes: a bare `dall-e-2`/`dall-e-3` gets its `openai/` prefix (litellm 1.110 knows
    the gpt-image models by name, but no longer the dall-e ones)."""
    return f"openai/{model}" if "/" not in model and model.lower().startswith("dall-e") else model


def _asks_for_base64(model: str) -> bool:
    """Can the request ask for base64? Only dall-e-2/3 on OpenAI take `response_format` (gpt-image models
    always answer base64 and refuse it; other providers have their own parameters)."""
    provider, _, name = model.rpartition("/")
    return provider in ("", "openai") and _family(name) in ("dall-e-2", "dall-e-3")


def text_free_prompt(prompt: str, model: str = "") -> str:
    """The plan's prompt with `NO_TEXT` after it, the prompt cut to leave room under the model's limit."""
    family = _family(model)
    limit = _PROMPT_LIMITS[family] if family else 4000
    room = limit - len(NO_TEXT) - 2
    return f"{prompt.strip()[:room].rstrip()}\n\n{NO_TEXT}"


def closest_size(model: str, width: int, height: int) -> str:
    """The supported `WxH` of the request's orientation (portrait, landscape or square; any when the model has
    none of it) whose aspect ratio is closest to the requested one; the larger one of a tie."""
    family = _family(model)
    sizes = _SIZES[family] if family else _DEFAULT_SIZES

    def orientation(w: int, h: int) -> int:
        return (w > h) - (w < h)

    same = [size for size in sizes if orientation(*size) == orientation(width, height)] or list(sizes)
    target = math.log(width / height)
    best = min(same, key=lambda size: (abs(math.log(size[0] / size[1]) - target), -size[0] * size[1]))
    return f"{best[0]}x{best[1]}"


def _fit_png(data: bytes, width: int, height: int) -> bytes:
    with Image.open(BytesIO(data)) as image:
        fitted = ImageOps.fit(image.convert("RGB"), (width, height), Image.Resampling.LANCZOS)
    out = BytesIO()
    fitted.save(out, format="PNG")
    return out.getvalue()


def retry_after_s(exc: BaseException) -> float | None:
    """The wait, in seconds, an image provider asked for before a retry (`Retry-After`), if it named one."""
    details = getattr(exc, "details", None)
    value = details.get("retryAfterS") if isinstance(details, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _provider_code(exc: BaseException) -> str:
    """The provider's own error code (OpenAI's `error.code`, e.g. `content_policy_violation`), if any."""
    body = getattr(exc, "body", None)
    code = body.get("code") if isinstance(body, dict) else None
    return str(code or getattr(exc, "code", None) or "").lower()


def _convert(exc: BaseException, litellm: Any, key_setting: str = KEY_SETTING) -> ImageGenerationError:
    """Map a litellm/openai/asyncio exception onto `ImageGenerationError`: a code, retryability, a Chinese
    message naming the setting to fix (`key_setting` for the key); the provider's own words only in `details`
    (and the log)."""
    if isinstance(exc, ImageGenerationError):
        return exc
    raw = (str(exc) or type(exc).__name__)[:500]
    # litellm's image path may report e.g. a 401 as BadRequestError, so the HTTP status decides first.
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else 0
    provider_code = _provider_code(exc)
    code, text, retryable = "IMAGE_GENERATION_FAILED", "图片生成失败", True
    if _MISSING_KEY.search(raw):
        code, text, retryable = "IMAGE_PROVIDER_AUTH", f"图片模型缺少 API Key：请设置 {key_setting}", False
    elif isinstance(exc, TimeoutError | litellm.Timeout) or status == 408:
        code, text = "IMAGE_GENERATION_TIMEOUT", "图片生成超时"
    elif status in (401, 403) or isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        code, text, retryable = "IMAGE_PROVIDER_AUTH", f"图片模型认证失败：请检查 {key_setting}", False
    elif status == 404 or isinstance(exc, litellm.NotFoundError):
        code, text = "IMAGE_PROVIDER_AUTH", f"图片模型不存在或无权使用：请检查 {MODEL_SETTING}"
        retryable = False
    elif provider_code in _REFUSALS or isinstance(exc, litellm.ContentPolicyViolationError):
        code, text = "IMAGE_PROMPT_REJECTED", "图片模型的内容安全策略拒绝了这个提示词，请修改图片描述"
        retryable = False
    elif status == 429 or isinstance(exc, litellm.RateLimitError):
        code, text = "IMAGE_PROVIDER_UNAVAILABLE", "图片服务繁忙（请求过于频繁）"
    elif isinstance(exc, litellm.APIConnectionError) and status in (0, 500) and "connect" in raw.lower():
        code, text = "IMAGE_PROVIDER_UNAVAILABLE", f"连不上图片模型服务：请检查 {BASE_SETTING} 和网络"
    elif status >= 500 or isinstance(
        exc,
        litellm.ServiceUnavailableError
        | litellm.InternalServerError
        | litellm.APIConnectionError
        | litellm.BadGatewayError,
    ):
        code, text = "IMAGE_PROVIDER_UNAVAILABLE", "图片模型服务暂不可用"
    elif status in (400, 422) or isinstance(exc, litellm.BadRequestError | litellm.UnsupportedParamsError):
        code, text, retryable = "IMAGE_BAD_REQUEST", "图片模型不接受这个请求", False
    details: dict[str, Any] = {"type": type(exc).__name__, "status": status or None, "providerMessage": raw}
    if provider_code:
        details["providerCode"] = provider_code
    wait = provider_retry_after(exc)  # the gateway's reading of Retry-After, one for models and images
    if wait is not None:
        details["retryAfterS"] = round(wait, 3)
    log.warning("image provider error %s (%s, status %s): %s", code, type(exc).__name__, status, raw)
    error = ImageGenerationError(text, code=code, details=details)
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
    key_setting: str | None = None,
) -> ImageProvider:
    """`offline` (or `studio/offline`) → the card renderer (`renderer`, or a new in-process one); any other
    name → that litellm image model, at `api_base` with `api_key` (the image role's settings), whose pictures
    the same `renderer` turns into cards. `key_setting` names the setting that supplies the key in error
    messages (default STUDIO_IMAGE_API_KEY)."""
    model = name.strip()
    if not model:
        raise ValueError("image provider name is empty")
    if model.lower() in OFFLINE_NAMES:
        return OfflineImageProvider(
            latency_ms=offline_latency_ms, failure_rate=offline_failure_rate, renderer=renderer
        )
    return LiteLLMImageProvider(
        model,
        api_key=api_key,
        api_base=api_base,
        timeout_s=timeout,
        renderer=renderer,
        key_setting=key_setting or KEY_SETTING,
    )
