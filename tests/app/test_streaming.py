"""The streaming draft over real HTTP (the ASGI app under uvicorn on loopback, an httpx SSE client): the
`content_delta` frames come without `id:` and without `seq` before the final `content_update`, are never
stored or replayed, leave Last-Event-ID bookkeeping alone, and a client joining mid-draft gets the draft so
far as one `reset`."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import select

from app import migrate
from app.http.factory import create_app
from app.settings import Settings
from bench.server import free_port
from tests.serving import admin_token, bearer
from tools.database import RunEvent, create_engine, session_factory
from tools.offline import register_offline_provider

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
BODY = {"message": REQUEST, "imageCount": 1, "enableHITL": False}


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[str]:
    """`create_app(settings)` under uvicorn on a free loopback port, in this event loop; its base URL."""
    settings.ensure_dirs()
    await migrate.upgrade_async(settings.db_url)
    port = free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(60):
            while not server.started:
                if task.done():
                    task.result()  # raises what stopped it
                await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.fixture
def paced() -> Iterator[None]:
    """The offline model streams: first token after 20 ms, then 1500 characters a second."""
    register_offline_provider(first_token_ms=20, chars_per_s=1500)
    yield
    register_offline_provider(first_token_ms=None, chars_per_s=None)


@dataclass
class Frames:
    """The frames of one SSE response as they arrived: each frame's fields (`id`, `data`)."""

    frames: list[dict[str, str]] = field(default_factory=list)
    done: bool = False
    arrived: asyncio.Event = field(default_factory=asyncio.Event)  # set at each frame

    @property
    def events(self) -> list[dict[str, Any]]:
        return [json.loads(f["data"]) for f in self.frames]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


async def read(response: httpx.Response, into: Frames) -> None:
    """Read SSE frames into `into` until `[DONE]`."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if fields.get("data") == "[DONE]":
                into.done = True
                return
            if "data" in fields:
                into.frames.append(fields)
                into.arrived.set()
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value


def shown(deltas: list[dict[str, Any]]) -> tuple[str, str]:
    """The draft a client following `deltas` shows; every delta must fit where the text has got to."""
    title = body = ""
    for delta in deltas:
        if delta["reset"]:
            title = body = ""
        assert (delta["titleOffset"], delta["bodyOffset"]) == (len(title), len(body)), delta
        title, body = title + delta["titleDelta"], body + delta["bodyDelta"]
    return title, body


async def stored_types(settings: Settings, thread_id: str) -> list[str]:
    engine = create_engine(settings.db_url)
    try:
        async with session_factory(engine)() as session:
            rows = await session.scalars(
                select(RunEvent.type).where(RunEvent.thread_id == thread_id).order_by(RunEvent.seq)
            )
            return list(rows.all())
    finally:
        await engine.dispose()


async def test_deltas_come_without_ids_before_the_content_update_and_are_never_stored_or_replayed(
    seeded_settings: Settings, paced: None
) -> None:
    async with served(seeded_settings) as url, httpx.AsyncClient(
        base_url=url, timeout=120, headers=bearer(admin_token(seeded_settings.data_dir))
    ) as client:
        run = Frames()
        async with client.stream("POST", "/api/agent/stream", json=BODY) as response:
            assert response.status_code == 200
            await read(response, run)
        assert run.done
        thread_id = run.events[0]["threadId"]

        # every stored event's frame has its seq as id; a delta's frame has neither
        pairs = list(zip(run.frames, run.events, strict=True))
        numbered = [(f, e) for f, e in pairs if e["type"] != "content_delta"]
        assert [int(f["id"]) for f, _ in numbered] == [e["seq"] for _, e in numbered]
        assert [e["seq"] for _, e in numbered] == list(range(1, len(numbered) + 1))
        deltas = run.of("content_delta")
        assert len(deltas) >= 3
        for f, e in pairs:
            if e["type"] == "content_delta":
                assert "id" not in f and "seq" not in e and e["threadId"] == thread_id

        # each writer call: its deltas, then its content_update, whose text they are the start of
        types = [e["type"] for e in run.events]
        first_delta, update = types.index("content_delta"), types.index("content_update")
        assert first_delta < update and run.events[first_delta]["reset"]
        title, body = shown([e for e in run.events[first_delta:update] if e["type"] == "content_delta"])
        final = run.events[update]
        assert body and final["title"].startswith(title.strip()) and final["body"].startswith(body.strip())

        # not stored; a reconnect from before the first delta replays the stored events, no delta
        assert await stored_types(seeded_settings, thread_id) == [e["type"] for _, e in numbered]
        before = run.events[first_delta - 1]["seq"]
        again = Frames()
        path, headers = f"/api/agent/threads/{thread_id}/events", {"Last-Event-ID": str(before)}
        async with client.stream("GET", path, headers=headers) as response:
            await read(response, again)
        assert again.done and again.events == [e for _, e in numbered][before:]
        assert not again.of("content_delta") and again.of("content_update")[0] == final


async def test_a_client_joining_mid_draft_gets_the_draft_so_far_then_follows_it(
    seeded_settings: Settings,
) -> None:
    register_offline_provider(first_token_ms=20, chars_per_s=500)  # a draft that takes a few seconds
    try:
        async with served(seeded_settings) as url, httpx.AsyncClient(
            base_url=url, timeout=120, headers=bearer(admin_token(seeded_settings.data_dir))
        ) as client:
            first, joined = Frames(), Frames()
            async with client.stream("POST", "/api/agent/stream", json=BODY) as response:
                reading = asyncio.create_task(read(response, first))
                async with asyncio.timeout(60):  # until the body is streaming
                    while not any(d["bodyDelta"] for d in first.of("content_delta")):
                        first.arrived.clear()
                        await first.arrived.wait()
                seen = max(int(f["id"]) for f in first.frames if "id" in f)
                thread_id = first.events[0]["threadId"]
                path = f"/api/agent/threads/{thread_id}/events"
                async with client.stream("GET", path, headers={"Last-Event-ID": str(seen)}) as other:
                    await read(other, joined)
                await reading
    finally:
        register_offline_provider(first_token_ms=None, chars_per_s=None)

    assert first.done and joined.done
    deltas = joined.of("content_delta")
    assert deltas and deltas[0]["reset"] and deltas[0]["bodyDelta"]  # the whole draft so far, at once
    assert deltas[0]["attempt"] == 1 and (deltas[0]["titleOffset"], deltas[0]["bodyOffset"]) == (0, 0)
    # the joiner missed no stored event and got none twice
    numbered = [e["seq"] for e in joined.events if "seq" in e]
    assert numbered == list(range(seen + 1, seen + 1 + len(numbered)))
    # at the first content_update both show the same draft
    def upto_update(frames: Frames) -> list[dict[str, Any]]:
        types = [e["type"] for e in frames.events]
        return [e for e in frames.events[: types.index("content_update")] if e["type"] == "content_delta"]

    assert shown(upto_update(joined)) == shown(upto_update(first))
