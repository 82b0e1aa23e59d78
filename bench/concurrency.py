"""Concurrency: N simultaneous runs over real HTTP/SSE against one `studio serve` process.

    .venv/bin/python -m bench.concurrency [--clients 10 50 100] [--llm-ms 300] [--image-ms 1500]

One server process (uvicorn, one worker) with simulated model latency; the client is one asyncio process
on the same machine. First a warm-up run and `--singles` runs one at a time give the single-run wall
time; then for each N, N clients `POST /api/agent/stream` at once, each with a different request (ten
topics × ten audiences; full post, 4 images, no reference image, `enableHITL: false`), and read their
SSE streams to `[DONE]`. Reported per N: completion rate (a stream that ends with `workflow_complete`
then `[DONE]`), total wall time and its ratio to one run, p50/p95 time to first event (request sent →
first event received: the acknowledgement a new thread gets once it is stored) and to the first agent
event (the supervisor's `agent_start`, once the graph runs), p50/p95 event delivery lag (an event's
`timestamp`, set when it is created in the server, → its arrival at the client), and the server's peak
RSS (sampled every 100 ms). Targets at N=100: all complete, p95 time-to-first-event < 250 ms, total wall
< 2× one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    REQUEST,
    RESULTS_DIR,
    print_table,
    request_for,
    run_benchmark,
    sample_store,
    summary,
)
from bench.server import Server, Stream, client, http_api_available, post_sse, sample_memory

TARGETS = {"completionRate": 1.0, "firstEventP95Ms": 250, "wallVsSingle": 2.0}


def run_body(images: int, message: str = REQUEST) -> dict[str, Any]:
    return {"message": message, "imageCount": images, "enableHITL": False}


def _completed(stream: Stream) -> bool:
    return stream.ok and stream.last_type == "workflow_complete"


def _failure(stream: Stream) -> str:
    """Why a stream did not complete: its transport error, or its last event."""
    if stream.error:
        return stream.error
    last = stream.events[-1] if stream.events else {}
    if last.get("type") == "error":
        return f"error event {last.get('code')}: {last.get('message')}"[:300]
    return f"ended with {stream.last_type}"


async def _wave(server: Server, n: int, images: int) -> dict[str, Any]:
    peak = [server.memory_kb()]
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_memory(server, peak, stop))
    async with client(server, connections=n + 10) as http:
        started = time.time() * 1000
        bodies = [run_body(images, request_for(i)) for i in range(n)]  # every client asks something else
        streams = await asyncio.gather(*(post_sse(http, "/api/agent/stream", body) for body in bodies))
        wall_ms = max(s.end_ms for s in streams) - started
    stop.set()
    await sampler
    done = [s for s in streams if _completed(s)]
    firsts = [s.first_event_ms for s in streams if s.first_event_ms is not None]
    agent_firsts = [ms for s in streams if (ms := s.first_ms_of("agent_start")) is not None]
    lags = [lag for s in streams for lag in s.lags_ms()]
    failures = [_failure(s) for s in streams if not _completed(s)]
    return {
        "clients": n,
        "completed": len(done),
        "completionRate": round(len(done) / n, 4),
        "wallMs": round(wall_ms, 1),
        "firstEventMs": summary(firsts),
        "firstAgentEventMs": summary(agent_firsts),
        "eventLagMs": summary(lags),
        "eventsPerRun": statistics.median([len(s.events) for s in streams]) if streams else 0,
        "runWallMs": summary([s.end_ms - s.sent_ms for s in streams]),
        "serverRssPeakMb": round(peak[0] / 1024, 1),
        "failures": failures[:5],
    }


async def measure(
    *,
    clients: Sequence[int] = (10, 50, 100),
    llm_ms: float = 300,
    image_ms: float = 1500,
    images: int = 4,
    singles: int = 3,
    knowledge: Path | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Start one server, time single runs, then each wave of N simultaneous runs."""
    if not http_api_available():
        return {"skipped": "POST /api/agent/stream is not served by this checkout"}
    knowledge = knowledge or await sample_store()
    env = {
        "STUDIO_OFFLINE_LATENCY_MS": llm_ms,
        "STUDIO_OFFLINE_IMAGE_LATENCY_MS": image_ms,
        "STUDIO_HITL_DEFAULT": "false",
    }
    with tempfile.TemporaryDirectory(prefix="bench-concurrency-", dir=workdir) as scratch:
        server = Server(Path(scratch) / "data", knowledge, env)
        with server:
            idle_rss = server.memory_kb()
            async with client(server) as http:
                await post_sse(http, "/api/agent/stream", run_body(images))  # warm-up
                single = [await post_sse(http, "/api/agent/stream", run_body(images)) for _ in range(singles)]
            single_ms = statistics.median(s.end_ms - s.sent_ms for s in single)
            waves = []
            for n in clients:
                wave = await _wave(server, n, images)
                wave["wallVsSingle"] = round(wave["wallMs"] / single_ms, 2)
                waves.append(wave)
            peak_rss = server.memory_kb("VmHWM")
    last = waves[-1] if waves else None
    return {
        "config": {
            "llmLatencyMs": llm_ms,
            "imageLatencyMs": image_ms,
            "images": images,
            "referenceImages": 0,
            "hitl": False,
            "server": "one `studio serve` process (uvicorn, 1 worker), SQLite, client on the same machine",
        },
        "singleRun": {
            "wallMs": summary([s.end_ms - s.sent_ms for s in single]),
            "firstEventMs": summary([s.first_event_ms for s in single if s.first_event_ms is not None]),
            "firstAgentEventMs": summary(
                [ms for s in single if (ms := s.first_ms_of("agent_start")) is not None]
            ),
            "eventLagMs": summary([lag for s in single for lag in s.lags_ms()]),
            "allCompleted": all(_completed(s) for s in single),
        },
        "serverRssIdleMb": round(idle_rss / 1024, 1),
        "serverRssPeakMb": round(peak_rss / 1024, 1),
        "waves": waves,
        "targets": {**TARGETS, "atClients": last["clients"] if last else None},
        "met": {
            "completionRate": last["completionRate"] >= TARGETS["completionRate"],
            "firstEventP95Ms": last["firstEventMs"].get("p95", float("inf")) < TARGETS["firstEventP95Ms"],
            "wallVsSingle": last["wallVsSingle"] < TARGETS["wallVsSingle"],
        }
        if last
        else {},
    }


