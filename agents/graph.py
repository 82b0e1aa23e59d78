"""The workflow graph (seed 002's V2 single chain):

    supervisor → intent → brief_compiler → (research_evidence ∥ reference_intelligence) → writer
      → [content checkpoint] → layout_planner → image_planner → [image_plans checkpoint] → image
      → review → finalize

Every agent returns to the supervisor, which routes by the completion flags; the two checkpoints follow
their agent directly so a resume never re-runs it. `build_graph(checkpointer)` compiles it.
"""

from __future__ import annotations

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents import (
    answer,
    brief_compiler,
    image,
    image_planner,
    layout_planner,
    reference_intelligence,
    research_evidence,
    review,
    writer,
)
from agents.context import StudioContext
from agents.delivery import finalize
from agents.hitl import clarification, content_checkpoint, plans_checkpoint
from agents.intake import intent
from agents.state import StudioState
from agents.supervisor import ROUTES, draft_gate, route, supervisor

AGENT_NODES = {
    "intent": intent,
    "brief_compiler_agent": brief_compiler.brief_compiler_agent,
    "research_evidence_agent": research_evidence.research_evidence_agent,
    "reference_intelligence_agent": reference_intelligence.reference_intelligence_agent,
    "writer_agent": writer.writer_agent,
    "layout_planner_agent": layout_planner.layout_planner_agent,
    "image_planner_agent": image_planner.image_planner_agent,
    "image_agent": image.image_agent,
    "review_agent": review.review_agent,
    "answer_agent": answer.answer_agent,
}


def after_writer(state: StudioState) -> Literal["content_checkpoint", "supervisor"]:
    """A finished draft that passes the text checks goes straight to its checkpoint; a failed writer, or a
    draft the checks send back (`draft_gate`), goes back to the supervisor."""
    if state.get("contentComplete") and draft_gate(state) is None:
        return "content_checkpoint"
    return "supervisor"


def after_planner(state: StudioState) -> Literal["plans_checkpoint", "supervisor"]:
    return "plans_checkpoint" if state.get("imagePlansComplete") else "supervisor"


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph[StudioState, StudioContext, StudioState, StudioState]:
    graph = StateGraph(StudioState, context_schema=StudioContext)
    graph.add_node("supervisor", supervisor)
    for name, node in AGENT_NODES.items():
        graph.add_node(name, node)
    graph.add_node("clarification", clarification)
    graph.add_node("content_checkpoint", content_checkpoint)
    graph.add_node("plans_checkpoint", plans_checkpoint)
    graph.add_node("finalize", finalize)

    graph.add_edge(START, "supervisor")
    graph.add_conditional_edges("supervisor", route, list(ROUTES))
    for name in AGENT_NODES:
        if name not in ("writer_agent", "image_planner_agent"):
            graph.add_edge(name, "supervisor")
    graph.add_conditional_edges("writer_agent", after_writer, ["content_checkpoint", "supervisor"])
    graph.add_conditional_edges("image_planner_agent", after_planner, ["plans_checkpoint", "supervisor"])
    for name in ("clarification", "content_checkpoint", "plans_checkpoint"):
        graph.add_edge(name, "supervisor")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)
