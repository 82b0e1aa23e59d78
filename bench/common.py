"""What every benchmark shares: a studio on a scratch data dir, one in-process workflow run, statistics,
the machine description, the results table and the results JSON.

Nothing here is timed by tests: the smoke test (`tests/bench/`) runs each harness at a tiny scale and
checks the shape of what it writes, never how fast it was.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agents.run import Resources, RunRequest, WorkflowRunner
from app import migrate
from app.resources import open_resources
from app.settings import Settings
from tools.llm import CallRecord

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "bench" / "results"
CACHE_DIR = Path(tempfile.gettempdir()) / "studio-bench-cache"
REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
# Many users at once ask for different things: ten topics (one per theme of the sample corpus) for ten
# audiences, so no two of a hundred concurrent runs share a prompt (or anything cached from one).
TOPICS = [
    "周末城市露营",
    "一周减脂便当",
    "通勤胶囊衣橱",
    "新手在家练普拉提",
    "小户型收纳改造",
    "秋季敏感肌护理",
    "三天两晚成都旅行",
    "第一次养猫准备清单",
    "职场新人做周报",
    "周末亲子手工",
]
AUDIENCES = ["上班族", "大学生", "新手妈妈", "退休阿姨", "独居青年"]
AUDIENCES += ["程序员", "老师", "情侣", "学生党", "健身新手"]


def request_for(index: int) -> str:
    """The `index`-th of 100 distinct requests (then they repeat)."""
    topic, audience = TOPICS[index % len(TOPICS)], AUDIENCES[index // len(TOPICS) % len(AUDIENCES)]
    return f"帮我写一篇{topic}的小红书笔记，面向{audience}"


# --- statistics ----------------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(values: Sequence[float], digits: int = 1) -> dict[str, float]:
    """n, min, p50, p95, max and mean of `values`, rounded."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "min": round(min(values), digits),
        "p50": round(percentile(values, 50), digits),
        "p95": round(percentile(values, 95), digits),
        "max": round(max(values), digits),
        "mean": round(sum(values) / len(values), digits),
    }


