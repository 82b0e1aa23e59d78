"""Running workflows: start or resume a thread, stream its events, keep the database in step.

`WorkflowRunner.prepare_start` / `prepare_resume` validate everything that can be validated up front
(raising `agents.errors` or `tools.errors` exceptions, so an HTTP layer can answer 4xx before the first
byte), then `stream(handle)` drives the graph and yields wire events. Each event is stamped with the
thread id and the next per-thread `seq`, appended to `run_events` (the replay log) and applied to the
creative row (status, artifacts, timings, usage) before it is yielded.

Ephemeral events (`agents.events.EPHEMERAL_TYPES`: the streaming draft's `content_delta`) take another
path: stamped with the thread id only (`EventLog.pass_on`), never given a `seq`, never stored, and yielded
only to a caller that asks for them (`stream(handle, ephemeral=True)`: the server and the CLI's live view).
"""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from agents.artifacts import LayoutPreference
from agents.context import RunOptions, StudioContext, default_asset_url
from agents.errors import InvalidConfirmation, NotPaused, StaleInterrupt, ThreadBusy, ThreadNotFound
from agents.events import (
    ErrorEvent,
    Event,
    StateUpdate,
    WorkflowPaused,
    WorkflowProgress,
    is_ephemeral,
    now_ms,
    parse_event,
)
from agents.hitl import ConfirmationError, parse_confirmation
from agents.node import announce_retry
from agents.state import StudioState
from tools.assets import AssetStore
from tools.database import Creative, CreativeStatus, RunEvent
from tools.image_input import normalize_image_input
from tools.images import ImageProvider
from tools.knowledge import KnowledgeStore
from tools.labels import label
from tools.llm import LLMGateway, UsageMeter, add_costs
from tools.writer import BatchWriter

FINISHED = {CreativeStatus.COMPLETED, CreativeStatus.FAILED, CreativeStatus.ABORTED}
DEFERRED_TYPES = {"workflow_complete", "error"}  # sent last, after the final state_update
INTERRUPTED = "INTERRUPTED"  # error code of a run cut off by a process exit; resumable
ABORTED = "ABORTED"  # error code that ends a run cancelled by a user (creative `aborted`)
SHUTDOWN = "shutdown"  # cancel a stream with this message to leave its run resumable, not aborted


def accepted() -> WorkflowProgress:
    """The first event of every new thread, stored with its creative row and sent before the graph starts:
    a client learns the thread id (to reconnect with) at once, however busy the server is."""
    return WorkflowProgress(phase="启动工作流", progress=0.0, current_agent="supervisor")


class ReferenceImageInput(BaseModel):
    """One reference image of a request: a data URL / raw base64 in `data`, or an http(s) `url`."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        # what `_one_source` checks, stated in the JSON schema (null counts as absent)
        json_schema_extra={
            "oneOf": [
                {"required": ["data"], "properties": {"data": {"type": "string"}}},
                {"required": ["url"], "properties": {"url": {"type": "string"}}},
            ]
        },
    )

    data: str | None = Field(
        None,
        min_length=1,
        description="A data URL (data:image/png;base64,…) or raw base64 of a PNG, JPEG, WebP or GIF image; "
        "bytes that are not such an image are a 422 IMAGE_* error.",
    )
    url: str | None = Field(
        None,
        min_length=1,
        description="An http(s) URL of such an image; private, loopback and link-local addresses are "
        "refused (422 IMAGE_URL_REFUSED).",
    )
    type: Literal["style", "layout", "content"] = "style"

    @model_validator(mode="after")
    def _one_source(self) -> ReferenceImageInput:
        if (self.data is None) == (self.url is None):
            raise ValueError("each reference image needs exactly one of `data` or `url`")
        return self


class RunRequest(BaseModel):
    """The body of `POST /api/agent/stream` (camelCase on the wire). Strict: JSON types are never converted
    (`"imageCount": true` or `"4"`, `"enableHITL": "yes"` are 422s, not a 1-image run, 4 and true)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True)

    message: str = Field(
        min_length=1, max_length=4000, pattern=r"\S", description="1..4000 characters once trimmed."
    )
    thread_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    reference_images: list[ReferenceImageInput] = Field(default_factory=list, max_length=6)
    layout_preference: LayoutPreference = "balanced"
    image_count: int = Field(4, ge=1, le=9)
    enable_hitl: bool | None = Field(None, alias="enableHITL")
    image_provider: str | None = Field(None, max_length=200)
    model: str | None = Field(None, max_length=200)

    @field_validator("message", mode="before")
    @classmethod
    def _trim(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value


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


class EventLog:
    """Stamps events with the thread id and the next `seq` and turns them into `run_events` rows."""

    def __init__(self, thread_id: str, last_seq: int) -> None:
        self.thread_id = thread_id
        self.seq = last_seq

    @staticmethod
    async def last_seq(r: Resources, thread_id: str) -> int:
        """The thread's last stored seq, counting every event queued for writing before the call."""
        await r.writer.flush()
        async with r.sessions() as session:
            last = await session.scalar(select(func.max(RunEvent.seq)).where(RunEvent.thread_id == thread_id))
        return int(last or 0)

    def stamp(self, event: dict[str, Any]) -> dict[str, Any]:
        """The event as it goes on the wire: thread id, next seq, timestamp, the contract's shape."""
        self.seq += 1
        stamped = {**event, "threadId": self.thread_id, "seq": self.seq}
        stamped.setdefault("timestamp", now_ms())
        return parse_event(stamped).wire()

    def pass_on(self, event: dict[str, Any]) -> dict[str, Any]:
        """An ephemeral event as it goes on the wire: the thread id, no seq (the log's seq is untouched)."""
        stamped = {**event, "threadId": self.thread_id}
        stamped.setdefault("timestamp", now_ms())
        return parse_event(stamped).wire()

    def row(self, stamped: dict[str, Any]) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "seq": stamped["seq"],
            "type": stamped["type"],
            "payload": stamped,
        }


