"""The agent API through a real `studio serve` process: kill -9 and restart, disconnects, resume — on each
backend (`backend_settings`: the data dir's SQLite file, or a PostgreSQL database the server is pointed at
with `database_env`)."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agents.events import parse_event
from app.settings import Settings
from tests.serving import LiveServer, database_env, events_of

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
SLOW = {"STUDIO_OFFLINE_LATENCY_MS": "150", "STUDIO_OFFLINE_IMAGE_LATENCY_MS": "300"}


def read_until(response: httpx.Response, stop: Any) -> list[dict[str, Any]]:
    """Read SSE events from a streaming response until `stop(event)` holds; returns them."""
    seen: list[dict[str, Any]] = []
    for line in response.iter_lines():
        if line.startswith("data: ") and line != "data: [DONE]":
            event = json.loads(line[len("data: "):])
            seen.append(event)
            if stop(event):
                break
    return seen


def status_of(client: httpx.Client, thread_id: str) -> dict[str, Any]:
    response = client.get(f"/api/agent/threads/{thread_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def approve(client: httpx.Client, thread_id: str) -> list[dict[str, Any]]:
    response = client.post("/api/agent/confirm", json={"threadId": thread_id, "action": "approve"})
    assert response.status_code == 200, response.text
    return events_of(response.text)


@pytest.fixture
def live_server(backend_settings: Settings) -> Iterator[LiveServer]:
    """tests/app/conftest.py's `live_server`, once per backend."""
    server = LiveServer(backend_settings.data_dir, env=database_env(backend_settings)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def slow_server(backend_settings: Settings) -> Iterator[LiveServer]:
    env = {**database_env(backend_settings), **SLOW, "STUDIO_HITL_DEFAULT": "false"}
    server = LiveServer(backend_settings.data_dir, env=env).start()
    try:
        yield server
    finally:
        server.stop()


def test_paused_run_survives_kill_9_and_completes_after_restart(live_server: LiveServer) -> None:
    with live_server.client() as client:
        started = client.post("/api/agent/stream", json={"message": REQUEST, "imageCount": 2})
        first = events_of(started.text)
        assert first[-1]["type"] == "workflow_paused"
        thread_id = first[0]["threadId"]
        second = approve(client, thread_id)
        assert second[-2]["context"]["kind"] == "image_plans"

    live_server.kill()
    live_server.start()  # same data dir, new process

    with live_server.client() as client:
        assert status_of(client, thread_id)["status"] == "paused"
        assert [i["threadId"] for i in client.get("/api/agent/inbox").json()["items"]] == [thread_id]
        third = approve(client, thread_id)
        done = third[-1]
        assert done["type"] == "workflow_complete" and len(done["imageAssetIds"]) == 2
        events = first + second + third
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        for event in events:
            parse_event(event)
        assert status_of(client, thread_id)["status"] == "completed"
        for asset_id in done["imageAssetIds"]:
            image = client.get(f"/api/assets/{asset_id}")
            assert image.status_code == 200 and image.headers["content-type"] == "image/png"
            assert image.content.startswith(b"\x89PNG")


def test_run_killed_mid_flight_is_continued_by_the_next_start(slow_server: LiveServer) -> None:
    """kill -9 mid-run: the next start finds the run's lease dead (its process is gone) and continues the
    run from its last checkpoint with no client call; a follower sees one unbroken log."""
    with slow_server.client() as client, client.stream(
        "POST", "/api/agent/stream", json={"message": REQUEST, "imageCount": 2}
    ) as response:
        seen = read_until(response, lambda e: e["type"] == "agent_start" and e["agent"] == "writer_agent")
        thread_id = seen[0]["threadId"]
        slow_server.kill()

    slow_server.start()
    with slow_server.client() as client:
        assert status_of(client, thread_id)["status"] in ("running", "completed")  # never left as it was
        events = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[-1]["type"] == "workflow_complete"
        assert not any(e["type"] == "error" for e in events)
        after_kill = events[len(seen):]
        started = [e["agent"] for e in after_kill if e["type"] == "agent_start"]
        assert "brief_compiler_agent" not in started  # continued from the checkpoint, not from scratch
        assert status_of(client, thread_id)["status"] == "completed"
        again = client.post(f"/api/agent/threads/{thread_id}/resume")
        assert again.status_code == 409


# The two disconnect tests run on SQLite only: what they check is the on-disconnect policy of the process
# that runs the run, the same whatever the database; the replay and cancel they lean on run on PostgreSQL in
# test_agent_api.py and test_two_processes.py. (On PostgreSQL they pass too, for ~30 s more.)
@pytest.mark.parametrize("backend", ["sqlite"])
def test_disconnecting_client_does_not_stop_the_run_by_default(slow_server: LiveServer) -> None:
    with slow_server.client() as client:
        body = {"message": REQUEST, "imageCount": 1}
        with client.stream("POST", "/api/agent/stream", json=body) as response:
            seen = read_until(response, lambda e: e["type"] == "brief_ready")
        thread_id = seen[0]["threadId"]
        # follow the rest from where the dropped connection stopped: nothing missing, nothing twice
        rest = events_of(
            client.get(
                f"/api/agent/threads/{thread_id}/events", headers={"Last-Event-ID": str(seen[-1]["seq"])}
            ).text
        )
        assert rest[0]["seq"] == seen[-1]["seq"] + 1 and rest[-1]["type"] == "workflow_complete"
        assert status_of(client, thread_id)["status"] == "completed"


@pytest.mark.parametrize("backend", ["sqlite"])
def test_disconnecting_client_aborts_the_run_with_the_abort_setting(backend_settings: Settings) -> None:
    server = LiveServer(
        backend_settings.data_dir,
        env={**database_env(backend_settings), **SLOW, "STUDIO_HITL_DEFAULT": "false",
             "STUDIO_ON_DISCONNECT": "abort"},
    ).start()
    try:
        with server.client() as client:
            with client.stream("POST", "/api/agent/stream", json={"message": REQUEST}) as response:
                seen = read_until(response, lambda e: e["type"] == "brief_ready")
            thread_id = seen[0]["threadId"]
            rest = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
            assert rest[-1]["type"] == "error" and rest[-1]["code"] == "ABORTED"
            assert not any(e["type"] == "workflow_complete" for e in rest)
            assert status_of(client, thread_id)["status"] == "aborted"
    finally:
        server.stop()


@pytest.mark.slow
def test_sigterm_ends_every_open_stream_with_interrupted_and_done(slow_server: LiveServer) -> None:
    """A graceful stop with runs streaming: every client — the ones that started a run and one following a
    run by replay — gets the final `error` INTERRUPTED (retryable) and `[DONE]` before the process exits, and
    the runs continue after the restart."""
    count = 4
    bodies: list[str] = [""] * (count + 1)
    cut: list[BaseException | None] = [None] * (count + 1)
    threads: list[str] = [""] * count
    in_flight = [threading.Event() for _ in range(count + 1)]

    def watch(slot: int, method: str, path: str, body: dict[str, Any] | None = None) -> None:
        try:
            with slow_server.client(timeout=60) as client, client.stream(method, path, json=body) as response:
                assert response.status_code == 200, response.read()
                for chunk in response.iter_text():
                    bodies[slot] += chunk
                    if slot < count and not threads[slot] and '"threadId": "' in bodies[slot]:
                        threads[slot] = bodies[slot].split('"threadId": "', 1)[1].split('"', 1)[0]
                    if '"brief_ready"' in bodies[slot] or (slot == count and "data: " in bodies[slot]):
                        in_flight[slot].set()
        except BaseException as exc:  # a cut-off stream: httpx.RemoteProtocolError
            cut[slot] = exc
        finally:
            in_flight[slot].set()

    start = {"message": REQUEST, "imageCount": 2}
    workers = [
        threading.Thread(target=watch, args=(i, "POST", "/api/agent/stream", start)) for i in range(count)
    ]
    for worker in workers:
        worker.start()
    assert all(event.wait(60) for event in in_flight[:count])
    assert all(threads), bodies
    follower = threading.Thread(target=watch, args=(count, "GET", f"/api/agent/threads/{threads[0]}/events"))
    follower.start()
    assert in_flight[count].wait(30)
    workers.append(follower)

    assert slow_server.proc is not None
    slow_server.proc.send_signal(signal.SIGTERM)
    assert slow_server.proc.wait(timeout=30) in (0, -signal.SIGTERM)  # uvicorn re-raises it once stopped
    for worker in workers:
        worker.join(timeout=30)
    log = slow_server.log()
    assert "timeout graceful shutdown exceeded" not in log
    for slot, body in enumerate(bodies):
        assert cut[slot] is None, (slot, repr(cut[slot]), body[-300:])
        events = events_of(body)  # every frame valid, exactly one [DONE], last
        last = events[-1]
        assert (last["type"], last["code"], last["retryable"]) == ("error", "INTERRUPTED", True), (slot, last)
        assert not any(e["type"] == "workflow_complete" for e in events)

    slow_server.start()
    with slow_server.client() as client:
        last_seq = {}
        for thread_id in threads:
            assert status_of(client, thread_id)["status"] == "failed"
            stored = events_of(client.get(f"/api/agent/threads/{thread_id}/events").text)
            assert [e["code"] for e in stored if e["type"] == "error"] == ["INTERRUPTED"]  # recorded once
            last_seq[thread_id] = stored[-1]["seq"]
        # resumable from its last checkpoint, to the end
        resumed = events_of(client.post(f"/api/agent/threads/{threads[0]}/resume", timeout=120).text)
        assert resumed[0]["seq"] == last_seq[threads[0]] + 1
        assert resumed[-1]["type"] == "workflow_complete"
        assert "brief_compiler_agent" not in [e["agent"] for e in resumed if e["type"] == "agent_start"]
        assert status_of(client, threads[0])["status"] == "completed"
        assert client.post(f"/api/agent/threads/{threads[0]}/resume").status_code == 409
