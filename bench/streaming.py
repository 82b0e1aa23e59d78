"""Streaming: how soon a creator sees the draft — from the writer's model call to the first body characters
at an SSE client, against the model's own first-token time.

    .venv/bin/python -m bench.streaming [--runs 20] [--concurrent 1 10] [--first-token-ms 500]
                                         [--chars-per-s 150]

One server process: `python -m bench.streaming serve`, which sets the offline model's streaming pace (its
first chunk `--first-token-ms` after a call starts, then `--chars-per-s`, 3 characters a chunk; every other
call as fast as it is composed) and then runs the ordinary `studio serve`. It also records, for each writer
call, when the model call started, when the model yielded its first chunk and its first chunks holding title
and body text (a JSON-lines trace; server and client share the machine's clock). A client on the same
machine makes `--runs` runs over HTTP for each `--concurrent` N, N at a time (full post, 1 image,
`enableHITL: false`, each run a different request), reads each SSE stream and stamps each `content_delta`
as it arrives; once a run's first `content_update` is in, the run is cancelled (what follows is not what
this measures). A warm-up run goes first.

Reported, in ms from the writer's model call (p50 / p95): the model's first token (`{"t`: JSON, nothing to
show), its first title token and its first body token; at the client, the first title characters, the first
body characters and the `content_update` (where the draft first appeared before it streamed); and the
client's delay behind the model — first title characters − first title token, first body characters − first
body token. Target (one run at a time): the first body characters at the client no later than the model's
first body token + 50 ms (p95). The body follows the title in the model's JSON, so its first token comes
after the title's; both delays are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import RESULTS_DIR, ROOT, print_table, request_for, run_benchmark, sample_store, summary
from bench.server import Server, client, http_api_available, wait_for_health

TARGET_DELAY_MS = 50.0
PACE_SETTINGS = ("STUDIO_OFFLINE_FIRST_TOKEN_MS", "STUDIO_OFFLINE_CHARS_PER_S")  # see docs/benchmarks.md


# --- the server side: a paced offline model and a trace of the writer's calls ----------------------------
def trace_writer_calls(path: Path) -> None:
    """Wrap the registered offline handler's `astreaming` to append one line per writer call to `path`:
    Unix ms of the call's start, its first chunk, its first chunks holding title and body text, its length
    in characters and its title."""
    from tools.llm import OFFLINE_PROVIDER, litellm_module, partial_json

    providers = litellm_module().custom_provider_map
    handler = next(p["custom_handler"] for p in providers if p.get("provider") == OFFLINE_PROVIDER)
    inner = handler.astreaming

    async def astreaming(*args: Any, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        metadata = (kwargs.get("litellm_params") or {}).get("metadata") or {}
        if metadata.get("task") != "writer":
            async for chunk in inner(*args, **kwargs):
                yield chunk
            return
        call: dict[str, Any] = {"startMs": time.time() * 1000, "firstTokenMs": None, "firstTitleMs": None,
                                "firstBodyMs": None}
        text = ""
        async for chunk in inner(*args, **kwargs):
            now = time.time() * 1000
            text += chunk.get("text") or ""
            if call["firstTokenMs"] is None and text:
                call["firstTokenMs"] = now
            if text and (call["firstTitleMs"] is None or call["firstBodyMs"] is None):
                so_far = partial_json(text) or {}
                for key, mark in (("title", "firstTitleMs"), ("body", "firstBodyMs")):
                    if call[mark] is None and so_far.get(key):
                        call[mark] = now
            yield chunk
        call["chars"] = len(text)
        call["title"] = str((partial_json(text) or {}).get("title") or "").strip()  # to find its run by
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(call) + "\n")

    handler.astreaming = astreaming


def serve(argv: Sequence[str]) -> None:
    """`python -m bench.streaming serve --first-token-ms F --chars-per-s R [--trace FILE] -- <serve args>`:
    the offline model at that pace (and the writer's calls traced), then the ordinary `studio serve`."""
    parser = argparse.ArgumentParser(prog="python -m bench.streaming serve")
    parser.add_argument("--first-token-ms", type=float, required=True)
    parser.add_argument("--chars-per-s", type=float, required=True)
    parser.add_argument("--trace", type=Path, default=None)
    args, rest = parser.parse_known_args(argv)
    # the settings' names, for when the studio reads them itself (then the gateway passes them on)
    pace = (str(args.first_token_ms), str(args.chars_per_s))
    os.environ.update(dict(zip(PACE_SETTINGS, pace, strict=True)))
    from app.cli.main import cli
    from tools.offline import register_offline_provider

    register_offline_provider(first_token_ms=args.first_token_ms, chars_per_s=args.chars_per_s)
    if args.trace is not None:
        trace_writer_calls(args.trace)
    cli([arg for arg in rest if arg != "--"] or ["serve"])


class PacedServer(Server):
    """`Server`, started through `serve` above: the offline model streams at the given pace."""

    def __init__(
        self,
        data_dir: Path,
        knowledge: Path,
        env: dict[str, Any],
        *,
        first_token_ms: float,
        chars_per_s: float,
    ) -> None:
        super().__init__(data_dir, knowledge, env)
        self.trace = data_dir.parent / f"writer-calls-{data_dir.name}.jsonl"
        self.pace = ["--first-token-ms", str(first_token_ms), "--chars-per-s", str(chars_per_s)]

    def start(self, timeout: float = 180) -> float:
        started = time.perf_counter()
        command = [sys.executable, "-m", "bench.streaming", "serve", *self.pace, "--trace", str(self.trace),
                   "--", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        # `bench` is not an installed package: the child finds it from the checkout
        path = os.pathsep.join(p for p in (str(ROOT), self.env.get("PYTHONPATH")) if p)
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                command, env={**self.env, "PYTHONPATH": path}, cwd=self.data_dir.parent, stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_for_health(self.proc, self.url, timeout, self.log)
        return (time.perf_counter() - started) * 1000

    def writer_calls(self) -> list[dict[str, Any]]:
        if not self.trace.exists():
            return []
        return [json.loads(line) for line in self.trace.read_text(encoding="utf-8").splitlines() if line]


# --- the client side ---------------------------------------------------------------------------------------
@dataclass
class DraftRun:
    """One run as the client saw it, up to its first content_update (Unix ms)."""

    sent_ms: float
    thread_id: str | None = None
    first_title_ms: float | None = None
    first_body_ms: float | None = None
    update_ms: float | None = None
    title: str | None = None  # the content_update's
    deltas: int = 0
    frames_without_id: int = 0
    error: str | None = None
    types: list[str] = field(default_factory=list)


async def draft_run(http: httpx.AsyncClient, body: dict[str, Any]) -> DraftRun:
    """Start a run, stamp its deltas, and cancel it once its first content_update is in; read to `[DONE]`."""
    run = DraftRun(sent_ms=time.time() * 1000)
    frame: dict[str, str] = {}
    try:
        async with http.stream("POST", "/api/agent/stream", json=body) as response:
            if response.status_code != 200:
                run.error = (await response.aread()).decode("utf-8", "replace")[:300]
                return run
            async for line in response.aiter_lines():
                if line:
                    if not line.startswith(":"):
                        name, _, value = line.partition(": ")
                        frame[name] = value
                    continue
                data, has_id, frame = frame.get("data"), "id" in frame, {}
                if data is None:
                    continue
                if data == "[DONE]":
                    break
                arrived = time.time() * 1000
                event = json.loads(data)
                run.types.append(event["type"])
                run.thread_id = run.thread_id or event.get("threadId")
                if event["type"] == "content_delta":
                    run.deltas += 1
                    run.frames_without_id += not has_id
                    if event["titleDelta"] and run.first_title_ms is None:
                        run.first_title_ms = arrived
                    if event["bodyDelta"] and run.first_body_ms is None:
                        run.first_body_ms = arrived
                elif event["type"] == "content_update" and run.update_ms is None:
                    run.update_ms, run.title = arrived, event["title"]
                    await http.post(f"/api/agent/threads/{run.thread_id}/cancel")
    except (httpx.HTTPError, json.JSONDecodeError) as exc:
        run.error = f"{type(exc).__name__}: {exc}"[:300]
    return run


def _since(value: float | None, start: float) -> float | None:
    return None if value is None else value - start


def pair(run: DraftRun, calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The run's timings from its writer call: the traced call that began within the run and wrote the
    title of its content_update (runs at once write different posts); each call serves one run."""
    if run.update_ms is None:
        return None
    call = next(
        (c for c in calls if not c.get("paired") and run.sent_ms <= c["startMs"] <= run.update_ms
         and c["title"] == (run.title or "").strip()),
        None,
    )
    if call is None or None in (call["firstTokenMs"], call["firstTitleMs"], call["firstBodyMs"]):
        return None
    call["paired"] = True
    start = call["startMs"]
    out = {
        "modelFirstToken": call["firstTokenMs"] - start,
        "modelFirstTitle": call["firstTitleMs"] - start,
        "modelFirstBody": call["firstBodyMs"] - start,
        "clientFirstTitle": _since(run.first_title_ms, start),
        "clientFirstBody": _since(run.first_body_ms, start),
        "clientContentUpdate": run.update_ms - start,
        "answerChars": call.get("chars"),
        "deltas": run.deltas,
    }
    if out["clientFirstTitle"] is not None:
        out["titleDelay"] = out["clientFirstTitle"] - out["modelFirstTitle"]
    if out["clientFirstBody"] is not None:
        out["bodyDelay"] = out["clientFirstBody"] - out["modelFirstBody"]
        out["bodyAfterFirstToken"] = out["clientFirstBody"] - out["modelFirstToken"]
    return out


async def measure(
    *,
    runs: int = 20,
    concurrency: Sequence[int] = (1, 10),
    first_token_ms: float = 500,
    chars_per_s: float = 150,
    warmup: int = 1,
    knowledge: Path | None = None,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """One paced server; after `warmup` runs, for each N of `concurrency`, `runs` runs N at a time (each a
    different request), each up to its first content_update."""
    if not http_api_available():
        return {"skipped": "POST /api/agent/stream is not served by this checkout"}
    knowledge = knowledge or await sample_store()

    def body(index: int) -> dict[str, Any]:
        return {"message": request_for(index), "imageCount": 1, "enableHITL": False}

    env = {"STUDIO_HITL_DEFAULT": "false"}
    measured: dict[int, list[DraftRun]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-streaming-", dir=workdir) as scratch:
        server = PacedServer(
            Path(scratch) / "data", knowledge, env, first_token_ms=first_token_ms, chars_per_s=chars_per_s
        )
        with server:
            async with client(server, connections=max(concurrency, default=1) + 4) as http:
                for index in range(warmup):
                    await draft_run(http, body(index))
                for n in concurrency:
                    measured[n] = []
                    for start in range(0, runs, n):
                        wave = range(start, min(start + n, runs))
                        measured[n] += await asyncio.gather(*(draft_run(http, body(i)) for i in wave))
            calls = server.writer_calls()
    scenarios = [scenario(n, done, calls) for n, done in measured.items()]
    first = scenarios[0] if scenarios else None
    return {
        "config": {
            "firstTokenMs": first_token_ms,
            "charsPerSecond": chars_per_s,
            "chunkChars": 3,
            "otherCallsMs": 0,
            "runs": runs,
            "images": 1,
            "hitl": False,
            "requests": "ten topics × ten audiences (bench.common.request_for), a different one per run",
            "server": "one `studio serve` process (uvicorn, 1 worker, via `python -m bench.streaming "
            "serve`), SQLite, client on the same machine",
        },
        "scenarios": scenarios,
        "target": {"firstBodyCharsAfterFirstBodyTokenP95Ms": TARGET_DELAY_MS, "atConcurrent": 1},
        "met": bool(first and first["concurrent"] == 1 and first["measured"] and first["metTarget"]),
    }


def scenario(concurrent: int, done: list[DraftRun], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The summaries of the runs made `concurrent` at a time."""
    rows = [row for run in done if (row := pair(run, calls)) is not None]

    def stat(key: str) -> dict[str, float]:
        return summary([r[key] for r in rows if r.get(key) is not None])

    body_delay = stat("bodyDelay")
    return {
        "concurrent": concurrent,
        "measured": len(rows),
        "failures": [r.error for r in done if r.error][:5],
        "unpaired": len(done) - len(rows),
        "allDeltasWithoutId": all(r.frames_without_id == r.deltas for r in done),
        "deltasPerDraft": summary([r["deltas"] for r in rows], digits=0),
        "answerChars": summary([r["answerChars"] for r in rows if r.get("answerChars")], digits=0),
        "fromWriterCallMs": {
            "modelFirstToken": stat("modelFirstToken"),
            "modelFirstTitleToken": stat("modelFirstTitle"),
            "modelFirstBodyToken": stat("modelFirstBody"),
            "clientFirstTitleChars": stat("clientFirstTitle"),
            "clientFirstBodyChars": stat("clientFirstBody"),
            "clientContentUpdate": stat("clientContentUpdate"),
        },
        "clientDelayMs": {
            "firstTitleCharsAfterFirstTitleToken": stat("titleDelay"),
            "firstBodyCharsAfterFirstBodyToken": body_delay,
            "firstBodyCharsAfterFirstToken": stat("bodyAfterFirstToken"),
        },
        "metTarget": bool(rows) and body_delay.get("p95", float("inf")) <= TARGET_DELAY_MS,
    }


def report(result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"\nStreaming: skipped — {result['skipped']}")
        return
    config = result["config"]

    def cell(s: dict[str, float]) -> str:
        return f"{s.get('p50')} / {s.get('p95')}" if s.get("n") else "-"

    lines = [
        ("model: first token", "fromWriterCallMs", "modelFirstToken"),
        ("model: first title token", "fromWriterCallMs", "modelFirstTitleToken"),
        ("model: first body token", "fromWriterCallMs", "modelFirstBodyToken"),
        ("client: first title characters", "fromWriterCallMs", "clientFirstTitleChars"),
        ("client: first body characters", "fromWriterCallMs", "clientFirstBodyChars"),
        ("client: content_update (whole draft)", "fromWriterCallMs", "clientContentUpdate"),
        ("delay: first title chars − first title token", "clientDelayMs",
         "firstTitleCharsAfterFirstTitleToken"),
        ("delay: first body chars − first body token", "clientDelayMs", "firstBodyCharsAfterFirstBodyToken"),
    ]
    scenarios = result["scenarios"]
    print_table(
        f"Streaming draft: first token {config['firstTokenMs']:.0f} ms, "
        f"{config['charsPerSecond']:.0f} chars/s, {config['runs']} runs per column (p50 / p95 ms)",
        ["from the writer's model call", *(f"{s['concurrent']} at a time" for s in scenarios)],
        [[name, *(cell(s[group][key]) for s in scenarios)] for name, group, key in lines],
    )
    verdict = "met" if result["met"] else "MISSED"
    print(f"  target (first body chars ≤ first body token + {TARGET_DELAY_MS:.0f} ms at p95, one at a time): "
          f"{verdict}")
    for s in scenarios:
        print(f"  {s['concurrent']} at a time: {s['measured']} measured, deltas per draft p50 "
              f"{s['deltasPerDraft'].get('p50')}, all without id: {s['allDeltasWithoutId']}")
        for failure in s["failures"]:
            print(f"    failure: {failure}")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.streaming", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="runs for each --concurrent")
    parser.add_argument("--concurrent", type=int, nargs="+", default=[1, 10], help="runs at a time")
    parser.add_argument("--first-token-ms", type=float, default=500)
    parser.add_argument("--chars-per-s", type=float, default=150)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "streaming",
        measure,
        report,
        args.out,
        runs=args.runs,
        concurrency=args.concurrent,
        first_token_ms=args.first_token_ms,
        chars_per_s=args.chars_per_s,
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2:])
    else:
        main(sys.argv[1:])
