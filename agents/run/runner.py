"""Running workflows: start or resume a thread, stream its events, keep the database in step.

`WorkflowRunner.prepare_start` / `prepare_resume` / `prepare_continue` validate everything that can be
validated up front (raising `agents.errors` or `tools.errors` exceptions, so an HTTP layer can answer 4xx
before the first byte) and take the thread's lease for this worker; then `stream(handle)` drives the graph
and yields wire events. Each event is stamped with the thread id, appended to `run_events` (the replay
log; the database numbers it) and applied to the creative row (status, artifacts, timings, usage) before
it is yielded. While a segment streams, the process's `LeaseKeeper` renews its lease; when it ends
(paused, finished, cancelled) the lease is released.

Ephemeral events (`agents.events.EPHEMERAL_TYPES`: the streaming draft's `content_delta`) take another
path: stamped with the thread id only, never given a `seq`, never stored, and yielded only to a caller
that asks for them (`stream(handle, ephemeral=True)`: the run manager and the CLI's live view).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from agents.context import RunOptions, StudioContext, default_asset_url
from agents.errors import InvalidConfirmation, NotPaused, StaleInterrupt, ThreadBusy
from agents.events import ErrorEvent, Event, StateUpdate, WorkflowPaused, is_ephemeral
from agents.hitl import ConfirmationError, parse_confirmation
from agents.node import announce_retry
from agents.revision import Scope, revision_input
from agents.revision import scope as revision_scope
from agents.run.leases import HANDED_ON, LeaseKeeper
from agents.run.recorder import FINISHED, INTERRUPTED, CreativeRecorder, accepted, revising, stamp
from agents.run.request import RunRequest
from agents.run.store import RunStore, Worker
from agents.run.versions import VersionConflict, Versions, as_state, current_version
from agents.run.writer import BatchWriter
from agents.state import StudioState
from tools.assets import AssetStore
from tools.call_cache import CallCaches
from tools.database import Creative, CreativeStatus, VersionSource
from tools.image_input import normalize_image_input
from tools.images import ImageProvider
from tools.knowledge import KnowledgeStore
from tools.labels import label
from tools.llm import CallRecord, LLMGateway, UsageMeter

DEFERRED_TYPES = {"workflow_complete", "error"}  # sent last, after the final state_update
SHUTDOWN = "shutdown"  # cancel a stream with this message to leave its run resumable, not aborted
QUIET = {SHUTDOWN, HANDED_ON}  # cancellations that are no user's decision: the run is not aborted


@dataclass
class Resources:
    """What every run of the process shares; built once (server lifespan or CLI)."""

    graph: CompiledStateGraph[Any, Any, Any, Any]
    sessions: async_sessionmaker[AsyncSession]
    knowledge: KnowledgeStore
    assets: AssetStore
    llm: LLMGateway
    image_provider: Callable[[str | None], ImageProvider]  # by name; None → the default provider
    writer: BatchWriter  # run events and creative-row updates, group-committed
    options: RunOptions = field(default_factory=RunOptions)
    hitl_default: bool = True
    image_max_bytes: int = 10 * 1024 * 1024
    allow_private_image_urls: bool = False
    asset_url: Callable[[int], str] = default_asset_url
    lease_s: float = 30.0  # how long a run's lease lasts unrenewed (a dead worker's runs wait this long)
    tick_s: float = 1.0  # how often leases, cancels from other processes and expired runs are looked at
    call_caches: CallCaches = field(default_factory=CallCaches)  # identical calls per creative (issue 17)

    @cached_property
    def store(self) -> RunStore:
        return RunStore(self.sessions, self.writer, lease_s=self.lease_s)


@dataclass
class RunHandle:
    """A validated start or resume, ready to stream."""

    creative: Creative  # as it was read (or created) while preparing
    last_seq: int  # the thread's last stored event when this segment begins
    input: StudioState | Command[Any] | None  # None: continue from the last checkpoint
    context: StudioContext
    meter: UsageMeter
    stored: list[dict[str, Any]] = field(default_factory=list)  # events stored while preparing, to send

    @property
    def thread_id(self) -> str:
        return self.creative.thread_id

    @property
    def creative_id(self) -> int:
        return self.creative.id

    @property
    def start_seq(self) -> int:
        """The last seq a watcher of this segment has seen before it: the segment's own events follow."""
        return self.last_seq - len(self.stored)


def _text_of(draft: Any) -> dict[str, Any]:
    draft = draft or {}
    return {"title": draft.get("title"), "body": draft.get("body"), "tags": list(draft.get("tags") or [])}


