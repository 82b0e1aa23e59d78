"""Fixtures for agent tests: a real knowledge store seeded once per session with the shipped sample
corpus, a migrated SQLite database, a real asset store and the offline providers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agents.context import RunOptions, StudioContext
from app import migrate
from tools.assets import AssetStore
from tools.database import create_engine, session_factory
from tools.images import make_image_provider
from tools.knowledge import KnowledgeStore, parse_notes_file, parse_styles_file
from tools.llm import LLMConfig, LLMGateway, UsageMeter

DATA = Path(__file__).resolve().parents[2] / "data"


async def _seed(path: Path) -> None:
    store = await KnowledgeStore.open(path)
    try:
        notes = [note for file in sorted((DATA / "notes").glob("*.jsonl")) for note in parse_notes_file(file)]
        await store.upsert_notes(notes)
        if (DATA / "styles.jsonl").exists():
            await store.upsert_styles(parse_styles_file(DATA / "styles.jsonl"))
    finally:
        await store.close()


@pytest.fixture(scope="session")
def knowledge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("knowledge") / "lancedb"
    asyncio.run(_seed(path))
    return path


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
