"""The stage table drives the workflow: the graph's nodes and edges, the routes, redo invalidation, the
progress bar and what a failure means (retry n / skip / abort); a route it does not know is an error."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, get_args

import pytest

from agents.context import DIMENSION_KEYS, RunOptions
from agents.events import EPHEMERAL_TYPES, EVENT_ADAPTER, EVENT_TYPES, Event
from agents.graph import build_graph
from agents.node import AGENTS
from agents.run import RunRequest, WorkflowRunner
from agents.stages import (
    BRIEF,
    CONTENT_CHECKPOINT,
    DIMENSION_OWNER,
    FINALIZE,
    IMAGE,
    INVALIDATES,
    LAYOUT,
    PLANNER,
    REFERENCE,
    RESEARCH,
    REVIEW,
    ROUTES,
    STAGE,
    STAGES,
    WRITER,
    Route,
    Stage,
    UnknownRoute,
    check_table,
    progress_of,
    skip,
)
from agents.supervisor import Decision, checked, decide, route
from app.resources import open_resources
from tests.agents.test_graph import REQUEST, creative_of, drain, make_settings
from tests.agents.test_supervisor import DONE_FLAGS, FULL, with_flags
from tests.fakes import TamperedOffline

OPTIONS = RunOptions()


def not_json(_answer: str) -> str:
    """A model answer that never validates: the call fails with LLM_BAD_OUTPUT (retryable)."""
    return "这不是 JSON"


# --- the graph and the routes come from the table ---------------------------------------------------------
def test_every_stage_is_a_node_with_the_edges_its_row_states() -> None:
    drawn = build_graph().get_graph()
    assert set(drawn.nodes) == {"__start__", "__end__", "supervisor", FINALIZE, *STAGE}
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    for stage in STAGES:
        out = {(target, conditional) for source, target, conditional in edges if source == stage.name}
        if stage.checkpoint:  # straight to its checkpoint once done, else back to the supervisor
            assert out == {(stage.checkpoint, True), ("supervisor", True)}, stage.name
        else:
            assert out == {("supervisor", False)}, stage.name
    from_supervisor = {target for source, target, _ in edges if source == "supervisor"}
    assert from_supervisor == set(ROUTES)


def test_the_route_type_and_the_agents_are_the_tables() -> None:
    assert get_args(Route) == ROUTES == (*(s.name for s in STAGES), FINALIZE)
    assert set(AGENTS) == {"supervisor", *STAGE}
    assert all(AGENTS[s.name].phase == s.phase for s in STAGES)


def test_every_review_dimension_has_one_owner_and_the_table_refuses_contradictions() -> None:
    assert set(DIMENSION_OWNER) == set(DIMENSION_KEYS)
    check_table(STAGES)
    later = dataclasses.replace(STAGE[BRIEF], needs=(WRITER,))
    with pytest.raises(ValueError, match="not earlier rows"):
        check_table(tuple(later if s.name == BRIEF else s for s in STAGES))
    owning_nothing = dataclasses.replace(STAGE[LAYOUT], owns=())
    with pytest.raises(ValueError, match="exactly one owner"):
        check_table(tuple(owning_nothing if s.name == LAYOUT else s for s in STAGES))
    pausing_elsewhere = dataclasses.replace(STAGE[WRITER], checkpoint=IMAGE)
    with pytest.raises(ValueError, match="checkpoint"):
        check_table(tuple(pausing_elsewhere if s.name == WRITER else s for s in STAGES))


def test_a_new_row_is_routed_to_without_touching_the_supervisor(monkeypatch: pytest.MonkeyPatch) -> None:
    """What adding an agent takes: a row (its module and prompt aside). Here a fact checker between the
    writer and the content checkpoint is dispatched, then the checkpoint waits for it."""
    from agents import stages

    checker = Stage(
        "fact_check_agent", "agents.fact_check:fact_check_agent", "核对事实", "文案写好了，核对事实",
        "factsChecked", stages.POST, needs=(WRITER,), weight=1,
    )
    rows = list(STAGES)
    rows.insert(rows.index(STAGE[CONTENT_CHECKPOINT]), checker)
    rows[rows.index(STAGE[CONTENT_CHECKPOINT])] = dataclasses.replace(
        STAGE[CONTENT_CHECKPOINT], needs=(WRITER, checker.name)
    )
    monkeypatch.setattr(stages, "STAGES", tuple(rows))
    monkeypatch.setattr(stages, "STAGE", {s.name: s for s in rows})
    stages.upstream.cache_clear()  # the table's closures are cached per name
    try:
        state = with_flags(contentApproved=False, layoutComplete=False)
        assert decide(state, OPTIONS).next == ("fact_check_agent",)  # type: ignore[arg-type]
        assert decide({**state, "factsChecked": True}, OPTIONS).next == (CONTENT_CHECKPOINT,)  # type: ignore[arg-type]
    finally:
        monkeypatch.undo()
        stages.upstream.cache_clear()


def test_the_event_union_is_every_event_model() -> None:
    """Like the routes, the protocol's union is derived (from the `Event` subclasses), not kept by hand."""
    validated = set(EVENT_ADAPTER.json_schema()["discriminator"]["mapping"])
    declared = {m.model_fields["type"].default for m in Event.__subclasses__()}
    assert validated == declared == EVENT_TYPES | EPHEMERAL_TYPES


