"""Group commit (agents.run.writer) on a real SQLite file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError, NoResultFound
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from agents.run import BatchWriter
from tools.database import Base, Creative, RunEvent, blocking_twin, create_engine, session_factory


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}")
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
async def writer(engine: AsyncEngine) -> AsyncIterator[BatchWriter]:
    writer = BatchWriter(engine)
    try:
        yield writer
    finally:
        await writer.close()


async def creative(engine: AsyncEngine, thread_id: str) -> int:
    async with session_factory(engine)() as session, session.begin():
        row = Creative(thread_id=thread_id, status="running", request="周末露营")
        session.add(row)
    return row.id


def event(thread_id: str, step: int, kind: str = "progress") -> dict[str, object]:
    """A `run_events` row as the store queues it: no seq (the commit numbers it)."""
    payload = {"type": kind, "threadId": thread_id, "timestamp": 1, "content": f"第 {step} 步"}
    return {"thread_id": thread_id, "type": kind, "payload": payload}


async def stored(engine: AsyncEngine) -> list[tuple[str, int, dict[str, object]]]:
    async with session_factory(engine)() as session:
        rows = await session.execute(select(RunEvent.thread_id, RunEvent.seq, RunEvent.payload))
        return sorted((t, s, p) for t, s, p in rows.all())


async def test_concurrent_writes_share_commits_and_all_land(engine: AsyncEngine, writer: BatchWriter) -> None:
    ids = {f"t{i}": await creative(engine, f"t{i}") for i in range(20)}

    async def run(thread_id: str) -> None:  # one run: five events, each with its creative update
        for seq in range(1, 6):
            await writer.write([event(thread_id, seq)], ids[thread_id], score=float(seq))

    await asyncio.gather(*(run(t) for t in ids))
    rows = await stored(engine)
    assert [(t, s) for t, s, _ in rows] == sorted((t, s) for t in ids for s in range(1, 6))
    assert rows[0][2]["content"] == "第 1 步"  # the JSON payload round-trips
    assert writer.writes == 100
    assert writer.batches < 50  # 20 runs writing at once share transactions
    async with session_factory(engine)() as session:
        scores = (await session.scalars(select(Creative.score))).all()
    assert scores == [5.0] * 20


async def test_updates_of_one_creative_in_a_batch_apply_in_order(
    engine: AsyncEngine, writer: BatchWriter
) -> None:
    creative_id = await creative(engine, "t1")
    await asyncio.gather(
        writer.write(creative_id=creative_id, status="running", title="初稿"),
        writer.write(creative_id=creative_id, title="终稿"),
        writer.write(creative_id=creative_id, status="completed"),
    )
    async with session_factory(engine)() as session:
        row = await session.get(Creative, creative_id)
    assert row is not None and (row.status, row.title) == ("completed", "终稿")


async def test_the_database_numbers_each_threads_events_in_order(
    engine: AsyncEngine, writer: BatchWriter
) -> None:
    await creative(engine, "t1")
    await creative(engine, "t2")
    first = event("t1", 1)
    await writer.write([first])
    rows = [event("t1", 2), event("t2", 1), event("t1", 3)]
    await writer.write(rows)
    assert first["payload"]["seq"] == 1  # type: ignore[index]
    assert [r["payload"]["seq"] for r in rows] == [2, 1, 3]  # type: ignore[index]
    assert [(t, s, p["seq"]) for t, s, p in await stored(engine)] == [
        ("t1", 1, 1), ("t1", 2, 2), ("t1", 3, 3), ("t2", 1, 1)
    ]
    async with session_factory(engine)() as session:
        counters = dict((await session.execute(select(Creative.thread_id, Creative.last_seq))).all())
    assert counters == {"t1": 3, "t2": 1}


async def test_two_writers_on_one_file_never_collide(tmp_path: Path, engine: AsyncEngine) -> None:
    """Two processes' writers (two engines on one SQLite file) appending to one thread at once: every event
    lands, numbered 1..n with no gap and no duplicate."""
    await creative(engine, "t1")
    other = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}")
    writers = [BatchWriter(engine), BatchWriter(other)]
    try:
        await asyncio.gather(*(w.write([event("t1", i)]) for i in range(40) for w in writers))
    finally:
        for w in writers:
            await w.close()
        await other.dispose()
    assert [s for _, s, _ in await stored(engine)] == list(range(1, 81))


async def test_a_bad_write_fails_alone(engine: AsyncEngine, writer: BatchWriter) -> None:
    await creative(engine, "t1")
    await creative(engine, "t2")
    await writer.write([event("t1", 1)])
    results = await asyncio.gather(
        writer.write([event("t1", 2)]),
        writer.write([event("nobody", 1)]),  # a thread with no creative: nothing to number it from
        writer.write([event("t2", 1)]),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], NoResultFound)
    assert [(t, s) for t, s, _ in await stored(engine)] == [("t1", 1), ("t1", 2), ("t2", 1)]


async def test_a_cancelled_caller_still_gets_its_write_committed(
    engine: AsyncEngine, writer: BatchWriter
) -> None:
    await creative(engine, "t1")
    task = asyncio.create_task(writer.write([event("t1", 1)]))
    await asyncio.sleep(0)  # queued, not yet committed
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await writer.flush()
    assert [(t, s) for t, s, _ in await stored(engine)] == [("t1", 1)]


async def test_close_commits_what_is_queued(engine: AsyncEngine) -> None:
    await creative(engine, "t1")
    writer = BatchWriter(engine)
    pending = [asyncio.create_task(writer.write([event("t1", seq)])) for seq in range(1, 4)]
    await asyncio.sleep(0)
    await writer.close()
    await asyncio.gather(*pending)
    assert [s for _, s, _ in await stored(engine)] == [1, 2, 3]


async def test_nothing_to_write_is_a_no_op(writer: BatchWriter) -> None:
    await writer.write()
    await writer.write([], creative_id=1)
    await writer.flush()
    assert writer.batches == 0


async def test_inserts_share_one_statement_and_return_their_rows(
    engine: AsyncEngine, writer: BatchWriter
) -> None:
    values = [{"thread_id": f"t{i}", "status": "running", "request": f"第 {i} 个请求"} for i in range(30)]
    rows = await asyncio.gather(*(writer.insert(Creative, v) for v in values))
    assert [row.thread_id for row in rows] == [v["thread_id"] for v in values]  # each caller gets its row
    assert len({row.id for row in rows}) == 30
    assert all(row.timings == {} and row.prompt_tokens == 0 for row in rows)  # defaults come back too
    assert writer.batches < 30
    duplicate, fresh = await asyncio.gather(
        writer.insert(Creative, values[0]),
        writer.insert(Creative, {**values[0], "thread_id": "new"}),
        return_exceptions=True,
    )
    assert isinstance(duplicate, IntegrityError)  # thread_id is unique: only that insert fails
    assert not isinstance(fresh, BaseException) and fresh.thread_id == "new"


async def test_operations_and_rows_in_one_batch_all_commit(engine: AsyncEngine, writer: BatchWriter) -> None:
    ids = {f"t{i}": await creative(engine, f"t{i}") for i in range(10)}

    async def claim(conn: AsyncConnection) -> int:  # an operation: the batch goes through the async engine
        result = await conn.execute(
            update(Creative).where(Creative.thread_id == "t0").values(status="paused")
        )
        return int(getattr(result, "rowcount", 0))

    results = await asyncio.gather(
        writer.run(claim),
        *(writer.write([event(t, 1)], ids[t], score=1.0) for t in ids),
        writer.insert(Creative, {"thread_id": "new", "status": "running", "request": "新请求"}),
    )
    assert results[0] == 1 and results[-1].thread_id == "new"
    assert writer.batches < len(results)  # they shared commits
    assert [(t, s) for t, s, _ in await stored(engine)] == sorted((t, 1) for t in ids)
    async with session_factory(engine)() as session:
        statuses = dict((await session.execute(select(Creative.thread_id, Creative.status))).all())
    assert statuses["t0"] == "paused" and statuses["new"] == "running"


def test_only_sqlite_files_get_a_blocking_twin(tmp_path: Path) -> None:
    twin = blocking_twin(create_engine(f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}"))
    assert twin is not None and twin.url.drivername == "sqlite"
    with twin.connect() as conn:  # the same pragmas as the async engine's connections
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    twin.dispose()
    assert blocking_twin(create_engine("sqlite+aiosqlite://")) is None  # in memory: a twin would not share it


async def test_an_in_memory_database_is_written_through_the_async_engine() -> None:
    engine = create_engine("sqlite+aiosqlite://")
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    writer = BatchWriter(engine)
    try:
        row = await writer.insert(Creative, {"thread_id": "t", "status": "running", "request": "露营"})
        await asyncio.gather(
            *(writer.write([event("t", seq)], row.id, score=float(seq)) for seq in (1, 2, 3))
        )
        assert [(t, s) for t, s, _ in await stored(engine)] == [("t", 1), ("t", 2), ("t", 3)]
    finally:
        await writer.close()
        await engine.dispose()
