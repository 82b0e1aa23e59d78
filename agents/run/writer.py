"""Group commit for the hot write path: run events, creative rows, asset rows (the run store's detail).

Every step of every run appends events to `run_events` and updates its creative row, and a run must not go
on (or publish an event) before those writes are durable. Done one transaction per write, a hundred
concurrent runs spend most of the server's time opening sessions and committing — and with SQLite, which
has one writer at a time, in waiting for the write lock (its busy handler sleeps up to 100 ms a try).
`BatchWriter` queues the writes instead; one background task takes whatever is waiting and commits it in
one transaction — other statements (`run`) in order, then new rows (`insert`: one multi-row INSERT …
RETURNING per table), then all event rows in one multi-row insert (numbered by the database: one
`UPDATE … RETURNING` of each thread's counter), then one update per creative (its queued values merged in
order) — and wakes every writer of the batch. Alone, a write costs what it did
before; under load, one commit serves many runs, and writers never contend.

On a SQLite file, a batch without `run` operations (almost all of them) is committed by one call on the
writer's own thread, through a synchronous engine on the same file: one thread hop per batch. Through
aiosqlite every cursor, statement, commit and pool check-in is a hop of its own (~4 per write), and the
statements' compilation ran on the event loop — ~20 ms of its CPU per run at 100 concurrent runs
(docs/benchmarks.md §2). Batches with operations (which take an `AsyncConnection`) use the async engine.

If a batch fails, its writes are retried one by one so that only the bad one fails (its caller gets the
exception); the others are unaffected. So a `run` operation must only touch the database: it may be
executed twice (the first time rolled back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection, Row, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from tools.database import Base, Creative, CreativeVersion, RunEvent, blocking_twin

log = logging.getLogger("studio.writer")
CHANNEL = "studio_run_events"  # PostgreSQL: `NOTIFY <thread id>:<last seq>` with every commit of events
T = TypeVar("T")


Operation = Callable[[AsyncConnection], Awaitable[Any]]


@dataclass
class _Write:
    events: list[dict[str, Any]] = field(default_factory=list)  # run_events rows
    creative_id: int | None = None
    values: dict[str, Any] = field(default_factory=dict)  # creative columns to set
    op: Operation | None = None  # any other statements, on the batch's connection
    insert: tuple[type[Base], dict[str, Any]] | None = None  # a new row, returned with defaults and id
    also: list[tuple[type[Base], dict[str, Any]]] = field(default_factory=list)  # rows inserted with it
    version: dict[str, Any] | None = None  # a new version of the creative (its content columns)
    done: asyncio.Future[Any] | None = None


class BatchWriter:
    """Queues writes (events, creative updates, inserts, operations); commits them in batches from one
    background task."""

    def __init__(self, engine: AsyncEngine, *, max_batch: int = 1000) -> None:
        self._engine = engine
        self._twin = blocking_twin(engine)  # None: every batch goes through the async engine
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="batch-writer") if self._twin else None
        self._max_batch = max_batch
        self._queue: asyncio.Queue[_Write] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.batches = 0  # committed transactions, for benchmarks and tests
        self.writes = 0

    async def write(
        self,
        events: list[dict[str, Any]] | None = None,
        creative_id: int | None = None,
        *,
        version: dict[str, Any] | None = None,
        **values: Any,
    ) -> None:
        """Store `run_events` rows (thread_id, type, payload; the seq is allocated in the commit and set in
        the row and its payload) and set columns of one creative row — with `version`, also store it as
        the creative's next version (its number allocated in the commit, like a seq, and set as `version`
        in the payload of a `workflow_complete` among the events); returns once they are committed (raises
        if they could not be)."""
        if events or (creative_id is not None and (values or version)):
            write = _Write(events=list(events or []), creative_id=creative_id, values=values, version=version)
            await self._submit(write)

    async def run(self, op: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Execute `op(connection)` inside the next batch's transaction; its result once committed."""
        result: T = await self._submit(_Write(op=op))
        return result

    async def insert(
        self,
        model: type[Base],
        values: dict[str, Any],
        *,
        events: list[dict[str, Any]] | None = None,
        also: list[tuple[type[Base], dict[str, Any]]] | None = None,
    ) -> Row[Any]:
        """Insert one row into `model`'s table (with `events` rows and the `also` rows of other tables, in
        the same commit); the stored row, id and defaults included, once committed."""
        write = _Write(insert=(model, values), events=list(events or []), also=list(also or []))
        row: Row[Any] = await self._submit(write)
        return row

    async def flush(self) -> None:
        """Wait until everything queued so far is committed (or has failed)."""
        while not self._idle.is_set():
            await self._idle.wait()

    async def close(self) -> None:
        """Commit what is queued, then stop the background task."""
        await self.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._thread is not None and self._twin is not None:
            self._thread.shutdown(wait=True)
            self._twin.dispose()
            self._thread = self._twin = None

    # --- internals ---------------------------------------------------------------------------------
    async def _submit(self, write: _Write) -> Any:
        write.done = asyncio.get_running_loop().create_future()
        write.done.add_done_callback(_retrieve)  # no "exception never retrieved" if its caller is gone
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="batch-writer")
        self._idle.clear()
        self._queue.put_nowait(write)
        # a caller cancelled while waiting does not withdraw its write: it is committed all the same
        return await asyncio.shield(write.done)

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < self._max_batch and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                results = await self._commit(batch)
            except Exception:
                await self._one_by_one(batch)
            else:
                for write, result in zip(batch, results, strict=True):
                    _settle(write, None, result)
            self.batches += 1
            self.writes += len(batch)
            if self._queue.empty():
                self._idle.set()

    async def _commit(self, batch: list[_Write]) -> list[Any]:
        if self._thread is not None and all(write.op is None for write in batch):
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._commit_blocking, batch)
        async with self._engine.begin() as conn:
            results = [await write.op(conn) if write.op is not None else None for write in batch]
            stored = await conn.run_sync(_store, batch)
            return [
                result if write.op is not None else row
                for write, result, row in zip(batch, results, stored, strict=True)
            ]

    def _commit_blocking(self, batch: list[_Write]) -> list[Any]:
        assert self._twin is not None
        with self._twin.begin() as conn:
            return _store(conn, batch)

    async def _one_by_one(self, batch: list[_Write]) -> None:
        for write in batch:
            try:
                [result] = await self._commit([write])
            except Exception as exc:
                log.debug("a queued write failed: %s", exc)
                _settle(write, exc)
            else:
                _settle(write, None, result)


