"""The agent API through the ASGI app (httpx, lifespan included): SSE contract, confirms, replay, errors —
on each backend (`backend_settings`: the data dir's SQLite file, or a PostgreSQL database)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from PIL import Image

from agents.events import EVENT_TYPES, parse_event
from app import migrate
from app.http.factory import create_app
from app.settings import Settings
from tests.serving import admin_token, asgi_client, bearer, events_of, post_events

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """tests/app/conftest.py's `api`, once per backend: a client of `create_app(backend_settings)`."""
    async with asgi_client(backend_settings) as client:
        yield client


def png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 480), "#D9C6A5").save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


async def start_paused(client: httpx.AsyncClient, **extra: Any) -> list[dict[str, Any]]:
    events = await post_events(client, "/api/agent/stream", {"message": REQUEST, **extra})
    assert [e["type"] for e in events[-2:]] == ["ask_user", "workflow_paused"]
    return events


async def test_full_run_over_sse_with_two_confirms(api: httpx.AsyncClient) -> None:
    first = await start_paused(
        api, imageCount=3, referenceImages=[{"data": png_data_url(), "type": "style"}]
    )
    thread_id = first[0]["threadId"]
    assert [e["type"] for e in first[:2]] == ["workflow_progress", "agent_start"]  # accepted, then working
    ask = first[-2]
    assert ask["context"]["kind"] == "content" and ask["interruptId"]

    thread = (await api.get(f"/api/agent/threads/{thread_id}")).json()
    assert thread["status"] == "paused" and thread["pending"]["interruptId"] == ask["interruptId"]
    assert thread["lastSeq"] == first[-1]["seq"]

    second = await post_events(
        api,
        "/api/agent/confirm",
        {"threadId": thread_id, "action": "modify", "modifiedData": {"title": "下班后去露营"},
         "interruptId": ask["interruptId"]},
    )
    assert second[0]["seq"] == first[-1]["seq"] + 1  # a confirm streams only what is new
    plans_ask = second[-2]
    assert plans_ask["context"]["kind"] == "image_plans"
    third = await post_events(api, "/api/agent/confirm", {"threadId": thread_id, "action": "approve"})
    done = third[-1]
    assert done["type"] == "workflow_complete" and done["title"] == "下班后去露营"
    assert len(done["imageAssetIds"]) == 3

    events = first + second + third
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    for event in events:
        parse_event(event)  # every event validates against the contract
    assert EVENT_TYPES - {e["type"] for e in events} <= {"error"}
    complete = [e for e in events if e["type"] == "image_progress" and e["status"] == "complete"]
    assert {e["url"] for e in complete} == {f"/api/assets/{i}" for i in done["imageAssetIds"]}
    status = (await api.get(f"/api/agent/threads/{thread_id}")).json()
    assert status["status"] == "completed" and status["pending"] is None


