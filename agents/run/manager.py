"""The run manager: workflows run as background tasks, decoupled from the connections that watch them.

Every event of a run is first appended to `run_events` (by `WorkflowRunner.stream`) and then published
to the run's live subscribers. A subscriber — the stream that started the run, a confirm, or a replay
client — first reads the stored log after its cursor, then follows the live events, skipping any `seq`
it has already seen, so nothing is lost or duplicated however it joins.

Ephemeral events (the draft's `content_delta`, no `seq`) are only published live: a subscriber gets those
that came after the last stored event it was sent (older ones describe a draft it has already seen
replaced), and its first delta of a draft that began before it joined is the whole draft so far (`reset`).

A client that disconnects does not stop the run unless `STUDIO_ON_DISCONNECT=abort` (the seed's
behaviour: the run is cancelled and its creative marked `aborted`). One active run per thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from agents.errors import NotPaused, ThreadBusy
from agents.events import DraftSoFar, ErrorEvent, is_ephemeral
from agents.runner import (
    ABORTED,
    SHUTDOWN,
    EventLog,
    Resources,
    RunHandle,
    RunRequest,
    WorkflowRunner,
)
from app.errors import ServerStopping
from app.settings import Settings
from tools.database import Creative, CreativeStatus, RunEvent

log = logging.getLogger("studio.runs")

Event = dict[str, Any]
_END = None  # the sentinel a subscriber queue receives when the run is over


@dataclass(frozen=True)
class Passing:
    """An ephemeral event as the run passed it on: after which stored event, and as a `reset` carrying
    the whole draft so far (what a subscriber gets that has not followed the draft from its start)."""

    after: int
    event: Event
    whole: Event


Item = Event | Passing | None


@dataclass(eq=False)
class Run:
    """One live execution segment of a thread (a start, a confirm or a continue)."""

    thread_id: str
    creative_id: int
    task: asyncio.Task[None] | None = None
    start_seq: int = 0  # the thread's last stored seq when this segment began
    last_seq: int = 0
    finished: bool = False
    subscribers: set[asyncio.Queue[Item]] = field(default_factory=set)
    draft: DraftSoFar = field(default_factory=DraftSoFar)

    def publish(self, event: Event | None) -> None:
        item: Item = event
        if event is not None and is_ephemeral(event):
            item = Passing(self.last_seq, event, self.draft.follow(event))
        elif event is not None:
            self.last_seq = int(event["seq"])
        for queue in self.subscribers:
            queue.put_nowait(item)


class RunManager:
    """Owns the background tasks of the process's runs."""

    def __init__(self, resources: Resources, settings: Settings) -> None:
        self.resources = resources
        self.settings = settings
        self.runner = WorkflowRunner(resources)
        self.active: dict[str, Run] = {}
        self._starting: set[str] = set()
        self._shutting_down = False
        self._stopping: asyncio.Task[None] | None = None

    # --- lifecycle -----------------------------------------------------------------------------------
    async def recover(self) -> list[str]:
        """Settle runs a previous process left `running`: paused ones are paused, the rest `failed`
        (code INTERRUPTED, resumable from their last checkpoint). Returns the affected thread ids."""
        async with self.resources.sessions() as session:
            stale = (
                await session.scalars(
                    select(Creative.thread_id).where(Creative.status == CreativeStatus.RUNNING.value)
                )
            ).all()
        for thread_id in stale:
            await self.runner.mark_interrupted(thread_id)
        if stale:
            log.warning("settled %d run(s) left running by a previous process", len(stale))
        return list(stale)

    async def shutdown(self) -> None:
        """Graceful stop: cancel what is still running and record it as interrupted (resumable from its
        last checkpoint after the restart), not as aborted; each run's watchers get that `error` event,
        then their streams end. Called by the first stream that sees the server stopping (app.sse) and by
        the lifespan's end; done once, whoever asks (a caller that is cancelled does not stop it)."""
        self._shutting_down = True
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop_runs(), name="runs:shutdown")
        await asyncio.shield(self._stopping)

    async def _stop_runs(self) -> None:
        runs = [run for run in self.active.values() if run.task and not run.task.done()]
        for run in runs:
            assert run.task is not None
            run.task.cancel(SHUTDOWN)  # `_drive` records the interruption before the run's end
        await asyncio.gather(*(run.task for run in runs if run.task), return_exceptions=True)
        if runs:
            log.info("graceful stop: %d run(s) interrupted, resumable after the restart", len(runs))

    def _refuse_while_stopping(self) -> None:
        if self._shutting_down:
            raise ServerStopping("服务正在停止，请稍后再试")

    # --- starting ------------------------------------------------------------------------------------
    async def start(
        self, request: RunRequest, *, owner_id: int | None = None, started_by: str | None = None
    ) -> Run:
        """Validate and launch a new run; 409 if the thread exists or is starting."""
        self._refuse_while_stopping()
        wanted = request.thread_id
        if wanted and (wanted in self.active or wanted in self._starting):
            raise ThreadBusy(f"会话 {wanted} 正在运行", details={"threadId": wanted})
        if wanted:
            self._starting.add(wanted)
        try:
            handle = await self.runner.prepare_start(request, owner_id=owner_id, started_by=started_by)
        finally:
            self._starting.discard(wanted or "")
        return await self._launch(handle)

    async def confirm(self, thread_id: str, payload: dict[str, Any]) -> Run:
        """Validate a confirm against the pending pause, claim it atomically and resume the run."""
        self._refuse_while_stopping()
        if thread_id in self.active:
            raise NotPaused("这个会话正在运行，当前没有等待确认的步骤", details={"threadId": thread_id})
        handle = await self.runner.prepare_resume(thread_id, payload)
        return await self._launch(handle)

    async def resume_interrupted(self, thread_id: str) -> Run:
        """Continue a run cut off by a restart from its last checkpoint."""
        self._refuse_while_stopping()
        if thread_id in self.active:
            raise ThreadBusy("这个会话正在运行", details={"threadId": thread_id})
        handle = await self.runner.prepare_continue(thread_id)
        return await self._launch(handle)

    async def _launch(self, handle: RunHandle) -> Run:
        start = handle.start_seq
        run = Run(handle.thread_id, handle.creative_id, start_seq=start, last_seq=start)
        self.active[handle.thread_id] = run
        run.task = asyncio.create_task(self._drive(run, handle), name=f"run:{handle.thread_id}")
        return run

    async def _drive(self, run: Run, handle: RunHandle) -> None:
        try:
            async for event in self.runner.stream(handle, ephemeral=True):
                run.publish(event)
        except asyncio.CancelledError:
            if self._shutting_down:  # a graceful stop: resumable, and the watchers are told so first
                try:
                    interrupted = await self.runner.mark_interrupted(run.thread_id)
                    if interrupted is not None:
                        run.publish(interrupted)
                except Exception:  # the next start settles it (`recover`)
                    log.exception("could not record the interruption of %s", run.thread_id)
                return
            # the runner marked the creative aborted; tell the watchers why their stream ends
            try:
                run.publish(await self._record_abort(run.thread_id, run.creative_id, "运行已取消"))
            except Exception:  # best effort: the run is already over
                log.exception("could not record the abort of %s", run.thread_id)
        except Exception:  # the runner reports its own failures as events; this is a bug
            log.exception("run %s crashed", run.thread_id)
        finally:
            run.finished = True
            run.publish(_END)
            self.active.pop(run.thread_id, None)

    async def _record_abort(self, thread_id: str, creative_id: int, message: str) -> Event:
        """End the thread's log with an `error` ABORTED event (which marks its creative aborted)."""
        abort = ErrorEvent(code=ABORTED, message=message, agent=None, retryable=False)
        return await self.runner.record(thread_id, creative_id, abort)

    # --- cancelling ----------------------------------------------------------------------------------
    async def cancel(self, thread_id: str) -> str:
        """Stop a running run (or discard a paused one); the creative ends `aborted`."""
        run = self.active.get(thread_id)
        if run is not None and run.task is not None:
            run.task.cancel()
            await asyncio.gather(run.task, return_exceptions=True)
            return CreativeStatus.ABORTED.value
        creative = await self.runner.require(thread_id)
        await self.runner.claim(  # atomic: a confirm racing this cancel either wins or finds it aborted
            thread_id,
            CreativeStatus.PAUSED,
            f"会话 {thread_id} 没有在运行或暂停（状态：{creative.status}），无法取消",
            to=CreativeStatus.ABORTED,
        )
        await self._record_abort(thread_id, creative.id, "已放弃这个暂停中的运行")
        return CreativeStatus.ABORTED.value

    # --- watching ------------------------------------------------------------------------------------
    def follow(self, thread_id: str, after: int = 0) -> AsyncIterator[Event]:
        """Stored events after `after`, then live ones until the current run segment ends. Subscribes to
        the live run at once, before the caller first iterates: a stream that follows the run it has just
        started gets every event from the queue and never reads the log back."""
        queue: asyncio.Queue[Item] = asyncio.Queue()
        run = self.active.get(thread_id)
        if run is not None:
            run.subscribers.add(queue)  # before reading the log: nothing can fall in between
        # a live run has published every stored event up to its last_seq; the queue gets the rest
        caught_up = run is not None and run.last_seq <= after
        return self._follow(thread_id, after, run, queue, caught_up)

    async def _follow(
        self,
        thread_id: str,
        after: int,
        run: Run | None,
        queue: asyncio.Queue[Item],
        caught_up: bool,
    ) -> AsyncIterator[Event]:
        try:
            seen = after
            for event in [] if caught_up else await self.stored(thread_id, after):
                seen = int(event["seq"])
                yield event
            if run is None:
                return
            following = False  # whether this subscriber has the streaming draft's text to append to
            while True:
                item = await queue.get()
                if item is _END:
                    return
                assert item is not None
                if isinstance(item, Passing):
                    if item.after == seen:  # else it came before events this subscriber already has
                        yield item.event if following or item.event.get("reset") else item.whole
                        following = True
                    continue
                if int(item["seq"]) > seen:
                    seen = int(item["seq"])
                    yield item
        finally:
            if run is not None:
                run.subscribers.discard(queue)

    async def last_seq(self, thread_id: str) -> int:
        return await EventLog.last_seq(self.resources, thread_id)

    async def stored(self, thread_id: str, after: int = 0) -> list[Event]:
        async with self.resources.sessions() as session:
            rows = await session.scalars(
                select(RunEvent.payload)
                .where(RunEvent.thread_id == thread_id, RunEvent.seq > after)
                .order_by(RunEvent.seq)
            )
            return list(rows.all())

    def abort_on_disconnect(self, run: Run) -> None:
        """The client that owns `run` went away: cancel it if the settings say so."""
        if self.settings.on_disconnect == "abort" and run.task is not None and not run.task.done():
            log.info("client of %s disconnected: aborting the run", run.thread_id)
            run.task.cancel()
