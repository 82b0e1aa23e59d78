"""Alembic migrations on a blank SQLite database: up to head, down to base, and via the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from typer.testing import CliRunner

from app import migrate
from app.cli import cli
from tools.database import metadata

WORK = {"creatives", "image_assets", "run_events"}
ACCOUNTS = {"users", "api_tokens", "sessions", "login_attempts", "audit_records"}  # 0003
TABLES = WORK | ACCOUNTS | {"login_links"}  # 0005


# a completed creative row in raw SQL, as the schema of 0003..0005 has it (`:t` is its thread id)
INSERT_CREATIVE = sa.text(
    "INSERT INTO creatives (thread_id, status, request, options, tags, reference_analyses, image_plans, "
    "bindings, overlay_plan, review_rounds, prompt_tokens, completion_tokens, usage, timings, created_at, "
    "updated_at) VALUES (:t, 'completed', 'r', '{}', '[]', '[]', '[]', '[]', '[]', '[]', 0, 0, '{}', '{}', "
    "'2026-06-01 09:00:00', '2026-06-01 09:00:00')"
)


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
    assert "0005" in result.output  # the head
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
    assert tables(url) == WORK | ACCOUNTS
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


def test_0004_marks_replaced_pictures_as_history_its_downgrade_drops_only_the_column(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'assets.db'}"
    migrate.upgrade(url, "0003")
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        with engine.begin() as conn:  # rows as 0003 left them: two drawings of tasks 1 and 2, per creative
            for thread in ("redone", "earlier-round"):
                conn.execute(INSERT_CREATIVE, {"t": thread})
            creatives = dict(conn.execute(sa.text("SELECT thread_id, id FROM creatives")).all())
            ids: dict[str, list[int]] = {}
            for thread, creative_id in creatives.items():
                for minute, task in ((1, 1), (1, 2), (5, 1), (5, 2)):
                    conn.execute(sa.text(
                        "INSERT INTO image_assets (creative_id, task_index, role, provider, file_path, mime, "
                        "width, height, sha256, status, created_at) VALUES (:c, :k, 'cover', 'offline', "
                        "'a/b.png', 'image/png', 1, 1, 'x', 'complete', :at)"
                    ), {"c": creative_id, "k": task, "at": f"2026-06-01 09:0{minute}:00"})
                mine = sa.text("SELECT id FROM image_assets WHERE creative_id = :c ORDER BY id")
                ids[thread] = [r[0] for r in conn.execute(mine, {"c": creative_id})]
            delivered = {"redone": ids["redone"][2:], "earlier-round": ids["earlier-round"][:2]}
            for seq, (thread, named) in enumerate(delivered.items(), start=1):
                conn.execute(sa.text(
                    "INSERT INTO run_events (thread_id, seq, type, payload, created_at) "
                    "VALUES (:t, :s, 'workflow_complete', :p, '2026-06-01 09:09:00')"
                ), {"t": thread, "s": seq, "p": json.dumps({"imageAssetIds": named})})
        migrate.upgrade(url, "0004")
        with engine.connect() as conn:
            for thread, named in delivered.items():
                rows = conn.execute(sa.text(
                    "SELECT id, superseded_at FROM image_assets WHERE creative_id = :c ORDER BY id"
                ), {"c": creatives[thread]}).all()
                assert [r.id for r in rows if r.superseded_at is None] == named, thread
        assert [r[0] for r in rows if r[1] is not None] == ids["earlier-round"][2:]
        engine.dispose()
        migrate.downgrade(url, "0003")
        columns = {c["name"] for c in sa.inspect(engine).get_columns("image_assets")}
        assert "superseded_at" not in columns and tables(url) == WORK | ACCOUNTS
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM image_assets")).scalar_one() == 8
    finally:
        engine.dispose()


def test_0005_adds_owners_and_login_links_and_its_downgrade_keeps_the_creatives(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'owners.db'}"
    migrate.upgrade(url, "0004")
    engine = sa.create_engine(url.replace("+aiosqlite", ""))
    try:
        with engine.begin() as conn:
            conn.execute(INSERT_CREATIVE, {"t": "old"})
        migrate.upgrade(url, "0005")
        assert tables(url) == TABLES
        with engine.connect() as conn:  # a run from before accounts: nobody's
            row = conn.execute(sa.text("SELECT owner_id, started_by FROM creatives")).one()
            assert tuple(row) == (None, None)
        indexes = {index["name"] for index in sa.inspect(engine).get_indexes("creatives")}
        assert "ix_creatives_owner_id" in indexes
        engine.dispose()
        migrate.downgrade(url, "0004")
        assert tables(url) == TABLES - {"login_links"}
        columns = {c["name"] for c in sa.inspect(engine).get_columns("creatives")}
        assert "owner_id" not in columns and "started_by" not in columns
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT thread_id FROM creatives")).scalars().all() == ["old"]
    finally:
        engine.dispose()
