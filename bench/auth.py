"""What authentication costs a request: the same small GET with no check, with an API token and with a
web session, through a real `studio serve` process.

    .venv/bin/python -m bench.auth [--requests 1000] [--concurrency 16]

Every request but `/healthz` passes `app.http.auth.Guard`: the Host check, then one indexed lookup of the
token's (or session cookie's) SHA-256 and its user. `GET /healthz` (no authentication) is the baseline;
`GET /api/me` with a Bearer token and with the `studio_session` cookie (logged in once through the login
form) adds the lookup and a tiny route. Sequential latency (p50 / p95, one keep-alive connection) and the
throughput of `concurrency` clients are reported per variant.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.common import RESULTS_DIR, ROOT, print_table, run_benchmark, sample_store
from bench.server import Server, auth_headers, http_api_available


async def _login(server: Server, http: httpx.AsyncClient) -> None:
    """Give the local admin a password and log `http` in through the form (a session cookie)."""
    password = "bench password 123"
    passwd = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app",
        "users",
        "passwd",
        "admin",
        "--password-stdin",
        "--data-dir",
        str(server.data_dir),
        cwd=ROOT,
        env=server.env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    await passwd.communicate((password + "\n").encode())
    assert passwd.returncode == 0, "studio users passwd failed"
    page = await http.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None, page.text[:500]
    done = await http.post("/login", data={"csrf": csrf[1], "name": "admin", "password": password})
    assert done.status_code == 303, done.text[:500]


async def _sequential(http: httpx.AsyncClient, path: str, n: int) -> list[float]:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        response = await http.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[:300]
    return times


async def _throughput(make: Any, path: str, n: int, concurrency: int) -> float:
    """Requests per second of `concurrency` clients sharing `n` requests."""

    async def worker(count: int) -> None:
        async with make() as http:
            for _ in range(count):
                assert (await http.get(path)).status_code == 200

    started = time.perf_counter()
    await asyncio.gather(*(worker(n // concurrency) for _ in range(concurrency)))
    return (n // concurrency * concurrency) / (time.perf_counter() - started)


def _stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50Ms": round(statistics.median(ordered), 3),
        "p95Ms": round(ordered[int(len(ordered) * 0.95) - 1], 3),
        "meanMs": round(statistics.fmean(ordered), 3),
    }


async def measure(
    *, requests: int = 1000, concurrency: int = 16, knowledge: Path | None = None, workdir: Path | None = None
) -> dict[str, Any]:
    if not http_api_available():
        return {"skipped": "this checkout has no HTTP API"}
    knowledge = knowledge or await sample_store()
    with (
        tempfile.TemporaryDirectory(prefix="bench-auth-", dir=workdir) as scratch,
        Server(Path(scratch) / "data", knowledge, {}) as server,
    ):
        token = auth_headers(server.data_dir)
        if not token:
            return {"skipped": "this checkout does not authenticate requests"}
        limits = httpx.Limits(max_connections=concurrency + 2)

        def plain() -> httpx.AsyncClient:
            return httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits)

        def bearer() -> httpx.AsyncClient:
            return httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits, headers=token)

        async with plain() as http:
            await _login(server, http)
            cookies = dict(http.cookies)

        def session() -> httpx.AsyncClient:
            return httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits, cookies=cookies)

        variants = {
            "none (/healthz)": (plain, "/healthz"),
            "token (/api/me)": (bearer, "/api/me"),
            "session (/api/me)": (session, "/api/me"),
        }
        rows: dict[str, dict[str, float]] = {}
        for name, (make, path) in variants.items():
            async with make() as http:
                await _sequential(http, path, 50)  # warm-up
                stats = _stats(await _sequential(http, path, requests))
            stats["requestsPerS"] = round(await _throughput(make, path, requests, concurrency), 1)
            rows[name] = stats
    base = rows["none (/healthz)"]["p50Ms"]
    return {
        "requests": requests,
        "concurrency": concurrency,
        "variants": rows,
        "tokenCostP50Ms": round(rows["token (/api/me)"]["p50Ms"] - base, 3),
        "sessionCostP50Ms": round(rows["session (/api/me)"]["p50Ms"] - base, 3),
    }


def report(result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"  skipped: {result['skipped']}")
        return
    print_table(
        f"A small GET, {result['requests']} sequential requests / {result['concurrency']} concurrent clients",
        ["authentication", "p50 ms", "p95 ms", "req/s"],
        [
            [name, f"{v['p50Ms']:.2f}", f"{v['p95Ms']:.2f}", f"{v['requestsPerS']:.0f}"]
            for name, v in result["variants"].items()
        ],
    )
    print(
        f"  cost over no check (p50): token {result['tokenCostP50Ms']:.2f} ms, "
        f"session {result['sessionCostP50Ms']:.2f} ms"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.auth", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "auth", measure, report, args.out, requests=args.requests, concurrency=args.concurrency
    )


if __name__ == "__main__":
    main()
