"""Image requests and providers (`tools.images`): validation, provider selection and sizes, the offline
provider's latency and seeded failures, and `LiteLLMImageProvider` against a real local server."""

from __future__ import annotations

import time
from io import BytesIO
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat
from pydantic import ValidationError

from tests.tools.images_api import KEY, ImagesAPI, photo_png
from tools.canvas import photo_layer
from tools.errors import ImageGenerationError
from tools.images import (
    NO_TEXT,
    ImageProvider,
    ImageRequest,
    LiteLLMImageProvider,
    OfflineImageProvider,
    closest_size,
    make_image_provider,
    retry_after_s,
    text_free_prompt,
)
from tools.renderer import CardRenderer

PALETTE = ["#F6EFE3", "#2F6B4F", "#E9A23B", "#1E2A24"]


def request(role: str = "cover", **overrides: Any) -> ImageRequest:
    fields: dict[str, Any] = {
        "prompt": "周末城市露营，小红书风格封面",
        "role": role,
        "palette": PALETTE,
        "headline": "周末城市露营｜上班族的快乐充电站 🏕️",
        "body": ["帐篷：选速开款，5分钟搭好", "天幕+折叠桌椅，遮阳又能吃饭", "✅ 防蚊喷雾、湿巾、垃圾袋"],
        "caption": "#城市露营 #周末去哪儿 #上班族",
        "visual_focus": "帐篷",
        "style_name": "露营指南",
        "index": 1,
        "total": 4,
    }
    fields.update(overrides)
    return ImageRequest(**fields)