# State keys → creative columns.
_COLUMNS = {
    "creativeBrief": "brief",
    "evidencePack": "evidence",
    "referenceAnalyses": "reference_analyses",
    "layoutSpec": "layout_spec",
    "imagePlans": "image_plans",
    "paragraphImageBindings": "bindings",
    "textOverlayPlan": "overlay_plan",
}


def status_values(event: dict[str, Any]) -> dict[str, Any]:
    """The creative columns a final or pausing event sets (none for other events)."""
    kind = event["type"]
    if kind == "workflow_complete":
        scores = event.get("qualityScores") or {}
        return {
            "status": CreativeStatus.COMPLETED.value,
            "title": event["title"] or None,
            "body": event["body"] or None,
            "tags": event["tags"],
            "score": scores.get("overall"),
            "completed_at": datetime.now(UTC),
            "error": None,
        }
    if kind == "workflow_paused":
        return {"status": CreativeStatus.PAUSED.value}
    if kind == "error":
        cancelled = event.get("code") == ABORTED
        return {
            "status": (CreativeStatus.ABORTED if cancelled else CreativeStatus.FAILED).value,
            "error": {k: event.get(k) for k in ("code", "message", "agent", "retryable")},
            "completed_at": datetime.now(UTC),
        }
    return {}


class CreativeRecorder:
    """What one creative row should hold as its run goes on: the column values each state update, event
    and usage record implies. The row is read once; the run's own writes keep the copy current (one run
    at a time per thread), so no update needs a read first. The caller writes the values — together with
    the event they belong to, in one group commit."""

    def __init__(self, creative: Creative) -> None:
        self.creative_id = creative.id
        self._timings: dict[str, Any] = dict(creative.timings or {})
        self._rounds: list[dict[str, Any]] = list(creative.review_rounds or [])
        self._usage: dict[str, dict[str, Any]] = {t: dict(row) for t, row in (creative.usage or {}).items()}
        self._tokens = (creative.prompt_tokens, creative.completion_tokens, creative.cost_usd)
        self._plans: list[Any] = list(creative.image_plans or [])

    def plan_indexes(self, update_: dict[str, Any]) -> list[int] | None:
        """The task indexes of the image plans in force with this update (its own, else the latest), in
        plan order; None when a plan has none."""
        plans = update_.get("imagePlans", self._plans) or []
        indexes = [p.get("index") if isinstance(p, dict) else None for p in plans]
        known = [i for i in indexes if isinstance(i, int)]
        return known if len(known) == len(indexes) else None

    def update_values(self, update_: dict[str, Any]) -> dict[str, Any]:
        values = {column: update_[key] for key, column in _COLUMNS.items() if key in update_}
        if "imagePlans" in update_:
            self._plans = list(update_["imagePlans"] or [])
        draft = update_.get("generatedContent")
        if isinstance(draft, dict):
            values.update(title=draft.get("title"), body=draft.get("body"), tags=draft.get("tags") or [])
        rounds = update_.get("qualityHistory")
        if rounds:
            kept = [{k: v for k, v in r.items() if k != "package"} for r in rounds]
            self._rounds = [*self._rounds, *kept]
            values["review_rounds"] = self._rounds
            values["score"] = kept[-1].get("overall")
        return values

    def event_values(self, event: dict[str, Any]) -> dict[str, Any]:
        if event["type"] == "agent_end":
            row = dict(self._timings.get(event["agent"], {"runs": 0, "totalMs": 0}))
            row["runs"] += 1
            row["totalMs"] += int(event["durationMs"])
            self._timings = {**self._timings, event["agent"]: row}
            return {"timings": self._timings}
        return status_values(event)

    def usage_values(self, meter: UsageMeter, model: str) -> dict[str, Any]:
        if not meter.records:
            return {}
        usage = {task: dict(row) for task, row in self._usage.items()}
        for task, row in meter.by_task().items():
            into = usage.setdefault(task, {k: 0 for k in row})
            for key, value in row.items():
                if key == "costUsd":  # unknown (None) stays unknown
                    into[key] = add_costs(into.get(key, 0.0), value)
                else:
                    into[key] = round(into.get(key, 0) + value, 6)
        prompt, completion, cost = self._tokens
        self._usage = usage
        self._tokens = (
            prompt + meter.prompt_tokens,
            completion + meter.completion_tokens,
            add_costs(cost, meter.cost_usd),
        )
        return {
            "usage": usage,
            "model": model,
            "prompt_tokens": self._tokens[0],
            "completion_tokens": self._tokens[1],
            "cost_usd": self._tokens[2],
        }


