"""Headers every response carries: `Allow` on a 405, `X-Content-Type-Options: nosniff` on everything."""

from __future__ import annotations

import logging

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from app.http.errors import EXCEPTION_HANDLERS
from app.http.factory import Studio
from tests.serving import events_of

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"

WRONG_METHODS: list[tuple[str, str, set[str]]] = [  # method, path, the methods `Allow` must list
    ("GET", "/api/agent/stream", {"POST"}),
    ("DELETE", "/api/agent/confirm", {"POST"}),
    ("POST", "/api/agent/inbox", {"GET", "HEAD"}),
    ("PUT", "/api/agent/threads/t-1", {"GET", "HEAD"}),
    ("POST", "/api/agent/threads/t-1/events", {"GET", "HEAD"}),
    ("GET", "/api/agent/threads/t-1/cancel", {"POST"}),
    ("GET", "/api/agent/threads/t-1/resume", {"POST"}),
    ("POST", "/api/creatives", {"GET", "HEAD"}),
    ("DELETE", "/api/creatives/1", {"GET", "HEAD"}),
    ("PATCH", "/api/creatives/stats", {"GET", "HEAD"}),
    ("POST", "/api/creatives/export.csv", {"GET", "HEAD"}),
    ("PUT", "/api/assets/1", {"GET", "HEAD"}),
    ("POST", "/healthz", {"GET", "HEAD"}),
    ("POST", "/openapi.json", {"GET", "HEAD"}),
    ("POST", "/", {"GET", "HEAD"}),
    ("DELETE", "/creatives/3", {"GET", "HEAD"}),
    ("POST", "/static/css/app.css", {"GET", "HEAD"}),
]


async def test_every_405_says_which_methods_are_allowed(api: httpx.AsyncClient) -> None:
    for method, path, allowed in WRONG_METHODS:
        response = await api.request(method, path)
        assert response.status_code == 405, (method, path, response.text)
        assert "allow" in response.headers, (method, path, dict(response.headers))
        assert {m.strip() for m in response.headers["allow"].split(",")} == allowed, (method, path)
        assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
        assert response.headers["x-content-type-options"] == "nosniff"
        for ok in allowed - {"HEAD"}:  # what `Allow` lists is allowed indeed
            assert (await api.request(ok, path)).status_code != 405, (ok, path)


async def test_every_response_carries_nosniff(api: httpx.AsyncClient) -> None:
    started = await api.post("/api/agent/stream", json={"message": REQUEST, "imageCount": 1})
    thread_id = events_of(started.text)[0]["threadId"]
    responses = {
        "sse": started,
        "sse replay": await api.get(f"/api/agent/threads/{thread_id}/events"),
        "json": await api.get("/api/creatives"),
        "json detail": await api.get(f"/api/agent/threads/{thread_id}"),
        "csv": await api.get("/api/creatives/export.csv"),
        "openapi": await api.get("/openapi.json"),
        "healthz": await api.get("/healthz"),
        "html": await api.get("/"),
        "static": await api.get("/static/css/app.css"),
        "404": await api.get("/api/nope"),
        "404 creative": await api.get("/api/creatives/424242"),
        "422": await api.get("/api/creatives?limit=0"),
        "400": await api.post("/api/agent/stream", content=b"{"),
        "409": await api.post("/api/agent/stream", json={"message": REQUEST, "threadId": thread_id}),
        "head": await api.head("/api/creatives"),
    }
    kinds = {r.headers.get("content-type", "").split(";")[0] for r in responses.values()}
    assert {"text/event-stream", "application/json", "text/csv", "text/html", "text/css"} <= kinds
    missing = {
        name: r.status_code
        for name, r in responses.items()
        if r.headers.get("x-content-type-options") != "nosniff"
    }
    assert not missing, missing
    # exactly one header, also where a route sets it itself (pages, static files, assets)
    assert all(len(r.headers.get_list("x-content-type-options")) == 1 for r in responses.values())


async def test_even_a_500_carries_nosniff(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL, logger="studio.http")  # the traceback is expected

    async def boom(request: Request) -> Response:
        raise RuntimeError("a bug")

    app = Studio(routes=[Route("/boom", boom)], exception_handlers=EXCEPTION_HANDLERS)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://studio.test") as client:
        response = await client.get("/boom")
    assert response.status_code == 500 and response.json()["error"]["code"] == "INTERNAL_ERROR"
    assert response.headers["x-content-type-options"] == "nosniff"