def decode(data: bytes) -> Image.Image:
    image = Image.open(BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


# --- requests and providers --------------------------------------------------------------------------------
def test_image_request_validation() -> None:
    assert request(palette=["#aabbcc"]).palette == ["#AABBCC"]
    for bad in ([], ["red"], ["#12345"], ["#123456"] * 9):
        with pytest.raises(ValidationError):
            request(palette=bad)
    with pytest.raises(ValidationError):
        request(index=5, total=4)
    with pytest.raises(ValidationError):
        request(unknown_field=1)
    assert request().stable_seed() == request().stable_seed() != request(prompt="另一个").stable_seed()
    assert request(seed=42).stable_seed() == 42


def test_make_image_provider() -> None:
    offline = make_image_provider("offline")
    assert isinstance(offline, OfflineImageProvider) and isinstance(offline, ImageProvider)
    assert isinstance(make_image_provider("studio/offline"), OfflineImageProvider)
    real = make_image_provider("dall-e-3", api_key="k", timeout=30)
    assert isinstance(real, LiteLLMImageProvider) and real.name == "dall-e-3"
    with pytest.raises(ValueError):
        make_image_provider("  ")


def test_closest_size() -> None:
    assert closest_size("dall-e-3", 1080, 1440) == "1024x1792"
    assert closest_size("openai/dall-e-3", 1080, 1200) == "1024x1792"  # portrait even when square is closer
    assert closest_size("gpt-image-1", 1080, 1440) == "1024x1536"
    assert closest_size("openai/gpt-image-1", 1440, 1080) == "1536x1024"
    assert closest_size("dall-e-2", 1080, 1440) == "1024x1024"  # squares only: the largest
    assert closest_size("anything", 1080, 1080) == "1024x1024"
    assert closest_size("anything", 1080, 1440) == "1024x1536"


async def test_offline_provider_generates_png() -> None:
    renderer = CardRenderer()
    offline = OfflineImageProvider(renderer=renderer)
    image = await offline.generate(request("result"))
    assert (image.mime, image.width, image.height, image.provider) == ("image/png", 1080, 1440, "offline")
    assert decode(image.data).size == (1080, 1440)
    assert image.picture is None  # no model picture under an offline card
    assert offline.renderer is renderer  # what an edit draws a model's card again with


async def test_offline_latency() -> None:
    provider = make_image_provider("offline", offline_latency_ms=120)
    started = time.perf_counter()
    await provider.generate(request("cover"))
    assert time.perf_counter() - started >= 0.12


async def outcomes(provider: OfflineImageProvider, requests: list[ImageRequest]) -> list[bool]:
    results = []
    for req in requests:
        try:
            await provider.generate(req)
            results.append(True)
        except ImageGenerationError as exc:
            assert exc.retryable and exc.details["simulated"]
            results.append(False)
    return results


async def test_offline_failures_are_seeded_and_retries_can_succeed() -> None:
    requests = [request("detail", seed=seed, body=[], width=270, height=360) for seed in range(16)]
    first = await outcomes(OfflineImageProvider(failure_rate=0.5), requests)
    assert 0 < first.count(False) < len(first)  # some fail, some succeed
    assert await outcomes(OfflineImageProvider(failure_rate=0.5), requests) == first  # reproducible
    provider = OfflineImageProvider(failure_rate=0.5)
    failed = [req for req, ok in zip(requests, await outcomes(provider, requests), strict=True) if not ok]
    for req in failed:  # retrying a failed image eventually succeeds (the attempt number is in the seed)
        assert any([await outcomes(provider, [req]) for _ in range(10)])
    with pytest.raises(ImageGenerationError):
        await OfflineImageProvider(failure_rate=1.0).generate(request())


# --- the litellm provider against a local OpenAI Images API (tests/tools/images_api.py) ------------------
@pytest.fixture(scope="module")
def renderer() -> CardRenderer:
    return CardRenderer()


def provider(api: ImagesAPI, renderer: CardRenderer, model: str = "dall-e-3", key: str | None = KEY) -> Any:
    return make_image_provider(model, api_key=key, api_base=api.base, timeout=30, renderer=renderer)


MOTIF = ("motif", "scene")  # the emblem an offline card draws for its subject: a picture shows the subject


def said(drawn: list[tuple[str, str]]) -> dict[str, str]:
    """What a card says per slot (lines joined: a picture leaves the text the motif's room)."""
    slots: dict[str, str] = {}
    for slot, line in drawn:
        slots[slot] = slots.get(slot, "") + line
    return slots


def unchanged_rows(card: Image.Image, picture: Image.Image) -> int:
    """How many pixel rows of the card are exactly the picture's."""
    difference = ImageChops.difference(card, picture).convert("L")
    return sum(difference.crop((0, y, card.width, y + 1)).getbbox() is None for y in range(card.height))


def mean_difference(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> float:
    return float(ImageStat.Stat(ImageChops.difference(a.crop(box), b.crop(box)).convert("L")).mean[0])


@pytest.mark.slow
async def test_dall_e_3_draws_a_portrait_picture_without_text_and_the_studio_sets_the_card(
    api: ImagesAPI, renderer: CardRenderer
) -> None:
    req = request("cover", prompt="湖边露营的帐篷和天幕，傍晚，竖版构图，上方留白", layout="classic")
    image = await provider(api, renderer).generate(req)

    [call] = api.requests  # one request: the SDK's own retries are off
    assert call.body["model"] == "dall-e-3" and call.body["n"] == 1
    assert call.body["size"] == "1024x1792"  # the nearest portrait size dall-e-3 offers
    assert call.body["response_format"] == "b64_json"
    assert call.body["prompt"].startswith(req.prompt) and call.body["prompt"].endswith(NO_TEXT)
    assert "no text" in NO_TEXT and "不要出现任何文字" in NO_TEXT
    assert (image.width, image.height, image.mime, image.attempts) == (1080, 1440, "image/png", 1)
    assert image.revised_prompt == call.body["prompt"]
    assert image.picture == photo_png(1024, 1792)  # the model's picture as it came, before the overlay
    assert "picture=" not in repr(image) and image.data != image.picture

    card = decode(image.data).convert("RGB")
    assert card.size == (1080, 1440)
    picture = photo_layer(photo_png(1024, 1792), 1080, 1440)  # the model's picture, cover-fitted
    assert unchanged_rows(card, picture) > 0.05 * 1440  # the picture itself, away from the text's scrim
    drawn = renderer.draw(req, photo_png(1024, 1792))
    assert drawn.image.tobytes() == card.tobytes()  # the provider's card is the renderer's, same code path
    # the headline: text drawn on the picture, over a scrim that darkens the picture behind it
    x0, y0, x1, y1 = (round(v) for v in max(drawn.boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1])))
    assert mean_difference(card, picture, (x0, y0, x1, y1)) > 40
    band = (0, y0, card.width, y1)
    assert ImageStat.Stat(card.crop(band).convert("L")).median[0] < ImageStat.Stat(
        picture.crop(band).convert("L")
    ).median[0]
    # the same overlay as the offline card of this request: badge, page number, headline, subtitle, tags
    assert said(drawn.drawn) == {k: v for k, v in said(renderer.card_text(req)).items() if k not in MOTIF}
    assert {"badge", "page", "headline", "subtitle", "caption"} <= set(said(drawn.drawn))