class WorkflowRunner:
    """Starts, resumes and streams workflow runs over shared `Resources`."""

    def __init__(self, resources: Resources) -> None:
        self.r = resources

    # --- preparing ---------------------------------------------------------------------------------
    def _context(self, creative_id: int, options: dict[str, Any]) -> tuple[StudioContext, UsageMeter]:
        meter = UsageMeter(on_retry=announce_retry)
        llm = self.r.llm.with_model(options.get("model")).with_meter(meter)
        context = StudioContext(
            llm=llm,
            knowledge=self.r.knowledge,
            images=self.r.image_provider(options.get("imageProvider")),
            assets=self.r.assets,
            sessions=self.r.sessions,
            options=self.r.options,
            creative_id=creative_id,
            asset_url=self.r.asset_url,
        )
        return context, meter

    async def find(self, thread_id: str) -> Creative | None:
        async with self.r.sessions() as session:
            return (
                await session.execute(select(Creative).where(Creative.thread_id == thread_id))
            ).scalar_one_or_none()

    async def require(self, thread_id: str) -> Creative:
        """The thread's creative; ThreadNotFound (404) when there is none."""
        creative = await self.find(thread_id)
        if creative is None:
            raise ThreadNotFound(f"找不到会话 {thread_id}", details={"threadId": thread_id})
        return creative

    async def prepare_start(
        self, request: RunRequest, *, owner_id: int | None = None, started_by: str | None = None
    ) -> RunHandle:
        """Validate a new run, store its reference images and create its creative row (owned by user
        `owner_id`, started by the actor `started_by`: `user:<name>`, `cli:<os user>`)."""
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
        options = {
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
        log = EventLog(thread_id, 0)
        first = log.stamp(accepted().wire())
        try:  # the row and the thread's first event, in one commit
            row = await self.r.writer.insert(Creative, values, events=[log.row(first)])
        except IntegrityError as exc:  # the thread id exists (thread_id is unique)
            raise ThreadBusy(
                f"会话 {thread_id} 已存在，不能重复开始", details={"threadId": thread_id}
            ) from exc
        creative = Creative(**row._asdict())
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
        state: StudioState = {
            "threadId": thread_id,
            "request": request.message,
            "referenceInputs": references,
            "imageCount": request.image_count,
            "layoutPreference": request.layout_preference,
            "enableHITL": enable_hitl,
            "iterationCount": 0,
            "maxIterations": self.r.options.max_iterations,
            "agentClarificationKeys": [],
            "qualityHistory": [],
            "referenceAnalyses": [],
            "imagePlans": [],
        }
        context, meter = self._context(creative.id, options)
        return RunHandle(creative, log.seq, state, context, meter, stored=[first])

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
        await self.claim(thread_id, CreativeStatus.PAUSED, "这个暂停已经有一个确认正在处理")
        context, meter = self._context(creative.id, creative.options or {})
        command: Command[Any] = Command(
            resume=confirmation.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
        return RunHandle(creative, await EventLog.last_seq(self.r, thread_id), command, context, meter)

    async def prepare_continue(self, thread_id: str) -> RunHandle:
        """Continue a run that was cut off mid-flight (process died) from its last checkpoint."""
        creative = await self.require(thread_id)
        snapshot = await self.r.graph.aget_state({"configurable": {"thread_id": thread_id}})
        interrupted = (creative.error or {}).get("code") == INTERRUPTED
        # `next` is empty when the steps that were running had already saved their writes: those
        # show as `tasks`, and continuing applies the writes and goes on from there
        resumable = bool(snapshot.next or snapshot.tasks)
        if creative.status != CreativeStatus.FAILED or not interrupted or not resumable:
            raise NotPaused(
                f"会话 {thread_id} 不是被中断的运行，无法从检查点继续"
                f"（状态：{label('status', creative.status)}）",
                details={"status": creative.status},
            )
        await self.claim(thread_id, CreativeStatus.FAILED, "这个会话已经在继续运行")
        context, meter = self._context(creative.id, creative.options or {})
        return RunHandle(creative, await EventLog.last_seq(self.r, thread_id), None, context, meter)

    async def claim(
        self,
        thread_id: str,
        expected: CreativeStatus,
        taken: str,
        to: CreativeStatus = CreativeStatus.RUNNING,
    ) -> None:
        """Atomically move the creative from `expected` to `to`; exactly one concurrent caller wins, the
        others get NotPaused(`taken`)."""
        statement = (
            update(Creative)
            .where(Creative.thread_id == thread_id, Creative.status == expected.value)
            .values(status=to.value, error=None, completed_at=datetime.now(UTC) if to in FINISHED else None)
        )

        async def claim(conn: AsyncConnection) -> int:
            return int(getattr(await conn.execute(statement), "rowcount", 0) or 0)

        if await self.r.writer.run(claim) != 1:
            raise NotPaused(taken, details={"threadId": thread_id})

    async def mark_interrupted(self, thread_id: str) -> dict[str, Any] | None:
        """After a restart: a run left `running` was cut off. Record a paused one as paused; otherwise
        append an `error` event (code INTERRUPTED, resumable) and mark it failed. Returns that event."""
        creative = await self.find(thread_id)
        if creative is None or creative.status != CreativeStatus.RUNNING:
            return None
        if await self.pending(thread_id) is not None:
            await self.r.writer.write(creative_id=creative.id, status=CreativeStatus.PAUSED.value)
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
        log = EventLog(thread_id, await EventLog.last_seq(self.r, thread_id))
        stamped = log.stamp(event.wire())
        await self.r.writer.write([log.row(stamped)], creative_id, **status_values(stamped))
        return stamped

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
        ephemeral events as they come, unstored and without a seq (else they are dropped)."""
        # preparing stored the creative as running (created or claimed) and read what these need
        log = EventLog(handle.thread_id, handle.last_seq)
        recorder = CreativeRecorder(handle.creative)
        write = self.r.writer.write
        creative_id = handle.creative_id
        config: RunnableConfig = {"configurable": {"thread_id": handle.thread_id}, "recursion_limit": 500}

        async def publish(event: dict[str, Any], **values: Any) -> dict[str, Any]:
            """Store the event and what it (and `values`) change in the creative row in one commit."""
            stamped = log.stamp(event)
            values = {**values, **recorder.event_values(stamped)}
            await write([log.row(stamped)], creative_id, **values)
            return stamped

        mode: str
        chunk: Any
        terminal: list[dict[str, Any]] = []  # workflow_complete / error go last, after finalize's update
        try:
            for event in handle.stored:
                yield event
            async for mode, chunk in self.r.graph.astream(
                handle.input, config, context=handle.context, stream_mode=["updates", "custom"]
            ):
                if mode == "custom":
                    if is_ephemeral(chunk):
                        if ephemeral:
                            yield log.pass_on(chunk)
                    elif chunk.get("type") in DEFERRED_TYPES:
                        terminal.append(chunk)
                    else:
                        yield await publish(chunk)
                    continue
                for node, node_update in chunk.items():
                    if node == "__interrupt__":
                        for interrupt in node_update:
                            yield await publish(
                                {**interrupt.value, "type": "ask_user", "interruptId": interrupt.id}
                            )
                        yield await publish(WorkflowPaused().wire())
                    elif node_update:
                        if "generatedImageAssetIds" in node_update:  # a stage's (or a delivered round's)
                            await self._current_images(creative_id, node_update, recorder)
                        yield await publish(
                            StateUpdate(agent=node, changes=sorted(node_update)).wire(),
                            **recorder.update_values(node_update),
                        )
            for event in terminal:
                yield await publish(event)
        except asyncio.CancelledError as exc:
            if SHUTDOWN not in exc.args:  # cancelled by a user: final
                await write(
                    creative_id=creative_id,
                    status=CreativeStatus.ABORTED.value,
                    completed_at=datetime.now(UTC),
                )
            raise  # at shutdown the run stays `running` for `mark_interrupted` (resumable)
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
            await write(
                creative_id=creative_id, **recorder.usage_values(handle.meter, handle.context.llm.model)
            )


def reference_from_path(
    path: Path, usage: Literal["style", "layout", "content"] = "style"
) -> ReferenceImageInput:
    """A reference image from a local file (CLI use), as raw base64."""
    return ReferenceImageInput(data=base64.b64encode(path.read_bytes()).decode("ascii"), type=usage)
