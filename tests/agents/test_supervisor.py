"""The supervisor's routing, as a table of states, plus the properties that keep every run finite."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agents.context import RunOptions
from agents.stages import DIMENSION_OWNER, FINALIZE, INVALIDATES, needs_clarification
from agents.supervisor import Decision, decide

OPTIONS = RunOptions()
FULL = {"intent": {"intent": "full_post"}, "request": "帮我写一篇周末城市露营的小红书笔记"}
DONE_FLAGS = {
    "briefComplete": True,
    "evidenceComplete": True,
    "referenceIntelligenceComplete": True,
    "contentComplete": True,
    "contentApproved": True,
    "layoutComplete": True,
    "imagePlansComplete": True,
    "imagePlansApproved": True,
    "imagesComplete": True,
    "reviewComplete": True,
}


def report(passed: bool, **scores: float) -> dict[str, Any]:
    base = {
        "infoDensity": 0.8,
        "textImageAlignment": 0.8,
        "styleConsistency": 0.8,
        "readability": 0.8,
        "platformFit": 0.8,
    }
    base.update(scores)
    return {"scores": base, "overall": sum(base.values()) / 5, "passed": passed, "failReasons": ["x"]}


def with_flags(**overrides: Any) -> dict[str, Any]:
    return {**FULL, **DONE_FLAGS, **overrides}


ROUTES: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("no intent yet", {"request": "写露营笔记"}, ("intent",)),
    ("question", {"intent": {"intent": "question"}}, ("answer_agent",)),
    ("answered question", {"intent": {"intent": "question"}, "answer": "…"}, (FINALIZE,)),
    ("time query", {"intent": {"intent": "time_query"}}, ("answer_agent",)),
    ("vague request asks once", {**FULL, "request": "帮我写一篇笔记"}, ("clarification",)),
    (
        "vague request asked already",
        {**FULL, "request": "帮我写一篇笔记", "agentClarificationKeys": ["topic"]},
        ("brief_compiler_agent",),
    ),
    ("start", FULL, ("brief_compiler_agent",)),
    (
        "brief done → parallel",
        {**FULL, "briefComplete": True},
        ("research_evidence_agent", "reference_intelligence_agent"),
    ),
    (
        "only reference missing",
        {**FULL, "briefComplete": True, "evidenceComplete": True},
        ("reference_intelligence_agent",),
    ),
    (
        "writer",
        with_flags(
            contentComplete=False,
            contentApproved=False,
            layoutComplete=False,
            imagePlansComplete=False,
            imagePlansApproved=False,
            imagesComplete=False,
            reviewComplete=False,
        ),
        ("writer_agent",),
    ),
    (
        "content not approved",
        with_flags(contentApproved=False, layoutComplete=False),
        ("content_checkpoint",),
    ),
    ("layout", with_flags(layoutComplete=False, imagePlansComplete=False), ("layout_planner_agent",)),
    ("planner", with_flags(imagePlansComplete=False, imagePlansApproved=False), ("image_planner_agent",)),
    ("plans not approved", with_flags(imagePlansApproved=False, imagesComplete=False), ("plans_checkpoint",)),
    ("images", with_flags(imagesComplete=False, reviewComplete=False), ("image_agent",)),
    ("review is never skipped", with_flags(reviewComplete=False), ("review_agent",)),
    ("passed review", with_flags(qualityScores=report(True), qualityHistory=[{}]), (FINALIZE,)),
    ("image-only plans", {"intent": {"intent": "image_only"}}, ("image_planner_agent",)),
    (
        "image-only images",
        {"intent": {"intent": "image_only"}, "imagePlansComplete": True, "imagePlansApproved": True},
        ("image_agent",),
    ),
    (
        "image-only review",
        {
            "intent": {"intent": "image_only"},
            "imagePlansComplete": True,
            "imagePlansApproved": True,
            "imagesComplete": True,
        },
        ("review_agent",),
    ),
    (
        "critical error",
        {**FULL, "lastError": {"agent": "writer_agent", "critical": True, "code": "LLM_AUTH"}},
        (FINALIZE,),
    ),
    (
        "retryable error retried once",
        {
            **FULL,
            "lastError": {"agent": "writer_agent", "retryable": True},
            "agentAttempts": {"writer_agent": 1},
        },
        ("writer_agent",),
    ),
    (
        "an error the call's own retry layer already retried",
        {
            **FULL,
            "lastError": {"agent": "writer_agent", "retryable": True, "retried": True},
            "agentAttempts": {"writer_agent": 1},
        },
        (FINALIZE,),
    ),
    (
        "retryable error twice",
        {
            **FULL,
            "lastError": {"agent": "writer_agent", "retryable": True},
            "agentAttempts": {"writer_agent": 2},
        },
        (FINALIZE,),
    ),
    ("max iterations", {**FULL, "iterationCount": 40, "maxIterations": 40}, (FINALIZE,)),
    ("done", {**FULL, "done": True}, (FINALIZE,)),
]


@pytest.mark.parametrize(("case", "state", "expected"), ROUTES, ids=[r[0] for r in ROUTES])
def test_route_table(case: str, state: dict[str, Any], expected: tuple[str, ...]) -> None:
    decision = decide(state, OPTIONS)  # type: ignore[arg-type]
    assert decision.next == expected
    assert decision.source == "rule" and decision.reason


@pytest.mark.parametrize(("dimension", "owner"), sorted(DIMENSION_OWNER.items()))
def test_failed_review_flows_back_to_the_weakest_dimensions_owner(dimension: str, owner: str) -> None:
    state = with_flags(qualityScores=report(False, **{dimension: 0.3}), qualityHistory=[{"round": 1}])
    decision = decide(state, OPTIONS)  # type: ignore[arg-type]
    assert decision.next == (owner,)
    assert decision.updates["reviewFeedback"]["dimension"] == dimension
    assert decision.updates["reviewComplete"] is False  # the redo must be reviewed again
    for flag, value in INVALIDATES[owner].items():
        assert decision.updates[flag] == value


def test_failed_image_only_review_goes_back_to_the_planner_by_image_dimensions() -> None:
    """The short path has no writer or researcher: text dimensions never route, the planner redoes."""
    state = {
        "intent": {"intent": "image_only"},
        **DONE_FLAGS,
        "qualityScores": report(False, platformFit=0.1, infoDensity=0.2, styleConsistency=0.5),
        "qualityHistory": [{"round": 1}],
    }
    decision = decide(state, OPTIONS)  # type: ignore[arg-type]
    assert decision.next == ("image_planner_agent",)
    assert decision.updates["reviewFeedback"]["dimension"] == "styleConsistency"
    assert decision.updates["imagePlansComplete"] is False and decision.updates["reviewComplete"] is False


def test_review_limit_finishes_with_the_best_round() -> None:
    state = with_flags(qualityScores=report(False, infoDensity=0.3), qualityHistory=[{}, {}, {}])
    decision = decide(state, OPTIONS)  # type: ignore[arg-type]
    assert decision.next == (FINALIZE,) and "最高" in decision.reason


def test_retryable_error_is_ambiguous_with_an_allowlist_of_rerun_or_go_back() -> None:
    state = {**FULL, **DONE_FLAGS, "lastError": {"agent": "layout_planner_agent", "retryable": True}}
    decision = decide(state, OPTIONS)  # type: ignore[arg-type]
    assert decision.ambiguous and decision.next == ("layout_planner_agent",)
    assert decision.allowed[0] == "layout_planner_agent"
    assert "image_agent" not in decision.allowed and "review_agent" not in decision.allowed
    assert decision.updates["lastError"] is None


@pytest.mark.parametrize(
    ("request_text", "vague"),
    [
        ("写一篇笔记", True),
        ("帮我写点东西", True),
        ("随便写写", True),
        ("露营", False),
        ("帮我写一篇周末城市露营的小红书笔记，面向上班族", False),
    ],
)
def test_requirement_clarity(request_text: str, vague: bool) -> None:
    assert needs_clarification(request_text) is vague


def apply(state: dict[str, Any], decision: Decision, review_passes: bool) -> dict[str, Any]:
    """A tiny simulator of what each node does to the flags, to walk every path of the router."""
    state = {**state, **decision.updates, "iterationCount": state.get("iterationCount", 0) + 1}
    flags = {
        "intent": {"intent": {"intent": "full_post"}},
        "clarification": {"agentClarificationKeys": ["topic"]},
        "brief_compiler_agent": {"briefComplete": True},
        "research_evidence_agent": {"evidenceComplete": True},
        "reference_intelligence_agent": {"referenceIntelligenceComplete": True},
        "writer_agent": {"contentComplete": True, "contentApproved": False},
        "content_checkpoint": {"contentApproved": True},
        "layout_planner_agent": {"layoutComplete": True},
        "image_planner_agent": {"imagePlansComplete": True, "imagePlansApproved": False},
        "plans_checkpoint": {"imagePlansApproved": True},
        "image_agent": {"imagesComplete": True},
    }
    for node in decision.next:
        if node == "review_agent":
            history = [*state.get("qualityHistory", []), {}]
            state.update(
                reviewComplete=True,
                qualityHistory=history,
                qualityScores=report(review_passes, readability=0.9 if review_passes else 0.2),
            )
        elif node == FINALIZE:
            state["done"] = True
        else:
            state.update(flags[node])
    return state


@pytest.mark.parametrize(("review_passes", "vague"), list(itertools.product([True, False], [True, False])))
def test_every_path_ends(review_passes: bool, vague: bool) -> None:
    """No loop: from a fresh state the router reaches finalize within maxIterations."""
    state: dict[str, Any] = {"request": "写一篇笔记" if vague else "写露营笔记", "maxIterations": 40}
    for _ in range(40):
        decision = decide(state, OPTIONS)  # type: ignore[arg-type]
        if decision.next == (FINALIZE,):
            break
        state = apply(state, decision, review_passes)
    else:
        pytest.fail("the router did not finish")
    rounds = len(state.get("qualityHistory", []))
    assert rounds == (1 if review_passes else OPTIONS.max_review_rounds)
