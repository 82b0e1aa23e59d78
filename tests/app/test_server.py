"""`studio serve` as a real process: it prepares the data dir and answers /healthz."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.serving import LiveServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    live = LiveServer(tmp_path / "data").start()
    try:
        yield live.url
    finally:
        live.stop()


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
