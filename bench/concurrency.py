"""Concurrency: N simultaneous runs over real HTTP/SSE against one or two `studio serve` processes.

    .venv/bin/python -m bench.concurrency [--clients 10 50 100] [--llm-ms 300] [--image-ms 1500]
        [--processes 1 2] [--database sqlite postgresql] [--models offline|remote] [--answers FILE]

Servers (uvicorn, one worker each) with simulated model latency; the client is one asyncio process on the
same machine. For each setup — a number of server processes on one database — a warm-up run on each
process, then `--singles` runs one at a time give the single-run wall time; then for each N, N clients
`POST /api/agent/stream` at once, each with a different request (ten topics × ten audiences; full post, 4
images, no reference image, `enableHITL: false`), and read their SSE streams to `[DONE]`. Reported per N:
completion rate (a stream that ends with `workflow_complete` then `[DONE]`), total wall time and its ratio
to one run, p50/p95 time to first event (request sent → first event received: the acknowledgement a new
thread gets once it is stored) and to the first agent event (the supervisor's `agent_start`, once the graph
runs), p50/p95 event delivery lag (an event's `timestamp`, set when it is created in the server, → its
arrival at the client), each server's peak RSS (sampled every 100 ms), and the CPU seconds each server
process (with its render workers), the PostgreSQL cluster and the client used during the wave.

**Processes** (`--processes 1 2`): two processes are two `studio serve` processes started one after the
other on one data dir (the same database, assets and LanceDB store) on two ports, the clients spread
round-robin over them (client i → process i mod 2) — not `studio serve --workers 2` on one port, because
(1) with one listening socket the kernel hands a burst of connections to whichever worker accepts first,
so the split of a wave would be luck and the numbers would measure it rather than what two processes can
do; round-robin is exact, like a reverse proxy's (docs/operations.md); (2) each process's RSS and CPU
belong to a known pid; (3) `--workers` starts its children as plain `python -m app serve`, where the
remote-models replacement below could not be installed.

**Database** (`--database sqlite postgresql`): SQLite in the setup's data dir, or a throwaway PostgreSQL
cluster the benchmark starts (`bench.pg`, as the tests do: `initdb`/`pg_ctl`, as the `postgres` user when
run as root, fsync off) and stops itself, a new database per setup (`STUDIO_DATABASE_URL`; checkpoints in
PostgreSQL too).

**Models** (`--models`): `offline` (the default, section 3 of docs/benchmarks.md) runs the offline text
model's composers and draws the cards in the servers' render workers, inside the simulated latency, on the
same two cores. `remote` (`bench.remote_models`) makes both pure latency, as remote models are: a recording
pass first runs every request of the waves once on a scratch SQLite server with the composers on and no
latency, keeping each model answer under a key of its prompt; the measured servers replay them (a lookup
per call, no composing, misses counted and reported) and return a flat PNG per picture without drawing.
`--answers FILE` keeps the recording (reused when FILE exists).

Targets: section 3 (offline models, one process) at N=100: all complete, p95 time to first event < 250 ms,
wall < 2× one run. Issue 16 (remote models) at N=100: all complete, p95 time to first event ≤ 100 ms, wall
≤ 2× one run on two processes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import signal
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bench.common import (
    REQUEST,
    RESULTS_DIR,
    load_average,
    print_table,
    request_for,
    run_benchmark,
    sample_store,
    summary,
    write_result,
)
from bench.server import Server, Stream, client, cpu_seconds, http_api_available, post_sse

TARGETS = {"completionRate": 1.0, "firstEventP95Ms": 250, "wallVsSingle": 2.0}  # section 3
SCALE_OUT_TARGETS = {"completionRate": 1.0, "firstEventP95Ms": 100, "wallVsSingle": 2.0}  # issue 16
TARGET_CLIENTS = 100
DISTINCT_REQUESTS = 100  # request_for repeats after these
RECORD_CONCURRENCY = 10


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


def _client_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Setup:
    """The servers of one setup and what else uses the CPU during a wave (the database's processes)."""

    servers: list[Server]
    database: str
    db_pids: Any = None  # () -> list[int]: PostgreSQL's processes now

    def cpu(self) -> tuple[list[float], float]:
        db = cpu_seconds(self.db_pids()) if self.db_pids else 0.0
        return [server.cpu_seconds() for server in self.servers], db


async def _sample_rss(servers: Sequence[Server], peaks: list[int], stop: asyncio.Event) -> None:
    """Keep each server's largest RSS (kB) in `peaks` until `stop` is set."""
    while not stop.is_set():
        for i, server in enumerate(servers):
            peaks[i] = max(peaks[i], server.memory_kb())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)


