"""The LLM gateway: every model call of the studio goes through `LLMGateway`, over litellm.

- `complete_structured(task, messages, OutputModel)` returns a validated pydantic object. How JSON is asked
  for depends on what the provider can do (`structured_mode`): JSON schema, JSON mode with the schema in the
  prompt, tool calling, or the schema in the prompt alone. A 400 saying the format is unsupported falls back
  once to the next mode, remembered for the process. `json-repair` takes near-JSON; a bounded re-ask carries
  the validation error. Every call sends `max_tokens` for its task; an answer cut by that limit is re-asked
  once with twice the room and otherwise fails with `LLM_OUTPUT_TRUNCATED` — never accepted.
- `stream_structured(...)` is the same, streamed: `on_partial` gets the partial JSON object as tokens
  arrive.
- `stream_text(task, messages)` yields text deltas; `complete_text` collects them.
- One retry layer (litellm's and the SDK's own retries are off): transient errors are retried with
  exponential backoff, honouring the provider's `Retry-After`; authentication, bad requests and content
  filters are not. Each retry is reported to the meter's `on_retry` (the runner turns it into a `progress`
  event).
- Each call is recorded (task, model, tokens, cost, latency, attempts) in the gateway's `UsageMeter`; cost
  is None ("unknown") when litellm has no price for the model, never a made-up 0. An optional spending cap
  stops a run before a call that would pass it.
- litellm exceptions become `tools.errors.LLMError` subclasses at this boundary, with a Chinese message that
  says which setting to fix; the provider's own text stays in `details`.

The default model `studio/offline` is the embedded offline provider (`tools.offline`), registered here."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from functools import cache, partial
from types import ModuleType
from typing import Any, Literal, TypeVar

import json_repair
import pydantic_core
from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from tools.call_cache import CallCache
from tools.errors import LLMAuthError, LLMError, LLMOutputError, LLMTimeoutError, LLMUnavailableError
from tools.providers import (
    KEYLESS_PROVIDERS,
    ROLE_MODEL_SETTING,
    Endpoint,
    ProviderKeys,
    provider_of,
    resolve,
)

T = TypeVar("T", bound=BaseModel)
Message = dict[str, Any]

log = logging.getLogger("studio.llm")
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
    """One finished (or failed) model call. `cost_usd` is None when the model's price is unknown."""

    task: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    latency_ms: float
    attempts: int
    ok: bool
    error_code: str | None = None
    cached: bool = False  # answered from the call cache (tools.call_cache): no model was called


@dataclass(frozen=True)
class RetryNotice:
    """A call about to be retried: which task, which attempt failed, how long until the next, and why."""

    task: str
    attempt: int
    wait_s: float
    code: str
    message: str


def add_costs(*costs: float | None) -> float | None:
    """A sum of costs that stays unknown (None) when any part is unknown."""
    if any(cost is None for cost in costs):
        return None
    return round(sum(cost for cost in costs if cost is not None), 6)


@dataclass
class UsageMeter:
    """Collects `CallRecord`s, typically for one workflow run; `on_retry` hears of every retry."""

    records: list[CallRecord] = field(default_factory=list)
    on_retry: Callable[[RetryNotice], None] | None = None

    def add(self, record: CallRecord) -> None:
        self.records.append(record)

    def retrying(self, notice: RetryNotice) -> None:
        if self.on_retry is not None:
            self.on_retry(notice)

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.records)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.records)

    @property
    def cost_usd(self) -> float | None:
        return add_costs(*(r.cost_usd for r in self.records))

    @property
    def known_cost_usd(self) -> float:
        """What is known to have been spent (the spending cap counts this)."""
        return round(sum(r.cost_usd or 0.0 for r in self.records), 6)

    def by_task(self) -> dict[str, dict[str, Any]]:
        """Per task: calls, attempts (retries included), tokens, cost (None if unknown) and total latency —
        stored on the creative for analysts."""
        summary: dict[str, dict[str, Any]] = {}
        for r in self.records:
            row = summary.setdefault(
                r.task,
                {
                    "calls": 0,
                    "attempts": 0,
                    "promptTokens": 0,
                    "completionTokens": 0,
                    "costUsd": 0.0,
                    "latencyMs": 0.0,
                },
            )
            if r.cached:
                row["cacheHits"] = row.get("cacheHits", 0) + 1
                continue
            row["calls"] += 1
            row["attempts"] += r.attempts
            row["promptTokens"] += r.prompt_tokens
            row["completionTokens"] += r.completion_tokens
            row["costUsd"] = add_costs(row["costUsd"], r.cost_usd)
            row["latencyMs"] = round(row["latencyMs"] + r.latency_ms, 1)
        return summary


