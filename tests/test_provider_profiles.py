"""Provider conformance: every profile block of `.env.example`, exactly as documented, runs the studio end to
end against a protocol-faithful local stand-in of that provider's API (`tests/provider_api.py`), and every
scripted fault ends the way the gateway promises (retried, re-asked, repaired, or a clear error).

Only what a stand-in cannot be told from the block changes: the API bases point at the fake's servers and the
keys are the fake's (`sk-...` in the docs). Everything else — model names, which roles are set, which
variables carry the keys — is read from `.env.example`, so a block that stops working fails here.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agents.artifacts import Brief
from agents.node import prompt
from app.resources import llm_config
from app.settings import Settings
from tests.provider_api import ProviderAPI
from tests.serving import asgi_client, events_of
from tools import llm as llm_module
from tools.errors import LLMAuthError, LLMTimeoutError, LLMUnavailableError
from tools.llm import LLMGateway, RetryNotice, UsageMeter
from tools.providers import provider_of

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"
REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
SEARCH_REQUEST = "联网搜一下最近的露营新闻，写一篇周末城市露营的小红书笔记"
_PROFILE = re.compile(r"^# \[profile: (?P<name>[\w-]+)\]")
_SETTING = re.compile(r"^#\s+(?P<key>STUDIO_[A-Z_]+)=(?P<value>\S*)")
FAKE_PROVIDER = {
    "openai": "openai",
    "deepseek": "deepseek",
    "dashscope": "dashscope",
    "ollama_chat": "ollama",
}


def profiles() -> dict[str, dict[str, str]]:
    """The `# [profile: name]` blocks of .env.example: name → {variable: value}."""
    found: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if match := _PROFILE.match(line):
            current = found.setdefault(match["name"], {})
        elif current is not None and (setting := _SETTING.match(line)):
            current[setting["key"]] = setting["value"]
        elif current is not None and not line.strip("# "):
            current = None
    return found


def test_env_example_documents_every_provider_profile() -> None:
    assert set(profiles()) == {
        "openai",
        "deepseek",
        "qwen",
        "ollama",
        "openai-compatible",
        "openai-web-search",
    }
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assert "wanx" not in text  # no image model the installed litellm cannot call


def _base(api: ProviderAPI, provider: str) -> str:
    return {
        "openai": api.openai_base,
        "deepseek": api.deepseek_base,
        "dashscope": api.dashscope_compat_base,
        "ollama": api.ollama_base,
    }[provider]


def localised(block: dict[str, str], api: ProviderAPI) -> dict[str, str]:
    """The block with its endpoints on the fake: explicit bases replaced by the fake's server of that model's
    provider, keys by the fake's, and each provider without a base given the fake's as its provider setting.
    An OpenAI-compatible server (vLLM, LM Studio) is played by the fake's DashScope compatible mode."""
    env = dict(block)
    models = {
        role: env[key]
        for role, key in (("LLM", "STUDIO_LLM_MODEL"), ("WEB_SEARCH", "STUDIO_WEB_SEARCH_MODEL"))
        if key in env
    }
    if env.get("STUDIO_IMAGE_PROVIDER", "offline") != "offline":
        models["IMAGE"] = env["STUDIO_IMAGE_PROVIDER"]
    for role, model in models.items():
        fake = FAKE_PROVIDER.get(provider_of(model), "openai")
        if f"STUDIO_{role}_API_BASE" in env:
            fake = "ollama" if fake == "ollama" else "dashscope" if fake == "openai" else fake
            env[f"STUDIO_{role}_API_BASE"] = _base(api, fake)
            if f"STUDIO_{role}_API_KEY" in env:
                api.keys[fake].add(env[f"STUDIO_{role}_API_KEY"])
        else:
            prefix = provider_of(model).upper()
            env[f"STUDIO_PROVIDERS__{prefix}__API_BASE"] = _base(api, fake)
    for key, value in list(env.items()):
        if key.endswith("__API_KEY") and value == "sk-...":
            provider = FAKE_PROVIDER[key.split("__")[1].lower()]
            env[key] = api.key(provider)
    return env


