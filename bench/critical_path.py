"""Critical-path efficiency: one full run (no HITL) against the model time its critical path implies, and
the same run in the sequential baseline mode that mimics the design we started from.

    .venv/bin/python -m bench.critical_path [--llm-ms 300] [--image-ms 1500] [--images 4] [--runs 3]

The offline model's simulated latency is the whole duration of each call (`L` per LLM call, `I` per image;
the offline composers and the card renderer work inside it), so a run's model time is known exactly. The
LLM calls each agent made are counted from the run's `UsageMeter` (one record per call, by task), and

    path = L × (intent + brief + max(research, reference) + writer + layout + image_planner + review
                + supervisor) + I × ⌈images / image_concurrency⌉

Our supervisor routes by rule and makes no call (it would only call the LLM after an ambiguous failure),
the intent step is one call, research and reference run in the same step, and the images are generated
`image_concurrency` (4) at a time. Reference images are read concurrently, so the reference branch counts
the calls per image. In the baseline (`STUDIO_SEQUENTIAL_BASELINE`) the supervisor makes one call per
decision, research and reference add up instead of overlapping, and images go one at a time — the same
formula with `max` replaced by `+` and a concurrency of 1 gives its own, fully sequential model time.

Reports `ratio = wall / path` (target ≤ 1.10) and `speedup = baseline wall / our wall` (target ≥ 2.5×).
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.run import WorkflowRunner
from bench.common import (
    RESULTS_DIR,
    RunResult,
    full_post,
    print_table,
    run_benchmark,
    run_workflow,
    sample_store,
    studio,
    studio_settings,
    summary,
)
from tools.llm import CallRecord

TARGET_RATIO = 1.10
TARGET_SPEEDUP = 2.5

# The task of each LLM call → the agent that makes it.
TASK_AGENT = {
    "intent": "intent",
    "brief": "brief_compiler_agent",
    "evidence": "research_evidence_agent",
    "reference": "reference_intelligence_agent",
    "writer": "writer_agent",
    "layout": "layout_planner_agent",
    "image_plan": "image_planner_agent",
    "review": "review_agent",
    "supervisor": "supervisor",
    "answer": "answer_agent",
}
RESEARCH, REFERENCE = "research_evidence_agent", "reference_intelligence_agent"
IN_SEQUENCE = (
    "intent",
    "brief_compiler_agent",
    "writer_agent",
    "layout_planner_agent",
    "image_planner_agent",
    "review_agent",
    "supervisor",
)
SHORT = {
    "intent": "intent",
    "brief_compiler_agent": "brief",
    RESEARCH: "research",
    REFERENCE: "reference",
    "writer_agent": "writer",
    "layout_planner_agent": "layout",
    "image_planner_agent": "image_planner",
    "review_agent": "review",
    "supervisor": "supervisor",
}


def llm_calls_by_agent(calls: Sequence[CallRecord]) -> dict[str, int]:
    """How many LLM calls each agent made (failed attempts included: they cost time too)."""
    counts = Counter(TASK_AGENT.get(call.task, call.task) for call in calls)
    return {agent: counts.get(agent, 0) for agent in SHORT} | dict(counts)


def images_generated(run: RunResult) -> int:
    return len({e["taskId"] for e in run.of_type("image_progress") if e["status"] in ("complete", "failed")})


def critical_path(
    counts: dict[str, int],
    images: int,
    *,
    llm_ms: float,
    image_ms: float,
    image_concurrency: int,
    references: int,
    parallel: bool,
) -> tuple[float, str]:
    """The model time on a run's critical path, and the formula with this run's counts filled in."""
    research = counts.get(RESEARCH, 0)
    reference = math.ceil(counts.get(REFERENCE, 0) / max(1, references))  # references are read concurrently
    branch = max(research, reference) if parallel else research + reference
    in_sequence = sum(counts.get(agent, 0) for agent in IN_SEQUENCE)
    waves = math.ceil(images / max(1, image_concurrency))
    total = llm_ms * (in_sequence + branch) + image_ms * waves
    terms = [f"{SHORT[a]} {counts.get(a, 0)}" for a in IN_SEQUENCE[:2]]
    pair = f"research {research}, reference {reference}"
    terms.append(f"max({pair})" if parallel else f"({pair.replace(', ', ' + ')})")
    terms += [f"{SHORT[a]} {counts.get(a, 0)}" for a in IN_SEQUENCE[2:]]
    formula = (
        f"{llm_ms:g} ms × ({' + '.join(terms)}) + {image_ms:g} ms × ⌈{images} images / {image_concurrency}⌉"
        f" = {total:g} ms"
    )
    return total, formula


async def _mode(
    root: Path,
    knowledge: Path,
    *,
    baseline: bool,
    llm_ms: float,
    image_ms: float,
    images: int,
    references: int,
    runs: int,
    warmup: int,
) -> dict[str, Any]:
    settings = studio_settings(
        root,
        knowledge,
        offline_latency_ms=llm_ms,
        offline_image_latency_ms=image_ms,
        sequential_baseline=baseline,
    )
    async with studio(settings) as resources:
        runner = WorkflowRunner(resources)
        for _ in range(warmup):
            await run_workflow(runner, full_post(images, references))
        results = [await run_workflow(runner, full_post(images, references)) for _ in range(runs)]
        concurrency = resources.options.effective_image_concurrency
    rows: list[dict[str, Any]] = []
    for result in results:
        counts = llm_calls_by_agent(result.calls)
        path_ms, formula = critical_path(
            counts,
            images_generated(result),
            llm_ms=llm_ms,
            image_ms=image_ms,
            image_concurrency=concurrency,
            references=references,
            parallel=not baseline,
        )
        rows.append(
            {
                "wallMs": round(result.wall_ms, 1),
                "criticalPathMs": path_ms,
                "ratio": round(result.wall_ms / path_ms, 3) if path_ms else None,
                "formula": formula,
                "llmCalls": counts,
                "supervisorDecisions": len(result.of_type("supervisor_decision")),
                "images": images_generated(result),
                "events": len(result.events),
                "completed": result.last_type == "workflow_complete",
            }
        )
    walls = [row["wallMs"] for row in rows]
    median_row = min(rows, key=lambda row: abs(row["wallMs"] - statistics.median(walls)))
    path_ms = median_row["criticalPathMs"]
    return {
        "imageConcurrency": concurrency,
        "wallMs": summary(walls),
        "criticalPathMs": path_ms,
        "formula": median_row["formula"],
        "ratio": round(statistics.median(walls) / path_ms, 3) if path_ms else None,
        "llmCalls": median_row["llmCalls"],
        "totalLlmCalls": statistics.median_low([len(r.calls) for r in results]) if results else 0,
        "supervisorDecisions": median_row["supervisorDecisions"],
        "allCompleted": all(row["completed"] for row in rows),
        "runs": rows,
    }


async def measure(
    *,
    llm_ms: float = 300,
    image_ms: float = 1500,
    images: int = 4,
    references: int = 1,
    runs: int = 3,
    warmup: int = 1,
    knowledge: Path | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Time `runs` full runs (after `warmup`) in our design and in the sequential baseline."""
    knowledge = knowledge or await sample_store()
    with tempfile.TemporaryDirectory(prefix="bench-path-", dir=workdir) as scratch:
        options: dict[str, Any] = {
            "llm_ms": llm_ms,
            "image_ms": image_ms,
            "images": images,
            "references": references,
            "runs": runs,
            "warmup": warmup,
        }
        ours = await _mode(Path(scratch) / "ours", knowledge, baseline=False, **options)
        baseline = await _mode(Path(scratch) / "baseline", knowledge, baseline=True, **options)
    ours_wall, base_wall = ours["wallMs"]["p50"], baseline["wallMs"]["p50"]
    speedup = round(base_wall / ours_wall, 2) if ours_wall else None
    return {
        "config": {
            "llmLatencyMs": llm_ms,
            "imageLatencyMs": image_ms,
            "images": images,
            "referenceImages": references,
            "runs": runs,
            "warmupRuns": warmup,
            "hitl": False,
        },
        "formula": "path = L × (intent + brief + max(research, reference) + writer + layout + image_planner"
        " + review + supervisor) + I × ⌈images / image_concurrency⌉, with each agent's LLM call count;"
        " the baseline adds research + reference and uses image_concurrency 1",
        "ours": ours,
        "baseline": baseline,
        "speedup": speedup,
        "idealSpeedup": round(baseline["criticalPathMs"] / ours["criticalPathMs"], 2)
        if ours["criticalPathMs"]
        else None,
        "targets": {"ratio": TARGET_RATIO, "speedup": TARGET_SPEEDUP},
        "met": {
            "ratio": ours["ratio"] is not None and ours["ratio"] <= TARGET_RATIO,
            "speedup": speedup is not None and speedup >= TARGET_SPEEDUP,
        },
    }


