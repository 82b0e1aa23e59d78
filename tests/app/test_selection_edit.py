"""Highlight-to-edit through the ASGI app, on each backend: a selected passage of the body rewritten as the
creator asks (`POST /api/agent/threads/{id}/rewrite` with `action: selection`) changes that passage only —
the rest of the body, the title, the tags and the pictures stay — runs only the writer and the review, and
makes a version; a selection that is not the current body's is refused. And the offline model's rewrites of
a passage, one instruction at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.settings import Settings
from tests.serving import asgi_client, completed_run, events_of
from tools.offline.span import rewrite

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


def longest_paragraph(body: str) -> tuple[int, int]:
    paragraphs = body.split("\n\n")
    chosen = max(paragraphs[1:-1] or paragraphs, key=len)
    start = body.index(chosen)
    return start, start + len(chosen)


async def test_a_selected_passage_is_rewritten_and_nothing_else(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    body = final["body"]
    start, end = longest_paragraph(body)
    passage = body[start:end]
    response = await api.post(f"/api/agent/threads/{final['threadId']}/rewrite", json={
        "action": "selection", "selection": {"start": start, "end": end, "text": passage},
        "instruction": "更简洁", "basedOn": 1,
    })
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    done = events[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 2, response.text[-400:]
    new_body = done["body"]
    assert new_body.startswith(body[:start]) and new_body.endswith(body[end:])
    replaced = new_body[start:len(new_body) - (len(body) - end)]
    assert replaced and replaced != passage and len(replaced) < len(passage)
    assert done["title"] == final["title"] and done["tags"] == final["tags"]
    assert done["imageAssetIds"] == final["imageAssetIds"]
    ran = {e["agent"] for e in events if e["type"] == "agent_start"}
    assert ran <= {"supervisor", "writer_agent", "review_agent"} and "writer_agent" in ran
    said = " ".join(e["content"] for e in events if e["type"] == "message")
    assert "更简洁" in said
    two = (await api.get(f"/api/creatives/{final['creativeId']}/versions/2")).json()["version"]
    assert two["source"] == "selection_edit" and two["sourceLabel"] == "选中改写"

    # delete a passage: the paragraph goes, its neighbours close up
    start, end = longest_paragraph(new_body)
    response = await api.post(f"/api/agent/threads/{final['threadId']}/rewrite", json={
        "action": "selection", "selection": {"start": start, "end": end, "text": new_body[start:end]},
        "instruction": "删掉这段", "basedOn": 2,
    })
    third = events_of(response.text)[-1]
    assert third["version"] == 3 and new_body[start:end] not in third["body"]
    assert "\n\n\n" not in third["body"]


async def test_a_rewrite_that_changes_nothing_makes_no_version(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    body = final["body"]
    start, end = longest_paragraph(body)
    response = await api.post(f"/api/agent/threads/{final['threadId']}/rewrite", json={
        "action": "selection", "selection": {"start": start, "end": end, "text": body[start:end]},
        "instruction": "嗯嗯好的", "basedOn": 1,
    })
    events = events_of(response.text)
    said = " ".join(e["content"] for e in events if e["type"] == "message")
    assert "没有变化" in said and "嗯嗯好的" in said
    assert events[-1]["type"] == "workflow_complete" and events[-1]["version"] == 1
    assert events[-1]["body"] == body
    versions = (await api.get(f"/api/creatives/{final['creativeId']}/versions")).json()
    assert versions["current"] == 1 and [v["number"] for v in versions["items"]] == [1]


async def test_a_selection_that_is_not_the_current_body_is_refused(api: httpx.AsyncClient) -> None:
    final = await completed_run(api, REQUEST)
    url = f"/api/agent/threads/{final['threadId']}/rewrite"
    body = final["body"]

    async def refused(payload: dict[str, Any]) -> dict[str, Any]:
        response = await api.post(url, json={"action": "selection", "basedOn": 1, **payload})
        assert 400 <= response.status_code < 500, response.text
        return {"status": response.status_code, **response.json()["error"]}

    other = await refused({"selection": {"start": 0, "end": 4, "text": "别的文字"}, "instruction": "更简洁"})
    assert other["status"] == 409 and other["code"] == "VERSION_CONFLICT"
    mismatch = await refused({"selection": {"start": 0, "end": 9, "text": body[:4]}, "instruction": "更简洁"})
    assert mismatch["status"] == 422
    assert (await refused({"selection": {"start": 0, "end": 4, "text": body[:4]}}))["status"] == 422
    assert (await refused({"instruction": "更简洁"}))["status"] == 422
    versions = (await api.get(f"/api/creatives/{final['creativeId']}/versions")).json()
    assert versions["current"] == 1
    thread = (await api.get(f"/api/agent/threads/{final['threadId']}")).json()
    assert thread["status"] == "completed"  # nothing was claimed


PASSAGE = (
    "其实周末去城市露营真的非常方便，地铁几站就到了。带上一张野餐垫和一壶热茶就够了。晚上风大，记得多带一件外套。"
)


@pytest.mark.parametrize(
    ("instruction", "check"),
    [
        ("更简洁", lambda out: len(out) < len(PASSAGE) and "其实" not in out),
        ("写得更生动", lambda out: "！" in out),
        ("更正式一些", lambda out: "其实" not in out and "真的" not in out and "！" not in out),
        ("多加点emoji", lambda out: sum(ch in out for ch in "⛺🌙") >= 2),
        ("不要提地铁", lambda out: "地铁" not in out and "外套" in out),
        ("改成「周末露营很简单。」", lambda out: out == "周末露营很简单。"),
        ("删掉这段", lambda out: out == ""),
        ("再写长一点", lambda out: out.startswith(PASSAGE) and len(out) > len(PASSAGE)),
        ("写成文言文", lambda out: out == PASSAGE),  # nothing it can read: as it was (the writer says so)
    ],
)
def test_the_offline_model_rewrites_a_passage(instruction: str, check: Any) -> None:
    out = rewrite(PASSAGE, instruction, emoji=("⛺", "🌙"))
    assert check(out), out
