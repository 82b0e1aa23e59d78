"""Every read and write of runs: creatives, run events, leases and workers.

The run core's one door to the database. Hot writes (a run's events and its creative row) are group-committed
by `agents.run.writer.BatchWriter`; event `seq`s are allocated by the database in the same commit. Leases say
which worker runs a thread's current segment and until when (`run_leases`); a worker renews its leases while
it runs them, and any worker that takes runs may take an expired one over (`take_expired`). Workers register
in `run_workers` so a stopping server knows whether a peer will continue its runs.

Nothing here knows about LangGraph or HTTP: the runner (`agents.run.runner`) and the manager
(`agents.run.manager`) decide; this module only stores.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import BigInteger, Connection, and_, delete, func, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from agents.errors import NotPaused, ThreadBusy, ThreadNotFound
from agents.run.recorder import FINISHED, log_row, status_values
from agents.run.writer import BatchWriter
from tools.database import Base, Creative, CreativeStatus, RunEvent, RunLease, RunWorker, User, pid_alive

Event = dict[str, Any]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Worker:
    """This process as a runner of workflows: `takes_runs` for a server (its sweeper continues other
    workers' expired runs), not for a CLI run. The id is unique per process start."""

    takes_runs: bool
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}")


@dataclass(frozen=True)
class ThreadProgress:
    """What a follower in another process needs to know of a thread: where its log is and whether a run
    segment is still going."""

    status: str
    last_seq: int

    @property
    def running(self) -> bool:
        return self.status == CreativeStatus.RUNNING


@dataclass(frozen=True)
class PausedThread:
    """A paused thread for the inbox: its creative, its owner's name and the open `ask_user` (the last one
    in its log)."""

    creative: Creative
    owner: str | None
    pending: Event


