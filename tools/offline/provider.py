"""The offline model `studio/offline`: a litellm custom provider that answers every agent task locally.

It reads the same prompts real models get — the `## 标题 (key)` sections defined in `tools.prompting`
— picks the composer for the task (the JSON-schema name, or `metadata.task`), and returns JSON
that conforms to the requested schema, or streamed text. Deterministic: the answer is seeded by the
prompt. For benchmarks and fault tests it can simulate latency (each call's total duration: the answer is
composed inside it) and a failure rate.

A streamed answer arrives as a model's would: its first chunk after the first-token time (by default a
fifth of the latency), then a few characters at a time at the token rate (by default the rest of the
latency spread evenly over the answer, so the call still lasts the latency in all).
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import json
import random
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from tools.llm import OFFLINE_PROVIDER, litellm_module
from tools.offline import briefing, drafting, planning, review, span, writing
from tools.offline.context import Context
from tools.offline.schema import conform, generate
from tools.offline.text import keywords, rng_for
from tools.prompting import parse_sections

Composer = Callable[[Context], dict[str, Any]]

COMPOSERS: dict[str, Composer] = {
    "intent": briefing.compose_intent,
    "brief": briefing.compose_brief,
    "evidence": writing.compose_evidence,
    "writer": drafting.compose_draft,
    "span_edit": span.compose_span_edit,
    "reference": planning.compose_reference,
    "layout": planning.compose_layout,
    "image_plan": planning.compose_image_plans,
    "review": review.compose_review,
    "supervisor": planning.compose_supervisor,
}


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # multimodal parts: keep the text ones
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return str(content or "")


def build_context(task: str, messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> Context:
    user_texts = [_text_of(m) for m in messages if m.get("role") == "user"]
    last_user = user_texts[-1] if user_texts else ""
    sections: dict[str, Any] = {}
    for text in user_texts:  # later messages (re-asks) override earlier sections
        sections.update(parse_sections(text))
    seed_material = json.dumps([task, [_text_of(m) for m in messages]], ensure_ascii=False)
    return Context(
        task=task, sections=sections, last_user=last_user, schema=schema, rng=rng_for(seed_material)
    )


def answer_structured(task: str, messages: list[dict[str, Any]], schema: dict[str, Any]) -> str:
    """The JSON text the offline model returns for a structured task."""
    ctx = build_context(task, messages, schema)
    composer = COMPOSERS.get(task)
    words = keywords(ctx.request, 8) or [ctx.topic]
    value = composer(ctx) if composer else generate(schema, words=words)
    return json.dumps(conform(value, schema, words=words), ensure_ascii=False)


def answer_text(task: str, messages: list[dict[str, Any]]) -> str:
    return writing.compose_answer(build_context(task, messages, None))


def _estimate_tokens(text: str) -> int:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return max(1, cjk + (len(text) - cjk) // 4)


FIRST_TOKEN_SHARE = 0.2  # of the latency: when a streamed answer starts unless a first-token time is set
CHUNK_CHARS = 3  # characters per streamed chunk: about a token or two of Chinese


class OfflineLLM:
    """Factory of the litellm handler; see `register_offline_provider`.

    `latency_ms` is every call's whole duration (a floor). A streamed call's first chunk comes after
    `first_token_ms` (None: `FIRST_TOKEN_SHARE` of the latency), the rest at `chars_per_s` (None: spread
    so the last chunk ends the latency), `chunk_chars` at a time; it lasts the longer of the latency and
    first token + answer / rate.
    """

    def __init__(
        self,
        *,
        latency_ms: float = 0.0,
        failure_rate: float = 0.0,
        first_token_ms: float | None = None,
        chars_per_s: float | None = None,
        chunk_chars: int = CHUNK_CHARS,
    ) -> None:
        self.latency_ms = latency_ms
        self.failure_rate = failure_rate
        self.first_token_ms = first_token_ms
        self.chars_per_s = chars_per_s
        self.chunk_chars = chunk_chars
        self._attempts: OrderedDict[str, int] = OrderedDict()

    def should_fail(self, key: str) -> bool:
        """Fail a seeded share of calls; retries of the same prompt get fresh draws."""
        if self.failure_rate <= 0:
            return False
        attempt = self._attempts.pop(key, 0) + 1
        self._attempts[key] = attempt
        while len(self._attempts) > 4096:
            self._attempts.popitem(last=False)
        return random.Random(f"{key}:{attempt}").random() < self.failure_rate

    def remaining_s(self, started: float) -> float:
        """What is left of the simulated latency of a call that began at `started` (perf_counter).

        The latency is the call's whole duration, a floor: composing the answer happens inside it, as a
        remote model's work would, so a benchmark knows the model time exactly.
        """
        return max(0.0, self.latency_ms / 1000 - (time.perf_counter() - started))

    def pacing(self, chars: int) -> tuple[float, float, float]:
        """For a streamed answer of `chars` characters: when its first chunk is due, the seconds each
        character takes after it, and when the call ends — seconds from the call's start."""
        total = self.latency_ms / 1000
        first = total * FIRST_TOKEN_SHARE if self.first_token_ms is None else self.first_token_ms / 1000
        spread = max(0.0, total - first) / max(chars, 1)
        per_char = 1 / self.chars_per_s if self.chars_per_s else spread
        return first, per_char, max(total, first + chars * per_char)

    def schedule(self, started: float, content: str) -> Iterator[tuple[float, str]]:
        """(due time on perf_counter, text) of each chunk of a streamed answer; the last text is "" (the
        end of the call)."""
        first, per_char, end = self.pacing(len(content))
        step = max(1, self.chunk_chars)
        for offset in range(0, len(content), step):
            yield started + first + offset * per_char, content[offset : offset + step]
        yield started + end, ""


