"""Alembic migrations on a blank database, SQLite and PostgreSQL alike (the throwaway cluster of tests/pg.py):
up to head, down to base, each revision's own steps, and via the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from typer.testing import CliRunner

from app import migrate
from app.cli.main import cli
from tools.database import metadata, sync_url

WORK = {"creatives", "image_assets", "run_events"}
ACCOUNTS = {"users", "api_tokens", "sessions", "login_attempts", "audit_records"}  # 0003
TABLES = WORK | ACCOUNTS | {"login_links"}  # 0005
CHECKPOINTS = {"checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"}  # LangGraph's


# a completed creative row in raw SQL, as the schema of 0003..0005 has it (`:t` is its thread id)
INSERT_CREATIVE = sa.text(
    "INSERT INTO creatives (thread_id, status, request, options, tags, reference_analyses, image_plans, "
    "bindings, overlay_plan, review_rounds, prompt_tokens, completion_tokens, usage, timings, created_at, "
    "updated_at) VALUES (:t, 'completed', 'r', '{}', '[]', '[]', '[]', '[]', '[]', '[]', 0, 0, '{}', '{}', "
    "'2026-06-01 09:00:00', '2026-06-01 09:00:00')"
)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A blank database: a SQLite file in the test's data dir, or a new database on the throwaway cluster."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}"


def blocking_engine(url: str) -> sa.Engine:
    return sa.create_engine(sync_url(url))


def all_tables(url: str) -> set[str]:
    engine = blocking_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    """The studio's tables, without LangGraph's checkpoint tables (PostgreSQL), which are not Alembic's."""
    return all_tables(url) - CHECKPOINTS


def test_upgrade_and_downgrade_a_blank_database(url: str) -> None:
    assert migrate.current(url) is None
    migrate.upgrade(url)
    assert migrate.current(url) is not None
    assert tables(url) == set(metadata.tables)
    migrate.downgrade(url, "base")
    assert tables(url) == set()
    migrate.upgrade(url)  # and up again
    assert tables(url) == set(metadata.tables)


def test_migrations_match_the_models(url: str) -> None:
    migrate.upgrade(url)
    engine = blocking_engine(url)
    try:
        inspector = sa.inspect(engine)
        for table in metadata.sorted_tables:
            migrated = {c["name"]: c for c in inspector.get_columns(table.name)}
            assert set(migrated) == {c.name for c in table.columns}, table.name
            for column in table.columns:  # the migrated type is the model's (JSON, times with their zone …)
                kind = migrated[column.name]["type"]
                assert kind._type_affinity is column.type._type_affinity, (table.name, column.name, kind)
                if isinstance(column.type, sa.DateTime) and engine.dialect.name == "postgresql":
                    assert kind.timezone, (table.name, column.name)  # timestamptz: SQLite keeps no zone
    finally:
        engine.dispose()


def test_an_upgrade_sets_up_the_checkpoint_tables_on_postgresql(url: str) -> None:
    """On PostgreSQL, LangGraph's checkpoint tables are a step of an upgrade (the CLI counts it) and stay
    after a downgrade: they hold the paused runs. On SQLite the checkpoints have a file of their own."""
    on_postgresql = url.startswith("postgresql")
    assert (migrate.CHECKPOINT_TABLES in migrate.pending(url)) is on_postgresql
    migrate.upgrade(url)
    assert migrate.pending(url) == []
    migrate.downgrade(url, "base")
    assert all_tables(url) == (CHECKPOINTS if on_postgresql else set())
    assert migrate.CHECKPOINT_TABLES not in migrate.pending(url)


def test_cli_db_upgrade_and_current(url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"STUDIO_DATABASE_URL": url}
    head = ScriptDirectory.from_config(migrate.alembic_config(url)).get_current_head()
    result = runner.invoke(cli, ["db", "upgrade", "--data-dir", str(tmp_path)], env=env)
    assert result.exit_code == 0, result.output
    assert f"{head}" in result.output
    result = runner.invoke(cli, ["db", "current", "--data-dir", str(tmp_path)], env=env)
    assert result.output.strip() == head
    result = runner.invoke(cli, ["db", "downgrade", "base", "--data-dir", str(tmp_path)], env=env)
    assert result.exit_code == 0, result.output
    assert tables(url) == set()


def test_an_unknown_cost_survives_0002_and_becomes_zero_below_it(url: str) -> None:
    migrate.upgrade(url)
    engine = blocking_engine(url)
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


def test_0003_adds_the_account_tables_and_its_downgrade_removes_only_them(url: str) -> None:
    migrate.upgrade(url, "0002")
    assert tables(url) == WORK
    migrate.upgrade(url, "0003")
    assert tables(url) == WORK | ACCOUNTS
    engine = blocking_engine(url)
    try:
        inspector = sa.inspect(engine)
        indexes = {index["name"]: index["unique"] for index in inspector.get_indexes("api_tokens")}
        assert indexes["ix_api_tokens_token_hash"]  # a token is found by its hash, and only once
        assert {index["name"]: index["unique"] for index in inspector.get_indexes("users")}["ix_users_name"]
    finally:
        engine.dispose()
    migrate.downgrade(url, "0002")
    assert tables(url) == WORK


