"""The canvas a card is drawn on and the furniture every layout shares: background (gradient, bloom, split,
pattern), decorations (circles, or stars on a dark night palette), the visual-focus motif (the plan's subject
with the prompt's scene words), header (a badge holding a whole hashtag from the overlay, and the one page
marker), footer (caption) and headings. Layouts (`tools.card_layouts`) compose cards from these.

A canvas may instead start from a photo (an image model's picture, cover-fitted by `photo_layer`): the layouts
draw the same text blocks, badges and page number on it, without the decorations and the motif (the picture
is the visual focus), over a `scrim` that darkens the picture only behind the text.

Every text drawn is recorded in `Canvas.drawn` as (slot, line), so tests and checks can read what a card says;
on a photo also its box when drawn on the bare picture (`Canvas.boxes`), which is where the scrim goes.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, replace
from io import BytesIO
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFilter, ImageOps, ImageStat

from tools.cardtext import is_page_mark, scene_words
from tools.typography import (
    RGB,
    FontBook,
    contrast,
    ensure_contrast,
    luminance,
    make_theme,
    mix,
    readable_on,
)
from tools.vision import on_white

if TYPE_CHECKING:
    from tools.images import ImageRequest

LIST_MARKER = re.compile(r"^\s*(?:[-•·*●▪◆✓✔☑✅]|\d{1,2}[.、)）]|[①-⑳])\s*")
EMPHASIS = re.compile(r"^([^：:，。]{1,8})[：:](?=\S)")


@dataclass(frozen=True)
class Density:
    cover_head: float
    cover_body: int  # body lines under the cover headline
    sub: float
    head: float
    item: float
    items: int  # body lines drawn on detail/result cards

    def scaled(self, factor: float) -> Density:
        """The text sizes times `factor` (the request's `text_scale`); the counts stay. Each size is the
        largest its layout starts from: the layouts still shrink it (down to their own minimum) until the
        text fits its box, and cut only at a phrase boundary."""
        if factor == 1.0:
            return self
        return replace(
            self,
            cover_head=self.cover_head * factor,
            sub=self.sub * factor,
            head=self.head * factor,
            item=self.item * factor,
        )


DENSITIES = {
    "low": Density(cover_head=160, cover_body=1, sub=48, head=92, item=48, items=4),
    "medium": Density(cover_head=144, cover_body=1, sub=44, head=84, item=42, items=6),
    "high": Density(cover_head=128, cover_body=2, sub=40, head=76, item=37, items=9),
}
POSITION = {"top": 0.06, "center": 0.5, "bottom": 0.94}


# --- canvas ----------------------------------------------------------------------------------------------
Box = tuple[float, float, float, float]


class Canvas:
    """One card being drawn: the image, a blending draw handle, metrics and the seeded randomness. With
    `photo` (an RGB image of the request's size) the card is drawn on that picture instead of the palette's
    background."""

    def __init__(self, request: ImageRequest, fonts: FontBook, photo: Image.Image | None = None) -> None:
        self.req = request
        self.fonts = fonts
        self.w, self.h = request.width, request.height
        self.s = min(self.w / 1080, self.h / 1440)
        self.m = self.px(84)
        self.rng = random.Random(request.stable_seed())
        self.theme = make_theme(request.palette)
        self.density = DENSITIES[request.text_density].scaled(request.text_scale)
        self.photo = photo is not None
        self.image = photo.copy() if photo is not None else background(self)
        self.draw = ImageDraw.Draw(self.image, "RGBA")  # RGBA fills blend into the RGB image
        self.drawn: list[tuple[str, str]] = []  # (slot, line) of every text drawn
        self.boxes: list[Box] = []  # on a photo: the box of every text line drawn on the bare picture
        self.fills: list[Box] = []  # panels, bands and pills drawn so far: text on them needs no scrim
        self.dark = luminance(self.theme.base) < 0.2

    @property
    def focus(self) -> str:
        """The subject the motif shows: none on a photo, whose picture is the visual focus."""
        return "" if self.photo else self.clean(self.req.visual_focus)

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
        slot: str = "text",
    ) -> float:
        """Draw lines whose glyph box starts at `top`; returns the bottom of the last line's glyph box."""
        self.drawn.extend((slot, line) for line in lines)
        font = self.fonts.font(size)
        stroke = max(1, round(size / 44)) if bold else 0
        for i, line in enumerate(lines):
            left = x + (center_in - self.fonts.width(line, size)) / 2 if center_in else x
            baseline = top + size * 0.88 + i * line_height
            if self.photo:
                line_top = top + i * line_height
                box = (left, line_top, left + self.fonts.width(line, size), line_top + size)
                if self._on_picture(box) and luminance(fill) > 0.4:
                    self._shadow(line, box, size, stroke)
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

    def _on_picture(self, box: Box) -> bool:
        """Is this line drawn on the bare picture, not on a panel, band or pill (`fills`)? If so its box is
        recorded (`boxes`: where the scrim goes)."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in self.fills):
            return False
        self.boxes.append(box)
        return True

    def _shadow(self, line: str, box: Box, size: float, stroke: int) -> None:
        """A soft dark shadow under a light line on a picture, so no detail of the photo cuts a stroke."""
        pad = round(size * 0.3)
        mask = Image.new("L", (round(box[2] - box[0]) + 2 * pad, round(size * 1.25) + 2 * pad), 0)
        ImageDraw.Draw(mask).text(
            (pad, pad + size * 0.88),
            line,
            font=self.fonts.font(size),
            fill=150,
            anchor="ls",
            stroke_width=stroke + max(1, round(size / 24)),
            stroke_fill=150,
        )
        mask = mask.filter(ImageFilter.GaussianBlur(max(1.5, size / 16)))
        self.image.paste(SCRIM_INK, (round(box[0]) - pad, round(box[1] + size * 0.04) - pad), mask)

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
        self.fills.append(box)


def background(c: Canvas) -> Image.Image:
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


# --- photos -----------------------------------------------------------------------------------------------
SCRIM_INK: RGB = (12, 12, 16)


def photo_layer(data: bytes, width: int, height: int) -> Image.Image:
    """The picture (PNG/JPEG/WebP bytes) as an RGB image that fills `width` × `height`: scaled to cover and
    cropped around the centre, a little above it (subjects sit high more often than low); transparency is laid
    on white."""
    with Image.open(BytesIO(data)) as opened:
        picture = on_white(ImageOps.exif_transpose(opened))
    return ImageOps.fit(picture, (width, height), Image.Resampling.LANCZOS, centering=(0.5, 0.45))


def scrim(photo: Image.Image, boxes: list[Box], scale: float) -> Image.Image:
    """The photo darkened, full width, in soft horizontal bands behind the text boxes — the gradient a cover
    photo gets under its title — just enough that white text reads on the brighter parts of what is behind it:
    the 85th percentile of a big line's lightness (the 95th of a small line's: fine detail cuts small strokes)
    is brought to ~100 of 255 (relative luminance ~0.13, WCAG AA for white), with at least a 30 % shade so
    every text sits on a visible one, and up to 15 % more on a busy picture. Rows away from the text keep the
    picture's own pixels; a band near the top or bottom runs out to that edge."""
    rows = [0.0] * photo.height
    grey = photo.convert("L")
    pad = 36 * scale
    for x0, y0, x1, y1 in boxes:
        left, right = max(0, round(x0)), min(photo.width, round(x1) + 1)
        region = grey.crop((left, max(0, round(y0)), right, min(photo.height, round(y1) + 1)))
        bright = _percentile(region, 0.85 if y1 - y0 > 72 * scale else 0.95)
        busy = min(0.15, ImageStat.Stat(region).stddev[0] / 400)  # fine detail cuts strokes: a little more
        shade = min(0.8, max(0.3, 1 - 100 / max(bright, 1)) + busy)
        top, bottom = round(y0 - pad), round(y1 + pad)
        top = 0 if top < photo.height * 0.16 else top  # near an edge: the band runs out to it
        bottom = photo.height if bottom > photo.height * 0.84 else bottom
        for y in range(max(0, top), min(photo.height, bottom)):
            rows[y] = max(rows[y], shade)
    column = Image.new("L", (1, photo.height))
    column.putdata([round(255 * shade) for shade in rows])
    # feather the bands' edges: blurred as a narrow strip of equal rows, then stretched across the picture
    strip = column.resize((8, photo.height)).filter(ImageFilter.GaussianBlur(40 * scale))
    mask = strip.resize(photo.size, Image.Resampling.NEAREST)
    return Image.composite(Image.new("RGB", photo.size, SCRIM_INK), photo, mask)


def _percentile(image: Image.Image, share: float) -> int:
    """The level below which `share` of an L image's pixels lie."""
    histogram, seen = image.histogram(), 0
    total = image.width * image.height
    for level, count in enumerate(histogram):
        seen += count
        if seen >= share * total:
            return level
    return 255


def decorate(c: Canvas, *, strong: bool) -> None:
    """Large translucent circles (with a thin outer ring) bleeding off one or two corners (seeded); none on a
    photo."""
    if c.photo:
        return
    t, d, rng = c.theme, c.draw, c.rng
    corners = [(0.0, 0.0), (float(c.w), 0.0), (0.0, float(c.h)), (float(c.w), float(c.h))]
    rng.shuffle(corners)
    for i, (cx, cy) in enumerate(corners[: 2 if strong else 1]):
        r = c.w * rng.uniform(0.26, 0.38) * (1 if i == 0 else 0.7)
        cx += rng.uniform(-0.1, 0.1) * c.w
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*t.accent, 34 if strong else 24))
        ring = r * 1.2
        d.ellipse((cx - ring, cy - ring, cx + ring, cy + ring), outline=(*t.accent, 60), width=c.px(3))
    if c.dark:  # a night palette: a sprinkle of stars
        for _ in range(46 if strong else 30):
            x, y, size = rng.uniform(0, c.w), rng.uniform(0, c.h * 0.7), c.px(rng.choice((2, 2, 3, 4)))
            d.ellipse((x - size, y - size, x + size, y + size), fill=(255, 255, 240, rng.randint(60, 170)))


