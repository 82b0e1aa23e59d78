"""Real servers for tests: the ASGI app in-process (httpx, with its lifespan) and `studio serve` as a
separate process on a free port, which tests may kill -9 and start again on the same data dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from app import migrate
from app.http.auth import TOKEN_FILE, read_token_file
from app.http.factory import create_app
from app.settings import Settings
from bench.server import free_port, wait_for_health
from tools.database import is_postgresql

ROOT = Path(__file__).resolve().parents[1]


def admin_token(data_dir: Path) -> str:
    """The local admin's API token, which the server's first start wrote into the data dir."""
    token = read_token_file(data_dir / TOKEN_FILE)
    assert token, f"no admin token in {data_dir}"
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def database_env(settings: Settings) -> dict[str, str]:
    """The environment that puts a server process (`LiveServer(settings.data_dir, env=…)`) on `settings`'
    database: nothing for the data dir's SQLite file (the default), `STUDIO_DATABASE_URL` for PostgreSQL."""
    return {"STUDIO_DATABASE_URL": settings.db_url} if is_postgresql(settings.db_url) else {}


@asynccontextmanager
async def asgi_client(
    settings: Settings, *, authenticated: bool = True
) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to `create_app(settings)` in-process, lifespan included; it sends the local
    admin's token unless `authenticated=False`."""
    settings.ensure_dirs()
    await migrate.upgrade_async(settings.db_url)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        headers = bearer(admin_token(settings.data_dir)) if authenticated else {}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost", timeout=60, headers=headers
        ) as client:
            yield client


class LiveServer:
    """`python -m app serve` on a data dir; `start()`, `kill()` (SIGKILL), `stop()` (graceful)."""

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "STUDIO_DATA_DIR": str(data_dir), **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.log_path = data_dir.parent / f"server-{self.port}.log"

    def start(self, timeout: float = 90) -> LiveServer:
        log = self.log_path.open("a", encoding="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", str(self.port)],
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        log.close()
        wait_for_health(self.proc, self.url, timeout, self.log, every_s=0.1)
        return self

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8") if self.log_path.exists() else ""

    def kill(self) -> None:
        """kill -9: no shutdown hooks run."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=15)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def token(self) -> str:
        return admin_token(self.data_dir)

    def client(self, *, authenticated: bool = True, **kwargs: Any) -> httpx.Client:
        """A client of the server that sends the local admin's token (unless `authenticated=False`)."""
        headers = {**(bearer(self.token()) if authenticated else {}), **kwargs.pop("headers", {})}
        return httpx.Client(base_url=self.url, timeout=kwargs.pop("timeout", 60), headers=headers, **kwargs)


def parse_sse(text: str) -> list[dict[str, Any] | str]:
    """The data of each frame of an SSE body, checked against the protocol: every event frame has an
    `id:` equal to its `seq` — except an ephemeral event's (`content_delta`), which has neither —, comments
    are heartbeats, and the body ends with exactly one `[DONE]`."""
    from agents.events import EPHEMERAL_TYPES

    frames: list[dict[str, Any] | str] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        data = fields["data"]
        if data == "[DONE]":
            assert "id" not in fields
            frames.append(data)
            continue
        event = json.loads(data)
        if event["type"] in EPHEMERAL_TYPES:
            assert "id" not in fields and "seq" not in event, block
        else:
            assert fields.get("id") == str(event["seq"]), block
        frames.append(event)
    assert frames and frames[-1] == "[DONE]" and frames.count("[DONE]") == 1, frames[-3:]
    return frames


def events_of(text: str) -> list[dict[str, Any]]:
    """The stored events of an SSE body (validated by `parse_sse`): without the `[DONE]` frame and the
    ephemeral events (those are in `live_events_of`)."""
    return [frame for frame in live_events_of(text) if "seq" in frame]


async def post_events(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST `body` to an SSE endpoint and read the stream to its end: its stored events."""
    response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream"), response.headers
    return events_of(response.text)


async def stream_run(client: httpx.AsyncClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    """`POST /api/agent/stream` (a run, or a revision with a `threadId`): its stored events."""
    return await post_events(client, "/api/agent/stream", body)


async def completed_run(client: httpx.AsyncClient, message: str, *, images: int = 1) -> dict[str, Any]:
    """A run straight through (no checkpoints): its `workflow_complete` event."""
    events = await stream_run(client, {"message": message, "imageCount": images, "enableHITL": False})
    assert events[-1]["type"] == "workflow_complete", events[-1]
    return events[-1]


def live_events_of(text: str) -> list[dict[str, Any]]:
    """Every event of an SSE body as it was sent, ephemeral ones included, without the `[DONE]` frame."""
    return [frame for frame in parse_sse(text) if isinstance(frame, dict)]
