"""Image requests and providers (`tools.images`): validation, provider selection and sizes, the offline
provider's latency and seeded failures, and `LiteLLMImageProvider` against a real local server."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from typing import Any

import pytest
from PIL import Image
from pydantic import ValidationError

from tools.errors import ImageGenerationError
from tools.images import (
    ImageProvider,
    ImageRequest,
    LiteLLMImageProvider,
    OfflineImageProvider,
    closest_size,
    make_image_provider,
)

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
    assert closest_size("gpt-image-1", 1080, 1440) == "1024x1536"
    assert closest_size("openai/gpt-image-1", 1440, 1080) == "1536x1024"
    assert closest_size("anything", 1080, 1080) == "1024x1024"


async def test_offline_provider_generates_png() -> None:
    image = await OfflineImageProvider().generate(request("result"))
    assert (image.mime, image.width, image.height, image.provider) == ("image/png", 1080, 1440, "offline")
    assert decode(image.data).size == (1080, 1440)


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


# --- the litellm provider against a real local OpenAI-compatible server -----------------------------------
class _ImagesAPI(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        payload: dict[str, Any]
        if self.headers.get("Authorization") != "Bearer good-key":
            status, payload = 401, {"error": {"message": "bad key", "type": "invalid_request_error"}}
        else:
            out = BytesIO()
            Image.new("RGB", (1024, 1536), (30, 120, 200)).save(out, format="PNG")
            status = 200
            payload = {
                "created": 1,
                "data": [
                    {"b64_json": base64.b64encode(out.getvalue()).decode(), "revised_prompt": body["prompt"]}
                ],
            }
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def images_api() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _ImagesAPI)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.slow
async def test_litellm_provider_decodes_and_fits(images_api: str) -> None:
    provider = make_image_provider("openai/gpt-image-1", api_key="good-key", api_base=images_api, timeout=30)
    image = await provider.generate(request("cover", prompt="a tent at dusk"))
    assert (image.width, image.height, image.mime) == (1080, 1440, "image/png")  # fitted to the request
    assert decode(image.data).size == (1080, 1440)
    assert image.revised_prompt == "a tent at dusk"


@pytest.mark.slow
async def test_litellm_provider_errors_are_converted(images_api: str) -> None:
    provider = make_image_provider("openai/gpt-image-1", api_key="bad-key", api_base=images_api, timeout=30)
    with pytest.raises(ImageGenerationError) as caught:
        await provider.generate(request("cover"))
    assert caught.value.code == "IMAGE_PROVIDER_AUTH" and not caught.value.retryable
