"""A local, protocol-faithful fake of the model providers' HTTP APIs, for provider conformance tests.

`ProviderAPI` runs one real HTTP server per provider on 127.0.0.1 (ephemeral ports, stdlib
`ThreadingHTTPServer` in background threads), so each provider keeps its own URL layout at the root like the
real hosts do. Point litellm at a profile with `api_base`:

- OpenAI: `api.openai_base` = http://127.0.0.1:P/v1 — POST /v1/chat/completions, POST /v1/images/generations,
  GET /v1/models, GET /files/<id>.png (the images' URLs, no auth)
- DeepSeek: `api.deepseek_base` = http://127.0.0.1:P (`api.deepseek_v1_base` = …/v1) — POST /chat/completions,
  /v1/chat/completions and /beta/chat/completions (litellm's default base is …/beta); GET /models, /v1/models
- DashScope, OpenAI-compatible mode: `api.dashscope_compat_base` = http://127.0.0.1:P/compatible-mode/v1 —
  POST /compatible-mode/v1/chat/completions, GET /compatible-mode/v1/models
- Ollama: `api.ollama_base` = http://127.0.0.1:P — POST /api/chat (NDJSON stream by default), POST /api/show,
  GET /api/tags, GET /api/version, GET / ("Ollama is running")

Request and response shapes follow the providers' references:

- OpenAI Chat Completions — https://platform.openai.com/docs/api-reference/chat/create , the chat object
  https://platform.openai.com/docs/api-reference/chat/object , streaming chunks
  https://platform.openai.com/docs/api-reference/chat-streaming (`stream_options.include_usage` adds a last
  chunk with `choices: []` and the usage; every chunk before it has `usage: null`), structured outputs
  https://platform.openai.com/docs/guides/structured-outputs , function calling
  https://platform.openai.com/docs/guides/function-calling , errors
  https://platform.openai.com/docs/guides/error-codes . Unknown parameters: 400 "Unknown parameter: 'x'."
  (code unknown_parameter). Reasoning models (o4-mini) take `max_completion_tokens` only ("Unsupported
  parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.") and
  temperature 1 only.
- OpenAI web search in chat completions —
  https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat : `gpt-4o(-mini)-search-preview` take
  `web_search_options` and answer with `message.annotations` of type `url_citation`; they reject sampling
  parameters with 400 "Model incompatible request argument(s) supplied: frequency_penalty, presence_penalty,
  temperature, top_p" (reported verbatim in https://github.com/ChatGPTNextWeb/NextChat/issues/6569 and
  https://github.com/raycast/extensions/issues/18304); other chat models answer `web_search_options` with
  "Web search options not supported with this model." (https://github.com/cpbotha/obsidian-ai-chat-as-md/issues/5).
- OpenAI Images — https://platform.openai.com/docs/api-reference/images/create : dall-e-3 sizes
  1024x1024/1792x1024/1024x1792, n=1 only, `response_format` url (default) | b64_json, answers carry
  `revised_prompt`; dall-e-2 sizes 256x256/512x512/1024x1024; gpt-image-1 sizes 1024x1024/1024x1536/
  1536x1024/auto, always base64 — and it REJECTS `response_format` with 400 "Unknown parameter:
  'response_format'." (param response_format, code unknown_parameter; https://github.com/vercel/ai/issues/6102
  , https://github.com/lofcz/LLMTornado/issues/155). Its answer adds `background`, `output_format`,
  `quality`, `size` and token `usage`.
- DeepSeek — https://api-docs.deepseek.com/api/create-chat-completion , JSON output
  https://api-docs.deepseek.com/guides/json_mode , errors
  https://api-docs.deepseek.com/quick_start/error_codes , context caching
  https://api-docs.deepseek.com/guides/kv_cache (usage `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`,
  64-token units), reasoner https://api-docs.deepseek.com/guides/reasoning_model . `response_format` text |
  json_object only: json_schema gets 400 {"error": {"message": "This response_format type is unavailable
  now", "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}}
  (https://github.com/bytedance/deer-flow/issues/545). max_tokens outside [1, 8192] (deepseek-chat) is 400
  "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]". deepseek-reasoner rejects
  logprobs / top_logprobs and answers with `reasoning_content`.
- DashScope OpenAI-compatible mode —
  https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope ,
  https://docs.qwencloud.com/api-reference/chat/openai-chat , structured output
  https://www.alibabacloud.com/help/en/model-studio/qwen-structured-output : `response_format` text and
  json_object for most Qwen models — json_object needs the word "json" in the messages, else 400 "<400>
  InternalError.Algo.InvalidParameter: 'messages' must contain the word 'json' in some form, to use
  'response_format' of type 'json_object'." — and json_schema only for the qwen-plus / qwen-flash /
  qwen3-max families (`DASHSCOPE_JSON_SCHEMA_MODELS`; the refusal's wording for other models is the fake's).
  `enable_thinking: true` on a non-streaming call is 400 "parameter.enable_thinking must be set to false for
  non-streaming calls" (https://github.com/codexu/note-gen/issues/372). Errors carry `id` and `request_id`
  beside `error` (https://github.com/agno-agi/agno/pull/5317). `max_completion_tokens` is no DashScope
  parameter.
- Ollama — https://github.com/ollama/ollama/blob/main/docs/api.md : `POST /api/chat` streams NDJSON unless
  `stream: false`; `format` is "json" or a JSON schema object (else 400 {"error": "invalid format: expected
  \\"json\\" or a valid JSON schema"}); `options.num_predict` caps the answer (`done_reason: "length"`);
  usage is `prompt_eval_count` / `eval_count`; errors are {"error": "<text>"}; an unknown model is 404
  "model \\"x\\" not found, try pulling it first". litellm's `ollama_chat/` provider calls `/api/chat` and,
  for model info, `POST /api/show` with {"name": model} (`litellm/llms/ollama/common_utils.py`); `/api/tags`
  lists models.

Deliberate strictness: every profile answers an unknown top-level parameter (and, for Ollama, an unknown
`options` key) with 400 in that provider's error shape. The OpenAI wording is the real one; DashScope,
DeepSeek and Ollama really ignore unknown fields (Ollama logs "invalid option provided"), so their wording
here is the fake's own. `ProviderAPI(strict=False)` or `strict={"openai"}` turns that off per provider.

Content: answers come from the studio's offline model (`tools.offline.provider.answer_structured` /
`answer_text`), so the studio's real prompts get valid answers. The task is, in order: the `X-Studio-Task`
request header (litellm sends it only via `extra_headers`), the `json_schema.name` or the called function's
name, the schema `title` mapped by `TASK_BY_TITLE` (the studio's output models: `Brief` → brief, `Draft` →
writer, …), else "answer". For json_object / Ollama `format: "json"` the schema is read from the prompt,
after "严格符合以下 JSON Schema：" (fallback {"type": "object"}). With `tools` (and `tool_choice` not
"none") the fake calls the chosen function — the named one, else the first — unless the last message is a
tool result, which gets a text answer. OpenAI reports `finish_reason: "stop"` when `tool_choice` named the
function, "tool_calls" otherwise. `max_tokens` / `max_completion_tokens` / `num_predict` are honoured: a
longer answer is cut (tokens estimated as 1 per CJK character, 1 per 4 other characters) and ends with
finish_reason / done_reason "length"; `stop` sequences end it early.

Faults: `api.fault(kind, times=1, provider=None, route=None, model=None, **params)` queues a fault for the
next matching request(s) (`times=None`: until `clear_faults()`); a request takes at most one transport and
one content fault, the first queued first:

- "429" (`retry_after` seconds → `Retry-After` header), "500", "503", "502_html" (an HTML 502 page), "401"
- "stall" (`seconds`, default 30: hold the connection that long before answering, or, streaming, after
  `after_chunks` chunks), "disconnect" (close the connection without a response)
- "json_schema_refused" (400 like DeepSeek's, for a json_schema request only; other requests pass)
- content faults, chat routes only: "truncated" (`tokens`: the answer is cut there, default half, finish
  "length"), "fenced" (the answer wrapped in ```json fences), "schema_invalid" (valid JSON without the
  schema's first required field)

`route` is a route name ("chat", "images", "models", "files", "show", "tags", "version") or a path (exact,
or its ending); without one a fault hits chat and image requests only, never litellm's side requests such as
`/api/show`. Every request is recorded in `api.requests` (`RecordedRequest`: provider, method, path,
headers with lower-case names, parsed JSON body, raw body, `time` (wall clock) and `monotonic`, the
answer's status — None while unanswered (a stall), 0 when dropped ("disconnect") — and the fault applied);
`api.calls(provider, route=..., model=...)` filters them. Accepted keys per provider are `api.keys` (defaults
`DEFAULT_KEYS`; Ollama takes none unless given some). A failure of the fake itself is a 500 and a line in
`api.errors`.

What litellm 1.110 puts on the wire (checked against this fake, tests/tools/test_provider_api.py):
`max_tokens` goes through as `max_tokens` (OpenAI, DeepSeek, DashScope) and as `options.num_predict`
(ollama_chat); `max_completion_tokens` goes through unchanged to DeepSeek and DashScope, which do not
document it; `metadata` stays in litellm. DeepSeek gets `response_format` json_schema as is (litellm's model
map claims `supports_response_schema`). ollama_chat turns json_schema into `format: <schema>`, json_object
into `format: "json"`, always sends `stream`, drops `tool_choice`, and asks `/api/show` around calls (model
info, cost). Image calls: a bare `dall-e-3` is no litellm model (use `openai/dall-e-3`); with
`litellm.drop_params` litellm drops `response_format` (and dall-e-3's `style`) from image requests, so
dall-e-3 answers URLs; without `max_retries=0` the OpenAI SDK retries a failed image call twice.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import math
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from tools.offline.provider import answer_structured, answer_text
from tools.offline.schema import generate

PROVIDERS: tuple[str, ...] = ("openai", "deepseek", "dashscope", "ollama")
DEFAULT_KEYS: dict[str, frozenset[str]] = {
    "openai": frozenset({"sk-test-openai"}),
    "deepseek": frozenset({"sk-test-deepseek"}),
    "dashscope": frozenset({"sk-test-dashscope"}),
    "ollama": frozenset(),
}
SCHEMA_MARKER = "严格符合以下 JSON Schema："
TASK_HEADER = "x-studio-task"
# `Model.model_json_schema()["title"]` of the studio's output models (agents/artifacts.py) → the task name the
# studio gives that call (tools/offline/provider.py COMPOSERS); the supervisor's model is built at call time
# as "SupervisorChoice".
TASK_BY_TITLE: dict[str, str] = {
    "IntentOutput": "intent",
    "Brief": "brief",
    "EvidenceSummaryOutput": "evidence",
    "Draft": "writer",
    "ReferenceInsightOutput": "reference",
    "LayoutSpec": "layout",
    "ImagePlanOutput": "image_plan",
    "ReviewOutput": "review",
    "SupervisorChoice": "supervisor",
    "SupervisorChoiceOutput": "supervisor",
}
TRANSPORT_FAULTS = frozenset(
    {"429", "500", "503", "502_html", "401", "stall", "disconnect", "json_schema_refused"}
)
CONTENT_FAULTS = frozenset({"truncated", "fenced", "schema_invalid"})
FAULT_KINDS = TRANSPORT_FAULTS | CONTENT_FAULTS
MODEL_ROUTES = frozenset({"chat", "images"})  # what a fault without `route` applies to


# --- model catalogue --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChatModel:
    """What the fake knows of one chat model."""

    name: str
    snapshot: str  # the `model` of its answers
    max_output: int
    json_schema: bool = True  # accepts response_format json_schema
    search: bool = False  # web search model: web_search_options, annotations, no sampling parameters
    reasoning: bool = False  # OpenAI reasoning model: max_completion_tokens only, temperature 1 only
    thinks: bool = False  # answers with reasoning_content (deepseek-reasoner)


OPENAI_CHAT_MODELS: dict[str, ChatModel] = {
    m.name: m
    for m in (
        ChatModel("gpt-4o-mini", "gpt-4o-mini-2024-07-18", 16384),
        ChatModel("gpt-4o", "gpt-4o-2024-08-06", 16384),
        ChatModel("gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", 32768),
        ChatModel("gpt-4o-search-preview", "gpt-4o-search-preview-2025-03-11", 16384, search=True),
        ChatModel("gpt-4o-mini-search-preview", "gpt-4o-mini-search-preview-2025-03-11", 16384, search=True),
        ChatModel("o4-mini", "o4-mini-2025-04-16", 100000, reasoning=True),
    )
}
DEEPSEEK_MODELS: dict[str, ChatModel] = {
    m.name: m
    for m in (
        ChatModel("deepseek-chat", "deepseek-chat", 8192, json_schema=False),
        ChatModel("deepseek-reasoner", "deepseek-reasoner", 65536, json_schema=False, thinks=True),
    )
}
DASHSCOPE_JSON_SCHEMA_MODELS = frozenset(
    {"qwen-plus", "qwen-plus-latest", "qwen-flash", "qwen3-max", "qwen3.5-plus", "qwen3.5-flash"}
)
DASHSCOPE_MODELS: dict[str, ChatModel] = {
    name: ChatModel(name, name, 32768, json_schema=name in DASHSCOPE_JSON_SCHEMA_MODELS)
    for name in (
        "qwen-plus",
        "qwen-plus-latest",
        "qwen-flash",
        "qwen3-max",
        "qwen3.5-plus",
        "qwen3.5-flash",
        "qwen-max",
        "qwen-turbo",
        "qwen2.5-7b-instruct",
    )
}
OLLAMA_MODELS: dict[str, dict[str, Any]] = {
    "qwen2.5:7b": {"family": "qwen2", "parameter_size": "7.6B", "context": 32768, "size": 4683087332},
    "llama3.1:8b": {"family": "llama", "parameter_size": "8.0B", "context": 131072, "size": 4920753328},
}
IMAGE_SIZES: dict[str, tuple[str, ...]] = {
    "dall-e-2": ("256x256", "512x512", "1024x1024"),
    "dall-e-3": ("1024x1024", "1792x1024", "1024x1792"),
    "gpt-image-1": ("1024x1024", "1024x1536", "1536x1024", "auto"),
}
IMAGE_PARAMS: dict[str, frozenset[str]] = {
    "dall-e-2": frozenset({"prompt", "model", "n", "size", "response_format", "user"}),
    "dall-e-3": frozenset({"prompt", "model", "n", "quality", "response_format", "size", "style", "user"}),
    "gpt-image-1": frozenset(
        {
            "prompt",
            "model",
            "n",
            "size",
            "quality",
            "background",
            "moderation",
            "output_format",
            "output_compression",
            "user",
        }
    ),
}
IMAGE_PROMPT_MAX = {"dall-e-2": 1000, "dall-e-3": 4000, "gpt-image-1": 32000}


def _names(*parts: str) -> frozenset[str]:
    return frozenset(" ".join(parts).split())


# Top-level chat parameters each provider documents (see the module docstring's references).
OPENAI_CHAT_PARAMS = _names(
    "model messages audio frequency_penalty function_call functions logit_bias logprobs ",
    "max_completion_tokens max_tokens metadata modalities n parallel_tool_calls prediction ",
    "presence_penalty prompt_cache_key prompt_cache_retention reasoning_effort response_format ",
    "safety_identifier seed service_tier stop store stream stream_options temperature tool_choice ",
    "tools top_logprobs top_p user verbosity web_search_options",
)
DEEPSEEK_CHAT_PARAMS = _names(
    "model messages thinking reasoning_effort frequency_penalty max_tokens presence_penalty ",
    "response_format stop stream stream_options temperature top_p tools tool_choice logprobs ",
    "top_logprobs",
)
DASHSCOPE_CHAT_PARAMS = _names(
    "model messages stream stream_options modalities audio temperature top_p top_k presence_penalty ",
    "frequency_penalty repetition_penalty response_format max_tokens n enable_thinking ",
    "thinking_budget seed logprobs top_logprobs stop tools tool_choice parallel_tool_calls ",
    "enable_search search_options translation_options vl_high_resolution_images ",
    "enable_code_interpreter user",
)
CHAT_PARAMS = {
    "openai": OPENAI_CHAT_PARAMS,
    "deepseek": DEEPSEEK_CHAT_PARAMS,
    "dashscope": DASHSCOPE_CHAT_PARAMS,
}
OLLAMA_CHAT_PARAMS = frozenset(
    {"model", "messages", "tools", "format", "options", "stream", "keep_alive", "think"}
)
OLLAMA_OPTIONS = _names(
    "num_keep seed num_predict top_k top_p min_p typical_p repeat_last_n temperature repeat_penalty ",
    "presence_penalty frequency_penalty penalize_newline stop numa num_ctx num_batch num_gpu main_gpu ",
    "use_mmap num_thread mirostat mirostat_tau mirostat_eta tfs_z num_gqa",
)
SEARCH_INCOMPATIBLE = ("frequency_penalty", "presence_penalty", "temperature", "top_p")
MESSAGE_ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_SERVER_HEADER = {"openai": "cloudflare", "deepseek": "elb", "dashscope": "istio-envoy", "ollama": ""}
_HTML_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
)


# --- records and faults -----------------------------------------------------------------------------------
@dataclass
class RecordedRequest:
    """One request as the fake received it, and what it answered."""

    provider: str
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any
    raw: bytes = field(repr=False)
    time: float
    monotonic: float
    route: str = ""
    status: int | None = None
    fault: str | None = None

    @property
    def api_key(self) -> str | None:
        """The bearer token of the `Authorization` header, if any."""
        auth = self.headers.get("authorization", "")
        return auth[7:].strip() if auth.lower().startswith("bearer ") else None

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None


@dataclass
class Fault:
    """A scripted fault; `times=None` keeps it until `ProviderAPI.clear_faults()`."""

    kind: str
    times: int | None = 1
    provider: str | None = None
    route: str | None = None
    model: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    hits: int = 0

    def matches(self, provider: str, route: str, path: str, model: str | None) -> bool:
        if self.provider is not None and self.provider != provider:
            return False
        if self.route is None:  # unscoped: the model calls, not litellm's side requests (/api/show, files)
            if route not in MODEL_ROUTES:
                return False
        elif self.route not in (route, path) and not path.endswith(self.route):
            return False
        return self.model is None or self.model == model

    @property
    def spent(self) -> bool:
        return self.times is not None and self.hits >= self.times


class ApiError(Exception):
    """An error answer: status, body and headers, in the provider's shape."""

    def __init__(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"HTTP {status}: {body[:200]!r}")
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = dict(headers or {})


