"""Typed models for every SSE event of docs/protocol.md.

Nodes build an event and hand it to `emit`, which writes it to LangGraph's custom stream; the runner
stamps `threadId` and `seq`, persists it and forwards it. `timestamp` (Unix ms) is set when the event
is created, so delivery lag can be measured end to end.

Ephemeral events (`EPHEMERAL_TYPES`: the draft's `content_delta`, a stream's closing `reconnect`) are the
exception: only `threadId` is stamped, never a `seq`; they are not stored, not replayed, and go out as SSE
frames without an `id:` line. `EVENT_TYPES` are the stored ones.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from langgraph.config import get_stream_writer
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel


def now_ms() -> int:
    return int(time.time() * 1000)


class Event(BaseModel):
    """Fields common to every event. `thread_id` and `seq` are filled in by the runner."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)

    type: str
    thread_id: str | None = None
    seq: int | None = None
    timestamp: int = Field(default_factory=now_ms)

    def wire(self) -> dict[str, Any]:
        """The JSON object sent to clients (camelCase)."""
        return self.model_dump(mode="json", by_alias=True)


class AgentStart(Event):
    type: Literal["agent_start"] = "agent_start"
    agent: str
    content: str


class AgentEnd(Event):
    type: Literal["agent_end"] = "agent_end"
    agent: str
    content: str
    duration_ms: int


class SupervisorDecision(Event):
    type: Literal["supervisor_decision"] = "supervisor_decision"
    agent: Literal["supervisor"] = "supervisor"
    decision: str  # next agent(s) joined by "+" for a parallel step, or "END"
    reason: str
    source: Literal["rule", "llm"]


class IntentDetected(Event):
    type: Literal["intent_detected"] = "intent_detected"
    intent: str
    confidence: float
    keywords: list[str]
    suggested_category: str
    source: Literal["llm", "rule"]


class ContentTypeDetected(Event):
    type: Literal["content_type_detected"] = "content_type_detected"
    content_type: str
    confidence: float
    reasoning: str


class StateUpdate(Event):
    type: Literal["state_update"] = "state_update"
    agent: str
    changes: list[str]


class Message(Event):
    type: Literal["message"] = "message"
    agent: str
    content: str
    # Optional (protocol extension): numbers and diagnostics behind a details toggle, e.g. a similarity and
    # its threshold; omitted from the wire when None.
    detail: str | None = None

    def wire(self) -> dict[str, Any]:
        wire = super().wire()
        if wire.get("detail") is None:
            wire.pop("detail", None)
        return wire


class Progress(Event):
    type: Literal["progress"] = "progress"
    agent: str
    content: str


class ToolCall(Event):
    type: Literal["tool_call"] = "tool_call"
    agent: str
    tool: str
    tool_call_id: str
    tool_input: dict[str, Any]


class ToolResult(Event):
    type: Literal["tool_result"] = "tool_result"
    agent: str
    tool: str
    tool_call_id: str
    tool_output: Any


class BriefReady(Event):
    type: Literal["brief_ready"] = "brief_ready"
    brief: dict[str, Any]


class LayoutSpecReady(Event):
    type: Literal["layout_spec_ready"] = "layout_spec_ready"
    layout_spec: dict[str, Any]


class AlignmentMapReady(Event):
    type: Literal["alignment_map_ready"] = "alignment_map_ready"
    paragraph_image_bindings: list[dict[str, Any]]
    text_overlay_plan: list[dict[str, Any]]
    body_blocks: list[str]


class ContentUpdate(Event):
    type: Literal["content_update"] = "content_update"
    title: str
    body: str
    tags: list[str]


class ContentDelta(Event):
    """The draft as it streams (extension, ephemeral): what was appended to the title and the body since
    the previous delta, each at its offset in Unicode code points. `reset` starts the text over — the first
    delta of a writer call, a re-ask or retry that streams again from the start (`attempt` counts them),
    or the whole text so far for a watcher that joined mid-stream; the offsets are then 0."""

    type: Literal["content_delta"] = "content_delta"
    seq: None = Field(None, exclude=True)  # never stored, so never numbered
    agent: str
    attempt: int = Field(1, ge=1)
    reset: bool = False
    title_offset: int = Field(0, ge=0)
    title_delta: str = ""
    body_offset: int = Field(0, ge=0)
    body_delta: str = ""


class ImageProgress(Event):
    type: Literal["image_progress"] = "image_progress"
    task_id: int = Field(ge=1)
    status: Literal["queued", "generating", "complete", "failed"]
    progress: float = Field(ge=0, le=1)
    url: str | None = None
    asset_id: int | None = None
    error_message: str | None = None


