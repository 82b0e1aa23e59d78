"""The LLM gateway against the real offline provider and a scripted fake provider (real litellm calls)."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel, Field

from agents.artifacts import Brief, Draft
from tests.fakes import ScriptedProvider
from tools import llm as llm_module
from tools.errors import LLMAuthError, LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError
from tools.llm import (
    LLMConfig,
    LLMGateway,
    RetryNotice,
    UsageMeter,
    extract_json,
    litellm_module,
    retry_after_s,
)
from tools.prompting import PromptTemplate

BRIEF_PROMPT = PromptTemplate.from_text(
    "brief", "<!-- system -->\n你是内容策划。\n<!-- user -->\n## 用户需求 (request)\n$request\n"
)


class Point(BaseModel):
    name: str
    score: float = Field(ge=0, le=1)


def scripted(**config: object) -> tuple[LLMGateway, ScriptedProvider]:
    provider = ScriptedProvider().install()
    defaults: dict[str, object] = {"model": "scripted/test", "backoff_initial_s": 0.01, "backoff_max_s": 0.02}
    return LLMGateway(LLMConfig(**{**defaults, **config})), provider  # type: ignore[arg-type]


async def test_offline_returns_validated_brief_and_records_usage() -> None:
    gateway = LLMGateway(LLMConfig())
    messages = BRIEF_PROMPT.render(request="帮我写一篇周末城市露营的小红书笔记，面向上班族")
    brief = await gateway.complete_structured("brief", messages, Brief)
    assert isinstance(brief, Brief)
    assert "露营" in brief.topic
    assert brief.audience == "上班族"
    assert brief.theme == "outdoor"
    [record] = gateway.meter.records
    assert record.ok and record.task == "brief" and record.attempts == 1
    assert record.prompt_tokens > 0 and record.completion_tokens > 0 and record.latency_ms > 0


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('```json\n{"name": "a", "score": 0.5}\n```', {"name": "a", "score": 0.5}),
        ('好的，结果如下：{"name": "a", "score": 0.5} 希望有帮助', {"name": "a", "score": 0.5}),
        ('{"name": "a", "score": 0.5,}', {"name": "a", "score": 0.5}),
        ("{'name': 'a', 'score': 0.5}", {"name": "a", "score": 0.5}),
        ('{"name": "a", "score": 0.5', {"name": "a", "score": 0.5}),
    ],
)
def test_extract_json_repairs_near_json(raw: str, expected: dict[str, object]) -> None:
    assert extract_json(raw) == expected


async def test_broken_json_is_repaired_without_a_reask() -> None:
    gateway, provider = scripted()
    provider.script('```json\n{"name": "露营", "score": 0.8,\n```')
    point = await gateway.complete_structured("t", [{"role": "user", "content": "hi"}], Point)
    assert point == Point(name="露营", score=0.8)
    assert len(provider.calls) == 1


async def test_invalid_output_is_reasked_with_the_validation_error() -> None:
    gateway, provider = scripted(max_reasks=1)
    provider.script('{"name": "露营", "score": 7}', '{"name": "露营", "score": 0.7}')
    point = await gateway.complete_structured("t", [{"role": "user", "content": "hi"}], Point)
    assert point.score == 0.7
    assert len(provider.calls) == 2
    reask = provider.calls[1][-1]["content"]
    assert "score" in reask and "校验" in reask
    # the non-offline path spells the schema out in the system prompt
    assert "JSON Schema" in provider.calls[0][0]["content"]


async def test_output_that_never_validates_raises_after_bounded_reasks() -> None:
    gateway, provider = scripted(max_reasks=2)
    provider.script('{"name": 1}', '{"name": 2}', '{"name": 3}', '{"name": "never used", "score": 0.1}')
    with pytest.raises(LLMOutputError) as info:
        await gateway.complete_structured("t", [{"role": "user", "content": "hi"}], Point)
    assert len(provider.calls) == 3
    assert info.value.details["task"] == "t"


async def test_transient_errors_are_retried_with_backoff() -> None:
    litellm = litellm_module()
    gateway, provider = scripted(max_retries=2)
    down = litellm.ServiceUnavailableError(message="busy", llm_provider="scripted", model="test")
    provider.script(down, '{"name": "ok", "score": 1}')
    assert (await gateway.complete_structured("t", [{"role": "user", "content": "x"}], Point)).name == "ok"
    assert gateway.meter.records[-1].attempts == 2


async def test_auth_errors_are_not_retried() -> None:
    litellm = litellm_module()
    gateway, provider = scripted(max_retries=3)
    provider.script(litellm.AuthenticationError(message="bad key", llm_provider="scripted", model="test"))
    with pytest.raises(LLMAuthError):
        await gateway.complete_structured("t", [{"role": "user", "content": "x"}], Point)
    assert len(provider.calls) == 1
    assert gateway.meter.records[-1].ok is False


async def test_slow_calls_time_out() -> None:
    gateway, provider = scripted(timeout_s=0.2, max_retries=0)
    provider.script(2.0, '{"name": "late", "score": 1}')
    with pytest.raises(LLMTimeoutError):
        await gateway.complete_structured("t", [{"role": "user", "content": "x"}], Point)


async def test_offline_failure_rate_surfaces_as_unavailable_after_retries() -> None:
    gateway = LLMGateway(LLMConfig(offline_failure_rate=1.0, max_retries=1, backoff_initial_s=0.01))
    try:
        with pytest.raises(LLMUnavailableError):
            await gateway.complete_structured("brief", BRIEF_PROMPT.render(request="写露营"), Brief)
        assert gateway.meter.records[-1].attempts == 2
    finally:
        LLMGateway(LLMConfig())  # restore the shared offline provider's defaults


async def test_stream_text_yields_deltas_and_records_usage() -> None:
    meter = UsageMeter()
    gateway = LLMGateway(LLMConfig()).with_meter(meter)
    messages = [
        {
            "role": "user",
            "content": "## 问题 (question)\n露营要带什么？\n\n## 参考笔记 (notes)\n"
            '[{"id": "n1", "title": "露营清单", "desc": "防潮垫一定要带，50元就有。帐篷选3秒速开款。"}]',
        }
    ]
    deltas = [d async for d in gateway.stream_text("answer", messages)]
    assert len(deltas) > 1
    text = "".join(deltas)
    assert "防潮垫" in text and "露营清单" in text
    assert meter.records[-1].completion_tokens > 0


async def test_offline_writer_output_is_deterministic() -> None:
    gateway = LLMGateway(LLMConfig())
    messages = BRIEF_PROMPT.render(request="写一篇秋冬通勤穿搭笔记")
    first = await gateway.complete_structured("writer", messages, Draft)
    second = await gateway.complete_structured("writer", messages, Draft)
    assert first == second


# --- call policy: room, retries, cost ----------------------------------------------------------------
async def test_every_call_sends_its_tasks_max_tokens_and_a_cut_answer_is_reasked_with_more_room() -> None:
    gateway, provider = scripted()
    cut = {"content": '{"name": "露营", "sco', "finish_reason": "length"}
    provider.script(cut, '{"name": "露营", "score": 0.5}')
    point = await gateway.complete_structured("brief", [{"role": "user", "content": "hi"}], Point)
    assert point.score == 0.5
    assert [p["max_tokens"] for p in provider.params] == [2048, 4096]


async def test_an_answer_cut_twice_is_never_accepted() -> None:
    gateway, provider = scripted()
    # even a cut answer that happens to parse is refused
    cut = {"content": '{"name": "露营", "score": 0.5}', "finish_reason": "length"}
    provider.script(cut, cut)
    with pytest.raises(LLMOutputError) as info:
        await gateway.complete_structured("writer", [{"role": "user", "content": "hi"}], Point)
    assert info.value.code == "LLM_OUTPUT_TRUNCATED" and "截断" in info.value.message
    assert [p["max_tokens"] for p in provider.params] == [4096, 8192]


async def test_retry_after_is_honoured_and_each_retry_is_reported() -> None:
    litellm = litellm_module()
    notices: list[RetryNotice] = []
    gateway, provider = scripted(max_retries=2, backoff_initial_s=5.0, backoff_max_s=5.0)
    gateway = gateway.with_meter(UsageMeter(on_retry=notices.append))
    busy = litellm.RateLimitError(message="slow down", llm_provider="scripted", model="test")
    busy.litellm_response_headers = {"Retry-After": "0.2"}
    provider.script(busy, '{"name": "ok", "score": 1}')
    started = time.perf_counter()
    await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
    waited = time.perf_counter() - started
    assert 0.2 <= waited < 2.0  # the provider's 0.2 s, not the 5 s backoff
    [notice] = notices
    assert (notice.task, notice.attempt, notice.wait_s, notice.code) == ("brief", 1, 0.2, "LLM_UNAVAILABLE")
    assert "限流" in notice.message and "slow down" not in notice.message
    assert gateway.meter.records[-1].attempts == 2
    assert gateway.meter.by_task()["brief"]["attempts"] == 2


def test_retry_after_forms() -> None:
    litellm = litellm_module()

    def with_headers(headers: dict[str, str]) -> Exception:
        exc = litellm.RateLimitError(message="x", llm_provider="p", model="m")
        exc.litellm_response_headers = headers
        return exc

    assert retry_after_s(with_headers({"retry-after": "3"})) == 3.0
    assert retry_after_s(with_headers({"retry-after-ms": "1500"})) == 1.5
    assert retry_after_s(with_headers({"Retry-After": "86400"})) == 30.0  # capped
    assert retry_after_s(with_headers({})) is None
    assert retry_after_s(with_headers({"retry-after": "soon"})) is None


async def test_auth_errors_name_the_setting_to_fix_and_keep_the_provider_text_in_details() -> None:
    litellm = litellm_module()
    gateway, provider = scripted(key_setting="STUDIO_PROVIDERS__SCRIPTED__API_KEY")
    provider.script(
        litellm.AuthenticationError(message="Incorrect API key sk-12", llm_provider="s", model="t")
    )
    with pytest.raises(LLMAuthError) as info:
        await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
    assert "STUDIO_PROVIDERS__SCRIPTED__API_KEY" in info.value.message
    assert "Incorrect" not in info.value.message and "Incorrect" in info.value.details["providerMessage"]


async def test_a_refused_response_format_falls_back_once_and_is_remembered() -> None:
    litellm = litellm_module()
    gateway, provider = scripted(model="scripted/refuses-format")
    refused = litellm.BadRequestError(
        message="This response_format type is unavailable now", llm_provider="scripted", model="m"
    )
    llm_module._remembered_modes[("scripted/refuses-format", None)] = "json_schema"  # start there
    try:
        provider.script(refused, '{"name": "ok", "score": 1}', '{"name": "again", "score": 1}')
        assert (
            await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
        ).name == "ok"
        assert provider.params[0]["response_format"] == {"type": "json_object"}
        assert gateway.structured_mode() == "json_object"  # remembered for the process
        await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
        assert len(provider.calls) == 3  # the refusal was not repeated
    finally:
        llm_module._remembered_modes.pop(("scripted/refuses-format", None), None)


def test_structured_mode_by_capability() -> None:
    def mode(model: str) -> str:
        return LLMGateway(LLMConfig(model=model)).structured_mode()

    assert mode("studio/offline") == "json_schema"
    assert mode("gpt-4o-mini") == "json_schema"
    assert mode("deepseek/deepseek-chat") == "json_object"  # litellm claims json_schema; the API refuses it
    assert mode("openai/qwen-plus") == "json_object"


async def test_cost_is_unknown_not_zero_for_a_model_without_a_price() -> None:
    gateway, provider = scripted()
    provider.script('{"name": "ok", "score": 1}')
    await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
    assert gateway.meter.records[-1].cost_usd is None
    assert gateway.meter.cost_usd is None and gateway.meter.by_task()["brief"]["costUsd"] is None
    offline = LLMGateway(LLMConfig())
    await offline.complete_structured("brief", BRIEF_PROMPT.render(request="写露营"), Brief)
    assert offline.meter.cost_usd == 0.0  # the offline model is free: a known price


async def test_stream_structured_reports_the_object_as_it_grows() -> None:
    gateway = LLMGateway(LLMConfig())
    seen: list[dict[str, object]] = []
    messages = BRIEF_PROMPT.render(request="帮我写一篇周末城市露营的小红书笔记，面向上班族")
    brief = await gateway.stream_structured("brief", messages, Brief, on_partial=seen.append)
    assert len(seen) > 3
    topics = [str(p.get("topic", "")) for p in seen if "topic" in p]
    assert topics and topics[-1] == brief.topic
    assert any(len(t) < len(brief.topic) for t in topics)  # seen while still arriving
    assert gateway.meter.records[-1].ok


def test_room_stays_within_the_models_own_limit() -> None:
    deepseek = LLMGateway(LLMConfig(model="deepseek/deepseek-chat"))
    assert deepseek.room_ceiling() == 8192  # DeepSeek refuses more
    assert deepseek.room("writer") == 4096 and deepseek.room("supervisor") == 512
    assert LLMGateway(LLMConfig(model="ollama_chat/qwen2.5:7b")).room_ceiling() == 16384  # not asked


async def test_a_content_filter_refusal_is_its_own_clear_error_and_not_retried() -> None:
    litellm = litellm_module()
    gateway, provider = scripted(max_retries=3)
    provider.script(
        litellm.ContentPolicyViolationError(message="flagged", llm_provider="scripted", model="test"),
        {"content": "", "finish_reason": "content_filter"},
    )
    for _ in range(2):  # refused up front, then an answer the filter stopped
        with pytest.raises(LLMError) as info:
            await gateway.complete_structured("brief", [{"role": "user", "content": "x"}], Point)
        assert info.value.code == "LLM_CONTENT_FILTERED" and "内容审核" in info.value.message
    assert len(provider.calls) == 2
