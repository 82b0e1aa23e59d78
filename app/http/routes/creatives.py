"""Creatives and assets for analysts: list, stats, CSV export, detail, image bytes.

Filters come from the query string (`app.creatives.CreativeFilter`); bad values are a 422, unknown ids a 404.
Assets are content-addressed files, so their responses are cacheable forever and carry the sha256 as ETag.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from app.creatives import (
    MAX_ID,
    CreativeFilter,
    creative_stats,
    export_csv,
    get_creative,
    iso,
    list_creatives,
)
from app.http.auth import accounts_of, may_read_all, principal_of, require, require_on
from app.http.errors import NotFound
from app.http.request import resources_of, settings_of
from tools.accounts import Action, AuditEntry
from tools.assets import EXTENSIONS
from tools.database import ROW_ID_MAX, Creative
from tools.labels import label

IMMUTABLE = "public, max-age=31536000, immutable"


def _filter(request: Request) -> CreativeFilter:
    """The query's filter; for a role that may read only its own creatives, narrowed to those."""
    f = CreativeFilter.from_query(request.query_params.multi_items())
    principal = principal_of(request)
    return f if may_read_all(principal) else f.model_copy(update={"owner_id": principal.user_id})


async def _owner_of(request: Request, creative_id: int) -> tuple[bool, int | None]:
    """(whether the creative exists, its owner's user id)."""
    if not 0 < creative_id <= ROW_ID_MAX:
        return False, None
    async with resources_of(request).sessions() as session:
        row = (await session.execute(select(Creative.owner_id).where(Creative.id == creative_id))).first()
    return (row is not None), (row[0] if row is not None else None)


async def list_endpoint(request: Request) -> JSONResponse:
    """`{"items": [...], "total", "limit", "offset"}`: one page of creatives matching the filters (a
    creator's own only)."""
    require(request, Action.READ_OWN)
    f = _filter(request)
    resources = resources_of(request)
    items, total = await list_creatives(resources.sessions, f, asset_url=resources.asset_url)
    return JSONResponse({"items": items, "total": total, "limit": f.limit, "offset": f.offset})


async def stats_endpoint(request: Request) -> JSONResponse:
    """Counts by status, score averages and histograms, top tags, per-day counts, run times."""
    require(request, Action.STATS)
    return JSONResponse(await creative_stats(resources_of(request).sessions, _filter(request)))


async def export_endpoint(request: Request) -> Response:
    """The filtered creatives as a CSV attachment (UTF-8 with BOM, tags joined by `|`)."""
    require(request, Action.EXPORT)
    text = await export_csv(resources_of(request).sessions, _filter(request))
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Response(
        text.encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="creatives-{stamp}.csv"',
            "Cache-Control": "no-store",
        },
    )


async def detail_endpoint(request: Request) -> JSONResponse:
    """One creative with its artifacts, review rounds, timings, usage and assets."""
    creative_id: int = request.path_params["id"]
    resources = resources_of(request)
    creative = await get_creative(resources.sessions, creative_id, asset_url=resources.asset_url)
    if creative is None:
        raise NotFound(f"找不到创作 #{creative_id}", details={"creativeId": creative_id})
    require_on(request, "read", creative["ownerId"])
    return JSONResponse(creative)


def audit_wire(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.id, "at": iso(entry.at), "actor": entry.actor, "action": entry.action,
        "actionLabel": label("auditAction", entry.action), "threadId": entry.thread_id,
        "creativeId": entry.creative_id, "details": entry.details,
    }


async def audit_endpoint(request: Request) -> JSONResponse:
    """`{"items": [...]}`: who started, confirmed, rejected (with the feedback), modified (with what
    changed), cancelled or resumed the creative's run, oldest first."""
    creative_id: int = request.path_params["id"]
    found, owner = await _owner_of(request, creative_id)
    if not found:
        raise NotFound(f"找不到创作 #{creative_id}", details={"creativeId": creative_id})
    require_on(request, "read", owner)
    trail = await accounts_of(request).audit_trail(creative_id=creative_id)
    items = [audit_wire(entry) for entry in trail]
    return JSONResponse({"items": items}, headers={"Cache-Control": "no-store"})


async def asset_endpoint(request: Request) -> Response:
    """The image bytes. Only files inside the assets directory are ever served."""
    asset_id: int = request.path_params["id"]
    missing = NotFound(f"找不到图片 #{asset_id}", details={"assetId": asset_id})
    if not 0 < asset_id <= MAX_ID:
        raise missing
    assets = resources_of(request).assets
    if not may_read_all(principal_of(request)):  # a creator: only the images of their own creatives
        record = await assets.get(asset_id)
        if record is None or record.creative_id is None:
            raise missing
        require_on(request, "read", (await _owner_of(request, record.creative_id))[1])
    found = await assets.open_path(asset_id)
    if found is None:
        raise missing
    path, mime = found
    root = settings_of(request).assets_dir.resolve()
    resolved = path.resolve()
    if not resolved.is_relative_to(root) or not resolved.is_file():
        raise missing
    etag = f'"{resolved.stem}"'  # files are named by their sha256
    headers = {"Cache-Control": IMMUTABLE, "ETag": etag, "X-Content-Type-Options": "nosniff"}
    if etag in {tag.strip() for tag in request.headers.get("if-none-match", "").split(",")}:
        return Response(status_code=304, headers=headers)
    media_type = mime if mime in EXTENSIONS else "application/octet-stream"
    return FileResponse(resolved, media_type=media_type, headers=headers)


routes: list[BaseRoute] = [
    Route("/api/creatives", list_endpoint, methods=["GET"]),
    Route("/api/creatives/stats", stats_endpoint, methods=["GET"]),
    Route("/api/creatives/export.csv", export_endpoint, methods=["GET"]),
    Route("/api/creatives/{id:int}", detail_endpoint, methods=["GET"]),
    Route("/api/creatives/{id:int}/audit", audit_endpoint, methods=["GET"]),
    Route("/api/assets/{id:int}", asset_endpoint, methods=["GET"]),
]
