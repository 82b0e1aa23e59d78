"""Database migrations, driven from code: `studio db upgrade|downgrade|current`.

Alembic runs in a worker thread because its async `env.py` starts its own event loop. On PostgreSQL an
upgrade also creates — or brings up to date — langgraph-checkpoint-postgres's tables in the same database
(the checkpointer's own migrations, outside Alembic's revisions: the step `CHECKPOINT_TABLES`). A downgrade
leaves them: they hold the paused runs, and the checkpointer has no way down.

Several processes may start on one database at once (`studio serve --workers N`, N servers behind a proxy):
an upgrade or downgrade holds a lock for its whole length — PostgreSQL's advisory lock, a lock file beside a
SQLite database — so the first one migrates and the others then find nothing to do, instead of racing to
create the same tables.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alembic import command
from alembic.config import Config

from tools.database import is_postgresql, libpq_url, sync_url

if TYPE_CHECKING:
    from sqlalchemy import Connection

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
CHECKPOINT_TABLES = "checkpoints"  # the upgrade step that sets up LangGraph's checkpoint tables (PostgreSQL)
ADVISORY_LOCK = 0x5354_5544_494F  # "STUDIO": the PostgreSQL advisory lock key migrations hold
LOCK_POLL_S = 0.2


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url)
    return config


def pending(database_url: str, revision: str = "head") -> list[str]:
    """The steps an upgrade to `revision` would take, oldest first: Alembic revisions, then — on PostgreSQL,
    when LangGraph's checkpoint tables are missing or behind — `CHECKPOINT_TABLES`."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(database_url))
    steps = script.iterate_revisions(revision, current(database_url) or "base")
    todo = [step.revision for step in reversed(list(steps))]
    if is_postgresql(database_url) and _checkpoint_tables_behind(database_url):
        todo.append(CHECKPOINT_TABLES)
    return todo


def upgrade(
    database_url: str, revision: str = "head", *, applied: Callable[[str], object] | None = None
) -> None:
    """Upgrade to `revision` (and set up the checkpoint tables on PostgreSQL). With `applied`, the steps run
    one at a time and `applied(step)` is called after each (the CLI's progress)."""
    config = alembic_config(database_url)
    with migration_lock(database_url):
        if applied is None:
            command.upgrade(config, revision)
            if is_postgresql(database_url):
                setup_checkpoint_tables(database_url)  # when they are up to date: one query
            return
        for step in pending(database_url, revision):
            if step == CHECKPOINT_TABLES:
                setup_checkpoint_tables(database_url)
            else:
                command.upgrade(config, step)
            applied(step)


def downgrade(database_url: str, revision: str = "base") -> None:
    with migration_lock(database_url):
        command.downgrade(alembic_config(database_url), revision)


@contextmanager
def migration_lock(database_url: str) -> Iterator[None]:
    """Held by one process at a time per database, for as long as it migrates (other processes wait)."""
    if is_postgresql(database_url):
        from sqlalchemy import text

        # Tried, not waited for, outside any transaction: the checkpointer's CREATE INDEX CONCURRENTLY waits
        # for every transaction in the database to end, a waiting pg_advisory_lock's too — a deadlock.
        with _connect(database_url, isolation_level="AUTOCOMMIT") as conn:
            lock = text("SELECT pg_try_advisory_lock(:key)")
            while not conn.execute(lock, {"key": ADVISORY_LOCK}).scalar():
                time.sleep(LOCK_POLL_S)
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_LOCK})
        return
    from filelock import FileLock
    from sqlalchemy.engine import make_url

    path = make_url(database_url).database
    if not path or path == ":memory:":  # a database no other process can open
        yield
        return
    with FileLock(f"{path}.migrate-lock"):
        yield


def current(database_url: str) -> str | None:
    """The revision the database is at, or None for a blank database."""
    from sqlalchemy import inspect, text

    with _connect(database_url) as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def setup_checkpoint_tables(database_url: str) -> None:
    """Create or upgrade langgraph-checkpoint-postgres's tables in a PostgreSQL database (idempotent)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(libpq_url(database_url)) as saver:
        saver.setup()


def _checkpoint_tables_behind(database_url: str) -> bool:
    from langgraph.checkpoint.postgres import PostgresSaver
    from sqlalchemy import inspect, text

    with _connect(database_url) as conn:
        if not inspect(conn).has_table("checkpoint_migrations"):
            return True
        done = conn.execute(text("SELECT max(v) FROM checkpoint_migrations")).scalar()
    return done is None or done < len(PostgresSaver.MIGRATIONS) - 1


@contextmanager
def _connect(database_url: str, **options: Any) -> Iterator[Connection]:
    """A blocking connection to the database, for a few quick reads (`options`: the engine's)."""
    from sqlalchemy import create_engine as create_sync_engine

    engine = create_sync_engine(sync_url(database_url), **options)
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


async def upgrade_async(database_url: str, revision: str = "head") -> None:
    """Upgrade from inside a running event loop (server start-up, tests)."""
    await asyncio.to_thread(upgrade, database_url, revision)