def motif(c: Canvas, cx: float, cy: float, r: float, label: str) -> None:
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
    # one line if it reads at a good size, else two, else three (a long subject is never cut)
    for count, largest, smallest in ((1, 0.5, 0.3), (2, 0.42, 0.2), (3, 0.3, 0.15)):
        size, lines = c.fonts.fit(label, r * 1.3, count, r * largest, r * smallest)
        if not lines[-1].endswith("…"):
            break
    height = (len(lines) - 1) * size * 1.15 + size
    scene = " · ".join(scene_words(c.req.prompt, label))
    small = max(c.px(22), round(size * 0.42))
    scene_lines = c.fonts.truncate(c.fonts.wrap(scene, small, r * 1.5, words=True), 1, small, r * 1.5)
    extra = small * 1.6 if scene else 0.0
    top = cy - (height + extra) / 2
    c.text(
        lines,
        cx - r * 0.65,
        top,
        size,
        t.accent_ink,
        line_height=size * 1.15,
        bold=True,
        center_in=r * 1.3,
        slot="motif",
    )
    if scene:
        c.text(
            scene_lines,
            cx - r * 0.75,
            top + height + small * 0.6,
            small,
            t.accent_ink,
            line_height=small,
            center_in=r * 1.5,
            slot="scene",
        )


