"""The supervisor: decides what runs next.

`decide(state, options)` is a pure function — deterministic routing from the completion flags in seed
order, the requirement-clarity check, error handling, the review quality gate and its backflow. It is
tested as a table of states. Where the rules alone are not decisive (an agent failed in a way a rerun
may fix) the decision is marked `ambiguous` with an allowlist, and the node may ask the LLM to choose
within it: only going back or rerunning the current stage, never skipping a due review, within a call
budget, and never after a critical error or at `maxIterations`.

Every decision emits `supervisor_decision` with its `source`.

`RunOptions.sequential_baseline` (benchmarks only) turns this into the original single-chain design we
measure against: `decide` never dispatches two agents at once, and the node makes one LLM call per
decision (the rule's choice as the only allowed answer, so the route is unchanged but the call is paid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import create_model

from agents.artifacts import IMAGE_DIMENSIONS, SupervisorChoiceOutput
from agents.context import DIMENSION_KEYS, RunOptions, StudioContext
from agents.events import AgentStart, SupervisorDecision, emit
from agents.node import prompt
from agents.state import StudioState
from tools.errors import LLMError
from tools.labels import agent_label, label

# Node names, in the seed's order.
INTENT = "intent"
CLARIFY = "clarification"
BRIEF = "brief_compiler_agent"
RESEARCH = "research_evidence_agent"
REFERENCE = "reference_intelligence_agent"
WRITER = "writer_agent"
CONTENT_CHECKPOINT = "content_checkpoint"
LAYOUT = "layout_planner_agent"
PLANNER = "image_planner_agent"
PLANS_CHECKPOINT = "plans_checkpoint"
IMAGE = "image_agent"
REVIEW = "review_agent"
ANSWER = "answer_agent"
FINALIZE = "finalize"

Route = Literal[
    "intent",
    "clarification",
    "brief_compiler_agent",
    "research_evidence_agent",
    "reference_intelligence_agent",
    "writer_agent",
    "content_checkpoint",
    "layout_planner_agent",
    "image_planner_agent",
    "plans_checkpoint",
    "image_agent",
    "review_agent",
    "answer_agent",
    "finalize",
]
ROUTES: tuple[str, ...] = Route.__args__  # type: ignore[attr-defined]

STAGE_ORDER: tuple[str, ...] = (BRIEF, RESEARCH, REFERENCE, WRITER, LAYOUT, PLANNER, IMAGE, REVIEW)

# Which agent owns a review dimension (quality backflow).
DIMENSION_OWNER: dict[str, str] = {
    "infoDensity": RESEARCH,
    "textImageAlignment": LAYOUT,
    "styleConsistency": REFERENCE,
    "readability": PLANNER,
    "platformFit": WRITER,
}

# What an agent's redo invalidates: its own flag and everything built on its output.
_AFTER_PLANS = {
    "imagePlansComplete": False,
    "imagePlansApproved": False,
    "imagesComplete": False,
    "reviewComplete": False,
}
INVALIDATES: dict[str, dict[str, Any]] = {
    RESEARCH: {
        "evidenceComplete": False,
        "contentComplete": False,
        "contentApproved": False,
        "layoutComplete": False,
        **_AFTER_PLANS,
    },
    WRITER: {"contentComplete": False, "contentApproved": False, "layoutComplete": False, **_AFTER_PLANS},
    LAYOUT: {"layoutComplete": False, **_AFTER_PLANS},
    REFERENCE: {"referenceIntelligenceComplete": False, **_AFTER_PLANS},
    PLANNER: dict(_AFTER_PLANS),
    IMAGE: {"imagesComplete": False, "reviewComplete": False},
}

# Who redoes work a failed check found, most upstream first: evidence that carried a foreign fact is
# fixed at the source, then the text, then the cards.
CHECK_OWNERS: tuple[str, ...] = (RESEARCH, WRITER, PLANNER)
MAX_DRAFT_REDOS = 2  # redos of a draft that fails the text checks before the editor sees it anyway

_VAGUE_SCAFFOLD = re.compile(
    r"帮我|帮忙|请|麻烦|给我|写|来|一篇|一条|一份|一个|篇|条|个|点|些|小红书|笔记|文案|帖子|内容|东西|随便|什么|吧|的|了|呢|啊"
)


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


def needs_clarification(request: str) -> bool:
    """Too vague to write about: nothing left once the request scaffolding is removed."""
    core = _VAGUE_SCAFFOLD.sub("", re.sub(r"[\s\W_]+", "", request))
    return len(core) < 2


def _finish(reason: str, **updates: Any) -> Decision:
    return Decision((FINALIZE,), reason, updates=updates)


def _review_gate(state: StudioState, options: RunOptions, *, image_only: bool = False) -> Decision:
    """After a review: deliver, send back to the owner of the weakest dimension, or stop at the limit.

    An image-only run is judged on the image dimensions only, and the planner owns them all: it is the
    one agent of the short path that can act on the feedback.
    """
    report = state.get("qualityScores") or {}
    rounds = len(state.get("qualityHistory") or [])
    if report.get("passed"):
        return _finish(f"第{rounds}轮审核通过（综合 {report.get('overall', 0):.2f}），交付结果")
    if rounds >= options.max_review_rounds:
        return _finish(f"已审核{rounds}轮仍未全部达标，达到上限，交付得分最高的一轮")
    scores: dict[str, float] = report.get("scores") or {}
    thresholds = options.thresholds
    dimensions: tuple[str, ...] = IMAGE_DIMENSIONS if image_only else DIMENSION_KEYS
    gaps = {d: scores.get(d, 0.0) - thresholds.get(d, 0.0) for d in dimensions}
    weakest = min(dimensions, key=lambda d: (gaps[d], scores.get(d, 0.0)))
    owner = PLANNER if image_only else DIMENSION_OWNER[weakest]
    checks = report.get("checks") or []
    check_owner = _check_owner(checks)
    if check_owner and not image_only:  # a failed check names who must fix it
        owner = check_owner
        weakest = next(c["dimension"] for c in checks if c.get("owner") == owner)
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
        updates={**INVALIDATES[owner], "reviewFeedback": feedback},
    )


def _check_owner(checks: list[dict[str, Any]]) -> str | None:
    owners = {c.get("owner") for c in checks}
    return next((o for o in CHECK_OWNERS if o in owners), None)


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
            **INVALIDATES[owner],
            "reviewFeedback": feedback,
            "draftChecks": {**checks, "redos": redos + 1},
        },
    )


def _stage_before(agent: str) -> tuple[str, ...]:
    """The agent itself and every stage before it: what a fallback may choose after it failed."""
    if agent not in STAGE_ORDER:
        return (agent,)
    return STAGE_ORDER[: STAGE_ORDER.index(agent) + 1][::-1]


def decide(state: StudioState, options: RunOptions) -> Decision:
    """The deterministic route. Pure: reads the state, returns a Decision."""
    if state.get("done"):
        return _finish("流程已结束")
    error = state.get("lastError")
    attempts = state.get("agentAttempts") or {}
    if error:
        agent = str(error.get("agent", ""))
        if error.get("critical"):
            return _finish(f"{agent_label(agent)}发生严重错误，终止流程")
        if error.get("retryable") and not error.get("retried") and attempts.get(agent, 0) < 2:
            return Decision(
                (agent,),
                f"{agent_label(agent)}出错，重试一次",
                updates={"lastError": None},
                ambiguous=True,
                allowed=_stage_before(agent),
            )
        return _finish(f"{agent_label(agent)}重试后仍失败，终止流程")
    if state.get("iterationCount", 0) >= state.get("maxIterations", options.max_iterations):
        return _finish("达到最大调度次数，结束流程")

    intent = (state.get("intent") or {}).get("intent")
    if intent is None:
        return Decision((INTENT,), "先识别用户意图")
    if intent in ("question", "time_query"):
        if state.get("answer") is None:
            return Decision((ANSWER,), "问答类请求，直接回答")
        return _finish("已回答问题")

    if intent == "image_only":
        if not state.get("imagePlansComplete"):
            return Decision((PLANNER,), "仅需生成图片，走短路径：先规划图片")
        if not state.get("imagePlansApproved"):
            return Decision((PLANS_CHECKPOINT,), "图片规划待确认")
        if not state.get("imagesComplete"):
            return Decision((IMAGE,), "图片规划已确认，开始生成")
        if not state.get("reviewComplete"):
            return Decision((REVIEW,), "图片已生成，进入质量审核")
        return _review_gate(state, options, image_only=True)

    if (
        not state.get("briefComplete")
        and "topic" not in (state.get("agentClarificationKeys") or [])
        and needs_clarification(state.get("request", ""))
    ):
        return Decision((CLARIFY,), "需求过于模糊，先向用户澄清主题")
    if not state.get("briefComplete"):
        return Decision((BRIEF,), "梳理创作简报")
    pending = tuple(
        agent
        for agent, flag in ((RESEARCH, "evidenceComplete"), (REFERENCE, "referenceIntelligenceComplete"))
        if not state.get(flag)
    )
    if len(pending) == 2 and options.sequential_baseline:
        return Decision(pending[:1], "简报已就绪：先调研素材，再解析参考图（顺序基线）")
    if pending:
        return Decision(
            pending,
            "简报已就绪：调研素材与解析参考图" if len(pending) == 2 else f"补齐{agent_label(pending[0])}",
        )
    if not state.get("contentComplete"):
        return Decision((WRITER,), "素材齐备，开始撰写文案")
    if not state.get("contentApproved"):
        return draft_gate(state) or Decision((CONTENT_CHECKPOINT,), "文案待确认")
    if not state.get("layoutComplete"):
        return Decision((LAYOUT,), "文案已确认，规划版式")
    if not state.get("imagePlansComplete"):
        return Decision((PLANNER,), "版式已就绪，规划配图")
    if not state.get("imagePlansApproved"):
        return Decision((PLANS_CHECKPOINT,), "图片规划待确认")
    if not state.get("imagesComplete"):
        return Decision((IMAGE,), "图片规划已确认，开始生成图片")
    if not state.get("reviewComplete"):
        return Decision((REVIEW,), "图文已齐，进入质量审核（不可跳过）")
    return _review_gate(state, options)


def route(state: StudioState) -> list[str]:
    """The conditional edge after the supervisor: the node(s) it chose (several run in parallel)."""
    chosen = [n for n in state.get("nextAgents") or [] if n in ROUTES]
    return chosen or [FINALIZE]


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
    emit(SupervisorDecision(decision=decision.label, reason=decision.reason, source=decision.source))
    return {
        **decision.updates,
        "nextAgents": list(decision.next),
        "iterationCount": iteration + 1,
        "llmFallbackCalls": fallback_calls,
    }
