"""What every agent node shares: its identity, lifecycle events, timing, timeout and error capture.

An agent is written as `async def run(state, ctx) -> dict` and wrapped by `@agent("writer_agent")`, the name
of its row in the stage table (`agents/stages.py`), which gives its phase; a name with no row fails at import.
The wrapper emits `agent_start`, `agent_end` (with `durationMs`) and `workflow_progress`, bounds the
step by the node timeout, and turns a failure into `lastError` for the supervisor to judge — it never
lets an exception escape and crash the run (interrupts and cancellation still propagate).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from agents.context import StudioContext
from agents.events import AgentEnd, AgentStart, Progress, ToolCall, ToolResult, WorkflowProgress, emit
from agents.stages import STAGES, progress_of
from agents.state import StudioState
from tools.errors import LLMAuthError, LLMOutputError, LLMTimeoutError, LLMUnavailableError, StudioError
from tools.labels import agent_label, label
from tools.llm import RetryNotice
from tools.prompting import PromptTemplate

PROMPTS_DIR = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class AgentInfo:
    name: str  # node name, as in events
    label: str  # who it is, in the studio's language
    phase: str  # what the workflow is doing while it runs


# Every node that speaks in events: the supervisor and the rows of the stage table.
AGENTS: dict[str, AgentInfo] = {
    "supervisor": AgentInfo("supervisor", agent_label("supervisor"), "调度"),
    **{s.name: AgentInfo(s.name, agent_label(s.name), s.phase) for s in STAGES},
}

AgentFn = Callable[[StudioState, StudioContext], Awaitable[dict[str, Any]]]


class NodeFn(Protocol):
    """A graph node as LangGraph calls it (`runtime` may be passed by keyword)."""

    def __call__(self, state: StudioState, runtime: Runtime[StudioContext]) -> Awaitable[dict[str, Any]]: ...


@cache
def prompt(name: str) -> PromptTemplate:
    """The agent's prompt template, `agents/prompts/<name>.md`."""
    return PromptTemplate.load(PROMPTS_DIR / f"{name}.md")


def describe_error(agent: str, exc: BaseException) -> dict[str, Any]:
    """`lastError` for a failed agent: friendly text plus what the supervisor needs to decide."""
    if isinstance(exc, TimeoutError):
        return {
            "agent": agent,
            "code": "AGENT_TIMEOUT",
            "message": f"{AGENTS[agent].label}处理超时",
            "retryable": True,
            "critical": False,
        }
    if isinstance(exc, StudioError):
        retryable = exc.retryable or isinstance(exc, LLMOutputError)
        return {
            "agent": agent,
            "code": exc.code,
            "message": exc.message,
            "retryable": retryable,
            # the gateway's one retry layer already spent its attempts on it: the supervisor does not rerun
            "retried": isinstance(exc, LLMUnavailableError | LLMTimeoutError),
            # nothing after it can work: no stage's error strategy reruns or skips past it
            "critical": isinstance(exc, LLMAuthError) or exc.code == "BUDGET_EXCEEDED",
        }
    return {
        "agent": agent,
        "code": "AGENT_FAILED",
        "message": f"{AGENTS[agent].label}遇到内部错误",
        "retryable": False,
        "critical": True,
        "detail": f"{type(exc).__name__}: {exc}"[:500],
    }


CURRENT_AGENT: ContextVar[str] = ContextVar("current_agent", default="supervisor")


def announce_retry(notice: RetryNotice) -> None:
    """A model call about to be retried, as a `progress` event of the agent that made it (a run's
    `UsageMeter.on_retry`). Outside a graph step there is no stream to tell, and nothing is said."""
    name = CURRENT_AGENT.get()
    reason = "限流" if "限流" in notice.message else "超时" if notice.code == "LLM_TIMEOUT" else "暂不可用"
    step = label("task", notice.task)
    content = f"模型服务{reason}，{notice.wait_s:.0f} 秒后重试{step}（第 {notice.attempt + 1} 次尝试）"
    with contextlib.suppress(RuntimeError, KeyError):
        emit(Progress(agent=name, content=content))


def agent(name: str) -> Callable[[AgentFn], NodeFn]:
    """Wrap an agent function as a graph node with lifecycle events and error capture."""
    info = AGENTS[name]

    def decorate(fn: AgentFn) -> NodeFn:
        async def node(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
            ctx = runtime.context
            CURRENT_AGENT.set(name)
            emit(AgentStart(agent=name, content=f"{info.label} 开始工作..."))
            started = time.perf_counter()
            try:
                async with asyncio.timeout(ctx.options.node_timeout_s):
                    update = await fn(state, ctx)
                ending = f"{info.label} 完成"
            except GraphBubbleUp:
                raise
            except Exception as exc:  # the supervisor decides what a failure means
                update = {"lastError": describe_error(name, exc)}
                ending = f"{info.label} 遇到问题：{update['lastError']['message']}"
            attempts = (state.get("agentAttempts") or {}).get(name, 0) + 1
            update = {**update, "currentAgent": name, "agentAttempts": {name: attempts}}
            duration = int((time.perf_counter() - started) * 1000)
            emit(AgentEnd(agent=name, content=ending, duration_ms=duration))
            merged: StudioState = {**state, **update}  # type: ignore[typeddict-item]
            emit(WorkflowProgress(phase=info.phase, progress=progress_of(merged), current_agent=name))
            return update

        node.__name__ = name
        node.__doc__ = fn.__doc__
        return node

    return decorate


async def call_tool(
    agent_name: str, tool: str, arguments: dict[str, Any], run: Callable[[], Awaitable[Any]]
) -> Any:
    """Run a tool with `tool_call` / `tool_result` events around it; errors are reported, then raised."""
    call_id = f"{tool}_{uuid.uuid4().hex[:10]}"
    emit(ToolCall(agent=agent_name, tool=tool, tool_call_id=call_id, tool_input=arguments))
    try:
        result = await run()
    except StudioError as exc:
        emit(
            ToolResult(
                agent=agent_name, tool=tool, tool_call_id=call_id, tool_output={"error": exc.to_dict()}
            )
        )
        raise
    output = result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    emit(
        ToolResult(agent=agent_name, tool=tool, tool_call_id=call_id, tool_output=to_jsonable_python(output))
    )
    return result