def stack(c: Canvas, block_h: float, top: float, bottom: float, *, max_r: float) -> float:
    """Place a text block of `block_h` and, room permitting, the visual-focus motif between `top` and
    `bottom` (motif below the block, or above it for `text_position="bottom"`). Returns the block's y."""
    position = POSITION[c.req.text_position]
    focus = c.focus
    gap = c.px(40)
    r = min(max_r, (bottom - top - block_h - gap) / 2.7)
    if not focus or r < c.px(96):  # a smaller emblem would be unreadable
        return top + max(0.0, bottom - top - block_h) * position
    band = 2.7 * r
    y = top + (bottom - top - block_h - gap - band) * position
    if c.req.text_position == "bottom":
        block_y, motif_y = y + band + gap, y + band / 2
    else:
        block_y, motif_y = y, y + block_h + gap + band / 2
    cx = c.w - c.m - r * 1.3 - c.rng.uniform(0, c.px(30))
    motif(c, cx, motif_y, r, focus)
    return block_y


# --- furniture --------------------------------------------------------------------------------------------
def badge_text(c: Canvas) -> str:
    """The badge: on a cover, the first hashtag of the overlay's caption, whole; elsewhere (or with the
    request's `badge` off) nothing."""
    if c.req.role != "cover" or not c.req.badge:
        return ""
    tags = re.findall(r"#([^\s#]+)", c.clean(c.req.caption))
    return tags[0] if tags else ""


def header(c: Canvas) -> float:
    """A badge at the top left (a whole hashtag, never a cut one), the page marker at the top right; returns
    the y below them."""
    req, size = c.req, c.px(30)
    height = size * 1.9
    label = badge_text(c)
    if label and c.fonts.width(label, size) <= c.w * 0.55:
        right = c.m + c.fonts.width(label, size) + size * 1.4
        c.draw.rounded_rectangle((c.m, c.m, right, c.m + height), radius=height / 2, fill=c.theme.accent)
        c.fills.append((c.m, c.m, right, c.m + height))
        c.text(
            [label],
            c.m + size * 0.7,
            c.m + (height - size) / 2,
            size,
            c.theme.accent_ink,
            line_height=size,
            slot="badge",
        )
    if req.total > 1:
        marker = f"{req.index:02d} / {req.total:02d}"
        width = c.fonts.width(marker, size)
        box = (c.w - c.m - width, c.m, c.w - c.m, c.m + height)
        _ink, muted, _accent = c.inks_at(box)
        c.text([marker], box[0], c.m + (height - size) / 2, size, muted, line_height=size, slot="page")
    return c.m + height


def footer(c: Canvas) -> float:
    """Caption/tags at the bottom (at most two lines) under a short accent rule; returns the y above them."""
    caption = c.clean(c.req.caption)
    bottom = c.h - c.m
    if not caption or is_page_mark(caption):  # the header shows the page number already
        return bottom
    size, width = c.px(30), c.w - 2 * c.m
    lines = c.fonts.truncate(c.fonts.wrap(caption, size, width, words=True), 2, size, width)
    line_height = size * 1.5
    top = bottom - ((len(lines) - 1) * line_height + size)
    _ink, muted, accent = c.inks_at((c.m, top, c.w - c.m, bottom))
    c.draw.rounded_rectangle(
        (c.m, top - c.px(34), c.m + c.px(56), top - c.px(28)), radius=c.px(3), fill=accent
    )
    c.text(lines, c.m, top, size, muted, line_height=line_height, slot="caption")
    return top - c.px(34)


def card_items(c: Canvas) -> list[str]:
    items = [c.clean(LIST_MARKER.sub("", line)) for line in c.req.body]
    return [item for item in items if item][: c.density.items]