async def test_reject_redoes_the_draft_and_pauses_again(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    thread_id = first[0]["threadId"]
    again = await post_events(
        api, "/api/agent/confirm",
        {"threadId": thread_id, "action": "reject", "userFeedback": "语气再轻松一点，多写预算"},
    )
    starts = [e["agent"] for e in again if e["type"] == "agent_start"]
    assert starts == ["writer_agent"]
    assert again[-2]["context"]["kind"] == "content" and again[-2]["interruptId"] != first[-2]["interruptId"]


async def test_two_concurrent_confirms_one_resumes_the_other_gets_409(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    body = {"threadId": first[0]["threadId"], "action": "approve", "interruptId": first[-2]["interruptId"]}
    responses = await asyncio.gather(
        api.post("/api/agent/confirm", json=body), api.post("/api/agent/confirm", json=body)
    )
    assert sorted(r.status_code for r in responses) == [200, 409]
    loser = next(r for r in responses if r.status_code == 409)
    assert loser.json()["error"]["code"] in {"THREAD_NOT_PAUSED", "STALE_INTERRUPT"}
    winner = next(r for r in responses if r.status_code == 200)
    assert events_of(winner.text)[-1]["type"] == "workflow_paused"

    stale = await api.post("/api/agent/confirm", json=body)  # the first pause is gone
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "STALE_INTERRUPT"


async def test_replay_after_last_event_id_returns_exactly_the_missed_events(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    thread_id = first[0]["threadId"]
    missed = await api.get(f"/api/agent/threads/{thread_id}/events", headers={"Last-Event-ID": "10"})
    assert events_of(missed.text) == first[10:]
    by_query = await api.get(f"/api/agent/threads/{thread_id}/events", params={"after": 40})
    assert events_of(by_query.text) == first[40:]
    everything = await api.get(f"/api/agent/threads/{thread_id}/events")
    assert events_of(everything.text) == first
    bad = await api.get(f"/api/agent/threads/{thread_id}/events", params={"after": "x"})
    assert bad.status_code == 422


async def test_inbox_lists_paused_threads_newest_first(api: httpx.AsyncClient) -> None:
    older = await start_paused(api)
    newer = await start_paused(api, message="周末在家做一顿减脂早餐，写给健身新手")
    items = (await api.get("/api/agent/inbox")).json()["items"]
    assert [i["threadId"] for i in items] == [newer[0]["threadId"], older[0]["threadId"]]
    assert items[0]["kind"] == "content" and items[0]["pending"]["type"] == "ask_user"
    assert items[1]["request"] == REQUEST and items[0]["question"]
    await post_events(api, "/api/agent/confirm", {"threadId": older[0]["threadId"], "action": "approve"})
    # still paused, now at the plans checkpoint
    kinds = {i["threadId"]: i["kind"] for i in (await api.get("/api/agent/inbox")).json()["items"]}
    assert kinds[older[0]["threadId"]] == "image_plans"


async def test_cancel_a_paused_run_and_unknown_threads(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    thread_id = first[0]["threadId"]
    cancelled = await api.post(f"/api/agent/threads/{thread_id}/cancel")
    assert cancelled.json() == {"threadId": thread_id, "status": "aborted"}
    assert (await api.get(f"/api/agent/threads/{thread_id}")).json()["status"] == "aborted"
    last = events_of((await api.get(f"/api/agent/threads/{thread_id}/events")).text)[-1]
    assert last["type"] == "error" and last["code"] == "ABORTED"
    again = await api.post(f"/api/agent/threads/{thread_id}/cancel")
    assert again.status_code == 409
    for method, path in (
        ("GET", "/api/agent/threads/nope"),
        ("GET", "/api/agent/threads/nope/events"),
        ("POST", "/api/agent/threads/nope/cancel"),
        ("POST", "/api/agent/threads/nope/resume"),
    ):
        response = await api.request(method, path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "THREAD_NOT_FOUND"


async def test_starting_an_existing_thread_is_a_conflict(api: httpx.AsyncClient) -> None:
    first = await start_paused(api, threadId="my-thread-1")
    assert first[0]["threadId"] == "my-thread-1"
    response = await api.post("/api/agent/stream", json={"message": REQUEST, "threadId": "my-thread-1"})
    assert response.status_code == 409 and response.json()["error"]["code"] == "THREAD_BUSY"


BAD_STARTS: list[tuple[str, bytes, int, str]] = [
    ("empty body", b"", 400, "BAD_REQUEST"),
    ("invalid JSON", b'{"message": ', 400, "BAD_REQUEST"),
    ("not an object", b"[1, 2]", 400, "BAD_REQUEST"),
    ("empty message", json.dumps({"message": "   "}).encode(), 422, "VALIDATION_ERROR"),
    ("5 MB message", json.dumps({"message": "x" * 5_000_000}).encode(), 422, "VALIDATION_ERROR"),
    ("unknown field", json.dumps({"message": "hi", "colour": 1}).encode(), 422, "VALIDATION_ERROR"),
    ("image count", json.dumps({"message": "hi", "imageCount": 0}).encode(), 422, "VALIDATION_ERROR"),
    (
        "bad data URL",
        json.dumps({"message": "hi", "referenceImages": [{"data": "data:image/png;base64,!!!"}]}).encode(),
        422,
        "",
    ),
    (
        "loopback URL",
        json.dumps({"message": "hi", "referenceImages": [{"url": "http://127.0.0.1/a.png"}]}).encode(),
        422,
        "IMAGE_URL_REFUSED",
    ),
]


@pytest.mark.parametrize(("case", "body", "status", "code"), BAD_STARTS, ids=[c[0] for c in BAD_STARTS])
async def test_bad_start_bodies_are_clear_4xx_errors(
    api: httpx.AsyncClient, case: str, body: bytes, status: int, code: str
) -> None:
    response = await api.post("/api/agent/stream", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["message"] and (not code or error["code"] == code)
    assert (await api.get("/api/agent/inbox")).json()["total"] == 0  # nothing was started


async def test_bad_confirms_are_clear_4xx_errors(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    thread_id = first[0]["threadId"]
    cases = [
        ({"threadId": thread_id, "action": "dance"}, 422, "INVALID_CONFIRMATION"),
        ({"threadId": thread_id, "action": "reject"}, 422, "INVALID_CONFIRMATION"),
        ({"threadId": thread_id, "action": "reject", "userFeedback": "  "}, 422, "INVALID_CONFIRMATION"),
        ({"threadId": thread_id, "action": "modify", "modifiedData": {"title": ""}}, 422,
         "INVALID_CONFIRMATION"),
        ({"threadId": thread_id, "userResponse": {"selectedIds": ["a"]}}, 422, "INVALID_CONFIRMATION"),
        ({"action": "approve"}, 422, "VALIDATION_ERROR"),
        ({"threadId": "nope", "action": "approve"}, 404, "THREAD_NOT_FOUND"),
    ]
    for body, status, code in cases:
        response = await api.post("/api/agent/confirm", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), body
    # nothing was lost: the pause is still there and can be approved
    after = await post_events(api, "/api/agent/confirm", {"threadId": thread_id, "action": "approve"})
    assert after[-2]["context"]["kind"] == "image_plans"


async def test_body_over_the_limit_is_413(backend_settings: Settings) -> None:
    backend_settings.max_body_bytes = 1024
    async with asgi_client(backend_settings) as client:
        response = await client.post("/api/agent/stream", json={"message": "露" * 2000})
    assert response.status_code == 413 and response.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


async def test_openapi_describes_every_endpoint_and_body(api: httpx.AsyncClient) -> None:
    document = (await api.get("/openapi.json")).json()
    paths = document["paths"]
    for path in (
        "/api/agent/stream", "/api/agent/confirm", "/api/agent/inbox", "/api/agent/threads/{threadId}",
        "/api/agent/threads/{threadId}/events", "/api/agent/threads/{threadId}/cancel",
        "/api/creatives", "/api/creatives/{id}", "/api/creatives/stats", "/api/creatives/export.csv",
        "/api/assets/{id}",
    ):
        assert path in paths, path
    schemas = document["components"]["schemas"]
    body = set(schemas["RunRequest"]["properties"])
    assert body >= {"message", "referenceImages", "enableHITL", "imageCount"}
    assert "userFeedback" in schemas["ConfirmRequest"]["properties"]
    assert len(schemas["StreamEvent"]["oneOf"]) == len(EVENT_TYPES)



BAD_CURSORS = [
    "²", "٣", "３", "1²", "-1", "+1", "1.0", "1e3", " 1", "0x10", "1_0", "abc",
    str(2**63), "99999999999999999999999", "0" * 20, "1" * 5000,
]


async def test_a_cursor_must_be_ascii_digits_in_range(api: httpx.AsyncClient) -> None:
    first = await start_paused(api)
    path = f"/api/agent/threads/{first[0]['threadId']}/events"
    for cursor in BAD_CURSORS:  # Unicode digits were a 500, too large a 200 with a broken stream
        by_query = await api.get(path, params={"after": cursor})
        assert by_query.status_code == 422, (cursor[:30], by_query.text)
        error = by_query.json()["error"]
        assert error["code"] == "VALIDATION_ERROR" and error["details"][0]["field"] == "after", error
        if cursor.strip() == cursor:  # a header value's surrounding spaces never reach the app
            by_header = await api.get(path, headers={"Last-Event-ID": cursor.encode()})
            assert by_header.status_code == 422, (cursor[:30], by_header.text)
            error = by_header.json()["error"]
            assert error["code"] == "VALIDATION_ERROR" and error["details"][0]["field"] == "Last-Event-ID"
    # the largest cursor there is: nothing after it, and the stream still ends properly
    for headers, params in (({"Last-Event-ID": str(2**63 - 1)}, {}), ({}, {"after": str(2**63 - 1)})):
        last = await api.get(path, headers=headers, params=params)
        assert last.status_code == 200 and events_of(last.text) == []
    assert events_of((await api.get(path, params={"after": "007"})).text) == first[7:]


COERCED_STARTS: list[tuple[dict[str, Any], str]] = [  # JSON types are never converted
    ({"imageCount": True}, "imageCount"),  # was a 1-image run
    ({"imageCount": "4"}, "imageCount"),  # was 4
    ({"imageCount": 4.5}, "imageCount"),
    ({"enableHITL": "yes"}, "enableHITL"),  # was true
    ({"enableHITL": 1}, "enableHITL"),
    ({"enableHITL": "false"}, "enableHITL"),
    ({"message": 42}, "message"),
    ({"threadId": 7}, "threadId"),
    ({"layoutPreference": ["dense"]}, "layoutPreference"),
    ({"referenceImages": [{"url": "https://example.com/a.png", "type": 1}]}, "referenceImages.0.type"),
    ({"referenceImages": {"url": "https://example.com/a.png"}}, "referenceImages"),
]


async def test_start_bodies_are_validated_strictly(api: httpx.AsyncClient) -> None:
    for extra, field in COERCED_STARTS:
        response = await api.post("/api/agent/stream", json={"message": REQUEST, **extra})
        assert response.status_code == 422, (extra, response.text)
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR", (extra, error)
        assert field in [d["field"] for d in error["details"]], (extra, error)
    assert (await api.get("/api/creatives")).json()["total"] == 0  # nothing was started


async def test_a_number_with_a_zero_fraction_is_an_integer(api: httpx.AsyncClient) -> None:
    # JSON has one number type; JSON Schema (and so the OpenAPI document) counts 2.0 and 2e0 as the integer 2
    for count in ("2.0", "2e0"):
        raw = f'{{"message": "{REQUEST}", "imageCount": {count}, "enableHITL": false}}'
        response = await api.post(
            "/api/agent/stream", content=raw.encode(), headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 200, response.text
        done = events_of(response.text)[-1]
        assert done["type"] == "workflow_complete" and len(done["imageAssetIds"]) == 2


async def test_confirm_bodies_are_validated_strictly(api: httpx.AsyncClient) -> None:
    first = await start_paused(api, imageCount=2)
    thread_id = first[0]["threadId"]
    for body, field in (
        ({"threadId": thread_id, "action": "approve", "userFeedback": 5}, "userFeedback"),
        ({"threadId": thread_id, "action": True}, "action"),
        ({"threadId": thread_id, "action": "approve", "interruptId": 1}, "interruptId"),
        ({"threadId": thread_id, "action": "modify", "modifiedData": "title"}, "modifiedData"),
    ):
        response = await api.post("/api/agent/confirm", json=body)
        assert response.status_code == 422, (body, response.text)
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR" and field in [d["field"] for d in error["details"]], error
    approved = await post_events(api, "/api/agent/confirm", {"threadId": thread_id, "action": "approve"})
    plans = approved[-2]["context"]["data"]["plans"]
    for change in ({"overlay": {"headline": "露营", "firstNumber": "2"}}, {"styleSimilarity": "0.9"}):
        edited = [{**plans[0], **change}, *plans[1:]]
        body = {"threadId": thread_id, "action": "modify", "modifiedData": {"plans": edited}}
        response = await api.post("/api/agent/confirm", json=body)  # "2" was taken as 2
        assert response.status_code == 422, (change, response.text)
        assert response.json()["error"]["code"] == "INVALID_CONFIRMATION"
    ok = [{**plans[0], "overlay": {"headline": "露营", "firstNumber": 2}}, *plans[1:]]
    done = await post_events(
        api, "/api/agent/confirm", {"threadId": thread_id, "action": "modify", "modifiedData": {"plans": ok}}
    )
    assert done[-1]["type"] == "workflow_complete"


async def test_no_run_starts_while_the_server_stops(backend_settings: Settings) -> None:
    await migrate.upgrade_async(backend_settings.db_url)
    app = create_app(backend_settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        headers = bearer(admin_token(backend_settings.data_dir))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost", headers=headers
        ) as client:
            paused = events_of((await client.post("/api/agent/stream", json={"message": REQUEST})).text)
            thread_id = paused[0]["threadId"]
            await app.state.runs.shutdown()  # what the first stream to see a SIGTERM asks for
            for path, body in (
                ("/api/agent/stream", {"message": REQUEST}),
                ("/api/agent/confirm", {"threadId": thread_id, "action": "approve"}),
                (f"/api/agent/threads/{thread_id}/resume", None),
            ):
                response = await client.post(path, json=body)
                assert response.status_code == 503, (path, response.text)
                assert response.json()["error"]["code"] == "SERVER_STOPPING"
            assert (await client.get(f"/api/agent/threads/{thread_id}")).json()["status"] == "paused"