@pytest.fixture
def profile_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No provider variable of the developer's machine leaks into a profile."""
    import os

    for name in list(os.environ):
        if name.startswith("STUDIO_") or name.endswith(("_API_KEY", "_API_BASE", "_BASE_URL")):
            monkeypatch.delenv(name)
    yield monkeypatch


def profile_settings(
    name: str, api: ProviderAPI, base: Settings, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    for key, value in localised(profiles()[name], api).items():
        monkeypatch.setenv(key, value)
    return Settings(
        _env_file=None,
        data_dir=base.data_dir,
        hitl_default=False,
        allow_private_image_urls=True,  # the fake serves image URLs from 127.0.0.1
        llm_max_retries=2,
        render_workers=0,
    )


@pytest.fixture
async def studio(seeded_settings: Settings) -> AsyncIterator[Any]:
    """Builds an ASGI client on a profile's settings; closed after the test."""
    clients: list[Any] = []

    async def open_client(settings: Settings) -> httpx.AsyncClient:
        context = asgi_client(settings)
        clients.append(context)
        return await context.__aenter__()

    yield open_client
    for context in reversed(clients):
        await context.__aexit__(None, None, None)


async def full_run(client: httpx.AsyncClient, request: str, images: int) -> tuple[list[dict[str, Any]], Any]:
    response = await client.post(
        "/api/agent/stream", json={"message": request, "enableHITL": False, "imageCount": images}, timeout=120
    )
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    thread = events[0]["threadId"]
    listed = (await client.get("/api/creatives", params={"q": ""})).json()["items"]
    creative_id = next(item["id"] for item in listed if item["threadId"] == thread)
    return events, (await client.get(f"/api/creatives/{creative_id}")).json()


@pytest.mark.parametrize("name", ["openai", "deepseek", "qwen", "ollama", "openai-compatible"])
async def test_a_documented_profile_runs_end_to_end(
    name: str,
    provider_api: ProviderAPI,
    seeded_settings: Settings,
    profile_env: pytest.MonkeyPatch,
    studio: Any,
) -> None:
    settings = profile_settings(name, provider_api, seeded_settings, profile_env)
    events, creative = await full_run(await studio(settings), REQUEST, images=2)
    errors = [e for e in events if e["type"] == "error"]
    assert not errors, [(e["code"], e["message"], e.get("agent")) for e in errors]
    assert events[-1]["type"] == "workflow_complete"
    assert creative["status"] == "completed" and creative["title"] and "露营" in creative["body"]
    assert creative["model"] == settings.llm_model
    # every model call reached this provider's stand-in, with the documented key
    fake = FAKE_PROVIDER.get(provider_of(settings.llm_model), "openai")
    fake = "dashscope" if name == "openai-compatible" else fake
    chat = provider_api.calls(fake, route="chat")
    assert chat and all(r.status == 200 for r in chat)
    assert fake == "ollama" or {r.api_key for r in chat} == {
        localised(profiles()[name], provider_api).get("STUDIO_LLM_API_KEY", provider_api.key(fake))
    }
    assert all(r.body.get("max_tokens") or r.body.get("options", {}).get("num_predict") for r in chat)
    if name == "deepseek":  # DeepSeek refuses JSON schema: it is asked in JSON mode from the start
        assert {r.body["response_format"]["type"] for r in chat if "response_format" in r.body} == {
            "json_object"
        }
    # usage per task; a price litellm knows is a number, one it does not is null — never a made-up 0
    usage = creative["usage"]
    assert creative["promptTokens"] > 0 and creative["completionTokens"] > 0
    assert {"brief", "writer", "review"} <= set(usage["byTask"])
    if name in ("openai", "deepseek"):  # prices litellm knows
        assert usage["byTask"]["writer"]["costUsd"] > 0
    if name == "deepseek":
        assert creative["costUsd"] > 0
    if name == "ollama":  # litellm prices a local Ollama model at 0: a known price
        assert creative["costUsd"] == 0.0
    if name == "openai-compatible":  # no price known for a self-served model: unknown, not 0
        assert usage["byTask"]["writer"]["costUsd"] is None and creative["costUsd"] is None
    assert [a["status"] for a in creative["assets"]] == ["complete", "complete"]
    assert usage["byTask"]["image"]["calls"] == 2  # pictures count in the usage too
    if name == "openai":  # real pictures from the images API, with the planned overlay set on them
        assert {a["provider"] for a in creative["assets"]} != {"offline"}
        pictures = provider_api.calls("openai", route="images")
        assert len(pictures) == 2 and all(p.body["size"] == "1024x1792" for p in pictures)
        assert all(p.api_key == provider_api.key("openai") for p in pictures)
        assert [(a["width"], a["height"]) for a in creative["assets"]] == [(1080, 1440)] * 2
        assert usage["byTask"]["image"]["costUsd"] is None  # litellm has no dall-e-3 price: unknown
    else:  # DeepSeek, Qwen and Ollama: the offline cards
        assert {a["provider"] for a in creative["assets"]} == {"offline"}


async def test_the_web_search_profile_finds_facts_the_writer_uses(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch, studio: Any
) -> None:
    settings = profile_settings("openai-web-search", provider_api, seeded_settings, profile_env)
    events, creative = await full_run(await studio(settings), SEARCH_REQUEST, images=1)
    assert events[-1]["type"] == "workflow_complete", [e for e in events if e["type"] == "error"]
    [search] = provider_api.calls("openai", route="chat")
    assert search.body["model"] == "gpt-4o-search-preview" and "web_search_options" in search.body
    assert "temperature" not in search.body  # search models refuse sampling parameters
    assert search.body["max_tokens"] == 2048  # the task's room
    assert search.api_key == provider_api.key("openai")  # the OpenAI key, not DeepSeek's
    assert all(
        r.api_key == provider_api.key("deepseek") for r in provider_api.calls("deepseek", route="chat")
    )
    result = next(e for e in events if e["type"] == "tool_result" and e["tool"] == "webSearch")
    assert result["toolOutput"]["status"] == "ok" and result["toolOutput"]["citations"]
    assert creative["evidence"]["webFindings"]
    assert creative["usage"]["byTask"]["web_search"]["calls"] == 1


# --- faults: each ends the way the gateway promises ---------------------------------------------------
def gateway_for(
    name: str, api: ProviderAPI, base: Settings, monkeypatch: pytest.MonkeyPatch, **extra: Any
) -> LLMGateway:
    settings = profile_settings(name, api, base, monkeypatch)
    return LLMGateway(llm_config(settings.model_copy(update=extra)))


async def brief_from(gateway: LLMGateway) -> Brief:
    messages = prompt("brief").render(request=REQUEST, clarification=None, feedback=None)
    return await gateway.complete_structured("brief", messages, Brief)


async def test_429_with_retry_after_is_waited_out_and_shows_as_a_retry(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    notices: list[RetryNotice] = []
    gateway = gateway_for("openai", provider_api, seeded_settings, profile_env, llm_max_retries=2)
    gateway = gateway.with_meter(UsageMeter(on_retry=notices.append))
    provider_api.fault("429", retry_after=1)
    assert (await brief_from(gateway)).topic
    first, second = provider_api.calls("openai", route="chat")
    assert second.monotonic - first.monotonic >= 1.0  # the provider's Retry-After, honoured
    assert [n.wait_s for n in notices] == [1.0] and gateway.meter.records[-1].attempts == 2


@pytest.mark.parametrize("fault", ["500", "502_html", "disconnect"])
async def test_a_transient_failure_is_retried_once_per_attempt_at_one_layer(
    fault: str, provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("deepseek", provider_api, seeded_settings, profile_env, llm_max_retries=2)
    provider_api.fault(fault, times=None)
    with pytest.raises(LLMUnavailableError) as info:
        await brief_from(gateway)
    assert len(provider_api.calls("deepseek", route="chat")) == 3  # ours only: no SDK or litellm retries
    assert "<html>" not in info.value.message and info.value.retryable
    provider_api.clear_faults()
    assert (await brief_from(gateway)).topic


async def test_a_wrong_key_is_not_retried_and_names_the_setting(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("deepseek", provider_api, seeded_settings, profile_env, llm_max_retries=3)
    provider_api.fault("401")
    with pytest.raises(LLMAuthError) as info:
        await brief_from(gateway)
    assert len(provider_api.calls("deepseek", route="chat")) == 1
    assert "STUDIO_PROVIDERS__DEEPSEEK__API_KEY" in info.value.message and not info.value.retryable


async def test_a_stall_past_the_timeout_is_a_timeout_not_a_hang(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for(
        "qwen", provider_api, seeded_settings, profile_env, llm_timeout_s=0.5, llm_max_retries=0
    )
    provider_api.fault("stall", seconds=5)
    with pytest.raises(LLMTimeoutError) as info:
        await brief_from(gateway)
    assert info.value.code == "LLM_TIMEOUT" and "0.5 秒" in info.value.message


async def test_a_truncated_answer_is_reasked_with_more_room(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("openai", provider_api, seeded_settings, profile_env)
    provider_api.fault("truncated", tokens=20)
    assert (await brief_from(gateway)).topic
    cut, full = provider_api.calls("openai", route="chat")
    assert full.body["max_tokens"] == 2 * cut.body["max_tokens"]


@pytest.mark.parametrize("fault", ["fenced", "schema_invalid"])
async def test_fenced_json_is_repaired_and_a_schema_invalid_answer_is_reasked(
    fault: str, provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("ollama", provider_api, seeded_settings, profile_env)
    provider_api.fault(fault)
    assert (await brief_from(gateway)).topic
    asked = provider_api.calls("ollama", route="chat")
    assert len(asked) == (1 if fault == "fenced" else 2)
    if fault == "schema_invalid":
        assert "校验" in asked[-1].body["messages"][-1]["content"]


async def test_a_refused_json_schema_falls_back_to_json_mode_and_remembers(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("openai", provider_api, seeded_settings, profile_env)
    assert gateway.structured_mode() == "json_schema"
    provider_api.fault("json_schema_refused", provider="openai")
    assert (await brief_from(gateway)).topic
    assert (await brief_from(gateway)).topic
    formats = [r.body["response_format"]["type"] for r in provider_api.calls("openai", route="chat")]
    assert formats == ["json_schema", "json_object", "json_object"]


async def test_a_run_whose_provider_stays_down_fails_clearly_and_does_not_hang(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch, studio: Any
) -> None:
    settings = profile_settings("deepseek", provider_api, seeded_settings, profile_env)
    settings = settings.model_copy(update={"llm_max_retries": 1})
    provider_api.fault("503", times=None)
    events, creative = await full_run(await studio(settings), REQUEST, images=1)
    error = events[-1]
    assert error["type"] == "error" and error["code"] == "LLM_UNAVAILABLE" and error["retryable"] is True
    assert "deepseek/deepseek-chat" in error["message"] and "503" not in error["message"]
    assert creative["status"] == "failed" and creative["error"]["code"] == "LLM_UNAVAILABLE"
    # one retry layer, no agent rerun on top: the intent model's 2 attempts (it then routes by rules) and the
    # brief's 2, each retry told once
    assert len(provider_api.calls("deepseek", route="chat")) == 4
    retries = [e for e in events if e["type"] == "progress" and "秒后重试" in e["content"]]
    assert [e["agent"] for e in retries] == ["intent", "brief_compiler_agent"]
    assert all("（第 2 次尝试）" in e["content"] for e in retries)


def test_doctor_checks_every_role_of_a_profile(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from app.cli.main import cli

    for key, value in localised(profiles()["openai"], provider_api).items():
        profile_env.setenv(key, value)
    profile_env.setenv("STUDIO_WEB_SEARCH_MODEL", "gpt-4o-search-preview")
    profile_env.setenv("STUDIO_ALLOW_PRIVATE_IMAGE_URLS", "true")
    profile_env.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    profile_env.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["doctor", "--images"])
    output = " ".join(result.output.split())
    assert result.exit_code == 0, output
    for role in ("文字 gpt-4o-mini", "识图 gpt-4o-mini", "配图 dall-e-3", "联网搜索 gpt-4o-search-preview"):
        assert f"✓ {role}" in output
    assert "使用文字模型看图" in output  # no vision model set: the text model can see
    vision = [
        r
        for r in provider_api.calls("openai", route="chat")
        if isinstance(r.body["messages"][0]["content"], list)
    ]
    assert vision and vision[0].body["messages"][0]["content"][1]["type"] == "image_url"

    provider_api.keys["openai"].clear()  # the key is revoked
    result = CliRunner().invoke(cli, ["doctor"])
    output = " ".join(result.output.split())
    assert result.exit_code == 1 and "✗ 文字 gpt-4o-mini" in output
    assert "STUDIO_PROVIDERS__OPENAI__API_KEY" in output


async def test_a_spending_cap_stops_a_run_before_it_passes_the_cap(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch, studio: Any
) -> None:
    settings = profile_settings("openai", provider_api, seeded_settings, profile_env)
    settings = settings.model_copy(update={"max_run_cost_usd": 0.0005, "image_provider": "gpt-image-1"})
    events, creative = await full_run(await studio(settings), REQUEST, images=2)
    error = events[-1]
    assert error["type"] == "error" and error["code"] == "BUDGET_EXCEEDED" and not error["retryable"]
    assert "STUDIO_MAX_RUN_COST_USD" in error["message"]
    assert creative["costUsd"] is not None and creative["costUsd"] <= 0.0005
    assert not provider_api.calls("openai", route="images")  # no $0.06 picture was asked for


async def test_tool_calling_mode_reads_the_called_functions_arguments(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch
) -> None:
    gateway = gateway_for("openai", provider_api, seeded_settings, profile_env)
    key = (gateway.model, gateway.endpoint.api_base)
    llm_module._remembered_modes[key] = "tools"  # as if the schema and JSON modes had been refused
    try:
        assert (await brief_from(gateway)).topic
    finally:
        llm_module._remembered_modes.pop(key, None)
    [call] = provider_api.calls("openai", route="chat")
    assert call.body["tool_choice"] == {"type": "function", "function": {"name": "brief"}}
    assert "response_format" not in call.body


async def test_reference_images_go_to_the_main_model_when_it_can_see(
    provider_api: ProviderAPI, seeded_settings: Settings, profile_env: pytest.MonkeyPatch, studio: Any
) -> None:
    import base64
    import io

    from PIL import Image

    settings = profile_settings("openai", provider_api, seeded_settings, profile_env)
    settings = settings.model_copy(update={"image_provider": "offline"})
    buffer = io.BytesIO()
    Image.new("RGB", (320, 480), "#D9C6A5").save(buffer, "PNG")
    photo = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    client = await studio(settings)
    response = await client.post(
        "/api/agent/stream",
        json={
            "message": REQUEST,
            "enableHITL": False,
            "imageCount": 1,
            "referenceImages": [{"data": photo, "type": "style"}],
        },
        timeout=120,
    )
    events = events_of(response.text)
    assert events[-1]["type"] == "workflow_complete"
    seen = [
        r
        for r in provider_api.calls("openai", route="chat")
        if any(isinstance(m["content"], list) for m in r.body["messages"])
    ]
    assert len(seen) == 1 and seen[0].body["model"] == "gpt-4o-mini"
    parts = next(m["content"] for m in seen[0].body["messages"] if isinstance(m["content"], list))
    assert parts[1]["type"] == "image_url" and parts[1]["image_url"]["url"].startswith("data:image/")