# --- configuration -----------------------------------------------------------------------------------
StructuredMode = Literal["json_schema", "json_object", "tools", "prompt"]
MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "tools", "prompt")
# Providers whose litellm entry claims JSON-schema output the API refuses (DeepSeek answers json_schema with
# 400 "This response_format type is unavailable now"): JSON mode with the schema in the prompt.
JSON_MODE_PROVIDERS = frozenset({"deepseek"})
# Room for each task's answer, in tokens; others get DEFAULT_MAX_TOKENS. A cut answer is re-asked once with
# twice the room, at most MAX_TOKENS_CEILING.
TASK_MAX_TOKENS: dict[str, int] = {
    "writer": 4096,
    "image_plan": 4096,
    "evidence": 3072,
    "review": 2048,
    "brief": 2048,
    "answer": 2048,
    "web_search": 2048,
    "intent": 1024,
    "supervisor": 512,
}
DEFAULT_MAX_TOKENS = 2048
MAX_TOKENS_CEILING = 16384
RETRY_AFTER_CAP_S = 30.0
_UNSUPPORTED_FORMAT = re.compile(
    r"response_format|json_schema|json_object|structured output|tool_choice|\btools?\b.*(?:support|allow)",
    re.IGNORECASE,
)
_MISSING_KEY = re.compile(
    r"api[_ ]?key\b.*\b(?:must be set|missing)|missing (?:credentials|api[_ ]?key)", re.IGNORECASE
)
_remembered_modes: dict[tuple[str, str | None], StructuredMode] = {}


@dataclass(frozen=True)
class LLMConfig:
    """The text role's model and endpoint, the other roles' endpoints (`roles`: vision, web_search), the
    provider-wide settings a per-request model override resolves through, and the call policy."""

    model: str = OFFLINE_MODEL
    api_base: str | None = None
    api_key: str | None = None
    key_setting: str = "STUDIO_LLM_API_KEY"
    roles: Mapping[str, Endpoint] = field(default_factory=dict)
    providers: Mapping[str, ProviderKeys] = field(default_factory=dict)
    temperature: float = 0.7
    timeout_s: float = 60.0
    max_retries: int = 2
    max_reasks: int = 1
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(TASK_MAX_TOKENS))
    max_cost_usd: float | None = None
    offline_latency_ms: float = 0.0
    offline_failure_rate: float = 0.0
    offline_first_token_ms: float | None = None  # None: the offline model's default pace
    offline_chars_per_s: float | None = None

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.model, self.api_base, self.api_key, role="text", key_setting=self.key_setting)


def _headers_of(exc: BaseException) -> Mapping[str, str]:
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if source:
            try:
                return {str(k).lower(): str(v) for k, v in dict(source).items()}
            except (TypeError, ValueError):
                continue
    return {}


def retry_after_s(exc: BaseException) -> float | None:
    """The provider's `Retry-After` (seconds, an HTTP date, or `retry-after-ms`), capped; None if absent."""
    headers = _headers_of(exc)
    if "retry-after-ms" in headers:
        with contextlib.suppress(ValueError):
            return min(float(headers["retry-after-ms"]) / 1000, RETRY_AFTER_CAP_S)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, OverflowError):
            return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def _status(exc: BaseException) -> int:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else 0


