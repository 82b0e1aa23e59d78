"""The supervisor: decides what runs next.

`decide(state, options)` is a pure function over the stage table (`agents/stages.py`): it sends the run to
the stages of the request's path that are due (in the table's order; the ready ones right after the first
run in parallel), asks the clarification question when its row says so, applies each stage's error
strategy, and at the end of a path passes the review gate — deliver, or send the weakest dimension back to
the stage that owns it, with everything built on that stage invalidated. It is tested as a table of states.
Where the rules alone are not decisive (an agent failed in a way a rerun may fix) the decision is marked
`ambiguous` with an allowlist, and the node may ask the LLM to choose within it: only going back or
rerunning the current stage, never skipping a due review, within a call budget, and never after a
critical error or at `maxIterations`.

A route the table does not know never finishes a run quietly: the node turns such a decision into an
`INTERNAL_ERROR` delivered by finalize, and the graph's edge raises `UnknownRoute` should one reach it.

Every decision emits `supervisor_decision` with its `source`.

`RunOptions.sequential_baseline` (benchmarks only) turns this into the original single-chain design we
measure against: `decide` never dispatches two agents at once, and the node makes one LLM call per
decision (the rule's choice as the only allowed answer, so the route is unchanged but the call is paid).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from langgraph.runtime import Runtime
from pydantic import create_model

from agents.artifacts import IMAGE_DIMENSIONS, SupervisorChoiceOutput
from agents.context import DIMENSION_KEYS, RunOptions, StudioContext
from agents.events import AgentStart, SupervisorDecision, emit
from agents.node import prompt
from agents.stages import (
    CONTENT_CHECKPOINT,
    DIMENSION_OWNER,
    FINALIZE,
    GATE,
    INVALIDATES,
    ROUTES,
    STAGE,
    STAGES,
    Stage,
    UnknownRoute,
    abort,
    due,
    owner_on_path,
    path_of,
)
from agents.state import StudioState
from tools.errors import LLMError
from tools.labels import agent_label, label

MAX_DRAFT_REDOS = 2  # redos of a draft that fails the text checks before the editor sees it anyway


@dataclass(frozen=True)
class Decision:
    """Where to go next, why, and the state changes the choice implies."""

    next: tuple[str, ...]
    reason: str
    source: Literal["rule", "llm"] = "rule"
    updates: dict[str, Any] = field(default_factory=dict)
    ambiguous: bool = False  # the LLM fallback may choose within `allowed`
    allowed: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The `decision` field of the event: node names joined by '+', or END."""
        return "END" if self.next == (FINALIZE,) else "+".join(self.next)


def _finish(reason: str, **updates: Any) -> Decision:
    return Decision((FINALIZE,), reason, updates=updates)


def unknown_route(names: list[str]) -> Decision:
    """The end of the run, as an INTERNAL_ERROR that finalize delivers: a decision named nodes the stage
    table does not know (a forgotten row must fail loudly, never finish a run as if it were done)."""
    message = f"主管选择了工作流里没有的环节「{'、'.join(names) or '（空）'}」"
    error = {"agent": "supervisor", "code": "INTERNAL_ERROR", "message": message, "retryable": False,
             "critical": True}
    return _finish(f"{message}，终止流程", lastError=error)


def checked(decision: Decision) -> Decision:
    """The decision, or the error ending the run when it names a node the table does not know."""
    unknown = [name for name in decision.next if name not in ROUTES]
    return unknown_route(unknown) if unknown or not decision.next else decision


def _intent(state: StudioState) -> str | None:
    return (state.get("intent") or {}).get("intent")


def _review_gate(state: StudioState, options: RunOptions) -> Decision:
    """After a review: deliver, send back to the owner of the weakest dimension, or stop at the limit."""
    report = state.get("qualityScores") or {}
    rounds = len(state.get("qualityHistory") or []) - state.get("revisionFrom", 0)  # this revision's
    if report.get("passed"):
        return _finish(f"第{rounds}轮审核通过（综合 {report.get('overall', 0):.2f}），交付结果")
    if rounds >= options.max_review_rounds:
        return _finish(f"已审核{rounds}轮仍未全部达标，达到上限，交付得分最高的一轮")
    weakest, owner = _to_redo(report, state, options)
    if owner is None:
        shown = label("dimension", weakest)
        return _finish(f"第{rounds}轮审核未通过，但没有能重做「{shown}」的环节，交付结果")
    scores: dict[str, float] = report.get("scores") or {}
    feedback = {
        "dimension": weakest,
        "owner": owner,
        "round": rounds,
        "score": scores.get(weakest),
        "reasons": report.get("failReasons") or [],
        "suggestions": report.get("suggestions") or [],
    }
    return Decision(
        (owner,),
        f"第{rounds}轮审核未通过，最弱维度「{label('dimension', weakest)}」{scores.get(weakest, 0):.2f}，"
        f"回流给{agent_label(owner)}",
        updates={**_invalidated(owner, state), "reviewFeedback": feedback},
    )


