"""Fakes for tests: a scripted litellm provider whose answers are queued by the test."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from tools.llm import litellm_module


class ScriptedProvider:
    """Register with `install()`; then calls to `scripted/<anything>` pop the next scripted step.

    A step is a string (the answer), an exception instance (raised) or a float (seconds to sleep, then
    the next step is used). Every call's messages are kept in `calls`.
    """

    name = "scripted"

    def __init__(self) -> None:
        self.steps: deque[Any] = deque()
        self.calls: list[list[dict[str, Any]]] = []

    def script(self, *steps: Any) -> ScriptedProvider:
        self.steps.extend(steps)
        return self

    def install(self) -> ScriptedProvider:
        litellm = litellm_module()
        owner = self

        class Handler(litellm.CustomLLM):  # type: ignore[misc,name-defined]
            async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
                owner.calls.append(list(kwargs.get("messages") or []))
                step = owner.steps.popleft()
                if isinstance(step, float):
                    await asyncio.sleep(step)
                    step = owner.steps.popleft()
                if isinstance(step, BaseException):
                    raise step
                return litellm.ModelResponse(
                    model="scripted",
                    choices=[{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": step}}],
                    usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                )

        others = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != self.name]
        litellm.custom_provider_map = [*others, {"provider": self.name, "custom_handler": Handler()}]
        return self
