"""The OpenAPI 3.1 document served at `/openapi.json`.

Bodies and responses are described by the same pydantic models the routes validate with, so the
document cannot drift from the code; the SSE events are the models of `agents.events`. Parameters are
built from the same constants the server checks them with (cursor and date patterns, ranges, enums), so
the document states every constraint the server enforces (tests/app/test_openapi.py holds it to that).
"""

from __future__ import annotations

from functools import cache
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse

from agents.events import EPHEMERAL_MODELS, STORED_MODELS
from agents.runner import RunRequest
from app.creatives import DAY as DAY_PATTERN
from app.creatives import MAX_ID, Sort
from app.routes.agent import CURSOR as CURSOR_RE
from app.routes.agent import MAX_CURSOR, THREAD_ID, ConfirmRequest, InboxItem, ThreadView
from tools.database import CreativeStatus

REF = "#/components/schemas/{model}"
CURSOR_PATTERN = f"^({CURSOR_RE.pattern})?$"  # empty: not given


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
        503: "The server is stopping (graceful shutdown): SERVER_STOPPING",
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


THREAD = [
    {
        "name": "threadId",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": THREAD_ID},
        "description": "The thread id (any other is an unknown thread: 404)",
    }
]
ID = [
    {
        "name": "id",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
        "description": "A positive id (any other, or an unknown one, is a 404)",
    }
]
DAY = {"type": "string", "format": "date", "pattern": f"^{DAY_PATTERN.pattern}$"}
CREATIVE_FILTERS = [  # an empty value is ignored (allowEmptyValue), like an unknown name
    {
        "name": name,
        "in": "query",
        "required": False,
        "allowEmptyValue": True,
        "schema": schema,
        "description": f"{text} (empty: ignored)",
        **extra,
    }
    for name, schema, text, extra in (
        (
            "status",
            {"type": "array", "items": {"type": "string", "enum": [s.value for s in CreativeStatus]}},
            "Repeat it for several; commas inside one value work too. An unknown status is a 422.",
            {"style": "form", "explode": True},
        ),
        ("q", {"type": "string", "maxLength": 200}, "Words that must all appear (title, body, request…)", {}),
        ("tag", {"type": "string", "maxLength": 100}, "One exact tag", {}),
        ("from", DAY, "Created on or after this UTC day: exactly YYYY-MM-DD, not after `to` (422)", {}),
        ("to", DAY, "Created on or before this UTC day: exactly YYYY-MM-DD in ASCII digits", {}),
        ("minScore", {"type": "number", "minimum": 0, "maximum": 1}, "Overall review score at least", {}),
        ("sort", {"type": "string", "enum": list(get_args(Sort))}, "Order (ties by id)", {}),
        ("limit", {"type": "integer", "minimum": 1, "maximum": 200}, "Page size, ASCII digits", {}),
        ("offset", {"type": "integer", "minimum": 0, "maximum": 10**9}, "Rows skipped, ASCII digits", {}),
    )
]
CURSOR = [
    {
        "name": "after",
        "in": "query",
        "required": False,
        "allowEmptyValue": True,
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_CURSOR},
        "description": "Replay after this seq: 1-19 ASCII digits (used when no Last-Event-ID is sent; "
        "checked either way; empty: not given)",
    },
    {
        "name": "Last-Event-ID",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "pattern": CURSOR_PATTERN},
        "description": f"Replay after this seq: 1-19 ASCII digits, at most {MAX_CURSOR}; wins over `after` "
        "(empty: not given)",
    },
]
DESCRIPTION = (
    "Multi-agent content studio: runs over SSE, checkpoints, replay, creatives. "
    "Request bodies are validated strictly: no JSON type is converted (a string is not a number or a "
    "boolean, a boolean is not a number, an integer field takes only a JSON integer) — 422 VALIDATION_ERROR. "
    "Every response carries `X-Content-Type-Options: nosniff`; a method a path does not take is a 405 "
    "METHOD_NOT_ALLOWED whose `Allow` header lists the methods it takes. Errors are "
    '`{"error": {"code", "message", "details"}}`.'
)


def _paths() -> dict[str, Any]:
    return {
        "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "ok"}}}},
        "/api/agent/stream": {
            "post": {
                "summary": "Start a run (SSE)",
                "requestBody": _body("RunRequest"),
                "responses": {**SSE, **_errors(400, 409, 413, 422, 503)},
            }
        },
        "/api/agent/confirm": {
            "post": {
                "summary": "Answer the pending pause: approve, reject, modify or a clarification (SSE)",
                "requestBody": _body("ConfirmRequest"),
                "responses": {**SSE, **_errors(400, 404, 409, 413, 422, 503)},
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
                "parameters": [*THREAD, *CURSOR],
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
                "responses": {**SSE, **_errors(404, 409, 503)},
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
                "responses": {
                    "200": {
                        "description": "The creative. `assets` is its current set (one per task index, plus "
                        "uploads); pictures replaced by a redo are in `assetHistory` (`supersededAt` set)."
                    },
                    **_errors(404),
                },
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
            "description": DESCRIPTION,
        },
        "paths": _paths(),
        "components": {"schemas": components},
    }


async def openapi_json(request: Request) -> JSONResponse:
    """GET /openapi.json."""
    return JSONResponse(document())