_DEFAULT_ERRORS: dict[str, dict[int, tuple[str, str | None]]] = {
    # status → (type, code) when the caller gives none
    "openai": {
        400: ("invalid_request_error", None),
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "model_not_found"),
        429: ("requests", "rate_limit_exceeded"),
        500: ("server_error", None),
        503: ("server_error", None),
    },
    "deepseek": {
        400: ("invalid_request_error", "invalid_request_error"),
        401: ("authentication_error", "invalid_request_error"),
        404: ("invalid_request_error", "invalid_request_error"),
        429: ("rate_limit_error", "rate_limit_reached"),
        500: ("api_error", "server_error"),
        503: ("api_error", "server_overloaded"),
    },
    "dashscope": {
        400: ("invalid_request_error", "invalid_parameter_error"),
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "model_not_found"),
        429: ("limit_requests", "limit_requests"),
        500: ("internal_error", "internal_error"),
        503: ("internal_error", "ServiceUnavailable"),
    },
}
_FAULT_MESSAGES: dict[str, dict[int, str]] = {
    "openai": {
        429: "Rate limit reached for requests. Please try again in {retry}s. "
        "Visit https://platform.openai.com/account/rate-limits to learn more.",
        500: "The server had an error while processing your request. Sorry about that!",
        503: "The engine is currently overloaded, please try again later.",
    },
    "deepseek": {
        429: "Rate Limit Reached",
        500: "Server Error",
        503: "Server Overloaded",
    },
    "dashscope": {
        429: "Requests rate limit exceeded, please try again later.",
        500: "An internal error has occured, please try again later or contact service support.",
        503: "Service is temporarily unavailable, please try again later.",
    },
    "ollama": {
        429: "rate limit exceeded",
        500: "an unexpected error occurred",
        503: "server busy, please try again.  maximum pending requests exceeded",
    },
}


