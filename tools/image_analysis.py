"""What an image shows, for people and agents: its text (real OCR, `tools.ocr`) and its elements — the main
subject, panels, badges and text blocks — as boxes, cached per asset in `asset_analyses`.

Where each element box comes from is stated on it (`source`):

- `layout` — **exact**. An offline card is drawn by our own renderer, so its layout is known: the image
  agent's request for the card is rebuilt from its creative's plans (`cards`, supplied by the caller) and the
  card drawn again on a canvas that records where each text line, panel and badge went. The record is used
  only when the drawing is pixel-for-pixel the stored image — a card made from other plans (an earlier
  round, an edit) does not match and falls through to the next two sources. The motif's disc is the
  subject; panels are the rounded cards and tiles, badges the hashtag pill, text blocks the lines of one
  slot (headline, subtitle, item, caption, page marker…).
- `ocr` — text blocks for any other image: recognised lines that sit under one another, at a similar size
  and overlapping horizontally, merged into one block.
- `heuristic` — the main subject of any other image: the heaviest connected area of `tools.vision`'s
  visual-weight map (edges plus distance from the mean colour) once the recognised text is masked out. It
  finds *where the picture is busy or stands out*, not *what* is there: a cluttered background can win over
  a plain subject. Its `confidence` is the area's share of the image's weight. Panels and badges are never
  guessed on images whose layout is unknown.

`analyze(data, cards)` is the blocking computation (OCR dominates: ~1 s a card). `AssetAnalyses` runs it off
the event loop, once per content at a time (concurrent asks for the same bytes share one computation), and
keeps the result in `asset_analyses`; identical bytes stored as another asset reuse an existing analysis.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from statistics import fmean, pstdev
from typing import Any, Literal

from PIL import Image, ImageChops
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tools.assets import AssetRecord, AssetStore
from tools.canvas import Canvas
from tools.card_layouts import draw_card
from tools.database import AssetAnalysisRow, ImageAsset, utcnow
from tools.errors import ImageInputError
from tools.images import ImageRequest
from tools.ocr import OcrEngine, TextRegion, engine_version, shared_engine
from tools.typography import FontBook
from tools.vision import Box, load_rgb, visual_weight

log = logging.getLogger(__name__)

FORMAT = 1  # bump when the analysis changes shape or method: stored analyses of another format are redone
ElementKind = Literal["subject", "panel", "badge", "text"]
ElementSource = Literal["layout", "ocr", "heuristic"]
CardRequests = Callable[[], Awaitable[Sequence[ImageRequest]]]
PixelBox = tuple[float, float, float, float]  # left, top, right, bottom


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Element(_Wire):
    """One element of the image: its kind, its box and how the box is known."""

    kind: ElementKind
    box: Box
    source: ElementSource
    label: str | None = Field(
        None, description="Layout text: its slot (headline, subtitle, item, caption, page, badge, motif…)."
    )
    text: str | None = Field(None, description="What a text block or badge says (drawn or recognised).")
    confidence: float | None = Field(
        None, ge=0, le=1, description="OCR: the lines' mean confidence; heuristic: the weight share."
    )


class AssetAnalysis(_Wire):
    """An image's recognised text and its element boxes."""

    format: int = FORMAT
    width: int
    height: int
    text_regions: list[TextRegion] = Field(description="Recognised text lines, top to bottom (OCR).")
    text: str = Field(description="The recognised lines joined by newlines.")
    elements: list[Element]
    layout_known: bool = Field(description="True when the element boxes come from the card's own layout.")
    ocr_engine: str
    duration_ms: int


