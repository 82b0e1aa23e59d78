"""Model roles and their endpoints: which model, API base and API key each role talks to.

The studio has four model roles — text (every agent), vision (reference images), image (pictures) and web
search — each with a model and, optionally, its own API base and key (`STUDIO_LLM_*`, `STUDIO_VISION_*`,
`STUDIO_IMAGE_*`, `STUDIO_WEB_SEARCH_*`). Provider-wide settings are keyed by litellm's provider prefix
(`STUDIO_PROVIDERS__DEEPSEEK__API_KEY`, `STUDIO_PROVIDERS__OPENAI__API_BASE`).

`resolve()` decides, separately for the base and for the key: the role's own setting; else the text role's,
when the role's model is from the same provider as the text model; else the provider's settings; else
nothing, and litellm reads the provider's own variable (`OPENAI_API_KEY`, `DEEPSEEK_API_KEY` …). A model is
never sent to another provider's endpoint with another provider's key. A per-request `model` override
resolves the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Role = Literal["text", "vision", "image", "web_search"]
ROLE_PREFIX: dict[str, str] = {
    "text": "STUDIO_LLM",
    "vision": "STUDIO_VISION",
    "image": "STUDIO_IMAGE",
    "web_search": "STUDIO_WEB_SEARCH",
}
ROLE_MODEL_SETTING: dict[str, str] = {
    "text": "STUDIO_LLM_MODEL",
    "vision": "STUDIO_VISION_MODEL",
    "image": "STUDIO_IMAGE_PROVIDER",
    "web_search": "STUDIO_WEB_SEARCH_MODEL",
}
# litellm names one local server two ways; its settings are shared.
_ALIASES = {"ollama_chat": "ollama", "ollama": "ollama_chat"}
# The variables litellm itself reads when no key is given, for the error message that says what to set.
PROVIDER_KEY_VARIABLE = {
    "openai": "OPENAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "dashscope": "DASHSCOPE_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
KEYLESS_PROVIDERS = frozenset({"ollama", "ollama_chat", "hosted_vllm", "lm_studio", "studio"})


@dataclass(frozen=True)
class ProviderKeys:
    """`STUDIO_PROVIDERS__<PREFIX>__API_BASE` / `__API_KEY`."""

    api_base: str | None = None
    api_key: str | None = None


@dataclass(frozen=True)
class Endpoint:
    """A model and where to reach it; `key_setting` names the variable that supplies (or should supply) its
    key, for error messages."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    role: str = "text"
    key_setting: str = "STUDIO_LLM_API_KEY"

    @property
    def provider(self) -> str:
        return provider_of(self.model)


def provider_of(model: str) -> str:
    """litellm's provider prefix of a model name: `deepseek/deepseek-chat` → deepseek, `gpt-4o-mini` →
    openai (from litellm's model map), `dall-e-3` → openai."""
    from tools.llm import OFFLINE_PROVIDER, litellm_module

    head = model.split("/", 1)[0] if "/" in model else ""
    if head == OFFLINE_PROVIDER:
        return OFFLINE_PROVIDER
    litellm = litellm_module()
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm knows image models by its cost map only
        known = (litellm.model_cost.get(model) or {}).get("litellm_provider")
        return str(known or head or "openai")


def _provider_settings(providers: Mapping[str, ProviderKeys], provider: str) -> tuple[ProviderKeys, str]:
    for name in (provider, _ALIASES.get(provider, "")):
        if name and name in providers:
            return providers[name], name
    return ProviderKeys(), provider


def resolve(
    model: str,
    *,
    role: str,
    api_base: str | None = None,
    api_key: str | None = None,
    text: Endpoint | None = None,
    providers: Mapping[str, ProviderKeys] | None = None,
) -> Endpoint:
    """The endpoint of `role` using `model` (see the module docstring for the order)."""
    prefix = ROLE_PREFIX.get(role, "STUDIO_LLM")
    provider = provider_of(model)
    keys, keys_name = _provider_settings(providers or {}, provider)
    provider_setting = f"STUDIO_PROVIDERS__{keys_name.upper()}__API_KEY"
    same = text is not None and provider_of(text.model) == provider
    base = api_base or (text.api_base if same and text else None) or keys.api_base
    if api_key:
        key, setting = api_key, f"{prefix}_API_KEY"
    elif same and text and text.api_key:
        key, setting = text.api_key, text.key_setting
    elif keys.api_key:
        key, setting = keys.api_key, provider_setting
    else:
        own = PROVIDER_KEY_VARIABLE.get(provider)
        key, setting = None, f"{prefix}_API_KEY 或 {provider_setting}" + (f"（或 {own}）" if own else "")
    return Endpoint(model=model, api_base=base, api_key=key, role=role, key_setting=setting)


def image_price_usd(model: str, size: str, quality: str | None = None) -> float | None:
    """What one picture of `size` ("1024x1792") costs from litellm's price map, or None when unknown (its map
    has no OpenAI dall-e-3 prices, for one: unknown, not a guess). `quality` defaults to the model's."""
    from tools.llm import litellm_module

    if provider_of(model) == "studio":
        return 0.0
    prices = litellm_module().model_cost
    name = model.split("/", 1)[1] if model.startswith("openai/") else model
    quality = quality or ("medium" if "gpt-image" in name else "standard")
    width, _, height = size.partition("x")
    for key in (f"{quality}/{width}-x-{height}/{name}", f"{width}-x-{height}/{name}", name):
        entry = prices.get(key) or {}
        if entry.get("input_cost_per_image"):
            return round(float(entry["input_cost_per_image"]), 6)
        if entry.get("output_cost_per_image"):
            return round(float(entry["output_cost_per_image"]), 6)
        if entry.get("input_cost_per_pixel") and width.isdigit() and height.isdigit():
            return round(float(entry["input_cost_per_pixel"]) * int(width) * int(height), 6)
    return None
