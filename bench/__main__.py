"""Run every benchmark (or the named ones) with its defaults: `python -m bench [--wait-load X] [name ...]`.

Each prints its table and writes `bench/results/<name>.json`; `make bench` runs them all (~10–12 minutes
on 2 cores). With `--wait-load X` each benchmark first waits (up to 15 minutes) until the machine's
1-minute load average is below X, so other work on a shared machine skews the timings less. See
docs/benchmarks.md for what each measures and the numbers of the last run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench import auth, concurrency, critical_path, overhead, quality, resume, retrieval, revisions, streaming

BENCHMARKS: dict[str, Callable[[Sequence[str] | None], dict[str, Any]]] = {
    "critical_path": critical_path.main,
    "overhead": overhead.main,
    "concurrency": concurrency.main,
    "resume": resume.main,
    "streaming": streaming.main,
    "auth": auth.main,
    "retrieval": retrieval.main,
    "quality": quality.main,
    "revisions": revisions.main,
}


def wait_for_quiet(max_load: float, timeout_s: float = 900) -> None:
    """Block until the 1-minute load average is below `max_load`, or `timeout_s` has passed."""
    deadline = time.monotonic() + timeout_s
    while (load := os.getloadavg()[0]) >= max_load and time.monotonic() < deadline:
        print(f"  waiting for the machine to quieten (load {load:.2f} ≥ {max_load})", flush=True)
        time.sleep(15)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run the benchmarks.")
    parser.add_argument("names", nargs="*", metavar="name", help=f"any of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--wait-load", type=float, default=None, help="wait until the load average is below")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    for name in args.names or list(BENCHMARKS):
        if args.wait_load is not None:
            wait_for_quiet(args.wait_load)
        started = time.perf_counter()
        print(f"\n=== {name} ===", flush=True)
        BENCHMARKS[name]([])
        print(f"  ({name}: {time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