def _to_redo(report: dict[str, Any], state: StudioState, options: RunOptions) -> tuple[str, str | None]:
    """The dimension a failed review sends back and the stage on the run's path that redoes it.

    A failed check names its owner; else the weakest dimension's owner redoes it. An image-only run is
    judged on the image dimensions only, and on its short path the work goes to the stage there built on
    the owner's (the image planner): the one that can act on the feedback.
    """
    image_only = _intent(state) == "image_only"
    scores: dict[str, float] = report.get("scores") or {}
    dimensions: tuple[str, ...] = IMAGE_DIMENSIONS if image_only else DIMENSION_KEYS
    gaps = {d: scores.get(d, 0.0) - options.thresholds.get(d, 0.0) for d in dimensions}
    weakest = min(dimensions, key=lambda d: (gaps[d], scores.get(d, 0.0)))
    owner = DIMENSION_OWNER[weakest]
    checks = report.get("checks") or []
    check_owner = _check_owner(checks)
    if check_owner and not image_only:
        owner = check_owner
        weakest = next(c["dimension"] for c in checks if c.get("owner") == owner)
    return weakest, owner_on_path(owner, path_of(state))


def _check_owner(checks: list[dict[str, Any]]) -> str | None:
    """The most upstream stage a failed check names: evidence that carried a foreign fact is fixed at the
    source, then the text, then the cards."""
    owners = {c.get("owner") for c in checks}
    return next((s.name for s in STAGES if s.name in owners), None)


# the flags of the stages that make the pictures: a text revision keeps those (`imagesKept`)
_PICTURE_FLAGS = frozenset({"layoutComplete", "imagePlansComplete", "imagePlansApproved", "imagesComplete"})


def _invalidated(owner: str, state: StudioState) -> dict[str, bool]:
    """What redoing `owner` makes stale: its stage and every one after it — except the pictures a text
    revision keeps (its new draft is checked against them, and warned about, never redrawn)."""
    flags = dict(INVALIDATES[owner])
    if state.get("imagesKept"):
        flags = {k: v for k, v in flags.items() if k not in _PICTURE_FLAGS}
    return flags


def draft_gate(state: StudioState) -> Decision | None:
    """A fresh draft that fails the text checks goes back before the editor sees it (bounded)."""
    checks = state.get("draftChecks") or {}
    findings = checks.get("findings") or []
    redos = int(checks.get("redos") or 0)
    owner = _check_owner(findings)
    if not findings or owner is None or redos >= MAX_DRAFT_REDOS:
        return None
    feedback = {
        "dimension": next(f["dimension"] for f in findings if f.get("owner") == owner),
        "owner": owner,
        "round": 0,
        "source": "draft_checks",
        "reasons": [f["reason"] for f in findings],
        "suggestions": [],
    }
    return Decision(
        (owner,),
        f"文案有{len(findings)}项没通过自动检查（{findings[0]['reason']}），"
        f"退回 {owner} 重做（第{redos + 1}次）",
        updates={
            **_invalidated(owner, state),
            "reviewFeedback": feedback,
            "draftChecks": {**checks, "redos": redos + 1},
        },
    )


def _rerun_or_back(name: str, state: StudioState) -> tuple[str, ...]:
    """The failed stage and every working stage (one with a progress weight) before it on the path, nearest
    first: what the LLM fallback may choose after it failed."""
    working = [s.name for s in path_of(state) if s.weight]
    if name not in working:
        return (name,)
    return tuple(working[: working.index(name) + 1][::-1])


def _on_error(error: dict[str, Any], state: StudioState, options: RunOptions) -> Decision:
    """Seed 003's error strategy of the stage that failed: rerun it, skip it or end the run."""
    name = str(error.get("agent", ""))
    stage = STAGE.get(name)
    who = agent_label(name)
    if error.get("critical"):
        return _finish(f"{who}发生严重错误，终止流程")
    strategy = stage.on_error if stage else abort()  # a stage the table lost is never rerun
    runs = (state.get("agentAttempts") or {}).get(name, 0)
    if error.get("retryable") and not error.get("retried") and runs <= strategy.retries:
        return Decision(
            (name,),
            f"{who}出错，重试一次" if strategy.retries == 1 else f"{who}出错，重试（第{runs}次）",
            updates={"lastError": None},
            ambiguous=True,
            allowed=_rerun_or_back(name, state),
        )
    gave_up = f"{who}重试后仍失败" if runs > 1 or error.get("retried") else f"{who}出错"
    if stage is not None and strategy.then == "skip":
        return _skip(stage, f"{gave_up}，跳过这一步（{strategy.note}）", state, options)
    return _finish(f"{gave_up}，终止流程")


