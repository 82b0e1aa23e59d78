"""`studio db copy-to`: a SQLite data dir with a finished run and a paused one, copied through the CLI into
the throwaway PostgreSQL (tests/pg.py), then served from PostgreSQL on the same data dir — the creatives,
their pictures, the event logs, the inbox, and the paused run confirmed to its end."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner, Result

from app import migrate
from app.cli.main import cli
from app.settings import Settings
from tests.serving import asgi_client, events_of, post_events
from tools.database import metadata, sync_url

runner = CliRunner()
FINISHED = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
PAUSED = "周末在家做一顿减脂早餐，写给健身新手"
SEQUENCED = [t.name for t in metadata.sorted_tables if t.autoincrement_column is not None]


@dataclass(frozen=True)
class Source:
    """A data dir on SQLite and what its runs looked like there."""

    data_dir: Path
    finished: list[dict[str, Any]]  # the finished run's events
    paused: list[dict[str, Any]]  # the paused run's events, up to its pause
    creative: dict[str, Any]  # the finished run's creative, as the API served it


def settings_for(data_dir: Path, database_url: str | None = None) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, render_workers=0, database_url=database_url)


async def make_runs(settings: Settings) -> Source:
    async with asgi_client(settings) as api:
        body = {"message": FINISHED, "enableHITL": False, "imageCount": 2}
        finished = await post_events(api, "/api/agent/stream", body)
        assert finished[-1]["type"] == "workflow_complete", finished[-3:]
        paused = await post_events(api, "/api/agent/stream", {"message": PAUSED, "imageCount": 1})
        assert [e["type"] for e in paused[-2:]] == ["ask_user", "workflow_paused"]
        creative = (await api.get(f"/api/creatives/{finished[-1]['creativeId']}")).json()
    return Source(settings.data_dir, finished, paused, creative)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path) -> Source:
    """Made once: the tests copy it (`data_dir`)."""
    settings = settings_for(tmp_path_factory.mktemp("source") / "data")
    settings.ensure_dirs()
    shutil.copytree(knowledge_dir, settings.store_dir, dirs_exist_ok=True)
    return asyncio.run(make_runs(settings))


@pytest.fixture
def data_dir(source: Source, tmp_path: Path) -> Path:
    """A copy of the source data dir of the test's own (the PostgreSQL side writes its pictures there)."""
    return Path(shutil.copytree(source.data_dir, tmp_path / "data"))


def copy_to(url: str, data_dir: Path) -> Result:
    return runner.invoke(
        cli, ["db", "copy-to", url, "--data-dir", str(data_dir)], env={"STUDIO_DATABASE_URL": None}
    )


def scalar(url: str, query: str, **params: Any) -> Any:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(query), params).scalar()
    finally:
        engine.dispose()


def row_counts(url: str) -> dict[str, int]:
    tables = [*(t.name for t in metadata.sorted_tables), "checkpoints", "checkpoint_writes"]
    return {table: scalar(url, f"SELECT count(*) FROM {table}") for table in tables}


def sqlite_execute(data_dir: Path, statement: str, *params: Any) -> None:
    with closing(sqlite3.connect(data_dir / "studio.db")) as conn, conn:
        conn.execute(statement, params)


@pytest.mark.postgres
async def test_a_data_dir_moves_to_postgresql_and_its_paused_run_completes_there(
    source: Source, data_dir: Path, postgres_url: str
) -> None:
    result = await asyncio.to_thread(copy_to, postgres_url, data_dir)
    assert result.exit_code == 0, result.output
    out = result.output
    for table in ("users", "api_tokens", "audit_records", "creatives", "image_assets", "run_events"):
        assert f"（{table}）" in out  # a counted step per table
    assert "run_leases" not in out and "run_workers" not in out
    assert "作品 2 个（待确认 1 个）" in out and f"图片记录 {len(source.creative['assets'])} 条" in out
    assert f"运行事件 {len(source.finished) + len(source.paused)} 条" in out
    assert f"STUDIO_DATABASE_URL={postgres_url}" in out and "lancedb/" in out
    with closing(sqlite3.connect(data_dir / "checkpoints.db")) as conn:  # every checkpoint and pending write
        for mine, theirs in (("checkpoints", "checkpoints"), ("writes", "checkpoint_writes")):
            [(count,)] = conn.execute(f"SELECT count(*) FROM {mine}").fetchall()
            assert scalar(postgres_url, f"SELECT count(*) FROM {theirs}") == count > 0

    settings = settings_for(data_dir, postgres_url)
    paused_thread = source.paused[0]["threadId"]
    async with asgi_client(settings) as api:  # the admin token of the data dir works: its users were copied
        listed = (await api.get("/api/creatives")).json()
        assert listed["total"] == 2
        creative = (await api.get(f"/api/creatives/{source.creative['id']}")).json()
        assert creative == source.creative  # ids, artifacts, times, pictures: as on SQLite
        for asset in creative["assets"]:  # the rows in PostgreSQL, the files still in the data dir
            picture = await api.get(asset["url"])
            assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
        for events in (source.finished, source.paused):
            replay = await api.get(f"/api/agent/threads/{events[0]['threadId']}/events")
            assert events_of(replay.text) == events

        inbox = (await api.get("/api/agent/inbox")).json()["items"]
        assert [item["threadId"] for item in inbox] == [paused_thread]
        events, seen = source.paused, len(source.paused)
        approve = {"threadId": paused_thread, "action": "approve"}
        for _ in range(3):  # the content checkpoint, then the image plans'
            if events[-1]["type"] != "workflow_paused":
                break
            events = await post_events(api, "/api/agent/confirm", approve)
            assert events[0]["seq"] == seen + 1  # the log goes on from the copied one
            seen = events[-1]["seq"]
        assert events[-1]["type"] == "workflow_complete", events[-3:]
        thread = (await api.get(f"/api/agent/threads/{paused_thread}")).json()
        assert thread["status"] == "completed"
    for table in SEQUENCED:  # every id sequence is past the copied ids
        top = scalar(postgres_url, f"SELECT coalesce(max(id), 0) FROM {table}")
        assert scalar(postgres_url, f"SELECT nextval(pg_get_serial_sequence('{table}', 'id'))") > top, table