def test_0004_marks_replaced_pictures_as_history_its_downgrade_drops_only_the_column(url: str) -> None:
    migrate.upgrade(url, "0003")
    engine = blocking_engine(url)
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


def test_0005_adds_owners_and_login_links_and_its_downgrade_keeps_the_creatives(url: str) -> None:
    migrate.upgrade(url, "0004")
    engine = blocking_engine(url)
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


def test_processes_that_upgrade_one_database_at_once_take_turns(url: str) -> None:
    """Servers started together on a blank database (`serve --workers N`) each run the upgrade: one migrates,
    the others wait for it and find nothing left to do."""
    import subprocess
    import sys

    code = "import sys; from app import migrate; migrate.upgrade(sys.argv[1])"
    procs = [
        subprocess.Popen([sys.executable, "-c", code, url], stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    errors = [proc.communicate(timeout=120)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0], errors
    assert migrate.pending(url) == []
    assert tables(url) == set(metadata.tables)


def test_0007_gives_each_completed_creative_its_version_1_and_its_downgrade_drops_them(url: str) -> None:
    migrate.upgrade(url, "0006")
    engine = blocking_engine(url)
    try:
        with engine.begin() as conn:  # a run completed twice (its last event counts) and a paused one
            for thread in ("done", "paused"):
                conn.execute(INSERT_CREATIVE, {"t": thread})
            conn.execute(sa.text(
                "UPDATE creatives SET status = 'paused' WHERE thread_id = 'paused'"
            ))
            conn.execute(sa.text(
                "UPDATE creatives SET title = '露营', body = '正文', tags = '[\"露营\"]', "
                "started_by = 'user:amy', image_plans = '[{\"index\": 1}]' WHERE thread_id = 'done'"
            ))
            for seq, payload in enumerate(({"imageAssetIds": [3]}, {"imageAssetIds": [5], "qualityScores": {
                "overall": 0.9}}), start=1):
                conn.execute(sa.text(
                    "INSERT INTO run_events (thread_id, seq, type, payload, created_at) "
                    "VALUES ('done', :s, 'workflow_complete', :p, '2026-06-01 09:09:00')"
                ), {"s": seq, "p": json.dumps(payload)})
        migrate.upgrade(url, "0007")
        with engine.connect() as conn:
            current = dict(conn.execute(sa.text("SELECT thread_id, current_version FROM creatives")).all())
            assert current == {"done": 1, "paused": 0}
            version = conn.execute(sa.text(
                "SELECT number, title, body, tags, asset_ids, image_plans, review, source, actor "
                "FROM creative_versions"
            )).one()
        loads = [json.loads(v) if isinstance(v, str) and k in (3, 4, 5, 6) else v
                 for k, v in enumerate(version)]
        assert loads == [
            1, "露营", "正文", ["露营"], [5], [{"index": 1}], {"overall": 0.9}, "run", "user:amy"
        ]
        engine.dispose()
        migrate.downgrade(url, "0006")
        assert "creative_versions" not in all_tables(url)
        assert "current_version" not in {c["name"] for c in sa.inspect(engine).get_columns("creatives")}
    finally:
        engine.dispose()


def test_0009_adds_the_model_pictures_path_and_its_downgrade_drops_only_the_column(url: str) -> None:
    migrate.upgrade(url, "0008")
    engine = blocking_engine(url)
    insert_asset = sa.text(
        "INSERT INTO image_assets (task_index, role, provider, file_path, mime, width, height, sha256, "
        "status, created_at) VALUES (1, 'cover', 'gpt-image-1', 'a/b.png', 'image/png', 1, 1, 'x', "
        "'complete', '2026-06-01 09:00:00')"
    )
    try:
        with engine.begin() as conn:  # a model's card from before pictures were kept
            conn.execute(insert_asset)
        migrate.upgrade(url, "0009")
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT picture_path FROM image_assets")).scalar_one() is None
            conn.execute(sa.text("UPDATE image_assets SET picture_path = 'c/d.png'"))
        engine.dispose()
        migrate.downgrade(url, "0008")
        assert "picture_path" not in {c["name"] for c in sa.inspect(engine).get_columns("image_assets")}
        with engine.connect() as conn:
            providers = conn.execute(sa.text("SELECT provider FROM image_assets")).scalars().all()
            assert providers == ["gpt-image-1"]
        engine.dispose()
        migrate.upgrade(url)  # and up again
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT picture_path FROM image_assets")).scalar_one() is None
    finally:
        engine.dispose()