# --- invalidation and progress ---------------------------------------------------------------------------
def test_a_redo_resets_what_is_built_on_the_stage_and_keeps_what_only_waited_for_it() -> None:
    assert INVALIDATES[RESEARCH] == {
        flag: False for flag in (
            "evidenceComplete", "contentComplete", "contentApproved", "layoutComplete", "imagePlansComplete",
            "imagePlansApproved", "imagesComplete", "reviewComplete",
        )
    }
    # the writer waits for the reference analysis but a new style does not call for new text
    assert "contentComplete" not in INVALIDATES[REFERENCE] and "layoutComplete" not in INVALIDATES[REFERENCE]
    assert INVALIDATES[REFERENCE]["imagePlansComplete"] is False
    assert INVALIDATES[IMAGE] == {"imagesComplete": False, "reviewComplete": False}
    for owner in set(DIMENSION_OWNER.values()):  # the redo is reviewed again
        assert INVALIDATES[owner][STAGE[owner].done] is False
        assert INVALIDATES[owner]["reviewComplete"] is False


def test_the_llm_fallback_may_go_back_only_to_working_stages_of_the_path() -> None:
    error = {"agent": PLANNER, "retryable": True}
    post = decide({**FULL, **DONE_FLAGS, "imagePlansComplete": False, "lastError": error}, OPTIONS)  # type: ignore[arg-type]
    assert post.allowed == (PLANNER, LAYOUT, WRITER, REFERENCE, RESEARCH, BRIEF)
    images = decide({"intent": {"intent": "image_only"}, "lastError": error}, OPTIONS)  # type: ignore[arg-type]
    assert images.allowed == (PLANNER,)  # the short path has no layout planner to go back to


def test_progress_is_weighted_over_the_requests_path() -> None:
    assert progress_of({**FULL}) == 0.0
    assert progress_of(with_flags()) == 1.0
    half = {**FULL, "briefComplete": True, "evidenceComplete": True, "referenceIntelligenceComplete": True,
            "contentComplete": True}
    weights = {s.name: s.weight for s in STAGES}
    post = sum(w for name, w in weights.items() if "full_post" in STAGE[name].paths)
    assert progress_of(half) == round((weights[BRIEF] + weights[RESEARCH] + weights[REFERENCE]
                                       + weights[WRITER]) / post, 3)
    image_only = {"intent": {"intent": "image_only"}, "imagePlansComplete": True, "imagesComplete": True,
                  "reviewComplete": True}
    assert progress_of(image_only) == 1.0  # the short path ends full, not at three eighths
    assert progress_of({"intent": {"intent": "question"}, "answer": "…"}) == 1.0


# --- error strategies ----------------------------------------------------------------------------------
def failed(agent: str, runs: int, **error: Any) -> dict[str, Any]:
    return {"lastError": {"agent": agent, "code": "LLM_BAD_OUTPUT", "retryable": True, **error},
            "agentAttempts": {agent: runs}}


def test_each_stage_states_its_strategy() -> None:
    kinds = {s.name: s.on_error.kind for s in STAGES}
    assert kinds[RESEARCH] == kinds[REFERENCE] == "skip"
    assert kinds[WRITER] == kinds[IMAGE] == kinds[REVIEW] == kinds[BRIEF] == "retry"
    assert kinds[CONTENT_CHECKPOINT] == "abort"
    assert skip("x").retries == 1 and STAGE[WRITER].on_error.retries == 1


