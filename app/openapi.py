"""The OpenAPI 3.1 document served at `/openapi.json`.

Bodies and responses are described by the same pydantic models the routes validate with, so the
document cannot drift from the code; the SSE events are the models of `agents.events`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse

from agents.events import EPHEMERAL_MODELS, STORED_MODELS
from agents.runner import RunRequest
from app.routes.agent import ConfirmRequest, InboxItem, ThreadView

REF = "#/components/schemas/{model}"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "SNAKE_CASE, stable"},
                "message": {"type": "string", "description": "human readable (Chinese)"},
                "details": {"description": "structured context, e.g. field errors"},
            },
        }
    },
}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {
        400: "Malformed body",
        404: "Unknown thread, creative or asset",
        409: "State conflict",
        413: "Body too large",
        422: "Validation failed",
    }
    return {
        str(s): {"description": text[s], "content": {"application/json": {"schema": _ref("Error")}}}
        for s in statuses
    }


SSE = {
    "200": {
        "description": "SSE: frames `id: <seq>` + `data: <event json>`, `: keep-alive` heartbeats, "
        "ending with `data: [DONE]`. Ephemeral events (`content_delta`) are frames without `id:`, never "
        "replayed.",
        "content": {
            "text/event-stream": {"schema": {"oneOf": [_ref("StreamEvent"), _ref("EphemeralStreamEvent")]}}
        },
    }
}


def _json(name: str, description: str = "OK") -> dict[str, Any]:
    return {"200": {"description": description, "content": {"application/json": {"schema": _ref(name)}}}}


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


THREAD = [{"name": "threadId", "in": "path", "required": True, "schema": {"type": "string"}}]
ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
CREATIVE_FILTERS = [
    {"name": name, "in": "query", "required": False, "schema": schema, "description": text}
    for name, schema, text in (
        ("status", {"type": "string"}, "draft|running|paused|completed|failed|aborted"),
        ("q", {"type": "string"}, "full text over title, body, tags and the request"),
        ("tag", {"type": "string"}, "exact tag"),
        ("from", {"type": "string", "format": "date"}, "created on or after"),
        ("to", {"type": "string", "format": "date"}, "created on or before"),
        ("minScore", {"type": "number"}, "overall review score at least"),
        ("sort", {"type": "string"}, "e.g. -created, created, -score, score, title"),
        ("limit", {"type": "integer", "minimum": 1, "maximum": 200}, "page size"),
        ("offset", {"type": "integer", "minimum": 0}, "page start"),
    )
]


def _paths() -> dict[str, Any]:
    return {
        "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "ok"}}}},
        "/api/agent/stream": {
            "post": {
                "summary": "Start a run (SSE)",
                "requestBody": _body("RunRequest"),
                "responses": {**SSE, **_errors(400, 409, 413, 422)},
            }
        },
        "/api/agent/confirm": {
            "post": {
                "summary": "Answer the pending pause: approve, reject, modify or a clarification (SSE)",
                "requestBody": _body("ConfirmRequest"),
                "responses": {**SSE, **_errors(400, 404, 409, 413, 422)},
            }
        },
        "/api/agent/inbox": {
            "get": {
                "summary": "Paused threads awaiting an editor, newest first",
                "responses": _json("Inbox"),
            }
        },
        "/api/agent/threads/{threadId}": {
            "get": {
                "summary": "A thread's status and pending question",
                "parameters": THREAD,
                "responses": {**_json("ThreadView"), **_errors(404)},
            }
        },
        "/api/agent/threads/{threadId}/events": {
            "get": {
                "summary": "Replay stored events after Last-Event-ID / ?after=, then follow live (SSE)",
                "parameters": [
                    *THREAD,
                    {"name": "after", "in": "query", "required": False, "schema": {"type": "integer"}},
                    {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {**SSE, **_errors(404, 422)},
            }
        },
        "/api/agent/threads/{threadId}/cancel": {
            "post": {
                "summary": "Stop a running run (or discard a paused one); status becomes aborted",
                "parameters": THREAD,
                "responses": {"200": {"description": "{threadId, status}"}, **_errors(404, 409)},
            }
        },
        "/api/agent/threads/{threadId}/resume": {
            "post": {
                "summary": "Continue a run cut off by a restart from its last checkpoint (SSE)",
                "parameters": THREAD,
                "responses": {**SSE, **_errors(404, 409)},
            }
        },
        "/api/creatives": {
            "get": {
                "summary": "Creatives, filtered, sorted and paged: {items, total}",
                "parameters": CREATIVE_FILTERS,
                "responses": {"200": {"description": "{items, total}"}, **_errors(422)},
            }
        },
        "/api/creatives/stats": {
            "get": {
                "summary": "Counts by status, score averages and distributions, top tags, per-day counts",
                "parameters": CREATIVE_FILTERS,
                "responses": {"200": {"description": "statistics"}, **_errors(422)},
            }
        },
        "/api/creatives/export.csv": {
            "get": {
                "summary": "The filtered creatives as CSV (UTF-8 with BOM)",
                "parameters": CREATIVE_FILTERS,
                "responses": {"200": {"description": "CSV", "content": {"text/csv": {}}}, **_errors(422)},
            }
        },
        "/api/creatives/{id}": {
            "get": {
                "summary": "One creative with brief, evidence, plans, review rounds, assets, timings, usage",
                "parameters": ID,
                "responses": {"200": {"description": "the creative"}, **_errors(404)},
            }
        },
        "/api/assets/{id}": {
            "get": {
                "summary": "Image bytes with their content type",
                "parameters": ID,
                "responses": {"200": {"description": "image", "content": {"image/*": {}}}, **_errors(404)},
            }
        },
    }


class Inbox(BaseModel):
    items: list[InboxItem]
    total: int


@cache
def document() -> dict[str, Any]:
    models: list[type[BaseModel]] = [
        RunRequest, ConfirmRequest, ThreadView, Inbox, *STORED_MODELS, *EPHEMERAL_MODELS
    ]
    bodies = (RunRequest, ConfirmRequest)
    _, schemas = models_json_schema(
        [(model, "validation" if model in bodies else "serialization") for model in models],
        by_alias=True,
        ref_template=REF,
    )
    components: dict[str, Any] = dict(schemas.get("$defs", {}))
    components["Error"] = ERROR_SCHEMA
    components["StreamEvent"] = {  # stored, numbered (`seq`, the frame's `id:`), replayed
        "oneOf": [_ref(model.__name__) for model in STORED_MODELS],
        "discriminator": {"propertyName": "type"},
    }
    components["EphemeralStreamEvent"] = {  # live only: no `seq`, a frame without `id:`, never replayed
        "oneOf": [_ref(model.__name__) for model in EPHEMERAL_MODELS],
        "discriminator": {"propertyName": "type"},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Content Studio",
            "version": "0.1.0",
            "description": "Multi-agent content studio: runs over SSE, checkpoints, replay, creatives.",
        },
        "paths": _paths(),
        "components": {"schemas": components},
    }


async def openapi_json(request: Request) -> JSONResponse:
    """GET /openapi.json."""
    return JSONResponse(document())
