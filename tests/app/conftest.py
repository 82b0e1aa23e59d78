"""Fixtures for the HTTP side: the app in-process (`api`) and a real `studio serve` process
(`live_server`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from app.settings import Settings
from tests.serving import LiveServer, asgi_client


@pytest.fixture
async def api(seeded_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """httpx client on `create_app(seeded_settings)`; the app's settings are `seeded_settings`."""
    async with asgi_client(seeded_settings) as client:
        yield client


@pytest.fixture
def live_server(seeded_settings: Settings) -> Iterator[LiveServer]:
    """A real server process on the seeded data dir (migrated and seeded by `studio serve` itself)."""
    server = LiveServer(seeded_settings.data_dir).start()
    try:
        yield server
    finally:
        server.stop()
