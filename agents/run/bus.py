"""Waking the followers of runs that another process runs.

A run this process runs publishes its events to its subscribers directly (`agents.run.manager.Run`). A
follower of a run elsewhere reads the stored log, and waits here until the thread's counter
(`creatives.last_seq`) moves or its status changes. One `LogWatcher` per process, and only while someone
watches: on PostgreSQL it LISTENs to the writer's `NOTIFY` (`agents.run.writer.CHANNEL`, sent with every
commit of events) and wakes a follower the moment its thread moves; everywhere it also polls every watched
thread in one query — each `poll_s` on SQLite, a slow safety net (`NOTIFIED_POLL_S`) on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

from agents.run.store import RunStore
from agents.run.writer import CHANNEL

log = logging.getLogger("studio.runs")
NOTIFIED_POLL_S = 2.0  # how often a PostgreSQL watcher polls besides listening (a missed notification)


class Watch:
    """One follower's wait on one thread."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.seen = 0
        self.status: str | None = None
        self._changed = asyncio.Event()

    async def wait(self, seen: int, *, limit_s: float = 5.0) -> None:
        """Until the thread has events after `seen` or its status changes (or `limit_s`, or the watcher
        stops); the follower reads the log again either way."""
        self.seen = seen
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), limit_s)

    def wake(self) -> None:
        self._changed.set()


class LogWatcher:
    """Polls the threads its followers watch; wakes a follower when its thread moves on."""

    def __init__(self, store: RunStore, *, poll_s: float = 0.2, listen_url: str | None = None) -> None:
        self.store = store
        self.poll_s = poll_s
        self.listen_url = listen_url  # a libpq URL: LISTEN there (PostgreSQL)
        self._watches: set[Watch] = set()
        self._task: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._stopped = False

    @contextlib.contextmanager
    def watch(self, thread_id: str) -> Iterator[Watch]:
        watch = Watch(thread_id)
        self._watches.add(watch)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._poll(), name="runs:log-watcher")
        if self.listen_url and (self._listener is None or self._listener.done()):
            self._listener = asyncio.create_task(self._listen(), name="runs:log-listener")
        try:
            yield watch
        finally:
            self._watches.discard(watch)

    def stop(self) -> None:
        """Wake every follower (the process stops; they end their streams) and stop polling."""
        self._stopped = True
        for watch in list(self._watches):
            watch.wake()
        for task in (self._task, self._listener):
            if task is not None:
                task.cancel()

    async def _listen(self) -> None:
        """Wake the followers of each thread a notification names, while anyone watches."""
        import psycopg

        assert self.listen_url is not None
        try:
            async with await psycopg.AsyncConnection.connect(self.listen_url, autocommit=True) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                async for note in conn.notifies():
                    thread_id = note.payload.partition(":")[0]
                    for watch in list(self._watches):
                        if watch.thread_id == thread_id:
                            watch.wake()
                    if not self._watches or self._stopped:
                        return
        except (OSError, psycopg.Error):  # the polling goes on; the next watch listens again
            log.exception("listening for run events failed; polling instead")

    async def _poll(self) -> None:
        while self._watches and not self._stopped:
            listening = self._listener is not None and not self._listener.done()
            await asyncio.sleep(max(self.poll_s, NOTIFIED_POLL_S) if listening else self.poll_s)
            try:
                progress = await self.store.progress(sorted({w.thread_id for w in self._watches}))
            except Exception:  # a busy database: try again next poll
                log.exception("polling the run log failed; retrying")
                continue
            for watch in list(self._watches):
                now = progress.get(watch.thread_id)
                if now is None or now.last_seq > watch.seen or now.status != watch.status:
                    watch.status = None if now is None else now.status
                    watch.wake()
