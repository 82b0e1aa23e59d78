"""Two `studio serve` processes on one data dir (one SQLite database): any process serves any thread.

Start on A and follow on B; confirm on B; cancel from B what A runs; kill -9 A mid-run and B takes the run
over; concurrent confirms across processes; a graceful stop of A hands its runs to B.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from app.settings import Settings
from tests.app.test_agent_server import REQUEST, SLOW, read_until, status_of
from tests.serving import ROOT, LiveServer, events_of, live_events_of

FAST_LEASES = {"STUDIO_RUN_LEASE_S": "10", "STUDIO_RUN_TICK_S": "0.2", "STUDIO_FOLLOW_POLL_S": "0.1"}
UNLIMITED = {"STUDIO_MAX_CONCURRENT_RUNS_PER_USER": "1000", "STUDIO_MAX_STARTS_PER_MINUTE": "10000"}


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def pair(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path
) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two servers on one database — the data dir's SQLite file, or a PostgreSQL database (the data dir
    then holds only the assets and the knowledge store, shared) —, for the whole module (a test that stops
    A starts it again)."""
    data_dir = tmp_path_factory.mktemp("two") / "data"
    shutil.copytree(knowledge_dir, data_dir / "lancedb")
    env = {**SLOW, **FAST_LEASES, **UNLIMITED, "STUDIO_HITL_DEFAULT": "false"}
    if request.param == "postgresql":
        env["STUDIO_DATABASE_URL"] = request.getfixturevalue("postgres").create_database()
    a = LiveServer(data_dir, env=env).start()
    b = LiveServer(data_dir, env=env)
    try:
        b.start()
        yield a, b
    finally:
        a.stop()
        b.stop()


def start_on(server: LiveServer, until: Any, **body: Any) -> tuple[str, list[dict[str, Any]]]:
    """Start a run on `server`, read its stream until `until(event)`, then drop the connection (the run
    goes on). The thread id and the events read."""
    with server.client() as client, client.stream(
        "POST", "/api/agent/stream", json={"message": REQUEST, "imageCount": 1, **body}
    ) as response:
        assert response.status_code == 200, response.read()
        seen = read_until(response, until)
    return seen[0]["threadId"], seen


def test_a_run_started_on_one_process_is_followed_on_the_other(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    thread_id, seen = start_on(a, lambda e: e["type"] == "brief_ready")
    with b.client() as client:
        rest = events_of(client.get(
            f"/api/agent/threads/{thread_id}/events", headers={"Last-Event-ID": str(seen[-1]["seq"])}
        ).text)
        assert rest[0]["seq"] == seen[-1]["seq"] + 1 and rest[-1]["type"] == "workflow_complete"
        whole = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
    assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))
    assert whole[len(seen):] == rest  # the live follow on B and the replay agree


