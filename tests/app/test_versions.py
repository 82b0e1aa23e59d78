"""A creative's versions through the ASGI app, on each backend: a completed run is version 1 (its
`workflow_complete` says so), the list and one version with its character diff, a restore as a new version
that the creative row shows, a stale restore (409) and unknown versions (404)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from agents.run import char_diff
from app.settings import Settings
from tests.serving import asgi_client, completed_run, events_of

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


async def test_a_run_makes_version_1_and_a_restore_makes_the_next(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    creative_id = final["creativeId"]
    assert final["version"] == 1

    listed = (await api.get(f"/api/creatives/{creative_id}/versions")).json()
    assert listed["current"] == 1 and [v["number"] for v in listed["items"]] == [1]
    first = listed["items"][0]
    assert first["source"] == "run" and first["sourceLabel"] == "创作运行"
    assert first["title"] == final["title"] and first["tags"] == final["tags"]
    assert first["imageAssetIds"] == final["imageAssetIds"] and len(first["imageUrls"]) == 1
    assert (await api.get(first["imageUrls"][0])).status_code == 200  # the thumbnail is served
    assert first["basedOn"] is None and first["actor"] == "user:admin"

    one = (await api.get(f"/api/creatives/{creative_id}/versions/1")).json()
    assert one["diff"]["against"] is None
    assert one["diff"]["body"] == [{"op": "insert", "text": final["body"]}]
    assert one["version"]["imagePlans"] and one["diff"]["tags"]["added"] == final["tags"]

    restored = await api.post(f"/api/creatives/{creative_id}/versions/1/restore", json={"basedOn": 1})
    assert restored.status_code == 200, restored.text
    assert restored.json() == {"creativeId": creative_id, "version": 2, "restoredFrom": 1}
    two = (await api.get(f"/api/creatives/{creative_id}/versions/2")).json()
    assert two["version"]["source"] == "restore" and two["version"]["restoredFrom"] == 1
    assert two["version"]["basedOn"] == 1 and two["diff"]["against"] == 1
    assert two["diff"]["body"] == [{"op": "equal", "text": final["body"]}]
    assert two["diff"]["imagesChanged"] == []
    detail = (await api.get(f"/api/creatives/{creative_id}")).json()
    assert detail["currentVersion"] == 2 and detail["title"] == final["title"]
    assert [a["id"] for a in detail["assets"] if a["taskIndex"] is not None] == final["imageAssetIds"]

    # a restore based on a version that is no longer current loses nothing and says what is current
    stale = await api.post(f"/api/creatives/{creative_id}/versions/1/restore", json={"basedOn": 1})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "VERSION_CONFLICT"
    assert stale.json()["error"]["details"]["current"] == 2
    assert (await api.get(f"/api/creatives/{creative_id}/versions")).json()["current"] == 2

    audit = (await api.get(f"/api/creatives/{creative_id}/audit")).json()["items"]
    restores = [(e["actionLabel"], e["details"]["version"]) for e in audit if e["action"] == "restore"]
    assert restores == [("恢复版本", 2)]


async def test_unknown_versions_and_bad_bodies_are_clear_errors(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    creative_id = final["creativeId"]
    missing = await api.get(f"/api/creatives/{creative_id}/versions/7")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "VERSION_NOT_FOUND"
    assert (await api.get(f"/api/creatives/{creative_id + 1000}/versions")).status_code == 404
    bad = await api.post(f"/api/creatives/{creative_id}/versions/1/restore", json={"basedOn": "1"})
    assert bad.status_code == 422
    none = await api.post(f"/api/creatives/{creative_id}/versions/1/restore", json={})
    assert none.status_code == 422
    gone = await api.post(f"/api/creatives/{creative_id}/versions/3/restore", json={"basedOn": 1})
    assert gone.status_code == 404


async def test_a_paused_run_has_no_version_yet(api: httpx.AsyncClient) -> None:
    response = await api.post("/api/agent/stream", json={"message": REQUEST, "imageCount": 1})
    paused = events_of(response.text)
    assert paused[-1]["type"] == "workflow_paused"
    thread = (await api.get(f"/api/agent/threads/{paused[0]['threadId']}")).json()
    listed = (await api.get(f"/api/creatives/{thread['creativeId']}/versions")).json()
    assert listed == {"creativeId": thread["creativeId"], "current": 0, "items": []}


def test_the_diff_is_by_character() -> None:
    assert char_diff("今天去西湖", "明天去西湖边") == [
        {"op": "delete", "text": "今"},
        {"op": "insert", "text": "明"},
        {"op": "equal", "text": "天去西湖"},
        {"op": "insert", "text": "边"},
    ]
    assert char_diff("", "") == []


async def test_a_manual_edit_is_a_version_and_a_revision_starts_from_it(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    creative_id, thread_id = final["creativeId"], final["threadId"]
    added = "这一句是编辑手动加上的，之后的修改要保留它。"
    body = f"{final['body']}\n\n{added}"
    edited = await api.post(
        f"/api/creatives/{creative_id}/versions",
        json={"basedOn": 1, "title": REQUEST, "body": body, "tags": ["#露营", " 周末 "]},
    )
    assert edited.status_code == 201, edited.text
    answer = edited.json()
    assert answer["version"] == 2
    # the request pasted back as the title fails text checks: reported as warnings, the edit is kept
    assert {"title_length", "title_pasted"} <= {w["check"] for w in answer["warnings"]}
    assert all(w["reason"] for w in answer["warnings"])
    two = (await api.get(f"/api/creatives/{creative_id}/versions/2")).json()
    assert two["version"]["source"] == "manual_edit" and two["version"]["sourceLabel"] == "手动修改"
    assert two["version"]["tags"] == ["露营", "周末"] and two["version"]["title"] == REQUEST
    assert two["diff"]["body"][-1] == {"op": "insert", "text": f"\n\n{added}"}
    assert two["version"]["imageAssetIds"] == final["imageAssetIds"]  # the pictures are untouched
    detail = (await api.get(f"/api/creatives/{creative_id}")).json()
    assert detail["currentVersion"] == 2 and detail["body"] == body

    # a revision of the pictures starts from the edited text, not from the run's last draft
    revised = await api.post("/api/agent/stream", json={
        "threadId": thread_id, "message": "第1张图换成蓝色", "basedOn": 2, "enableHITL": False,
    })
    done = events_of(revised.text)[-1]
    assert done["type"] == "workflow_complete", revised.text[-500:]
    assert done["version"] == 3 and done["body"] == body and done["title"] == REQUEST

    audit = (await api.get(f"/api/creatives/{creative_id}/audit")).json()["items"]
    assert [e["actionLabel"] for e in audit if e["action"] == "edit"] == ["手动修改"]


async def test_bad_manual_edits_lose_nothing(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    url = f"/api/creatives/{final['creativeId']}/versions"
    for bad in (
        {"basedOn": 1},  # nothing changed
        {"basedOn": 1, "title": "好"},  # too short a title
        {"basedOn": 1, "tags": []},  # a post keeps at least one tag
        {"basedOn": 1, "body": "太短"},
        {"basedOn": 1, "title": "周末露营", "colour": "red"},
        {"title": "周末露营"},
    ):
        response = await api.post(url, json=bad)
        assert response.status_code == 422, (bad, response.text)
        assert response.json()["error"]["message"]
    stale = await api.post(url, json={"basedOn": 2, "title": "周末露营清单"})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "VERSION_CONFLICT"
    assert (await api.get(url)).json()["current"] == 1
    elsewhere = f"/api/creatives/{final['creativeId'] + 1000}/versions"
    missing = await api.post(elsewhere, json={"basedOn": 1, "title": "周末露营"})
    assert missing.status_code == 404
