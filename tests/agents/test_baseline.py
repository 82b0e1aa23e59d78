"""The sequential baseline mode (`RunOptions.sequential_baseline`, benchmarks only): the original single-chain
design — one agent per decision, one supervisor LLM call per decision, one image at a time."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from agents.context import RunOptions, StudioContext
from agents.image import image_agent
from agents.stages import FINALIZE, REFERENCE, RESEARCH
from agents.supervisor import decide, supervisor
from tests.agents.harness import run_node
from tests.agents.test_supervisor import FULL, apply
from tests.agents.test_visual_agents import CountingProvider, image_state

BASELINE = RunOptions(sequential_baseline=True)


def test_research_then_reference_instead_of_both_at_once() -> None:
    state: dict[str, Any] = {**FULL, "briefComplete": True}
    assert decide(state, RunOptions()).next == (RESEARCH, REFERENCE)  # type: ignore[arg-type]
    assert decide(state, BASELINE).next == (RESEARCH,)  # type: ignore[arg-type]
    assert decide({**state, "evidenceComplete": True}, BASELINE).next == (REFERENCE,)  # type: ignore[arg-type]


@pytest.mark.parametrize(("review_passes", "vague"), list(itertools.product([True, False], [True, False])))
def test_baseline_never_dispatches_two_agents_and_still_ends(review_passes: bool, vague: bool) -> None:
    state: dict[str, Any] = {"request": "写一篇笔记" if vague else "写露营笔记", "maxIterations": 40}
    visited: list[str] = []
    for _ in range(40):
        decision = decide(state, BASELINE)  # type: ignore[arg-type]
        assert len(decision.next) == 1, decision
        visited.append(decision.next[0])
        if decision.next == (FINALIZE,):
            break
        state = apply(state, decision, review_passes)
    else:
        pytest.fail("the baseline router did not finish")
    assert visited.index(RESEARCH) + 1 == visited.index(REFERENCE)


async def test_baseline_supervisor_pays_one_llm_call_per_decision(ctx: StudioContext) -> None:
    state: dict[str, Any] = {**FULL, "briefComplete": True, "iterationCount": 3, "maxIterations": 40}
    baseline = dataclasses.replace(ctx, options=BASELINE)
    run = await run_node(supervisor, state, baseline)  # type: ignore[arg-type]
    assert run.update["nextAgents"] == [RESEARCH]
    assert [r.task for r in ctx.llm.meter.records] == ["supervisor"]
    decision = run.of_type("supervisor_decision")[0]
    assert decision["source"] == "llm" and decision["decision"] == RESEARCH
    assert run.update["llmFallbackCalls"] == 0  # the baseline's calls are not the fallback's budget

    run = await run_node(supervisor, state, ctx)  # type: ignore[arg-type]
    assert run.update["nextAgents"] == [RESEARCH, REFERENCE]
    assert len(ctx.llm.meter.records) == 1  # the normal supervisor decides by rule, no call


async def test_baseline_generates_one_image_at_a_time(ctx: StudioContext) -> None:
    state = await image_state(ctx, count=3)
    provider = CountingProvider(delay_s=0.05)
    options = dataclasses.replace(BASELINE, image_concurrency=4)
    run = await run_node(image_agent, state, dataclasses.replace(ctx, images=provider, options=options))
    assert provider.peak == 1 and sorted(provider.calls) == [1, 2, 3]
    assert run.update["imagesComplete"] is True
    assert RunOptions(image_concurrency=3).effective_image_concurrency == 3
