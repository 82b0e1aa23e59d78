"""The offline image renderer: real social-media cards (PNG) drawn with Pillow from an `ImageRequest`.

Roles: **cover** (big auto-fitted headline, subtitle, decorative shapes, a visual-focus motif, tags, page
marker), **detail** (heading plus a card panel of numbered points) and **result** (a checklist, or one big
highlighted takeaway). The background comes from the palette and `background` kind; `text_position` moves
the text block, `text_density` sets font sizes and how many body lines are drawn. Text colours are chosen
from the luminance of what is actually behind the text (WCAG contrast), so any palette stays readable.

Typography and colour (font, cleaning, wrapping, fitting, contrast, the palette's `Theme`) live in
`tools.typography`; this module composes cards from them: background, decorations, furniture and a layout
per role.

Same request → same bytes (randomness is seeded from `request.stable_seed()`). `CardRenderer.render` runs
the CPU work in a thread, or — with `workers` > 0, as the server does — in a pool of worker processes, so
that drawing and PNG encoding (~27 ms of CPU a card) use the other cores and never hold the server's GIL,
as a remote image model's work would not. Fonts are loaded lazily, per thread or process, on first use.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import random
import re
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFilter, ImageStat

from tools.png import encode_png
from tools.typography import (
    LIGHT_INK,
    RGB,
    FontBook,
    contrast,
    ensure_contrast,
    ink_on_fill,
    make_theme,
    mix,
    readable_on,
)

if TYPE_CHECKING:
    from tools.images import ImageRequest

_LIST_MARKER = re.compile(r"^\s*(?:[-•·*●▪◆✓✔☑✅]|\d{1,2}[.、)）]|[①-⑳])\s*")
_EMPHASIS = re.compile(r"^([^：:，。]{1,8})[：:](?=\S)")


@dataclass(frozen=True)
class Density:
    cover_head: int
    cover_body: int  # body lines under the cover headline
    sub: int
    head: int
    item: int
    items: int  # body lines drawn on detail/result cards


DENSITIES = {
    "low": Density(cover_head=160, cover_body=1, sub=48, head=92, item=48, items=4),
    "medium": Density(cover_head=144, cover_body=1, sub=44, head=84, item=42, items=6),
    "high": Density(cover_head=128, cover_body=2, sub=40, head=76, item=37, items=9),
}
_POSITION = {"top": 0.06, "center": 0.5, "bottom": 0.94}


# --- canvas ----------------------------------------------------------------------------------------------
Box = tuple[float, float, float, float]


class _Canvas:
    """One card being drawn: the image, a blending draw handle, metrics and the seeded randomness."""

    def __init__(self, request: ImageRequest, fonts: FontBook) -> None:
        self.req = request
        self.fonts = fonts
        self.w, self.h = request.width, request.height
        self.s = min(self.w / 1080, self.h / 1440)
        self.m = self.px(84)
        self.rng = random.Random(request.stable_seed())
        self.theme = make_theme(request.palette)
        self.density = DENSITIES[request.text_density]
        self.image = _background(self)
        self.draw = ImageDraw.Draw(self.image, "RGBA")  # RGBA fills blend into the RGB image

    def px(self, value: float) -> int:
        return round(value * self.s)

    def clean(self, text: str | None) -> str:
        return self.fonts.clean(text)

    def mean_at(self, box: Box) -> RGB:
        x0, y0, x1, y1 = (round(v) for v in box)
        region = self.image.crop(
            (max(0, x0), max(0, y0), min(self.w, max(x1, x0 + 1)), min(self.h, max(y1, y0 + 1)))
        )
        r, g, b = ImageStat.Stat(region).mean[:3]
        return round(r), round(g), round(b)

    def inks_at(self, box: Box) -> tuple[RGB, RGB, RGB]:
        """(ink, muted ink, accent) readable on what is behind `box`."""
        background = self.mean_at(box)
        ink = readable_on(background)
        muted = ensure_contrast(mix(ink, background, 0.3), background, 4.5)
        return ink, muted, ensure_contrast(self.theme.accent, background, 2.4)

    def text(
        self,
        lines: list[str],
        x: float,
        top: float,
        size: float,
        fill: RGB,
        *,
        line_height: float,
        bold: bool = False,
        center_in: float = 0.0,
    ) -> float:
        """Draw lines whose glyph box starts at `top`; returns the bottom of the last line's glyph box."""
        font = self.fonts.font(size)
        stroke = max(1, round(size / 44)) if bold else 0
        for i, line in enumerate(lines):
            left = x + (center_in - self.fonts.width(line, size)) / 2 if center_in else x
            baseline = top + size * 0.88 + i * line_height
            self.draw.text(
                (left, baseline),
                line,
                font=font,
                fill=fill,
                anchor="ls",
                stroke_width=stroke,
                stroke_fill=fill,
            )
        return top + (len(lines) - 1) * line_height + size if lines else top

    def marker_highlight(self, line: str, x: float, top: float, size: float, colour: RGB) -> None:
        """A translucent highlighter stroke behind the lower part of a line."""
        right = x + self.fonts.width(line, size) + size * 0.12
        self.draw.rounded_rectangle(
            (x - size * 0.1, top + size * 0.52, right, top + size * 1.02),
            radius=size * 0.12,
            fill=(*colour, 120),
        )

    def panel(self, box: Box, radius: float, fill: tuple[int, int, int, int]) -> None:
        """A rounded card with a soft shadow (blurred at quarter size, pasted only around the card)."""
        q, x0, y0, x1, y1 = 4, *box
        spread, offset = self.px(60), self.px(14)
        region = (
            max(0, round(x0 - spread)),
            max(0, round(y0 - spread + offset)),
            min(self.w, round(x1 + spread)),
            min(self.h, round(y1 + spread + offset)),
        )
        rw, rh = region[2] - region[0], region[3] - region[1]
        shadow = Image.new("L", (max(1, rw // q), max(1, rh // q)), 0)
        ImageDraw.Draw(shadow).rounded_rectangle(
            (
                (x0 - region[0]) / q,
                (y0 + offset - region[1]) / q,
                (x1 - region[0]) / q,
                (y1 + offset - region[1]) / q,
            ),
            radius=radius / q,
            fill=70,
        )
        shadow = shadow.filter(ImageFilter.GaussianBlur(self.px(22) / q)).resize(
            (rw, rh), Image.Resampling.BILINEAR
        )
        self.image.paste((20, 24, 32), region, shadow)
        self.draw.rounded_rectangle(box, radius=radius, fill=fill)


def _background(c: _Canvas) -> Image.Image:
    """Smooth layers (gradient, light bloom) are built at quarter size and scaled up once, by repeating each
    pixel: neighbouring quarter-size pixels of these layers differ by at most a level or two, so the copies
    are identical to the eye, and the scaling takes ~1 ms instead of ~9 for bilinear. Crisp layers (split
    edge, pattern) are drawn at full size."""
    t, w, h, rng = c.theme, c.w, c.h, c.rng
    kind, q = c.req.background, 4
    small = Image.new("RGB", (-(-w // q), -(-h // q)), t.base)
    if kind == "gradient":
        mask = Image.linear_gradient("L")
        if rng.random() < 0.5:
            mask = Image.blend(mask, mask.rotate(90), 0.5)  # diagonal
        small = Image.composite(Image.new("RGB", small.size, t.second), small, mask.resize(small.size))
    if kind in ("gradient", "solid"):  # a soft light bloom for depth
        bloom = Image.new("L", small.size, 0)
        cx, cy, r = (
            rng.uniform(0.1, 0.9) * small.width,
            rng.uniform(0.05, 0.3) * small.height,
            0.45 * small.width,
        )
        ImageDraw.Draw(bloom).ellipse((cx - r, cy - r, cx + r, cy + r), fill=80)
        small.paste((255, 255, 255), (0, 0), bloom.filter(ImageFilter.GaussianBlur(r / 2)))
    image = small.resize((w, h), Image.Resampling.NEAREST)
    if kind == "split":
        ratio = {"cover": 0.62, "detail": 0.3, "result": 0.34}[c.req.role]
        second = t.second if contrast(t.second, t.base) > 1.15 else mix(t.base, t.accent, 0.28)
        tilt = c.px(70) * (1 if rng.random() < 0.5 else -1)
        ImageDraw.Draw(image).polygon(
            [(0, h * ratio + tilt), (w, h * ratio - tilt), (w, h), (0, h)], fill=second
        )
    elif kind == "pattern":
        ink = readable_on(t.base)
        layer = ImageDraw.Draw(image, "RGBA")
        step = c.px(rng.choice((44, 52, 60)))
        if rng.random() < 0.5:
            dot = c.px(3.5)
            for y in range(step // 2, h, step):
                for x in range(step // 2 + (step // 2 if (y // step) % 2 else 0), w, step):
                    layer.ellipse((x - dot, y - dot, x + dot, y + dot), fill=(*ink, 22))
        else:
            for x in range(-h, w, step):
                layer.line((x, h, x + h, 0), fill=(*ink, 14), width=c.px(3))
    return image


def _decorate(c: _Canvas, *, strong: bool) -> None:
    """Large translucent circles (with a thin outer ring) bleeding off one or two corners (seeded)."""
    t, d, rng = c.theme, c.draw, c.rng
    corners = [(0.0, 0.0), (float(c.w), 0.0), (0.0, float(c.h)), (float(c.w), float(c.h))]
    rng.shuffle(corners)
    for i, (cx, cy) in enumerate(corners[: 2 if strong else 1]):
        r = c.w * rng.uniform(0.26, 0.38) * (1 if i == 0 else 0.7)
        cx += rng.uniform(-0.1, 0.1) * c.w
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*t.accent, 34 if strong else 24))
        ring = r * 1.2
        d.ellipse((cx - ring, cy - ring, cx + ring, cy + ring), outline=(*t.accent, 60), width=c.px(3))


def _motif(c: _Canvas, cx: float, cy: float, r: float, label: str) -> None:
    """The visual focus as an emblem: dot grid, halo, dashed orbit with satellites, a disc, the label."""
    t, d = c.theme, c.draw
    step, dot = r * 0.16, max(2.0, r * 0.028)
    for row in range(5):
        for col in range(5):
            x, y = cx - r * 1.45 + col * step, cy + r * 0.45 + row * step
            d.ellipse((x - dot, y - dot, x + dot, y + dot), fill=(*t.accent, 90))
    halo, orbit = r * 1.3, r * 1.14
    d.ellipse((cx - halo, cy - halo, cx + halo, cy + halo), fill=(*t.accent, 36))
    for start in range(0, 360, 12):
        d.arc(
            (cx - orbit, cy - orbit, cx + orbit, cy + orbit),
            start,
            start + 6,
            fill=(*t.accent, 170),
            width=c.px(4),
        )
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=t.accent)
    inner = r * 0.86
    d.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), outline=(*t.accent_ink, 110), width=c.px(3))
    for angle in c.rng.sample(range(0, 360, 30), 3):
        sx, sy = cx + orbit * math.cos(math.radians(angle)), cy + orbit * math.sin(math.radians(angle))
        sr = r * 0.07
        d.ellipse((sx - sr, sy - sr, sx + sr, sy + sr), fill=t.accent)
    size, lines = c.fonts.fit(label, r * 1.3, 2, r * 0.5, r * 0.2)
    height = (len(lines) - 1) * size * 1.15 + size
    c.text(
        lines,
        cx - r * 0.65,
        cy - height / 2,
        size,
        t.accent_ink,
        line_height=size * 1.15,
        bold=True,
        center_in=r * 1.3,
    )


def _stack(c: _Canvas, block_h: float, top: float, bottom: float, *, max_r: float) -> float:
    """Place a text block of `block_h` and, room permitting, the visual-focus motif between `top` and
    `bottom` (motif below the block, or above it for `text_position="bottom"`). Returns the block's y."""
    position = _POSITION[c.req.text_position]
    focus = c.clean(c.req.visual_focus)
    gap = c.px(40)
    r = min(max_r, (bottom - top - block_h - gap) / 2.7)
    if not focus or r < c.px(72):
        return top + max(0.0, bottom - top - block_h) * position
    band = 2.7 * r
    y = top + (bottom - top - block_h - gap - band) * position
    if c.req.text_position == "bottom":
        block_y, motif_y = y + band + gap, y + band / 2
    else:
        block_y, motif_y = y, y + block_h + gap + band / 2
    cx = c.w - c.m - r * 1.3 - c.rng.uniform(0, c.px(30))
    _motif(c, cx, motif_y, r, focus)
    return block_y


# --- furniture --------------------------------------------------------------------------------------------
def _header(c: _Canvas) -> float:
    """Style/topic pill at the top left, page marker at the top right; returns the y below them."""
    req, size = c.req, c.px(30)
    height = size * 1.9
    label = c.clean(req.style_name) or (c.clean(req.visual_focus) if req.role != "cover" else "")
    if label:
        label = c.fonts.truncate(c.fonts.wrap(label, size, c.w * 0.55), 1, size, c.w * 0.55)[0]
        right = c.m + c.fonts.width(label, size) + size * 1.4
        c.draw.rounded_rectangle((c.m, c.m, right, c.m + height), radius=height / 2, fill=c.theme.accent)
        c.text(
            [label], c.m + size * 0.7, c.m + (height - size) / 2, size, c.theme.accent_ink, line_height=size
        )
    if req.total > 1:
        marker = f"{req.index:02d} / {req.total:02d}"
        width = c.fonts.width(marker, size)
        box = (c.w - c.m - width, c.m, c.w - c.m, c.m + height)
        _ink, muted, _accent = c.inks_at(box)
        c.text([marker], box[0], c.m + (height - size) / 2, size, muted, line_height=size)
    return c.m + height


def _footer(c: _Canvas) -> float:
    """Caption/tags at the bottom (at most two lines) under a short accent rule; returns the y above them."""
    caption = c.clean(c.req.caption)
    bottom = c.h - c.m
    if not caption:
        return bottom
    size, width = c.px(30), c.w - 2 * c.m
    lines = c.fonts.truncate(c.fonts.wrap(caption, size, width, words=True), 2, size, width)
    line_height = size * 1.5
    top = bottom - ((len(lines) - 1) * line_height + size)
    _ink, muted, accent = c.inks_at((c.m, top, c.w - c.m, bottom))
    c.draw.rounded_rectangle(
        (c.m, top - c.px(34), c.m + c.px(56), top - c.px(28)), radius=c.px(3), fill=accent
    )
    c.text(lines, c.m, top, size, muted, line_height=line_height)
    return top - c.px(34)


def _items(c: _Canvas) -> list[str]:
    items = [c.clean(_LIST_MARKER.sub("", line)) for line in c.req.body]
    return [item for item in items if item][: c.density.items]


# --- layouts ----------------------------------------------------------------------------------------------
def _headline_options(text: str) -> list[str]:
    """The headline broken at its separators ("A｜B" → two lines) first, then as one run."""
    parts = [part.strip() for part in re.split(r"\s*[｜|]\s*", text) if part.strip()]
    joined = " ".join(parts)
    return ["\n".join(parts), joined] if len(parts) > 1 else [joined]


def _cover(c: _Canvas) -> None:
    req, d, fonts = c.req, c.density, c.fonts
    _decorate(c, strong=True)
    top, bottom = _header(c), _footer(c)
    width = c.w - 2 * c.m
    area_top, area_bottom = top + c.px(48), bottom - c.px(48)
    headline = (
        c.clean(req.headline)
        or c.clean(req.visual_focus)
        or (c.clean(req.body[0]) if req.body else "")
        or "…"
    )
    sub_size, bar_h, gap = c.px(d.sub), c.px(12), c.px(48)
    sub_lines: list[str] = []
    for line in req.body[: d.cover_body] if req.headline else req.body[1 : 1 + d.cover_body]:
        sub_lines += fonts.truncate(fonts.wrap(c.clean(line), sub_size, width), 2, sub_size, width)
    sub_lh = sub_size * 1.5
    sub_h = (len(sub_lines) - 1) * sub_lh + sub_size + gap if sub_lines else 0.0
    # Room for the headline: leave a motif band (if there is a visual focus) and the fixed parts.
    motif_band = c.px(2.7 * 130) + c.px(40) if c.clean(req.visual_focus) else 0
    head_room = area_bottom - area_top - motif_band - bar_h - gap - sub_h
    best: tuple[int, list[str]] | None = None
    for option in _headline_options(headline):
        size, lines = fonts.fit(option, width, 3, c.px(d.cover_head), c.px(64))
        while size > c.px(64) and (len(lines) - 1) * size * 1.2 + size > head_room:
            size -= max(2, round(size * 0.04))
            lines = fonts.balanced(option, size, width, words=True)
            lines = fonts.truncate(lines, 3, size, width)
        if best is None or size > best[0] * 1.25:
            best = (size, lines)
    assert best is not None
    size, lines = best
    line_height = size * 1.2
    head_h = (len(lines) - 1) * line_height + size
    block_h = bar_h + gap + head_h + sub_h
    y0 = _stack(c, block_h, area_top, area_bottom, max_r=c.w * 0.2)
    ink, muted, accent = c.inks_at((c.m, y0, c.w - c.m, y0 + block_h))
    c.draw.rounded_rectangle((c.m, y0, c.m + c.px(96), y0 + bar_h), radius=bar_h / 2, fill=accent)
    head_top = y0 + bar_h + gap
    last_top = head_top + (len(lines) - 1) * line_height
    if ink != LIGHT_INK:  # light background: a highlighter stroke behind the last line
        c.marker_highlight(lines[-1], c.m, last_top, size, c.theme.accent)
        c.text(lines, c.m, head_top, size, ink, line_height=line_height, bold=True)
    else:  # dark background: the last line in the accent colour
        c.text(lines[:-1], c.m, head_top, size, ink, line_height=line_height, bold=True)
        c.text(
            lines[-1:],
            c.m,
            last_top,
            size,
            ensure_contrast(c.theme.accent, c.mean_at((c.m, last_top, c.w - c.m, last_top + size)), 4.5),
            line_height=line_height,
            bold=True,
        )
    c.text(sub_lines, c.m, head_top + head_h + gap, sub_size, muted, line_height=sub_lh)


def _titled(c: _Canvas, title: str, top: float, *, scale: float = 1.0) -> float:
    """A heading with an accent bar at its left; returns the y below it."""
    size, lines = c.fonts.fit(title, c.w - 2 * c.m - c.px(34), 2, c.px(c.density.head * scale), c.px(54))
    line_height = size * 1.25
    height = (len(lines) - 1) * line_height + size
    ink, _muted, accent = c.inks_at((c.m, top, c.w - c.m, top + height))
    c.draw.rounded_rectangle(
        (c.m, top + size * 0.04, c.m + c.px(10), top + height), radius=c.px(5), fill=accent
    )
    c.text(lines, c.m + c.px(34), top, size, ink, line_height=line_height, bold=True)
    return top + height


def _list_panel(c: _Canvas, items: list[str], area_top: float, area_bottom: float, *, check: bool) -> None:
    """Numbered (or checked) points on a light card; sizes shrink, then points drop, until it fits."""
    fonts, pad, x0, x1 = c.fonts, c.px(56), c.m, c.w - c.m
    available = area_bottom - area_top
    size = float(c.px(c.density.item))
    while True:
        badge = size * 1.3
        text_x = x0 + pad + badge + c.px(28)
        text_w = x1 - pad - text_x
        wrapped = [fonts.wrap(item, size, text_w) for item in items]
        line_height, gap = size * 1.5, size * (0.9 if len(items) > 6 else 1.1)
        heights = [max(badge, (len(lines) - 1) * line_height + size) for lines in wrapped]
        total = 2 * pad + sum(heights) + gap * (len(heights) - 1)
        if total <= available or size <= c.px(30):
            break
        size -= 2
    while total > available and len(heights) > 1:
        total -= heights.pop() + gap
        wrapped.pop()
    if total > available:  # one very long point: keep the lines that fit
        keep = max(1, int((available - 2 * pad - size) // line_height) + 1)
        wrapped[0] = fonts.truncate(wrapped[0], keep, size, text_w)
        heights[0] = (len(wrapped[0]) - 1) * line_height + size
        total = 2 * pad + heights[0]
    y0 = _stack(c, total, area_top, area_bottom, max_r=c.w * 0.17)
    c.panel((x0, y0, x1, y0 + total), c.px(36), (255, 255, 255, 236))
    ink, muted, _ = c.inks_at((x0 + pad, y0 + pad, x1 - pad, y0 + total - pad))
    accent = ensure_contrast(c.theme.accent, (255, 255, 255), 3.0)
    accent_ink = ink_on_fill(accent)
    y = y0 + pad
    for number, (lines, height) in enumerate(zip(wrapped, heights, strict=True), start=1):
        bx, by = x0 + pad, y + size / 2 - badge / 2
        if check:
            c.draw.rounded_rectangle((bx, by, bx + badge, by + badge), radius=badge * 0.28, fill=accent)
            tick = [
                (bx + fx * badge, by + fy * badge) for fx, fy in ((0.26, 0.53), (0.43, 0.7), (0.75, 0.33))
            ]
            c.draw.line(tick, fill=accent_ink, width=max(3, round(badge * 0.11)), joint="curve")
        else:
            c.draw.ellipse((bx, by, bx + badge, by + badge), fill=accent)
            c.draw.text(
                (bx + badge / 2, by + badge / 2),
                str(number),
                font=fonts.font(size * 0.62),
                fill=accent_ink,
                anchor="mm",
                stroke_width=1,
                stroke_fill=accent_ink,
            )
        emphasis = _EMPHASIS.match(lines[0])
        if emphasis:
            prefix = emphasis.group(0)
            c.text([prefix], text_x, y, size, accent, line_height=line_height, bold=True)
            rest_x = text_x + fonts.width(prefix, size) + max(1, round(size / 44))
            c.text([lines[0][len(prefix) :]], rest_x, y, size, ink, line_height=line_height)
            c.text(lines[1:], text_x, y + line_height, size, ink, line_height=line_height)
        else:
            c.text(lines, text_x, y, size, ink, line_height=line_height)
        y += height
        if number < len(wrapped):
            c.draw.line(
                (text_x, y + gap / 2, x1 - pad, y + gap / 2), fill=(*muted, 40), width=max(1, c.px(2))
            )
            y += gap


def _takeaway(c: _Canvas, text: str, area_top: float, area_bottom: float) -> None:
    """One big highlighted takeaway on an accent card with a large quotation mark."""
    t, fonts = c.theme, c.fonts
    pad, width = c.px(72), c.w - 2 * c.m
    size, lines = fonts.fit(text, width - 2 * pad, 6, c.px(c.density.head * 0.9), c.px(44))
    line_height, quote = size * 1.45, c.px(150)
    total = pad + quote * 0.55 + (len(lines) - 1) * line_height + size + pad
    y0 = _stack(c, total, area_top, area_bottom, max_r=c.w * 0.2)
    c.panel((c.m, y0, c.w - c.m, y0 + total), c.px(40), (*t.accent, 255))
    c.draw.text(
        (c.m + pad - c.px(8), y0 + pad * 0.6),
        "“",
        font=fonts.font(quote),
        fill=(*t.accent_ink, 110),
        anchor="lt",
    )
    c.text(lines, c.m + pad, y0 + pad + quote * 0.55, size, t.accent_ink, line_height=line_height, bold=True)


def _detail(c: _Canvas) -> None:
    _decorate(c, strong=False)
    top, bottom = _header(c), _footer(c)
    y = top + c.px(44)
    heading = c.clean(c.req.headline) or c.clean(c.req.visual_focus)
    if heading:
        y = _titled(c, heading, y) + c.px(48)
    items = _items(c)
    if items:
        _list_panel(c, items, y, bottom - c.px(36), check=False)
    else:
        _stack(c, 0.0, y, bottom - c.px(36), max_r=c.w * 0.26)


def _result(c: _Canvas) -> None:
    _decorate(c, strong=False)
    top, bottom = _header(c), _footer(c)
    y = _titled(c, c.clean(c.req.headline) or "总结", top + c.px(44), scale=1.1) + c.px(48)
    items = _items(c)
    if len(items) >= 2:
        _list_panel(c, items, y, bottom - c.px(36), check=True)
    else:
        takeaway = items[0] if items else c.clean(c.req.visual_focus) or c.clean(c.req.headline) or "总结"
        _takeaway(c, takeaway, y, bottom - c.px(36))


_LAYOUTS = {"cover": _cover, "detail": _detail, "result": _result}


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

    async def render(self, request: ImageRequest) -> bytes:
        pool = self.start()
        if pool is None:
            return await asyncio.to_thread(self.render_png, request)
        fields = request.model_dump()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, _render_in_worker, fields)
        except BrokenProcessPool:  # a worker died (killed, out of memory): replace the pool, once
            if self._pool is pool:  # not already replaced by another card that saw the same death
                self.close()
            return await loop.run_in_executor(self.start(), _render_in_worker, fields)

    def render_image(self, request: ImageRequest) -> Image.Image:
        canvas = _Canvas(request, self.fonts)
        _LAYOUTS[request.role](canvas)
        return canvas.image

    def render_png(self, request: ImageRequest) -> bytes:
        return encode_png(self.render_image(request), self._compress_level)


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


def _render_in_worker(fields: dict[str, object]) -> bytes:
    from tools.images import ImageRequest

    assert _worker is not None, "the worker process was not initialised"
    return _worker.render_png(ImageRequest.model_validate(fields))
