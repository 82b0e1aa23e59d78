"""The OpenAPI 3.1 document served at `/openapi.json`.

Bodies and responses are described by the same pydantic models the routes validate with, so the
document cannot drift from the code; the SSE events are the models of `agents.events`. Parameters are
built from the same constants the server checks them with (cursor and date patterns, ranges, enums), so
the document states every constraint the server enforces (tests/app/test_openapi.py holds it to that).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse

from agents.events import EPHEMERAL_MODELS, STORED_MODELS
from agents.image_edit import ImageEditRequest
from agents.run import RunRequest
from app.creatives import DAY as DAY_PATTERN
from app.creatives import MAX_ID, Sort
from app.http.auth import SESSION_COOKIE
from app.http.routes.agent import CURSOR as CURSOR_RE
from app.http.routes.agent import MAX_CURSOR, THREAD_ID, ConfirmRequest, InboxItem, RewriteRequest, ThreadView
from app.http.routes.analysis import AnalysisView
from app.http.routes.versions import MAX_VERSION, EditBody, RestoreBody
from tools.accounts import Action, Role
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


ERROR_TEXT = {
    400: "Malformed body",
    404: "Unknown thread, creative or asset",
    409: "State conflict",
    413: "Body too large",
    422: "Validation failed",
    503: "The server is stopping (graceful shutdown): SERVER_STOPPING",
}
# what `app.http.auth.Guard` (and the per-user run limits) answer; `_guard` adds them to the operations
GUARD_TEXT = {
    400: "HOST_NOT_ALLOWED: the `Host` header names no allowed host (STUDIO_ALLOWED_HOSTS)",
    401: "UNAUTHENTICATED: no, or an invalid, expired or revoked token / session",
    403: "FORBIDDEN: the role may not do this, or not to someone else's run or creative; a state-changing "
    "request from another `Origin`; a cookie-authenticated API call without its `X-CSRF-Token`",
    415: "UNSUPPORTED_MEDIA_TYPE: a body that is not `application/json`",
    429: "RATE_LIMITED: a per-user run limit (concurrent runs, starts per minute); wait `Retry-After` "
    "seconds",
}
GUARD_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string", "enum": ["Bearer"]}}},
    429: {
        "Retry-After": {
            "description": "Seconds to wait before trying again",
            "required": True,
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}


def _error(status: int, description: str) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description, "content": {"application/json": {"schema": _ref("Error")}}
    }
    if status in GUARD_HEADERS:
        response["headers"] = GUARD_HEADERS[status]
    return response


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(s): _error(s, ERROR_TEXT.get(s) or GUARD_TEXT[s]) for s in statuses}


def _guard(path: str, method: str, operation: dict[str, Any]) -> None:
    """Add the responses every request may get before its route: 400 for a `Host` that is not allowed;
    401 (and 403, except on `/api/me`) where a login is needed; 415 for a POST under /api/."""
    statuses = [400]
    if operation.get("security") != []:
        statuses += [401] if path == "/api/me" else [401, 403]
    if method == "post" and path.startswith("/api/"):
        statuses.append(415)
    responses = operation["responses"]
    for status in statuses:
        key = str(status)
        if key in responses:  # the route's own meaning first, the guard's after it
            responses[key]["description"] += "; or " + GUARD_TEXT[status]
        else:
            responses[key] = _error(status, GUARD_TEXT[status])
    operation["responses"] = dict(sorted(responses.items()))


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
VERSION = [
    {
        "name": "n",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_VERSION},
        "description": "A version number, from 1 (an unknown one is a 404)",
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
    "Every operation but `/healthz` needs a login: `Authorization: Bearer <API token>` (scripts, the CLI; "
    "`studio tokens create NAME`, or the local admin's `<data dir>/admin-token`) or the web studio's session "
    "cookie, whose state-changing API calls also send `X-CSRF-Token` (`csrfToken` of `GET /api/me`). "
    "The login, logout and account pages (`/login`, `/logout`, `/account`, `/account/password`) are HTML "
    "forms, like the studio's other pages not part of this document. "
    "Request bodies are validated strictly: no JSON type is converted (a string is not a number or a "
    "boolean, a boolean is not a number, an integer field takes only a JSON integer) — 422 VALIDATION_ERROR. "
    "Every response carries `X-Content-Type-Options: nosniff`; a method a path does not take is a 405 "
    "METHOD_NOT_ALLOWED whose `Allow` header lists the methods it takes. Errors are "
    '`{"error": {"code", "message", "details"}}`.'
)
SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API token (`studio tokens create NAME`; the local admin's is in "
        "`<data dir>/admin-token`)",
    },
    "sessionCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": SESSION_COOKIE,
        "description": "The web studio's login (`POST /login`); state-changing API calls also send the "
        "session's `X-CSRF-Token` (403 without it). A bearer token wins over the cookie.",
    },
}


def _paths() -> dict[str, Any]:
    return {
        "/healthz": {
            "get": {
                "summary": "Liveness (no login needed)",
                "security": [],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/api/me": {
            "get": {
                "summary": "Who the request acts as: name, role, how it logged in, what it may do, and the "
                "session's CSRF token (null for a bearer token)",
                "responses": _json("Me"),
            }
        },
        "/api/agent/stream": {
            "post": {
                "summary": "Start a run (SSE); creators and admins (a per-request `model` only for admins "
                "unless STUDIO_ALLOW_MODEL_OVERRIDE)",
                "requestBody": _body("RunRequest"),
                "responses": {**SSE, **_errors(400, 409, 413, 422, 429, 503)},
            }
        },
        "/api/agent/confirm": {
            "post": {
                "summary": "Answer the pending pause: approve, reject, modify or a clarification (SSE); the "
                "run's owner, or an editor or admin",
                "requestBody": _body("ConfirmRequest"),
                "responses": {
                    **SSE,
                    **_errors(400, 404, 409, 413, 503),
                    "422": _error(422, "Validation failed; INVALID_CONFIRMATION: the body does not fit the "
                                  "pending pause (an answer to a checkpoint, an action to a clarification "
                                  "question, changes a modify cannot apply)"),
                },
            }
        },
        "/api/agent/inbox": {
            "get": {
                "summary": "Paused threads awaiting an editor, newest first, with who started each, who may "
                "act on it and the last action taken on it",
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
                "responses": {**SSE, **_errors(404, 409, 429, 503)},
            }
        },
        "/api/agent/threads/{threadId}/rewrite": {
            "post": {
                "summary": "A one-click rewrite of a finished thread's draft — shorter, longer, livelier, "
                "more formal, more or fewer emoji, another title, another audience: a text revision run that "
                "ends with a new version (SSE). `basedOn` is the version the client saw as current: stale "
                "→ 409 VERSION_CONFLICT; a running or paused thread → 409 THREAD_BUSY",
                "parameters": THREAD,
                "requestBody": _body("RewriteRequest"),
                "responses": {**SSE, **_errors(404, 409, 422, 429, 503)},
            }
        },
        "/api/creatives": {
            "get": {
                "summary": "Creatives, filtered, sorted and paged (a creator sees their own only)",
                "parameters": CREATIVE_FILTERS,
                "responses": {**_json("CreativeList"), **_errors(422)},
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
                    **_json(
                        "CreativeDetail",
                        "The creative. `assets` is its current set (one per task index, plus uploads); "
                        "pictures replaced by a redo are in `assetHistory` (`supersededAt` set).",
                    ),
                    **_errors(404),
                },
            }
        },
        "/api/creatives/{id}/audit": {
            "get": {
                "summary": "Who started, confirmed, rejected (with the feedback), modified (with what "
                "changed), cancelled or resumed the creative's run, oldest first",
                "parameters": ID,
                "responses": {**_json("AuditTrail"), **_errors(404)},
            }
        },
        "/api/creatives/{id}/versions": {
            "get": {
                "summary": "The creative's versions, oldest first (one per completed run or restore), "
                "with the URLs of their pictures",
                "parameters": ID,
                "responses": {**_json("VersionList"), **_errors(404)},
            },
            "post": {
                "summary": "Edit the current version's title, body or tags by hand: a new version (source "
                "manual_edit) with the text checks it fails as `warnings` (never a refusal). `basedOn` is "
                "the version the client saw as current: a stale one is a 409 VERSION_CONFLICT; a creative "
                "with a run going or paused is a 409 THREAD_BUSY; content a post cannot have is a 422",
                "parameters": ID,
                "requestBody": _body("EditBody"),
                "responses": {
                    "201": {
                        "description": "Created", "content": {"application/json": {"schema": _ref("Edited")}}
                    },
                    **_errors(404, 409, 422),
                },
            },
        },
        "/api/creatives/{id}/versions/{n}": {
            "get": {
                "summary": "One version and what it changed against the one before it, character by "
                "character",
                "parameters": [*ID, *VERSION],
                "responses": {**_json("VersionDetail"), **_errors(404)},
            }
        },
        "/api/creatives/{id}/versions/{n}/restore": {
            "post": {
                "summary": "Make version n current again, as a new version (nothing is deleted). `basedOn` "
                "is the version the client saw as current: a stale one is a 409 VERSION_CONFLICT; a "
                "creative with a run going or paused is a 409 THREAD_BUSY",
                "parameters": [*ID, *VERSION],
                "requestBody": _body("RestoreBody"),
                "responses": {**_json("Restored"), **_errors(404, 409, 422)},
            }
        },
        "/api/creatives/{id}/package.zip": {
            "get": {
                "summary": "A version as a publishing package (zip): its pictures in order (01.png, "
                "02.jpg …), post.txt (title, body, #tags) and manifest.json; readable by whoever may read "
                "the creative. A creative without a version, or an unknown version, is a 404 "
                "VERSION_NOT_FOUND",
                "parameters": [*ID, {
                    "name": "version",
                    "in": "query",
                    "required": False,
                    "allowEmptyValue": True,
                    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_VERSION},
                    "description": "The version, ASCII digits (empty or absent: the current one)",
                }],
                "responses": {
                    "200": {
                        "description": "The zip, as an attachment (`Content-Disposition` with an ASCII "
                        "`filename` and the Chinese one as RFC 5987 `filename*`)",
                        "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    **_errors(404, 422),
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
        "/api/assets/{id}/edit": {
            "post": {
                "summary": "Edit one of a creative's pictures — a painted mask with an instruction, new "
                "parameters, the text inside it — as a new asset and a new version (SSE)",
                "description": "The picture must be in the creative's current version (else 409 "
                "NOT_EDITABLE); `basedOn` is the version the client saw as current (stale → 409 "
                "VERSION_CONFLICT); a creative with a run going or paused → 409 THREAD_BUSY; a mask that is "
                "not a PNG data URL of the picture's size with something marked → 422 INVALID_MASK. The "
                "stream: `image_progress` (generating, then complete with the new `assetId`), `message`s "
                "saying what was and was not done, `workflow_complete` with the new `version` — or `error`.",
                "parameters": ID,
                "requestBody": _body("ImageEditRequest"),
                "responses": {**SSE, **_errors(404, 409, 422)},
            }
        },
        "/api/assets/{id}/analysis": {
            "get": {
                "summary": "What the image shows: recognised text (OCR) and element boxes",
                "description": "The same access as the image bytes. Computed on first request (OCR, about a "
                "second a card) and cached per asset (`cached`); `elements[].source` says whether a box is "
                "exact (`layout`: an offline card's own layout), recognised (`ocr`) or estimated "
                "(`heuristic`). Boxes are fractions of the image, origin top left.",
                "parameters": ID,
                "responses": {
                    **_json("AnalysisView"),
                    **_errors(404),
                    "422": _error(422, "IMAGE_DECODE_FAILED / OCR_FAILED: the stored file is not a readable "
                                  "image"),
                    "503": _error(503, "OCR_UNAVAILABLE: text recognition cannot run on this server (OpenCV, "
                                  "libGL or the OCR engine failed to load)"),
                },
            }
        },
    }


# --- response models of the routes that build dicts (their wire names, camelCase) ----------------------


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class WaitingFor(_Wire):
    owner: str | None  # the run's owner (who may act on their own run), None when it has none
    roles: list[Role]  # the roles that may act on anyone's
    label: str


class LastAction(_Wire):
    actor: str
    action: str
    at: str


class InboxEntry(InboxItem):
    """An inbox item (`app.http.routes.agent.InboxItem`), its dict fields spelled out (the route builds them
    as dicts of exactly these shapes; narrowing a field's type is what mypy calls an incompatible
    override)."""

    waiting_for: WaitingFor  # type: ignore[assignment]
    last_action: LastAction | None  # type: ignore[assignment]


class Inbox(BaseModel):
    items: list[InboxEntry]
    total: int


class Me(_Wire):
    user_id: int
    name: str
    role: Role
    role_label: str
    via: Literal["password", "token", "session"]
    permissions: list[Action]
    csrf_token: str | None  # the session's, for X-CSRF-Token; None for a bearer token


class AuditRecord(_Wire):
    id: int
    at: str
    actor: str  # `user:<name>`, `cli:<os user>`, `system`
    action: str
    action_label: str
    thread_id: str | None
    creative_id: int | None
    details: dict[str, Any]


class AuditTrail(_Wire):
    items: list[AuditRecord]


class CreativeSummary(_Wire):
    id: int
    thread_id: str
    status: CreativeStatus
    request: str
    title: str | None
    excerpt: str | None
    tags: list[str]
    score: float | None
    model: str | None
    image_count: int
    cover_url: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: a price was unknown
    created_at: str
    updated_at: str
    completed_at: str | None
    duration_ms: int | None
    started_by: str | None  # the actor who started the run: `user:<name>`, `cli:<os user>`


class CreativeList(_Wire):
    items: list[CreativeSummary]
    total: int
    limit: int
    offset: int


class Asset(_Wire):
    id: int
    task_index: int | None  # None: an uploaded reference image
    role: str
    status: str
    mime: str | None
    width: int
    height: int
    url: str | None  # None unless complete
    provider: str
    prompt: str | None
    error: str | None
    created_at: str
    superseded_at: str | None  # set: replaced by a redo (in `assetHistory`)
    redrawable: bool  # its card can be drawn again from its plan: new parameters need no image model


class Usage(_Wire):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cost_usd: float | None
    by_task: dict[str, Any]


class CreativeDetail(_Wire):
    id: int
    thread_id: str
    status: CreativeStatus
    request: str
    options: dict[str, Any]
    title: str | None
    body: str | None
    tags: list[str]
    brief: dict[str, Any] | None
    evidence: dict[str, Any] | None
    reference_analyses: list[Any]
    layout_spec: dict[str, Any] | None
    image_plans: list[Any]
    bindings: list[Any]
    overlay_plan: list[Any]
    review_rounds: list[Any]
    chosen_round: int | None
    score: float | None
    scores: dict[str, float | None] | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    usage: Usage
    timings: dict[str, Any]
    error: dict[str, Any] | None
    created_at: str
    updated_at: str
    completed_at: str | None
    duration_ms: int | None
    started_by: str | None
    owner_id: int | None  # the user who owns the run (None: started before accounts, or the user was removed)
    current_version: int | None  # the version the creative shows (None: no run has completed yet)
    assets: list[Asset]
    asset_history: list[Asset]


class VersionSummary(_Wire):
    number: int
    title: str | None
    body: str | None
    tags: list[str]
    image_asset_ids: list[int | None]
    image_urls: list[str | None]  # the pictures' URLs (the thumbnails of the list)
    review: dict[str, Any] | None  # the quality scores it ended with
    source: str  # `run` (a completed run), `restore` (an earlier version made current again)
    source_label: str
    actor: str | None  # who made it: `user:<name>`, `cli:<os user>`
    based_on: int | None  # the version it was made from
    restored_from: int | None  # a restore: the version it copies
    created_at: str | None


class VersionList(_Wire):
    creative_id: int
    current: int  # the creative's current version (0: none yet)
    items: list[VersionSummary]


class Version(VersionSummary):
    image_plans: list[Any]
    text_overlay_plan: list[Any]


class DiffRun(_Wire):
    op: Literal["equal", "insert", "delete"]
    text: str


class TagChanges(_Wire):
    added: list[str]
    removed: list[str]


class VersionDiff(_Wire):
    against: int | None  # the version compared with (the one before; None for version 1)
    title: list[DiffRun]
    body: list[DiffRun]
    tags: TagChanges
    images_changed: list[int]  # positions of the image set whose picture differs


class VersionDetail(_Wire):
    creative_id: int
    current: int
    version: Version
    diff: VersionDiff


class EditWarning(_Wire):
    check: str  # the text check's id (foreign_place, title_length …)
    dimension: str
    owner: str
    reason: str  # in Chinese, e.g. 标题超过 20 个字


class Edited(_Wire):
    creative_id: int
    version: int  # the new version's number
    warnings: list[EditWarning]


class Restored(_Wire):
    creative_id: int
    version: int  # the new version's number
    restored_from: int


# The confirm body's rules across its fields (agents.hitl.Confirmation, checked once the thread is found):
# an action or an answer that is not null; a reject says what to change; a modify sends the changes. What
# the changes may hold, and whether the pause takes an action or an answer, depend on the pause (422
# INVALID_CONFIRMATION).
CONFIRM_RULES: dict[str, Any] = {
    "anyOf": [
        {"required": ["action"], "properties": {"action": {"type": "string"}}},
        {"required": ["userResponse"], "properties": {"userResponse": {"type": "object"}}},
    ],
    "allOf": [
        {
            "if": {"required": ["action"], "properties": {"action": {"const": "reject"}}},
            "then": {
                "required": ["userFeedback"],
                "properties": {"userFeedback": {"type": "string", "pattern": r"\S"}},
            },
        },
        {
            "if": {"required": ["action"], "properties": {"action": {"const": "modify"}}},
            "then": {
                "required": ["modifiedData"],
                "properties": {"modifiedData": {"type": "object", "minProperties": 1}},
            },
        },
    ],
}


RESPONSE_MODELS: tuple[type[BaseModel], ...] = (
    AnalysisView,
    ThreadView, Inbox, Me, AuditTrail, CreativeList, CreativeDetail, VersionList, VersionDetail, Restored,
    Edited,
)


@cache
def document() -> dict[str, Any]:
    bodies = (RunRequest, ConfirmRequest, RestoreBody, EditBody, RewriteRequest, ImageEditRequest)
    models: list[type[BaseModel]] = [*bodies, *RESPONSE_MODELS, *STORED_MODELS, *EPHEMERAL_MODELS]
    _, schemas = models_json_schema(
        [(model, "validation" if model in bodies else "serialization") for model in models],
        by_alias=True,
        ref_template=REF,
    )
    components: dict[str, Any] = dict(schemas.get("$defs", {}))
    components["ConfirmRequest"] |= CONFIRM_RULES
    components["Error"] = ERROR_SCHEMA
    components["StreamEvent"] = {  # stored, numbered (`seq`, the frame's `id:`), replayed
        "oneOf": [_ref(model.__name__) for model in STORED_MODELS],
        "discriminator": {"propertyName": "type"},
    }
    components["EphemeralStreamEvent"] = {  # live only: no `seq`, a frame without `id:`, never replayed
        "oneOf": [_ref(model.__name__) for model in EPHEMERAL_MODELS],
        "discriminator": {"propertyName": "type"},
    }
    paths = _paths()
    for path, operations in paths.items():
        for method, operation in operations.items():
            _guard(path, method, operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Content Studio",
            "version": "0.1.0",
            "description": DESCRIPTION,
        },
        "security": [{"bearerAuth": []}, {"sessionCookie": []}],
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": SECURITY_SCHEMES},
    }


async def openapi_json(request: Request) -> JSONResponse:
    """GET /openapi.json."""
    return JSONResponse(document())
