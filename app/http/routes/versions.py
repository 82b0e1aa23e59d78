"""A creative's versions: the list (with thumbnails), one version with what it changed against the one before
(character by character), and restoring an earlier one as a new version.

Reading needs the right to read the creative; restoring, the right to confirm its runs (its owner, or an
editor). A restore names the version it was based on (`basedOn`): a stale one is a 409 `VERSION_CONFLICT`,
and a creative with a run going or paused is a 409 `THREAD_BUSY`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from agents.run import RunManager, version_diff, version_wire
from app.http.auth import accounts_of, client_address, require_on
from app.http.errors import NotFound, ValidationFailed, validation_failed
from app.http.request import read_model, resources_of
from tools.database import ROW_ID_MAX, Creative
from tools.labels import label

MAX_VERSION = 1_000_000


class RestoreBody(BaseModel):
    """`POST /api/creatives/{id}/versions/{n}/restore`: the version the client saw as current."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    based_on: int = Field(alias="basedOn", ge=1, le=MAX_VERSION)


def _versions(request: Request) -> Any:
    manager: RunManager = request.app.state.runs
    return manager.versions


async def _creative(request: Request) -> tuple[int, int | None, int]:
    """(id, owner id, current version) of the path's creative; 404 when there is none."""
    creative_id: int = request.path_params["id"]
    missing = NotFound(f"找不到创作 #{creative_id}", details={"creativeId": creative_id})
    if not 0 < creative_id <= ROW_ID_MAX:
        raise missing
    async with resources_of(request).sessions() as session:
        row = (await session.execute(
            select(Creative.owner_id, Creative.current_version).where(Creative.id == creative_id)
        )).first()
    if row is None:
        raise missing
    return creative_id, row.owner_id, int(row.current_version or 0)


def _number(request: Request, creative_id: int) -> int:
    number: int = request.path_params["n"]
    if not 0 < number <= MAX_VERSION:
        raise NotFound(f"创作 #{creative_id} 没有第 {number} 版", details={"version": number})
    return number


def _wire(version: Any, request: Request) -> dict[str, Any]:
    wire = version_wire(version, resources_of(request).asset_url)
    wire["sourceLabel"] = label("versionSource", wire["source"])
    return wire


async def list_versions(request: Request) -> JSONResponse:
    """`{"creativeId", "current", "items"}`: every version, oldest first, each with its pictures' URLs (the
    thumbnails) and without its plans."""
    creative_id, owner, current = await _creative(request)
    require_on(request, "read", owner)
    items = []
    for version in await _versions(request).list(creative_id):
        wire = _wire(version, request)
        for key in ("imagePlans", "textOverlayPlan"):
            wire.pop(key)
        items.append(wire)
    return JSONResponse(
        {"creativeId": creative_id, "current": current, "items": items}, headers={"Cache-Control": "no-store"}
    )


async def get_version(request: Request) -> JSONResponse:
    """`{"creativeId", "current", "version", "diff"}`: one version in full and what it changed against the
    version before it (`diff.against`: null for version 1)."""
    creative_id, owner, current = await _creative(request)
    require_on(request, "read", owner)
    version, before = await _versions(request).get(creative_id, _number(request, creative_id))
    return JSONResponse(
        {
            "creativeId": creative_id,
            "current": current,
            "version": _wire(version, request),
            "diff": version_diff(before, version),
        },
        headers={"Cache-Control": "no-store"},
    )


async def restore_version(request: Request) -> JSONResponse:
    """`{"creativeId", "version", "restoredFrom"}`: version n made current again as a new version."""
    creative_id, owner, _ = await _creative(request)
    principal = require_on(request, "confirm", owner)
    number = _number(request, creative_id)
    body = await read_model(request, RestoreBody)
    new = await _versions(request).restore(
        creative_id, number, based_on=body.based_on, actor=principal.actor
    )
    await accounts_of(request).audit(
        principal.actor, "restore", user_id=principal.user_id, creative_id=creative_id,
        details={"restoredFrom": number, "version": new, "basedOn": body.based_on},
        address=client_address(request),
    )
    return JSONResponse({"creativeId": creative_id, "version": new, "restoredFrom": number})


_Title = Annotated[str, Field(min_length=2, max_length=40, pattern=r"\S[\s\S]*\S")]
_Body = Annotated[str, Field(min_length=20, max_length=3000, pattern=r"\S[\s\S]{18,}\S")]
_Tag = Annotated[str, Field(min_length=1, max_length=24, pattern=r"[^\s#＃]")]


class EditBody(BaseModel):
    """`POST /api/creatives/{id}/versions`: a manual edit of the current version's text — any of title, body
    and tags (each replaces the old one whole), on the version the client saw as current."""

    based_on: int = Field(alias="basedOn", ge=1, le=MAX_VERSION)
    # what a post may hold (agents.artifacts.Draft), after surrounding spaces and a tag's '#' are dropped
    title: _Title | SkipJsonSchema[None] = None
    body: _Body | SkipJsonSchema[None] = None
    tags: Annotated[list[_Tag], Field(min_length=1, max_length=12)] | SkipJsonSchema[None] = None
    model_config = ConfigDict(
        extra="forbid", strict=True, populate_by_name=True,
        json_schema_extra={"anyOf": [{"required": [name]} for name in ("title", "body", "tags")]},
    )

    @field_validator("title", "body", "tags", mode="before")
    @classmethod
    def _given(cls, value: Any) -> Any:
        if value is None:  # left out means "unchanged"; null is no title, body or tags
            raise ValueError("不能为 null：不修改就不要发送这一项")
        return value


async def edit_version(request: Request) -> JSONResponse:
    """`201 {"creativeId", "version", "warnings"}`: the edited text as a new version (source `manual_edit`),
    with the text checks it fails as warnings (the critic never overrides a person's text)."""
    creative_id, owner, _ = await _creative(request)
    principal = require_on(request, "confirm", owner)
    body = await read_model(request, EditBody)
    changes = body.model_dump(include={"title", "body", "tags"}, exclude_none=True)
    if not changes:
        raise ValidationFailed(
            "请至少修改标题、正文或标签中的一项", details=[{"field": "body", "error": "没有修改"}]
        )
    if "tags" in changes:
        changes["tags"] = [t.strip().lstrip("#＃").strip() for t in changes["tags"]]
    try:
        new, warnings = await _versions(request).edit_text(
            creative_id, changes, based_on=body.based_on, actor=principal.actor
        )
    except ValidationError as exc:
        raise validation_failed(exc, "修改后的内容不合法") from exc
    await accounts_of(request).audit(
        principal.actor, "edit", user_id=principal.user_id, creative_id=creative_id,
        details={"version": new, "basedOn": body.based_on, "fields": sorted(changes)},
        address=client_address(request),
    )
    return JSONResponse({"creativeId": creative_id, "version": new, "warnings": warnings}, status_code=201)


async def versions_endpoint(request: Request) -> JSONResponse:
    """One route for the path's two methods, so a 405 names both."""
    return await (edit_version if request.method == "POST" else list_versions)(request)


routes: list[BaseRoute] = [
    Route("/api/creatives/{id:int}/versions", versions_endpoint, methods=["GET", "POST"]),
    Route("/api/creatives/{id:int}/versions/{n:int}", get_version, methods=["GET"]),
    Route("/api/creatives/{id:int}/versions/{n:int}/restore", restore_version, methods=["POST"]),
]
