"""Runs over HTTP: start, confirm, follow, replay, cancel, resume after a restart, and the editors' inbox.

Everything that can be checked is checked before the response starts, so bad input is a plain 4xx JSON
error; once the SSE stream has started, failures arrive as `error` events followed by `[DONE]`.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from agents.errors import ThreadBusy
from agents.hitl import UserResponse
from agents.revision import QuickAction, quick_message
from agents.run import Run, RunManager, RunRequest
from app.audit import confirm_details
from app.creatives import iso
from app.http.auth import accounts_of, client_address, principal_of, require, require_on
from app.http.errors import ValidationFailed
from app.http.limits import check_run_limits
from app.http.request import read_model, settings_of
from app.http.sse import event_stream
from tools.accounts import Action, AuditEntry, Principal
from tools.database import Creative, CreativeStatus

THREAD_ID = r"^[A-Za-z0-9_.:-]{1,100}$"
ACTIONS = ("approve", "reject", "modify")
MAX_CURSOR = 2**63 - 1  # the largest seq SQLite can store (a signed 64-bit integer)
CURSOR = re.compile(r"[0-9]{1,19}")  # ASCII digits only; longer cannot be within MAX_CURSOR


class ConfirmRequest(BaseModel):
    """The body of `POST /api/agent/confirm` (the action's own rules are checked against the pause).
    Strict, like every request body: JSON types are never converted."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        # an action, or the answer to a clarification (checked against the pause: INVALID_CONFIRMATION)
        json_schema_extra={"anyOf": [{"required": ["action"]}, {"required": ["userResponse"]}]},
    )

    thread_id: str = Field(pattern=THREAD_ID)
    # checked against the pause (422 INVALID_CONFIRMATION); the schema names the values
    action: Annotated[str, Field(json_schema_extra={"enum": list(ACTIONS)})] | None = None
    modified_data: dict[str, Any] | None = None
    user_feedback: str | None = Field(None, max_length=4000)
    interrupt_id: str | None = None
    user_response: UserResponse | None = None


