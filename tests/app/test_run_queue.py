"""A per-process limit on runs (`STUDIO_MAX_RUNS_PER_PROCESS`): a start past it is queued — its stream says
so at once — and it starts when a run ends here, or on whichever process has room first."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from agents.run.manager import QUEUED_PHASE
from app.settings import Settings
from tests.app.test_agent_server import REQUEST, SLOW
from tests.app.test_two_processes import FAST_LEASES, UNLIMITED
from tests.serving import LiveServer, asgi_client, events_of


async def run(client: httpx.AsyncClient, message: str) -> list[dict[str, Any]]:
    response = await client.post(
        "/api/agent/stream", json={"message": message, "imageCount": 1, "enableHITL": False}
    )
    assert response.status_code == 200, response.text
    return events_of(response.text)


def queued(events: list[dict[str, Any]]) -> bool:
    return any(e["type"] == "workflow_progress" and e.get("phase") == QUEUED_PHASE for e in events)


async def test_past_the_limit_a_run_waits_its_turn_and_completes(seeded_settings: Settings) -> None:
    settings = seeded_settings.model_copy(update={"max_runs_per_process": 1, "run_tick_s": 0.2})
    messages = (REQUEST, "周末去杭州看银杏，写一篇攻略", "新手养猫要准备什么")
    async with asgi_client(settings) as client:
        runs = await asyncio.gather(*(run(client, message) for message in messages))
    assert all(events[-1]["type"] == "workflow_complete" for events in runs)
    assert sum(queued(events) for events in runs) == 2  # one ran at once, two waited
    for events in runs:
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    # one at a time: each run's agents start after the run before it has completed
    starts = sorted(min(e["timestamp"] for e in events if e["type"] == "agent_start") for events in runs)
    ends = sorted(events[-1]["timestamp"] for events in runs)
    assert starts[1] >= ends[0] and starts[2] >= ends[1]


def test_a_run_queued_on_a_busy_process_starts_on_one_with_room(seeded_settings: Settings) -> None:
    env = {**SLOW, **FAST_LEASES, **UNLIMITED, "STUDIO_HITL_DEFAULT": "false"}
    busy = LiveServer(seeded_settings.data_dir, env={**env, "STUDIO_MAX_RUNS_PER_PROCESS": "1"}).start()
    roomy = LiveServer(seeded_settings.data_dir, env=env).start()
    try:
        with busy.client() as client, client.stream(
            "POST", "/api/agent/stream", json={"message": REQUEST, "imageCount": 1}
        ) as first:  # keeps the busy process busy
            assert first.status_code == 200
            second = events_of(client.post(
                "/api/agent/stream", json={"message": "新手养猫要准备什么", "imageCount": 1}, timeout=120
            ).text)
            assert queued(second) and second[-1]["type"] == "workflow_complete"
        assert "starting queued run" in roomy.log()  # the process with room took it
    finally:
        busy.stop()
        roomy.stop()