def api_error(
    provider: str,
    status: int,
    message: str,
    *,
    type_: str | None = None,
    param: str | None = None,
    code: str | bool | None = False,
    headers: Mapping[str, str] | None = None,
) -> ApiError:
    """An error in `provider`'s JSON shape. `code=False` takes the provider's default code for the status."""
    if provider == "ollama":
        return ApiError(status, _dumps({"error": message}), "application/json; charset=utf-8", headers)
    default_type, default_code = _DEFAULT_ERRORS[provider].get(status, ("invalid_request_error", None))
    error = {
        "message": message,
        "type": type_ or default_type,
        "param": param,
        "code": default_code if code is False else code,
    }
    body: dict[str, Any] = {"error": error}
    if provider == "dashscope":
        request_id = str(uuid.uuid4())
        body = {"error": error, "id": f"chatcmpl-{request_id}", "request_id": request_id}
    return ApiError(status, _dumps(body), "application/json", headers)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


# --- tokens -----------------------------------------------------------------------------------------------
def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"


def estimate_tokens(text: str) -> int:
    """~1 token per CJK character, ~1 per 4 other characters."""
    cjk = sum(1 for ch in text if _is_cjk(ch))
    return cjk + math.ceil((len(text) - cjk) / 4)


def cut_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` whose estimate stays within `limit` tokens."""
    used = 0.0
    for i, ch in enumerate(text):
        used += 1.0 if _is_cjk(ch) else 0.25
        if used > limit:
            return text[:i]
    return text


def _text_of(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") in ("text", None)
        )
    return "" if content is None else str(content)


def _prompt_tokens(messages: list[dict[str, Any]], extra: Any = None) -> int:
    tokens = 3 + sum(4 + estimate_tokens(_text_of(m)) for m in messages)
    if extra:
        tokens += estimate_tokens(json.dumps(extra, ensure_ascii=False))
    return tokens


# --- pictures ---------------------------------------------------------------------------------------------
def draw_png(width: int, height: int, seed: str, fmt: str = "png") -> bytes:
    """A deterministic picture without text: a diagonal two-colour gradient with a few soft shapes."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    top = np.array(list(digest[0:3]), dtype=np.float32)
    bottom = np.array(list(digest[3:6]), dtype=np.float32)
    ys = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None]
    xs = np.linspace(0.0, 1.0, width, dtype=np.float32)[None, :]
    t = (ys * 0.7 + xs * 0.3)[..., None]
    pixels = (top * (1 - t) + bottom * t).clip(0, 255).astype(np.uint8)
    image = Image.fromarray(pixels, "RGB")
    draw = ImageDraw.Draw(image)
    for i in range(4):
        b = digest[6 + i * 5 : 11 + i * 5]
        cx, cy = b[0] / 255 * width, b[1] / 255 * height
        r = (0.08 + b[2] / 255 * 0.22) * min(width, height)
        colour = (b[3], b[4], (b[3] + b[4]) % 256)
        box = (cx - r, cy - r, cx + r, cy + r)
        if i % 2:
            draw.rectangle(box, fill=colour)
        else:
            draw.ellipse(box, fill=colour)
    out = io.BytesIO()
    if fmt == "png":
        image.save(out, format="PNG", compress_level=1)
    else:
        image.save(out, format="JPEG" if fmt == "jpeg" else "WEBP", quality=80)
    return out.getvalue()


# --- the HTTP layer ---------------------------------------------------------------------------------------
class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, api: ProviderAPI, provider: str) -> None:
        self.api = api
        self.provider = provider
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def version_string(self) -> str:
        return _SERVER_HEADER.get(self.server.provider, "") or "ollama"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.api._dispatch(self, self.server.provider)

    def do_POST(self) -> None:
        self.server.api._dispatch(self, self.server.provider)

    def do_HEAD(self) -> None:
        self.server.api._dispatch(self, self.server.provider)

    def do_DELETE(self) -> None:
        self.server.api._dispatch(self, self.server.provider)


class _Exchange:
    """One request being answered: the handler, its record, and writers that tolerate a vanished client."""

    def __init__(self, handler: _Handler, record: RecordedRequest, api: ProviderAPI) -> None:
        self.handler = handler
        self.record = record
        self.api = api
        self.fault: Fault | None = None
        self.alive = True
        self.streaming = False

    @property
    def provider(self) -> str:
        return self.record.provider

    def header(self, name: str) -> str | None:
        return self.record.headers.get(name.lower())

    def _headers(self, status: int, content_type: str, extra: Mapping[str, str] | None) -> None:
        h = self.handler
        self.record.status = status
        h.send_response(status)
        h.send_header("Content-Type", content_type)
        request_id = uuid.uuid4().hex
        if self.provider == "openai":
            h.send_header("x-request-id", f"req_{request_id}")
            h.send_header("openai-version", "2020-10-01")
            h.send_header("openai-processing-ms", "42")
        elif self.provider == "deepseek":
            h.send_header("x-ds-trace-id", request_id)
        elif self.provider == "dashscope":
            h.send_header("x-request-id", str(uuid.UUID(request_id)))
        for name, value in (extra or {}).items():
            h.send_header(name, value)

    def send(
        self, status: int, body: bytes, content_type: str, headers: Mapping[str, str] | None = None
    ) -> None:
        try:
            self._headers(status, content_type, headers)
            self.handler.send_header("Content-Length", str(len(body)))
            self.handler.end_headers()
            if self.handler.command != "HEAD":
                self.handler.wfile.write(body)
            self.handler.wfile.flush()
        except OSError:
            self.alive = False
            self.handler.close_connection = True

    def send_json(self, value: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> None:
        ctype = "application/json; charset=utf-8" if self.provider == "ollama" else "application/json"
        self.send(status, _dumps(value), ctype, headers)

    def send_error(self, error: ApiError) -> None:
        self.send(error.status, error.body, error.content_type, error.headers)

    def start_stream(self, content_type: str) -> None:
        self.streaming = True
        try:
            self._headers(200, content_type, {"Cache-Control": "no-cache", "Transfer-Encoding": "chunked"})
            self.handler.end_headers()
            self.handler.wfile.flush()
        except OSError:
            self.alive = False
            self.handler.close_connection = True

    def write_chunk(self, data: bytes) -> None:
        if not self.alive or not data:
            return
        try:
            self.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.handler.wfile.flush()
        except OSError:
            self.alive = False
            self.handler.close_connection = True

    def end_stream(self) -> None:
        if not self.alive:
            return
        try:
            self.handler.wfile.write(b"0\r\n\r\n")
            self.handler.wfile.flush()
        except OSError:
            self.alive = False
            self.handler.close_connection = True


@dataclass
class _Answer:
    """What a chat request is answered with, before it is put in a provider's shape."""

    kind: str  # "text" | "json" | "tool"
    task: str
    text: str  # the content, or the tool call's arguments
    finish: str = "stop"
    tool_name: str | None = None
    reasoning: str | None = None
    annotations: list[dict[str, Any]] = field(default_factory=list)


# --- the fake ---------------------------------------------------------------------------------------------
class ProviderAPI:
    """The fake providers; see the module docstring. Use as a context manager or `start()` / `stop()`."""

    def __init__(
        self,
        *,
        keys: Mapping[str, Iterable[str]] | None = None,
        strict: bool | Collection[str] = True,
        chunk_chars: int = 6,
        chunk_delay_s: float = 0.0,
        ollama_models: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.keys: dict[str, set[str]] = {p: set(DEFAULT_KEYS[p]) for p in PROVIDERS}
        for provider, accepted in (keys or {}).items():
            self.keys[provider] = set(accepted)
        if isinstance(strict, bool):
            self.strict: set[str] = set(PROVIDERS) if strict else set()
        else:
            self.strict = set(strict)
        self.chunk_chars = max(1, chunk_chars)
        self.chunk_delay_s = chunk_delay_s
        self.chat_models: dict[str, dict[str, ChatModel]] = {
            "openai": dict(OPENAI_CHAT_MODELS),
            "deepseek": dict(DEEPSEEK_MODELS),
            "dashscope": dict(DASHSCOPE_MODELS),
        }
        self.ollama_models: dict[str, dict[str, Any]] = {
            k: dict(v) for k, v in (ollama_models or OLLAMA_MODELS).items()
        }
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []  # the fake's own failures: composers papered over, handler bugs (500)
        self.files: dict[str, bytes] = {}
        self._faults: list[Fault] = []
        self._prefixes: dict[str, set[str]] = {p: set() for p in PROVIDERS}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._servers: dict[str, _Server] = {}
        self._threads: list[threading.Thread] = []

    # --- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> ProviderAPI:
        if self._servers:
            return self
        self._closing.clear()
        for provider in PROVIDERS:
            server = _Server(self, provider)
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"provider-api-{provider}",
                daemon=True,
            )
            thread.start()
            self._servers[provider] = server
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop serving: stalled answers are released, open connections are closed."""
        self._closing.set()
        servers = list(self._servers.values())
        stoppers = [threading.Thread(target=server.shutdown) for server in servers]  # each waits a poll
        for stopper in stoppers:
            stopper.start()
        for stopper in stoppers:
            stopper.join()
        for server in servers:
            server.drop_connections()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        self._servers.clear()
        self._threads.clear()

    def __enter__(self) -> ProviderAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget requests, faults, files and cache state (keys and models stay)."""
        with self._lock:
            self.requests.clear()
            self.errors.clear()
            self.files.clear()
            self._faults.clear()
            for prefixes in self._prefixes.values():
                prefixes.clear()

    # --- addresses -----------------------------------------------------------------------------------------
    def port(self, provider: str) -> int:
        return int(self._servers[provider].server_address[1])

    def origin(self, provider: str) -> str:
        return f"http://127.0.0.1:{self.port(provider)}"

    @property
    def openai_base(self) -> str:
        return f"{self.origin('openai')}/v1"

    @property
    def deepseek_base(self) -> str:
        return self.origin("deepseek")

    @property
    def deepseek_v1_base(self) -> str:
        return f"{self.origin('deepseek')}/v1"

    @property
    def dashscope_compat_base(self) -> str:
        return f"{self.origin('dashscope')}/compatible-mode/v1"

    @property
    def ollama_base(self) -> str:
        return self.origin("ollama")

    def key(self, provider: str) -> str:
        """One accepted key of `provider` (raises for a provider without keys)."""
        return sorted(self.keys[provider])[0]

    # --- faults and records --------------------------------------------------------------------------------
    def fault(
        self,
        kind: str,
        *,
        times: int | None = 1,
        provider: str | None = None,
        route: str | None = None,
        model: str | None = None,
        **params: Any,
    ) -> Fault:
        """Queue a fault for the next `times` matching requests; see the module docstring for the kinds."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; known: {sorted(FAULT_KINDS)}")
        if provider is not None and provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r}")
        item = Fault(kind, times, provider, route, model, dict(params))
        with self._lock:
            self._faults.append(item)
        return item

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def calls(
        self,
        provider: str | None = None,
        *,
        route: str | None = None,
        path: str | None = None,
        model: str | None = None,
        method: str | None = None,
    ) -> list[RecordedRequest]:
        """The recorded requests matching every given filter, in arrival order."""
        with self._lock:
            records = list(self.requests)
        return [
            r
            for r in records
            if (provider is None or r.provider == provider)
            and (route is None or r.route == route)
            and (path is None or r.path == path)
            and (model is None or r.model == model)
            and (method is None or r.method == method)
        ]

    def _take_fault(self, exchange: _Exchange, kinds: Collection[str]) -> Fault | None:
        record = exchange.record
        with self._lock:
            for item in self._faults:
                if item.kind in kinds and item.matches(
                    record.provider, record.route, record.path, record.model
                ):
                    item.hits += 1
                    if item.spent:
                        self._faults.remove(item)
                    record.fault = item.kind
                    return item
        return None

    # --- dispatch ------------------------------------------------------------------------------------------
    def _dispatch(self, handler: _Handler, provider: str) -> None:
        path, _, query = handler.path.partition("?")
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        record = RecordedRequest(
            provider=provider,
            method=handler.command,
            path=path,
            query=query,
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
            raw=raw,
            time=time.time(),
            monotonic=time.monotonic(),
        )
        with self._lock:
            self.requests.append(record)
        exchange = _Exchange(handler, record, self)
        try:
            route, action, auth = self._route(provider, handler.command, path)
            record.route = route
            if raw and body is None:
                raise self._bad_json(provider)
            if auth:
                self._check_auth(exchange)
            if self._transport_fault(exchange):
                return
            action(exchange)
        except ApiError as error:
            exchange.send_error(error)
        except Exception as exc:  # a bug of the fake: a loud 500, and the reason in `errors`
            self.errors.append(f"{record.method} {record.path}: {type(exc).__name__}: {exc}")
            if exchange.record.status is None:
                exchange.send_error(
                    api_error(provider, 500, f"fake provider failure: {type(exc).__name__}: {exc}")
                )

    def _route(self, provider: str, method: str, path: str) -> tuple[str, Callable[[_Exchange], None], bool]:
        routes: dict[tuple[str, str], tuple[str, Callable[[_Exchange], None], bool]] = {}
        if provider == "openai":
            routes = {
                ("POST", "/v1/chat/completions"): ("chat", self._chat, True),
                ("POST", "/v1/images/generations"): ("images", self._images, True),
                ("GET", "/v1/models"): ("models", self._models, True),
            }
            if method in ("GET", "HEAD") and path.startswith("/files/"):
                return "files", self._file, False
        elif provider == "deepseek":
            for prefix in ("", "/v1", "/beta"):
                routes[("POST", f"{prefix}/chat/completions")] = ("chat", self._chat, True)
                routes[("GET", f"{prefix}/models")] = ("models", self._models, True)
        elif provider == "dashscope":
            routes = {
                ("POST", "/compatible-mode/v1/chat/completions"): ("chat", self._chat, True),
                ("GET", "/compatible-mode/v1/models"): ("models", self._models, True),
            }
        else:
            routes = {
                ("POST", "/api/chat"): ("chat", self._ollama_chat, True),
                ("POST", "/api/show"): ("show", self._ollama_show, True),
                ("GET", "/api/tags"): ("tags", self._ollama_tags, True),
                ("GET", "/api/version"): ("version", self._ollama_version, False),
                ("GET", "/"): ("root", self._ollama_root, False),
                ("HEAD", "/"): ("root", self._ollama_root, False),
            }
        found = routes.get((method, path))
        if found is not None:
            return found
        return "unknown", self._not_found, False

    def _not_found(self, exchange: _Exchange) -> None:
        record = exchange.record
        if exchange.provider == "ollama":
            exchange.send(404, b"404 page not found", "text/plain")
            return
        message = f"Invalid URL ({record.method} {record.path})"
        exchange.send_error(api_error(exchange.provider, 404, message, code=None))

    def _bad_json(self, provider: str) -> ApiError:
        if provider == "openai":
            return api_error(
                provider,
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
                "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent "
                "was not valid JSON.)",
            )
        if provider == "ollama":
            return api_error(provider, 400, "invalid character in request body")
        return api_error(provider, 400, "Failed to parse the request body as JSON")

    def _check_auth(self, exchange: _Exchange) -> None:
        provider = exchange.provider
        accepted = self.keys[provider]
        if provider == "ollama" and not accepted:
            return
        key = exchange.record.api_key
        if key is not None and key in accepted:
            return
        raise self._auth_error(provider, key)

    @staticmethod
    def _auth_error(provider: str, key: str | None) -> ApiError:
        masked = f"{key[:3]}{'*' * max(0, len(key) - 7)}{key[-4:]}" if key else ""
        if provider == "openai":
            if not key:
                return api_error(
                    provider,
                    401,
                    "You didn't provide an API key. You need to provide your API key in an Authorization "
                    "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password "
                    "field (with blank username) if you're accessing the API from your browser and are "
                    "prompted for a username and password. You can obtain an API key from "
                    "https://platform.openai.com/account/api-keys.",
                    code=None,
                )
            return api_error(
                provider,
                401,
                f"Incorrect API key provided: {masked}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
            )
        if provider == "deepseek":
            return api_error(
                provider, 401, f"Authentication Fails, Your api key: ****{(key or '')[-4:]} is invalid"
            )
        if provider == "dashscope":
            return api_error(provider, 401, "Incorrect API key provided. ")
        return api_error(provider, 401, "unauthorized")

    # --- transport faults ----------------------------------------------------------------------------------
    def _transport_fault(self, exchange: _Exchange) -> bool:
        """Apply a queued transport fault; True when the request has been answered (or dropped) by it."""
        item = self._take_fault(exchange, TRANSPORT_FAULTS - {"json_schema_refused"})
        if item is None:
            return False
        exchange.fault = item
        provider = exchange.provider
        kind = item.kind
        if kind == "stall":
            if item.params.get("after_chunks") is not None and self._wants_stream(exchange):
                return False  # the streaming writer stalls
            self._closing.wait(float(item.params.get("seconds", 30.0)))
            exchange.fault = None
            return False
        if kind == "disconnect":
            exchange.handler.close_connection = True
            exchange.record.status = 0
            return True
        if kind == "502_html":
            exchange.send(502, _HTML_502.encode(), "text/html")
            return True
        if kind == "401":
            exchange.send_error(self._auth_error(provider, exchange.record.api_key or "sk-revoked-key"))
            return True
        status = int(kind)
        headers: dict[str, str] = {}
        retry = item.params.get("retry_after")
        if retry is not None:
            headers["Retry-After"] = f"{retry:g}" if isinstance(retry, float) else str(retry)
            if provider == "openai":
                headers["x-ratelimit-reset-requests"] = f"{retry}s"
        message = _FAULT_MESSAGES[provider][status].format(retry=retry if retry is not None else 1)
        exchange.send_error(api_error(provider, status, message, headers=headers))
        return True

    @staticmethod
    def _wants_stream(exchange: _Exchange) -> bool:
        body = exchange.record.body if isinstance(exchange.record.body, dict) else {}
        if exchange.provider == "ollama":
            return body.get("stream", True) is not False
        return body.get("stream") is True

    def _stream_pause(self, exchange: _Exchange, sent: int) -> None:
        """Between streamed chunks: the configured delay, and a scripted mid-stream stall."""
        item = exchange.fault
        if item is not None and item.kind == "stall" and sent == int(item.params.get("after_chunks") or 0):
            self._closing.wait(float(item.params.get("seconds", 30.0)))
        if self.chunk_delay_s:
            self._closing.wait(self.chunk_delay_s)

    def _pieces(self, text: str) -> list[str]:
        n = self.chunk_chars
        return [text[i : i + n] for i in range(0, len(text), n)] or [""]

    # --- chat: the OpenAI-compatible profiles ---------------------------------------------------------------
    def _chat(self, exchange: _Exchange) -> None:
        provider = exchange.provider
        body = exchange.record.body
        if not isinstance(body, dict):
            raise self._bad_json(provider)
        self._refuse_json_schema(exchange, body)
        model = self._validate_chat(provider, body)
        answer = self._compose(exchange, body, model)
        if body.get("stream"):
            self._stream_chat(exchange, body, model, answer)
        else:
            exchange.send_json(self._completion(exchange, body, model, answer))

    def _refuse_json_schema(self, exchange: _Exchange, body: dict[str, Any]) -> None:
        """The "json_schema_refused" fault: a JSON-schema request is answered like DeepSeek answers it."""
        fmt = body.get("format") if exchange.provider == "ollama" else body.get("response_format")
        wants_schema = isinstance(fmt, dict) and (
            exchange.provider == "ollama" or fmt.get("type") == "json_schema"
        )
        if wants_schema and self._take_fault(exchange, {"json_schema_refused"}):
            raise api_error(exchange.provider, 400, "This response_format type is unavailable now")

    def _unknown_param(self, provider: str, name: str) -> ApiError:
        if provider == "openai":
            return api_error(
                provider, 400, f"Unknown parameter: '{name}'.", param=name, code="unknown_parameter"
            )
        if provider == "dashscope":
            return api_error(
                provider, 400, f"<400> InternalError.Algo.InvalidParameter: Unknown parameter: '{name}'"
            )
        return api_error(provider, 400, f"Unknown parameter: '{name}'")

    def _validate_chat(self, provider: str, body: dict[str, Any]) -> ChatModel:
        """Reject what the provider rejects; the model being answered."""
        if provider in self.strict:
            for param in body:
                if param not in CHAT_PARAMS[provider]:
                    raise self._unknown_param(provider, param)
        name = body.get("model")
        if not name:
            if provider == "openai":
                raise api_error(provider, 400, "you must provide a model parameter")
            raise api_error(provider, 400, "Missing required parameter: 'model'")
        model = self.chat_models[provider].get(str(name))
        if model is None:
            if provider == "deepseek":
                names = " or ".join(self.chat_models["deepseek"])
                raise api_error(
                    provider, 400, f"The supported API model names are {names}, but you passed {name}."
                )
            raise api_error(
                provider, 404, f"The model `{name}` does not exist or you do not have access to it."
            )
        messages = body.get("messages")
        if messages is None:
            raise api_error(
                provider,
                400,
                "Missing required parameter: 'messages'.",
                param="messages",
                code="missing_required_parameter" if provider == "openai" else False,
            )
        if not isinstance(messages, list) or not messages:
            raise api_error(
                provider,
                400,
                "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty "
                "array instead.",
                param="messages",
                code="empty_array" if provider == "openai" else False,
            )
        for i, message in enumerate(messages):
            role = message.get("role") if isinstance(message, dict) else None
            if role not in MESSAGE_ROLES:
                supported = ", ".join(f"'{r}'" for r in MESSAGE_ROLES[:-1]) + f", and '{MESSAGE_ROLES[-1]}'"
                raise api_error(
                    provider,
                    400,
                    f"Invalid value: '{role}'. Supported values are: {supported}.",
                    param=f"messages[{i}].role",
                    code="invalid_value" if provider == "openai" else False,
                )
        self._validate_limits(provider, body, model)
        self._validate_format(provider, body, model, messages)
        self._validate_tools(provider, body)
        if body.get("stream_options") is not None and not body.get("stream"):
            raise api_error(
                provider,
                400,
                "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                param="stream_options",
                code="invalid_value" if provider == "openai" else False,
            )
        if provider == "openai":
            self._validate_openai_model_rules(body, model)
        if provider == "deepseek" and model.thinks:
            for name in ("logprobs", "top_logprobs"):
                if name in body:
                    raise api_error(
                        provider, 400, f"deepseek-reasoner does not support the parameter `{name}`"
                    )
        if provider == "dashscope" and body.get("enable_thinking") is True and not body.get("stream"):
            raise api_error(
                provider, 400, "parameter.enable_thinking must be set to false for non-streaming calls"
            )
        return model

    def _validate_limits(self, provider: str, body: dict[str, Any], model: ChatModel) -> None:
        for name in ("max_tokens", "max_completion_tokens"):
            value = body.get(name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1 or value > model.max_output:
                if provider == "deepseek":
                    raise api_error(
                        provider,
                        400,
                        f"Invalid max_tokens value, the valid range of max_tokens is [1, {model.max_output}]",
                    )
                if provider == "openai" and isinstance(value, int) and value > model.max_output:
                    raise api_error(
                        provider,
                        400,
                        f"{name} is too large: {value}. This model supports at most {model.max_output} "
                        f"completion tokens, whereas you provided {value}.",
                        param=name,
                        code="invalid_value",
                    )
                raise api_error(
                    provider,
                    400,
                    f"Invalid '{name}': integer below minimum value. Expected a value >= 1, but got {value} "
                    "instead."
                    if isinstance(value, int)
                    else f"Invalid type for '{name}': expected an integer.",
                    param=name,
                    code="invalid_value" if provider == "openai" else False,
                )

    def _validate_format(
        self, provider: str, body: dict[str, Any], model: ChatModel, messages: list[dict[str, Any]]
    ) -> None:
        fmt = body.get("response_format")
        if fmt is None:
            return
        kind = fmt.get("type") if isinstance(fmt, dict) else None
        allowed = ("json_object", "json_schema", "text")
        if kind not in allowed:
            raise api_error(
                provider,
                400,
                f"Invalid value: '{kind}'. Supported values are: 'json_object', 'json_schema', and 'text'.",
                param="response_format.type",
                code="invalid_value" if provider == "openai" else False,
            )
        if kind == "json_schema":
            if provider == "deepseek" or not model.json_schema:
                if provider == "dashscope":
                    raise api_error(
                        provider,
                        400,
                        "<400> InternalError.Algo.InvalidParameter: The response_format type 'json_schema' "
                        f"is not supported by model {model.name}",
                    )
                raise api_error(provider, 400, "This response_format type is unavailable now")
            spec = fmt.get("json_schema")
            if not isinstance(spec, dict):
                raise api_error(
                    provider,
                    400,
                    "Missing required parameter: 'response_format.json_schema'.",
                    param="response_format.json_schema",
                    code="missing_required_parameter" if provider == "openai" else False,
                )
            name = spec.get("name")
            if not isinstance(name, str):
                raise api_error(
                    provider,
                    400,
                    "Missing required parameter: 'response_format.json_schema.name'.",
                    param="response_format.json_schema.name",
                    code="missing_required_parameter" if provider == "openai" else False,
                )
            if not _NAME.match(name):
                raise api_error(
                    provider,
                    400,
                    "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a "
                    "string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                    param="response_format.json_schema.name",
                    code="invalid_value" if provider == "openai" else False,
                )
        mentions_json = any("json" in _text_of(m).lower() for m in messages)
        if kind == "json_object" and provider in ("openai", "dashscope") and not mentions_json:
            text = (
                "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
                "'json_object'."
            )
            if provider == "dashscope":
                raise api_error(provider, 400, f"<400> InternalError.Algo.InvalidParameter: {text}")
            raise api_error(provider, 400, text, param="messages")

    def _validate_tools(self, provider: str, body: dict[str, Any]) -> None:
        tools = body.get("tools")
        choice = body.get("tool_choice")
        if choice is not None and not tools:
            raise api_error(
                provider,
                400,
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                param="tool_choice",
            )
        if not tools:
            return
        names = []
        for i, tool in enumerate(tools if isinstance(tools, list) else [None]):
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
                raise api_error(
                    provider,
                    400,
                    f"Invalid value for 'tools[{i}]': expected an object with type 'function'.",
                    param=f"tools[{i}]",
                )
            if not _NAME.match(str(function.get("name", ""))):
                raise api_error(
                    provider,
                    400,
                    f"Invalid 'tools[{i}].function.name': string does not match pattern. Expected a string "
                    "that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                    param=f"tools[{i}].function.name",
                )
            names.append(function["name"])
        if isinstance(choice, dict):
            wanted = (choice.get("function") or {}).get("name")
            if wanted not in names:
                raise api_error(
                    provider,
                    400,
                    f"Tool choice '{wanted}' not found in 'tools' parameter.",
                    param="tool_choice",
                )
        elif choice is not None and choice not in ("none", "auto", "required"):
            raise api_error(
                provider,
                400,
                f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.",
                param="tool_choice",
            )

    def _validate_openai_model_rules(self, body: dict[str, Any], model: ChatModel) -> None:
        provider = "openai"
        if model.search:
            bad = [name for name in SEARCH_INCOMPATIBLE if name in body]
            if bad:
                plural = "s" if len(bad) > 1 else ""
                raise api_error(
                    provider,
                    400,
                    f"Model incompatible request argument{plural} supplied: {', '.join(bad)}",
                    code=None,
                )
            options = body.get("web_search_options")
            if options is not None:
                size = options.get("search_context_size") if isinstance(options, dict) else "?"
                if not isinstance(options, dict) or size not in (None, "low", "medium", "high"):
                    raise api_error(
                        provider,
                        400,
                        f"Invalid value: '{size}'. Supported values are: 'low', 'medium', and 'high'.",
                        param="web_search_options.search_context_size",
                        code="invalid_value",
                    )
        elif "web_search_options" in body:
            raise api_error(provider, 400, "Web search options not supported with this model.", code=None)
        if model.reasoning:
            if "max_tokens" in body:
                raise api_error(
                    provider,
                    400,
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                    "'max_completion_tokens' instead.",
                    param="max_tokens",
                    code="unsupported_parameter",
                )
            temperature = body.get("temperature")
            if temperature is not None and temperature != 1:
                raise api_error(
                    provider,
                    400,
                    f"Unsupported value: 'temperature' does not support {temperature} with this model. Only "
                    "the default (1) value is supported.",
                    param="temperature",
                    code="unsupported_value",
                )

    # --- composing answers ---------------------------------------------------------------------------------
    def _compose(self, exchange: _Exchange, body: dict[str, Any], model: ChatModel | None) -> _Answer:
        """The answer to a chat request (any profile), content faults and limits applied."""
        provider = exchange.provider
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        header_task = exchange.header(TASK_HEADER)
        tools = body.get("tools") or []
        choice = body.get("tool_choice")
        last_role = messages[-1].get("role") if messages else None
        fmt = body.get("format") if provider == "ollama" else body.get("response_format")
        if provider == "openai" and model is not None and model.search and not tools:
            answer = self._search_answer(header_task or "web_search", messages)
        elif tools and choice != "none" and last_role != "tool":
            function = tools[0].get("function") or {}
            if isinstance(choice, dict):
                wanted = (choice.get("function") or {}).get("name")
                function = next(
                    (t["function"] for t in tools if (t.get("function") or {}).get("name") == wanted),
                    function,
                )
            name = str(function.get("name") or "call")
            schema = function.get("parameters") or {"type": "object"}
            text = self._structured(header_task or name, messages, schema)
            forced = provider == "openai" and isinstance(choice, dict)
            answer = _Answer("tool", name, text, "stop" if forced else "tool_calls", tool_name=name)
        elif isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            spec = fmt.get("json_schema") or {}
            schema = spec.get("schema") or {"type": "object"}
            task = header_task or str(spec.get("name") or "answer")
            answer = _Answer("json", task, self._structured(task, messages, schema))
        elif (isinstance(fmt, dict) and fmt.get("type") == "json_object") or fmt == "json":
            schema = schema_from_prompt(messages)
            task = header_task or TASK_BY_TITLE.get(str(schema.get("title")), "answer")
            answer = _Answer("json", task, self._structured(task, messages, schema))
        elif provider == "ollama" and isinstance(fmt, dict):
            task = header_task or TASK_BY_TITLE.get(str(fmt.get("title")), "answer")
            answer = _Answer("json", task, self._structured(task, messages, fmt))
        else:
            task = header_task or "answer"
            answer = _Answer("text", task, self._text(task, messages))
        if model is not None and model.thinks:
            answer.reasoning = "先弄清需求的主题和读者，再按要求组织回答。"
        if provider == "ollama" and body.get("think") not in (None, False):
            answer.reasoning = "先弄清需求的主题和读者，再按要求组织回答。"
        self._apply_content_faults(exchange, answer, body)
        return answer

    def _structured(self, task: str, messages: list[dict[str, Any]], schema: dict[str, Any]) -> str:
        try:
            return answer_structured(task, messages, schema)
        except Exception as exc:  # the offline model is not the thing under test: a schema-valid stand-in
            self.errors.append(f"{task}: {type(exc).__name__}: {exc}")
            return json.dumps(generate(schema), ensure_ascii=False)

    def _text(self, task: str, messages: list[dict[str, Any]]) -> str:
        try:
            return answer_text(task, messages)
        except Exception as exc:
            self.errors.append(f"{task}: {type(exc).__name__}: {exc}")
            return "这是一个离线回答。"

    def _search_answer(self, task: str, messages: list[dict[str, Any]]) -> _Answer:
        """A web-search answer: text with markdown links, and a url_citation annotation per link."""
        text = self._text(task, messages)
        query = next((_text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
        slug = hashlib.sha256(query.encode("utf-8")).hexdigest()[:10]
        content = text.rstrip() + "\n\n参考："
        annotations = []
        for i in (1, 2):
            url = f"https://www.example.com/articles/{slug}-{i}?utm_source=openai"
            link = f"[example.com]({url})"
            start = len(content) + 2  # after " ("
            content += f" ({link})"
            annotations.append(
                {
                    "type": "url_citation",
                    "url_citation": {
                        "start_index": start,
                        "end_index": start + len(link),
                        "title": f"{query[:24] or '搜索结果'} · 资料 {i}",
                        "url": url,
                    },
                }
            )
        return _Answer("text", task, content, annotations=annotations)

    def _apply_content_faults(self, exchange: _Exchange, answer: _Answer, body: dict[str, Any]) -> None:
        item = self._take_fault(exchange, CONTENT_FAULTS)
        if item is not None:
            if item.kind == "fenced":
                answer.text = f"```json\n{answer.text}\n```"
            elif item.kind == "schema_invalid":
                answer.text = _drop_required(answer.text, self._schema_of(body, exchange.provider))
            elif item.kind == "truncated":
                keep = int(item.params.get("tokens") or max(1, estimate_tokens(answer.text) // 2))
                answer.text = cut_to_tokens(answer.text, keep)
                answer.finish = "length"
        limit = _max_tokens(body, exchange.provider)
        if limit is not None and estimate_tokens(answer.text) > limit:
            answer.text = cut_to_tokens(answer.text, limit)
            answer.finish = "length"
        stop = body.get("stop") if exchange.provider != "ollama" else (body.get("options") or {}).get("stop")
        for marker in [stop] if isinstance(stop, str) else stop or []:
            at = answer.text.find(str(marker)) if marker else -1
            if at >= 0:
                answer.text = answer.text[:at]
                answer.finish = "stop"

    @staticmethod
    def _schema_of(body: dict[str, Any], provider: str) -> dict[str, Any]:
        fmt = body.get("format") if provider == "ollama" else body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return dict((fmt.get("json_schema") or {}).get("schema") or {})
        if provider == "ollama" and isinstance(fmt, dict):
            return fmt
        tools = body.get("tools") or []
        if tools:
            return dict((tools[0].get("function") or {}).get("parameters") or {})
        return schema_from_prompt([m for m in body.get("messages") or [] if isinstance(m, dict)])

    def _usage(self, exchange: _Exchange, body: dict[str, Any], answer: _Answer) -> dict[str, Any]:
        provider = exchange.provider
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        fmt = body.get("response_format")
        extra = [
            body.get("tools"),
            fmt if isinstance(fmt, dict) and fmt.get("type") == "json_schema" else None,
        ]
        prompt = _prompt_tokens(messages, [e for e in extra if e])
        completion = estimate_tokens(answer.text) + (
            estimate_tokens(answer.tool_name or "") + 3 if answer.tool_name else 0
        )
        reasoning = estimate_tokens(answer.reasoning) if answer.reasoning else 0
        cached = self._cached_tokens(provider, messages)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion + reasoning,
            "total_tokens": prompt + completion + reasoning,
        }
        if provider == "openai":
            hit = cached // 128 * 128 if prompt >= 1024 and cached >= 1024 else 0  # 1024 tokens at least
            usage["prompt_tokens_details"] = {"cached_tokens": hit, "audio_tokens": 0}
            usage["completion_tokens_details"] = {
                "reasoning_tokens": reasoning,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            }
        elif provider == "deepseek":
            hit = min(prompt, cached // 64 * 64)
            usage["prompt_tokens_details"] = {"cached_tokens": hit}
            usage["prompt_cache_hit_tokens"] = hit
            usage["prompt_cache_miss_tokens"] = prompt - hit
            if reasoning:
                usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
        elif provider == "dashscope":
            usage["prompt_tokens_details"] = {"cached_tokens": 0}
        return usage

    def _cached_tokens(self, provider: str, messages: list[dict[str, Any]]) -> int:
        """Prompt caching: the tokens of the longest message prefix an earlier request of `provider` sent."""
        cached = 0
        keys = []
        digest = hashlib.sha256()
        for i, message in enumerate(messages):
            digest.update(json.dumps(message, ensure_ascii=False, sort_keys=True).encode("utf-8"))
            keys.append((i, digest.hexdigest()))
        with self._lock:
            seen = self._prefixes[provider]
            for i, key in keys:
                if key in seen:
                    cached = _prompt_tokens(messages[: i + 1]) - 3
            seen.update(key for _, key in keys)
        return cached

    # --- OpenAI-compatible answers --------------------------------------------------------------------------
    def _message(self, provider: str, answer: _Answer) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": answer.text}
        if answer.kind == "tool":
            call_id = f"call_{uuid.uuid4().hex[:24]}"
            message["content"] = None if provider == "openai" else ""
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": answer.tool_name, "arguments": answer.text},
                    **({"index": 0} if provider == "deepseek" else {}),
                }
            ]
        if answer.reasoning:
            message["reasoning_content"] = answer.reasoning
        if provider == "openai":
            message["refusal"] = None
            message["annotations"] = answer.annotations
        return message

    def _envelope(self, provider: str, model: ChatModel, obj: str) -> dict[str, Any]:
        envelope: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4()}" if provider != "openai" else f"chatcmpl-{uuid.uuid4().hex[:29]}",
            "object": obj,
            "created": int(time.time()),
            "model": model.snapshot,
        }
        if provider == "openai":
            envelope["service_tier"] = "default"
            envelope["system_fingerprint"] = "fp_0ba0d124f1"
        elif provider == "deepseek":
            envelope["system_fingerprint"] = "fp_ffc7281d48_prod0820_fp8_kvcache"
        else:
            envelope["system_fingerprint"] = None
        return envelope

    def _completion(
        self, exchange: _Exchange, body: dict[str, Any], model: ChatModel, answer: _Answer
    ) -> dict[str, Any]:
        provider = exchange.provider
        n = int(body.get("n") or 1)
        choices = [
            {
                "index": i,
                "message": self._message(provider, answer),
                "logprobs": None,
                "finish_reason": answer.finish,
            }
            for i in range(n)
        ]
        usage = self._usage(exchange, body, answer)
        if n > 1:
            usage["completion_tokens"] *= n
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {**self._envelope(provider, model, "chat.completion"), "choices": choices, "usage": usage}

    def _stream_chat(
        self, exchange: _Exchange, body: dict[str, Any], model: ChatModel, answer: _Answer
    ) -> None:
        provider = exchange.provider
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        envelope = self._envelope(provider, model, "chat.completion.chunk")

        def frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
            chunk: dict[str, Any] = {
                **envelope,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            if include_usage:
                chunk["usage"] = None
            return b"data: " + _dumps(chunk) + b"\n\n"

        exchange.start_stream("text/event-stream; charset=utf-8")
        first: dict[str, Any] = {"role": "assistant", "content": ""}
        if provider == "openai":
            first["refusal"] = None
        exchange.write_chunk(frame(first))
        sent = 0
        if answer.reasoning:
            for piece in self._pieces(answer.reasoning):
                self._stream_pause(exchange, sent)
                exchange.write_chunk(frame({"content": None, "reasoning_content": piece}))
                sent += 1
        if answer.kind == "tool":
            call = {
                "index": 0,
                "id": f"call_{uuid.uuid4().hex[:24]}",
                "type": "function",
                "function": {"name": answer.tool_name, "arguments": ""},
            }
            exchange.write_chunk(frame({"tool_calls": [call]}))
            for piece in self._pieces(answer.text):
                self._stream_pause(exchange, sent)
                exchange.write_chunk(frame({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
                sent += 1
        else:
            for piece in self._pieces(answer.text):
                self._stream_pause(exchange, sent)
                exchange.write_chunk(frame({"content": piece}))
                sent += 1
            if answer.annotations:
                exchange.write_chunk(frame({"annotations": answer.annotations}))
        exchange.write_chunk(frame({}, answer.finish))
        if include_usage:
            usage_chunk = {**envelope, "choices": [], "usage": self._usage(exchange, body, answer)}
            exchange.write_chunk(b"data: " + _dumps(usage_chunk) + b"\n\n")
        exchange.write_chunk(b"data: [DONE]\n\n")
        exchange.end_stream()

    def _models(self, exchange: _Exchange) -> None:
        provider = exchange.provider
        names = list(self.chat_models[provider])
        if provider == "openai":
            names += list(IMAGE_SIZES)
        owner = {"openai": "openai", "deepseek": "deepseek", "dashscope": "system"}[provider]
        data = [{"id": n, "object": "model", "created": 1700000000, "owned_by": owner} for n in names]
        exchange.send_json({"object": "list", "data": data})

    # --- images --------------------------------------------------------------------------------------------
    def _images(self, exchange: _Exchange) -> None:
        body = exchange.record.body
        if not isinstance(body, dict):
            raise self._bad_json("openai")
        model = str(body.get("model") or "dall-e-2")
        if model not in IMAGE_SIZES:
            raise api_error(
                "openai", 404, f"The model `{model}` does not exist or you do not have access to it."
            )
        if "openai" in self.strict:
            for name in body:
                if name not in IMAGE_PARAMS[model]:
                    raise api_error(
                        "openai", 400, f"Unknown parameter: '{name}'.", param=name, code="unknown_parameter"
                    )
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise api_error(
                "openai",
                400,
                "Missing required parameter: 'prompt'.",
                param="prompt",
                code="missing_required_parameter",
            )
        if len(prompt) > IMAGE_PROMPT_MAX[model]:
            raise api_error(
                "openai",
                400,
                f"Invalid 'prompt': string too long. Expected a string with maximum length "
                f"{IMAGE_PROMPT_MAX[model]}, but got a string with length {len(prompt)} instead.",
                param="prompt",
                code="string_above_max_length",
            )
        n = body.get("n", 1)
        if model == "dall-e-3" and n != 1:
            raise api_error("openai", 400, "You must provide n=1 for this model.", param="n", code=None)
        if not isinstance(n, int) or not 1 <= n <= 10:
            raise api_error(
                "openai",
                400,
                f"Invalid 'n': integer above maximum value. Expected a value <= 10, but got {n} instead.",
                param="n",
                code="integer_above_max_value",
            )
        sizes = IMAGE_SIZES[model]
        size = str(body.get("size") or ("auto" if model == "gpt-image-1" else "1024x1024"))
        if size not in sizes:
            if model == "gpt-image-1":
                listed = ", ".join(f"'{s}'" for s in sizes[:-1]) + f", and '{sizes[-1]}'"
                raise api_error(
                    "openai",
                    400,
                    f"Invalid value: '{size}'. Supported values are: {listed}.",
                    param="size",
                    code="invalid_value",
                )
            raise api_error("openai", 400, f"'{size}' is not one of {list(sizes)} - 'size'", code=None)
        fmt = body.get("response_format") or "url"
        if fmt not in ("url", "b64_json"):
            raise api_error(
                "openai", 400, f"'{fmt}' is not one of ['url', 'b64_json'] - 'response_format'", code=None
            )
        quality = body.get("quality")
        qualities = {"dall-e-3": ("standard", "hd"), "gpt-image-1": ("low", "medium", "high", "auto")}.get(
            model
        )
        if quality is not None and qualities is not None and quality not in qualities:
            raise api_error(
                "openai", 400, f"'{quality}' is not one of {list(qualities)} - 'quality'", code=None
            )
        if body.get("style") is not None and body.get("style") not in ("vivid", "natural"):
            raise api_error(
                "openai",
                400,
                f"'{body.get('style')}' is not one of ['vivid', 'natural'] - 'style'",
                code=None,
            )
        if size == "auto":
            size = "1024x1024"
        width, height = (int(v) for v in size.split("x"))
        output_format = str(body.get("output_format") or "png")
        data = []
        for i in range(n):
            picture = draw_png(
                width, height, f"{model}|{prompt}|{i}", output_format if model == "gpt-image-1" else "png"
            )
            item: dict[str, Any] = {}
            if model == "gpt-image-1" or fmt == "b64_json":
                item["b64_json"] = base64.b64encode(picture).decode("ascii")
            else:
                file_id = f"img-{uuid.uuid4().hex[:24]}"
                with self._lock:
                    self.files[file_id] = picture
                item["url"] = f"{self.origin('openai')}/files/{file_id}.png"
            if model == "dall-e-3":
                item["revised_prompt"] = prompt
            data.append(item)
        answer: dict[str, Any] = {"created": int(time.time()), "data": data}
        if model == "gpt-image-1":
            tokens = estimate_tokens(prompt)
            answer.update(
                background=body.get("background")
                if body.get("background") in ("transparent", "opaque")
                else "opaque",
                output_format=output_format,
                quality=quality if quality not in (None, "auto") else "high",
                size=size,
                usage={
                    "input_tokens": tokens,
                    "input_tokens_details": {"image_tokens": 0, "text_tokens": tokens},
                    "output_tokens": 4160 * n,
                    "total_tokens": tokens + 4160 * n,
                },
            )
        exchange.send_json(answer)

    def _file(self, exchange: _Exchange) -> None:
        name = exchange.record.path.rsplit("/", 1)[-1]
        picture = self.files.get(name.removesuffix(".png"))
        if picture is None:
            exchange.send(404, b"The specified blob does not exist.", "application/xml")
            return
        exchange.send(200, picture, "image/png")

    # --- Ollama --------------------------------------------------------------------------------------------
    def _ollama_model(self, body: Any, field_names: tuple[str, ...] = ("model",)) -> str:
        name = next((body.get(f) for f in field_names if isinstance(body, dict) and body.get(f)), None)
        if not name:
            raise api_error("ollama", 400, "model is required")
        if str(name) not in self.ollama_models:
            raise api_error("ollama", 404, f'model "{name}" not found, try pulling it first')
        return str(name)

    def _ollama_chat(self, exchange: _Exchange) -> None:
        body = exchange.record.body
        if not isinstance(body, dict):
            raise self._bad_json("ollama")
        self._refuse_json_schema(exchange, body)
        if "ollama" in self.strict:
            for name in body:
                if name not in OLLAMA_CHAT_PARAMS:
                    raise api_error("ollama", 400, f'json: unknown field "{name}"')
            for name in body.get("options") or {}:
                if name not in OLLAMA_OPTIONS:
                    raise api_error("ollama", 400, f'invalid option provided: "{name}"')
        name = self._ollama_model(body)
        messages = body.get("messages")
        if messages is not None and not isinstance(messages, list):
            raise api_error("ollama", 400, "messages must be an array")
        fmt = body.get("format")
        if fmt not in (None, "", "json") and not isinstance(fmt, dict):
            raise api_error("ollama", 400, 'invalid format: expected "json" or a valid JSON schema')
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise api_error("ollama", 400, "options must be an object")
        if not messages:  # an empty chat loads the model and answers with nothing
            exchange.send_json(self._ollama_frame(name, {"role": "assistant", "content": ""}, done="load"))
            return
        answer = self._compose(exchange, body, None)
        message: dict[str, Any] = {"role": "assistant", "content": answer.text}
        if answer.kind == "tool":
            try:
                arguments = json.loads(answer.text)
            except ValueError:
                arguments = {}
            message = {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": answer.tool_name, "arguments": arguments}}],
            }
        prompt = _prompt_tokens([m for m in messages if isinstance(m, dict)]) + (
            estimate_tokens(json.dumps(fmt, ensure_ascii=False)) if isinstance(fmt, dict) else 0
        )
        completion = estimate_tokens(answer.text) + (
            estimate_tokens(answer.reasoning) if answer.reasoning else 0
        )
        finish = "length" if answer.finish == "length" else "stop"
        final = self._ollama_frame(name, {"role": "assistant", "content": ""}, done=finish)
        final.update(
            total_duration=(prompt + completion) * 2_000_000 + 150_000_000,
            load_duration=120_000_000,
            prompt_eval_count=prompt,
            prompt_eval_duration=prompt * 500_000,
            eval_count=completion,
            eval_duration=completion * 1_500_000,
        )
        if body.get("stream", True) is False:
            if answer.reasoning:
                message["thinking"] = answer.reasoning
            final["message"] = message
            exchange.send_json(final)
            return
        exchange.start_stream("application/x-ndjson")
        sent = 0
        if answer.reasoning:
            for piece in self._pieces(answer.reasoning):
                self._stream_pause(exchange, sent)
                part = {"role": "assistant", "content": "", "thinking": piece}
                exchange.write_chunk(_dumps(self._ollama_frame(name, part)) + b"\n")
                sent += 1
        if answer.kind == "tool":
            exchange.write_chunk(_dumps(self._ollama_frame(name, message)) + b"\n")
        else:
            for piece in self._pieces(answer.text):
                self._stream_pause(exchange, sent)
                part = {"role": "assistant", "content": piece}
                exchange.write_chunk(_dumps(self._ollama_frame(name, part)) + b"\n")
                sent += 1
        exchange.write_chunk(_dumps(final) + b"\n")
        exchange.end_stream()

    @staticmethod
    def _ollama_frame(name: str, message: dict[str, Any], done: str | None = None) -> dict[str, Any]:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        frame: dict[str, Any] = {
            "model": name,
            "created_at": now,
            "message": message,
            "done": done is not None,
        }
        if done is not None:
            frame["done_reason"] = done
        return frame

    def _ollama_details(self, name: str) -> dict[str, Any]:
        info = self.ollama_models[name]
        return {
            "parent_model": "",
            "format": "gguf",
            "family": info.get("family", "llama"),
            "families": [info.get("family", "llama")],
            "parameter_size": info.get("parameter_size", "7B"),
            "quantization_level": "Q4_K_M",
        }

    def _ollama_show(self, exchange: _Exchange) -> None:
        name = self._ollama_model(exchange.record.body, ("model", "name"))
        info = self.ollama_models[name]
        family = str(info.get("family", "llama"))
        template = (
            "{{- if .Messages }}{{- if or .System .Tools }}<|im_start|>system\n{{ .System }}"
            "{{- if .Tools }}\n\n# Tools\n<tools>{{- range .Tools }}\n{{ .Function }}{{- end }}\n</tools>"
            "{{- end }}<|im_end|>\n{{ end }}{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}"
            "<|im_end|>\n{{ end }}<|im_start|>assistant\n{{ else }}{{ .Prompt }}{{ end }}"
        )
        exchange.send_json(
            {
                "license": "Apache License 2.0",
                "modelfile": f'# Modelfile generated by "ollama show"\nFROM {name}\n',
                "parameters": 'stop "<|im_start|>"\nstop "<|im_end|>"',
                "template": template,
                "details": self._ollama_details(name),
                "model_info": {
                    "general.architecture": family,
                    "general.parameter_count": 7_615_616_512,
                    f"{family}.context_length": int(info.get("context", 32768)),
                    f"{family}.embedding_length": 3584,
                },
                "capabilities": ["completion", "tools"],
                "modified_at": "2025-01-01T00:00:00.000000000Z",
            }
        )

    def _ollama_tags(self, exchange: _Exchange) -> None:
        models = [
            {
                "name": name,
                "model": name,
                "modified_at": "2025-01-01T00:00:00.000000000Z",
                "size": int(info.get("size", 4_000_000_000)),
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "details": self._ollama_details(name),
            }
            for name, info in self.ollama_models.items()
        ]
        exchange.send_json({"models": models})

    def _ollama_version(self, exchange: _Exchange) -> None:
        exchange.send_json({"version": "0.12.6"})

    def _ollama_root(self, exchange: _Exchange) -> None:
        exchange.send(200, b"Ollama is running", "text/plain; charset=utf-8")


# --- helpers ----------------------------------------------------------------------------------------------
def schema_from_prompt(messages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The JSON schema the studio spelled out after `SCHEMA_MARKER` (the last one), else an object schema."""
    for message in reversed(list(messages)):
        text = _text_of(message)
        at = text.rfind(SCHEMA_MARKER)
        if at < 0:
            continue
        try:
            schema, _ = json.JSONDecoder().raw_decode(text[at + len(SCHEMA_MARKER) :].lstrip())
        except ValueError:
            break
        if isinstance(schema, dict):
            return schema
        break
    return {"type": "object"}


def _max_tokens(body: Mapping[str, Any], provider: str) -> int | None:
    if provider == "ollama":
        value = (body.get("options") or {}).get("num_predict")
        return value if isinstance(value, int) and value >= 0 else None
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _drop_required(text: str, schema: Mapping[str, Any]) -> str:
    """The JSON answer without the schema's first required field (valid JSON that fails validation)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    required = list(schema.get("required") or [])
    if isinstance(value, dict):
        key = next((k for k in required if k in value), None) or next(iter(value), None)
        if key is not None:
            value.pop(key)
    return json.dumps(value, ensure_ascii=False)


def iter_sse(text: str) -> Iterator[str]:
    """The `data:` payloads of an SSE body (for tests reading raw streams)."""
    for block in text.replace("\r\n", "\n").split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: "):
                yield line[6:]