# --- the computation (blocking) -----------------------------------------------------------------------------
def analyze(
    data: bytes,
    cards: Sequence[ImageRequest] = (),
    *,
    engine: OcrEngine | None = None,
    fonts: FontBook | None = None,
) -> AssetAnalysis:
    """Read the text of image bytes and find their elements (see the module docstring). `cards`: the
    requests an offline card may have been drawn from. Raises `ImageInputError` for bytes that are not an
    image and `OcrUnavailableError` when OCR cannot run."""
    started = time.perf_counter()
    image = load_rgb(data)
    regions = (engine or shared_engine()).read_image(image)
    elements = layout_elements(image, cards, fonts) if cards else None
    layout_known = elements is not None
    if elements is None:
        blocks = text_blocks(regions)
        subject = subject_element(image, [r.box for r in regions])
        elements = ([subject] if subject else []) + blocks
    return AssetAnalysis(
        width=image.width,
        height=image.height,
        text_regions=regions,
        text="\n".join(r.text for r in regions),
        elements=elements,
        layout_known=layout_known,
        ocr_engine=engine_version(),
        duration_ms=round((time.perf_counter() - started) * 1000),
    )


def _box(box: PixelBox, width: int, height: int) -> Box:
    left, top = max(0.0, min(box[0], width)), max(0.0, min(box[1], height))
    right, bottom = max(left, min(box[2], width)), max(top, min(box[3], height))
    return Box(
        x=round(left / width, 4), y=round(top / height, 4),
        w=round((right - left) / width, 4), h=round((bottom - top) / height, 4),
    )


# layout: the card drawn again, recording where things go
class _RecordingCanvas(Canvas):
    """A canvas that also records the box of every text line (`lines`: slot, text, box) and the motif's
    disc (`subjects`). Panels, tiles and the badge's pill are the canvas's own `fills`."""

    def __init__(self, request: ImageRequest, fonts: FontBook) -> None:
        super().__init__(request, fonts)
        self.lines: list[tuple[str, str, PixelBox]] = []
        self.subjects: list[PixelBox] = []
        self._motif: tuple[float, float, float, float] | None = None  # cx, r, label top, label height

    def text(
        self,
        lines: list[str],
        x: float,
        top: float,
        size: float,
        fill: tuple[int, int, int],
        *,
        line_height: float,
        bold: bool = False,
        center_in: float = 0.0,
        slot: str = "text",
    ) -> float:
        for i, line in enumerate(lines):
            width = self.fonts.width(line, size)
            left = x + (center_in - width) / 2 if center_in else x
            line_top = top + i * line_height
            self.lines.append((slot, line, (left, line_top, left + width, line_top + size)))
        if slot == "motif" and lines and center_in:
            # `tools.canvas.motif`: the label is centred in 1.3 r from cx - 0.65 r, the label (and the scene
            # line under it, when there is one) centred on cy; the halo has radius 1.3 r, the dot grid
            # reaches 1.45 r to the left
            r = center_in / 1.3
            height = (len(lines) - 1) * line_height + size
            self._motif = (x + 0.65 * r, r, top, height)
            self._add_subject(extra=0.0)
        elif slot == "scene" and self._motif is not None and self.subjects:
            self.subjects.pop()
            self._add_subject(extra=size * 1.6)
        return super().text(
            lines, x, top, size, fill, line_height=line_height, bold=bold, center_in=center_in, slot=slot
        )

    def _add_subject(self, *, extra: float) -> None:
        assert self._motif is not None
        cx, r, top, height = self._motif
        cy = top + (height + extra) / 2
        self.subjects.append((cx - 1.45 * r, cy - 1.3 * r, cx + 1.3 * r, cy + 1.3 * r))


def layout_elements(
    image: Image.Image, cards: Sequence[ImageRequest], fonts: FontBook | None = None
) -> list[Element] | None:
    """The element boxes of the first request whose card, drawn again, is exactly `image`; None if none is."""
    fonts = fonts or _fonts()
    for request in cards:
        if (request.width, request.height) != image.size:
            continue
        canvas = _RecordingCanvas(request, fonts)
        draw_card(canvas)
        if ImageChops.difference(canvas.image.convert("RGB"), image).getbbox() is not None:
            continue
        return _card_elements(canvas)
    return None


