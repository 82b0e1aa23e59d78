"""The fake providers of tests/provider_api.py, driven by litellm (as the studio drives them) and by httpx
(to check the wire format itself)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import httpx
import pytest
from PIL import Image

from agents.artifacts import Brief
from tests.provider_api import ProviderAPI, estimate_tokens, iter_sse
from tools.llm import litellm_module
from tools.prompting import PromptTemplate

BRIEF_PROMPT = PromptTemplate.from_text(
    "brief", "<!-- system -->\n你是内容策划。\n<!-- user -->\n## 用户需求 (request)\n$request\n"
)
REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
BRIEF_SCHEMA = Brief.model_json_schema(by_alias=True)
QUESTION = [{"role": "user", "content": "周末去哪里露营比较好？"}]


def brief_messages(*, schema_in_prompt: bool = False) -> list[dict[str, Any]]:
    messages = [dict(m) for m in BRIEF_PROMPT.render(request=REQUEST)]
    if schema_in_prompt:  # what the studio's gateway does in JSON mode (tools/llm.py)
        messages[0]["content"] += (
            "\n\n请只输出一个 JSON 对象（不要 Markdown 代码块、不要解释），并严格符合以下 JSON Schema：\n"
            + json.dumps(BRIEF_SCHEMA, ensure_ascii=False)
        )
    return messages


def json_schema_format(name: str = "brief") -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": BRIEF_SCHEMA}}


async def complete(api: ProviderAPI, provider: str, model: str, **kwargs: Any) -> Any:
    base = {
        "openai": api.openai_base,
        "deepseek": api.deepseek_base,
        "dashscope": api.dashscope_compat_base,
        "ollama": api.ollama_base,
    }[provider]
    call: dict[str, Any] = {"model": model, "api_base": base, "num_retries": 0, "timeout": 10, **kwargs}
    call.setdefault("messages", QUESTION)
    if provider != "ollama":
        call.setdefault("api_key", api.key(provider))
    return await litellm_module().acompletion(**call)


def _auth(api: ProviderAPI, provider: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api.key(provider)}"} if provider != "ollama" else {}


def post(api: ProviderAPI, provider: str, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{api.origin(provider)}{path}", json=body, headers=_auth(api, provider), timeout=10)


async def apost(api: ProviderAPI, provider: str, path: str, body: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(f"{api.origin(provider)}{path}", json=body, headers=_auth(api, provider))


# --- chat: OpenAI -------------------------------------------------------------------------------------------
async def test_openai_stream_has_chunks_and_a_usage_chunk(provider_api: ProviderAPI) -> None:
    stream = await complete(
        provider_api, "openai", "openai/gpt-4o-mini", stream=True, stream_options={"include_usage": True}
    )
    text, usage, finish, chunks = "", None, None, 0
    async for chunk in stream:
        chunks += 1
        usage = getattr(chunk, "usage", None) or usage
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
            finish = chunk.choices[0].finish_reason or finish
    assert chunks > 5 and text and finish == "stop"
    assert usage is not None and usage.completion_tokens == estimate_tokens(text) and usage.prompt_tokens > 0
    [sent] = provider_api.calls("openai", route="chat")
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}


def test_openai_sse_wire_format(provider_api: ProviderAPI) -> None:
    body = {
        "model": "gpt-4o-mini",
        "messages": QUESTION,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = post(provider_api, "openai", "/v1/chat/completions", body)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"
    payloads = list(iter_sse(response.text))
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert all(
        c["object"] == "chat.completion.chunk" and c["model"] == "gpt-4o-mini-2024-07-18" for c in chunks
    )
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all(c["usage"] is None for c in chunks[:-1])  # include_usage: null until the last chunk
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop" and chunks[-2]["choices"][0]["delta"] == {}


async def test_json_schema_answer_is_a_valid_brief(provider_api: ProviderAPI) -> None:
    response = await complete(
        provider_api,
        "openai",
        "openai/gpt-4o-mini",
        messages=brief_messages(),
        response_format=json_schema_format(),
        max_tokens=2048,
        metadata={"task": "brief"},
    )
    brief = Brief.model_validate_json(response.choices[0].message.content)
    assert "露营" in brief.topic and brief.audience == "上班族"
    assert response.choices[0].finish_reason == "stop" and response.usage.prompt_tokens > 100
    [sent] = provider_api.requests
    assert sent.path == "/v1/chat/completions" and sent.api_key == provider_api.key("openai")
    assert sent.body["max_tokens"] == 2048 and sent.body["response_format"]["type"] == "json_schema"
    assert "metadata" not in sent.body  # litellm keeps its own metadata off the wire


async def test_forced_tool_call_answers_schema_valid_arguments(provider_api: ProviderAPI) -> None:
    tool = {"type": "function", "function": {"name": "brief", "parameters": BRIEF_SCHEMA}}
    response = await complete(
        provider_api,
        "openai",
        "openai/gpt-4o-mini",
        messages=brief_messages(schema_in_prompt=True),
        tools=[tool],
        tool_choice={"type": "function", "function": {"name": "brief"}},
    )
    [call] = response.choices[0].message.tool_calls
    assert call.function.name == "brief"
    assert Brief.model_validate_json(call.function.arguments).audience == "上班族"


async def test_unknown_parameter_is_400_in_each_providers_shape(provider_api: ProviderAPI) -> None:
    body = {"model": "gpt-4o-mini", "messages": QUESTION, "frobnicate": 1}
    openai = await apost(provider_api, "openai", "/v1/chat/completions", body)
    assert openai.status_code == 400
    assert openai.json() == {
        "error": {
            "message": "Unknown parameter: 'frobnicate'.",
            "type": "invalid_request_error",
            "param": "frobnicate",
            "code": "unknown_parameter",
        }
    }
    dashscope = post(
        provider_api, "dashscope", "/compatible-mode/v1/chat/completions", {**body, "model": "qwen-plus"}
    )
    assert dashscope.status_code == 400 and {"error", "id", "request_id"} <= dashscope.json().keys()
    ollama = await apost(provider_api, "ollama", "/api/chat", {**body, "model": "qwen2.5:7b"})
    assert ollama.status_code == 400 and isinstance(ollama.json()["error"], str)
    # DashScope takes no max_completion_tokens; litellm passes an unknown provider parameter straight through
    litellm = litellm_module()
    with pytest.raises(litellm.BadRequestError):
        await complete(provider_api, "dashscope", "openai/qwen-plus", max_completion_tokens=50)
    assert provider_api.requests[-1].body["max_completion_tokens"] == 50


async def test_missing_or_wrong_key_is_401(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    with pytest.raises(litellm.AuthenticationError, match="Incorrect API key provided"):
        await complete(provider_api, "openai", "openai/gpt-4o-mini", api_key="sk-wrong-key-123456")
    with pytest.raises(litellm.AuthenticationError, match="Authentication Fails"):
        await complete(provider_api, "deepseek", "deepseek/deepseek-chat", api_key=provider_api.key("openai"))
    async with httpx.AsyncClient() as client:
        missing = await client.post(
            f"{provider_api.openai_base}/chat/completions", json={"model": "gpt-4o-mini"}
        )
    assert missing.status_code == 401 and "didn't provide an API key" in missing.json()["error"]["message"]
    assert [(r.provider, r.api_key, r.status) for r in provider_api.requests] == [
        ("openai", "sk-wrong-key-123456", 401),
        ("deepseek", provider_api.key("openai"), 401),
        ("openai", None, 401),
    ]


async def test_max_tokens_cuts_the_answer_with_finish_length(provider_api: ProviderAPI) -> None:
    response = await complete(provider_api, "openai", "openai/gpt-4o-mini", max_tokens=12)
    content = response.choices[0].message.content
    assert response.choices[0].finish_reason == "length"
    assert 0 < estimate_tokens(content) <= 12 and response.usage.completion_tokens <= 12
    full = await complete(provider_api, "openai", "openai/gpt-4o-mini")
    assert full.choices[0].message.content.startswith(content) and full.choices[0].finish_reason == "stop"


async def test_search_model_rejects_temperature_and_cites_urls(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    with pytest.raises(
        litellm.BadRequestError, match="Model incompatible request argument supplied: temperature"
    ):
        await complete(provider_api, "openai", "openai/gpt-4o-search-preview", temperature=0.7)
    response = await complete(
        provider_api,
        "openai",
        "openai/gpt-4o-search-preview",
        web_search_options={"search_context_size": "low"},
    )
    message = response.choices[0].message
    annotations = message.annotations
    assert annotations and all(a["type"] == "url_citation" for a in annotations)
    for annotation in annotations:
        cite = annotation["url_citation"]
        assert message.content[cite["start_index"] : cite["end_index"]].endswith(f"({cite['url']})")
    with pytest.raises(litellm.BadRequestError, match="Web search options not supported"):
        await complete(provider_api, "openai", "openai/gpt-4o-mini", web_search_options={})


# --- chat: DeepSeek and DashScope ---------------------------------------------------------------------------
async def test_deepseek_refuses_json_schema_and_takes_json_object(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    with pytest.raises(litellm.BadRequestError, match="This response_format type is unavailable now"):
        await complete(
            provider_api,
            "deepseek",
            "deepseek/deepseek-chat",
            messages=brief_messages(),
            response_format=json_schema_format(),
        )
    assert litellm.supports_response_schema(model="deepseek/deepseek-chat")  # litellm's map says otherwise
    for _ in range(2):
        response = await complete(
            provider_api,
            "deepseek",
            "deepseek/deepseek-chat",
            messages=brief_messages(schema_in_prompt=True),
            response_format={"type": "json_object"},
            max_tokens=2048,
        )
        assert Brief.model_validate_json(response.choices[0].message.content).audience == "上班族"
    usage = response.usage
    assert usage.prompt_cache_hit_tokens > 0 and usage.prompt_cache_hit_tokens % 64 == 0  # the 2nd call hits
    assert usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens == usage.prompt_tokens
    assert [r.body["response_format"]["type"] for r in provider_api.calls("deepseek")] == [
        "json_schema",
        "json_object",
        "json_object",
    ]
    v1 = post(
        provider_api, "deepseek", "/v1/chat/completions", {"model": "deepseek-chat", "messages": QUESTION}
    )
    assert v1.status_code == 200 and v1.json()["usage"]["prompt_cache_miss_tokens"] > 0
    too_long = post(
        provider_api,
        "deepseek",
        "/chat/completions",
        {"model": "deepseek-chat", "messages": QUESTION, "max_tokens": 9000},
    )
    assert (
        too_long.json()["error"]["message"]
        == "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"
    )


async def test_dashscope_response_formats(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    with pytest.raises(litellm.BadRequestError, match="must contain the word 'json'"):
        await complete(provider_api, "dashscope", "openai/qwen-plus", response_format={"type": "json_object"})
    response = await complete(
        provider_api,
        "dashscope",
        "openai/qwen-plus",
        messages=brief_messages(schema_in_prompt=True),
        response_format={"type": "json_object"},
    )
    assert Brief.model_validate_json(response.choices[0].message.content).topic
    schema_ok = await complete(
        provider_api,
        "dashscope",
        "dashscope/qwen-plus",
        messages=brief_messages(),
        response_format=json_schema_format(),
    )
    assert Brief.model_validate_json(schema_ok.choices[0].message.content).topic
    with pytest.raises(litellm.BadRequestError, match="json_schema"):
        await complete(
            provider_api,
            "dashscope",
            "openai/qwen-turbo",
            messages=brief_messages(),
            response_format=json_schema_format(),
        )
    assert {r.path for r in provider_api.requests} == {"/compatible-mode/v1/chat/completions"}


# --- faults -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "error", "status"),
    [
        ("429", "RateLimitError", 429),
        ("500", "InternalServerError", 500),
        ("502_html", "BadGatewayError", 502),
        ("401", "AuthenticationError", 401),
    ],
)
async def test_http_faults_reach_litellm_once(
    provider_api: ProviderAPI, kind: str, error: str, status: int
) -> None:
    fault = provider_api.fault(kind, retry_after=1)
    with pytest.raises(getattr(litellm_module(), error)) as info:
        await complete(provider_api, "openai", "openai/gpt-4o-mini")
    assert getattr(info.value, "status_code", None) == status
    assert fault.hits == 1 and [r.status for r in provider_api.requests] == [status]  # litellm did not retry
    assert (
        (await complete(provider_api, "openai", "openai/gpt-4o-mini")).choices[0].message.content
    )  # once only


def test_fault_shapes_on_the_wire(provider_api: ProviderAPI) -> None:
    provider_api.fault("429", retry_after=2)
    limited = post(
        provider_api, "deepseek", "/chat/completions", {"model": "deepseek-chat", "messages": QUESTION}
    )
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert limited.json()["error"]["message"] == "Rate Limit Reached"
    provider_api.fault("502_html", provider="openai")
    gateway = post(
        provider_api, "openai", "/v1/chat/completions", {"model": "gpt-4o-mini", "messages": QUESTION}
    )
    assert gateway.status_code == 502 and gateway.headers["content-type"] == "text/html"
    assert "<title>502 Bad Gateway</title>" in gateway.text
    with pytest.raises(httpx.RemoteProtocolError):
        provider_api.fault("disconnect")
        post(provider_api, "openai", "/v1/chat/completions", {"model": "gpt-4o-mini", "messages": QUESTION})


async def test_faults_are_scoped_and_counted(provider_api: ProviderAPI) -> None:
    fault = provider_api.fault("500", times=2, provider="deepseek", model="deepseek-chat")
    assert (await complete(provider_api, "openai", "openai/gpt-4o-mini")).choices  # other provider: untouched
    litellm = litellm_module()
    for _ in range(2):
        with pytest.raises(litellm.InternalServerError):
            await complete(provider_api, "deepseek", "deepseek/deepseek-chat")
    assert (await complete(provider_api, "deepseek", "deepseek/deepseek-chat")).choices
    assert fault.hits == 2
    assert [(r.provider, r.status, r.fault) for r in provider_api.requests] == [
        ("openai", 200, None),
        ("deepseek", 500, "500"),
        ("deepseek", 500, "500"),
        ("deepseek", 200, None),
    ]
    provider_api.fault("500", times=None, route="images")
    assert (await complete(provider_api, "openai", "openai/gpt-4o-mini")).choices  # another route
    provider_api.clear_faults()


async def test_stall_times_the_call_out(provider_api: ProviderAPI) -> None:
    provider_api.fault("stall", seconds=5)
    with pytest.raises(litellm_module().Timeout):
        await complete(provider_api, "openai", "openai/gpt-4o-mini", timeout=0.5)
    assert provider_api.requests[0].status is None  # still held when the client gave up


def test_stall_mid_stream(provider_api: ProviderAPI) -> None:
    provider_api.fault("stall", seconds=5, after_chunks=2)
    body = {"model": "qwen2.5:7b", "messages": QUESTION}
    with httpx.stream("POST", f"{provider_api.ollama_base}/api/chat", json=body, timeout=0.5) as response:
        lines = response.iter_lines()
        assert json.loads(next(lines))["done"] is False  # the first chunks arrive, then nothing
        next(lines)
        with pytest.raises(httpx.ReadTimeout):
            next(lines)


@pytest.mark.parametrize("provider", ["openai", "deepseek", "dashscope"])
async def test_content_faults(provider_api: ProviderAPI, provider: str) -> None:
    model = {
        "openai": "openai/gpt-4o-mini",
        "deepseek": "deepseek/deepseek-chat",
        "dashscope": "openai/qwen-plus",
    }
    call = {"messages": brief_messages(schema_in_prompt=True), "response_format": {"type": "json_object"}}
    provider_api.fault("fenced")
    fenced = (await complete(provider_api, provider, model[provider], **call)).choices[0].message.content
    assert fenced.startswith("```json\n") and fenced.endswith("\n```")
    Brief.model_validate_json(fenced[8:-4])
    provider_api.fault("schema_invalid")
    invalid = json.loads(
        (await complete(provider_api, provider, model[provider], **call)).choices[0].message.content
    )
    assert "topic" not in invalid and "audience" in invalid  # the first required field is gone
    provider_api.fault("truncated", tokens=20)
    cut = (await complete(provider_api, provider, model[provider], **call)).choices[0]
    assert cut.finish_reason == "length" and estimate_tokens(cut.message.content) <= 20
    again = (await complete(provider_api, provider, model[provider], **call)).choices[0]
    assert again.finish_reason == "stop" and Brief.model_validate_json(again.message.content)


async def test_json_schema_refused_fault(provider_api: ProviderAPI) -> None:
    provider_api.fault("json_schema_refused", provider="openai")
    litellm = litellm_module()
    assert (await complete(provider_api, "openai", "openai/gpt-4o-mini")).choices  # no json_schema: passes
    with pytest.raises(litellm.BadRequestError, match="This response_format type is unavailable now"):
        await complete(
            provider_api,
            "openai",
            "openai/gpt-4o-mini",
            messages=brief_messages(),
            response_format=json_schema_format(),
        )
    assert [r.fault for r in provider_api.requests] == [None, "json_schema_refused"]


# --- Ollama -------------------------------------------------------------------------------------------------
def test_ollama_streams_ndjson_by_default(provider_api: ProviderAPI) -> None:
    body = {"model": "qwen2.5:7b", "messages": QUESTION, "options": {"num_predict": 15}}
    response = post(provider_api, "ollama", "/api/chat", body)
    assert response.headers["content-type"] == "application/x-ndjson"
    frames = [json.loads(line) for line in response.text.splitlines()]
    assert len(frames) > 2 and all(not f["done"] for f in frames[:-1])
    last = frames[-1]
    assert last["done"] is True and last["done_reason"] == "length" and last["eval_count"] <= 15
    text = "".join(f["message"]["content"] for f in frames)
    assert estimate_tokens(text) == last["eval_count"] and last["prompt_eval_count"] > 0
    single = post(provider_api, "ollama", "/api/chat", {**body, "stream": False, "options": {}}).json()
    assert (
        single["done"] is True
        and single["done_reason"] == "stop"
        and single["message"]["content"].startswith(text)
    )
    bad = post(provider_api, "ollama", "/api/chat", {**body, "format": "yaml"})
    assert bad.status_code == 400 and bad.json() == {
        "error": 'invalid format: expected "json" or a valid JSON schema'
    }
    unknown = post(provider_api, "ollama", "/api/chat", {**body, "model": "nope:1b"})
    assert unknown.status_code == 404 and "not found, try pulling it first" in unknown.json()["error"]
    tags = httpx.get(f"{provider_api.ollama_base}/api/tags").json()
    assert "qwen2.5:7b" in [m["name"] for m in tags["models"]]


async def test_ollama_chat_through_litellm(provider_api: ProviderAPI) -> None:
    response = await complete(
        provider_api,
        "ollama",
        "ollama_chat/qwen2.5:7b",
        messages=brief_messages(),
        response_format=json_schema_format(),
        max_tokens=2048,
    )
    assert Brief.model_validate_json(response.choices[0].message.content).audience == "上班族"
    [sent] = provider_api.calls("ollama", route="chat")
    assert sent.body["format"] == BRIEF_SCHEMA and sent.body["options"]["num_predict"] == 2048
    assert sent.body["stream"] is False and "response_format" not in sent.body
    json_mode = await complete(
        provider_api,
        "ollama",
        "ollama_chat/qwen2.5:7b",
        messages=brief_messages(schema_in_prompt=True),
        response_format={"type": "json_object"},
        stream=True,
    )
    text = "".join([chunk.choices[0].delta.content or "" async for chunk in json_mode if chunk.choices])
    assert Brief.model_validate_json(text).topic
    assert provider_api.calls("ollama", route="chat")[-1].body["format"] == "json"


def test_ollama_show_feeds_litellms_model_info(provider_api: ProviderAPI) -> None:
    from litellm.llms.ollama.common_utils import OllamaModelInfo

    info = OllamaModelInfo().get_model_info("ollama_chat/qwen2.5:7b", api_base=provider_api.ollama_base)
    assert info is not None and info["max_tokens"] == 32768 and info["supports_function_calling"] is True
    assert provider_api.calls("ollama", route="show")[0].body == {"name": "qwen2.5:7b"}


# --- images -------------------------------------------------------------------------------------------------
async def test_dall_e_3_answers_a_url_the_fake_serves(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    response = await litellm.aimage_generation(
        model="openai/dall-e-3",
        prompt="帐篷和星空，没有文字",
        size="1792x1024",
        n=1,
        api_base=provider_api.openai_base,
        api_key=provider_api.key("openai"),
        max_retries=0,
    )
    item = response.data[0]
    assert item.url.startswith(f"{provider_api.origin('openai')}/files/") and item.revised_prompt
    async with httpx.AsyncClient() as client:
        picture = await client.get(item.url)
    assert picture.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(picture.content)).size == (1792, 1024)
    [sent, fetched] = provider_api.requests
    assert sent.body == {"model": "dall-e-3", "prompt": "帐篷和星空，没有文字", "n": 1, "size": "1792x1024"}
    assert fetched.route == "files" and fetched.api_key is None
    b64 = post(
        provider_api,
        "openai",
        "/v1/images/generations",
        {"model": "dall-e-3", "prompt": "帐篷", "response_format": "b64_json", "size": "1024x1792"},
    ).json()
    assert Image.open(io.BytesIO(base64.b64decode(b64["data"][0]["b64_json"]))).size == (1024, 1792)
    bad_size = post(
        provider_api,
        "openai",
        "/v1/images/generations",
        {"model": "dall-e-3", "prompt": "帐篷", "size": "512x512"},
    )
    assert bad_size.status_code == 400 and "is not one of" in bad_size.json()["error"]["message"]


async def test_gpt_image_1_is_always_base64_and_rejects_response_format(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    response = await litellm.aimage_generation(
        model="gpt-image-1",
        prompt="露营早餐",
        size="1024x1536",
        api_base=provider_api.openai_base,
        api_key=provider_api.key("openai"),
        max_retries=0,
    )
    data = base64.b64decode(response.data[0].b64_json)
    assert data.startswith(b"\x89PNG") and Image.open(io.BytesIO(data)).size == (1024, 1536)
    refused = post(
        provider_api,
        "openai",
        "/v1/images/generations",
        {"model": "gpt-image-1", "prompt": "露营早餐", "response_format": "b64_json"},
    )
    assert refused.status_code == 400
    assert refused.json()["error"] == {
        "message": "Unknown parameter: 'response_format'.",
        "type": "invalid_request_error",
        "param": "response_format",
        "code": "unknown_parameter",
    }
    wrong = post(
        provider_api,
        "openai",
        "/v1/images/generations",
        {"model": "gpt-image-1", "prompt": "x", "size": "1792x1024"},
    )
    assert (
        "Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'."
        in wrong.json()["error"]["message"]
    )


async def test_what_litellm_does_with_image_calls(provider_api: ProviderAPI) -> None:
    litellm = litellm_module()
    call = {"prompt": "帐篷", "size": "1024x1024", "api_base": provider_api.openai_base}
    call["api_key"] = provider_api.key("openai")
    with pytest.raises(litellm.BadRequestError, match="LLM Provider NOT provided"):
        await litellm.aimage_generation(model="dall-e-3", **call)  # not in litellm's model map
    assert not provider_api.requests
    response = await litellm.aimage_generation(model="openai/dall-e-3", response_format="b64_json", **call)
    assert response.data[0].url and not response.data[0].b64_json  # litellm dropped response_format
    assert "response_format" not in provider_api.requests[-1].body
    provider_api.fault("429", times=None, retry_after=0.01)
    with pytest.raises(litellm.RateLimitError):
        await litellm.aimage_generation(model="openai/dall-e-3", **call)
    assert [r.status for r in provider_api.calls(route="images")][1:] == [429, 429, 429]  # the SDK retried