def _skip(stage: Stage, why: str, state: StudioState, options: RunOptions) -> Decision:
    """Go on without the stage — its flag set, its artifacts left as they were — and decide from there."""
    skipped = {stage.done: True, "lastError": None}
    then = decide(cast(StudioState, {**state, **skipped}), options)
    return replace(then, reason=f"{why}；{then.reason}", updates={**skipped, **then.updates})


def _dispatch(batch: tuple[Stage, ...], options: RunOptions) -> Decision:
    """Send the run to the due stages (several at once unless in the sequential baseline)."""
    first = batch[0]
    if len(batch) == 1:
        return Decision((first.name,), first.reason)
    if options.sequential_baseline:
        return Decision((first.name,), f"{first.reason}（顺序基线：一次只派一个环节）")
    return Decision(tuple(s.name for s in batch), "同时进行：" + "、".join(s.phase for s in batch))


def _end_of_path(state: StudioState, options: RunOptions) -> Decision:
    """Every stage of the path is done: the review gate judges a package; anything else is finished."""
    path = path_of(state)
    if any(s.name == GATE for s in path):
        return _review_gate(state, options)
    return _finish(f"{agent_label(path[-1].name)}已完成，结束流程")


def decide(state: StudioState, options: RunOptions) -> Decision:
    """The deterministic route. Pure: reads the state, returns a Decision."""
    if state.get("done"):
        return _finish("流程已结束")
    error = state.get("lastError")
    if error:
        return _on_error(error, state, options)
    if state.get("iterationCount", 0) >= state.get("maxIterations", options.max_iterations):
        return _finish("达到最大调度次数，结束流程")
    batch = due(state)
    if not batch:
        return _end_of_path(state, options)
    if batch[0].name == CONTENT_CHECKPOINT and (sent_back := draft_gate(state)):
        return sent_back  # the writer's draft fails its text checks: redo before the editor sees it
    return _dispatch(batch, options)


def route(state: StudioState) -> list[str]:
    """The conditional edge after the supervisor: the node(s) it chose (several run in parallel). A route
    the table does not know raises (the supervisor never sends one: see `checked`)."""
    chosen = list(state.get("nextAgents") or [])
    if not chosen or any(name not in ROUTES for name in chosen):
        raise UnknownRoute(f"the supervisor chose {chosen}; the stage table routes to {list(ROUTES)}")
    return chosen


async def _llm_choice(decision: Decision, state: StudioState, ctx: StudioContext) -> Decision:
    """Let the LLM pick within the allowlist; any failure keeps the rule's choice."""
    allowed: Any = Literal[decision.allowed]  # an enum of exactly the allowed nodes
    choice_model = create_model(
        "SupervisorChoice", __base__=SupervisorChoiceOutput, next_agent=(allowed, ...)
    )
    summary = {
        "request": state.get("request"),
        "lastError": state.get("lastError"),
        "flags": {k: v for k, v in state.items() if k.endswith(("Complete", "Approved"))},
        "iterationCount": state.get("iterationCount", 0),
    }
    messages = prompt("supervisor").render(
        state=summary, allowed=list(decision.allowed), expected=decision.next[0]
    )
    try:
        picked = await ctx.llm.complete_structured("supervisor", messages, choice_model)
    except LLMError:
        return decision
    if picked.next_agent not in decision.allowed:
        return decision
    updates = dict(decision.updates)
    if picked.next_agent != decision.next[0]:
        updates.update(INVALIDATES.get(picked.next_agent, {}))
    return Decision((picked.next_agent,), picked.reason or decision.reason, "llm", updates)


async def supervisor(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
    """The supervisor node: decide, maybe consult the LLM, emit the decision, record it."""
    ctx = runtime.context
    iteration = state.get("iterationCount", 0)
    if iteration == 0:
        emit(AgentStart(agent="supervisor", content="主管 开始调度..."))
    decision = decide(state, ctx.options)
    fallback_calls = state.get("llmFallbackCalls", 0)
    if (
        decision.ambiguous
        and len(decision.allowed) > 1
        and fallback_calls < ctx.options.llm_fallback_budget
        and iteration + 1 < state.get("maxIterations", ctx.options.max_iterations)
    ):
        fallback_calls += 1
        decision = await _llm_choice(decision, state, ctx)
    elif ctx.options.sequential_baseline:
        # the original design asked the model before every step: one real call, the rule's choice its
        # only allowed answer
        decision = await _llm_choice(replace(decision, allowed=decision.next), state, ctx)
    decision = checked(decision)
    emit(SupervisorDecision(decision=decision.label, reason=decision.reason, source=decision.source))
    return {
        **decision.updates,
        "nextAgents": list(decision.next),
        "iterationCount": iteration + 1,
        "llmFallbackCalls": fallback_calls,
    }