def _card_elements(c: _RecordingCanvas) -> list[Element]:
    w, h = c.w, c.h
    elements = [Element(kind="subject", box=_box(box, w, h), source="layout") for box in c.subjects]
    badges = [(text, box) for slot, text, box in c.lines if slot == "badge"]
    for fill in c.fills:
        inside = [text for text, box in badges if _contains(fill, box)]
        kind: ElementKind = "badge" if inside else "panel"
        elements.append(Element(
            kind=kind, box=_box(fill, w, h), source="layout", label="badge" if inside else None,
            text=inside[0] if inside else None,
        ))
    for slot, text, box in _slot_blocks(c.lines):
        elements.append(Element(kind="text", box=_box(box, w, h), source="layout", label=slot, text=text))
    return elements


def _contains(outer: PixelBox, inner: PixelBox) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def _slot_blocks(lines: Iterable[tuple[str, str, PixelBox]]) -> list[tuple[str, str, PixelBox]]:
    """Consecutive lines of one slot that follow each other down the card, as one block; pieces of one line
    (a list marker drawn apart from its text) join without a break."""
    blocks: list[tuple[str, str, PixelBox]] = []
    for slot, text, box in lines:
        if blocks:
            last_slot, last_text, last = blocks[-1]
            size = box[3] - box[1]
            same_line = abs(box[1] - last[1]) < size * 0.2 and box[3] - last[1] <= size * 1.3
            below = 0 <= box[1] - last[3] <= size * 0.9
            if last_slot == slot and (same_line or below):
                joined = last_text + ("" if same_line else "\n") + text
                union = (
                    min(last[0], box[0]), min(last[1], box[1]), max(last[2], box[2]), max(last[3], box[3])
                )
                blocks[-1] = (slot, joined, union)
                continue
        blocks.append((slot, text, box))
    return blocks


_FONTS: FontBook | None = None


def _fonts() -> FontBook:
    """The renderer's default font book (the one every offline card is drawn with), loaded once."""
    global _FONTS
    if _FONTS is None:
        _FONTS = FontBook(None)
    return _FONTS


# OCR: text blocks
def text_blocks(regions: Sequence[TextRegion]) -> list[Element]:
    """Recognised lines merged into blocks: a line joins the block above it when it starts within 0.8 of
    its height below it, is of a similar size and overlaps it horizontally."""
    blocks: list[list[TextRegion]] = []
    for region in sorted(regions, key=lambda r: (r.box.y, r.box.x)):
        for block in reversed(blocks):
            last = block[-1]
            gap = region.box.y - (last.box.y + last.box.h)
            similar = 0.6 <= region.box.h / max(last.box.h, 1e-6) <= 1.6
            right = min(region.box.x + region.box.w, last.box.x + last.box.w)
            overlap = right - max(region.box.x, last.box.x)
            if -0.5 * last.box.h <= gap <= 0.8 * last.box.h and similar and overlap > 0:
                block.append(region)
                break
        else:
            blocks.append([region])
    elements = []
    for block in blocks:
        left = min(r.box.x for r in block)
        top = min(r.box.y for r in block)
        right = max(r.box.x + r.box.w for r in block)
        bottom = max(r.box.y + r.box.h for r in block)
        elements.append(Element(
            kind="text",
            box=Box(x=left, y=top, w=round(min(1.0, right) - left, 4), h=round(min(1.0, bottom) - top, 4)),
            source="ocr",
            text="\n".join(r.text for r in block),
            confidence=round(fmean(r.confidence for r in block), 4),
        ))
    return elements


# heuristic: the main subject
GRID = 32  # columns of the weight grid (rows follow the aspect ratio)
MIN_SUBJECT_SHARE = 0.12  # an area with less of the image's weight is no subject


