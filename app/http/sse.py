"""SSE framing for the protocol: `id: <seq>` + `data: <json>` frames, `: keep-alive` heartbeats while
idle, and the terminal `data: [DONE]` frame that ends every stream (sse-starlette does the transport).

An ephemeral event (no `seq`: the streaming draft's `content_delta`) is a frame without an `id:` line, so
a client's last event id — the cursor it reconnects with — stays the last stored event's seq.

A graceful stop (SIGTERM, Ctrl-C) ends streams, it does not cut them: sse-starlette notices the server
stopping and sets the response's shutdown event, the stream then calls `on_shutdown` (the run manager
stops its runs, recording each as INTERRUPTED and publishing that event), and the events it follows end
with that `error` and `[DONE]` as usual. Only a stream still open `SHUTDOWN_GRACE_S` later is cut, before
uvicorn's own limit (`timeout_graceful_shutdown`, app/cli/main.py) ends the process."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse

DONE = "[DONE]"
SHUTDOWN_GRACE_S = 4.0  # less than uvicorn's timeout_graceful_shutdown (5 s)


def frame(event: dict[str, Any]) -> ServerSentEvent:
    seq = event.get("seq")
    return ServerSentEvent(
        data=json.dumps(event, ensure_ascii=False), id=None if seq is None else str(seq), sep="\n"
    )


def event_stream(
    events: AsyncIterator[dict[str, Any]],
    *,
    heartbeat_s: float,
    on_disconnect: Callable[[], None] | None = None,
    on_shutdown: Callable[[], Awaitable[None]] | None = None,
) -> EventSourceResponse:
    """Stream `events` as SSE and end with `[DONE]`. `on_disconnect` runs if the client goes away first;
    `on_shutdown` when the server starts a graceful stop (it should make `events` end soon, with their
    last event saying why)."""
    stopping = anyio.Event()

    async def when_stopping() -> None:
        await stopping.wait()
        if on_shutdown is not None:
            await on_shutdown()

    async def frames() -> AsyncIterator[ServerSentEvent]:
        watcher = asyncio.create_task(when_stopping(), name="sse:on-shutdown")
        try:
            async for event in events:
                yield frame(event)
            yield ServerSentEvent(data=DONE, sep="\n")
        except asyncio.CancelledError:  # the client went away (or the stop's grace period ran out)
            if on_disconnect is not None and not stopping.is_set():
                on_disconnect()
            raise
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    return EventSourceResponse(
        frames(),
        ping=heartbeat_s,
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
        sep="\n",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        shutdown_event=stopping,
        shutdown_grace_period=SHUTDOWN_GRACE_S,
    )