def report(result: dict[str, Any]) -> None:
    rows = []
    for name in ("ours", "baseline"):
        mode = result[name]
        rows.append(
            [
                name,
                mode["wallMs"]["n"],
                mode["wallMs"]["p50"],
                mode["criticalPathMs"],
                mode["ratio"],
                mode["totalLlmCalls"],
                mode["llmCalls"].get("supervisor", 0),
                mode["imageConcurrency"],
            ]
        )
    print_table(
        "Critical path (wall time vs the model time on the critical path)",
        ["mode", "runs", "wall p50 ms", "path ms", "ratio", "LLM calls", "supervisor calls", "image conc."],
        rows,
    )
    print(f"  ours:     {result['ours']['formula']}")
    print(f"  baseline: {result['baseline']['formula']}")
    print(
        f"  speed-up over the sequential baseline: {result['speedup']}× (ideal {result['idealSpeedup']}×);"
        f" targets: ratio ≤ {TARGET_RATIO} {'met' if result['met']['ratio'] else 'MISSED'},"
        f" speed-up ≥ {TARGET_SPEEDUP}× {'met' if result['met']['speedup'] else 'MISSED'}"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.critical_path", description=__doc__.split("\n")[0])
    parser.add_argument("--llm-ms", type=float, default=300, help="simulated latency per LLM call")
    parser.add_argument("--image-ms", type=float, default=1500, help="simulated latency per image")
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--references", type=int, default=1, help="reference images per run")
    parser.add_argument("--runs", type=int, default=3, help="measured runs per mode")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs per mode first")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "critical_path",
        measure,
        report,
        args.out,
        llm_ms=args.llm_ms,
        image_ms=args.image_ms,
        images=args.images,
        references=args.references,
        runs=args.runs,
        warmup=args.warmup,
    )


if __name__ == "__main__":
    main()
