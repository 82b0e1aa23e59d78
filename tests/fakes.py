"""Fakes for tests: a scripted litellm provider whose answers are queued by the test, the offline model
recording its calls, and a reference photo."""

from __future__ import annotations

import asyncio
import io
from collections import deque
from typing import Any

from PIL import Image

from tools.llm import litellm_module


def register_provider(name: str, handler: Any) -> None:
    """Route `<name>/*` models to `handler` (a litellm CustomLLM), replacing an earlier one of that name,
    and declare for `<name>/offline` the capability the offline model has, so the gateway asks for
    JSON-schema output."""
    litellm = litellm_module()
    others = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != name]
    litellm.custom_provider_map = [*others, {"provider": name, "custom_handler": handler}]
    litellm.register_model(
        {
            f"{name}/offline": {
                "litellm_provider": name,
                "mode": "chat",
                "supports_response_schema": True,
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
            }
        }
    )


class ScriptedProvider:
    """Register with `install()`; then calls to `scripted/<anything>` pop the next scripted step.

    A step is a string (the answer), a dict (`content` and `finish_reason`), an exception instance (raised)
    or a float (seconds to sleep, then the next step is used). Every call's messages are kept in `calls`,
    and the parameters of the calls that were answered in `params`.
    """

    name = "scripted"

    def __init__(self) -> None:
        self.steps: deque[Any] = deque()
        self.calls: list[list[dict[str, Any]]] = []
        self.params: list[dict[str, Any]] = []

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
                owner.params.append(dict(kwargs.get("optional_params") or {}))
                answer = step if isinstance(step, dict) else {"content": step}
                return litellm.ModelResponse(
                    model="scripted",
                    choices=[
                        {
                            "index": 0,
                            "finish_reason": answer.get("finish_reason", "stop"),
                            "message": {"role": "assistant", "content": answer["content"]},
                        }
                    ],
                    usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                )

        register_provider(self.name, Handler())
        return self


class RecordingOffline:
    """The offline model under another provider name (`spy/offline`), recording every call's task and
    messages before answering exactly as `studio/offline` would."""

    name = "spy"

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[dict[str, Any]]]] = []

    def install(self) -> RecordingOffline:
        from tools.offline.provider import OfflineLLM, _make_handler

        litellm = litellm_module()
        inner = _make_handler(OfflineLLM())
        owner = self

        class Handler(litellm.CustomLLM):  # type: ignore[misc,name-defined]
            def _task(self, kwargs: dict[str, Any]) -> str:
                metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
                return str(metadata.get("task", "?"))

            async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
                owner.calls.append((self._task(kwargs), list(kwargs.get("messages") or [])))
                return await inner.acompletion(*args, **kwargs)

            async def astreaming(self, *args: Any, **kwargs: Any) -> Any:
                owner.calls.append((self._task(kwargs), list(kwargs.get("messages") or [])))
                async for chunk in inner.astreaming(*args, **kwargs):
                    yield chunk

        register_provider(self.name, Handler())
        return self

    def tasks(self) -> list[str]:
        return [task for task, _ in self.calls]

    def prompts(self, task: str) -> list[str]:
        return ["\n".join(str(m.get("content")) for m in messages) for t, messages in self.calls if t == task]


def reference_png() -> bytes:
    """A 600×800 reference photo: a cream background over a striped green lawn."""
    image = Image.new("RGB", (600, 800), "#F2E6D8")
    for y in range(500, 800):
        for x in range(0, 600, 3):
            image.putpixel((x, y), (110, 140, 90))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


class TamperedOffline(RecordingOffline):
    """The offline model (as `tampered/offline`), whose first answers of one task are rewritten by
    `tamper` (the answer's JSON text in, a new one out) — a model making a known mistake, once."""

    name = "tampered"

    def __init__(self, task: str, tamper: Any, times: int = 1) -> None:
        super().__init__()
        self.task, self.tamper, self.times = task, tamper, times

    def install(self) -> TamperedOffline:
        from tools.offline.provider import OfflineLLM, _make_handler

        litellm = litellm_module()
        inner = _make_handler(OfflineLLM())
        owner = self

        class Handler(litellm.CustomLLM):  # type: ignore[misc,name-defined]
            async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
                metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
                task = str(metadata.get("task", "?"))
                owner.calls.append((task, list(kwargs.get("messages") or [])))
                response = await inner.acompletion(*args, **kwargs)
                if task == owner.task and owner.times > 0:
                    owner.times -= 1
                    message = response.choices[0].message
                    message.content = owner.tamper(message.content)
                return response

            async def astreaming(self, *args: Any, **kwargs: Any) -> Any:
                """The (possibly tampered) answer, streamed in small chunks as the offline model does."""
                response = await self.acompletion(*args, **kwargs)
                content = str(response.choices[0].message.content)
                for start in range(0, len(content), 8):
                    yield {"text": content[start : start + 8], "is_finished": False, "finish_reason": "",
                           "usage": None, "index": 0, "tool_use": None}
                yield {"text": "", "is_finished": True, "finish_reason": "stop", "usage": None, "index": 0,
                       "tool_use": None}

        register_provider(self.name, Handler())
        return self