@pytest.mark.postgres
def test_a_second_copy_into_the_same_database_is_refused_and_writes_nothing(
    data_dir: Path, postgres_url: str
) -> None:
    assert copy_to(postgres_url, data_dir).exit_code == 0
    before = row_counts(postgres_url)
    again = copy_to(postgres_url, data_dir)
    assert again.exit_code == 1
    assert "目标数据库已有数据（users、" in again.output and "什么也没有写入" in again.output
    assert row_counts(postgres_url) == before


@pytest.mark.postgres
async def test_a_run_left_running_is_taken_on_by_the_postgresql_side(
    source: Source, data_dir: Path, postgres_url: str
) -> None:
    """A run `running` in the source (its process is gone) is copied as it is; a PostgreSQL server's sweeper
    continues it from its last checkpoint — here the pause it had reached."""
    thread_id = source.paused[0]["threadId"]
    sqlite_execute(data_dir, "UPDATE creatives SET status = 'running' WHERE thread_id = ?", thread_id)
    result = await asyncio.to_thread(copy_to, postgres_url, data_dir)
    assert result.exit_code == 0, result.output
    assert "1 个运行中的任务原样复制" in result.output

    async with asgi_client(settings_for(data_dir, postgres_url)) as api:
        status = None
        for _ in range(100):
            status = (await api.get(f"/api/agent/threads/{thread_id}")).json()["status"]
            if status != "running":
                break
            await asyncio.sleep(0.1)
        assert status == "paused"
        inbox = (await api.get("/api/agent/inbox")).json()["items"]
        assert [item["threadId"] for item in inbox] == [thread_id]


@pytest.mark.postgres
def test_a_data_dir_in_use_is_refused_before_anything_is_written(data_dir: Path, postgres_url: str) -> None:
    now = datetime.now(UTC).isoformat(" ")
    sqlite_execute(
        data_dir,
        "INSERT INTO run_workers (id, host, pid, takes_runs, started_at, seen_at) VALUES (?, ?, ?, 1, ?, ?)",
        "a-live-server", socket.gethostname(), os.getpid(), now, now,
    )
    result = copy_to(postgres_url, data_dir)
    assert result.exit_code == 1
    assert "数据目录正在被使用" in result.output and f"进程 {os.getpid()}" in result.output
    tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
    assert scalar(postgres_url, tables) == 0  # not even migrated


@pytest.mark.parametrize("url", ["sqlite:///elsewhere.db", "mysql://user@db.example.com/studio", "studio"])
def test_a_target_that_is_not_postgresql_is_refused(settings: Settings, url: str) -> None:
    result = copy_to(url, settings.data_dir)
    assert result.exit_code == 2
    assert "不是 PostgreSQL 数据库的 URL" in result.output and "postgresql://" in result.output


def test_a_target_that_does_not_answer_is_refused_without_showing_its_password(settings: Settings) -> None:
    migrate.upgrade(settings.db_url)
    result = copy_to("postgresql://studio:s3cret@127.0.0.1:1/studio", settings.data_dir)
    assert result.exit_code == 1
    assert "连不上目标数据库 postgresql://studio:***@127.0.0.1:1/studio" in result.output
    assert "s3cret" not in result.output


def test_a_data_dir_without_a_database_has_nothing_to_copy(settings: Settings) -> None:
    result = copy_to("postgresql://studio@127.0.0.1:1/studio", settings.data_dir)
    assert result.exit_code == 1 and "没有可复制的内容" in result.output
