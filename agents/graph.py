"""The workflow graph, built from the stage table (`agents/stages.py`; seed 002's V2 single chain):

    supervisor → intent → brief_compiler → (research_evidence ∥ reference_intelligence) → writer
      → [content checkpoint] → layout_planner → image_planner → [image_plans checkpoint] → image
      → review → finalize

One node per row. Every stage returns to the supervisor, which routes by the completion flags; a stage with
a checkpoint goes straight to it once done (so a resume never re-runs the stage), unless the draft checks
send its work back first. `build_graph(checkpointer)` compiles it.
"""

from __future__ import annotations

from collections.abc import Callable

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.context import StudioContext
from agents.delivery import finalize
from agents.stages import FINALIZE, ROUTES, STAGES, Stage
from agents.state import StudioState
from agents.supervisor import draft_gate, route, supervisor

SUPERVISOR = "supervisor"


def to_checkpoint(stage: Stage) -> Callable[[StudioState], str]:
    """The edge after a stage with a checkpoint: a finished result that passes the draft checks pauses at
    the checkpoint; a failure, or work the checks send back (`draft_gate`), returns to the supervisor."""

    def after(state: StudioState) -> str:
        if stage.checkpoint and stage.finished(state) and draft_gate(state) is None:
            return stage.checkpoint
        return SUPERVISOR

    after.__name__ = f"after_{stage.name}"
    return after


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph[StudioState, StudioContext, StudioState, StudioState]:
    graph = StateGraph(StudioState, context_schema=StudioContext)
    graph.add_node(SUPERVISOR, supervisor)
    for stage in STAGES:
        graph.add_node(stage.name, stage.load())
    graph.add_node(FINALIZE, finalize)

    graph.add_edge(START, SUPERVISOR)
    graph.add_conditional_edges(SUPERVISOR, route, list(ROUTES))
    for stage in STAGES:
        if stage.checkpoint:
            graph.add_conditional_edges(stage.name, to_checkpoint(stage), [stage.checkpoint, SUPERVISOR])
        else:
            graph.add_edge(stage.name, SUPERVISOR)
    graph.add_edge(FINALIZE, END)
    return graph.compile(checkpointer=checkpointer)
