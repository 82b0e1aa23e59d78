"""A redone image replaces the old one in its creative's current set: after an editor's plan edit and a
review that sends the pictures back, `GET /api/creatives/{id}` lists one asset per task — those
`workflow_complete` named — with the replaced ones under `assetHistory`, and the list's `imageCount` /
`coverUrl` and the CSV's `imageCount` count the current set only."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import httpx

from app.settings import Settings
from tests.fakes import TamperedOffline
from tests.serving import asgi_client, events_of

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


def unreadable_cards(overall: list[float]) -> Any:
    """A reviewer that finds the cards unreadable (so the image planner redoes them), with these overall
    scores for its rounds in turn."""
    rounds = iter(overall)

    def tamper(answer: str) -> str:
        review = json.loads(answer)
        review["scores"]["readability"] = 0.3
        review["overall"] = next(rounds)
        return json.dumps(review, ensure_ascii=False)

    return tamper


async def modify_then_redo(api: httpx.AsyncClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Start, approve the draft, edit the first plan's overlay, approve every later pause; the final event
    and every image_progress event."""
    start = {"message": REQUEST, "imageCount": 2}
    started = events_of((await api.post("/api/agent/stream", json=start)).text)
    thread_id = started[0]["threadId"]
    approved = events_of(
        (await api.post("/api/agent/confirm", json={"threadId": thread_id, "action": "approve"})).text
    )
    plans = approved[-2]["context"]["data"]["plans"]
    plans[0] = {**plans[0], "overlay": {"headline": "下班去露营"}}
    body: dict[str, Any] = {"threadId": thread_id, "action": "modify", "modifiedData": {"plans": plans}}
    images: list[dict[str, Any]] = []
    while True:
        events = events_of((await api.post("/api/agent/confirm", json=body)).text)
        images += [e for e in events if e["type"] == "image_progress" and e["status"] == "complete"]
        if events[-1]["type"] != "workflow_paused":
            return events[-1], images
        body = {"threadId": thread_id, "action": "approve"}  # the redone plans' checkpoint


async def check_current_set(
    api: httpx.AsyncClient, done: dict[str, Any], images: list[dict[str, Any]]
) -> None:
    assert done["type"] == "workflow_complete" and len(done["imageAssetIds"]) == 2
    assert len(images) == 4  # two pictures, drawn twice
    creative = (await api.get(f"/api/creatives/{done['creativeId']}")).json()
    current = [a for a in creative["assets"] if a["role"] != "reference"]
    assert [a["id"] for a in current] == done["imageAssetIds"]  # one per task, the delivered ones
    assert [a["taskIndex"] for a in current] == [1, 2]
    assert all(a["status"] == "complete" and a["supersededAt"] is None for a in current)
    history = creative["assetHistory"]
    replaced = {e["assetId"] for e in images} - set(done["imageAssetIds"])
    assert sorted(a["id"] for a in history) == sorted(replaced)
    assert all(a["supersededAt"] for a in history)
    [item] = (await api.get("/api/creatives")).json()["items"]
    assert item["imageCount"] == 2 and item["coverUrl"] == f"/api/assets/{done['imageAssetIds'][0]}"
    exported = (await api.get("/api/creatives/export.csv")).text.lstrip("\ufeff")
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert rows[0]["imageCount"] == "2"
    for old in history:  # history stays viewable
        assert (await api.get(f"/api/assets/{old['id']}")).status_code == 200


async def test_a_redone_image_replaces_the_old_one_in_the_current_set(seeded_settings: Settings) -> None:
    TamperedOffline("review", unreadable_cards([0.72])).install()  # round 2 passes: the redo is delivered
    seeded_settings.llm_model = "tampered/offline"
    async with asgi_client(seeded_settings) as api:
        done, images = await modify_then_redo(api)
        assert done["imageAssetIds"] == [e["assetId"] for e in sorted(images[2:], key=lambda e: e["taskId"])]
        await check_current_set(api, done, images)


async def test_an_earlier_rounds_images_are_current_when_that_round_is_delivered(
    seeded_settings: Settings,
) -> None:
    # both rounds fail and the first scored higher: delivery goes back to round 1 and its pictures
    TamperedOffline("review", unreadable_cards([0.72, 0.6]), times=2).install()
    seeded_settings.llm_model = "tampered/offline"
    seeded_settings.max_review_rounds = 2
    async with asgi_client(seeded_settings) as api:
        done, images = await modify_then_redo(api)
        assert done["imageAssetIds"] == [e["assetId"] for e in sorted(images[:2], key=lambda e: e["taskId"])]
        await check_current_set(api, done, images)
