"""`studio serve --workers 2`: two server processes on one port and one database serve every thread."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import httpx

from app.settings import Settings
from bench.server import free_port, wait_for_health
from tests.app.test_agent_server import REQUEST
from tests.serving import ROOT, admin_token, bearer, events_of


def workers_of(data_dir: os.PathLike[str]) -> list[tuple[int, int]]:
    """(pid, takes_runs) of the workers registered in the data dir's database."""
    with sqlite3.connect(f"{data_dir}/studio.db") as db:
        return list(db.execute("SELECT pid, takes_runs FROM run_workers WHERE stopping_at IS NULL"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_workers_share_a_port_and_every_thread(seeded_settings: Settings) -> None:
    data_dir = seeded_settings.data_dir
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (data_dir.parent / "workers.log").open("w", encoding="utf-8")
    parent = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--workers", "2", "--port", str(port)],
        env={**os.environ, "STUDIO_DATA_DIR": str(data_dir), "STUDIO_RUN_TICK_S": "0.2"},
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        wait_for_health(parent, url, 120, lambda: (data_dir.parent / "workers.log").read_text(), every_s=0.2)
        deadline = time.monotonic() + 60
        while len(workers_of(data_dir)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        pids = sorted(pid for pid, takes_runs in workers_of(data_dir) if takes_runs)
        assert len(pids) == 2 and parent.pid not in pids  # two servers, neither of them the parent

        with httpx.Client(base_url=url, headers=bearer(admin_token(data_dir)), timeout=120) as client:
            started = events_of(client.post(
                "/api/agent/stream", json={"message": REQUEST, "imageCount": 1, "enableHITL": True}
            ).text)
            assert started[-1]["type"] == "workflow_paused"
            thread_id = started[0]["threadId"]
            for _ in range(2):  # each confirm lands on either worker
                confirmed = events_of(client.post(
                    "/api/agent/confirm", json={"threadId": thread_id, "action": "approve"}
                ).text)
                assert confirmed[0]["seq"] == started[-1]["seq"] + 1
                started = confirmed
                if confirmed[-1]["type"] == "workflow_complete":
                    break
            assert started[-1]["type"] == "workflow_complete"
            whole = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
            assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))

        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=60) == 0
        assert not any(alive(pid) for pid in pids)  # the workers stopped with it
    finally:
        if parent.poll() is None:
            parent.kill()
        log.close()
