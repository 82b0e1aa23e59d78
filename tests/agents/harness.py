"""Run one agent node inside a real one-node LangGraph graph and capture its update and events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph

from agents.context import StudioContext
from agents.events import is_ephemeral, parse_event
from agents.node import NodeFn
from agents.state import StudioState


@dataclass
class NodeRun:
    update: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)  # the events that are stored
    deltas: list[dict[str, Any]] = field(default_factory=list)  # the ephemeral ones (content_delta)
    sent: list[dict[str, Any]] = field(default_factory=list)  # both, in the order they were sent

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


async def run_node(node: NodeFn, state: StudioState, ctx: StudioContext) -> NodeRun:
    """Execute `node` once on `state`; every emitted event is validated against the protocol models."""
    name = node.__name__
    graph = StateGraph(StudioState, context_schema=StudioContext)
    graph.add_node(name, node)
    graph.add_edge(START, name)
    graph.add_edge(name, END)
    run = NodeRun(update={})
    async for mode, chunk in graph.compile().astream(state, context=ctx, stream_mode=["updates", "custom"]):
        if mode == "custom":
            parse_event(chunk)  # raises if the event breaks the contract
            (run.deltas if is_ephemeral(chunk) else run.events).append(chunk)
            run.sent.append(chunk)
        elif name in chunk:
            run.update = chunk[name] or {}
    return run
