"""Database migrations, driven from code: `studio db upgrade|downgrade|current`.

Alembic runs in a worker thread because its async `env.py` starts its own event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url)
    return config


def pending(database_url: str, revision: str = "head") -> list[str]:
    """The revisions an upgrade to `revision` would apply, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(database_url))
    steps = script.iterate_revisions(revision, current(database_url) or "base")
    return [step.revision for step in reversed(list(steps))]


def upgrade(
    database_url: str, revision: str = "head", *, applied: Callable[[str], object] | None = None
) -> None:
    """Upgrade to `revision`. With `applied`, migrations run one at a time and `applied(revision)` is called
    after each (the CLI's progress)."""
    config = alembic_config(database_url)
    if applied is None:
        command.upgrade(config, revision)
        return
    for step in pending(database_url, revision):
        command.upgrade(config, step)
        applied(step)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def current(database_url: str) -> str | None:
    """The revision the database is at, or None for a blank database."""
    from sqlalchemy import create_engine as create_sync_engine
    from sqlalchemy import inspect, text

    sync_url = database_url.replace("+aiosqlite", "").replace("+asyncpg", "+psycopg")
    engine = create_sync_engine(sync_url)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    finally:
        engine.dispose()


async def upgrade_async(database_url: str, revision: str = "head") -> None:
    """Upgrade from inside a running event loop (server start-up, tests)."""
    await asyncio.to_thread(upgrade, database_url, revision)
