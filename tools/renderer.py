"""The offline image renderer: real social-media cards (PNG) drawn with Pillow from an `ImageRequest`.

Roles: **cover** (four layouts: big auto-fitted headline, subtitle, decorative shapes, a visual-focus motif,
tags, page marker), **detail** (three layouts of a heading plus its points) and **result** (a checklist, or
one big highlighted takeaway); the layouts are in `tools.card_layouts`, the canvas and the furniture they
share in `tools.canvas`. The background comes from the palette and `background` kind; `text_position` moves
the text block, `text_density` sets font sizes and how many body lines are drawn. Text colours are chosen
from the luminance of what is actually behind the text (WCAG contrast), so any palette stays readable.

Typography and colour (font, cleaning, wrapping, fitting, contrast, the palette's `Theme`) live in
`tools.typography`; this module composes cards from them: background, decorations, furniture and a layout
per role.

The same code draws the planned overlay on an image model's picture (`photo`): the picture fills the card
(cover-fit), the layout is drawn once to learn where its text goes, and again on the picture darkened there
(`tools.canvas.scrim`) — same text blocks, badges and page number as the offline card, no second layout code.

Same request → same bytes (randomness is seeded from `request.stable_seed()`). `CardRenderer.render` runs
the CPU work in a thread, or — with `workers` > 0, as the server does — in a pool of worker processes, so
that drawing and PNG encoding (~27 ms of CPU a card) use the other cores and never hold the server's GIL,
as a remote image model's work would not. Fonts are loaded lazily, per thread or process, on first use.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from tools.canvas import Canvas, photo_layer, scrim
from tools.card_layouts import draw_card
from tools.png import encode_png
from tools.typography import FontBook

if TYPE_CHECKING:
    from tools.images import ImageRequest


class CardRenderer:
    """Renders `ImageRequest`s to PNG bytes (`tools.png`, deflate level `compress_level`, 0–3). Thread-safe;
    `render` runs the CPU work in a worker thread, or in one of `workers` worker processes (started by
    `start`, or on first use; stopped by `close`)."""

    def __init__(self, font_path: Path | None = None, *, compress_level: int = 1, workers: int = 0) -> None:
        self.fonts = FontBook(font_path)
        self._font_path = font_path
        self._compress_level = compress_level
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def warm_up(self) -> None:
        """Load the font and the word-segmentation dictionary now (~1 s) instead of in the first render."""
        self.fonts.warm_up()

    def start(self) -> ProcessPoolExecutor | None:
        """Start the worker processes (each warms up) in the background, before the first card is due;
        returns the pool (None without workers)."""
        if self._workers and self._pool is None:
            self._pool = ProcessPoolExecutor(
                self._workers,
                # spawn, not fork: the server has threads (SQLite, LanceDB) that a fork would copy mid-flight
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self._font_path, self._compress_level),
            )
            for _ in range(self._workers):
                self._pool.submit(_nothing)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)  # idle workers exit at once
            self._pool = None

    async def render(self, request: ImageRequest, photo: bytes | None = None) -> bytes:
        """The card as PNG bytes, drawn off the event loop; on `photo` (image bytes) when given."""
        pool = self.start()
        if pool is None:
            return await asyncio.to_thread(self.render_png, request, photo)
        fields = request.model_dump()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, _render_in_worker, fields, photo)
        except BrokenProcessPool:  # a worker died (killed, out of memory): replace the pool, once
            if self._pool is pool:  # not already replaced by another card that saw the same death
                self.close()
            return await loop.run_in_executor(self.start(), _render_in_worker, fields, photo)

    def render_image(self, request: ImageRequest, photo: bytes | None = None) -> Image.Image:
        return self.draw(request, photo).image

    def draw(self, request: ImageRequest, photo: bytes | None = None) -> Canvas:
        """The drawn card: its image and `drawn`, the (slot, line) texts it shows. With `photo` (image bytes),
        the card is the picture, cover-fitted to the request's size, with the layout's text drawn on it over a
        scrim where that text goes (found by drawing the layout once on the bare picture)."""
        if photo is None:
            canvas = Canvas(request, self.fonts)
            draw_card(canvas)
            return canvas
        picture = photo_layer(photo, request.width, request.height)
        probe = Canvas(request, self.fonts, picture)
        draw_card(probe)
        canvas = Canvas(request, self.fonts, scrim(picture, probe.boxes, probe.s))
        draw_card(canvas)
        return canvas

    def card_text(self, request: ImageRequest, photo: bytes | None = None) -> list[tuple[str, str]]:
        """What the card says, slot by slot: badge, page, headline, subtitle, item, motif, scene, caption…"""
        return self.draw(request, photo).drawn

    def render_png(self, request: ImageRequest, photo: bytes | None = None) -> bytes:
        return encode_png(self.render_image(request, photo), self._compress_level)


# --- worker processes ----------------------------------------------------------------------------------
_worker: CardRenderer | None = None


def _start_worker(font_path: Path | None, compress_level: int) -> None:
    global _worker
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    _worker = CardRenderer(font_path, compress_level=compress_level)
    _worker.warm_up()


def _exit_with_parent(parent: int) -> None:
    """A studio killed with SIGKILL cannot stop its pool: its workers notice they were orphaned and exit."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _nothing() -> None:
    """Submitted once per worker by `start`, so that the pool spawns them all now."""


def _render_in_worker(fields: dict[str, object], photo: bytes | None = None) -> bytes:
    from tools.images import ImageRequest

    assert _worker is not None, "the worker process was not initialised"
    return _worker.render_png(ImageRequest.model_validate(fields), photo)
