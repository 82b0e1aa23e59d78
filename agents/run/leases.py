"""Keeping this process's leases: renew them while their runs go on, and act on what other processes ask.

One `LeaseKeeper` per process (the run manager's, or a CLI run's) ticks in the background: every tick it
reads the cancels other processes asked for its runs (`run_leases.cancel_requested_at`) and cancels those
runs' tasks; every third of the lease it renews its leases and marks the worker seen. A lease it finds taken
by another worker (this process stalled past its expiry and a peer continued the run) stops its run at once
and quietly: the peer owns the thread now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from agents.run.store import RunStore, Worker

log = logging.getLogger("studio.runs")

HANDED_ON = "handed-on"  # cancel a run's task with this: another worker continues it; record nothing


class LeaseKeeper:
    """Renews the leases of this process's runs and cancels runs other processes asked to stop."""

    def __init__(self, store: RunStore, worker: Worker, *, tick_s: float = 1.0) -> None:
        self.store = store
        self.worker = worker
        self.tick_s = tick_s
        self.renew_s = store.lease.total_seconds() / 3
        self._held: dict[str, asyncio.Task[object]] = {}
        self._task: asyncio.Task[None] | None = None
        self._renewed = 0.0
        self.on_tick: list[Callable[[], Awaitable[None]]] = []  # run every tick (the manager's sweeper)

    async def start(self) -> None:
        """Register the worker and start ticking (idempotent)."""
        if self._task is None:
            await self.store.register(self.worker)
            self._renewed = time.monotonic()
            self._task = asyncio.create_task(self._loop(), name="runs:leases")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            await self.store.unregister(self.worker)

    def hold(self, thread_id: str, task: asyncio.Task[object] | None) -> None:
        """The run of `thread_id` (driven by `task`) holds a lease of this worker's: keep it renewed."""
        if task is not None:
            self._held[thread_id] = task

    def drop(self, thread_id: str) -> None:
        self._held.pop(thread_id, None)

    @property
    def held(self) -> list[str]:
        return list(self._held)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            try:
                await self.tick()
            except Exception:  # a busy or briefly unreachable database: try again next tick
                log.exception("lease upkeep failed; retrying")

    async def tick(self) -> None:
        if time.monotonic() - self._renewed >= self.renew_s:
            self._renewed = time.monotonic()
            held = self.held
            kept, cancels = await self.store.renew(self.worker, held)
            for thread_id in set(held) - kept:
                self._stop(thread_id, HANDED_ON, "lease taken over by another worker")
        else:
            cancels = await self.store.cancels(self.worker) if self._held else set()
        for thread_id in cancels:
            self._stop(thread_id, None, "cancel asked by another process")
        for hook in list(self.on_tick):
            await hook()

    def _stop(self, thread_id: str, message: str | None, why: str) -> None:
        task = self._held.pop(thread_id, None)
        if task is not None and not task.done():
            log.info("run %s: %s", thread_id, why)
            task.cancel(message)
