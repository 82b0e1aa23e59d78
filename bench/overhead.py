"""Overhead at zero latency: what the studio itself costs when the models answer instantly.

    .venv/bin/python -m bench.overhead [--runs 20] [--images 4] [--profile-runs 5]

A full offline run (no HITL, 4 images, one reference image) with no simulated latency, `runs` times after
`warmup` runs: wall time per workflow (median), CPU time per workflow (every thread of the process: less
sensitive than wall time to other load on the machine), events per run and their stored size, LangGraph
checkpoints per run (one per step) and their bytes, and how long the consumer waited for each event after
it was emitted (in-process delivery lag: persisting the event and updating the creative row).

Where the time goes is measured two ways: by summing the time spent in the main components (checkpoint
writes, event log, creative updates, model calls incl. the offline composers, retrieval, card rendering,
asset writes — calls overlap, so the sums can exceed the wall time), and by a cProfile pass over
`profile_runs` more runs (the top functions by own time, and our own functions by cumulative time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import pstats
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.run import WorkflowRunner
from app.settings import Settings
from bench.common import (
    RESULTS_DIR,
    ROOT,
    RunResult,
    agent_windows_ms,
    full_post,
    print_table,
    run_benchmark,
    run_workflow,
    sample_store,
    studio,
    studio_settings,
    summary,
)


# --- where the time goes -------------------------------------------------------------------------------
def _components() -> dict[str, list[tuple[type, str]]]:
    """Component → the async methods whose time is summed for it (skipped if the code has moved)."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from agents.run import BatchWriter
    from agents.run import recorder as runner
    from tools.assets import AssetStore
    from tools.knowledge import KnowledgeStore
    from tools.llm import LLMGateway
    from tools.renderer import CardRenderer

    return {
        "checkpoint writes": [(AsyncSqliteSaver, "aput"), (AsyncSqliteSaver, "aput_writes")],
        # events and creative-row updates share group commits (agents.run.writer); earlier checkouts wrote
        # them through EventLog.append / CreativeRecorder separately
        "event log + creative row": [
            (BatchWriter, "write"),
            (getattr(runner, "EventLog", object), "append"),
            *(
                (getattr(runner, "CreativeRecorder", object), name)
                for name in ("apply_event", "apply_update", "status", "add_usage")
            ),
        ],
        "model calls (offline)": [(LLMGateway, "_complete")],
        "retrieval (notes, styles)": [(KnowledgeStore, "search_notes"), (KnowledgeStore, "search_styles")],
        "card rendering": [(CardRenderer, "render")],
        "asset writes": [(AssetStore, "save")],
    }


