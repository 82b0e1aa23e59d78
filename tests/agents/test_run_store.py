"""Leases and workers of the run store (agents.run.store) on a real SQLite file: who may take a run over,
when, and what a stopping worker learns about its peers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from agents.errors import NotPaused
from agents.run import BatchWriter, RunStore, Worker
from agents.run.leases import HANDED_ON, LeaseKeeper
from agents.run.recorder import stamp
from agents.run.store import utcnow
from tools.database import Base, Creative, CreativeStatus, RunLease, create_engine, session_factory

DEAD_PID = 2**22 + 12345  # above Linux's pid_max: no process has it


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[RunStore]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}")
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    writer = BatchWriter(engine)
    try:
        yield RunStore(session_factory(engine), writer, lease_s=30)
    finally:
        await writer.close()
        await engine.dispose()


def worker(host: str = "here", pid: int = 1, *, takes_runs: bool = True) -> Worker:
    return Worker(takes_runs=takes_runs, host=host, pid=pid)


async def new_run(store: RunStore, thread_id: str, owner: Worker) -> Creative:
    values = {"thread_id": thread_id, "status": CreativeStatus.RUNNING.value, "request": "周末露营"}
    return await store.create(values, stamp(thread_id, {"type": "workflow_progress", "phase": "启动工作流",
                                                       "progress": 0.0, "currentAgent": "supervisor"}), owner)


async def expire(store: RunStore, thread_id: str) -> None:
    async with store.sessions() as session, session.begin():
        await session.execute(
            update(RunLease).where(RunLease.thread_id == thread_id)
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )


async def owner_of(store: RunStore, thread_id: str) -> str | None:
    async with store.sessions() as session:
        return await session.scalar(select(RunLease.owner).where(RunLease.thread_id == thread_id))


async def test_a_live_lease_is_never_taken_an_expired_one_is_taken_once(store: RunStore) -> None:
    a, b, c = worker("h1", 10), worker("h2", 20), worker("h3", 30)
    for w in (a, b, c):
        await store.register(w)
    await new_run(store, "t1", a)
    assert await store.take_expired(b) == []  # A's lease is live (and A is on another host)
    await expire(store, "t1")
    taken = await asyncio.gather(store.take_expired(b), store.take_expired(c))
    assert sorted(taken, key=len) == [[], ["t1"]]  # exactly one sweeper wins
    winner = b if taken[0] else c
    assert await owner_of(store, "t1") == winner.id


async def test_a_dead_process_on_this_host_loses_its_runs_at_once(store: RunStore) -> None:
    dead, me = worker("box", DEAD_PID), worker("box", 1)
    await store.register(dead)
    await store.register(me)
    await new_run(store, "t1", dead)
    assert await store.take_expired(me) == ["t1"]  # no wait for the expiry: its pid is gone
    assert await owner_of(store, "t1") == me.id


async def test_runs_that_are_not_running_are_not_swept(store: RunStore) -> None:
    a, b = worker("h1", 10), worker("h2", 20)
    creative = await new_run(store, "t1", a)
    await store.update(creative.id, status=CreativeStatus.PAUSED.value)
    await expire(store, "t1")
    assert await store.take_expired(b) == []


async def test_a_claim_moves_the_lease_and_numbers_from_the_log(store: RunStore) -> None:
    a, b = worker("h1", 10), worker("h2", 20)
    creative = await new_run(store, "t1", a)
    await store.record(creative.id, stamp("t1", {"type": "workflow_paused"}))
    assert await store.claim("t1", CreativeStatus.PAUSED, "taken", owner=b) == 2  # the log's last seq
    assert await owner_of(store, "t1") == b.id
    with pytest.raises(NotPaused):  # a second claim of the same pause loses
        await store.claim("t1", CreativeStatus.PAUSED, "taken", owner=a)


async def test_a_cancel_asked_elsewhere_reaches_the_owner(store: RunStore) -> None:
    a, b = worker("h1", 10), worker("h2", 20)
    await store.register(a)
    await new_run(store, "t1", a)
    await new_run(store, "t2", a)
    assert await store.request_cancel("t1", b) == a.id
    kept, cancels = await store.renew(a, ["t1", "t2"])
    assert kept == {"t1", "t2"} and cancels == {"t1"}
    assert await store.cancels(a) == {"t1"}
    await expire(store, "t2")
    assert await store.request_cancel("t2", b) is None  # nobody live runs it


async def test_the_keeper_stops_a_run_whose_lease_another_worker_took(store: RunStore) -> None:
    a, b = worker("h1", 10), worker("h2", 20)
    await new_run(store, "t1", a)
    keeper = LeaseKeeper(store, a, tick_s=0.01)
    keeper.renew_s = 0.0  # renew on every tick
    await keeper.start()
    stopped = asyncio.Event()

    async def run() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError as exc:
            assert HANDED_ON in exc.args  # quietly: no abort is recorded for a run a peer continues
            stopped.set()
            raise

    task = asyncio.create_task(run())
    keeper.hold("t1", task)
    await expire(store, "t1")
    assert await store.take_expired(b) == ["t1"]
    await asyncio.wait_for(stopped.wait(), 5)
    await keeper.close()


async def test_a_stopping_worker_counts_its_live_peers(store: RunStore) -> None:
    a, b, cli = worker("h1", 10), worker("h2", 20), worker("h3", 30, takes_runs=False)
    await store.register(a)
    await store.register(cli)
    assert await store.stopping(a) == 0  # a CLI run takes no runs over: no peer
    await store.register(b)
    assert await store.stopping(a) == 1
    assert await store.stopping(b) == 0  # A is stopping itself
