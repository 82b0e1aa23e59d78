"""The embedded offline LLM (`studio/offline`): deterministic, on-topic answers for every agent task.

Composers (`writing`, `planning`) build the content from the prompt's sections; `schema.conform` makes
it valid for the requested output model; `provider` plugs it into litellm.
"""

from tools.offline.provider import OfflineLLM, register_offline_provider

__all__ = ["OfflineLLM", "register_offline_provider"]