def subject_element(image: Image.Image, text_boxes: Sequence[Box] = ()) -> Element | None:
    """The heaviest connected area of the visual-weight map, text masked out (see the module docstring)."""
    colour = image.copy()
    colour.thumbnail((256, 256), Image.Resampling.BILINEAR)
    cols = GRID
    rows = max(8, min(64, round(GRID * image.height / image.width)))
    cells = list(visual_weight(colour).resize((cols, rows), Image.Resampling.BOX).tobytes())
    for box in text_boxes:  # text is not the subject: blank its cells (and a margin of one cell)
        c0, c1 = int(box.x * cols) - 1, int((box.x + box.w) * cols) + 1
        r0, r1 = int(box.y * rows) - 1, int((box.y + box.h) * rows) + 1
        for r in range(max(0, r0), min(rows, r1 + 1)):
            for c in range(max(0, c0), min(cols, c1 + 1)):
                cells[r * cols + c] = 0
    total = float(sum(cells))
    if total <= 0:
        return None
    threshold = fmean(cells) + 0.5 * pstdev(cells)
    heavy = {i for i, v in enumerate(cells) if v > 0 and v >= threshold}
    best: tuple[float, list[int]] | None = None
    seen: set[int] = set()
    for start in heavy:
        if start in seen:
            continue
        seen.add(start)
        component, queue = [], [start]
        while queue:
            i = queue.pop()
            component.append(i)
            r, c = divmod(i, cols)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nr, nc = r + dr, c + dc
                    j = nr * cols + nc
                    if 0 <= nr < rows and 0 <= nc < cols and j in heavy and j not in seen:
                        seen.add(j)
                        queue.append(j)
        weight = float(sum(cells[i] for i in component))
        if best is None or weight > best[0]:
            best = (weight, component)
    if best is None or best[0] / total < MIN_SUBJECT_SHARE:
        return None
    rs = [i // cols for i in best[1]]
    cs = [i % cols for i in best[1]]
    box = Box(
        x=round(min(cs) / cols, 4), y=round(min(rs) / rows, 4),
        w=round((max(cs) + 1 - min(cs)) / cols, 4), h=round((max(rs) + 1 - min(rs)) / rows, 4),
    )
    return Element(kind="subject", box=box, source="heuristic", confidence=round(best[0] / total, 4))


# --- the cache --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoredAnalysis:
    analysis: AssetAnalysis
    created_at: datetime
    cached: bool  # True: read from `asset_analyses`, not computed for this call


class AssetAnalyses:
    """Analyses of stored assets, computed once per content and kept in `asset_analyses`.

    `get(record)` answers from the asset's row; else from the row of another asset with the same bytes
    (copied to this asset); else computes it in a worker thread — concurrent calls for the same bytes await
    one computation, which runs to its end even when every caller stopped waiting (it is then stored for the
    next) — and stores it. One instance per database (`analyses_for`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        assets: AssetStore,
        *,
        engine: OcrEngine | None = None,
    ) -> None:
        self._sessions = sessions
        self._assets = assets
        self._engine = engine
        self._running: dict[str, tuple[int, asyncio.Task[StoredAnalysis]]] = {}  # by sha: (asset id, task)

    async def cached(self, record: AssetRecord) -> StoredAnalysis | None:
        """The stored analysis of the asset, or of another asset with the same bytes (then copied)."""
        async with self._sessions() as session:
            row = await session.get(AssetAnalysisRow, record.id)
            if row is not None and _current(row.analysis):
                return StoredAnalysis(AssetAnalysis.model_validate(row.analysis), row.created_at, True)
            if not record.sha256:
                return None
            query = (
                select(AssetAnalysisRow.analysis)
                .join(ImageAsset, ImageAsset.id == AssetAnalysisRow.asset_id)
                .where(ImageAsset.sha256 == record.sha256, AssetAnalysisRow.asset_id != record.id)
                .order_by(AssetAnalysisRow.created_at.desc())
                .limit(5)
            )
            twins = [a for a in (await session.scalars(query)).all() if _current(a)]
        if not twins:
            return None
        stored = await self._store(record.id, AssetAnalysis.model_validate(twins[0]))
        return StoredAnalysis(stored.analysis, stored.created_at, True)

    async def get(self, record: AssetRecord, cards: CardRequests | None = None) -> StoredAnalysis:
        """The asset's analysis, from the cache or computed now. `cards`: the requests an offline card may
        have been drawn from (asked only when it must be computed). `ImageInputError` for a missing or
        unreadable file, `OcrUnavailableError` when OCR cannot run."""
        hit = await self.cached(record)
        if hit is not None:
            return hit
        key = record.sha256 or f"asset:{record.id}"
        loop = asyncio.get_running_loop()
        owner, task = self._running.get(key) or (record.id, None)
        if task is None or task.get_loop() is not loop:
            owner, task = record.id, loop.create_task(self._compute(record, cards))
            self._running[key] = (owner, task)
            task.add_done_callback(lambda done: self._forget(key, done))
        stored = await asyncio.shield(task)
        if owner != record.id:  # computed for another asset with the same bytes: this one's row too
            stored = await self._store(record.id, stored.analysis)
        return stored

    def _forget(self, key: str, task: asyncio.Task[StoredAnalysis]) -> None:
        if key in self._running and self._running[key][1] is task:
            del self._running[key]
        if not task.cancelled() and task.exception() is not None:
            log.debug("analysis failed: %s", task.exception())

    async def _compute(self, record: AssetRecord, cards: CardRequests | None) -> StoredAnalysis:
        found = await self._assets.open_path(record.id)
        if found is None:
            raise ImageInputError(f"图片 #{record.id} 的文件不存在", code="ASSET_FILE_MISSING")
        data = await asyncio.to_thread(found[0].read_bytes)
        requests = list(await cards()) if cards is not None else []
        analysis = await asyncio.to_thread(analyze, data, requests, engine=self._engine)
        return await self._store(record.id, analysis)

    async def _store(self, asset_id: int, analysis: AssetAnalysis) -> StoredAnalysis:
        """Insert the asset's row (replacing one of an older format); a row another process stored first
        wins."""
        wire = analysis.model_dump(mode="json", by_alias=True)
        now = utcnow()
        try:
            async with self._sessions() as session, session.begin():
                existing = await session.get(AssetAnalysisRow, asset_id)
                if existing is not None and _current(existing.analysis):
                    return StoredAnalysis(
                        AssetAnalysis.model_validate(existing.analysis), existing.created_at, False
                    )
                if existing is not None:
                    existing.analysis, existing.created_at = wire, now
                else:
                    session.add(AssetAnalysisRow(asset_id=asset_id, analysis=wire, created_at=now))
        except IntegrityError:  # stored meanwhile by another process (or the asset row is gone)
            async with self._sessions() as session:
                row = await session.get(AssetAnalysisRow, asset_id)
            if row is None:
                raise
            return StoredAnalysis(AssetAnalysis.model_validate(row.analysis), row.created_at, False)
        return StoredAnalysis(analysis, now, False)


def _current(raw: Any) -> bool:
    return isinstance(raw, dict) and raw.get("format") == FORMAT


_SERVICES: weakref.WeakKeyDictionary[async_sessionmaker[AsyncSession], AssetAnalyses] = (
    weakref.WeakKeyDictionary()
)


def analyses_for(sessions: async_sessionmaker[AsyncSession], assets: AssetStore) -> AssetAnalyses:
    """The process's `AssetAnalyses` on this database (one per session factory, so the HTTP routes and the
    runs of a server share their in-flight computations)."""
    service = _SERVICES.get(sessions)
    if service is None:
        service = _SERVICES[sessions] = AssetAnalyses(sessions, assets)
    return service
