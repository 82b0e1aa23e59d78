"""SSE framing for the protocol: `id: <seq>` + `data: <json>` frames, `: keep-alive` heartbeats while
idle, and the terminal `data: [DONE]` frame that ends every stream (sse-starlette does the transport).

An ephemeral event (no `seq`: the streaming draft's `content_delta`) is a frame without an `id:` line, so
a client's last event id — the cursor it reconnects with — stays the last stored event's seq."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse

DONE = "[DONE]"


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
) -> EventSourceResponse:
    """Stream `events` as SSE and end with `[DONE]`. `on_disconnect` runs if the client goes away first."""

    async def frames() -> AsyncIterator[ServerSentEvent]:
        try:
            async for event in events:
                yield frame(event)
            yield ServerSentEvent(data=DONE, sep="\n")
        except asyncio.CancelledError:  # the client went away (or the server is stopping)
            if on_disconnect is not None:
                on_disconnect()
            raise

    return EventSourceResponse(
        frames(),
        ping=heartbeat_s,
        ping_message_factory=lambda: ServerSentEvent(comment="keep-alive", sep="\n"),
        sep="\n",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
