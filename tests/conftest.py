"""Shared fixtures: isolated settings on a temporary data dir, and a knowledge store seeded once per
session with the shipped sample corpus (copy it, never write to it)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from app.settings import Settings
from tools.knowledge import KnowledgeStore, parse_notes_file, parse_styles_file

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # in-process apps draw cards in threads: a worker pool per test would spawn two processes each time;
    # the real servers of tests/serving.py run with the default pool
    s = Settings(_env_file=None, data_dir=tmp_path / "data", render_workers=0)  # type: ignore[call-arg]
    s.ensure_dirs()
    return s


async def _seed(path: Path) -> None:
    store = await KnowledgeStore.open(path)
    try:
        notes = [note for file in sorted((DATA / "notes").glob("*.jsonl")) for note in parse_notes_file(file)]
        await store.upsert_notes(notes)
        await store.upsert_styles(parse_styles_file(DATA / "styles.jsonl"))
    finally:
        await store.close()


@pytest.fixture(scope="session")
def knowledge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("knowledge") / "lancedb"
    asyncio.run(_seed(path))
    return path


@pytest.fixture
def seeded_settings(settings: Settings, knowledge_dir: Path) -> Settings:
    """Settings whose data dir holds a copy of the seeded knowledge store (the database is not migrated)."""
    shutil.copytree(knowledge_dir, settings.store_dir, dirs_exist_ok=True)
    return settings


# --- the fake model providers (appended; imports here for typing only) ---
from typing import TYPE_CHECKING  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.provider_api import ProviderAPI


@pytest.fixture
def provider_api() -> Iterator[ProviderAPI]:
    """The fake model providers (tests/provider_api.py) on 127.0.0.1: `provider_api.openai_base`,
    `.deepseek_base`, `.dashscope_compat_base`, `.ollama_base`; faults via `.fault(...)`, requests in
    `.requests`. One per test (starting one takes milliseconds)."""
    from tests.provider_api import ProviderAPI

    with ProviderAPI() as api:
        yield api


# --- the throwaway PostgreSQL (tests/pg.py) ---
if TYPE_CHECKING:
    from tests.pg import PostgresCluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster of the session's own, stopped and removed at its end; the test is skipped where
    PostgreSQL is not installed (failed under CI=true)."""
    from tests.pg import throwaway_cluster

    with throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres: PostgresCluster) -> str:
    """The `postgresql://` URL of a new, empty database on the session's cluster."""
    return postgres.create_database()


# --- one backend or the other: the suites that run on both (the API, the restarts) ---
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database a test runs on: `sqlite` (the data dir's file) or `postgresql` (a new database on the
    session's throwaway cluster; those cases carry the `postgres` mark)."""
    return str(request.param)


@pytest.fixture
def backend_settings(seeded_settings: Settings, backend: str, request: pytest.FixtureRequest) -> Settings:
    """`seeded_settings` on the chosen backend: on SQLite `seeded_settings` itself; on PostgreSQL the same
    data dir (assets, the seeded knowledge store) with the database on a new, empty PostgreSQL database.
    Not migrated: the app (`asgi_client`) or the server (`studio serve`) does that. A real server takes the
    database from `tests.serving.database_env(settings)`."""
    if backend == "sqlite":
        return seeded_settings
    url = request.getfixturevalue("postgres").create_database()
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=seeded_settings.data_dir, render_workers=0, database_url=url
    )
