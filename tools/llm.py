"""The LLM gateway: every model call of the studio goes through `LLMGateway`, over litellm.

- `complete_structured(task, messages, OutputModel)` returns a validated pydantic object: JSON-schema or
  JSON mode where the provider supports it (else the schema is spelled out in the system prompt),
  `json-repair` for near-JSON, a bounded re-ask carrying the validation error, retries with exponential
  backoff on transient errors, and a timeout.
- `stream_text(task, messages)` yields text deltas; `complete_text` collects them.
- Each call is recorded (task, model, tokens, cost, latency, attempts) in the gateway's `UsageMeter`;
  `gateway.with_meter(meter)` gives a per-run view sharing everything else.
- litellm exceptions become `tools.errors.LLMError` subclasses at this boundary.

The default model `studio/offline` is the embedded offline provider (`tools.offline`), registered here.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from types import ModuleType
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from tools.errors import LLMAuthError, LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError

T = TypeVar("T", bound=BaseModel)
Message = dict[str, Any]

OFFLINE_PROVIDER = "studio"
OFFLINE_MODEL = f"{OFFLINE_PROVIDER}/offline"
_FENCED_JSON = re.compile(r"```(?:json)?\s*(?P<body>[\s\S]*?)```")


@cache
def _json_schema(output: type[BaseModel]) -> dict[str, Any]:
    """An output model's JSON schema, generated once per model (~1–2 ms each time otherwise)."""
    return output.model_json_schema(by_alias=True)


@cache
def litellm_module() -> ModuleType:
    """Import litellm once, without letting it fetch its cost map from the network (it would stall)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True  # a provider that lacks an optional parameter ignores it instead of failing
    return litellm


def is_offline(model: str) -> bool:
    return model.split("/", 1)[0] == OFFLINE_PROVIDER


# --- usage accounting --------------------------------------------------------------------------------
@dataclass(frozen=True)
class CallRecord:
    """One finished (or failed) model call."""

    task: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_ms: float
    attempts: int
    ok: bool
    error_code: str | None = None


@dataclass
class UsageMeter:
    """Collects `CallRecord`s, typically for one workflow run."""

    records: list[CallRecord] = field(default_factory=list)

    def add(self, record: CallRecord) -> None:
        self.records.append(record)

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.records)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.records)

    @property
    def cost_usd(self) -> float:
        return round(sum(r.cost_usd for r in self.records), 6)

    def by_task(self) -> dict[str, dict[str, float]]:
        """Per task: calls, tokens, cost and total latency — stored on the creative for analysts."""
        summary: dict[str, dict[str, float]] = {}
        for r in self.records:
            row = summary.setdefault(
                r.task,
                {"calls": 0, "promptTokens": 0, "completionTokens": 0, "costUsd": 0.0, "latencyMs": 0.0},
            )
            row["calls"] += 1
            row["promptTokens"] += r.prompt_tokens
            row["completionTokens"] += r.completion_tokens
            row["costUsd"] = round(row["costUsd"] + r.cost_usd, 6)
            row["latencyMs"] = round(row["latencyMs"] + r.latency_ms, 1)
        return summary


# --- configuration -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LLMConfig:
    model: str = OFFLINE_MODEL
    api_base: str | None = None
    api_key: str | None = None
    temperature: float = 0.7
    timeout_s: float = 60.0
    max_retries: int = 2
    max_reasks: int = 1
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    offline_latency_ms: float = 0.0
    offline_failure_rate: float = 0.0


def _convert(exc: BaseException) -> LLMError:
    """Map a litellm/openai/asyncio exception onto the project's own hierarchy."""
    if isinstance(exc, LLMError):
        return exc
    litellm = litellm_module()
    # litellm appends tracebacks to some messages; a creator sees the first line only
    message = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if isinstance(exc, TimeoutError | litellm.Timeout):
        return LLMTimeoutError(f"模型调用超时：{message}")
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError | litellm.NotFoundError):
        return LLMAuthError(f"模型认证失败或模型不存在：{message}")
    if isinstance(exc, litellm.BadRequestError | litellm.ContentPolicyViolationError):
        return LLMError(f"模型拒绝了请求：{message}", code="LLM_BAD_REQUEST")
    if isinstance(
        exc,
        litellm.RateLimitError
        | litellm.ServiceUnavailableError
        | litellm.InternalServerError
        | litellm.APIConnectionError
        | litellm.BadGatewayError,
    ):
        return LLMUnavailableError(f"模型服务暂不可用：{message}")
    return LLMError(f"模型调用失败：{message}")


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, LLMError) and exc.retryable


