"""For the HTTP benchmarks: `studio serve` as a separate process on a scratch data dir, and an SSE client
that stamps every event with the moment it arrived.

The server is the real CLI entry (`python -m app serve`), configured only through `STUDIO_*` variables
(the parent's own `STUDIO_*` variables are dropped, and it runs in the scratch dir so no `.env` is read).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()  # loaded here, never in a forked child (no dynamic loading between fork and exec)


def _die_with_parent() -> None:
    """In a server's child process before it runs: SIGTERM it when the benchmark dies (Linux), so a killed
    benchmark (a `timeout`) leaves no server behind."""
    if _LIBC is not None and hasattr(_LIBC, "prctl"):
        _LIBC.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name (field 3 on), [] when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds the processes `pids` have used (all their threads)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if len(fields) > 12:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of `pid` and its living child processes."""
    children = [
        int(stat.parent.name)
        for stat in Path("/proc").glob("[0-9]*/stat")
        if (fields := _stat_fields(int(stat.parent.name))) and int(fields[1]) == pid
    ]
    return cpu_seconds([pid, *children])


def wait_for_health(
    proc: subprocess.Popen[Any], url: str, timeout: float, log: Callable[[], str], every_s: float = 0.05
) -> None:
    """Poll `url`/healthz until it answers 200; RuntimeError (with the end of `log()`) if the process
    exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log()[-3000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(every_s)
    raise RuntimeError(f"the server did not answer /healthz in {timeout} s:\n{log()[-3000:]}")


def http_api_available() -> bool:
    """Whether this checkout serves `POST /api/agent/stream` and `POST /api/agent/confirm`."""
    from app.http.routes import agent

    paths = {getattr(route, "path", None) for route in agent.routes}
    return {"/api/agent/stream", "/api/agent/confirm"} <= paths


class Server:
    """`python -m app serve` on `data_dir` (whose store is a copy of `knowledge`), with `env` settings."""

    def __init__(
        self,
        data_dir: Path,
        knowledge: Path,
        env: dict[str, Any],
        *,
        entry: Sequence[str] = ("app",),
        name: str | None = None,
    ) -> None:
        """`entry`: the module to run and its arguments before `serve` (`python -m ENTRY… serve --host …`),
        e.g. a wrapper that changes something in the server's process first. `name`: the log file's, for
        several servers on one data dir."""
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        if not (data_dir / "lancedb").exists():
            shutil.copytree(knowledge, data_dir / "lancedb")
        self.entry = list(entry)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        base = {k: v for k, v in os.environ.items() if not k.startswith("STUDIO_")}
        # one benchmark client starts every run as the local admin: lift the per-user run limits
        unlimited = {"STUDIO_MAX_CONCURRENT_RUNS_PER_USER": "1000", "STUDIO_MAX_STARTS_PER_MINUTE": "10000"}
        self.env = {
            **base, **unlimited, "STUDIO_DATA_DIR": str(data_dir), **{k: str(v) for k, v in env.items()}
        }
        self.log_path = data_dir.parent / f"server-{name or data_dir.name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 180) -> float:
        """Spawn the server and wait for `/healthz`; the milliseconds that took."""
        started = time.perf_counter()
        env = self.env
        if self.entry[0] != "app":  # `bench` is no installed package: the child finds it from the checkout
            root = str(Path(__file__).resolve().parents[1])
            env = {**env, "PYTHONPATH": os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)}
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", *self.entry, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=env,
                cwd=self.data_dir.parent,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        wait_for_health(self.proc, self.url, timeout, self.log)
        return (time.perf_counter() - started) * 1000

    def stop(self) -> None:
        """Graceful stop (SIGTERM), SIGKILL after 20 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def memory_kb(self, field_name: str = "VmRSS") -> int:
        """A memory figure of the server process from /proc (VmRSS now, VmHWM the peak); 0 if unknown."""
        if self.proc is None:
            return 0
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="utf-8")
        except OSError:
            return 0
        for line in status.splitlines():
            if line.startswith(f"{field_name}:"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server and its child processes (render workers) have used so far."""
        return tree_cpu_seconds(self.proc.pid) if self.proc is not None else 0.0

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


@dataclass
class Stream:
    """One SSE response: its events with their arrival times (Unix ms) and how it ended."""

    sent_ms: float
    status: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    received_ms: list[float] = field(default_factory=list)
    done: bool = False  # the terminal `[DONE]` frame arrived
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.done and self.error is None

    @property
    def last_type(self) -> str | None:
        return self.events[-1]["type"] if self.events else None

    @property
    def first_event_ms(self) -> float | None:
        return self.received_ms[0] - self.sent_ms if self.received_ms else None

    def first_ms_of(self, kind: str) -> float | None:
        """Request sent → arrival of the first event of type `kind`."""
        for event, got in zip(self.events, self.received_ms, strict=True):
            if event["type"] == kind:
                return got - self.sent_ms
        return None

    @property
    def end_ms(self) -> float:
        return self.received_ms[-1] if self.received_ms else self.sent_ms

    def lags_ms(self) -> list[float]:
        """Delivery lag of each event: arrival minus the `timestamp` it was created with."""
        return [got - event["timestamp"] for event, got in zip(self.events, self.received_ms, strict=True)]

    def first(self, kind: str) -> dict[str, Any] | None:
        return next((e for e in self.events if e["type"] == kind), None)


async def post_sse(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> Stream:
    """POST `body` and read the SSE answer to its end; transport failures are recorded, not raised."""
    stream = Stream(sent_ms=time.time() * 1000)
    try:
        async with client.stream("POST", path, json=body) as response:
            stream.status = response.status_code
            if response.status_code != 200:
                stream.error = (await response.aread()).decode("utf-8", "replace")[:500]
                return stream
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # `id:` lines, `: keep-alive` comments, frame separators
                data = line[5:].strip()
                if data == "[DONE]":
                    stream.done = True
                    break
                stream.received_ms.append(time.time() * 1000)
                stream.events.append(json.loads(data))
    except (httpx.HTTPError, json.JSONDecodeError) as exc:
        stream.error = f"{type(exc).__name__}: {exc}"[:500]
    return stream


def auth_headers(data_dir: Path) -> dict[str, str]:
    """The local admin's token, which the server's first start writes into the data dir (a checkout from
    before accounts writes none and needs none)."""
    path = data_dir / "admin-token"
    return {"Authorization": f"Bearer {path.read_text().strip()}"} if path.exists() else {}


def client(server: Server, connections: int = 200) -> httpx.AsyncClient:
    """An async client for `server` that can hold `connections` streams open at once, as the local admin."""
    return httpx.AsyncClient(
        base_url=server.url,
        headers=auth_headers(server.data_dir),
        timeout=httpx.Timeout(600, connect=60),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )


async def sample_memory(server: Server, peak: list[int], stop: asyncio.Event, every_s: float = 0.1) -> None:
    """Keep the largest RSS (kB) seen in `peak[0]` until `stop` is set."""
    while not stop.is_set():
        peak[0] = max(peak[0], server.memory_kb())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
