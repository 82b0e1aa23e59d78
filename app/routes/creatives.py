"""Creatives and assets for analysts: list, stats, CSV export, detail, image bytes.

Filters come from the query string (`app.creatives.CreativeFilter`); bad values are a 422, unknown ids a 404.
Assets are content-addressed files, so their responses are cacheable forever and carry the sha256 as ETag.
"""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from app.creatives import MAX_ID, CreativeFilter, creative_stats, export_csv, get_creative, list_creatives
from app.errors import NotFound
from app.http import resources_of, settings_of
from tools.assets import EXTENSIONS

IMMUTABLE = "public, max-age=31536000, immutable"


def _filter(request: Request) -> CreativeFilter:
    return CreativeFilter.from_query(request.query_params.multi_items())


async def list_endpoint(request: Request) -> JSONResponse:
    """`{"items": [...], "total", "limit", "offset"}`: one page of creatives matching the filters."""
    f = _filter(request)
    resources = resources_of(request)
    items, total = await list_creatives(resources.sessions, f, asset_url=resources.asset_url)
    return JSONResponse({"items": items, "total": total, "limit": f.limit, "offset": f.offset})


async def stats_endpoint(request: Request) -> JSONResponse:
    """Counts by status, score averages and histograms, top tags, per-day counts, run times."""
    return JSONResponse(await creative_stats(resources_of(request).sessions, _filter(request)))


async def export_endpoint(request: Request) -> Response:
    """The filtered creatives as a CSV attachment (UTF-8 with BOM, tags joined by `|`)."""
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
    return JSONResponse(creative)


async def asset_endpoint(request: Request) -> Response:
    """The image bytes. Only files inside the assets directory are ever served."""
    asset_id: int = request.path_params["id"]
    missing = NotFound(f"找不到图片 #{asset_id}", details={"assetId": asset_id})
    if not 0 < asset_id <= MAX_ID:
        raise missing
    found = await resources_of(request).assets.open_path(asset_id)
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
    Route("/api/assets/{id:int}", asset_endpoint, methods=["GET"]),
]