def _store(conn: Connection, batch: list[_Write]) -> list[Any]:
    """The batch's inserts, event rows and creative updates on one connection; each write's stored row
    (None for writes that insert none)."""
    results: list[Any] = [None] * len(batch)
    inserts: dict[tuple[type[Base], frozenset[str]], list[int]] = {}  # same table, same columns: one INSERT
    for i, write in enumerate(batch):
        if write.insert is not None:
            model, values = write.insert
            inserts.setdefault((model, frozenset(values)), []).append(i)
    for (model, _), positions in inserts.items():
        columns = model.__table__.columns
        statement = insert(model).returning(*columns, sort_by_parameter_order=True)
        stored = conn.execute(statement, [batch[i].insert[1] for i in positions])  # type: ignore[index]
        for i, row in zip(positions, stored.all(), strict=True):
            results[i] = row
    for write in batch:
        for model, values in write.also:
            conn.execute(insert(model), values)
    for write in batch:
        if write.version is not None and write.creative_id is not None:
            _new_version(conn, write)
    rows = [row for write in batch for row in write.events]
    if rows:
        _number(conn, rows)
        conn.execute(insert(RunEvent), rows)
    merged: dict[int, dict[str, Any]] = {}
    for write in batch:
        if write.creative_id is not None and write.values:
            merged.setdefault(write.creative_id, {}).update(write.values)
    for creative_id, values in merged.items():
        conn.execute(update(Creative).where(Creative.id == creative_id).values(**values))
    return results


# what a version is made of, to the creator: a run that changes none of it leaves no new version
_SHOWN = ("title", "body", "tags", "asset_ids", "image_plans", "overlay_plan")


def _new_version(conn: Connection, write: _Write) -> None:
    """Store `write.version` as its creative's next version: the number is allocated by the database from
    `creatives.current_version` (one `UPDATE … RETURNING`, as the seqs), and set in the payload of the
    write's `workflow_complete` event. A revision that changed nothing the creator sees (a rewrite that
    found nothing to change) makes no version: the event carries the current one's number."""
    assert write.version is not None and write.creative_id is not None
    current = conn.execute(
        select(CreativeVersion)
        .join(Creative, Creative.id == CreativeVersion.creative_id)
        .where(Creative.id == write.creative_id, CreativeVersion.number == Creative.current_version)
    ).mappings().first()
    if current is not None and all(current[key] == write.version.get(key) for key in _SHOWN):
        number = int(current["number"])
    else:
        number = conn.execute(
            update(Creative)
            .where(Creative.id == write.creative_id)
            .values(current_version=Creative.current_version + 1)
            .returning(Creative.current_version)
        ).scalar_one()
        values = {"based_on": number - 1 or None, **write.version}
        conn.execute(insert(CreativeVersion).values(**values, creative_id=write.creative_id, number=number))
    for row in write.events:
        if row["type"] == "workflow_complete":
            row["payload"]["version"] = number


def _number(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Give each event row its thread's next `seq`, allocated by the database: one `UPDATE … RETURNING` of
    the thread's counter (`creatives.last_seq`) per thread, so writers in several processes never collide
    (PostgreSQL locks the row until the commit; SQLite has one writer at a time). The seq goes into the
    row and into its payload — the very dict the caller sends on once the write is committed. On
    PostgreSQL each thread's new last seq is also NOTIFYed on `CHANNEL`, for followers in other processes."""
    by_thread: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_thread.setdefault(row["thread_id"], []).append(row)
    for thread_id, numbered in by_thread.items():
        last = conn.execute(
            update(Creative)
            .where(Creative.thread_id == thread_id)
            .values(last_seq=Creative.last_seq + len(numbered))
            .returning(Creative.last_seq)
        ).scalar_one()
        for seq, row in enumerate(numbered, start=last - len(numbered) + 1):
            row["seq"] = seq
            row["payload"]["seq"] = seq
        if conn.dialect.name == "postgresql":  # delivered at the commit to every process that listens
            conn.execute(select(func.pg_notify(CHANNEL, f"{thread_id}:{last}")))


def _settle(write: _Write, error: BaseException | None, result: Any = None) -> None:
    if write.done is None or write.done.done():
        return
    if error is None:
        write.done.set_result(result)
    else:
        write.done.set_exception(error)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
