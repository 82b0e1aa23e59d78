"""Fixtures for agent tests: the session's seeded knowledge store (tests/conftest.py), a migrated SQLite
database, a real asset store and the offline providers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agents.context import RunOptions, StudioContext
from app import migrate
from tools.assets import AssetStore
from tools.database import create_engine, session_factory
from tools.images import make_image_provider
from tools.knowledge import KnowledgeStore
from tools.llm import LLMConfig, LLMGateway, UsageMeter


@pytest.fixture
async def ctx(tmp_path: Path, knowledge_dir: Path) -> AsyncIterator[StudioContext]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}"
    await migrate.upgrade_async(url)
    engine = create_engine(url)
    store = await KnowledgeStore.open(knowledge_dir)
    sessions = session_factory(engine)
    try:
        yield StudioContext(
            llm=LLMGateway(LLMConfig()).with_meter(UsageMeter()),
            knowledge=store,
            images=make_image_provider("offline"),
            assets=AssetStore(tmp_path / "assets", sessions),
            sessions=sessions,
            options=RunOptions(),
        )
    finally:
        await store.close()
        await engine.dispose()
