"""Multi-turn revision through the ASGI app, on each backend: a new message on a finished thread runs only
what it asks for — a title change runs the writer and the review and keeps the pictures; a change to a
picture redoes the image plans and pictures and keeps the text — and each ends with a new version. A
message to a paused thread is a 409."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from agents.image_planner import asked_palette
from agents.revision import pictures_named, revision_input, scope
from app.settings import Settings
from tests.serving import asgi_client, events_of, stream_run

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


def agents_of(events: list[dict[str, Any]]) -> set[str]:
    return {e["agent"] for e in events if e["type"] == "agent_start"}


async def test_a_revision_runs_only_what_the_message_asks(api: httpx.AsyncClient) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 2, "enableHITL": False})
    thread_id, done = first[0]["threadId"], first[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 1

    titled = await stream_run(api, {"threadId": thread_id, "message": "标题里加上「新手必看」"})
    assert titled[0]["type"] == "workflow_progress" and titled[0]["phase"] == "修订：修改文案"
    assert agents_of(titled) == {"supervisor", "writer_agent", "review_agent"}
    second = titled[-1]
    assert second["type"] == "workflow_complete" and second["version"] == 2
    assert "新手必看" in second["title"] and second["title"] != done["title"]
    assert second["imageAssetIds"] == done["imageAssetIds"]  # the picture is kept
    assert second["creativeId"] == done["creativeId"]

    recoloured = await stream_run(api, {"threadId": thread_id, "message": "第2张图换成蓝色调"})
    assert recoloured[0]["phase"] == "修订：重做配图"
    assert {"image_planner_agent", "image_agent", "review_agent"} <= agents_of(recoloured)
    assert "writer_agent" not in agents_of(recoloured)
    third = recoloured[-1]
    assert third["type"] == "workflow_complete" and third["version"] == 3
    assert third["title"] == second["title"]
    kept, redrawn = third["imageAssetIds"]  # only the picture it names is drawn again, in blue
    assert kept == second["imageAssetIds"][0] and redrawn != second["imageAssetIds"][1]
    versions = f"/api/creatives/{done['creativeId']}/versions"
    plans = (await api.get(f"{versions}/3")).json()["version"]["imagePlans"]
    before = (await api.get(f"{versions}/2")).json()["version"]["imagePlans"]
    assert plans[0] == before[0] and plans[1]["palette"] == asked_palette("蓝色调") != before[1]["palette"]

    versions = (await api.get(f"/api/creatives/{done['creativeId']}/versions")).json()
    assert [(v["number"], v["source"], v["basedOn"]) for v in versions["items"]] == [
        (1, "run", None), (2, "run", 1), (3, "run", 2)
    ]
    thread = (await api.get(f"/api/agent/threads/{thread_id}")).json()
    assert thread["status"] == "completed"


async def test_a_message_to_a_paused_thread_is_busy(api: httpx.AsyncClient) -> None:
    paused = await stream_run(api, {"message": REQUEST, "imageCount": 1})
    assert paused[-1]["type"] == "workflow_paused"
    body = {"threadId": paused[0]["threadId"], "message": "标题短一点"}
    busy = await api.post("/api/agent/stream", json=body)
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "THREAD_BUSY"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("标题里加上「新手必看」", "text"),
        ("正文短一点，语气活泼些", "text"),
        ("换成写给大学生", "text"),
        ("第2张图换成蓝色", "images"),
        ("封面配色太暗了", "images"),
        ("第2张图重做一下", "images"),
        ("重写一篇，换成秋天露营", "full"),
        ("换个主题，写城市骑行", "full"),
    ],
)
def test_the_scope_of_a_revision(message: str, expected: str) -> None:
    assert scope(message) == expected


def test_a_text_revision_keeps_the_pictures_and_counts_its_own_review_rounds() -> None:
    values = {"qualityHistory": [{"round": 1}, {"round": 2}], "writerNotes": ["短一点"], "iterationCount": 17}
    update = revision_input(values, "标题里加上「新手必看」", "text")
    assert update["contentComplete"] is False and update["reviewComplete"] is False
    assert "imagesComplete" not in update and update["imagesKept"] is True
    assert update["userFeedback"] == {"writer_agent": "标题里加上「新手必看」"}
    assert update["writerNotes"] == ["短一点", "标题里加上「新手必看」"]
    assert update["revisionFrom"] == 2 and update["iterationCount"] == 0 and update["done"] is False
    full = revision_input(values, "重写一篇，换成秋天露营", "full")
    assert full["userFeedback"]["writer_agent"] == "换成秋天露营" and full["briefComplete"] is False


async def test_one_click_rewrites_make_versions_that_say_so(api: httpx.AsyncClient) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False})
    thread_id, done = first[0]["threadId"], first[-1]
    path = f"/api/agent/threads/{thread_id}/rewrite"

    shorter = await api.post(path, json={"action": "shorter", "basedOn": 1})
    assert shorter.status_code == 200, shorter.text
    events = events_of(shorter.text)
    assert agents_of(events) == {"supervisor", "writer_agent", "review_agent"}
    second = events[-1]
    assert second["version"] == 2 and len(second["body"]) < len(done["body"])
    assert second["imageAssetIds"] == done["imageAssetIds"]

    retitled = events_of((await api.post(path, json={"action": "new_title", "basedOn": 2})).text)[-1]
    assert retitled["version"] == 3 and retitled["title"] != second["title"]
    assert retitled["body"]  # the draft is rewritten around the new title, not dropped

    stale = await api.post(path, json={"action": "livelier", "basedOn": 2})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "VERSION_CONFLICT"
    no_audience = await api.post(path, json={"action": "audience", "basedOn": 3})
    assert no_audience.status_code == 422
    unknown = await api.post(path, json={"action": "rhyme", "basedOn": 3})
    assert unknown.status_code == 422

    versions = (await api.get(f"/api/creatives/{done['creativeId']}/versions")).json()["items"]
    assert [(v["source"], v["sourceLabel"]) for v in versions] == [
        ("run", "创作运行"), ("quick_action", "一键改写"), ("quick_action", "一键改写")
    ]


def test_the_pictures_a_revision_names() -> None:
    assert pictures_named("第2张图换成蓝色") == [2]
    assert pictures_named("第一张和第3张重画一下") == [1, 3]
    assert pictures_named("封面配色太暗了") == []
    update = revision_input({"qualityHistory": []}, "第2张图换成蓝色", "images")
    assert update["redrawOnly"] == [2] and update["imagesComplete"] is False
    assert revision_input({}, "封面换成绿色", "images")["redrawOnly"] is None


async def test_a_rewrite_that_waits_at_a_checkpoint_still_makes_a_quick_action_version(
    api: httpx.AsyncClient,
) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False})
    thread_id = first[0]["threadId"]
    paused = events_of((await api.post(f"/api/agent/threads/{thread_id}/rewrite", json={
        "action": "livelier", "basedOn": 1, "enableHITL": True,
    })).text)
    assert paused[-1]["type"] == "workflow_paused"
    done = events_of((await api.post("/api/agent/confirm", json={
        "threadId": thread_id, "action": "approve",
    })).text)
    while done[-1]["type"] == "workflow_paused":  # the image plans' checkpoint is kept: approve it too
        done = events_of((await api.post("/api/agent/confirm", json={
            "threadId": thread_id, "action": "approve",
        })).text)
    assert done[-1]["type"] == "workflow_complete" and done[-1]["version"] == 2
    two = (await api.get(f"/api/creatives/{first[-1]['creativeId']}/versions/2")).json()["version"]
    assert two["source"] == "quick_action" and two["actor"] == "user:admin"


async def test_a_revision_given_up_leaves_the_creative_as_its_current_version(api: httpx.AsyncClient) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False})
    thread_id, done = first[0]["threadId"], first[-1]
    revision = {"threadId": thread_id, "message": "标题里加上「新手必看」", "enableHITL": True}
    paused = await stream_run(api, revision)
    assert paused[-1]["type"] == "workflow_paused"
    draft = next(e for e in paused if e["type"] == "ask_user")["context"]["data"]
    assert "新手必看" in draft["title"]  # the revised draft waits at the checkpoint…
    waiting = (await api.get(f"/api/creatives/{done['creativeId']}")).json()
    assert waiting["title"] == draft["title"]  # (while it waits, the creative shows the work in progress)
    cancelled = await api.post(f"/api/agent/threads/{thread_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    detail = (await api.get(f"/api/creatives/{done['creativeId']}")).json()
    assert detail["status"] == "aborted" and detail["currentVersion"] == 1
    assert (detail["title"], detail["body"]) == (done["title"], done["body"])  # …and is not what it shows
    current = [a["id"] for a in detail["assets"] if a["taskIndex"] is not None]
    assert current == done["imageAssetIds"]


async def test_with_queueing_on_a_message_to_a_paused_thread_waits_its_turn(
    backend_settings: Settings,
) -> None:
    settings = backend_settings.model_copy(update={"queue_revisions": True})
    async with asgi_client(settings) as client:
        paused = await stream_run(client, {"message": REQUEST, "imageCount": 1})
        thread_id = paused[0]["threadId"]
        assert paused[-1]["type"] == "workflow_paused"
        waiting = asyncio.create_task(client.post("/api/agent/stream", json={
            "threadId": thread_id, "message": "标题里加上「新手必看」", "enableHITL": False,
        }))
        for _ in range(100):  # the queued message says so in the thread's log before anything else happens
            log = (await client.get(f"/api/agent/threads/{thread_id}/events?after={paused[-1]['seq']}")).text
            if "已排队" in log:
                break
            await asyncio.sleep(0.05)
        assert "已排队" in log and not waiting.done()
        done = paused
        while done[-1]["type"] == "workflow_paused":  # the editor answers the first run's checkpoints
            approve = {"threadId": thread_id, "action": "approve"}
            answer = await client.post("/api/agent/confirm", json=approve)
            done = events_of(answer.text)
        response = await waiting
        manager = client._transport.app.state.runs  # type: ignore[attr-defined]
        assert not manager._turns  # the thread's turn is given up once no message waits for it
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    assert events[0]["type"] == "message" and "已排队" in events[0]["content"]
    assert events[-1]["type"] == "workflow_complete" and events[-1]["version"] == 2
    assert "新手必看" in events[-1]["title"]


async def test_the_writer_sees_the_revision_history_and_never_reuses_a_title(api: httpx.AsyncClient) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False})
    thread_id = first[0]["threadId"]
    titles = [first[-1]["title"]]
    for number in (2, 3, 4):
        done = events_of((await api.post(f"/api/agent/threads/{thread_id}/rewrite", json={
            "action": "new_title", "basedOn": number - 1,
        })).text)[-1]
        assert done["version"] == number
        titles.append(done["title"])
    assert len(set(titles)) == len(titles), titles  # each new title differs from every earlier one
    snapshot = (await api.get(f"/api/agent/threads/{thread_id}")).json()
    assert snapshot["status"] == "completed"


def test_the_revision_history_the_writer_sees_is_bounded() -> None:
    from agents.writer import HISTORY_CHARS, HISTORY_KEPT, revision_history

    assert revision_history({}) is None
    asked = [
        {"message": f"第{k}次：" + "改" * 300, "scope": "text", "titleBefore": f"标题{k}"} for k in range(10)
    ]
    history = revision_history({"revisions": asked})
    assert history is not None and len(history) == HISTORY_KEPT
    assert history[0]["titleBefore"] == "标题4" and history[-1]["request"].startswith("第9次")
    assert all(len(h["request"]) == HISTORY_CHARS for h in history)


async def test_full_redos_build_on_each_other_and_identical_calls_come_from_the_cache(
    api: httpx.AsyncClient,
) -> None:
    first = await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False})
    thread_id, creative_id = first[0]["threadId"], first[-1]["creativeId"]

    def brief_of(events: list[dict[str, Any]]) -> dict[str, Any]:
        brief: dict[str, Any] = next(e for e in events if e["type"] == "brief_ready")["brief"]
        return brief

    autumn = await stream_run(api, {"threadId": thread_id, "message": "重写一篇，换成秋天露营"})
    assert brief_of(autumn)["topic"] == "秋天露营" and brief_of(autumn)["audience"] == "上班族"
    assert "秋天露营" in autumn[-1]["title"] and autumn[-1]["version"] == 2
    assert not any("没能理解" in e.get("content", "") for e in autumn if e["type"] == "message")
    students = await stream_run(api, {"threadId": thread_id, "message": "重写一篇，写给大学生"})
    assert brief_of(students)["topic"] == "秋天露营" and brief_of(students)["audience"] == "大学生"
    assert "大学生" in students[-1]["body"]

    # a revision of one picture asks the style library what the first run asked: answered from the cache
    await stream_run(api, {"threadId": thread_id, "message": "第1张图换成蓝色调"})
    usage = (await api.get(f"/api/creatives/{creative_id}")).json()["usage"]["byTask"]
    assert usage["retrieval:search_styles"]["cacheHits"] >= 1
    assert usage["retrieval:search_styles"]["calls"] == 0
