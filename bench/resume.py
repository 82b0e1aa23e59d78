"""Resume latency: confirm → first event, after a server restart.

    .venv/bin/python -m bench.resume [--threads 10] [--llm-ms 300] [--image-ms 1500]

One `studio serve` process with simulated latency and HITL on. `--threads` runs start at once and each
pauses at its content checkpoint (`ask_user` + `workflow_paused`). The server is then stopped (SIGTERM) and
started again on the same data dir (the restart time is reported: spawn → `/healthz`), and each paused
thread is confirmed, one at a time, with `POST /api/agent/confirm {"action": "approve", "interruptId"}`:
the time from sending the confirm to receiving its first SSE event is the resume latency (the first
confirm after the restart is also reported alone: it is the cold one). Each resumed run pauses again at
its image-plans checkpoint; confirming those in the same process gives the warm latency to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import REQUEST, RESULTS_DIR, print_table, run_benchmark, sample_store, summary
from bench.server import Server, Stream, client, http_api_available, post_sse


def _paused(stream: Stream) -> dict[str, Any] | None:
    """The pending `ask_user` of a stream that ended paused, else None."""
    if not stream.ok or stream.last_type != "workflow_paused":
        return None
    asks = [e for e in stream.events if e["type"] == "ask_user"]
    return asks[-1] if asks else None


async def _confirm_each(
    server: Server, pauses: dict[str, dict[str, Any]]
) -> tuple[list[Stream], dict[str, dict[str, Any]]]:
    """Approve every pause, one after the other: the streams, and the pauses they ended in."""
    streams = []
    again = {}
    async with client(server) as http:
        for thread_id, ask in pauses.items():
            body = {"threadId": thread_id, "action": "approve", "interruptId": ask["interruptId"]}
            stream = await post_sse(http, "/api/agent/confirm", body)
            streams.append(stream)
            pending = _paused(stream)
            if pending is not None:
                again[thread_id] = pending
    return streams, again


async def measure(
    *,
    threads: int = 10,
    llm_ms: float = 300,
    image_ms: float = 1500,
    images: int = 2,
    knowledge: Path | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Pause `threads` runs, restart the server, confirm each; then confirm their next pause warm."""
    if not http_api_available():
        return {"skipped": "POST /api/agent/confirm is not served by this checkout"}
    knowledge = knowledge or await sample_store()
    env = {"STUDIO_OFFLINE_LATENCY_MS": llm_ms, "STUDIO_OFFLINE_IMAGE_LATENCY_MS": image_ms}
    body = {"message": REQUEST, "imageCount": images, "enableHITL": True}
    with tempfile.TemporaryDirectory(prefix="bench-resume-", dir=workdir) as scratch:
        data_dir = Path(scratch) / "data"
        with Server(data_dir, knowledge, env) as first:
            async with client(first) as http:
                started = await asyncio.gather(
                    *(post_sse(http, "/api/agent/stream", body) for _ in range(threads))
                )
        pauses = {
            str(ask["threadId"]): ask for ask in (_paused(s) for s in started) if ask is not None
        }
        restarted = Server(data_dir, knowledge, env)
        restart_ms = restarted.start()
        try:
            cold, paused_again = await _confirm_each(restarted, pauses)
            warm, _ = await _confirm_each(restarted, paused_again)
        finally:
            restarted.stop()
    after_restart = [s.first_event_ms for s in cold if s.first_event_ms is not None]
    warm_firsts = [s.first_event_ms for s in warm if s.first_event_ms is not None]
    return {
        "config": {
            "threads": threads,
            "llmLatencyMs": llm_ms,
            "imageLatencyMs": image_ms,
            "images": images,
            "restart": "SIGTERM, then `studio serve` again on the same data dir",
        },
        "paused": len(pauses),
        "restartMs": round(restart_ms, 1),
        "afterRestart": {
            "firstEventMs": summary(after_restart),
            "coldFirstEventMs": round(after_restart[0], 1) if after_restart else None,
            "resumed": sum(1 for s in cold if s.ok),
            "pausedAgain": len(paused_again),
            "toNextPauseMs": summary([s.end_ms - s.sent_ms for s in cold if s.ok]),
        },
        "warm": {
            "firstEventMs": summary(warm_firsts),
            "completed": sum(1 for s in warm if s.ok and s.last_type == "workflow_complete"),
        },
        "failures": [
            s.error or f"ended with {s.last_type}" for s in [*started, *cold, *warm] if not s.ok
        ][:5],
    }


def report(result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"\nResume: skipped — {result['skipped']}")
        return
    after, warm = result["afterRestart"], result["warm"]
    print_table(
        "Resume latency: confirm → first SSE event (ms)",
        ["case", "n", "p50", "p95", "max"],
        [
            ["after a restart", after["firstEventMs"].get("n", 0), after["firstEventMs"].get("p50"),
             after["firstEventMs"].get("p95"), after["firstEventMs"].get("max")],
            ["  first confirm (cold)", 1, after["coldFirstEventMs"], "-", "-"],
            ["warm (same process)", warm["firstEventMs"].get("n", 0), warm["firstEventMs"].get("p50"),
             warm["firstEventMs"].get("p95"), warm["firstEventMs"].get("max")],
        ],
    )
    print(
        f"  restart (spawn → /healthz): {result['restartMs']} ms; paused {result['paused']}, resumed"
        f" {after['resumed']}, paused again {after['pausedAgain']}, completed {warm['completed']}"
    )
    for failure in result["failures"]:
        print(f"  failure: {failure}")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.resume", description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=10, help="paused runs to resume")
    parser.add_argument("--llm-ms", type=float, default=300)
    parser.add_argument("--image-ms", type=float, default=1500)
    parser.add_argument("--images", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "resume",
        measure,
        report,
        args.out,
        threads=args.threads,
        llm_ms=args.llm_ms,
        image_ms=args.image_ms,
        images=args.images,
    )


if __name__ == "__main__":
    main()