def test_a_pause_on_one_process_is_confirmed_on_the_other(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    thread_id, seen = start_on(a, lambda e: e["type"] == "workflow_paused", enableHITL=True)
    with b.client() as client:
        inbox = client.get("/api/agent/inbox").json()["items"]
        assert [i["threadId"] for i in inbox] == [thread_id]
        assert inbox[0]["pending"]["interruptId"] == seen[-2]["interruptId"]
        resumed = client.post("/api/agent/confirm", json={"threadId": thread_id, "action": "approve"})
        assert resumed.status_code == 200, resumed.text
        events = events_of(resumed.text)
        assert events[0]["seq"] == seen[-1]["seq"] + 1
        assert events[-1]["type"] == "workflow_paused"  # the image plans' checkpoint, reached on B
    with a.client() as client:  # and A sees what B did
        assert status_of(client, thread_id)["status"] == "paused"
        assert client.get(f"/api/agent/threads/{thread_id}").json()["lastSeq"] == events[-1]["seq"]


def test_cancel_from_the_other_process_stops_the_run(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    thread_id, _ = start_on(a, lambda e: e["type"] == "brief_ready")
    with b.client() as client:
        cancelled = client.post(f"/api/agent/threads/{thread_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "aborted"
        events = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
    assert (events[-1]["type"], events[-1]["code"]) == ("error", "ABORTED")
    assert not any(e["type"] == "workflow_complete" for e in events)
    with a.client() as client:
        assert status_of(client, thread_id)["status"] == "aborted"


def test_kill_9_of_the_runner_hands_the_run_to_the_other(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    thread_id, seen = start_on(a, lambda e: e["type"] == "agent_start" and e["agent"] == "writer_agent")
    logged = len(b.log())
    a.kill()
    a.start()  # A comes back at once; the run is B's or A's, whoever's sweeper takes it first
    with b.client() as client:  # B's sweeper finds A's lease dead and continues the run
        events = events_of(client.get(f"/api/agent/threads/{thread_id}/events", timeout=120).text)
        assert events[-1]["type"] == "workflow_complete"
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert "brief_compiler_agent" not in [
            e["agent"] for e in events[len(seen):] if e["type"] == "agent_start"
        ]
        assert status_of(client, thread_id)["status"] == "completed"
    assert "continuing run" in b.log()[logged:] + a.log()


def test_concurrent_confirms_across_processes_have_one_winner_each(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a, b = pair
    with ThreadPoolExecutor(10) as pool:
        threads = list(pool.map(
            lambda _: start_on(a, lambda e: e["type"] == "workflow_paused", enableHITL=True)[0], range(20)
        ))

    def confirm(server: LiveServer, thread_id: str) -> int:
        with server.client() as client:
            body = {"threadId": thread_id, "action": "approve"}
            with client.stream("POST", "/api/agent/confirm", json=body) as response:
                return response.status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda job: confirm(*job), [(s, t) for t in threads for s in (a, b)]))
    for i, thread_id in enumerate(threads):
        assert sorted(codes[2 * i: 2 * i + 2]) == [200, 409], (thread_id, codes)


@pytest.mark.slow
def test_a_graceful_stop_hands_running_runs_to_the_peer(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    body = ""
    started = threading.Event()
    cut: list[BaseException] = []

    def watch() -> None:
        nonlocal body
        try:
            with a.client() as client, client.stream(
                "POST", "/api/agent/stream", json={"message": REQUEST, "imageCount": 1}
            ) as response:
                for chunk in response.iter_text():
                    body += chunk
                    if '"brief_ready"' in body:
                        started.set()
        except BaseException as exc:
            cut.append(exc)
        finally:
            started.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    assert started.wait(60)
    assert a.proc is not None
    a.proc.send_signal(signal.SIGTERM)
    assert a.proc.wait(timeout=30) in (0, -signal.SIGTERM)
    watcher.join(timeout=30)
    a.start()  # for the module's next tests
    assert not cut, cut
    last = live_events_of(body)[-1]  # then [DONE]
    assert last["type"] == "reconnect" and last["retryable"] and "seq" not in last
    assert last["lastSeq"] == events_of(body)[-1]["seq"]
    thread_id = last["threadId"]
    with b.client() as client:  # the peer continues it; nothing was recorded as interrupted
        rest = events_of(client.get(
            f"/api/agent/threads/{thread_id}/events", headers={"Last-Event-ID": str(last["lastSeq"])},
            timeout=120,
        ).text)
        assert rest[-1]["type"] == "workflow_complete"
        whole = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
    assert not any(e["type"] == "error" for e in whole)
    assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))
    assert json.dumps(whole[-1], ensure_ascii=False) == json.dumps(rest[-1], ensure_ascii=False)


def test_a_restart_leaves_the_other_processs_live_run_alone(pair: tuple[LiveServer, LiveServer]) -> None:
    """A server that restarts while another process runs a run sweeps at its start: the run's lease is
    live, so it is not touched (before leases, the restart recorded it INTERRUPTED under the live run)."""
    a, b = pair
    thread_id, _ = start_on(b, lambda e: e["type"] == "brief_ready")
    a.kill()
    logged = len(a.log())
    a.start()
    with a.client() as client:
        events = events_of(client.get(f"/api/agent/threads/{thread_id}/events", timeout=120).text)
    assert events[-1]["type"] == "workflow_complete"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert not any(e["type"] == "error" for e in events)
    assert "continuing run" not in a.log()[logged:]


def test_studio_run_and_a_restarting_server_on_one_data_dir(seeded_settings: Settings) -> None:
    """`studio run` works on a data dir while a server on it is killed and started again: the CLI's run
    holds a lease the server's sweeper respects, and ends complete with one unbroken log."""
    env = {**SLOW, **FAST_LEASES}
    server = LiveServer(seeded_settings.data_dir, env=env).start()
    cli = subprocess.Popen(
        [sys.executable, "-m", "app", "run", REQUEST, "--images", "1", "--no-hitl", "--json"],
        env={**server.env}, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert cli.stdout is not None
        lines = []
        for line in cli.stdout:
            lines.append(json.loads(line))
            if lines[-1].get("type") == "brief_ready":
                break
        server.kill()
        server.start()  # sweeps at start: the CLI's run is alive and leased
        out, err = cli.communicate(timeout=180)
        assert cli.returncode == 0, err[-2000:]
        lines += [json.loads(line) for line in out.splitlines() if line.strip()]
    finally:
        if cli.poll() is None:
            cli.kill()
        server.stop()
    events = [e for e in lines if "seq" in e]
    assert events[-1]["type"] == "workflow_complete"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert not any(e["type"] == "error" for e in events)
    assert "continuing run" not in server.log()