def report(result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"\nConcurrency: skipped — {result['skipped']}")
        return
    single = result["singleRun"]
    rows = [
        [
            1,
            "-",
            single["wallMs"]["p50"],
            1.0,
            f"{single['firstEventMs']['p50']} / {single['firstEventMs']['p95']}",
            f"{single['firstAgentEventMs'].get('p50')} / {single['firstAgentEventMs'].get('p95')}",
            f"{single['eventLagMs']['p50']} / {single['eventLagMs']['p95']}",
            result["serverRssIdleMb"],
        ]
    ]
    for wave in result["waves"]:
        rows.append(
            [
                wave["clients"],
                f"{wave['completed']}/{wave['clients']}",
                wave["wallMs"],
                wave["wallVsSingle"],
                f"{wave['firstEventMs'].get('p50')} / {wave['firstEventMs'].get('p95')}",
                f"{wave['firstAgentEventMs'].get('p50')} / {wave['firstAgentEventMs'].get('p95')}",
                f"{wave['eventLagMs'].get('p50')} / {wave['eventLagMs'].get('p95')}",
                wave["serverRssPeakMb"],
            ]
        )
    print_table(
        "Concurrency over HTTP/SSE (one server process)",
        [
            "N",
            "completed",
            "wall ms",
            "× single",
            "first event p50/p95 ms",
            "first agent event p50/p95 ms",
            "lag p50/p95 ms",
            "RSS peak MB",
        ],
        rows,
    )
    met = result["met"]
    if met:
        verdicts = ", ".join(f"{k} {'met' if ok else 'MISSED'}" for k, ok in met.items())
        print(f"  targets at N={result['targets']['atClients']}: {verdicts}")
    for wave in result["waves"]:
        for failure in wave["failures"]:
            print(f"  N={wave['clients']} failure: {failure}")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--llm-ms", type=float, default=300)
    parser.add_argument("--image-ms", type=float, default=1500)
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--singles", type=int, default=3, help="single runs for the baseline wall time")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "concurrency",
        measure,
        report,
        args.out,
        clients=args.clients,
        llm_ms=args.llm_ms,
        image_ms=args.image_ms,
        images=args.images,
        singles=args.singles,
    )


if __name__ == "__main__":
    main()
