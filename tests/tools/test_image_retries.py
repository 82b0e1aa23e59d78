"""The one retry layer of image calls, end to end: the image agent (`agents.image`, where image calls are
retried) with `LiteLLMImageProvider` against the local OpenAI Images API (tests/tools/images_api.py), counting
the HTTP requests that really arrive. The provider never retries and the OpenAI SDK's retries are off, so a
persistent failure costs exactly `ATTEMPTS` requests per image; Retry-After is honoured; errors no retry fixes
are tried once; each retry is a `progress` event."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import ImagePlan, TextOverlay
from agents.context import RunOptions, StudioContext
from agents.image import ATTEMPTS, build_request, generate_image, image_agent
from agents.state import StudioState
from app import migrate
from tests.agents.harness import NodeRun, run_node
from tests.tools.images_api import KEY, ImagesAPI
from tools.assets import AssetStore
from tools.database import create_engine, session_factory
from tools.images import GeneratedImage, make_image_provider
from tools.knowledge import KnowledgeStore
from tools.llm import LLMConfig, LLMGateway
from tools.renderer import CardRenderer

pytestmark = pytest.mark.slow

PLANS = [
    {
        "index": 1,
        "role": "cover",
        "subject": "帐篷",
        "basePrompt": "湖边草地上的橙色帐篷，傍晚的天空，竖版构图，上方留白",
        "palette": ["#F6EFE3", "#2F6B4F", "#E9A23B"],
        "layout": "classic",
    },
    {
        "index": 2,
        "role": "detail",
        "subject": "露营装备",
        "basePrompt": "折叠桌椅和天幕，草地，柔和自然光，竖版构图",
        "palette": ["#F6EFE3", "#2F6B4F", "#E9A23B"],
        "layout": "steps",
    },
]
OVERLAYS = [
    {
        "imageIndex": 1,
        "headline": "周末城市露营｜上班族的快乐充电站",
        "lines": ["帐篷选速开款"],
        "caption": "#城市露营",
    },
    {"imageIndex": 2, "headline": "装备清单", "lines": ["帐篷：选速开款", "天幕+折叠桌椅"], "caption": None},
]
STATE: StudioState = {"imagePlans": PLANS, "textOverlayPlan": OVERLAYS}  # type: ignore[typeddict-item]


@pytest.fixture(scope="module")
def renderer() -> CardRenderer:
    return CardRenderer()


@pytest.fixture
async def ctx(tmp_path: Path, api: ImagesAPI, renderer: CardRenderer) -> AsyncIterator[StudioContext]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}"
    await migrate.upgrade_async(url)
    engine = create_engine(url)
    store = await KnowledgeStore.open(tmp_path / "knowledge")
    sessions = session_factory(engine)
    try:
        yield StudioContext(
            llm=LLMGateway(LLMConfig()),
            knowledge=store,
            images=make_image_provider("dall-e-3", api_key=KEY, api_base=api.base, renderer=renderer),
            assets=AssetStore(tmp_path / "assets", sessions),
            sessions=sessions,
            options=RunOptions(),
        )
    finally:
        await store.close()
        await engine.dispose()


def retries(run: NodeRun) -> list[str]:
    return [e["content"] for e in run.of_type("progress") if "重试" in e["content"]]


def by_prompt(api: ImagesAPI) -> dict[str, list[float]]:
    arrivals: dict[str, list[float]] = {}
    for call in api.requests:
        arrivals.setdefault(call.body["prompt"], []).append(call.at)
    return arrivals


async def test_a_persistent_500_costs_exactly_the_attempts_of_the_one_retry_layer(
    api: ImagesAPI, ctx: StudioContext
) -> None:
    api.fail(500, times=None)
    run = await run_node(image_agent, STATE, ctx)
    assert ATTEMPTS == 2
    assert len(api.requests) == 2 * ATTEMPTS  # 2 images; was 24 with the SDK's and the agent's retries
    assert all(len(times) == ATTEMPTS for times in by_prompt(api).values())
    said = retries(run)
    assert len(said) == 2 and all("图片服务暂时不可用" in s and "后重试（第 2 次）" in s for s in said)
    assert run.update["generatedImageAssetIds"] == [None, None]
    failed = [e for e in run.of_type("image_progress") if e["status"] == "failed"]
    assert [e["errorMessage"] for e in failed] == ["图片模型服务暂不可用"] * 2
    assert run.update["lastError"]["retryable"] is True  # a transient failure: a later rerun may succeed


async def test_retry_after_is_honoured_and_the_retry_is_told(api: ImagesAPI, ctx: StudioContext) -> None:
    api.fail(429, retry_after=1)
    run = await run_node(image_agent, STATE, ctx)
    assert run.update["imagesComplete"] is True and None not in run.update["generatedImageAssetIds"]
    [twice] = [times for times in by_prompt(api).values() if len(times) == 2]
    assert 1.0 <= twice[1] - twice[0] < 1.8  # the wait the server asked for, not the default backoff
    [said] = retries(run)
    assert said.endswith("图片服务繁忙，1 秒后重试（第 2 次）")
    assert len(api.requests) == 3


@pytest.mark.parametrize(
    ("key", "fault", "code", "message"),
    [
        ("bad-key", None, "IMAGE_PROVIDER_AUTH", "图片模型认证失败：请检查 STUDIO_IMAGE_API_KEY"),
        (
            KEY,
            "content_policy_violation",
            "IMAGE_PROMPT_REJECTED",
            "图片模型的内容安全策略拒绝了这个提示词，请修改图片描述",
        ),
    ],
)
async def test_errors_no_retry_fixes_are_tried_once_and_say_what_to_fix(
    api: ImagesAPI,
    ctx: StudioContext,
    renderer: CardRenderer,
    key: str,
    fault: str | None,
    code: str,
    message: str,
) -> None:
    if fault:
        api.fail(400, times=None, code=fault)
    images = make_image_provider("dall-e-3", api_key=key, api_base=api.base, renderer=renderer)
    failing = dataclasses.replace(ctx, images=images)
    run = await run_node(image_agent, STATE, failing)
    assert len(api.requests) == 2  # one per image, never retried
    assert not retries(run)
    failed = [e for e in run.of_type("image_progress") if e["status"] == "failed"]
    assert [e["errorMessage"] for e in failed] == [message, message]
    error = run.update["lastError"]
    assert (error["code"], error["retryable"]) == (code, False)  # a rerun would fail the same way
    assert message in error["message"]


async def test_a_retried_image_records_its_attempts(api: ImagesAPI, ctx: StudioContext) -> None:
    api.fail(503)
    got: list[GeneratedImage] = []
    plan = ImagePlan.model_validate(PLANS[0])
    request = build_request(plan, TextOverlay.model_validate(OVERLAYS[0]), None, 2)

    async def one_image(state: StudioState, runtime: Any) -> dict[str, Any]:
        got.append(await generate_image(request, runtime.context, asyncio.Semaphore(1)))
        return {}

    run = await run_node(one_image, {}, ctx)  # type: ignore[arg-type]
    [image] = got
    assert image.attempts == 2 and (image.width, image.height) == (1080, 1440)
    assert [call.status for call in api.requests] == [503, 200]
    [said] = retries(run)
    assert said.startswith("第1张图：图片服务暂时不可用，") and said.endswith("秒后重试（第 2 次）")
