"""Editing one of a creative's pictures: `POST /api/assets/{id}/edit` (agents.image_edit), an SSE stream.

The edit is checked before the stream starts, so a client's mistake is a plain error answer: an unknown
picture 404, one that is no creative's generated picture of its current version 409 `NOT_EDITABLE`, a stale
`basedOn` 409 `VERSION_CONFLICT`, a creative with a run going or paused 409 `THREAD_BUSY`, a bad body or mask
422. Editing needs the right to confirm the creative's runs (its owner, or an editor).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from agents.image_edit import ImageEditRequest, PictureNotFound
from agents.run import RunManager
from app.http.auth import accounts_of, client_address, require_on
from app.http.request import read_model, settings_of
from app.http.sse import event_stream
from tools.database import ROW_ID_MAX


async def edit_asset(request: Request) -> Response:
    asset_id: int = request.path_params["id"]
    if not 0 < asset_id <= ROW_ID_MAX:
        raise PictureNotFound(f"找不到图片 #{asset_id}", details={"assetId": asset_id})
    manager: RunManager = request.app.state.runs
    edits = manager.image_edits
    record, creative = await edits.locate(asset_id)
    principal = require_on(request, "confirm", creative.owner_id)
    body = await read_model(request, ImageEditRequest)
    prepared = await edits.prepare(record, creative, body)
    await accounts_of(request).audit(
        principal.actor, "image_edit", user_id=principal.user_id, creative_id=creative.id,
        details={
            "assetId": asset_id, "basedOn": prepared.based_on, "instruction": body.instruction or None,
            "mask": body.mask is not None, "params": sorted(body.params.model_dump(exclude_none=True))
            if body.params else [], "textEdits": len(body.text_edits or []),
        },
        address=client_address(request),
    )
    return event_stream(
        edits.run(prepared, actor=principal.actor),
        heartbeat_s=settings_of(request).heartbeat_s,
    )


routes: list[BaseRoute] = [
    Route("/api/assets/{id:int}/edit", edit_asset, methods=["POST"]),
]