class WorkflowProgress(Event):
    type: Literal["workflow_progress"] = "workflow_progress"
    phase: str
    progress: float = Field(ge=0, le=1)
    current_agent: str


class QualityScore(Event):
    type: Literal["quality_score"] = "quality_score"
    scores: dict[str, float]
    overall: float
    passed: bool
    fail_reasons: list[str]
    round: int
    checks: list[dict[str, str]] = Field(default_factory=list)  # failed deterministic checks (extension)


class AskOption(BaseModel):
    id: str
    label: str
    description: str | None = None


class AskUser(Event):
    type: Literal["ask_user"] = "ask_user"
    question: str
    options: list[AskOption]
    selection_type: Literal["single", "multiple", "none"]
    allow_custom_input: bool
    context: dict[str, Any]
    interrupt_id: str | None = None


class WorkflowPaused(Event):
    type: Literal["workflow_paused"] = "workflow_paused"
    content: str = "工作流已暂停，等待用户确认"


class WorkflowComplete(Event):
    type: Literal["workflow_complete"] = "workflow_complete"
    title: str
    body: str
    tags: list[str]
    image_asset_ids: list[int]
    creative_id: int | None
    quality_scores: dict[str, Any] | None
    # extension (docs/protocol.md): a direct answer's offer of a post on the same topic
    suggested_request: str | None = None
    # extension (docs/protocol.md): the number of the creative's version the run made (set when stored)
    version: int | None = None


class ErrorEvent(Event):
    type: Literal["error"] = "error"
    code: str
    message: str
    agent: str | None
    retryable: bool


class Reconnect(Event):
    """The last event of a stream whose run goes on in another process (extension, live only): the process
    serving the stream stops and handed the run to a peer. Follow it again with
    `GET /api/agent/threads/{id}/events` and `Last-Event-ID: <lastSeq>`; `[DONE]` follows."""

    type: Literal["reconnect"] = "reconnect"
    seq: None = Field(None, exclude=True)  # never stored, so never numbered
    reason: Literal["handed_on"] = "handed_on"
    last_seq: int = Field(ge=0)
    retryable: Literal[True] = True
    message: str


# The contract, derived from the models above (one per `type`), never listed by hand: a new event is its
# class, nothing else. Checkers see the base class; pydantic validates against the discriminated union.
EVENT_MODELS: tuple[type[Event], ...] = tuple(Event.__subclasses__())
if TYPE_CHECKING:
    AnyEvent = Event
else:
    AnyEvent = Annotated[Union[EVENT_MODELS], Field(discriminator="type")]  # noqa: UP007 - of a tuple
EVENT_ADAPTER: TypeAdapter[AnyEvent] = TypeAdapter(AnyEvent)
EPHEMERAL_MODELS: tuple[type[Event], ...] = (ContentDelta, Reconnect)
EPHEMERAL_TYPES: frozenset[str] = frozenset(m.model_fields["type"].default for m in EPHEMERAL_MODELS)
STORED_MODELS: tuple[type[Event], ...] = tuple(m for m in EVENT_MODELS if m not in EPHEMERAL_MODELS)
EVENT_TYPES: frozenset[str] = frozenset(m.model_fields["type"].default for m in STORED_MODELS)  # stored ones
TERMINAL_TYPES = frozenset({"workflow_complete", "workflow_paused", "error"})


def is_ephemeral(event: dict[str, Any]) -> bool:
    """An event that is sent live only: no `seq`, not stored, not replayed."""
    return event.get("type") in EPHEMERAL_TYPES


class DraftSoFar:
    """The streamed draft as a watcher following every `content_delta` has it, so one that joins mid-stream
    gets it whole: `follow(delta)` returns the delta as a `reset` carrying the full title and body so far."""

    def __init__(self) -> None:
        self.title = ""
        self.body = ""

    def follow(self, delta: dict[str, Any]) -> dict[str, Any]:
        title, body = str(delta.get("titleDelta") or ""), str(delta.get("bodyDelta") or "")
        if delta.get("reset"):
            self.title, self.body = title, body
        else:
            self.title, self.body = self.title + title, self.body + body
        return {**delta, "reset": True, "titleOffset": 0, "titleDelta": self.title,
                "bodyOffset": 0, "bodyDelta": self.body}


def parse_event(payload: dict[str, Any]) -> AnyEvent:
    """Validate a wire event (as a client would receive it) against the contract."""
    return EVENT_ADAPTER.validate_python(payload)


def emit(event: Event) -> None:
    """Send an event from inside a graph node to the run's stream."""
    get_stream_writer()(event.wire())
