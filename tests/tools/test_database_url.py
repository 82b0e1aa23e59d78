"""The database URL: the studio picks one driver per database, whatever the URL names (tools/database.py),
and the settings hold the URL with it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings
from tools.database import database_url, is_postgresql, libpq_url, sync_url


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://studio:s%40cret@db:5432/studio", "postgresql+psycopg://studio:s%40cret@db:5432/studio"),
        ("postgres://db/studio?sslmode=require", "postgresql+psycopg://db/studio?sslmode=require"),
        ("postgresql+asyncpg://db/studio", "postgresql+psycopg://db/studio"),
        ("postgresql+psycopg://db/studio", "postgresql+psycopg://db/studio"),
        ("sqlite:////srv/studio.db", "sqlite+aiosqlite:////srv/studio.db"),
        ("sqlite+aiosqlite:///:memory:", "sqlite+aiosqlite:///:memory:"),
    ],
)
def test_every_url_gets_the_studios_driver(given: str, used: str) -> None:
    assert database_url(given) == used
    assert Settings(_env_file=None, database_url=given).db_url == used  # type: ignore[call-arg]


def test_blocking_and_libpq_urls() -> None:
    assert sync_url("sqlite:///a.db") == "sqlite:///a.db"
    assert sync_url("postgresql://db/studio") == "postgresql+psycopg://db/studio"  # psycopg is both
    assert libpq_url("postgresql+asyncpg://u:p@db:5432/studio?sslmode=require") == (
        "postgresql://u:p@db:5432/studio?sslmode=require"
    )
    assert is_postgresql("postgres://db/studio") and not is_postgresql("sqlite:///a.db")
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        libpq_url("sqlite:///a.db")


@pytest.mark.parametrize("url", ["mysql://db/studio", "studio.db"])
def test_another_database_is_refused_by_the_settings(url: str) -> None:
    with pytest.raises(ValidationError, match="PostgreSQL"):
        Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