def _convert(
    exc: BaseException, endpoint: Endpoint | None = None, timeout_s: float | None = None
) -> LLMError:
    """Map a litellm/openai/asyncio exception onto the project's own hierarchy: a Chinese message that says
    what happened and which setting to fix; the provider's text in `details` only."""
    if isinstance(exc, LLMError):
        return exc
    litellm = litellm_module()
    # litellm appends tracebacks to some messages; keep the first lines for the details
    raw = " ".join((str(exc).strip() or type(exc).__name__).splitlines()[:3])[:600]
    model = endpoint.model if endpoint else "?"
    details: dict[str, Any] = {"model": model, "type": type(exc).__name__, "status": _status(exc) or None}
    details["provider"] = provider_of(model) if endpoint else None
    details["providerMessage"] = raw
    log.info("model call failed: %s %s (status %s): %s", model, type(exc).__name__, details["status"], raw)
    status = _status(exc)
    setting = endpoint.key_setting if endpoint else "STUDIO_LLM_API_KEY"
    if isinstance(exc, TimeoutError | litellm.Timeout) or status == 408:
        limit = f"（{timeout_s:g} 秒）" if timeout_s else ""
        return LLMTimeoutError(f"模型 {model} 调用超时{limit}", details=details)
    # the OpenAI SDK says "The api_key client option must be set…"; some paths say "Missing credentials"
    missing_key = bool(_MISSING_KEY.search(raw))
    if (
        missing_key
        or status in (401, 403)
        or isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError)
    ):
        what = "缺少 API Key" if missing_key else "认证失败"
        return LLMAuthError(f"模型 {model} {what}：请检查 {setting}", details=details)
    if status == 404 or isinstance(exc, litellm.NotFoundError):
        model_setting = ROLE_MODEL_SETTING.get(endpoint.role if endpoint else "text", "STUDIO_LLM_MODEL")
        return LLMAuthError(
            f"模型 {model} 不存在或无权使用：请检查 {model_setting} 和接口地址", details=details
        )
    if isinstance(exc, litellm.ContentPolicyViolationError) or re.search(
        r"content_filter|content_policy", raw
    ):
        return LLMError(
            "模型服务商的内容审核拦截了这次请求，请调整需求的措辞后重试",
            code="LLM_CONTENT_FILTERED",
            details=details,
        )
    if isinstance(exc, litellm.ContextWindowExceededError):
        return LLMError(f"输入超出了模型 {model} 的上下文长度", code="LLM_CONTEXT_TOO_LONG", details=details)
    if status == 429 or isinstance(exc, litellm.RateLimitError):
        error: LLMError = LLMUnavailableError(f"模型 {model} 限流，请稍后再试", details=details)
    elif status >= 500 or isinstance(
        exc,
        litellm.ServiceUnavailableError
        | litellm.InternalServerError
        | litellm.APIConnectionError
        | litellm.BadGatewayError,
    ):
        error = LLMUnavailableError(f"模型服务暂不可用（{model}）", details=details)
    elif status in (400, 422) or isinstance(exc, litellm.BadRequestError | litellm.UnsupportedParamsError):
        return LLMError(f"模型 {model} 拒绝了请求参数", code="LLM_BAD_REQUEST", details=details)
    else:
        return LLMError(f"模型 {model} 调用失败", details=details)
    after = retry_after_s(exc)
    if after is not None:
        details["retryAfterS"] = after
    return error


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


