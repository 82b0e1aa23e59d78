"""The studio on PostgreSQL (the throwaway cluster of tests/pg.py): the app starts on a `postgresql://`
URL, runs a workflow to the end, serves what it made, and pauses and resumes a run through the PostgreSQL
checkpointer (langgraph-checkpoint-postgres), whose tables the migration made in the same database."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from app.settings import Settings
from tests.serving import asgi_client, events_of, post_events
from tools.database import sync_url

pytestmark = pytest.mark.postgres

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
def pg_settings(seeded_settings: Settings, postgres_url: str) -> Settings:
    """The seeded data dir (knowledge store and assets stay on the filesystem), the database on PostgreSQL."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=seeded_settings.data_dir, render_workers=0, database_url=postgres_url
    )


def count(settings: Settings, query: str, **params: Any) -> int:
    engine = sa.create_engine(sync_url(settings.db_url))
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(query), params).scalar_one())
    finally:
        engine.dispose()


def test_the_settings_pick_psycopg_for_a_postgresql_url(pg_settings: Settings) -> None:
    assert pg_settings.db_url.startswith("postgresql+psycopg://")


async def test_a_run_completes_and_its_creative_is_served(pg_settings: Settings) -> None:
    async with asgi_client(pg_settings) as api:
        body = {"message": REQUEST, "enableHITL": False, "imageCount": 2}
        events = await post_events(api, "/api/agent/stream", body)
        done = events[-1]
        assert done["type"] == "workflow_complete", events[-3:]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))

        creative = (await api.get(f"/api/creatives/{done['creativeId']}")).json()
        assert creative["status"] == "completed" and creative["title"] == done["title"]
        assert creative["createdAt"].endswith("+00:00")
        assert len(creative["assets"]) == 2
        for asset in creative["assets"]:  # the rows in PostgreSQL, the files in the data dir
            assert (await api.get(asset["url"])).headers["content-type"] == "image/png"
    assert count(pg_settings, "SELECT count(*) FROM run_events") == len(events)


async def test_a_paused_run_resumes_in_a_new_app_from_postgresql_checkpoints(pg_settings: Settings) -> None:
    async with asgi_client(pg_settings) as api:
        paused = await post_events(api, "/api/agent/stream", {"message": REQUEST, "imageCount": 1})
    assert [e["type"] for e in paused[-2:]] == ["ask_user", "workflow_paused"]
    thread_id = paused[0]["threadId"]
    assert count(pg_settings, "SELECT count(*) FROM checkpoints WHERE thread_id = :t", t=thread_id) > 0
    assert pg_settings.checkpoint_db is not None and not pg_settings.checkpoint_db.exists()  # not SQLite's

    approve = {"threadId": thread_id, "action": "approve"}
    async with asgi_client(pg_settings) as api:  # what a restarted server has: the database
        events = paused
        for _ in range(3):  # the content checkpoint, then the image plans'
            if events[-1]["type"] != "workflow_paused":
                break
            events = await post_events(api, "/api/agent/confirm", approve)
        assert events[-1]["type"] == "workflow_complete", events[-3:]
        thread = (await api.get(f"/api/agent/threads/{thread_id}")).json()
    assert thread["status"] == "completed"


async def test_ids_and_cursors_past_postgresqls_integer_are_unknown_not_errors(pg_settings: Settings) -> None:
    """The API takes ids and cursors up to 2**63 - 1; PostgreSQL's integer columns end at 2**31 - 1. A
    larger id names no row (404) and a larger cursor is past every event (an empty replay), never a 500."""
    async with asgi_client(pg_settings) as client:
        events = await post_events(client, "/api/agent/stream", {"message": REQUEST, "imageCount": 1})
        thread_id = events[0]["threadId"]
        for big in (2**31, 2**40, 2**63 - 1):
            assert (await client.get(f"/api/creatives/{big}")).status_code == 404
            assert (await client.get(f"/api/assets/{big}")).status_code == 404
            replay = await client.get(f"/api/agent/threads/{thread_id}/events", params={"after": str(big)})
            assert replay.status_code == 200 and events_of(replay.text) == []