class RunStore:
    """Runs in the database: creatives, the event log, leases, workers."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], writer: BatchWriter, *, lease_s: float = 30.0
    ) -> None:
        self.sessions = sessions
        self.writer = writer
        self.lease = timedelta(seconds=lease_s)

    # --- creatives ---------------------------------------------------------------------------------
    async def find(self, thread_id: str) -> Creative | None:
        async with self.sessions() as session:
            return (
                await session.execute(select(Creative).where(Creative.thread_id == thread_id))
            ).scalar_one_or_none()

    async def recent(self, limit: int, status: str | None = None) -> list[Creative]:
        """The most recently updated runs (of one status), newest first."""
        query = select(Creative).order_by(Creative.updated_at.desc(), Creative.id.desc()).limit(limit)
        if status is not None:
            query = query.where(Creative.status == status)
        async with self.sessions() as session:
            return list((await session.scalars(query)).all())

    async def require(self, thread_id: str) -> Creative:
        """The thread's creative; ThreadNotFound (404) when there is none."""
        creative = await self.find(thread_id)
        if creative is None:
            raise ThreadNotFound(f"找不到会话 {thread_id}", details={"threadId": thread_id})
        return creative

    async def create(self, values: dict[str, Any], first: Event, owner: Worker | None) -> Creative:
        """A new thread: its creative row (running), its first event and `owner`'s lease, in one commit —
        no lease for a queued run (whichever worker has room takes it). ThreadBusy (409) when the thread
        id exists."""
        thread_id = values["thread_id"]
        now = utcnow()
        lease: list[tuple[type[Base], dict[str, Any]]] = [] if owner is None else [(RunLease, {
            "thread_id": thread_id, "owner": owner.id, "acquired_at": now, "expires_at": now + self.lease
        })]
        try:
            row = await self.writer.insert(Creative, values, events=[log_row(first)], also=lease)
        except IntegrityError as exc:  # the thread id exists (thread_id is unique)
            raise ThreadBusy(
                f"会话 {thread_id} 已存在，不能重复开始", details={"threadId": thread_id}
            ) from exc
        return Creative(**row._asdict())

    async def claim(
        self,
        thread_id: str,
        expected: CreativeStatus,
        taken: str,
        *,
        to: CreativeStatus = CreativeStatus.RUNNING,
        owner: Worker | None = None,
    ) -> int:
        """Atomically move the creative from `expected` to `to` (and, when it goes on running, give
        `owner` its lease); exactly one concurrent caller wins — in any process —, the others get
        NotPaused(`taken`). Returns the thread's last seq at the claim."""
        statement = (
            update(Creative)
            .where(Creative.thread_id == thread_id, Creative.status == expected.value)
            .values(status=to.value, error=None, completed_at=utcnow() if to in FINISHED else None)
            .returning(Creative.last_seq)
        )

        async def claim(conn: AsyncConnection) -> int | None:
            last = (await conn.execute(statement)).scalar_one_or_none()
            if last is not None and owner is not None:
                await conn.run_sync(self._grant, thread_id, owner, None)
            return None if last is None else int(last)

        last = await self.writer.run(claim)
        if last is None:
            raise NotPaused(taken, details={"threadId": thread_id})
        return last

    async def append(
        self, events: list[Event], creative_id: int | None, *, version: dict[str, Any] | None = None,
        **values: Any,
    ) -> None:
        """Store stamped events (the database numbers them: each payload gets its `seq`) and set columns of
        the creative row — with `version`, also the creative's next version (numbered by the database; a
        `workflow_complete` among the events gets its `version`) —, in one commit."""
        await self.writer.write([log_row(event) for event in events], creative_id, version=version, **values)

    async def update(self, creative_id: int, **values: Any) -> None:
        await self.writer.write(creative_id=creative_id, **values)

    async def record(self, creative_id: int, event: Event) -> Event:
        """Append one event outside a stream and apply what it means to the creative row."""
        await self.append([event], creative_id, **status_values(event))
        return event

    # --- the log -----------------------------------------------------------------------------------
    async def last_seq(self, thread_id: str) -> int:
        """The thread's last stored seq, counting every event queued for writing before the call."""
        await self.writer.flush()
        async with self.sessions() as session:
            last = await session.scalar(select(Creative.last_seq).where(Creative.thread_id == thread_id))
        return int(last or 0)

    async def stored(self, thread_id: str, after: int = 0) -> list[Event]:
        async with self.sessions() as session:
            rows = await session.scalars(
                select(RunEvent.payload)
                # a cursor past PostgreSQL's 32-bit integer is compared as a bigint, not cast to overflow
                .where(RunEvent.thread_id == thread_id, RunEvent.seq > literal(after, BigInteger()))
                .order_by(RunEvent.seq)
            )
            return list(rows.all())

    async def progress(self, thread_ids: Sequence[str]) -> dict[str, ThreadProgress]:
        """Status and last seq of each thread (one query, for the followers of runs in other processes)."""
        if not thread_ids:
            return {}
        async with self.sessions() as session:
            rows = await session.execute(
                select(Creative.thread_id, Creative.status, Creative.last_seq).where(
                    Creative.thread_id.in_(list(thread_ids))
                )
            )
            return {tid: ThreadProgress(status, int(last)) for tid, status, last in rows.all()}

    async def inbox(self, limit: int = 200) -> list[PausedThread]:
        """Paused threads, newest first, each with its open `ask_user`: the last one of its log (a pause
        stores its `ask_user` and then `workflow_paused`; a confirm's first event comes after both)."""
        last_ask = (
            select(RunEvent.thread_id, func.max(RunEvent.seq).label("seq"))
            .where(RunEvent.type == "ask_user")
            .group_by(RunEvent.thread_id)
            .subquery()
        )
        async with self.sessions() as session:
            rows = (
                await session.execute(
                    select(Creative, User.name, RunEvent.payload)
                    .outerjoin(User, User.id == Creative.owner_id)
                    .join(last_ask, last_ask.c.thread_id == Creative.thread_id)
                    .join(
                        RunEvent,
                        and_(RunEvent.thread_id == last_ask.c.thread_id, RunEvent.seq == last_ask.c.seq),
                    )
                    .where(Creative.status == CreativeStatus.PAUSED.value)
                    .order_by(Creative.updated_at.desc(), Creative.id.desc())
                    .limit(limit)
                )
            ).all()
        return [PausedThread(creative, owner, payload) for creative, owner, payload in rows]

    # --- leases ------------------------------------------------------------------------------------
    def _grant(self, conn: Connection, thread_id: str, owner: Worker, takeable: Any) -> bool:
        """Give `owner` the thread's lease: a new one, or the existing one when `takeable` (a condition on
        `run_leases`; None: always). True when granted."""
        now = utcnow()
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        statement = dialect.insert(RunLease).values(
            thread_id=thread_id, owner=owner.id, acquired_at=now, expires_at=now + self.lease
        )
        statement = statement.on_conflict_do_update(
            index_elements=[RunLease.thread_id],
            set_={
                "owner": owner.id,
                "acquired_at": now,
                "expires_at": now + self.lease,
                "cancel_requested_at": None,
            },
            where=takeable,
        ).returning(RunLease.thread_id)
        return conn.execute(statement).first() is not None

    async def renew(self, owner: Worker, thread_ids: Sequence[str]) -> tuple[set[str], set[str]]:
        """Extend `owner`'s leases of `thread_ids` and mark the worker seen. Returns the threads whose lease
        it still holds and, of those, the ones another process asked to cancel."""
        now = utcnow()

        def renew(conn: Connection) -> tuple[set[str], set[str]]:
            _seen(conn, owner, now)
            if not thread_ids:
                return set(), set()
            rows = conn.execute(
                update(RunLease)
                .where(RunLease.owner == owner.id, RunLease.thread_id.in_(list(thread_ids)))
                .values(expires_at=now + self.lease)
                .returning(RunLease.thread_id, RunLease.cancel_requested_at)
            ).all()
            return {tid for tid, _ in rows}, {tid for tid, asked in rows if asked is not None}

        return await self._sync(renew)

    async def cancels(self, owner: Worker) -> set[str]:
        """The threads of `owner`'s leases that another process asked to cancel (a cheap read, polled
        more often than leases are renewed)."""
        async with self.sessions() as session:
            rows = await session.scalars(
                select(RunLease.thread_id).where(
                    RunLease.owner == owner.id, RunLease.cancel_requested_at.is_not(None)
                )
            )
            return set(rows.all())

    async def release(self, owner: Worker, thread_id: str) -> None:
        """Drop `owner`'s lease of the thread (its segment is over: paused, finished, or handed on)."""
        await self._sync(
            lambda conn: conn.execute(
                delete(RunLease).where(RunLease.thread_id == thread_id, RunLease.owner == owner.id)
            )
        )

    async def request_cancel(self, thread_id: str, by: Worker) -> str | None:
        """Ask the worker holding the thread's live lease to cancel the run. Returns that worker's id, or
        None when no live worker holds it (nobody is running it)."""
        now = utcnow()

        def ask(conn: Connection) -> str | None:
            row = conn.execute(
                update(RunLease)
                .where(RunLease.thread_id == thread_id, RunLease.expires_at >= now, RunLease.owner != by.id)
                .values(cancel_requested_at=now)
                .returning(RunLease.owner)
            ).first()
            return None if row is None else str(row[0])

        return await self._sync(ask)

    async def take_expired(self, owner: Worker, *, limit: int = 10) -> list[str]:
        """Take over runs that are `running` with no live lease — their worker died or stopped — and
        return them: `owner` now holds their leases. A lease is dead when it has expired, or when its
        worker was a process on this host that no longer exists (no need to wait for the expiry)."""
        now = utcnow()
        dead = await self._dead_workers(owner)

        def take(conn: Connection) -> list[str]:
            dead_lease = or_(RunLease.expires_at < now, RunLease.owner.in_(dead))
            candidates = conn.execute(
                select(Creative.thread_id)
                .outerjoin(RunLease, RunLease.thread_id == Creative.thread_id)
                .where(
                    Creative.status == CreativeStatus.RUNNING.value,
                    or_(RunLease.thread_id.is_(None), dead_lease),
                )
                .order_by(Creative.id)
                .limit(limit)
            ).scalars().all()
            return [tid for tid in candidates if self._grant(conn, tid, owner, dead_lease)]

        return await self._sync(take)

    # --- workers -----------------------------------------------------------------------------------
    async def register(self, worker: Worker) -> None:
        """Add this process to `run_workers` (and forget workers not seen for ten leases: killed ones)."""
        now = utcnow()
        await self._sync(
            lambda conn: conn.execute(delete(RunWorker).where(RunWorker.seen_at < now - 10 * self.lease))
        )
        row = {
            "id": worker.id,
            "host": worker.host,
            "pid": worker.pid,
            "takes_runs": worker.takes_runs,
            "started_at": now,
            "seen_at": now,
        }
        await self.writer.insert(RunWorker, row)

    async def stopping(self, worker: Worker) -> int:
        """Mark `worker` as stopping; the number of live peers that take runs (and so will continue its
        runs once it releases them)."""
        now = utcnow()

        def stop(conn: Connection) -> int:
            conn.execute(update(RunWorker).where(RunWorker.id == worker.id).values(stopping_at=now))
            peers = conn.execute(
                select(func.count())
                .select_from(RunWorker)
                .where(
                    RunWorker.id != worker.id,
                    RunWorker.takes_runs.is_(True),
                    RunWorker.stopping_at.is_(None),
                    RunWorker.seen_at >= now - self.lease,
                )
            ).scalar_one()
            return int(peers)

        return await self._sync(stop)

    async def hand_on(self, worker: Worker, thread_ids: Sequence[str]) -> None:
        """A stopping worker lets its runs go: their leases expire now, for a peer's sweeper to take."""
        if thread_ids:
            expired = utcnow() - timedelta(seconds=1)
            await self._sync(
                lambda conn: conn.execute(
                    update(RunLease)
                    .where(RunLease.owner == worker.id, RunLease.thread_id.in_(list(thread_ids)))
                    .values(expires_at=expired)
                )
            )

    async def unregister(self, worker: Worker) -> None:
        await self._sync(lambda conn: conn.execute(delete(RunWorker).where(RunWorker.id == worker.id)))

    async def _dead_workers(self, me: Worker) -> list[str]:
        """Workers of this host whose process is gone (their leases are dead before they expire)."""
        async with self.sessions() as session:
            rows = (
                await session.execute(
                    select(RunWorker.id, RunWorker.pid).where(
                        RunWorker.host == me.host, RunWorker.id != me.id
                    )
                )
            ).all()
        return [worker_id for worker_id, pid in rows if not pid_alive(pid)]

    async def _sync(self, fn: Any) -> Any:
        """Run a small synchronous statement function in the writer's next commit."""

        async def op(conn: AsyncConnection) -> Any:
            return await conn.run_sync(fn)

        return await self.writer.run(op)


def _seen(conn: Connection, worker: Worker, now: datetime) -> None:
    conn.execute(update(RunWorker).where(RunWorker.id == worker.id).values(seen_at=now))

