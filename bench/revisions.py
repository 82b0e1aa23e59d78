"""What a revision costs next to a full run: model calls (by task), pictures drawn, cache hits, wall time.

    .venv/bin/python -m bench.revisions [--posts 3] [--images 4]

In-process, offline model and renderer, HITL off. For each of `--posts` requests (across themes) a full run
makes version 1, then the same thread is revised in turn the way a creator would: a title-only change, one
picture in another colour, another reader, a one-click rewrite (shorter), a rewrite of one selected passage
and a full redo — each a revision run on the thread (`WorkflowRunner.prepare_revise`), each a new version.
Model calls are counted from each run's usage meter (answers from the call cache are counted apart); a
picture counts when its `image_progress` says `complete`. The review may send work back for another round,
so a revision's count includes the rounds it took.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.run import RunRequest, WorkflowRunner
from bench.common import RESULTS_DIR, print_table, run_benchmark, sample_store, studio, studio_settings

POSTS = (
    "帮我写一篇周末城市露营的小红书笔记，面向上班族",
    "写一篇杭州西湖一日游攻略，带父母慢慢逛",
    "分享一道适合新手的番茄牛腩做法",
    "推荐几本适合通勤路上读的小说",
)
REVISIONS: tuple[tuple[str, str], ...] = (
    ("标题", "标题里加上「新手必看」"),
    ("一张图", "第2张图换成蓝色调"),
    ("受众", "换成写给大学生"),
    ("一键改写（短一点）", "正文短一点"),
    ("选中改写", "更简洁"),
    ("整篇重做", "重写一篇"),
)


def _count(records: Sequence[Any], events: Sequence[dict[str, Any]], wall_ms: float) -> dict[str, Any]:
    calls = Counter(r.task for r in records if not r.cached)
    return {
        "modelCalls": sum(calls.values()),
        "byTask": dict(calls),
        "cacheHits": sum(1 for r in records if r.cached),
        "pictures": sum(1 for e in events if e["type"] == "image_progress" and e["status"] == "complete"),
        "wallMs": round(wall_ms, 1),
        "completed": bool(events) and events[-1]["type"] == "workflow_complete",
    }


async def _drain(runner: WorkflowRunner, handle: Any) -> tuple[list[dict[str, Any]], float]:
    started = time.perf_counter()
    events = [event async for event in runner.stream(handle)]
    return events, (time.perf_counter() - started) * 1000


def _passage(body: str) -> dict[str, Any]:
    """The longest paragraph of the body, as a selection."""
    chosen = max(body.split("\n\n"), key=len)
    start = body.index(chosen)
    return {"start": start, "end": start + len(chosen), "text": chosen, "instruction": "更简洁"}


async def measure(
    *, posts: int = 3, images: int = 4, knowledge: Path | None = None, workdir: Path | None = None
) -> dict[str, Any]:
    knowledge = knowledge or await sample_store()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-revisions-", dir=workdir) as scratch:
        async with studio(studio_settings(Path(scratch), knowledge)) as resources:
            runner = WorkflowRunner(resources)
            for message in POSTS[:posts]:
                started = time.perf_counter()
                asked = {"message": message, "imageCount": images, "enableHITL": False}
                first = RunRequest.model_validate(asked)
                handle = await runner.prepare_start(first)
                events = [event async for event in runner.stream(handle)]
                wall_ms = (time.perf_counter() - started) * 1000
                counted = _count(handle.meter.records, events, wall_ms)
                rows.append({"post": message, "kind": "完整创作", **counted})
                thread_id, body = handle.thread_id, str(events[-1].get("body") or "")
                for kind, text in REVISIONS:
                    request = RunRequest(message=text, thread_id=thread_id)
                    if kind == "选中改写":
                        revision = await runner.prepare_revise(
                            request, scope="text", source="selection_edit", span=_passage(body)
                        )
                    elif kind.startswith("一键改写"):
                        revision = await runner.prepare_revise(request, scope="text", source="quick_action")
                    else:
                        revision = await runner.prepare_revise(request)
                    events, wall_ms = await _drain(runner, revision)
                    body = str(events[-1].get("body") or body)
                    counted = _count(revision.meter.records, events, wall_ms)
                    rows.append({"post": message, "kind": kind, **counted})
    kinds = ["完整创作", *(k for k, _ in REVISIONS)]
    means = {}
    for kind in kinds:
        of = [r for r in rows if r["kind"] == kind]
        means[kind] = {
            "modelCalls": round(sum(r["modelCalls"] for r in of) / len(of), 2),
            "pictures": round(sum(r["pictures"] for r in of) / len(of), 2),
            "cacheHits": round(sum(r["cacheHits"] for r in of) / len(of), 2),
            "wallMs": round(sum(r["wallMs"] for r in of) / len(of), 1),
            "completed": all(r["completed"] for r in of),
            "tasks": sorted({t for r in of for t in r["byTask"]}),
        }
    return {"posts": posts, "images": images, "rows": rows, "means": means}


def report(result: dict[str, Any]) -> None:
    full = result["means"]["完整创作"]["modelCalls"] or 1
    size = f"{result['posts']} posts × {result['images']} pictures"
    title = f"Revision cost vs a full run (offline model, {size})"
    print_table(
        title,
        ["kind", "model calls", "vs full", "pictures", "cache hits", "wall ms", "agents' tasks"],
        [
            [kind, m["modelCalls"], f"{m['modelCalls'] / full:.0%}", m["pictures"], m["cacheHits"],
             m["wallMs"], " ".join(m["tasks"])]
            for kind, m in result["means"].items()
        ],
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.revisions", description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=3, help=f"requests to revise (1..{len(POSTS)})")
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "revisions", measure, report, args.out, posts=max(1, min(args.posts, len(POSTS))), images=args.images
    )


if __name__ == "__main__":
    main()