async def _wave(setup: Setup, n: int, images: int) -> dict[str, Any]:
    servers = setup.servers
    peaks = [server.memory_kb() for server in servers]
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample_rss(servers, peaks, stop))
    load = load_average()
    share = -(-n // len(servers))
    studio_before, db_before = setup.cpu()
    client_before = _client_cpu_s()
    async with contextlib.AsyncExitStack() as stack:
        https = [await stack.enter_async_context(client(s, connections=share + 10)) for s in servers]
        started = time.time() * 1000
        bodies = [run_body(images, request_for(i)) for i in range(n)]  # every client asks something else
        streams = await asyncio.gather(
            *(post_sse(https[i % len(https)], "/api/agent/stream", body) for i, body in enumerate(bodies))
        )
        wall_ms = max(s.end_ms for s in streams) - started
    studio_after, db_after = setup.cpu()
    client_cpu = _client_cpu_s() - client_before
    stop.set()
    await sampler
    done = [s for s in streams if _completed(s)]
    firsts = [s.first_event_ms for s in streams if s.first_event_ms is not None]
    agent_firsts = [ms for s in streams if (ms := s.first_ms_of("agent_start")) is not None]
    lags = [lag for s in streams for lag in s.lags_ms()]
    failures = [_failure(s) for s in streams if not _completed(s)]
    await asyncio.sleep(1)  # let the servers finish what follows the last events before the next wave
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
        "serverRssPeakMb": round(max(peaks) / 1024, 1),
        "serverRssPeakMbPerProcess": [round(kb / 1024, 1) for kb in peaks],
        "cpuSeconds": {
            "studioPerProcess": [round(b - a, 2) for a, b in zip(studio_before, studio_after, strict=True)],
            "database": round(db_after - db_before, 2) if setup.db_pids else None,
            "client": round(client_cpu, 2),
        },
        "loadAverageAtStart": load,
        "failures": failures[:5],
    }


async def _runs_one_at_a_time(servers: Sequence[Server], count: int, images: int) -> list[Stream]:
    """`count` runs one after the other, alternating over the servers."""
    out = []
    for i in range(count):
        async with client(servers[i % len(servers)]) as http:
            out.append(await post_sse(http, "/api/agent/stream", run_body(images)))
    return out


def _verdicts(waves: list[dict[str, Any]], targets: dict[str, float]) -> tuple[int | None, dict[str, bool]]:
    """The targets checked at N=100 (else the largest N); completion over every wave. Issue 16's bounds
    are inclusive (≤ 100 ms, ≤ 2×), section 3's strict (< 250 ms, < 2×)."""
    if not waves:
        return None, {}
    at = next((w for w in waves if w["clients"] == TARGET_CLIENTS), waves[-1])
    inclusive = targets is SCALE_OUT_TARGETS

    def within(value: float, bound: float) -> bool:
        return value <= bound if inclusive else value < bound

    return at["clients"], {
        "completionRate": all(w["completionRate"] >= targets["completionRate"] for w in waves),
        "firstEventP95Ms": within(at["firstEventMs"].get("p95", float("inf")), targets["firstEventP95Ms"]),
        "wallVsSingle": within(at["wallVsSingle"], targets["wallVsSingle"]),
    }


