"""Analyses of a creative's pictures: the requests an offline card may have been drawn from, so that
`tools.image_analysis` can take its element boxes from the card's own layout.

An offline card is the renderer's drawing of the image agent's request (`agents.image.build_request`), which
is made from the creative's image plans, text overlays and layout. The creative row holds its current plans
and every version its own, so the candidates are the asset's task in each of those plan sets; the analysis
uses a candidate only when drawing it again gives exactly the stored pixels. Pictures of an image model (the
overlay drawn on a photo) and uploads have no candidates: their boxes are recognised or estimated.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from agents.artifacts import ImagePlan, LayoutSpec, TextDensity, TextOverlay
from agents.image import build_request
from tools.assets import AssetRecord, AssetStore
from tools.database import Creative, CreativeVersion
from tools.image_analysis import AssetAnalyses, CardRequests, StoredAnalysis, analyses_for
from tools.images import OFFLINE_NAMES, ImageRequest

MAX_CANDIDATES = 12  # plan sets tried per picture (each costs one drawing, ~30 ms)


def _request_for(
    task_index: int, raw_plans: list[Any], raw_overlays: list[Any], densities: dict[int, TextDensity]
) -> ImageRequest | None:
    try:
        plans = [ImagePlan.model_validate(p) for p in raw_plans or []]
        overlays = {o.image_index: o for o in (TextOverlay.model_validate(r) for r in raw_overlays or [])}
        plan = next((p for p in plans if p.index == task_index), None)
        if plan is None:
            return None
        total = max([len(plans), *(p.index for p in plans)], default=1)
        return build_request(plan, overlays.get(task_index), densities.get(task_index), total)
    except ValidationError:
        return None


async def card_requests(
    sessions: async_sessionmaker[AsyncSession], record: AssetRecord
) -> list[ImageRequest]:
    """The distinct requests the image agent may have drawn this asset from: its task in the creative's
    current plans and in each version's (newest first); none for an upload or an image model's picture."""
    if record.creative_id is None or record.task_index is None or record.provider not in OFFLINE_NAMES:
        return []
    async with sessions() as session:
        creative = (await session.execute(
            select(Creative.image_plans, Creative.overlay_plan, Creative.layout_spec)
            .where(Creative.id == record.creative_id)
        )).first()
        versions = (await session.execute(
            select(CreativeVersion.image_plans, CreativeVersion.overlay_plan)
            .where(CreativeVersion.creative_id == record.creative_id)
            .order_by(CreativeVersion.number.desc())
            .limit(MAX_CANDIDATES)
        )).all()
    if creative is None:
        return []
    densities: dict[int, TextDensity] = {}
    if creative.layout_spec:
        try:
            items = LayoutSpec.model_validate(creative.layout_spec).items
            densities = {item.index: item.text_density for item in items}
        except ValidationError:
            densities = {}
    sets = [(creative.image_plans, creative.overlay_plan)]
    sets += [(v.image_plans, v.overlay_plan) for v in versions]
    requests: list[ImageRequest] = []
    for plans, overlays in sets:
        request = _request_for(record.task_index, plans, overlays, densities)
        if request is not None and request not in requests:
            requests.append(request)
    return requests[:MAX_CANDIDATES]


async def analysis_of(
    sessions: async_sessionmaker[AsyncSession], assets: AssetStore, record: AssetRecord
) -> StoredAnalysis:
    """The asset's analysis (cached, or computed now with its card's layout when it has one)."""
    service: AssetAnalyses = analyses_for(sessions, assets)
    cards: CardRequests = lambda: card_requests(sessions, record)  # noqa: E731
    return await service.get(record, cards)