def partial_json(text: str) -> dict[str, Any] | None:
    """The object so far of a JSON answer still arriving (open strings kept as far as they go), or None."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value = pydantic_core.from_json(text[start:], allow_partial="trailing-strings")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _validation_summary(exc: ValidationError) -> str:
    lines = [
        f"- {'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:12]
    ]
    return "\n".join(lines)


def _schema_instruction(schema: dict[str, Any]) -> str:
    return (
        "\n\n请只输出一个 JSON 对象（不要 Markdown 代码块、不要解释），并严格符合以下 JSON Schema：\n"
        + json.dumps(schema, ensure_ascii=False)
    )


def _with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    convo = [dict(m) for m in messages]
    if convo and convo[0].get("role") == "system":
        convo[0]["content"] = f"{convo[0]['content']}{instruction}"
    else:
        convo.insert(0, {"role": "system", "content": instruction.strip()})
    return convo


@dataclass
class _Answer:
    """What one call returned: the text (or tool arguments), why it stopped, and its usage."""

    content: str
    finish_reason: str | None
    tokens: tuple[int, int]
    response: Any = None


class LLMGateway:
    """The one door to language models. Cheap to copy with `with_meter`; safe to share across tasks."""

    def __init__(
        self,
        config: LLMConfig | None = None,
        *,
        meter: UsageMeter | None = None,
        endpoint: Endpoint | None = None,
        cache: CallCache | None = None,
    ) -> None:
        self.config = config or LLMConfig()
        self.meter = meter if meter is not None else UsageMeter()
        self.endpoint = endpoint or self.config.endpoint
        self.cache = cache  # identical structured calls answered again from here (tools.call_cache)

    def litellm(self) -> ModuleType:
        """litellm, with the offline provider registered when this gateway talks to it. The first call in a
        process imports litellm (~7 s of CPU on this machine), so the gateway does it on first use — or the
        server does it in a thread right after start-up (`warm`) — never before the first page is served."""
        litellm = litellm_module()
        if is_offline(self.endpoint.model):
            from tools.offline import register_offline_provider

            pace = {
                name: value
                for name, value in (
                    ("first_token_ms", self.config.offline_first_token_ms),
                    ("chars_per_s", self.config.offline_chars_per_s),
                )
                if value is not None  # unset: keep the pace the process has (tests set it in-process)
            }
            register_offline_provider(
                latency_ms=self.config.offline_latency_ms,
                failure_rate=self.config.offline_failure_rate,
                **pace,
            )
        return litellm

    def _clone(self, *, meter: UsageMeter | None = None, endpoint: Endpoint | None = None) -> LLMGateway:
        return LLMGateway(
            self.config, meter=meter or self.meter, endpoint=endpoint or self.endpoint, cache=self.cache
        )

    def with_meter(self, meter: UsageMeter) -> LLMGateway:
        return self._clone(meter=meter)

    def with_cache(self, cache: CallCache | None) -> LLMGateway:
        """The same gateway answering identical structured calls from `cache` (a creative's)."""
        clone = self._clone()
        clone.cache = cache
        return clone

    def with_model(self, model: str | None) -> LLMGateway:
        """The same gateway talking to another model (a per-request override), at that model's provider:
        the text role's endpoint when it is the same provider, else the provider's own settings."""
        if not model or model == self.endpoint.model:
            return self
        endpoint = resolve(model, role="text", text=self.config.endpoint, providers=self.config.providers)
        return self._clone(endpoint=endpoint)

    def for_role(self, role: str) -> LLMGateway | None:
        """The gateway of another model role (`vision`, `web_search`), or None when that role is not set."""
        endpoint = self.config.roles.get(role)
        return self._clone(endpoint=endpoint) if endpoint else None

    @property
    def model(self) -> str:
        return self.endpoint.model

    def supports_vision(self) -> bool:
        """Whether this model takes image parts (litellm's model map; the offline model does not)."""
        return not is_offline(self.model) and _supports(self.litellm().supports_vision, self.model)

    def room_ceiling(self) -> int:
        """The most output tokens a call may ask for: the model's own limit when litellm knows it (DeepSeek
        refuses more than 8192), else MAX_TOKENS_CEILING."""
        return _output_limit(self.model)

    def room(self, task: str) -> int:
        """`max_tokens` for `task`, within the model's limit."""
        return min(self.config.max_tokens.get(task, DEFAULT_MAX_TOKENS), self.room_ceiling())

    # --- structured output ---------------------------------------------------------------------------
    def structured_mode(self) -> StructuredMode:
        """How this model is asked for JSON: remembered from an earlier fallback, else by capability."""
        key = (self.model, self.endpoint.api_base)
        if key in _remembered_modes:
            return _remembered_modes[key]
        if is_offline(self.model):
            return "json_schema"
        if provider_of(self.model) in JSON_MODE_PROVIDERS:
            return "json_object"
        litellm = self.litellm()
        if _supports(litellm.supports_response_schema, self.model):
            return "json_schema"
        try:
            params = litellm.get_supported_openai_params(model=self.model) or []
        except Exception:  # unknown model names: the schema in the prompt, and repair
            params = []
        if "response_format" in params:
            return "json_object"
        return "tools" if "tools" in params else "prompt"

    def _fall_back(self, mode: StructuredMode, error: LLMError) -> StructuredMode | None:
        """The next mode after a 400 that says the format is unsupported (remembered), else None."""
        raw = str((error.details or {}).get("providerMessage", "")) if isinstance(error.details, dict) else ""
        if error.code != "LLM_BAD_REQUEST" or not _UNSUPPORTED_FORMAT.search(raw) or mode == "prompt":
            return None
        following = MODES[MODES.index(mode) + 1]
        _remembered_modes[(self.model, self.endpoint.api_base)] = following
        return following

    def _structured_request(
        self, task: str, messages: list[Message], schema: dict[str, Any], mode: StructuredMode
    ) -> tuple[list[Message], dict[str, Any]]:
        """The conversation and the extra call parameters of `mode`."""
        if mode == "json_schema":
            return messages, {
                "response_format": {"type": "json_schema", "json_schema": {"name": task, "schema": schema}}
            }
        convo = _with_instruction(messages, _schema_instruction(schema))
        if mode == "json_object":
            return convo, {"response_format": {"type": "json_object"}}
        if mode == "tools":
            tool = {
                "type": "function",
                "function": {"name": task, "description": f"{task} 的结果", "parameters": schema},
            }
            return convo, {"tools": [tool], "tool_choice": {"type": "function", "function": {"name": task}}}
        return convo, {}

    async def complete_structured(
        self,
        task: str,
        messages: Sequence[Message],
        output: type[T],
        *,
        temperature: float | None = None,
        fresh: bool = False,
    ) -> T:
        """Ask for JSON matching `output`, validate it, re-ask with the errors if needed. An identical call
        made before for the same creative is answered from the cache, unless `fresh` (a redo the user asked
        for: a new answer is wanted)."""
        return await self._cached(
            task, messages, output, temperature=temperature, on_partial=None, fresh=fresh
        )

    async def stream_structured(
        self,
        task: str,
        messages: Sequence[Message],
        output: type[T],
        *,
        on_partial: Callable[[dict[str, Any]], Awaitable[None] | None],
        temperature: float | None = None,
        fresh: bool = False,
    ) -> T:
        """`complete_structured`, streamed: `on_partial(obj)` gets the partial JSON object each time it grows.
        A re-ask (invalid or cut output) streams again from the start; a cached answer arrives whole."""
        return await self._cached(
            task, messages, output, temperature=temperature, on_partial=on_partial, fresh=fresh
        )

    async def _cached(
        self,
        task: str,
        messages: Sequence[Message],
        output: type[T],
        *,
        temperature: float | None,
        on_partial: Callable[[dict[str, Any]], Awaitable[None] | None] | None,
        fresh: bool,
    ) -> T:
        """`_structured` through the creative's call cache: the key is the whole request (model, task,
        messages, output schema, temperature)."""
        ask = partial(
            self._structured, task, messages, output, temperature=temperature, on_partial=on_partial
        )
        if self.cache is None:
            return await ask()
        key = CallCache.key("structured", self.model, task, list(messages), _json_schema(output), temperature)
        found, value = (False, None) if fresh else self.cache.get(key)
        if found and isinstance(value, dict):
            self.meter.add(CallRecord(
                task=task, model=self.model, prompt_tokens=0, completion_tokens=0, cost_usd=0.0,
                latency_ms=0.0, attempts=0, ok=True, cached=True,
            ))
            if on_partial is not None:
                delivered = on_partial(value)
                if inspect.isawaitable(delivered):
                    await delivered
            return output.model_validate(value)
        answer = await ask()
        self.cache.put(key, answer.model_dump(mode="json", by_alias=True))
        return answer

    async def _structured(
        self,
        task: str,
        messages: Sequence[Message],
        output: type[T],
        *,
        temperature: float | None,
        on_partial: Callable[[dict[str, Any]], Awaitable[None] | None] | None,
    ) -> T:
        schema = copy.deepcopy(_json_schema(output))  # providers may adjust the schema they are given
        mode = self.structured_mode()
        history: list[Message] = []
        max_tokens = self.room(task)
        last_error: Exception | None = None
        raw = ""
        reasks = 0
        widened = False
        while True:
            convo, extra = self._structured_request(task, [*messages, *history], schema, mode)
            try:
                answer = await self._complete(
                    task,
                    convo,
                    extra=extra,
                    temperature=temperature,
                    max_tokens=max_tokens,
                    on_partial=on_partial,
                )
            except LLMError as exc:
                following = self._fall_back(mode, exc)
                if following is None:
                    raise
                mode = following
                continue
            raw = answer.content
            if answer.finish_reason == "content_filter":
                self._refuse_cut(task, answer.finish_reason, max_tokens, raw)
            if answer.finish_reason == "length":
                if widened or max_tokens >= self.room_ceiling():
                    raise LLMOutputError(
                        f"模型的回答超出长度上限被截断（{task}，{max_tokens} tokens）",
                        code="LLM_OUTPUT_TRUNCATED",
                        details={"task": task, "maxTokens": max_tokens, "raw": raw[:2000]},
                    )
                widened, max_tokens = True, min(max_tokens * 2, self.room_ceiling())
                continue
            try:
                return output.model_validate(extract_json(raw))
            except (ValidationError, ValueError) as exc:
                last_error = exc
                if reasks >= self.config.max_reasks:
                    break
                reasks += 1
                problems = _validation_summary(exc) if isinstance(exc, ValidationError) else str(exc)
                history = [
                    *history,
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

    # --- text ----------------------------------------------------------------------------------------
    async def stream_text(
        self, task: str, messages: Sequence[Message], *, temperature: float | None = None
    ) -> AsyncIterator[str]:
        """Yield the answer's text as it arrives. Transient errors before the first delta are retried; an
        answer cut by its length limit ends with `LLM_OUTPUT_TRUNCATED` after what arrived."""
        started = time.perf_counter()
        attempts = 0
        prompt_tokens = completion_tokens = 0
        parts: list[str] = []
        finish: str | None = None
        max_tokens = self.room(task)
        try:
            stream: Any = None
            async for attempt in self._retrying(task):
                with attempt:
                    attempts += 1
                    stream = await self._call(
                        task, list(messages), stream=True, temperature=temperature, max_tokens=max_tokens
                    )
            async with asyncio.timeout(self.config.timeout_s):
                async for chunk in stream:
                    usage = getattr(chunk, "usage", None)
                    if usage:
                        prompt_tokens = usage.prompt_tokens or prompt_tokens
                        completion_tokens = usage.completion_tokens or completion_tokens
                    choice = chunk.choices[0] if chunk.choices else None
                    if choice is None:
                        continue
                    finish = getattr(choice, "finish_reason", None) or finish
                    delta = choice.delta.content
                    if delta:
                        parts.append(delta)
                        yield delta
        except BaseException as exc:
            if isinstance(exc, GeneratorExit | asyncio.CancelledError):
                raise
            error = _convert(exc, self.endpoint, self.config.timeout_s)
            self._record(task, started, attempts, ok=False, error_code=error.code)
            raise error from exc
        if not completion_tokens:
            completion_tokens = _estimate_tokens("".join(parts))
        tokens = (
            prompt_tokens or _estimate_tokens(json.dumps(list(messages), ensure_ascii=False)),
            completion_tokens,
        )
        self._record(task, started, attempts, ok=True, tokens=tokens)
        self._refuse_cut(task, finish, max_tokens, "".join(parts))

    async def complete_text(self, task: str, messages: Sequence[Message], **kwargs: Any) -> str:
        return "".join([delta async for delta in self.stream_text(task, messages, **kwargs)])

    async def complete_raw(self, task: str, messages: Sequence[Message], **extra: Any) -> Any:
        """One call with provider-specific parameters (e.g. `web_search_options`), returning litellm's
        response — retried, metered and converted like every other call, with the task's `max_tokens` unless
        `extra` names one. Temperature is not sent (search models refuse sampling parameters)."""
        room = int(extra.pop("max_tokens", self.room(task)))
        answer = await self._complete(
            task, list(messages), extra=extra, temperature=None, max_tokens=room, send_temperature=False
        )
        self._refuse_cut(task, answer.finish_reason, room, answer.content)
        return answer.response

    @staticmethod
    def _refuse_cut(task: str, finish: str | None, max_tokens: int | None, text: str) -> None:
        if finish == "length":
            raise LLMOutputError(
                f"模型的回答超出长度上限被截断（{task}）",
                code="LLM_OUTPUT_TRUNCATED",
                details={"task": task, "maxTokens": max_tokens, "raw": text[:2000]},
            )
        if finish == "content_filter":
            raise LLMError(
                "模型服务商的内容审核拦截了这次回答，请调整需求的措辞后重试",
                code="LLM_CONTENT_FILTERED",
                details={"task": task},
            )

    # --- plumbing ------------------------------------------------------------------------------------
    def _retrying(self, task: str) -> AsyncRetrying:
        backoff = wait_exponential_jitter(
            multiplier=self.config.backoff_initial_s, max=self.config.backoff_max_s
        )

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            details = getattr(exc, "details", None)
            after = details.get("retryAfterS") if isinstance(details, dict) else None
            return float(after) if after is not None else float(backoff(state))

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            code = getattr(exc, "code", "LLM_ERROR")
            message = getattr(exc, "message", str(exc))
            wait_s = state.next_action.sleep if state.next_action else 0.0
            self.meter.retrying(RetryNotice(task, state.attempt_number, float(wait_s), code, message))

        return AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=wait,
            retry=retry_if_exception(_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )

    def _check_budget(self, task: str, messages: list[Message], max_tokens: int | None) -> None:
        """Refuse a model call that would take the run past its spending cap (known prices only)."""
        if self.config.max_cost_usd is None or is_offline(self.model):
            return
        try:
            prompt_cost, completion_cost = self.litellm().cost_per_token(
                model=self.model,
                prompt_tokens=_estimate_tokens(json.dumps(messages, ensure_ascii=False)),
                completion_tokens=max_tokens or DEFAULT_MAX_TOKENS,
            )
            next_call = float(prompt_cost) + float(completion_cost)
        except Exception:  # unknown price: only what is known counts
            next_call = 0.0
        self.ensure_budget(task, next_call)

    def ensure_budget(self, task: str, next_cost_usd: float | None) -> None:
        """Raise `BUDGET_EXCEEDED` when spending `next_cost_usd` (None: unknown, counted as 0) would take the
        run past `max_cost_usd`. The image agent asks this before each paid picture."""
        cap = self.config.max_cost_usd
        if cap is None:
            return
        spent = self.meter.known_cost_usd
        next_call = next_cost_usd or 0.0
        if spent + next_call > cap:
            raise LLMError(
                f"本次运行的模型费用将超出上限 ${cap:g}（已花费 ${spent:.4f}），已停止："
                "可调高 STUDIO_MAX_RUN_COST_USD",
                code="BUDGET_EXCEEDED",
                details={"task": task, "spentUsd": spent, "nextCallUsd": round(next_call, 6), "capUsd": cap},
            )

    async def _call(
        self,
        task: str,
        messages: list[Message],
        *,
        stream: bool,
        temperature: float | None,
        max_tokens: int | None,
        extra: Mapping[str, Any] | None = None,
        send_temperature: bool = True,
    ) -> Any:
        litellm = self.litellm()
        self._check_budget(task, messages, max_tokens)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.config.timeout_s,
            "metadata": {"task": task},
            "num_retries": 0,  # the one retry layer is ours: neither litellm's
            "max_retries": 0,  # nor the provider SDK's
        }
        if send_temperature:
            kwargs["temperature"] = self.config.temperature if temperature is None else temperature
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if self.endpoint.api_base:
            kwargs["api_base"] = self.endpoint.api_base
        if self.endpoint.api_key:
            kwargs["api_key"] = self.endpoint.api_key
        kwargs.update(extra or {})
        if stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise _convert(exc, self.endpoint, self.config.timeout_s) from exc

    async def _complete(
        self,
        task: str,
        messages: list[Message],
        *,
        extra: Mapping[str, Any] | None,
        temperature: float | None,
        max_tokens: int | None,
        on_partial: Callable[[dict[str, Any]], Awaitable[None] | None] | None = None,
        send_temperature: bool = True,
    ) -> _Answer:
        started = time.perf_counter()
        attempts = 0
        call = partial(
            self._call,
            task,
            messages,
            temperature=temperature,
            max_tokens=max_tokens,
            extra=extra,
            send_temperature=send_temperature,
        )
        try:
            async for attempt in self._retrying(task):
                with attempt:
                    attempts += 1
                    try:
                        if on_partial is None:
                            answer = _answer_of(await call(stream=False), messages)
                        else:
                            answer = await self._streamed(await call(stream=True), messages, on_partial)
                    except Exception as exc:
                        raise _convert(exc, self.endpoint, self.config.timeout_s) from exc
        except Exception as exc:
            error = _convert(exc, self.endpoint, self.config.timeout_s)
            self._record(task, started, attempts, ok=False, error_code=error.code)
            raise error from exc
        self._record(task, started, attempts, ok=True, tokens=answer.tokens, response=answer.response)
        return answer

    async def _streamed(
        self,
        stream: Any,
        messages: list[Message],
        on_partial: Callable[[dict[str, Any]], Awaitable[None] | None],
    ) -> _Answer:
        """Read a streamed structured answer (content or tool-call arguments), telling `on_partial` as the
        object grows."""
        parts: list[str] = []
        finish: str | None = None
        tokens = (0, 0)
        shown: dict[str, Any] | None = None
        async with asyncio.timeout(self.config.timeout_s):
            async for chunk in stream:
                usage = getattr(chunk, "usage", None)
                if usage:
                    tokens = (usage.prompt_tokens or tokens[0], usage.completion_tokens or tokens[1])
                choice = chunk.choices[0] if chunk.choices else None
                if choice is None:
                    continue
                finish = getattr(choice, "finish_reason", None) or finish
                delta = choice.delta
                piece = delta.content or "".join(
                    (call.function.arguments or "")
                    for call in (getattr(delta, "tool_calls", None) or [])
                    if getattr(call, "function", None)
                )
                if not piece:
                    continue
                parts.append(piece)
                current = partial_json("".join(parts))
                if current and current != shown:
                    shown = current
                    result = on_partial(current)
                    if inspect.isawaitable(result):
                        await result
        content = "".join(parts)
        if not tokens[1]:
            tokens = (_estimate_tokens(json.dumps(messages, ensure_ascii=False)), _estimate_tokens(content))
        return _Answer(content, finish, tokens)

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
        self.meter.add(
            CallRecord(
                task=task,
                model=self.model,
                prompt_tokens=tokens[0],
                completion_tokens=tokens[1],
                cost_usd=self._cost(tokens, response) if ok else 0.0,
                latency_ms=round((time.perf_counter() - started) * 1000, 2),
                attempts=attempts,
                ok=ok,
                error_code=error_code,
            )
        )

    def _cost(self, tokens: tuple[int, int], response: Any) -> float | None:
        """The call's price in USD from litellm's cost map; None when the model has no known price."""
        if is_offline(self.model):
            return 0.0
        litellm = self.litellm()
        try:
            if response is not None:
                return float(litellm.completion_cost(completion_response=response, model=self.model))
            prompt_cost, completion_cost = litellm.cost_per_token(
                model=self.model, prompt_tokens=tokens[0], completion_tokens=tokens[1]
            )
            return round(float(prompt_cost) + float(completion_cost), 8)
        except Exception:  # not in the cost map: unknown, never a made-up 0
            return None


def _answer_of(response: Any, messages: list[Message]) -> _Answer:
    choice = response.choices[0]
    message = choice.message
    content = message.content or ""
    calls = getattr(message, "tool_calls", None) or []
    if calls and getattr(calls[0], "function", None):
        content = calls[0].function.arguments or content
    usage = getattr(response, "usage", None)
    tokens = (
        (usage.prompt_tokens or 0, usage.completion_tokens or 0)
        if usage
        else (_estimate_tokens(json.dumps(messages, ensure_ascii=False)), _estimate_tokens(content))
    )
    return _Answer(content, getattr(choice, "finish_reason", None), tokens, response)


@cache
def _output_limit(model: str) -> int:
    """A model's output-token limit from litellm's model map (once per process), within MAX_TOKENS_CEILING.
    Local servers (Ollama, vLLM …) are not asked: litellm would query them synchronously."""
    if is_offline(model) or provider_of(model) in KEYLESS_PROVIDERS:
        return MAX_TOKENS_CEILING
    try:
        known = litellm_module().get_model_info(model).get("max_output_tokens")
    except Exception:  # a model litellm does not know
        known = None
    return min(int(known), MAX_TOKENS_CEILING) if known else MAX_TOKENS_CEILING


def _supports(check: Any, model: str) -> bool:
    try:
        return bool(check(model=model))
    except Exception:
        return False


def _estimate_tokens(text: str) -> int:
    """A rough count for providers that report none: ~1 token per CJK char, ~4 chars per token otherwise."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return cjk + max(0, len(text) - cjk) // 4
