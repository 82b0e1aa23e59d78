"""The run manager: workflows run as background tasks, decoupled from the connections that watch them, and
shared with the other processes on the same database.

Every event of a run is first appended to `run_events` (by `WorkflowRunner.stream`) and then published
to the run's live subscribers in this process. A subscriber — the stream that started the run, a confirm,
or a replay client — first reads the stored log after its cursor, then follows the live events, skipping
any `seq` it has already seen, so nothing is lost or duplicated however it joins. A run another process
runs is followed from the log alone: the follower reads what is new whenever the thread's counter moves
(`agents.run.bus.LogWatcher` polls it for every such follower of this process at once).

Ephemeral events (the draft's `content_delta`, no `seq`) are only published live, in the process that runs
the run: a subscriber gets those that came after the last stored event it was sent (older ones describe a
draft it has already seen replaced), and its first delta of a draft that began before it joined is the
whole draft so far (`reset`).

Runs are leased (`agents.run.store`): this process renews the leases of its runs; its sweeper takes over
runs whose worker died (an expired lease) and continues them from their last checkpoint. On a graceful
stop it hands its runs to a live peer if there is one (their streams here end with a `reconnect` event:
follow the run again), else records them INTERRUPTED (resumable). A client that disconnects does not stop
the run unless `on_disconnect="abort"` (the seed's behaviour: the run is cancelled and its creative marked
`aborted`). One active run per thread, in whichever process.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from agents.errors import NotPaused, Stopping, ThreadBusy
from agents.events import ContentDelta, DraftSoFar, ErrorEvent, Message, Reconnect, WorkflowProgress
from agents.image_edit import ImageEdits
from agents.run.bus import LogWatcher
from agents.run.leases import HANDED_ON
from agents.run.recorder import ABORTED, FINISHED, stamp
from agents.run.request import RunRequest
from agents.run.runner import SHUTDOWN, Resources, RunHandle, WorkflowRunner
from agents.run.store import PausedThread, Worker
from agents.run.versions import Versions
from tools.database import Creative, CreativeStatus, VersionSource
from tools.labels import label

log = logging.getLogger("studio.runs")

Event = dict[str, Any]
_END = None  # the sentinel a subscriber queue receives when the run is over
OnDisconnect = Literal["continue", "abort"]
DRAFT = ContentDelta.model_fields["type"].default  # the ephemeral events a follower joins mid-way
QUEUED_PHASE = "排队等待：服务正忙，有空位时自动开始"
WAITING_NOTE = "这条修改意见已排队：前面的请求完成（或审核结束）后自动开始"


def reconnect(thread_id: str, last_seq: int) -> Event:
    """The last event of a stream whose run goes on elsewhere (this process stops and hands it on): follow
    the run again with `GET /api/agent/threads/{id}/events` and `Last-Event-ID`. Live only, never stored."""
    message = "服务正在停止，运行已交给另一个进程继续；请重新连接，从上次的事件接着看"
    return stamp(thread_id, Reconnect(last_seq=last_seq, message=message).wire())


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
    """One live execution segment of a thread (a start, a confirm, a continue or a takeover)."""

    thread_id: str
    creative_id: int
    task: asyncio.Task[None] | None = None
    start_seq: int = 0  # the thread's last stored seq when this segment began
    last_seq: int = 0
    finished: bool = False
    pausing: bool = False  # it has published its pause: its task is only finishing
    subscribers: set[asyncio.Queue[Item]] = field(default_factory=set)
    draft: DraftSoFar = field(default_factory=DraftSoFar)

    def publish(self, event: Event | None) -> None:
        item: Item = event
        if event is not None and event["type"] == DRAFT:
            item = Passing(self.last_seq, event, self.draft.follow(event))
        elif event is not None and event.get("seq") is not None:
            self.last_seq = int(event["seq"])
            self.pausing = event["type"] == "workflow_paused"
        for queue in self.subscribers:
            queue.put_nowait(item)


class RunManager:
    """Owns the background tasks of the process's runs."""

    def __init__(
        self,
        resources: Resources,
        *,
        on_disconnect: OnDisconnect = "continue",
        worker: Worker | None = None,
        poll_s: float = 0.2,
        listen_url: str | None = None,
        max_runs: int | None = None,
        cancel_wait_s: float = 15.0,
    ) -> None:
        self.resources = resources
        self.store = resources.store
        self.worker = worker or Worker(takes_runs=True)
        self.runner = WorkflowRunner(resources, self.worker)
        self.versions = Versions(self.store, resources.assets)
        self.image_edits = ImageEdits(
            self.versions, resources.assets, resources.image_provider, resources.asset_url
        )
        self.on_disconnect = on_disconnect
        self.watcher = LogWatcher(self.store, poll_s=poll_s, listen_url=listen_url)
        self.cancel_wait_s = cancel_wait_s
        self.max_runs = max_runs  # runs this process runs at once; more wait, queued, for any process
        self.active: dict[str, Run] = {}
        self._sweeps: set[asyncio.Task[None]] = set()
        self._sweeping = asyncio.Lock()  # one sweep at a time: room is counted, then filled
        self._starting: set[str] = set()
        self._turns: dict[str, asyncio.Lock] = {}  # queued messages per thread, in the order they came
        self._in_turn: Counter[str] = Counter()  # messages holding or waiting for a thread's turn
        self._admitted = 0  # starts let in to run here, not yet launched (they count against max_runs)
        self._shutting_down = False
        self._handing_on = False
        self._stopping: asyncio.Task[None] | None = None

    # --- lifecycle -----------------------------------------------------------------------------------
    async def open(self) -> list[str]:
        """Register this process, keep its leases and sweep for runs nobody runs any more (a dead
        worker's): those whose lease has expired are continued here. Returns the threads taken over."""
        keeper = self.runner.keeper
        await keeper.start()
        keeper.on_tick.append(self._sweep_quietly)
        return await self.sweep()

    async def sweep(self) -> list[str]:
        """Take over `running` runs with no live lease, as many as this process has room for, oldest
        first: queued ones start, a dead worker's continue from their last checkpoint (one with nothing
        left to run is settled: paused, or INTERRUPTED and resumable)."""
        async with self._sweeping:
            room = 10 if self.max_runs is None else self.max_runs - len(self.active) - self._admitted
            if self._shutting_down or room <= 0:
                return []
            taken = await self.store.take_expired(self.worker, limit=room)
            for thread_id in taken:
                if thread_id in self.active:  # our own run, its lease renewed late: keep running it
                    continue
                handle = await self.runner.prepare_takeover(thread_id)
                if handle is None:
                    continue
                if isinstance(handle.input, dict):
                    log.info("starting queued run %s", thread_id)
                else:
                    log.warning("continuing run %s, left by a worker that stopped or died", thread_id)
                await self._launch(handle)
            return taken

    async def _sweep_quietly(self) -> None:
        try:
            await self.sweep()
        except Exception:  # the next tick sweeps again
            log.exception("sweeping for runs failed")

    async def shutdown(self) -> None:
        """Graceful stop: stop taking runs; hand what is still running to a live peer (its lease expires
        now and the peer's sweeper continues it; this process's watchers get a `reconnect` event), or — with
        no peer — cancel it and record it as interrupted (resumable from its last checkpoint after the
        restart), not as aborted. Called by the first stream that sees the server stopping (app.http.sse) and
        by the lifespan's end; done once, whoever asks (a caller that is cancelled does not stop it)."""
        self._shutting_down = True
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop_runs(), name="runs:shutdown")
        await asyncio.shield(self._stopping)

    async def _stop_runs(self) -> None:
        peers = await self.store.stopping(self.worker)
        self._handing_on = peers > 0
        runs = [run for run in self.active.values() if run.task and not run.task.done()]
        for run in runs:
            assert run.task is not None
            run.task.cancel(HANDED_ON if self._handing_on else SHUTDOWN)
        await asyncio.gather(*(run.task for run in runs if run.task), return_exceptions=True)
        self.watcher.stop()  # followers of other processes' runs end too (with `reconnect`)
        await self.runner.keeper.close()
        if runs:
            how = f"handed to {peers} peer(s)" if self._handing_on else "interrupted, resumable later"
            log.info("graceful stop: %d run(s) %s", len(runs), how)

    def _refuse_while_stopping(self) -> None:
        if self._shutting_down:
            raise Stopping("服务正在停止，请稍后再试")

    # --- starting ------------------------------------------------------------------------------------
    async def start(
        self, request: RunRequest, *, owner_id: int | None = None, started_by: str | None = None
    ) -> Run:
        """Validate and launch a new run — or, with the `threadId` of a finished thread, a revision run on it
        (`agents.revision`); 409 if the thread is running, paused or starting."""
        self._refuse_while_stopping()
        wanted = request.thread_id
        if wanted and (wanted in self.active or wanted in self._starting):
            raise ThreadBusy(f"会话 {wanted} 正在运行", details={"threadId": wanted})
        if wanted:
            self._starting.add(wanted)
        # room is taken when it is counted: starts that are still being stored count as running here
        queued = self.max_runs is not None and len(self.active) + self._admitted >= self.max_runs
        self._admitted += not queued
        try:
            if wanted and await self.runner.find(wanted) is not None:  # a new message on an existing thread
                handle = await self.runner.prepare_revise(request, actor=started_by)
                return await self._launch(handle)
            handle = await self.runner.prepare_start(
                request, owner_id=owner_id, started_by=started_by, queued=queued
            )
            if not queued:
                return await self._launch(handle)
        finally:
            self._starting.discard(wanted or "")
            self._admitted -= not queued
        waiting = WorkflowProgress(phase=QUEUED_PHASE, progress=0.0, current_agent="supervisor")
        await self.runner.record(handle.thread_id, handle.creative_id, waiting)
        log.info("run %s queued: %d run(s) going here", handle.thread_id, len(self.active))
        return Run(handle.thread_id, handle.creative_id)  # to follow: whichever process has room runs it

    async def queued(self, request: RunRequest, *, started_by: str | None = None) -> AsyncIterator[Event]:
        """A new message for a thread that is running or paused, when messages queue (`queue_revisions`):
        the stream says first that it waits, then — once the thread has finished, and after the messages
        queued before it here — it is a revision like any other (`start`), followed to its end. Its
        `basedOn` was checked when it was sent; it runs on whatever version the earlier requests make.
        Queued messages live in this process: a restart ends their streams, never a run."""
        thread_id = request.thread_id or ""
        creative = await self.runner.require(thread_id)
        note = Message(agent="supervisor", content=WAITING_NOTE)
        yield await self.runner.record(thread_id, creative.id, note)
        request = request.model_copy(update={"based_on": None})
        async with self._turn(thread_id):
            while True:
                self._refuse_while_stopping()
                progress = (await self.store.progress([thread_id]))[thread_id]
                if progress.status in FINISHED and thread_id not in self.active:
                    try:
                        run = await self.start(request, started_by=started_by)
                        break
                    except ThreadBusy:  # another request (maybe in another process) took it first
                        pass
                await asyncio.sleep(self.watcher.poll_s)
        async for event in self.follow(run.thread_id, run.start_seq):
            yield event

    @asynccontextmanager
    async def _turn(self, thread_id: str) -> AsyncIterator[None]:
        """A queued message's turn on its thread: one at a time, in the order they came (asyncio's locks
        are FIFO). The thread's lock is dropped once no message holds or waits for it."""
        lock = self._turns.setdefault(thread_id, asyncio.Lock())
        self._in_turn[thread_id] += 1
        try:
            async with lock:
                yield
        finally:
            self._in_turn[thread_id] -= 1
            if not self._in_turn[thread_id]:
                del self._in_turn[thread_id], self._turns[thread_id]

    async def rewrite(
        self, request: RunRequest, span: dict[str, Any] | None = None, *, actor: str | None = None
    ) -> Run:
        """A one-click rewrite of a finished thread's draft (`request.message` is its instruction): a text
        revision whose version says it was a quick action — or, with `span` ({start, end, text,
        instruction} of the current body), a rewrite of that passage only."""
        self._refuse_while_stopping()
        thread_id = request.thread_id or ""
        if thread_id in self.active or thread_id in self._starting:
            raise ThreadBusy(f"会话 {thread_id} 正在运行", details={"threadId": thread_id})
        self._starting.add(thread_id)
        try:
            source = VersionSource.SELECTION_EDIT if span else VersionSource.QUICK_ACTION
            handle = await self.runner.prepare_revise(
                request, scope="text", source=source.value, span=span, actor=actor
            )
        finally:
            self._starting.discard(thread_id)
        return await self._launch(handle)

    async def _settled(self, thread_id: str) -> Run | None:
        """The thread's live run here — none once a run that has paused has finished its segment (a
        client answering the pause the moment it sees it must not find the run still running)."""
        run = self.active.get(thread_id)
        if run is not None and run.pausing and run.task is not None:
            await asyncio.wait([run.task], timeout=10)
            run = self.active.get(thread_id)
        return run

    async def confirm(self, thread_id: str, payload: dict[str, Any]) -> Run:
        """Validate a confirm against the pending pause, claim it atomically and resume the run."""
        self._refuse_while_stopping()
        if await self._settled(thread_id) is not None:
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
        except asyncio.CancelledError as exc:
            await self._stopped(run, exc)
        except Exception:  # the runner reports its own failures as events; this is a bug
            log.exception("run %s crashed", run.thread_id)
        finally:
            run.finished = True
            run.publish(_END)
            self.active.pop(run.thread_id, None)
            if self.max_runs is not None and not self._shutting_down:  # room for a queued run now
                sweep = asyncio.create_task(self._sweep_quietly(), name="runs:sweep")
                self._sweeps.add(sweep)
                sweep.add_done_callback(self._sweeps.discard)

    async def _stopped(self, run: Run, cancelled: asyncio.CancelledError) -> None:
        """Tell a cancelled run's watchers why their stream ends, and record it where that is ours to do."""
        try:
            if HANDED_ON in cancelled.args:  # a peer continues it (we stop, or it took the lease over)
                if self._handing_on:
                    await self.store.hand_on(self.worker, [run.thread_id])
                run.publish(reconnect(run.thread_id, run.last_seq))
            elif SHUTDOWN in cancelled.args:  # no peer: resumable, and the watchers are told so first
                interrupted = await self.runner.mark_interrupted(run.thread_id)
                await self.store.release(self.worker, run.thread_id)
                if interrupted is not None:
                    run.publish(interrupted)
            else:  # the runner marked the creative aborted; tell the watchers why their stream ends
                run.publish(await self._record_abort(run.thread_id, run.creative_id, "运行已取消"))
        except Exception:  # best effort: a peer's sweeper or the next start settles it
            log.exception("could not record how run %s stopped", run.thread_id)

    async def _record_abort(self, thread_id: str, creative_id: int, message: str) -> Event:
        """End the thread's log with an `error` ABORTED event (which marks its creative aborted); a revision
        given up leaves the creative showing its current version."""
        abort = ErrorEvent(code=ABORTED, message=message, agent=None, retryable=False)
        recorded = await self.runner.record(thread_id, creative_id, abort)
        await self.versions.show_current(creative_id)
        return recorded

    # --- cancelling ----------------------------------------------------------------------------------
    async def cancel(self, thread_id: str) -> str:
        """Stop a running run — here, or in the process that runs it — or discard a paused one; the
        creative ends `aborted`."""
        run = await self._settled(thread_id)
        if run is not None and run.task is not None:
            run.task.cancel()
            await asyncio.gather(run.task, return_exceptions=True)
            return CreativeStatus.ABORTED.value
        creative = await self.runner.require(thread_id)
        if creative.status == CreativeStatus.RUNNING:
            return await self._cancel_elsewhere(creative)
        await self.store.claim(  # atomic: a confirm racing this cancel either wins or finds it aborted
            thread_id,
            CreativeStatus.PAUSED,
            f"会话 {thread_id} 没有在运行或暂停（状态：{label('status', creative.status)}），无法取消",
            to=CreativeStatus.ABORTED,
        )
        await self._record_abort(thread_id, creative.id, "已放弃这个暂停中的运行")
        return CreativeStatus.ABORTED.value

    async def _cancel_elsewhere(self, creative: Creative) -> str:
        """A run another process runs: ask its worker (through the lease) and wait until it has stopped.
        With no live worker (it died; no sweeper has taken it yet), abort it here."""
        thread_id = creative.thread_id
        if await self.store.request_cancel(thread_id, self.worker) is None:
            await self.store.claim(
                thread_id, CreativeStatus.RUNNING, f"会话 {thread_id} 已经结束，无法取消",
                to=CreativeStatus.ABORTED,
            )
            await self._record_abort(thread_id, creative.id, "运行已取消")
            return CreativeStatus.ABORTED.value
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.cancel_wait_s
        while loop.time() < deadline:
            progress = (await self.store.progress([thread_id]))[thread_id]
            if not progress.running:
                return progress.status
            await asyncio.sleep(self.watcher.poll_s)
        return CreativeStatus.RUNNING.value  # asked; the other process has not answered yet

    # --- watching ------------------------------------------------------------------------------------
    def follow(self, thread_id: str, after: int = 0) -> AsyncIterator[Event]:
        """Stored events after `after`, then live ones until the current run segment ends. Subscribes to
        the live run at once, before the caller first iterates: a stream that follows the run it has just
        started gets every event from the queue and never reads the log back. A run no segment of which
        is live here is followed from the log (it may be running in another process)."""
        run = self.active.get(thread_id)
        if run is None:
            return self._follow_log(thread_id, after)
        queue: asyncio.Queue[Item] = asyncio.Queue()
        run.subscribers.add(queue)  # before reading the log: nothing can fall in between
        # a live run has published every stored event up to its last_seq; the queue gets the rest
        caught_up = run.last_seq <= after
        return self._follow(thread_id, after, run, queue, caught_up)

    async def _follow(
        self,
        thread_id: str,
        after: int,
        run: Run,
        queue: asyncio.Queue[Item],
        caught_up: bool,
    ) -> AsyncIterator[Event]:
        try:
            seen = after
            for event in [] if caught_up else await self.stored(thread_id, after):
                seen = int(event["seq"])
                yield event
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
                if item.get("seq") is None or int(item["seq"]) > seen:
                    seen = int(item.get("seq") or seen)
                    yield item
        finally:
            run.subscribers.discard(queue)

    async def _follow_log(self, thread_id: str, after: int) -> AsyncIterator[Event]:
        """Follow a thread from the stored log: what is there after `after`, then what is appended while a
        segment runs (here or in another process), until the thread is no longer running and everything
        is read. A segment that starts here meanwhile is followed live from where the log left off."""
        seen = after
        with self.watcher.watch(thread_id) as changed:
            while True:
                for event in await self.stored(thread_id, seen):
                    seen = int(event["seq"])
                    yield event
                progress = (await self.store.progress([thread_id])).get(thread_id)
                if progress is None or (not progress.running and progress.last_seq <= seen):
                    return
                if thread_id in self.active:  # now running here: follow it live
                    async for event in self.follow(thread_id, seen):
                        yield event
                    return
                if self._shutting_down:  # this process stops: follow the run elsewhere
                    yield reconnect(thread_id, seen)
                    return
                await changed.wait(seen)

    async def thread(self, thread_id: str) -> Creative:
        """The thread's creative; ThreadNotFound (404) when there is none."""
        return await self.store.require(thread_id)

    async def find(self, thread_id: str) -> Creative | None:
        """The thread's creative, or None when there is no such thread."""
        return await self.store.find(thread_id)

    async def pending(self, thread_id: str) -> Event | None:
        """The open `ask_user` of a paused thread (with its `interruptId`), or None."""
        return await self.runner.pending(thread_id)

    async def last_seq(self, thread_id: str) -> int:
        return await self.store.last_seq(thread_id)

    async def stored(self, thread_id: str, after: int = 0) -> list[Event]:
        return await self.store.stored(thread_id, after)

    async def inbox(self, limit: int = 200) -> list[PausedThread]:
        return await self.store.inbox(limit)

    def abort_on_disconnect(self, run: Run) -> None:
        """The client that owns `run` went away: cancel it if the settings say so."""
        if self.on_disconnect == "abort" and run.task is not None and not run.task.done():
            log.info("client of %s disconnected: aborting the run", run.thread_id)
            run.task.cancel()