class WorkflowRunner:
    """Starts, resumes and streams workflow runs over shared `Resources`, as `worker`."""

    def __init__(self, resources: Resources, worker: Worker | None = None) -> None:
        self.r = resources
        self.store = resources.store
        self.worker = worker or Worker(takes_runs=False)
        self.keeper = LeaseKeeper(self.store, self.worker, tick_s=resources.tick_s)

    # --- preparing ---------------------------------------------------------------------------------
    def _context(self, creative_id: int, options: dict[str, Any]) -> tuple[StudioContext, UsageMeter]:
        meter = UsageMeter(on_retry=announce_retry)
        cache = self.r.call_caches.for_scope(creative_id)
        llm = self.r.llm.with_model(options.get("model")).with_meter(meter).with_cache(cache)

        def retrieval_hit(kind: str) -> None:
            meter.add(CallRecord(task=f"retrieval:{kind}", model="knowledge", prompt_tokens=0,
                                 completion_tokens=0, cost_usd=0.0, latency_ms=0.0, attempts=0, ok=True,
                                 cached=True))

        context = StudioContext(
            llm=llm,
            knowledge=self.r.knowledge.cached(cache, retrieval_hit),
            images=self.r.image_provider(options.get("imageProvider")),
            assets=self.r.assets,
            sessions=self.r.sessions,
            options=self.r.options,
            creative_id=creative_id,
            asset_url=self.r.asset_url,
        )
        return context, meter

    async def find(self, thread_id: str) -> Creative | None:
        return await self.store.find(thread_id)

    async def require(self, thread_id: str) -> Creative:
        """The thread's creative; ThreadNotFound (404) when there is none."""
        return await self.store.require(thread_id)

    async def prepare_start(
        self,
        request: RunRequest,
        *,
        owner_id: int | None = None,
        started_by: str | None = None,
        queued: bool = False,
    ) -> RunHandle:
        """Validate a new run, store its reference images and create its creative row (owned by user
        `owner_id`, started by the actor `started_by`: `user:<name>`, `cli:<os user>`), leased to this
        worker — or, `queued`, to nobody: the sweeper of whichever process has room takes it (its handle
        is then only for following)."""
        thread_id = request.thread_id or uuid.uuid4().hex
        images = [
            await normalize_image_input(
                ref.data or ref.url or "",
                max_bytes=self.r.image_max_bytes,
                allow_private=self.r.allow_private_image_urls,
            )
            for ref in request.reference_images
        ]
        enable_hitl = self.r.hitl_default if request.enable_hitl is None else request.enable_hitl
        options: dict[str, Any] = {
            "imageCount": request.image_count,
            "layoutPreference": request.layout_preference,
            "enableHITL": enable_hitl,
            "imageProvider": request.image_provider,
            "model": request.model,
            "referenceCount": len(images),
        }
        values = {
            "thread_id": thread_id,
            "status": CreativeStatus.RUNNING.value,
            "request": request.message,
            "options": options,
            "model": request.model or self.r.llm.model,
            "owner_id": owner_id,
            "started_by": started_by,
        }
        first = stamp(thread_id, accepted().wire())
        # with its first event and, unless queued, the lease
        creative = await self.store.create(values, first, None if queued else self.worker)
        references = []
        for image, ref in zip(images, request.reference_images, strict=True):
            record = await self.r.assets.save(
                image.data,
                mime=image.mime,
                width=image.width,
                height=image.height,
                role="reference",
                provider="upload",
                creative_id=creative.id,
            )
            references.append({"assetId": record.id, "usage": ref.type})
        if references:  # what a takeover before the first checkpoint starts the run from
            options = {**options, "references": references}
            await self.store.update(creative.id, options=options)
        context, meter = self._context(creative.id, options)
        state = self._first_state(thread_id, request.message, options)
        return RunHandle(creative, int(first["seq"]), state, context, meter, stored=[first])

    def _first_state(self, thread_id: str, message: str, options: dict[str, Any]) -> StudioState:
        """The graph's input for a new run (from its request and options, as stored on its creative)."""
        return {
            "threadId": thread_id,
            "request": message,
            "referenceInputs": list(options.get("references") or []),
            "imageCount": options["imageCount"],
            "layoutPreference": options["layoutPreference"],
            "enableHITL": options["enableHITL"],
            "iterationCount": 0,
            "maxIterations": self.r.options.max_iterations,
            "agentClarificationKeys": [],
            "qualityHistory": [],
            "referenceAnalyses": [],
            "imagePlans": [],
        }

    async def pending(self, thread_id: str) -> dict[str, Any] | None:
        """The open `ask_user` of a paused thread (with its `interruptId`), or None."""
        snapshot = await self.r.graph.aget_state({"configurable": {"thread_id": thread_id}})
        for interrupt in snapshot.interrupts:
            return {**interrupt.value, "type": "ask_user", "threadId": thread_id, "interruptId": interrupt.id}
        return None

    async def prepare_resume(self, thread_id: str, payload: dict[str, Any]) -> RunHandle:
        """Validate a confirm against the pending pause; raises 404/409/422-style errors."""
        creative = await self.require(thread_id)
        pending = await self.pending(thread_id)
        if pending is None or creative.status != CreativeStatus.PAUSED:
            raise NotPaused(
                f"会话 {thread_id} 当前没有等待确认的步骤（状态：{label('status', creative.status)}）",
                details={"status": creative.status},
            )
        wanted = payload.get("interruptId")
        if wanted and wanted != pending["interruptId"]:
            raise StaleInterrupt(
                "这个确认对应的暂停已经处理过了", details={"pending": pending["interruptId"]}
            )
        try:
            confirmation = parse_confirmation(payload, pending)
        except ConfirmationError as exc:
            raise InvalidConfirmation(
                str(exc), details={"kind": pending.get("context", {}).get("kind")}
            ) from exc
        last = await self.store.claim(
            thread_id, CreativeStatus.PAUSED, "这个暂停已经有一个确认正在处理", owner=self.worker
        )
        context, meter = self._context(creative.id, creative.options or {})
        command: Command[Any] = Command(
            resume=confirmation.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
        return RunHandle(creative, last, command, context, meter)

    async def prepare_revise(
        self, request: RunRequest, *, scope: Scope | None = None, source: str = VersionSource.RUN.value,
        span: dict[str, Any] | None = None, actor: str | None = None,
    ) -> RunHandle:
        """A new message on a finished thread (completed, failed or aborted): claim it, lease it and start a
        revision run of what the message asks (`agents.revision`; `scope` decides instead) from the thread's
        last state. A thread that is running or paused is busy (409), as is one another request claims
        first; a `basedOn` that is not the current version is a 409 too."""
        thread_id = request.thread_id or ""
        creative = await self.require(thread_id)
        status = CreativeStatus(creative.status)
        if status not in FINISHED:
            raise ThreadBusy(
                f"会话 {thread_id} 正在运行或等待审核，结束后才能继续修改（状态：{label('status', status)}）",
                details={"threadId": thread_id, "status": status.value},
            )
        if request.based_on is not None and request.based_on != creative.current_version:
            raise VersionConflict(
                f"当前已是第 {creative.current_version} 版，不是第 {request.based_on} 版：请刷新后再修改",
                details={"current": creative.current_version, "basedOn": request.based_on},
            )
        snapshot = await self.r.graph.aget_state({"configurable": {"thread_id": thread_id}})
        if snapshot.created_at is None:
            raise ThreadBusy(f"会话 {thread_id} 没有可以修改的结果", details={"threadId": thread_id})
        if (creative.error or {}).get("code") == INTERRUPTED and (snapshot.next or snapshot.tasks):
            raise ThreadBusy(  # its steps left are run by a resume, not replaced by a revision
                "这个运行被中断了，请先继续运行，完成后再修改",
                details={"threadId": thread_id, "resumable": True},
            )
        version = await current_version(self.store, creative.id)
        current = as_state(version) if version is not None else {}
        if span is not None:  # the passage must be the current body's: else the client saw another one
            body = str((current.get("generatedContent") or {}).get("body") or "")
            if body[span["start"]:span["end"]] != span["text"]:
                raise VersionConflict(
                    "选中的文字和当前正文对不上：正文可能已经改过，请刷新后重新选择",
                    details={"selection": {k: span[k] for k in ("start", "end")}},
                )
        try:
            await self.store.claim(thread_id, status, "这个会话已经有一个请求正在处理", owner=self.worker)
        except NotPaused as exc:
            raise ThreadBusy(str(exc), details={"threadId": thread_id}) from exc
        chosen = scope or revision_scope(request.message)
        values = {**snapshot.values, **current}
        update: StudioState = {**current, **revision_input(values, request.message, chosen)}  # type: ignore[typeddict-item]
        by_hand = current and current["generatedContent"] != _text_of(snapshot.values.get("generatedContent"))
        if by_hand and chosen == "images":  # text a person edited or restored: the critic warns, never redoes
            update["editorEdited"] = True
        if span is not None:
            update["spanEdit"] = span
        if request.enable_hitl is not None:
            update["enableHITL"] = request.enable_hitl
        first = stamp(thread_id, revising(chosen).wire())
        # what the revision's version will say made it, and who asked — kept on the row, so a segment that
        # resumes the revision after a checkpoint says the same
        asked = {"source": source, "actor": actor or creative.started_by}
        options = {**(creative.options or {}), "revision": asked}
        await self.store.append([first], creative.id, error=None, options=options)
        creative.options = options
        context, meter = self._context(creative.id, options)
        return RunHandle(creative, int(first["seq"]), update, context, meter, stored=[first])

    async def _after_revision(self, thread_id: str) -> None:
        """A revision that ended failed or cancelled leaves the creative as its current version shows it,
        not with the partial draft or pictures it had made (the run's events keep what happened)."""
        creative = await self.store.find(thread_id)
        if creative is not None and creative.status in (CreativeStatus.FAILED, CreativeStatus.ABORTED):
            await Versions(self.store, self.r.assets).show_current(creative.id)

    async def resumable(self, thread_id: str) -> bool:
        """Whether the thread's last checkpoint has steps left to run. `next` is empty when the steps that
        were running had already saved their writes: those show as `tasks`, and continuing applies the
        writes and goes on from there."""
        snapshot = await self.r.graph.aget_state({"configurable": {"thread_id": thread_id}})
        return bool(snapshot.next or snapshot.tasks)

    async def started(self, thread_id: str) -> bool:
        """Whether the graph has run for the thread at all (it has a checkpoint)."""
        snapshot = await self.r.graph.aget_state({"configurable": {"thread_id": thread_id}})
        return snapshot.created_at is not None

    async def prepare_continue(self, thread_id: str) -> RunHandle:
        """Continue a run that was cut off mid-flight (INTERRUPTED) from its last checkpoint."""
        creative = await self.require(thread_id)
        interrupted = (creative.error or {}).get("code") == INTERRUPTED
        if creative.status != CreativeStatus.FAILED or not interrupted or not await self.resumable(thread_id):
            raise NotPaused(
                f"会话 {thread_id} 不是被中断的运行，无法从检查点继续"
                f"（状态：{label('status', creative.status)}）",
                details={"status": creative.status},
            )
        last = await self.store.claim(
            thread_id, CreativeStatus.FAILED, "这个会话已经在继续运行", owner=self.worker
        )
        context, meter = self._context(creative.id, creative.options or {})
        return RunHandle(creative, last, None, context, meter)

    async def prepare_takeover(self, thread_id: str) -> RunHandle | None:
        """A `running` thread whose lease this worker has just taken (it was queued, or its worker died or
        stopped): a handle that starts it, or continues it from its last checkpoint — or None when it has
        nothing left to run, once it is settled (paused if a pause is open, else INTERRUPTED and
        resumable) and released."""
        creative = await self.require(thread_id)
        options = creative.options or {}
        if creative.status == CreativeStatus.RUNNING and not await self.started(thread_id):  # queued
            context, meter = self._context(creative.id, options)
            state = self._first_state(thread_id, creative.request, options)
            return RunHandle(creative, await self.store.last_seq(thread_id), state, context, meter)
        if creative.status == CreativeStatus.RUNNING and await self.resumable(thread_id):
            context, meter = self._context(creative.id, options)
            return RunHandle(creative, await self.store.last_seq(thread_id), None, context, meter)
        await self.mark_interrupted(thread_id)
        await self.store.release(self.worker, thread_id)
        return None

    async def mark_interrupted(self, thread_id: str) -> dict[str, Any] | None:
        """A run left `running` that nobody will continue now: record a paused one as paused (with its
        `ask_user` and `workflow_paused` if the log lacks them); otherwise append an `error` event (code
        INTERRUPTED, resumable) and mark it failed. Returns that event."""
        creative = await self.find(thread_id)
        if creative is None or creative.status != CreativeStatus.RUNNING:
            return None
        pending = await self.pending(thread_id)
        if pending is not None:
            stored = await self.store.stored(thread_id, max(0, creative.last_seq - 1))
            if not stored or stored[-1]["type"] != "workflow_paused":  # cut off between checkpoint and log
                events = [stamp(thread_id, pending), stamp(thread_id, WorkflowPaused().wire())]
                await self.store.append(events, creative.id)
            await self.store.update(creative.id, status=CreativeStatus.PAUSED.value)
            return None
        return await self.record(
            thread_id,
            creative.id,
            ErrorEvent(
                code=INTERRUPTED,
                message="服务重启时这个运行被中断了，可以从最近的检查点继续"
                "（POST /api/agent/threads/{id}/resume）",
                agent=None,
                retryable=True,
            ),
        )

    async def record(self, thread_id: str, creative_id: int, event: Event) -> dict[str, Any]:
        """Append an event outside a stream (a run that ended without one) and apply it to the creative."""
        return await self.store.record(creative_id, stamp(thread_id, event.wire()))

    async def _current_images(
        self, creative_id: int, update_: dict[str, Any], recorder: CreativeRecorder
    ) -> None:
        """The pictures an update names (the image stage's, or those of the round delivery chose) become
        the creative's current set, before the update is published: a redone picture replaces the old
        one in `GET /api/creatives/{id}`, which keeps it as history."""
        ids = [i if isinstance(i, int) else None for i in update_.get("generatedImageAssetIds") or []]
        indexes = recorder.plan_indexes(update_)
        await self.r.assets.set_current(
            creative_id, ids, indexes if indexes is not None and len(indexes) == len(ids) else None
        )

    # --- streaming ---------------------------------------------------------------------------------
    async def stream(self, handle: RunHandle, *, ephemeral: bool = False) -> AsyncIterator[dict[str, Any]]:
        """Drive the graph; yield each stamped event after it is stored — and, with `ephemeral`, the
        ephemeral events as they come, unstored and without a seq (else they are dropped). The thread's
        lease is kept while it streams and released when the segment ends — unless the process is
        stopping (the run stays `running` for the manager to settle) or a peer has taken it over."""
        # preparing stored the creative as running (created or claimed) with this worker's lease
        thread_id, creative_id = handle.thread_id, handle.creative_id
        recorder = CreativeRecorder(handle.creative)
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}, "recursion_limit": 500}
        self.keeper.hold(thread_id, asyncio.current_task())
        release = True

        async def publish(event: dict[str, Any], **values: Any) -> dict[str, Any]:
            """Store the event and what it (and `values`) change in the creative row in one commit."""
            stamped = stamp(thread_id, event)
            await self.store.append(
                [stamped], creative_id, version=recorder.version_values(stamped), **values,
                **recorder.event_values(stamped),
            )
            return stamped

        mode: str
        chunk: Any
        # The segment's last events go out once the graph has stopped (its checkpoint is durable then, so a
        # confirm — in any process — finds the pause it answers): workflow_complete / error after finalize's
        # update, or the pause's ask_user and workflow_paused.
        terminal: list[dict[str, Any]] = []
        revision = "revision" in (handle.creative.options or {})
        try:
            for event in handle.stored:
                yield event
            async for mode, chunk in self.r.graph.astream(
                handle.input, config, context=handle.context, stream_mode=["updates", "custom"]
            ):
                if mode == "custom":
                    if is_ephemeral(chunk):
                        if ephemeral:
                            yield stamp(thread_id, chunk)
                    elif chunk.get("type") in DEFERRED_TYPES:
                        terminal.append(chunk)
                    else:
                        yield await publish(chunk)
                    continue
                for node, node_update in chunk.items():
                    if node == "__interrupt__":
                        terminal += [
                            {**i.value, "type": "ask_user", "interruptId": i.id} for i in node_update
                        ]
                        terminal.append(WorkflowPaused().wire())
                    elif node_update:
                        if "generatedImageAssetIds" in node_update:  # a stage's (or a delivered round's)
                            await self._current_images(creative_id, node_update, recorder)
                        yield await publish(
                            StateUpdate(agent=node, changes=sorted(node_update)).wire(),
                            **recorder.update_values(node_update),
                        )
            self.keeper.drop(thread_id)  # the last events end the run's `running`: its lease can go
            for event in terminal:
                yield await publish(event)
        except asyncio.CancelledError as exc:
            if QUIET.isdisjoint(exc.args):  # cancelled by a user: final
                await self.store.update(
                    creative_id, status=CreativeStatus.ABORTED.value, completed_at=datetime.now(UTC)
                )
            else:  # at shutdown the run stays `running` for the manager; handed on, it is a peer's now
                release = False
            raise
        except Exception as exc:  # a bug or a broken store: report it as an error event, never hang
            yield await publish(
                ErrorEvent(
                    code="INTERNAL_ERROR",
                    message=f"工作流内部错误：{type(exc).__name__}",
                    agent=None,
                    retryable=True,
                ).wire()
            )
        finally:
            self.keeper.drop(thread_id)
            usage = recorder.usage_values(handle.meter, handle.context.llm.model)
            await self.store.update(creative_id, **usage)
            if release and revision and not any(e.get("type") == "workflow_paused" for e in terminal):
                await self._after_revision(thread_id)
            if release:
                await self.store.release(self.worker, thread_id)