def test_a_skipped_stage_is_rerun_first_then_the_run_goes_on_without_it() -> None:
    state = {**FULL, "briefComplete": True, "referenceIntelligenceComplete": True}
    rerun = decide({**state, **failed(RESEARCH, 1)}, OPTIONS)  # type: ignore[arg-type]
    assert rerun.next == (RESEARCH,) and rerun.updates["lastError"] is None
    skipped = decide({**state, **failed(RESEARCH, 2)}, OPTIONS)  # type: ignore[arg-type]
    assert skipped.next == (WRITER,) and "跳过" in skipped.reason
    assert skipped.updates["evidenceComplete"] is True and skipped.updates["lastError"] is None
    # the call's own retry layer spent the retries already: skipped at once
    at_once = decide({**state, **failed(RESEARCH, 1, retried=True)}, OPTIONS)  # type: ignore[arg-type]
    assert at_once.next == (WRITER,)


def test_abort_and_critical_errors_end_the_run_whatever_the_strategy() -> None:
    assert decide({**FULL, **failed(WRITER, 2)}, OPTIONS).next == (FINALIZE,)  # type: ignore[arg-type]
    critical = failed(RESEARCH, 1, critical=True, code="BUDGET_EXCEEDED", retryable=False)
    assert decide({**FULL, "briefComplete": True, **critical}, OPTIONS).next == (FINALIZE,)  # type: ignore[arg-type]
    # a stage the table does not know is never rerun (once, it would have finished the run quietly)
    assert decide({**FULL, **failed("ghost_agent", 1)}, OPTIONS).next == (FINALIZE,)  # type: ignore[arg-type]


async def test_failing_research_is_skipped_after_its_retry_and_the_run_completes(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    TamperedOffline("evidence", not_json, times=100).install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="tampered/offline", hitl_default=False)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=1))
        events = await drain(runner, handle)
        creative = await creative_of(studio, handle.thread_id)
    started = [e["agent"] for e in events if e["type"] == "agent_start"]
    assert started.count(RESEARCH) == 2  # the first run and one rerun
    skipped = [e for e in events if e["type"] == "supervisor_decision" and "跳过这一步" in e["reason"]]
    assert len(skipped) == 1 and "调研素材" in skipped[0]["reason"]
    assert events[-1]["type"] == "workflow_complete" and events[-1]["body"]
    assert creative.status == "completed" and creative.evidence is None


async def test_a_failing_writer_is_retried_once_then_the_run_aborts_with_its_error(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    TamperedOffline("writer", not_json, times=100).install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="tampered/offline", hitl_default=False)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=1))
        events = await drain(runner, handle)
        creative = await creative_of(studio, handle.thread_id)
    assert [e["agent"] for e in events if e["type"] == "agent_start"].count(WRITER) == 2
    error = events[-1]
    assert error["type"] == "error" and error["code"] == "LLM_BAD_OUTPUT" and error["agent"] == WRITER
    assert creative.status == "failed"


# --- a route the table does not know -------------------------------------------------------------------
def test_an_unknown_route_is_an_error_not_a_finish() -> None:
    ghost = checked(Decision(("ghost_agent",), "…"))
    assert ghost.next == (FINALIZE,)
    assert ghost.updates["lastError"]["code"] == "INTERNAL_ERROR"
    assert "ghost_agent" in ghost.updates["lastError"]["message"]
    assert checked(Decision((WRITER,), "…")).next == (WRITER,)
    with pytest.raises(UnknownRoute):
        route({"nextAgents": ["ghost_agent"]})
    with pytest.raises(UnknownRoute):
        route({"nextAgents": []})
    assert route({"nextAgents": [RESEARCH, REFERENCE]}) == [RESEARCH, REFERENCE]


async def test_a_run_sent_to_an_unknown_stage_ends_with_an_internal_error(
    tmp_path: Path, knowledge_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule that names a node no row declares (say, an agent whose row was forgotten) ends the run with
    an `error` event saying which, and the creative fails — it is not delivered as if it were done."""
    from agents import supervisor

    real = supervisor.decide

    def forgetful(state: Any, options: RunOptions) -> Decision:
        decision = real(state, options)
        return Decision(("fact_check_agent",), "核对事实") if decision.next == (WRITER,) else decision

    monkeypatch.setattr(supervisor, "decide", forgetful)
    settings = make_settings(tmp_path, knowledge_dir, hitl_default=False)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=1))
        events = await drain(runner, handle)
        creative = await creative_of(studio, handle.thread_id)
    error = events[-1]
    assert error["type"] == "error" and error["code"] == "INTERNAL_ERROR" and error["agent"] == "supervisor"
    assert "fact_check_agent" in error["message"] and "内部错误" in error["message"]
    assert not any(e["type"] == "workflow_complete" for e in events)
    assert creative.status == "failed" and creative.error["code"] == "INTERNAL_ERROR"