async def measure_setup(
    setup: Setup, *, clients: Sequence[int], images: int, singles: int, targets: dict[str, float]
) -> dict[str, Any]:
    """Warm up each server, time single runs, then each wave of N simultaneous runs."""
    servers = setup.servers
    idle = [server.memory_kb() for server in servers]
    await asyncio.gather(*(_runs_one_at_a_time([s], 1, images) for s in servers))  # warm-up, each process
    single = await _runs_one_at_a_time(servers, singles, images)
    single_ms = statistics.median(s.end_ms - s.sent_ms for s in single)
    waves = []
    for n in clients:
        wave = await _wave(setup, n, images)
        wave["wallVsSingle"] = round(wave["wallMs"] / single_ms, 2)
        waves.append(wave)
    peak = [server.memory_kb("VmHWM") for server in servers]
    at, met = _verdicts(waves, targets)
    return {
        "processes": len(servers),
        "database": setup.database,
        "singleRun": {
            "wallMs": summary([s.end_ms - s.sent_ms for s in single]),
            "firstEventMs": summary([s.first_event_ms for s in single if s.first_event_ms is not None]),
            "firstAgentEventMs": summary(
                [ms for s in single if (ms := s.first_ms_of("agent_start")) is not None]
            ),
            "eventLagMs": summary([lag for s in single for lag in s.lags_ms()]),
            "allCompleted": all(_completed(s) for s in single),
        },
        "serverRssIdleMb": round(max(idle) / 1024, 1),
        "serverRssIdleMbPerProcess": [round(kb / 1024, 1) for kb in idle],
        "serverRssPeakMb": round(max(peak) / 1024, 1),
        "serverRssPeakMbPerProcess": [round(kb / 1024, 1) for kb in peak],
        "waves": waves,
        "targets": {**targets, "atClients": at},
        "met": met,
    }


@contextlib.contextmanager
def _started(servers: Sequence[Server]) -> Iterator[list[Server]]:
    """Start the servers one after the other (the first migrates and seeds), stop them in reverse."""
    with contextlib.ExitStack() as stack:
        for server in servers:
            stack.enter_context(server)
        yield list(servers)


def _remote_entry(answers: Path, stats: Path, *, record: bool) -> list[str]:
    mode = "--record" if record else "--replay"
    return ["bench.remote_models", "serve", "--answers", str(answers), mode, "--stats", str(stats), "--"]


def _read_stats(path: Path) -> dict[str, Any] | None:
    import json

    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


async def record_answers(
    answers: Path, count: int, *, images: int, knowledge: Path, scratch: Path, env: dict[str, Any]
) -> dict[str, Any]:
    """The recording pass of `--models remote`: the first `count` distinct requests, run once each on a
    scratch SQLite server whose offline models compose (no latency), their answers kept in `answers`."""
    stats = scratch / "stats-record.json"
    server = Server(
        scratch / "data", knowledge, env, entry=_remote_entry(answers, stats, record=True), name="record"
    )
    started = time.perf_counter()
    gate = asyncio.Semaphore(RECORD_CONCURRENCY)

    async def one(index: int) -> Stream:
        async with gate, client(server) as http:
            return await post_sse(http, "/api/agent/stream", run_body(images, request_for(index)))

    with server:
        streams = await asyncio.gather(*(one(i) for i in range(count)))
    return {
        "runs": count,
        "completed": sum(_completed(s) for s in streams),
        "wallS": round(time.perf_counter() - started, 1),
        "answers": _read_stats(stats),
        "failures": [_failure(s) for s in streams if not _completed(s)][:5],
    }


