"""`studio serve --workers N`: N server processes on one listening socket and one database.

The parent binds the socket once and starts N `studio serve --fd <socket>` children that inherit it (the
kernel hands each new connection to one of them); the first one announces the address and the login link,
and is up before the others start, so a first start creates the local admin once. Any worker serves any
thread — runs are leased in the database (`agents/run/`) — so a connection may land anywhere. The parent
passes SIGTERM / Ctrl-C on to every worker (each stops gracefully, handing its runs to the workers still
up, the last one recording them INTERRUPTED), and starts again a worker that dies while the others serve.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve_workers(settings: Settings, host: str, port: int, workers: int) -> int:
    """Run `workers` server processes on `host:port` until a signal stops them; the exit code."""
    sock = bind(host, port)
    env = {**os.environ, "STUDIO_DATA_DIR": str(settings.data_dir)}
    stopping = False

    def spawn(index: int) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-m", "app", "serve", "--no-prepare", "--host", host, "--port", str(port),
            "--fd", str(sock.fileno()), *(["--quiet"] if index else []),
        ]
        return subprocess.Popen(command, env=env, cwd=ROOT, pass_fds=[sock.fileno()])

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT)

    children = [spawn(0)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    _wait_until_listening(host, port, children[0])
    children += [spawn(i) for i in range(1, workers)]
    born = [time.monotonic()] * workers
    failed = False
    while not all(child.poll() is not None for child in children):
        time.sleep(0.2)
        for i, child in enumerate(children):
            if stopping or child.poll() is None:
                continue
            if time.monotonic() - born[i] < 10:  # it cannot even start: stop them all
                failed = True
                stop(signal.SIGTERM, None)
                break
            children[i], born[i] = spawn(i), time.monotonic()  # died while the others serve: again
    sock.close()
    return 1 if failed else 0


def _wait_until_listening(host: str, port: int, first: subprocess.Popen[bytes], timeout: float = 120) -> None:
    """Until the first worker answers /healthz (it has migrated nothing: the parent prepared the data)."""
    import httpx

    from app.ports import local_url

    url = local_url(host, port) + "/healthz"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and first.poll() is None:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
