"""`studio serve` as a real process: it prepares the data dir and answers /healthz."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.serving import ROOT, LiveServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "data").start()
    try:
        yield live
    finally:
        live.stop()


def test_serve_prepares_the_data_dir_says_so_and_answers_healthz(server: LiveServer, tmp_path: Path) -> None:
    response = httpx.get(f"{server.url}/healthz", timeout=5)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert (tmp_path / "data" / "studio.db").exists()
    assert any((tmp_path / "data" / "lancedb").iterdir())
    # its log says what it did, counted, then where it listens and where the data lives
    deadline = time.monotonic() + 10
    while "内容工坊已启动" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)  # the line follows the start-up the health check waited for
    log = server.log()
    assert f"已创建数据目录：{tmp_path / 'data'}" in log
    steps = len(list((ROOT / "migrations" / "versions").glob("0*.py")))
    assert f"✓ 数据库迁移（{steps}/{steps}" in log and "✓ 加载示例笔记（" in log  # the first start's steps
    ready = next(line for line in log.splitlines() if "内容工坊已启动" in line)
    assert f"http://127.0.0.1:{server.port}/" in ready and f"127.0.0.1:{server.port}" in ready
    assert f"数据目录：{tmp_path / 'data'}" in ready
    # a first start: the local admin, its token file, and a one-time login URL that leads into the studio
    assert "已创建本机管理员 admin" in log and str(tmp_path / "data" / "admin-token") in log
    link = re.search(r"一次性登录链接进入工作台：(http://\S+/login\?token=\S+)", log)
    assert link, log
    with httpx.Client(timeout=10) as browser:
        assert browser.get(f"{server.url}/", headers={"Accept": "text/html"}).status_code == 303
        assert link[1].startswith(f"{server.url}/login?token=")  # the host the server is used under
        entered = browser.get(link[1])
        assert entered.status_code == 303 and entered.headers["location"] == "/"
        assert browser.get(f"{server.url}/api/me").json() == {**browser.get(f"{server.url}/api/me").json(),
                                                              "name": "admin", "role": "admin"}
        assert browser.get(f"{server.url}/", headers={"Accept": "text/html"}).status_code == 200


def test_serving_freezes_the_start_up_heap_out_of_the_collector() -> None:
    # in a child process: the tuning is process-wide, and the test process keeps Python's defaults
    script = (
        "import gc\n"
        "from app.http.factory import tune_gc_for_serving\n"
        "before = gc.get_freeze_count()\n"
        "tune_gc_for_serving()\n"
        "print(before, gc.get_freeze_count() > 10_000, gc.get_threshold())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split(maxsplit=1) == ["0", "True (20000, 20, 20)\n"]