# --- the machine ---------------------------------------------------------------------------------------
def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def machine() -> dict[str, Any]:
    """Where a result was measured: CPU, cores, memory, Python, commit, and the load when it started."""
    cpuinfo = _read("/proc/cpuinfo").splitlines()
    models = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
    cpu = models[0] if models else platform.processor() or platform.machine()
    mem_kb = next(
        (int(line.split()[1]) for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")),
        0,
    )
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memoryGb": round(mem_kb / 1024 / 1024, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "loadAverageAtEnd": load_average(),
    }


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages: other work on the machine skews every timing here."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def write_result(
    name: str, data: dict[str, Any], out_dir: Path = RESULTS_DIR, *, load_at_start: list[float] | None = None
) -> Path:
    """`<out_dir>/<name>.json` with the machine, the time of the measurement and the load around `data`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    document = {
        "benchmark": name,
        "measuredAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {**machine(), "loadAverageAtStart": load_at_start},
        **data,
    }
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def run_benchmark(
    name: str,
    measure: Callable[..., Coroutine[Any, Any, dict[str, Any]]],
    report: Callable[[dict[str, Any]], None],
    out_dir: Path,
    **options: Any,
) -> dict[str, Any]:
    """What every script's `main` does after parsing its options: measure, print the table, write
    `<out_dir>/<name>.json` with the load average at the start."""
    load = load_average()
    result: dict[str, Any] = asyncio.run(measure(**options))
    report(result)
    print(f"  → {write_result(name, result, out_dir, load_at_start=load)}")
    return result


def print_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """A plain fixed-width table on stdout."""
    cells = [[str(h) for h in headers], *([_cell(v) for v in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    print(f"\n{title}")
    for index, row in enumerate(cells):
        padded = (c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        print("  " + "  ".join(padded))
        if index == 0:
            print("  " + "  ".join("-" * w for w in widths))
    sys.stdout.flush()


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.0f}"
    return str(value)


# --- a studio on a scratch directory -------------------------------------------------------------------
async def sample_store(cache_dir: Path = CACHE_DIR) -> Path:
    """A LanceDB directory holding the shipped sample corpus and style library, built once and reused
    (embedding the corpus takes ~15 s); studios copy it, never write to it."""
    from app.cli.notes import seed_store
    from tools.knowledge import KnowledgeStore

    path = cache_dir / "sample-lancedb"
    marker = cache_dir / "sample-lancedb.ready"
    if not marker.exists():
        shutil.rmtree(path, ignore_errors=True)
        async with KnowledgeStore(path) as store:
            await seed_store(store)
        marker.touch()
    return path


def studio_settings(data_dir: Path, knowledge: Path, **overrides: Any) -> Settings:
    """Settings for a benchmark studio on `data_dir`, its store a copy of `knowledge`. HITL is off unless
    overridden; nothing is read from `.env`."""
    values: dict[str, Any] = {"hitl_default": False, **overrides}
    settings = Settings(_env_file=None, data_dir=data_dir, **values)
    settings.ensure_dirs()
    shutil.copytree(knowledge, settings.store_dir, dirs_exist_ok=True)
    return settings


@asynccontextmanager
async def studio(settings: Settings) -> AsyncIterator[Resources]:
    """Migrated database and open resources for `settings`; restores the process-wide offline model's
    defaults (no latency, no failures) afterwards."""
    from tools.offline import register_offline_provider

    await migrate.upgrade_async(settings.db_url)
    try:
        async with open_resources(settings) as resources:
            yield resources
    finally:
        register_offline_provider(latency_ms=0.0, failure_rate=0.0)


def reference_image() -> str:
    """A small PNG reference image (a data URL): a light background over a green band."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (600, 800), "#F2E6D8")
    ImageDraw.Draw(image).rectangle((0, 500, 600, 800), fill=(110, 140, 90))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@dataclass
class RunResult:
    """One workflow run driven in-process: its events (with their receipt times) and its model calls."""

    thread_id: str
    wall_ms: float
    events: list[dict[str, Any]]
    received_ms: list[float]  # Unix ms at which the consumer got each event
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def last_type(self) -> str:
        return str(self.events[-1]["type"]) if self.events else "none"

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


async def run_workflow(runner: WorkflowRunner, request: RunRequest) -> RunResult:
    """Start a run and drain its stream; the wall time covers validation, the run and every event stored."""
    started = time.perf_counter()
    handle = await runner.prepare_start(request)
    events: list[dict[str, Any]] = []
    received: list[float] = []
    async for event in runner.stream(handle):
        received.append(time.time() * 1000)
        events.append(event)
    wall_ms = (time.perf_counter() - started) * 1000
    return RunResult(handle.thread_id, wall_ms, events, received, list(handle.meter.records))


def full_post(image_count: int = 4, references: int = 0, *, hitl: bool = False) -> RunRequest:
    """The benchmark request: a full post with `image_count` images and `references` style references."""
    return RunRequest.model_validate(
        {
            "message": REQUEST,
            "imageCount": image_count,
            "enableHITL": hitl,
            "referenceImages": [{"data": reference_image(), "type": "style"}] * references,
        }
    )


def agent_windows_ms(events: Sequence[dict[str, Any]]) -> float:
    """How long at least one agent was running (the union of the agent_start..agent_end windows)."""
    opened: dict[str, float] = {}
    windows: list[tuple[float, float]] = []
    for event in events:
        if event["type"] == "agent_start" and event["agent"] != "supervisor":
            opened[event["agent"]] = event["timestamp"]
        elif event["type"] == "agent_end" and event["agent"] in opened:
            windows.append((opened.pop(event["agent"]), event["timestamp"]))
    covered = 0.0
    end = -math.inf
    for start, stop in sorted(windows):
        if stop <= end:
            continue
        covered += stop - max(start, end)
        end = stop
    return covered