def extract_json(text: str) -> Any:
    """Parse a model's JSON answer, tolerating code fences, prose around it and near-JSON."""
    candidate = text.strip()
    fenced = _FENCED_JSON.search(candidate)
    if fenced:
        candidate = fenced.group("body").strip()
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        start = min((i for i in (candidate.find("{"), candidate.find("[")) if i >= 0), default=-1)
        if start > 0:
            candidate = candidate[start:]
        return json_repair.loads(candidate)


def _validation_summary(exc: ValidationError) -> str:
    lines = [
        f"- {'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:12]
    ]
    return "\n".join(lines)


class LLMGateway:
    """The one door to language models. Cheap to copy with `with_meter`; safe to share across tasks."""

    def __init__(self, config: LLMConfig | None = None, *, meter: UsageMeter | None = None) -> None:
        self.config = config or LLMConfig()
        self.meter = meter if meter is not None else UsageMeter()

    def litellm(self) -> ModuleType:
        """litellm, with the offline provider registered when this gateway talks to it. The first call in a
        process imports litellm (~7 s of CPU on this machine), so the gateway does it on first use — or the
        server does it in a thread right after start-up (`warm`) — never before the first page is served."""
        litellm = litellm_module()
        if is_offline(self.config.model):
            from tools.offline import register_offline_provider

            register_offline_provider(
                latency_ms=self.config.offline_latency_ms, failure_rate=self.config.offline_failure_rate
            )
        return litellm

    def with_meter(self, meter: UsageMeter) -> LLMGateway:
        clone = object.__new__(LLMGateway)
        clone.config = self.config
        clone.meter = meter
        return clone

    def with_model(self, model: str | None) -> LLMGateway:
        """The same gateway talking to another model (a per-request override)."""
        if not model or model == self.config.model:
            return self
        return LLMGateway(replace(self.config, model=model), meter=self.meter)

    @property
    def model(self) -> str:
        return self.config.model

    # --- structured output ---------------------------------------------------------------------------
    async def complete_structured(
        self,
        task: str,
        messages: Sequence[Message],
        output: type[T],
        *,
        temperature: float | None = None,
    ) -> T:
        """Ask for JSON matching `output`, validate it, re-ask with the errors if needed."""
        schema = copy.deepcopy(_json_schema(output))  # providers may adjust the schema they are given
        convo, response_format = self._structured_request(task, list(messages), schema)
        last_error: ValidationError | ValueError | None = None
        raw = ""
        for _ in range(self.config.max_reasks + 1):
            raw = await self._complete(task, convo, response_format=response_format, temperature=temperature)
            try:
                return output.model_validate(extract_json(raw))
            except (ValidationError, ValueError) as exc:
                last_error = exc
                problems = _validation_summary(exc) if isinstance(exc, ValidationError) else str(exc)
                convo = [
                    *convo,
                    {"role": "assistant", "content": raw},
                    {
                        "role": "user",
                        "content": "上一次的输出没有通过 JSON Schema 校验，问题如下：\n"
                        f"{problems}\n请修正后只返回一个符合 Schema 的 JSON 对象，不要任何解释。",
                    },
                ]
        raise LLMOutputError(
            f"模型输出未能通过「{task}」的格式校验",
            details={"task": task, "error": str(last_error)[:2000], "raw": raw[:2000]},
        )

    def _structured_request(
        self, task: str, messages: list[Message], schema: dict[str, Any]
    ) -> tuple[list[Message], dict[str, Any] | None]:
        """Choose JSON-schema mode, JSON mode or a schema in the prompt, by what the provider supports."""
        model = self.config.model
        litellm = self.litellm()
        if is_offline(model) or _supports(litellm.supports_response_schema, model):
            return messages, {"type": "json_schema", "json_schema": {"name": task, "schema": schema}}
        instruction = (
            "\n\n请只输出一个 JSON 对象（不要 Markdown 代码块、不要解释），并严格符合以下 JSON Schema：\n"
            + json.dumps(schema, ensure_ascii=False)
        )
        convo = [dict(m) for m in messages]
        if convo and convo[0].get("role") == "system":
            convo[0]["content"] = f"{convo[0]['content']}{instruction}"
        else:
            convo.insert(0, {"role": "system", "content": instruction.strip()})
        try:
            params = litellm.get_supported_openai_params(model=model) or []
        except Exception:  # unknown model names: no JSON mode, rely on the instruction and repair
            params = []
        return convo, ({"type": "json_object"} if "response_format" in params else None)

    # --- text ----------------------------------------------------------------------------------------
    async def stream_text(
        self, task: str, messages: Sequence[Message], *, temperature: float | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text as it arrives. Transient errors before the first delta are retried."""
        litellm = self.litellm()
        started = time.perf_counter()
        attempts = 0
        prompt_tokens = completion_tokens = 0
        parts: list[str] = []
        try:
            async for attempt in self._retrying():
                with attempt:
                    attempts += 1
                    stream = await self._call(
                        litellm, task, list(messages), stream=True, temperature=temperature
                    )
            async with asyncio.timeout(self.config.timeout_s):
                async for chunk in stream:
                    usage = getattr(chunk, "usage", None)
                    if usage:
                        prompt_tokens = usage.prompt_tokens or prompt_tokens
                        completion_tokens = usage.completion_tokens or completion_tokens
                    delta = chunk.choices[0].delta.content if chunk.choices else None
                    if delta:
                        parts.append(delta)
                        yield delta
        except BaseException as exc:
            if isinstance(exc, GeneratorExit | asyncio.CancelledError):
                raise
            error = _convert(exc)
            self._record(task, started, attempts, ok=False, error_code=error.code)
            raise error from exc
        if not completion_tokens:
            completion_tokens = _estimate_tokens("".join(parts))
        self._record(task, started, attempts, ok=True, tokens=(prompt_tokens, completion_tokens))

    async def complete_text(self, task: str, messages: Sequence[Message], **kwargs: Any) -> str:
        return "".join([delta async for delta in self.stream_text(task, messages, **kwargs)])

    # --- plumbing ------------------------------------------------------------------------------------
    def _retrying(self) -> AsyncRetrying:
        return AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=wait_exponential_jitter(
                multiplier=self.config.backoff_initial_s, max=self.config.backoff_max_s
            ),
            retry=retry_if_exception(_retryable),
            reraise=True,
        )

    async def _call(
        self,
        litellm: ModuleType,
        task: str,
        messages: list[Message],
        *,
        stream: bool,
        temperature: float | None,
        response_format: dict[str, Any] | None = None,
    ) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature if temperature is None else temperature,
            "timeout": self.config.timeout_s,
            "metadata": {"task": task},
            "num_retries": 0,  # retries are ours
        }
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if self.config.api_key:
            kwargs["api_key"] = self.config.api_key
        if response_format is not None:
            kwargs["response_format"] = response_format
        if stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise _convert(exc) from exc

    async def _complete(
        self,
        task: str,
        messages: list[Message],
        *,
        response_format: dict[str, Any] | None,
        temperature: float | None,
    ) -> str:
        litellm = self.litellm()
        started = time.perf_counter()
        attempts = 0
        try:
            async for attempt in self._retrying():
                with attempt:
                    attempts += 1
                    response = await self._call(
                        litellm,
                        task,
                        messages,
                        stream=False,
                        temperature=temperature,
                        response_format=response_format,
                    )
        except LLMError as exc:
            self._record(task, started, attempts, ok=False, error_code=exc.code)
            raise
        content = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        tokens = (
            (usage.prompt_tokens or 0, usage.completion_tokens or 0)
            if usage
            else (_estimate_tokens(json.dumps(messages, ensure_ascii=False)), _estimate_tokens(content))
        )
        self._record(task, started, attempts, ok=True, tokens=tokens, response=response)
        return content

    def _record(
        self,
        task: str,
        started: float,
        attempts: int,
        *,
        ok: bool,
        tokens: tuple[int, int] = (0, 0),
        error_code: str | None = None,
        response: Any = None,
    ) -> None:
        cost = 0.0
        if response is not None and not is_offline(self.config.model):
            try:
                cost = float(self.litellm().completion_cost(completion_response=response) or 0.0)
            except Exception:  # models without a price in the local cost map cost "unknown" = 0
                cost = 0.0
        self.meter.add(
            CallRecord(
                task=task,
                model=self.config.model,
                prompt_tokens=tokens[0],
                completion_tokens=tokens[1],
                cost_usd=cost,
                latency_ms=round((time.perf_counter() - started) * 1000, 2),
                attempts=attempts,
                ok=ok,
                error_code=error_code,
            )
        )


def _supports(check: Any, model: str) -> bool:
    try:
        return bool(check(model=model))
    except Exception:
        return False


def _estimate_tokens(text: str) -> int:
    """A rough count for providers that report none: ~1 token per CJK char, ~4 chars per token otherwise."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return cjk + max(0, len(text) - cjk) // 4
