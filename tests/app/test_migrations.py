"""Alembic migrations on a blank SQLite database: up to head, down to base, and via the CLI."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from app import migrate
from app.cli import cli
from tools.database import metadata

WORK = {"creatives", "image_assets", "run_events"}
ACCOUNTS = {"users", "api_tokens", "sessions", "login_attempts", "audit_records"}
TABLES = WORK | ACCOUNTS


def tables(url: str) -> set[str]:
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        return set(sa.inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_and_downgrade_a_blank_database(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'blank.db'}"
    assert migrate.current(url) is None
    migrate.upgrade(url)
    assert migrate.current(url) is not None
    assert tables(url) == TABLES
    migrate.downgrade(url, "base")
    assert tables(url) == set()
    migrate.upgrade(url)  # and up again
    assert tables(url) == TABLES


def test_migrations_match_the_models(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url)
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        inspector = sa.inspect(engine)
        for table in metadata.sorted_tables:
            migrated = {c["name"] for c in inspector.get_columns(table.name)}
            assert migrated == {c.name for c in table.columns}, table.name
    finally:
        engine.dispose()


def test_cli_db_upgrade_and_current(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["db", "upgrade", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "0003" in result.output  # the head
    result = runner.invoke(cli, ["db", "downgrade", "base", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert tables(f"sqlite:///{tmp_path / 'studio.db'}") == set()


def test_an_unknown_cost_survives_0002_and_becomes_zero_below_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cost.db'}"
    migrate.upgrade(url)
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        [cost] = [c for c in sa.inspect(engine).get_columns("creatives") if c["name"] == "cost_usd"]
        assert cost["nullable"] is True  # null = a model without a known price took part
        with engine.begin() as conn:
            creatives = metadata.tables["creatives"]
            conn.execute(creatives.insert().values(thread_id="t", status="draft", request="r", options={}))
            conn.execute(creatives.update().values(cost_usd=None))
        engine.dispose()
        migrate.downgrade(url, "0001")
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT cost_usd FROM creatives")).scalar_one() == 0
    finally:
        engine.dispose()


def test_0003_adds_the_account_tables_and_its_downgrade_removes_only_them(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'accounts.db'}"
    migrate.upgrade(url, "0002")
    assert tables(url) == WORK
    migrate.upgrade(url, "0003")
    assert tables(url) == TABLES
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        inspector = sa.inspect(engine)
        indexes = {index["name"]: index["unique"] for index in inspector.get_indexes("api_tokens")}
        assert indexes["ix_api_tokens_token_hash"]  # a token is found by its hash, and only once
        assert {index["name"]: index["unique"] for index in inspector.get_indexes("users")}["ix_users_name"]
    finally:
        engine.dispose()
    migrate.downgrade(url, "0002")
    assert tables(url) == WORK