class ThreadView(BaseModel):
    """`GET /api/agent/threads/{threadId}`."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    thread_id: str
    status: str
    pending: dict[str, Any] | None
    creative_id: int
    last_seq: int
    owner_id: int | None = None  # who started the run (null: a local CLI run, or one from before accounts)
    started_by: str | None = None  # `user:<name>`, `cli:<os user>`


class InboxItem(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    thread_id: str
    creative_id: int
    request: str
    kind: str | None  # content | image_plans | clarification
    question: str
    paused_at: str
    pending: dict[str, Any]
    started_by: str | None  # the actor who started the run (`user:<name>`, `cli:<os user>`)
    waiting_for: dict[str, Any]  # who may act: {"owner": name or null, "roles": [...], "label": "..."}
    last_action: dict[str, Any] | None  # the newest audit record of the run: {"actor", "action", "at"}


def manager_of(request: Request) -> RunManager:
    manager: RunManager = request.app.state.runs
    return manager


def _stream(request: Request, run: Run, *, owner: bool) -> Response:
    manager = manager_of(request)
    return event_stream(
        manager.follow(run.thread_id, run.start_seq),
        heartbeat_s=settings_of(request).heartbeat_s,
        on_disconnect=(lambda: manager.abort_on_disconnect(run)) if owner else None,
        on_shutdown=manager.shutdown,
    )


async def start_run(request: Request) -> Response:
    """POST /api/agent/stream — start a run and stream its events (creators and admins; a per-request
    `model` only for admins unless `STUDIO_ALLOW_MODEL_OVERRIDE`; per-user limits: 429). With the `threadId`
    of a finished thread, a revision run on it (its owner or an editor)."""
    principal = principal_of(request)
    if not principal.can(Action.CONFIRM_ANY):  # an editor may only revise: checked once the thread is known
        require(request, Action.START_RUN)
    body = await read_model(request, RunRequest)
    if body.model and not (principal.can(Action.MODEL_OVERRIDE) or settings_of(request).allow_model_override):
        require(request, Action.MODEL_OVERRIDE)
    given = body.thread_id
    thread_id = given or uuid.uuid4().hex  # named now: the limits hold its place by name
    body = body.model_copy(update={"thread_id": thread_id})
    manager = manager_of(request)
    existing = await manager.find(given) if given else None
    if existing is not None:
        require_on(request, "confirm", existing.owner_id)  # a revision: the owner's or an editor's
    else:
        require(request, Action.START_RUN)
    async with check_run_limits(request, principal, thread_id):
        try:
            run = await manager.start(body, owner_id=principal.user_id, started_by=principal.actor)
        except ThreadBusy as exc:  # a running or paused thread: 409, or the message waits its turn
            if existing is None or not settings_of(request).queue_revisions or (exc.details or {}).get(
                "resumable"
            ):
                raise
            await _audit(request, principal, "revise", thread_id, existing.id, {
                "message": body.message, "queued": True,
            })
            return event_stream(
                manager.queued(body, started_by=principal.actor),
                heartbeat_s=settings_of(request).heartbeat_s, on_shutdown=manager.shutdown,
            )
    if given and existing is not None:  # a revision keeps the thread's settings: what it asked is the message
        await _audit(request, principal, "revise", run.thread_id, run.creative_id, {"message": body.message})
    else:
        await _audit(request, principal, "start", run.thread_id, run.creative_id, {
            "imageCount": body.image_count, **({"model": body.model} if body.model else {}),
        })
    return _stream(request, run, owner=True)


async def _audit(
    request: Request, principal: Principal, action: str, thread_id: str, creative_id: int,
    details: dict[str, Any] | None = None,
) -> None:
    await accounts_of(request).audit(
        principal.actor, action, user_id=principal.user_id, thread_id=thread_id, creative_id=creative_id,
        details=details, address=client_address(request),
    )


async def confirm_run(request: Request) -> Response:
    """POST /api/agent/confirm — answer the pending pause and stream the resumed run (the run's owner, or
    an editor / admin for anyone's)."""
    principal = principal_of(request)
    body = await read_model(request, ConfirmRequest)
    payload = body.model_dump(by_alias=True, exclude_none=True, exclude={"thread_id"})
    manager = manager_of(request)
    creative = await manager.thread(body.thread_id)
    require_on(request, "confirm", creative.owner_id)
    pending = await manager.pending(body.thread_id)
    run = await manager.confirm(body.thread_id, payload)
    action, details = confirm_details(payload, pending)
    await _audit(request, principal, action, body.thread_id, creative.id, details)
    return _stream(request, run, owner=True)


async def _thread(request: Request, verb: str) -> Creative:
    """The thread's creative, if the principal may `verb` it (404 unknown, 403 not theirs)."""
    creative = await manager_of(request).thread(request.path_params["thread_id"])
    require_on(request, verb, creative.owner_id)  # type: ignore[arg-type]
    return creative


async def get_thread(request: Request) -> Response:
    """GET /api/agent/threads/{threadId}."""
    thread_id = request.path_params["thread_id"]
    manager = manager_of(request)
    creative = await _thread(request, "read")
    pending = await manager.pending(thread_id) if creative.status == CreativeStatus.PAUSED else None
    view = ThreadView(
        thread_id=thread_id,
        status=creative.status,
        pending=pending,
        creative_id=creative.id,
        last_seq=await manager.last_seq(thread_id),
        owner_id=creative.owner_id,
        started_by=creative.started_by,
    )
    return JSONResponse(view.model_dump(by_alias=True))


def parse_cursor(raw: str) -> int | None:
    """An event cursor: 1..19 ASCII digits worth at most `MAX_CURSOR`; None for anything else. (`str.isdigit`
    and `int` also take Unicode digits such as ² or ３, and SQLite integers end at 2**63 - 1.)"""
    if not CURSOR.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= MAX_CURSOR else None


def _after(request: Request) -> int:
    """The replay cursor: `Last-Event-ID` header, else `?after=`, else 0. Each one given must parse (422)."""
    header, query = request.headers.get("last-event-id"), request.query_params.get("after")
    cursors = (("after", query), ("Last-Event-ID", header))
    parsed: dict[str, int] = {}
    for field, raw in cursors:
        if not raw:  # absent or empty: not given
            continue
        value = parse_cursor(raw)
        if value is None:
            message = f"{field} 必须是 0 到 {MAX_CURSOR} 之间的整数（事件的 seq，只用 ASCII 数字 0-9）"
            raise ValidationFailed(message, details=[{"field": field, "error": message, "value": raw[:40]}])
        parsed[field] = value
    return parsed.get("Last-Event-ID", parsed.get("after", 0))


async def thread_events(request: Request) -> Response:
    """GET /api/agent/threads/{threadId}/events — replay after the cursor, then follow live events."""
    thread_id = request.path_params["thread_id"]
    after = _after(request)
    manager = manager_of(request)
    await _thread(request, "read")
    return event_stream(
        manager.follow(thread_id, after),
        heartbeat_s=settings_of(request).heartbeat_s,
        on_shutdown=manager.shutdown,
    )


async def cancel_thread(request: Request) -> Response:
    """POST /api/agent/threads/{threadId}/cancel — stop a running (or discard a paused) run."""
    thread_id = request.path_params["thread_id"]
    creative = await _thread(request, "cancel")
    status = await manager_of(request).cancel(thread_id)
    await _audit(request, principal_of(request), "cancel", thread_id, creative.id, {"status": status})
    return JSONResponse({"threadId": thread_id, "status": status})


async def resume_thread(request: Request) -> Response:
    """POST /api/agent/threads/{threadId}/resume — continue a run cut off by a restart (SSE)."""
    creative = await _thread(request, "cancel")
    principal = principal_of(request)
    thread_id = request.path_params["thread_id"]
    async with check_run_limits(request, principal, thread_id, starting=False):
        run = await manager_of(request).resume_interrupted(thread_id)
    await _audit(request, principal, "resume", run.thread_id, creative.id)
    return _stream(request, run, owner=True)


class Selection(BaseModel):
    """A passage of the current body: code-point offsets (`end` exclusive) and the text found there."""

    model_config = ConfigDict(extra="forbid", strict=True)
    start: int = Field(ge=0, le=20_000)
    end: int = Field(ge=1, le=20_000)
    text: str = Field(min_length=1, max_length=3000)


class RewriteRequest(BaseModel):
    """The body of `POST /api/agent/threads/{threadId}/rewrite`: a one-click rewrite of the finished draft.
    `audience` is required (a string) with the action `audience`."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        json_schema_extra={"allOf": [
            {
                "if": {"required": ["action"], "properties": {"action": {"const": "audience"}}},
                "then": {"required": ["audience"], "properties": {"audience": {"type": "string"}}},
            },
            {
                "if": {"required": ["action"], "properties": {"action": {"const": "selection"}}},
                "then": {
                    "required": ["selection", "instruction"],
                    "properties": {"selection": {"type": "object"}, "instruction": {"type": "string"}},
                },
            },
        ]},
    )

    action: QuickAction | Literal["selection"]
    audience: str | None = Field(None, min_length=1, max_length=20, pattern=r"\S")  # for `audience`
    # for `selection` (highlight-to-edit): the passage of the current body and what to do with it
    selection: Selection | None = None
    instruction: str | None = Field(None, min_length=1, max_length=200, pattern=r"\S")
    based_on: int = Field(ge=1, le=1_000_000)  # the version the client saw as current
    enable_hitl: bool | None = Field(None, alias="enableHITL")


def _selection(body: RewriteRequest) -> dict[str, Any] | None:
    """The passage of a `selection` rewrite with its instruction, checked; None for the other actions."""
    if body.action != "selection":
        return None
    if body.selection is None or body.instruction is None:
        raise ValidationFailed("改写选中文字需要选中的位置和修改要求",
                               details=[{"field": "selection", "error": "required"}])
    chosen = body.selection
    if chosen.end <= chosen.start or chosen.end - chosen.start != len(chosen.text):
        raise ValidationFailed("选中的位置和文字对不上（end − start 应等于文字的长度）",
                               details=[{"field": "selection", "error": "mismatch"}])
    return {"start": chosen.start, "end": chosen.end, "text": chosen.text, "instruction": body.instruction}


async def rewrite_thread(request: Request) -> Response:
    """POST /api/agent/threads/{threadId}/rewrite — a one-click rewrite of a finished thread's draft
    (shorter, longer, livelier, more formal, more or fewer emoji, another title, another audience): a text
    revision run that ends with a new version (SSE)."""
    creative = await _thread(request, "confirm")
    principal = principal_of(request)
    thread_id = request.path_params["thread_id"]
    body = await read_model(request, RewriteRequest)
    if body.action == "audience" and not body.audience:
        raise ValidationFailed("换受众需要写明新的受众", details=[{"field": "audience", "error": "required"}])
    span = _selection(body)
    message = body.instruction or "" if span else quick_message(body.action, body.audience)
    run_request = RunRequest(
        message=message, thread_id=thread_id, based_on=body.based_on, enable_hitl=body.enable_hitl
    )
    async with check_run_limits(request, principal, thread_id):
        run = await manager_of(request).rewrite(run_request, span=span, actor=principal.actor)
    details = {"action": body.action, "message": message, **({"selection": span["text"]} if span else {})}
    await _audit(request, principal, "rewrite", thread_id, creative.id, details)
    return _stream(request, run, owner=True)


async def inbox(request: Request) -> Response:
    """GET /api/agent/inbox — paused threads awaiting an editor, newest first, with who started each,
    who may act on it and the last action taken on it."""
    require(request, Action.INBOX)
    paused = await manager_of(request).inbox()
    last = await accounts_of(request).last_actions([p.creative.thread_id for p in paused])
    items = []
    for creative, owner, pending in ((p.creative, p.owner, p.pending) for p in paused):
        context = pending.get("context") or {}
        items.append(
            InboxItem(
                thread_id=creative.thread_id,
                creative_id=creative.id,
                request=creative.request,
                kind=context.get("kind") or ("clarification" if context.get("__clarification") else None),
                question=str(pending.get("question") or ""),
                paused_at=iso(creative.updated_at) or "",
                pending=pending,
                started_by=creative.started_by,
                waiting_for={
                    "owner": owner,
                    "roles": ["editor", "admin"],
                    "label": f"{owner} 或任一编辑" if owner else "任一编辑",
                },
                last_action=_action_wire(last.get(creative.thread_id)),
            ).model_dump(by_alias=True)
        )
    return JSONResponse({"items": items, "total": len(items)})


def _action_wire(entry: AuditEntry | None) -> dict[str, Any] | None:
    return None if entry is None else {"actor": entry.actor, "action": entry.action, "at": iso(entry.at)}


routes: list[BaseRoute] = [
    Route("/api/agent/stream", start_run, methods=["POST"]),
    Route("/api/agent/confirm", confirm_run, methods=["POST"]),
    Route("/api/agent/inbox", inbox, methods=["GET"]),
    Route("/api/agent/threads/{thread_id:str}", get_thread, methods=["GET"]),
    Route("/api/agent/threads/{thread_id:str}/events", thread_events, methods=["GET"]),
    Route("/api/agent/threads/{thread_id:str}/cancel", cancel_thread, methods=["POST"]),
    Route("/api/agent/threads/{thread_id:str}/resume", resume_thread, methods=["POST"]),
    Route("/api/agent/threads/{thread_id:str}/rewrite", rewrite_thread, methods=["POST"]),
]
