"""Models that cost the studio no CPU, as remote models: pure simulated latency for text and images.

    python -m bench.remote_models serve --answers FILE (--record | --replay) [--stats FILE] -- serve …

runs the ordinary `studio serve` (the arguments after `--`) with two things of the offline models replaced in
its process — nothing else of the studio changes:

- **Text.** The offline model (`studio/offline`, a litellm custom provider) still answers every call through
  litellm, with the configured `STUDIO_OFFLINE_LATENCY_MS` as each call's whole duration and the writer's
  draft streamed in chunks, but its composers (jieba, templates: 30–40 ms of the event loop per run, the
  *model's* work) no longer run in the studio. With `--record` they do, and every answer is appended to
  FILE under a key of the call (its task and messages); with `--replay` the answer is looked up under that
  key, which costs one JSON dump and one SHA-256 of the prompt (~0.1 ms) — what remains of the call in the
  studio (litellm's bookkeeping, the gateway's parsing and validation, the streamed chunks) is what a remote
  model costs it too. The only run-specific part of any prompt is the asset ids the review prompt lists, so
  the key has them masked. A call whose key was not recorded is composed as before and counted as a miss.
- **Images.** The offline image provider waits `STUDIO_OFFLINE_IMAGE_LATENCY_MS` and returns a flat PNG of
  the requested size, encoded once per size at the first call; each call's bytes get a tEXt chunk of their
  own, so every picture is a distinct asset file, as a remote model's would be. Nothing is drawn: neither
  the card (the offline model's work) nor the overlay the studio draws on a real image model's picture
  (`tools.images.LiteLLMImageProvider`, ~25 ms a card in a render worker) — this mode measures the studio's
  orchestration alone.

Why a replay in the server rather than a fake OpenAI-compatible HTTP server with canned answers: canned
answers that do not fit the request fail the critic's deterministic checks (a camping draft for a lunch-box
request is "off topic"), so runs would loop through review rounds; answers that fit must be composed for each
request, and a fake server composing them would spend the same CPU on the same two cores. Recording them
once, before anything is measured, and replaying them keeps every run's path what it is with the offline
model (same calls, same review verdicts) at no model CPU. The recording pass is the benchmark's own
(`bench.concurrency --models remote`), on a scratch data dir.

With `--stats FILE` the process writes its hits and misses there as JSON when it exits.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import hashlib
import io
import itertools
import json
import re
import signal
import struct
import sys
import zlib
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

AnswerFn = Callable[[str, list[dict[str, Any]], dict[str, Any] | None], str]
_ASSET_ID = re.compile(r'(\\*"assetId\\*"): \d+')  # in a prompt's JSON, itself in the messages' JSON


def answer_key(task: str, messages: list[dict[str, Any]]) -> str:
    """The replay key of a model call: its task and messages, the asset ids the review lists masked."""
    text = json.dumps([task, messages], ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(_ASSET_ID.sub(r"\1: 0", text).encode()).hexdigest()


class Answers:
    """The recorded answers (key → content), appended to `path` as JSON lines when recording."""

    def __init__(self, path: Path, *, record: bool) -> None:
        self.path = path
        self.record = record
        self.hits = 0
        self.misses: list[str] = []  # tasks of the calls composed while replaying
        self.recorded = 0
        self.answers: dict[str, str] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line:
                    row = json.loads(line)
                    self.answers[row["key"]] = row["content"]

    def wrap(self, compose: AnswerFn) -> AnswerFn:
        def answer(task: str, messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> str:
            key = answer_key(task, messages)
            if not self.record and (known := self.answers.get(key)) is not None:
                self.hits += 1
                return known
            content = compose(task, messages, schema)
            if self.record:
                if key not in self.answers:
                    self.answers[key] = content
                    self.recorded += 1
                    row = {"key": key, "task": task, "content": content}
                    with self.path.open("a", encoding="utf-8") as out:
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
            else:
                self.misses.append(task)
            return content

        return answer

    def stats(self) -> dict[str, Any]:
        return {
            "mode": "record" if self.record else "replay",
            "known": len(self.answers),
            "recorded": self.recorded,
            "hits": self.hits,
            "misses": len(self.misses),
            "missedTasks": sorted(set(self.misses)),
        }


# --- images: a flat PNG per size, a distinct file per call ------------------------------------------------
_serial = itertools.count(1)


@cache
def flat_png(width: int, height: int) -> bytes:
    """A flat PNG of `width`×`height` (encoded once per size: a few KB)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (236, 226, 212)).save(buffer, "PNG")
    return buffer.getvalue()


def distinct_png(width: int, height: int, label: str) -> bytes:
    """`flat_png` with a tEXt chunk holding `label` before its IEND: the same picture, other bytes."""
    data = flat_png(width, height)
    body = b"Comment\0" + label.encode("ascii", "replace")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    return data[:-12] + chunk + data[-12:]  # IEND is the last 12 bytes


def install(answers: Answers) -> None:
    """Replace the offline models' work in this process (see the module docstring)."""
    import time

    from tools import images
    from tools.offline import provider

    make_handler = provider._make_handler

    def make(config: provider.OfflineLLM) -> Any:
        handler = make_handler(config)
        handler._answer = answers.wrap(handler._answer)
        return handler

    provider._make_handler = make

    async def generate(
        self: images.OfflineImageProvider, request: images.ImageRequest
    ) -> images.GeneratedImage:
        started = time.perf_counter()
        label = f"{request.role}-{request.index}-{next(_serial)}"
        data = distinct_png(request.width, request.height, label)
        remaining = self._latency_s - (time.perf_counter() - started)
        if remaining > 0:
            await asyncio.sleep(remaining)
        return images.GeneratedImage(
            data=data, mime="image/png", width=request.width, height=request.height, provider=self.name
        )

    images.OfflineImageProvider.generate = generate  # type: ignore[method-assign]


def serve(argv: Sequence[str]) -> None:
    """`python -m bench.remote_models serve --answers FILE (--record | --replay) [--stats FILE] -- <studio
    args>`: the replaced models, then the ordinary studio CLI."""
    parser = argparse.ArgumentParser(prog="python -m bench.remote_models serve")
    parser.add_argument("--answers", type=Path, required=True)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", action="store_true")
    mode.add_argument("--replay", action="store_true")
    parser.add_argument("--stats", type=Path, default=None)
    args, rest = parser.parse_known_args(argv)
    answers = Answers(args.answers, record=args.record)
    install(answers)
    if args.stats is not None:
        stats_path: Path = args.stats
        atexit.register(lambda: stats_path.write_text(json.dumps(answers.stats()), encoding="utf-8"))
        # uvicorn stops on SIGTERM, then raises the signal again once the server is down: exit through
        # Python then, so the stats are written, rather than by the default handler
        signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    from app.cli.main import cli

    cli([arg for arg in rest if arg != "--"] or ["serve"])


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"]:
        sys.exit("usage: python -m bench.remote_models serve --answers FILE (--record | --replay) -- serve …")
    serve(sys.argv[2:])