async def measure(
    *,
    clients: Sequence[int] = (10, 50, 100),
    llm_ms: float = 300,
    image_ms: float = 1500,
    images: int = 4,
    singles: int = 3,
    processes: Sequence[int] = (1,),
    databases: Sequence[str] = ("sqlite",),
    models: str = "offline",
    answers: Path | None = None,
    max_runs: int | None = None,
    knowledge: Path | None = None,
    workdir: Path | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Every setup (each database × each number of processes): single runs, then each wave. `progress`
    gets the result so far after each setup (the CLI prints it and writes it, so a run cut short by a
    `timeout` keeps the setups it finished)."""
    if not http_api_available():
        return {"skipped": "POST /api/agent/stream is not served by this checkout"}
    if models not in ("offline", "remote"):
        raise ValueError(f"models is offline or remote, not {models!r}")
    knowledge = knowledge or await sample_store()
    remote = models == "remote"
    targets = SCALE_OUT_TARGETS if remote else TARGETS
    env: dict[str, Any] = {
        "STUDIO_OFFLINE_LATENCY_MS": llm_ms,
        "STUDIO_OFFLINE_IMAGE_LATENCY_MS": image_ms,
        "STUDIO_HITL_DEFAULT": "false",
    }
    if max_runs is not None:
        env["STUDIO_MAX_RUNS_PER_PROCESS"] = max_runs
    if remote:
        env["STUDIO_RENDER_WORKERS"] = 0  # nothing is drawn: no worker processes to keep idle
    server_kind = "`python -m bench.remote_models serve … -- serve`" if remote else "`studio serve`"
    result: dict[str, Any] = {
        "config": {
            "llmLatencyMs": llm_ms,
            "imageLatencyMs": image_ms,
            "images": images,
            "referenceImages": 0,
            "hitl": False,
            "models": models,
            "processes": list(processes),
            "maxRunsPerProcess": max_runs,
            "databases": list(databases),
            "server": f"{server_kind} processes (uvicorn, 1 worker each) on one data dir and database, "
            "clients round-robin over them from one asyncio process on the same machine",
        },
    }
    setups: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-conc-", dir=workdir)))
        if not remote:
            answers = None
        else:
            answers = answers or scratch / "answers.jsonl"
            if answers.exists():
                result["recording"] = {"reused": str(answers)}
            else:
                answers.parent.mkdir(parents=True, exist_ok=True)
                count = min(max([*clients, 1]), DISTINCT_REQUESTS)
                quiet = {**env, "STUDIO_OFFLINE_LATENCY_MS": 0, "STUDIO_OFFLINE_IMAGE_LATENCY_MS": 0}
                (scratch / "record").mkdir()
                result["recording"] = await record_answers(
                    answers, count, images=images, knowledge=knowledge, scratch=scratch / "record", env=quiet
                )
        cluster = None
        if "postgresql" in databases:
            from bench.pg import PostgresCluster, find_bindir, unavailable

            if (reason := unavailable()) is not None:
                raise RuntimeError(reason)
            bindir = find_bindir()
            assert bindir is not None
            cluster = stack.enter_context(PostgresCluster(bindir, prefix="bench-pg-"))
        for database in databases:
            for count in processes:
                name = f"{database}-{count}p"
                data = scratch / name / "data"
                setup_env = dict(env)
                if database == "postgresql":
                    assert cluster is not None
                    setup_env["STUDIO_DATABASE_URL"] = cluster.create_database("studio_bench")
                stats = [scratch / name / f"stats-{i}.json" for i in range(count)]
                servers = [
                    Server(
                        data,
                        knowledge,
                        setup_env,
                        entry=_remote_entry(answers, stats[i], record=False) if answers else ("app",),
                        name=f"{name}-{i}",
                    )
                    for i in range(count)
                ]
                db_pids = cluster.server_pids if cluster is not None and database == "postgresql" else None
                setup = Setup(servers, database, db_pids)
                started = time.perf_counter()
                with _started(servers):
                    measured = await measure_setup(
                        setup, clients=clients, images=images, singles=singles, targets=targets
                    )
                measured["elapsedS"] = round(time.perf_counter() - started, 1)
                if remote:
                    measured["answers"] = [_read_stats(path) for path in stats]
                setups.append(measured)
                if progress is not None:
                    progress({**result, "setups": setups, "partial": True})
    return {**result, "setups": setups}


def report(result: dict[str, Any], *, setups: bool = True) -> None:
    """The recording pass and (unless the CLI printed each as it finished) each setup's table."""
    if "skipped" in result:
        print(f"\nConcurrency: skipped — {result['skipped']}")
        return
    recording = result.get("recording")
    if recording and "runs" in recording:
        print(
            f"\nRecording pass: {recording['completed']}/{recording['runs']} runs in {recording['wallS']} s, "
            f"answers {recording.get('answers')}"
        )
    for setup in result["setups"] if setups else ():
        _report_setup(setup, result["config"]["models"])


def _report_setup(setup: dict[str, Any], models: str) -> None:
    single = setup["singleRun"]
    rows = [
        [
            1,
            "-",
            single["wallMs"]["p50"],
            1.0,
            f"{single['firstEventMs']['p50']} / {single['firstEventMs']['p95']}",
            f"{single['firstAgentEventMs'].get('p50')} / {single['firstAgentEventMs'].get('p95')}",
            f"{single['eventLagMs']['p50']} / {single['eventLagMs']['p95']}",
            " / ".join(str(mb) for mb in setup["serverRssIdleMbPerProcess"]),
            "",
        ]
    ]
    for wave in setup["waves"]:
        cpu = wave["cpuSeconds"]
        db = f" + db {cpu['database']}" if cpu["database"] is not None else ""
        rows.append(
            [
                wave["clients"],
                f"{wave['completed']}/{wave['clients']}",
                wave["wallMs"],
                wave["wallVsSingle"],
                f"{wave['firstEventMs'].get('p50')} / {wave['firstEventMs'].get('p95')}",
                f"{wave['firstAgentEventMs'].get('p50')} / {wave['firstAgentEventMs'].get('p95')}",
                f"{wave['eventLagMs'].get('p50')} / {wave['eventLagMs'].get('p95')}",
                " / ".join(str(mb) for mb in wave["serverRssPeakMbPerProcess"]),
                " + ".join(str(s) for s in cpu["studioPerProcess"]) + db + f" + client {cpu['client']}",
            ]
        )
    processes = setup["processes"]
    print_table(
        f"Concurrency over HTTP/SSE: {processes} process{'es' if processes > 1 else ''}, "
        f"{setup['database']}, {models} models",
        [
            "N",
            "completed",
            "wall ms",
            "× single",
            "first event p50/p95 ms",
            "first agent event p50/p95 ms",
            "lag p50/p95 ms",
            "RSS peak MB",
            "CPU s",
        ],
        rows,
    )
    met = setup["met"]
    if met:
        verdicts = ", ".join(f"{k} {'met' if ok else 'MISSED'}" for k, ok in met.items())
        print(f"  targets at N={setup['targets']['atClients']}: {verdicts}")
    for answers in setup.get("answers") or []:
        if answers and answers.get("misses"):
            print(f"  model answers not recorded (composed): {answers['misses']} ({answers['missedTasks']})")
    for wave in setup["waves"]:
        for failure in wave["failures"]:
            print(f"  N={wave['clients']} failure: {failure}")


def _stop_on_sigterm() -> None:
    """A `timeout` (SIGTERM) unwinds like Ctrl-C: servers and the PostgreSQL cluster are stopped."""

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--llm-ms", type=float, default=300)
    parser.add_argument("--image-ms", type=float, default=1500)
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--singles", type=int, default=3, help="single runs for the baseline wall time")
    parser.add_argument("--processes", type=int, nargs="+", choices=[1, 2], default=[1])
    parser.add_argument("--database", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite"])
    parser.add_argument("--models", choices=["offline", "remote"], default="offline")
    parser.add_argument("--answers", type=Path, default=None, help="remote models: the recorded answers")
    parser.add_argument(
        "--max-runs", type=int, default=None, help="STUDIO_MAX_RUNS_PER_PROCESS (default: the studio's)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    parser.add_argument("--name", default=None, help="results file name (default: concurrency[_remote])")
    args = parser.parse_args(argv)
    default_setup = args.models == "offline" and args.processes == [1] and args.database == ["sqlite"]
    name = args.name or ("concurrency" if default_setup else f"concurrency_{args.models}")
    _stop_on_sigterm()
    load = load_average()

    def progress(so_far: dict[str, Any]) -> None:
        _report_setup(so_far["setups"][-1], args.models)
        write_result(name, so_far, args.out, load_at_start=load)

    return run_benchmark(
        name,
        measure,
        partial(report, setups=False),
        args.out,
        clients=args.clients,
        llm_ms=args.llm_ms,
        image_ms=args.image_ms,
        images=args.images,
        singles=args.singles,
        processes=args.processes,
        databases=args.database,
        models=args.models,
        answers=args.answers,
        max_runs=args.max_runs,
        progress=progress,
    )


if __name__ == "__main__":
    main()
