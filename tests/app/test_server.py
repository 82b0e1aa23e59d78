"""`studio serve` as a real process: it prepares the data dir and answers /healthz."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "STUDIO_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"server exited early:\n{proc.stdout.read() if proc.stdout else ''}")
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.communicate(timeout=15)  # reaps the process and closes its pipe


def test_serve_answers_healthz_and_prepared_the_data_dir(server: str, tmp_path: Path) -> None:
    response = httpx.get(f"{server}/healthz", timeout=5)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert (tmp_path / "data" / "studio.db").exists()
    assert any((tmp_path / "data" / "lancedb").iterdir())


def test_serving_freezes_the_start_up_heap_out_of_the_collector() -> None:
    # in a child process: the tuning is process-wide, and the test process keeps Python's defaults
    script = (
        "import gc\n"
        "from app.factory import tune_gc_for_serving\n"
        "before = gc.get_freeze_count()\n"
        "tune_gc_for_serving()\n"
        "print(before, gc.get_freeze_count() > 10_000, gc.get_threshold())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split(maxsplit=1) == ["0", "True (20000, 20, 20)\n"]