def _make_handler(config: OfflineLLM) -> Any:
    litellm = litellm_module()

    class Handler(litellm.CustomLLM):  # type: ignore[name-defined]
        """litellm entry points; every call is answered by the composers above."""

        def _prepare(self, kwargs: dict[str, Any]) -> tuple[str, list[dict[str, Any]], dict[str, Any] | None]:
            messages = kwargs.get("messages") or []
            params = kwargs.get("optional_params") or {}
            metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
            fmt = params.get("response_format") or {}
            spec = fmt.get("json_schema") if isinstance(fmt, dict) else None
            task = str(metadata.get("task") or (spec or {}).get("name") or "answer")
            schema = (spec or {}).get("schema") if spec else None
            if schema is None and isinstance(fmt, dict) and fmt.get("type") == "json_object":
                schema = {"type": "object"}
            key = hashlib.sha256(json.dumps(messages, ensure_ascii=False, default=str).encode()).hexdigest()
            if config.should_fail(key):
                raise litellm.ServiceUnavailableError(
                    message="offline provider: simulated failure",
                    llm_provider=OFFLINE_PROVIDER,
                    model=str(kwargs.get("model")),
                )
            return task, messages, schema

        def _answer(self, task: str, messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> str:
            if schema is not None:
                return answer_structured(task, messages, schema)
            return answer_text(task, messages)

        def _response(self, kwargs: dict[str, Any], content: str, messages: list[dict[str, Any]]) -> Any:
            prompt_tokens = _estimate_tokens(json.dumps(messages, ensure_ascii=False))
            completion_tokens = _estimate_tokens(content)
            return litellm.ModelResponse(
                model=str(kwargs.get("model")),
                choices=[
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                usage={
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            )

        def completion(self, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            task, messages, schema = self._prepare(kwargs)
            content = self._answer(task, messages, schema)
            time.sleep(config.remaining_s(started))
            return self._response(kwargs, content, messages)

        async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            task, messages, schema = self._prepare(kwargs)
            content = self._answer(task, messages, schema)
            await asyncio.sleep(config.remaining_s(started))
            return self._response(kwargs, content, messages)

        def _chunks(self, content: str, messages: list[dict[str, Any]], started: float
                    ) -> Iterator[tuple[float, dict[str, Any]]]:
            """Each chunk with the perf_counter time it is due (see `OfflineLLM.schedule`)."""
            for due, text in config.schedule(started, content):
                if text:
                    yield due, {
                        "text": text,
                        "is_finished": False,
                        "finish_reason": "",
                        "usage": None,
                        "index": 0,
                        "tool_use": None,
                    }
                    continue
                prompt_tokens = _estimate_tokens(json.dumps(messages, ensure_ascii=False))
                completion_tokens = _estimate_tokens(content)
                yield due, {
                    "text": "",
                    "is_finished": True,
                    "finish_reason": "stop",
                    "index": 0,
                    "tool_use": None,
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }

        def streaming(self, *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
            started = time.perf_counter()
            task, messages, schema = self._prepare(kwargs)
            content = self._answer(task, messages, schema)
            for due, chunk in self._chunks(content, messages, started):
                if (wait := due - time.perf_counter()) > 0:
                    time.sleep(wait)
                yield chunk

        async def astreaming(self, *args: Any, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
            started = time.perf_counter()
            task, messages, schema = self._prepare(kwargs)
            content = self._answer(task, messages, schema)
            for due, chunk in self._chunks(content, messages, started):
                if (wait := due - time.perf_counter()) > 0:
                    await asyncio.sleep(wait)
                yield chunk

    return Handler()


_registered: dict[str, OfflineLLM] = {}


class _Keep(enum.Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP  # a streaming parameter not given: whatever it was stays


def register_offline_provider(
    *,
    latency_ms: float = 0.0,
    failure_rate: float = 0.0,
    first_token_ms: float | _Keep | None = KEEP,
    chars_per_s: float | _Keep | None = KEEP,
) -> OfflineLLM:
    """Register `studio/*` with litellm (once per process); later calls update latency and failure rate,
    and the streaming pace (first-token time, characters per second) when given (None: derived from the
    latency)."""
    config = _registered.get(OFFLINE_PROVIDER)
    if config is None:
        litellm = litellm_module()
        config = OfflineLLM()
        registered = getattr(litellm, "custom_provider_map", None) or []
        providers = [p for p in registered if p.get("provider") != OFFLINE_PROVIDER]
        litellm.custom_provider_map = [  # type: ignore[attr-defined]
            *providers,
            {"provider": OFFLINE_PROVIDER, "custom_handler": _make_handler(config)},
        ]
        _registered[OFFLINE_PROVIDER] = config
    config.latency_ms, config.failure_rate = latency_ms, failure_rate
    if first_token_ms is not KEEP:
        config.first_token_ms = first_token_ms
    if chars_per_s is not KEEP:
        config.chars_per_s = chars_per_s
    return config
