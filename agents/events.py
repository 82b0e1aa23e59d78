"""Typed models for every SSE event of docs/protocol.md.

Nodes build an event and hand it to `emit`, which writes it to LangGraph's custom stream; the runner
stamps `threadId` and `seq`, persists it and forwards it. `timestamp` (Unix ms) is set when the event
is created, so delivery lag can be measured end to end.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

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


class ErrorEvent(Event):
    type: Literal["error"] = "error"
    code: str
    message: str
    agent: str | None
    retryable: bool


AnyEvent = Annotated[
    AgentStart
    | AgentEnd
    | SupervisorDecision
    | IntentDetected
    | ContentTypeDetected
    | StateUpdate
    | Message
    | Progress
    | ToolCall
    | ToolResult
    | BriefReady
    | LayoutSpecReady
    | AlignmentMapReady
    | ContentUpdate
    | ImageProgress
    | WorkflowProgress
    | QualityScore
    | AskUser
    | WorkflowPaused
    | WorkflowComplete
    | ErrorEvent,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[AnyEvent] = TypeAdapter(AnyEvent)
EVENT_TYPES: frozenset[str] = frozenset(
    model.model_fields["type"].default for model in Event.__subclasses__()
)
TERMINAL_TYPES = frozenset({"workflow_complete", "workflow_paused", "error"})


def parse_event(payload: dict[str, Any]) -> AnyEvent:
    """Validate a wire event (as a client would receive it) against the contract."""
    return EVENT_ADAPTER.validate_python(payload)


def emit(event: Event) -> None:
    """Send an event from inside a graph node to the run's stream."""
    get_stream_writer()(event.wire())