@contextmanager
def attribute_time() -> Iterator[dict[str, float]]:
    """Sum the wall time spent inside each component's methods while the block runs (ms)."""
    spent: dict[str, float] = defaultdict(float)
    patched: list[tuple[type, str, Any]] = []

    def wrap(label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                spent[label] += (time.perf_counter() - started) * 1000

        return timed

    for label, methods in _components().items():
        for owner, name in methods:
            original = owner.__dict__.get(name)
            if original is None or not asyncio.iscoroutinefunction(original):
                continue
            patched.append((owner, name, original))
            setattr(owner, name, wrap(label, original))
    try:
        yield spent
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def _profile_rows(
    stats: pstats.Stats, runs: int, key: str, *, ours: bool, limit: int
) -> list[dict[str, Any]]:
    index = 2 if key == "tottime" else 3
    rows = []
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (filename, line, function), (_, calls, tottime, cumtime, _) in sorted(
        raw.items(), key=lambda item: item[1][index], reverse=True
    ):
        path = Path(filename)
        mine = path.is_relative_to(ROOT) and not path.is_relative_to(ROOT / ".venv")
        if ours and (not mine or path.is_relative_to(ROOT / "bench")):
            continue
        where = str(path.relative_to(ROOT)) if mine else (path.name if filename != "~" else "<built-in>")
        rows.append(
            {
                "function": f"{where}:{line}({function})",
                "callsPerRun": round(calls / runs, 1),
                "ownMsPerRun": round(tottime * 1000 / runs, 2),
                "cumulativeMsPerRun": round(cumtime * 1000 / runs, 2),
            }
        )
        if len(rows) == limit:
            break
    return rows


# --- storage per run -----------------------------------------------------------------------------------
def _storage(settings: Settings, thread_id: str) -> dict[str, int]:
    """Checkpoints (= steps) and their bytes, pending writes, and the stored events of one thread."""
    with sqlite3.connect(f"file:{settings.checkpoint_db}?mode=ro", uri=True) as db:
        steps, checkpoint_bytes = db.execute(
            "SELECT count(*), coalesce(sum(length(checkpoint) + length(metadata)), 0)"
            " FROM checkpoints WHERE thread_id = ?",
            (thread_id,),
        ).fetchone()
        writes, write_bytes = db.execute(
            "SELECT count(*), coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = ?", (thread_id,)
        ).fetchone()
    return {
        "steps": steps,
        "checkpointBytes": checkpoint_bytes,
        "writes": writes,
        "writeBytes": write_bytes,
    }


def _per_run(result: RunResult, storage: dict[str, int]) -> dict[str, Any]:
    lags = [got - event["timestamp"] for event, got in zip(result.events, result.received_ms, strict=True)]
    in_agents = agent_windows_ms(result.events)
    return {
        "wallMs": round(result.wall_ms, 1),
        "events": len(result.events),
        "eventBytes": sum(len(json.dumps(e, ensure_ascii=False).encode()) for e in result.events),
        **storage,
        "inAgentsMs": round(in_agents, 1),
        "betweenAgentsMs": round(result.wall_ms - in_agents, 1),
        "eventLagP50Ms": round(statistics.median(lags), 1) if lags else None,
        "eventLagMaxMs": round(max(lags), 1) if lags else None,
        "agentMs": {e["agent"]: e["durationMs"] for e in result.of_type("agent_end")},
        "completed": result.last_type == "workflow_complete",
    }


async def measure(
    *,
    runs: int = 20,
    warmup: int = 2,
    images: int = 4,
    references: int = 1,
    profile_runs: int = 5,
    knowledge: Path | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Time `runs` zero-latency runs, attribute their time, and profile `profile_runs` more."""
    knowledge = knowledge or await sample_store()
    with tempfile.TemporaryDirectory(prefix="bench-overhead-", dir=workdir) as scratch:
        settings = studio_settings(Path(scratch), knowledge)
        async with studio(settings) as resources:
            runner = WorkflowRunner(resources)
            request = full_post(images, references)
            for _ in range(warmup):
                await run_workflow(runner, request)
            with attribute_time() as spent:
                cpu_started = time.process_time()
                results = [await run_workflow(runner, request) for _ in range(runs)]
                cpu_ms = (time.process_time() - cpu_started) * 1000 / max(1, runs)
            profile: dict[str, Any] = {}
            if profile_runs:
                profiler = cProfile.Profile()
                profiler.enable()
                for _ in range(profile_runs):
                    await run_workflow(runner, request)
                profiler.disable()
                stats = pstats.Stats(profiler)
                profile = {
                    "runs": profile_runs,
                    "topOwnTime": _profile_rows(stats, profile_runs, "tottime", ours=False, limit=15),
                    "oursByCumulative": _profile_rows(stats, profile_runs, "cumtime", ours=True, limit=15),
                }
            rows = [_per_run(result, _storage(settings, result.thread_id)) for result in results]

    def column(key: str) -> list[float]:
        return [float(row[key]) for row in rows]

    agents = sorted({agent for row in rows for agent in row["agentMs"]})
    steps = statistics.median(column("steps"))
    checkpoint_bytes = statistics.median(column("checkpointBytes"))
    return {
        "config": {"runs": runs, "warmupRuns": warmup, "images": images, "referenceImages": references},
        "wallMs": summary(column("wallMs")),
        "cpuMsPerRun": round(cpu_ms, 1),
        "eventsPerRun": statistics.median(column("events")),
        "eventBytesPerRun": statistics.median(column("eventBytes")),
        "stepsPerRun": steps,
        "checkpointBytesPerRun": checkpoint_bytes,
        "checkpointBytesPerStep": round(checkpoint_bytes / steps) if steps else None,
        "writesPerRun": statistics.median(column("writes")),
        "writeBytesPerRun": statistics.median(column("writeBytes")),
        "inAgentsMs": summary(column("inAgentsMs")),
        "betweenAgentsMs": summary(column("betweenAgentsMs")),
        "eventLagP50Ms": summary(column("eventLagP50Ms")),
        "agentMsP50": {
            agent: statistics.median([row["agentMs"][agent] for row in rows if agent in row["agentMs"]])
            for agent in agents
        },
        "timeInComponentsMsPerRun": {
            label: round(ms / max(1, runs), 1) for label, ms in sorted(spent.items(), key=lambda kv: -kv[1])
        },
        "allCompleted": all(row["completed"] for row in rows),
        "profile": profile,
        "runs": rows,
    }


def report(result: dict[str, Any]) -> None:
    wall = result["wallMs"]
    print_table(
        "Overhead at zero latency (per workflow)",
        ["metric", "value"],
        [
            ["runs", wall["n"]],
            ["wall p50 / p95 ms", f"{wall['p50']} / {wall['p95']}"],
            ["CPU ms per run (all threads)", result["cpuMsPerRun"]],
            ["in agents p50 ms", result["inAgentsMs"]["p50"]],
            ["between agents p50 ms", result["betweenAgentsMs"]["p50"]],
            ["events per run", result["eventsPerRun"]],
            ["event bytes per run", result["eventBytesPerRun"]],
            ["steps (checkpoints) per run", result["stepsPerRun"]],
            ["checkpoint bytes per run", result["checkpointBytesPerRun"]],
            ["checkpoint bytes per step", result["checkpointBytesPerStep"]],
            ["pending-write bytes per run", result["writeBytesPerRun"]],
            ["event lag p50 ms (in-process)", result["eventLagP50Ms"]["p50"]],
        ],
    )
    print_table(
        "Time inside components (ms per run, summed over concurrent calls)",
        ["component", "ms"],
        result["timeInComponentsMsPerRun"].items(),
    )
    print_table("Agent duration p50 (ms)", ["agent", "ms"], result["agentMsP50"].items())
    if result["profile"]:
        print_table(
            "cProfile: top own time (ms per run)",
            ["function", "calls", "own ms", "cum ms"],
            [
                [r["function"][-70:], r["callsPerRun"], r["ownMsPerRun"], r["cumulativeMsPerRun"]]
                for r in result["profile"]["topOwnTime"][:10]
            ],
        )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.overhead", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--references", type=int, default=1)
    parser.add_argument("--profile-runs", type=int, default=5, help="0 to skip the cProfile pass")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    parser.add_argument("--name", default="overhead", help="results file name (e.g. overhead-before)")
    args = parser.parse_args(argv)
    return run_benchmark(
        args.name,
        measure,
        report,
        args.out,
        runs=args.runs,
        warmup=args.warmup,
        images=args.images,
        references=args.references,
        profile_runs=args.profile_runs,
    )


if __name__ == "__main__":
    main()