@pytest.mark.slow
async def test_gpt_image_1_gets_its_portrait_size_and_no_response_format(
    api: ImagesAPI, renderer: CardRenderer
) -> None:
    image = await provider(api, renderer, "gpt-image-1").generate(request("detail", index=2, layout="steps"))
    [call] = api.requests
    assert call.body["size"] == "1024x1536" and "response_format" not in call.body  # it would be a 400
    assert call.body["prompt"].endswith(NO_TEXT)
    assert decode(image.data).size == (1080, 1440) and image.attempts == 1
    assert image.picture == photo_png(1024, 1536)
    bare = LiteLLMImageProvider("gpt-image-1", api_key=KEY, api_base=api.base, overlay=False, fit=False)
    as_it_came = await bare.generate(request("detail", index=2))
    assert as_it_came.data == photo_png(1024, 1536) and as_it_came.picture is None  # no overlay: no card


@pytest.mark.slow
async def test_a_url_answer_is_fetched_with_the_reference_image_guards(
    api: ImagesAPI, renderer: CardRenderer
) -> None:
    refused = provider(api, renderer, "openai/some-image-model")
    with pytest.raises(ImageGenerationError) as caught:
        await refused.generate(request("cover"))  # its URL is on loopback: a private address
    assert caught.value.code == "IMAGE_BAD_OUTPUT" and caught.value.details["code"] == "IMAGE_URL_REFUSED"
    allowed = LiteLLMImageProvider(
        "openai/some-image-model",
        api_key=KEY,
        api_base=api.base,
        renderer=renderer,
        allow_private_downloads=True,
    )
    image = await allowed.generate(request("cover"))
    assert decode(image.data).size == (1080, 1440)
    assert [call.body["size"] for call in api.requests] == ["1024x1536", "1024x1536"]
    assert "response_format" not in api.requests[0].body


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "code", "message", "retryable"),
    [
        ({"key": "bad-key"}, "IMAGE_PROVIDER_AUTH", "图片模型认证失败：请检查 STUDIO_IMAGE_API_KEY", False),
        ({"key": None}, "IMAGE_PROVIDER_AUTH", "图片模型缺少 API Key：请设置 STUDIO_IMAGE_API_KEY", False),
        (
            {"status": 400, "code": "content_policy_violation"},
            "IMAGE_PROMPT_REJECTED",
            "图片模型的内容安全策略拒绝了这个提示词，请修改图片描述",
            False,
        ),
        ({"status": 500}, "IMAGE_PROVIDER_UNAVAILABLE", "图片模型服务暂不可用", True),
        (
            {"status": 429, "retry_after": 1},
            "IMAGE_PROVIDER_UNAVAILABLE",
            "图片服务繁忙（请求过于频繁）",
            True,
        ),
    ],
)
async def test_provider_errors_say_what_to_fix_and_are_never_retried_here(
    api: ImagesAPI,
    renderer: CardRenderer,
    monkeypatch: pytest.MonkeyPatch,
    fault: dict[str, Any],
    code: str,
    message: str,
    retryable: bool,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # litellm would read it for a missing key
    if "status" in fault:
        api.fail(fault["status"], times=None, retry_after=fault.get("retry_after"), code=fault.get("code"))
    failing = provider(api, renderer, key=fault.get("key", KEY))
    with pytest.raises(ImageGenerationError) as caught:
        await failing.generate(request("cover"))
    error = caught.value
    assert (error.code, error.message, error.retryable) == (code, message, retryable)
    assert len(api.requests) == (0 if fault.get("key", KEY) is None else 1)  # no retries below the agent
    assert retry_after_s(error) == fault.get("retry_after")
    if "status" in fault:
        assert error.details["status"] == fault["status"] and error.details["providerMessage"]


def test_prompts_say_no_text_within_the_model_limit() -> None:
    long = "湖边露营，" * 400
    for model, limit in (("dall-e-2", 1000), ("dall-e-3", 4000), ("gpt-image-1", 32000), ("other", 4000)):
        prompt = text_free_prompt(long, model)
        assert prompt.endswith(NO_TEXT) and len(prompt) <= limit
    assert text_free_prompt("  帐篷  ") == f"帐篷\n\n{NO_TEXT}"
