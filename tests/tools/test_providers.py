"""Model roles resolve to their own endpoints: never another provider's base or key."""

from __future__ import annotations

import pytest

from app.resources import llm_config, role_endpoint
from app.settings import Settings
from tools.llm import LLMConfig, LLMGateway
from tools.providers import Endpoint, ProviderKeys, image_price_usd, provider_of, resolve


def test_provider_prefixes() -> None:
    assert provider_of("deepseek/deepseek-chat") == "deepseek"
    assert provider_of("gpt-4o-mini") == "openai"
    assert provider_of("dall-e-3") == "openai"
    assert provider_of("ollama_chat/qwen2.5:7b") == "ollama_chat"
    assert provider_of("studio/offline") == "studio"


def test_a_role_uses_its_own_settings_first() -> None:
    text = Endpoint("gpt-4o-mini", "http://text/v1", "sk-text")
    vision = resolve("gpt-4o", role="vision", api_base="http://vision/v1", api_key="sk-vision", text=text)
    assert (vision.api_base, vision.api_key, vision.key_setting) == (
        "http://vision/v1",
        "sk-vision",
        "STUDIO_VISION_API_KEY",
    )


def test_a_role_of_the_same_provider_shares_the_text_endpoint() -> None:
    text = Endpoint("gpt-4o-mini", "http://text/v1", "sk-text", key_setting="STUDIO_LLM_API_KEY")
    image = resolve("dall-e-3", role="image", text=text)
    assert (image.api_base, image.api_key, image.key_setting) == (
        "http://text/v1",
        "sk-text",
        "STUDIO_LLM_API_KEY",
    )


def test_another_providers_model_never_gets_the_text_endpoint() -> None:
    text = Endpoint("deepseek/deepseek-chat", "https://api.deepseek.com", "sk-deepseek")
    bare = resolve("gpt-4o", role="vision", text=text)
    assert bare.api_base is None and bare.api_key is None  # litellm reads OPENAI_API_KEY
    assert "STUDIO_VISION_API_KEY" in bare.key_setting and "OPENAI_API_KEY" in bare.key_setting
    providers = {"openai": ProviderKeys(api_base="http://openai/v1", api_key="sk-openai")}
    keyed = resolve("gpt-4o", role="vision", text=text, providers=providers)
    assert (keyed.api_base, keyed.api_key, keyed.key_setting) == (
        "http://openai/v1",
        "sk-openai",
        "STUDIO_PROVIDERS__OPENAI__API_KEY",
    )


def test_a_per_request_model_override_goes_to_its_own_provider() -> None:
    config = LLMConfig(
        model="deepseek/deepseek-chat",
        api_base="https://api.deepseek.com",
        api_key="sk-deepseek",
        providers={"openai": ProviderKeys(api_key="sk-openai")},
    )
    override = LLMGateway(config).with_model("gpt-4o")
    assert (override.endpoint.api_base, override.endpoint.api_key) == (None, "sk-openai")
    same = LLMGateway(config).with_model("deepseek/deepseek-reasoner")
    assert (same.endpoint.api_base, same.endpoint.api_key) == ("https://api.deepseek.com", "sk-deepseek")


def test_settings_build_every_role(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDIO_LLM_MODEL", "deepseek/deepseek-chat")
    monkeypatch.setenv("STUDIO_PROVIDERS__DEEPSEEK__API_KEY", "sk-deepseek")
    monkeypatch.setenv("STUDIO_VISION_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("STUDIO_VISION_API_KEY", "sk-vision")
    monkeypatch.setenv("STUDIO_IMAGE_PROVIDER", "dall-e-3")
    monkeypatch.setenv("STUDIO_IMAGE_API_BASE", "http://images/v1")
    monkeypatch.setenv("STUDIO_PROVIDERS__OPENAI__API_KEY", "sk-openai")
    settings = Settings(_env_file=None)
    config = llm_config(settings)
    assert (config.model, config.api_key, config.key_setting) == (
        "deepseek/deepseek-chat",
        "sk-deepseek",
        "STUDIO_PROVIDERS__DEEPSEEK__API_KEY",
    )
    assert config.roles["vision"].api_key == "sk-vision" and "web_search" not in config.roles
    image = role_endpoint(settings, "image")
    assert image is not None and (image.api_base, image.api_key) == ("http://images/v1", "sk-openai")


def test_image_prices_are_known_or_null_never_zero() -> None:
    assert image_price_usd("gpt-image-1", "1024x1536") == 0.063  # medium quality, litellm's map
    assert image_price_usd("gpt-image-1", "1024x1536", "high") == 0.25
    assert image_price_usd("dall-e-3", "1024x1792") is None  # not in litellm's map: unknown, not 0
    assert image_price_usd("studio/offline", "1080x1440") == 0.0


def test_the_plans_checkpoint_estimates_paid_pictures_before_any_is_drawn() -> None:
    from agents.hitl import _cost_note, image_cost

    assert image_cost("offline", 4) is None
    cost = image_cost("gpt-image-1", 4)
    assert cost == {
        "model": "gpt-image-1",
        "count": 4,
        "size": "1024x1536",
        "perImageUsd": 0.063,
        "totalUsd": 0.252,
    }
    assert _cost_note(cost) == "（gpt-image-1 共 4 张，预计图片费用约 $0.25）"
    unknown = image_cost("dall-e-3", 3)
    assert unknown is not None and unknown["totalUsd"] is None and "图片费用未知" in _cost_note(unknown)


def test_the_offline_models_streaming_pace_comes_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.offline.provider import _registered

    monkeypatch.setenv("STUDIO_OFFLINE_FIRST_TOKEN_MS", "250")
    monkeypatch.setenv("STUDIO_OFFLINE_CHARS_PER_S", "120")
    LLMGateway(llm_config(Settings(_env_file=None))).litellm()
    offline = _registered["studio"]
    try:
        assert (offline.first_token_ms, offline.chars_per_s) == (250.0, 120.0)
        LLMGateway(LLMConfig()).litellm()  # unset: the pace the process has is kept
        assert (offline.first_token_ms, offline.chars_per_s) == (250.0, 120.0)
    finally:
        offline.first_token_ms = offline.chars_per_s = None
