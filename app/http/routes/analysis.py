"""`GET /api/assets/{id}/analysis`: what an image shows — its recognised text (OCR) and element boxes — for
whoever may read the image itself (the same rules as `GET /api/assets/{id}`: analysts, editors and admins any
image; a creator the images of their own creatives).

The first request for an image computes its analysis (OCR: about a second a card, in a worker thread, one
image at a time per process) and stores it in `asset_analyses`; later requests, and requests for another
asset with the same bytes, read it from there (`cached: true`). See `tools.image_analysis`.
"""

from __future__ import annotations

from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from agents.card_analysis import analysis_of
from app.creatives import MAX_ID
from app.http.auth import may_read_all, principal_of, require_on
from app.http.errors import ApiError, NotFound
from app.http.request import resources_of
from tools.database import Creative, iso
from tools.errors import OcrUnavailableError
from tools.image_analysis import AssetAnalysis


class OcrUnavailable(ApiError):
    """503: text recognition cannot run on this server (an installation problem, not the request's)."""

    code = "OCR_UNAVAILABLE"
    status = 503


class AnalysisView(AssetAnalysis):
    """The wire answer: the analysis with its asset, when it was computed and whether it was cached."""

    asset_id: int
    created_at: str
    cached: bool = Field(description="True when read from the cache, false when computed for this request.")


async def analysis_endpoint(request: Request) -> JSONResponse:
    asset_id: int = request.path_params["id"]
    missing = NotFound(f"找不到图片 #{asset_id}", details={"assetId": asset_id})
    if not 0 < asset_id <= MAX_ID:
        raise missing
    resources = resources_of(request)
    record = await resources.assets.get(asset_id)
    if record is None or not record.ok:
        raise missing
    if not may_read_all(principal_of(request)):  # a creator: only the images of their own creatives
        if record.creative_id is None:
            raise missing
        async with resources.sessions() as session:
            creative = await session.get(Creative, record.creative_id)
        require_on(request, "read", creative.owner_id if creative is not None else None)
    if await resources.assets.open_path(asset_id) is None:
        raise missing
    try:
        stored = await analysis_of(resources.sessions, resources.assets, record)
    except OcrUnavailableError as exc:
        raise OcrUnavailable(exc.message, details=exc.details) from exc
    view = AnalysisView(
        **stored.analysis.model_dump(),
        asset_id=asset_id,
        created_at=iso(stored.created_at) or "",
        cached=stored.cached,
    )
    return JSONResponse(view.model_dump(mode="json", by_alias=True), headers={"Cache-Control": "no-store"})


routes: list[BaseRoute] = [
    Route("/api/assets/{id:int}/analysis", analysis_endpoint, methods=["GET"]),
]
