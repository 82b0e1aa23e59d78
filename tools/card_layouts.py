"""Card layouts: four covers (classic, centered, band, frame), three detail pages (list, steps, tiles) and the
result page (checklist or takeaway). `draw_card(canvas)` draws the request's role in the request's `layout`
(planned by `tools.art.choose_layout`, editable in the image plan); without one, the role's first layout.
The same layouts draw on an image model's picture (`Canvas.photo`): there the motif's room goes to the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tools.canvas import EMPHASIS, Canvas, card_items, decorate, footer, header, motif, stack
from tools.typography import LIGHT_INK, ensure_contrast, ink_on_fill


# --- covers -----------------------------------------------------------------------------------------------
def _headline_options(text: str) -> list[str]:
    """The headline broken at its separators ("A｜B" → two lines) first, then as one run."""
    parts = [part.strip() for part in re.split(r"\s*[｜|]\s*", text) if part.strip()]
    joined = " ".join(parts)
    return ["\n".join(parts), joined] if len(parts) > 1 else [joined]


def _cover_text(c: Canvas, width: float, room: float) -> tuple[int, list[str], int, list[str]]:
    """(headline size, headline lines, subtitle size, subtitle lines) fitted to `width` × `room`."""
    req, d, fonts = c.req, c.density, c.fonts
    headline = (
        c.clean(req.headline) or c.clean(req.visual_focus) or (c.clean(req.body[0]) if req.body else "")
    )
    sub_size = c.px(d.sub)
    sub_lines = _subtitle(c, width, sub_size)
    # scaled up (`text_scale`): back toward the unscaled size while the subtitle would be cut short
    while req.text_scale > 1.0 and sub_size > c.px(d.sub / req.text_scale) and _cut(sub_lines):
        sub_size -= 2
        sub_lines = _subtitle(c, width, sub_size)
    sub_h = (len(sub_lines) - 1) * sub_size * 1.5 + sub_size + c.px(48) if sub_lines else 0.0
    best: tuple[int, list[str]] | None = None
    for option in _headline_options(headline or "…"):
        size, lines = fonts.fit(option, width, 3, c.px(d.cover_head), c.px(64))
        while size > c.px(64) and (len(lines) - 1) * size * 1.2 + size > room - sub_h:
            size -= max(2, round(size * 0.04))
            lines = fonts.truncate(fonts.balanced(option, size, width, words=True), 3, size, width)
        if best is None or size > best[0] * 1.25:
            best = (size, lines)
    assert best is not None
    return best[0], best[1], sub_size, sub_lines


def _subtitle(c: Canvas, width: float, size: int) -> list[str]:
    """The cover's subtitle lines (body lines under the headline, two lines each at most) at `size`."""
    req, fonts = c.req, c.fonts
    lines: list[str] = []
    for line in req.body[: c.density.cover_body] if req.headline else req.body[1 : 1 + c.density.cover_body]:
        lines += fonts.truncate(fonts.wrap(c.clean(line), size, width), 2, size, width)
    return lines


def _cut(lines: list[str]) -> bool:
    return any(line.endswith("…") for line in lines)


def _headline_block(
    c: Canvas,
    x: float,
    y: float,
    width: float,
    fitted: tuple[int, list[str], int, list[str]],
    *,
    centered: bool = False,
    on_fill: bool = False,
) -> float:
    """Draw headline (+ highlight or accent last line) and subtitle from `y`; returns the bottom."""
    size, lines, sub_size, sub_lines = fitted
    lh, gap = size * 1.2, c.px(48)
    head_h = (len(lines) - 1) * lh + size
    sub_h = (len(sub_lines) - 1) * sub_size * 1.5 + sub_size if sub_lines else 0.0
    if on_fill:
        ink = muted = c.theme.accent_ink
    else:
        ink, muted, _accent = c.inks_at((x, y, x + width, y + head_h + gap + sub_h))
    center = width if centered else 0.0
    last_top = y + (len(lines) - 1) * lh
    if on_fill:
        c.text(lines, x, y, size, ink, line_height=lh, bold=True, center_in=center, slot="headline")
    elif ink != LIGHT_INK:  # light background: a highlighter stroke behind the last line
        left = x + (width - c.fonts.width(lines[-1], size)) / 2 if centered else x
        c.marker_highlight(lines[-1], left, last_top, size, c.theme.accent)
        c.text(lines, x, y, size, ink, line_height=lh, bold=True, center_in=center, slot="headline")
    else:  # dark background: the last line in the accent colour
        c.text(lines[:-1], x, y, size, ink, line_height=lh, bold=True, center_in=center, slot="headline")
        behind = c.mean_at((x, last_top, x + width, last_top + size))
        accent = ensure_contrast(c.theme.accent, behind, 4.5)
        c.text(
            lines[-1:],
            x,
            last_top,
            size,
            accent,
            line_height=lh,
            bold=True,
            center_in=center,
            slot="headline",
        )
    if not sub_lines:
        return y + head_h
    sub_top = y + head_h + gap
    c.text(
        sub_lines, x, sub_top, sub_size, muted, line_height=sub_size * 1.5, center_in=center, slot="subtitle"
    )
    return sub_top + sub_h


def _block_height(fitted: tuple[int, list[str], int, list[str]], gap: float) -> float:
    size, lines, sub_size, sub_lines = fitted
    sub_h = (len(sub_lines) - 1) * sub_size * 1.5 + sub_size + gap if sub_lines else 0.0
    return (len(lines) - 1) * size * 1.2 + size + sub_h


def _cover_classic(c: Canvas) -> None:
    """Left-aligned big headline under an accent bar, the motif beside/below it."""
    decorate(c, strong=True)
    top, bottom = header(c), footer(c)
    width = c.w - 2 * c.m
    area_top, area_bottom = top + c.px(48), bottom - c.px(48)
    bar_h, gap = c.px(12), c.px(48)
    motif_band = c.px(2.7 * 130) + c.px(40) if c.focus else 0
    fitted = _cover_text(c, width, area_bottom - area_top - motif_band - bar_h - gap)
    block_h = bar_h + gap + _block_height(fitted, gap)
    y0 = stack(c, block_h, area_top, area_bottom, max_r=c.w * 0.2)
    _ink, _muted, accent = c.inks_at((c.m, y0, c.w - c.m, y0 + block_h))
    c.draw.rounded_rectangle((c.m, y0, c.m + c.px(96), y0 + bar_h), radius=bar_h / 2, fill=accent)
    _headline_block(c, c.m, y0 + bar_h + gap, width, fitted)


def _cover_centered(c: Canvas) -> None:
    """A poster: the motif centred at the top, the headline centred under it, a rule, the subtitle."""
    decorate(c, strong=False)
    top, bottom = header(c), footer(c)
    width = c.w - 2 * c.m
    area_top, area_bottom = top + c.px(40), bottom - c.px(40)
    r = c.w * 0.15 if c.focus else 0.0
    band = 2.7 * r
    fitted = _cover_text(c, width, area_bottom - area_top - band - c.px(60))
    block_h = _block_height(fitted, c.px(48))
    free = max(0.0, area_bottom - area_top - band - block_h - c.px(60))
    y = area_top + free * 0.45
    if r:
        motif(c, c.w / 2, y + band / 2, r, c.focus)
        y += band
    _ink, _muted, accent = c.inks_at((c.m, y, c.w - c.m, y + block_h))
    c.draw.rounded_rectangle(
        (c.w / 2 - c.px(40), y + c.px(14), c.w / 2 + c.px(40), y + c.px(22)), radius=c.px(4), fill=accent
    )
    _headline_block(c, c.m, y + c.px(60), width, fitted, centered=True)


def _cover_band(c: Canvas) -> None:
    """The motif large in the upper part; the headline on a solid accent band across the lower part."""
    decorate(c, strong=True)
    top = header(c)
    width, pad = c.w - 2 * c.m, c.px(56)
    fitted = _cover_text(c, width - 2 * pad, c.h * 0.34)
    block_h = _block_height(fitted, c.px(48))
    caption_h = c.px(180) if c.clean(c.req.caption) else 0
    band_top = max(c.h * 0.5, c.h - c.m - caption_h - block_h - 2 * pad)
    c.panel((c.m, band_top, c.w - c.m, band_top + block_h + 2 * pad), c.px(36), (*c.theme.accent, 255))
    _headline_block(c, c.m + pad, band_top + pad, width - 2 * pad, fitted, on_fill=True)
    footer(c)
    focus = c.focus
    r = min(c.w * 0.2, (band_top - top - c.px(80)) / 2.7)
    if focus and r > c.px(72):
        motif(c, c.w / 2 + c.px(60), top + (band_top - top) / 2, r, focus)


def _cover_frame(c: Canvas) -> None:
    """A magazine cover: an inset frame, the motif upper right, the headline set low beside a rule."""
    t = c.theme
    inset = c.m * 0.45
    c.draw.rectangle((inset, inset, c.w - inset, c.h - inset), outline=(*t.accent, 200), width=c.px(5))
    c.draw.rectangle(
        (inset + c.px(14), inset + c.px(14), c.w - inset - c.px(14), c.h - inset - c.px(14)),
        outline=(*t.accent, 90),
        width=c.px(2),
    )
    top, bottom = header(c), footer(c)
    width = c.w - 2 * c.m - c.px(36)
    fitted = _cover_text(c, width, (bottom - top) * 0.5)
    block_h = _block_height(fitted, c.px(48))
    y0 = bottom - c.px(40) - block_h
    focus = c.focus
    r = min(c.w * 0.19, (y0 - top - c.px(60)) / 2.7)
    if focus and r > c.px(72):
        motif(c, c.w - c.m - r * 1.3, top + c.px(30) + 1.35 * r, r, focus)
    _ink, _muted, accent = c.inks_at((c.m, y0, c.w - c.m, y0 + block_h))
    c.draw.rounded_rectangle((c.m, y0, c.m + c.px(10), y0 + block_h), radius=c.px(5), fill=accent)
    _headline_block(c, c.m + c.px(36), y0, width, fitted)


def _titled(c: Canvas, title: str, top: float, *, scale: float = 1.0) -> float:
    """A heading with an accent bar at its left; returns the y below it."""
    width = c.w - 2 * c.m - c.px(34)
    largest = c.px(c.density.head * scale)
    size, lines = c.fonts.fit(title, width, 2, largest, min(largest, c.px(54)))
    head, dot, tail = title.partition("·")
    if len(lines) == 2 and dot and max(c.fonts.width(head + dot, size), c.fonts.width(tail, size)) <= width:
        lines = [head + dot, tail]  # 两岁宝宝· / 我的选择（续）: a heading breaks after the subject it names
    line_height = size * 1.25
    height = (len(lines) - 1) * line_height + size
    ink, _muted, accent = c.inks_at((c.m, top, c.w - c.m, top + height))
    c.draw.rounded_rectangle(
        (c.m, top + size * 0.04, c.m + c.px(10), top + height), radius=c.px(5), fill=accent
    )
    c.text(lines, c.m + c.px(34), top, size, ink, line_height=line_height, bold=True, slot="headline")
    return top + height


def _list_panel(c: Canvas, items: list[str], area_top: float, area_bottom: float, *, check: bool) -> None:
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
    y0 = stack(c, total, area_top, area_bottom, max_r=c.w * 0.17)
    c.panel((x0, y0, x1, y0 + total), c.px(36), (255, 255, 255, 236))
    ink, muted, _ = c.inks_at((x0 + pad, y0 + pad, x1 - pad, y0 + total - pad))
    accent = ensure_contrast(c.theme.accent, (255, 255, 255), 3.0)
    accent_ink = ink_on_fill(accent)
    y = y0 + pad
    for position, (lines, height) in enumerate(zip(wrapped, heights, strict=True)):
        number = c.req.first_number + position  # a list continued from the card before counts on
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
        emphasis = EMPHASIS.match(lines[0])
        if emphasis:
            prefix = emphasis.group(0)
            c.text([prefix], text_x, y, size, accent, line_height=line_height, bold=True, slot="item")
            rest_x = text_x + fonts.width(prefix, size) + max(1, round(size / 44))
            c.text([lines[0][len(prefix) :]], rest_x, y, size, ink, line_height=line_height, slot="item")
            c.text(lines[1:], text_x, y + line_height, size, ink, line_height=line_height, slot="item")
        else:
            c.text(lines, text_x, y, size, ink, line_height=line_height, slot="item")
        y += height
        if position < len(wrapped) - 1:
            c.draw.line(
                (text_x, y + gap / 2, x1 - pad, y + gap / 2), fill=(*muted, 40), width=max(1, c.px(2))
            )
            y += gap


def _takeaway(c: Canvas, text: str, area_top: float, area_bottom: float) -> None:
    """One big highlighted takeaway on an accent card with a large quotation mark."""
    t, fonts = c.theme, c.fonts
    pad, width = c.px(72), c.w - 2 * c.m
    size, lines = fonts.fit(text, width - 2 * pad, 6, c.px(c.density.head * 0.9), c.px(44))
    line_height, quote = size * 1.45, c.px(150)
    total = pad + quote * 0.55 + (len(lines) - 1) * line_height + size + pad
    y0 = stack(c, total, area_top, area_bottom, max_r=c.w * 0.2)
    c.panel((c.m, y0, c.w - c.m, y0 + total), c.px(40), (*t.accent, 255))
    c.draw.text(
        (c.m + pad - c.px(8), y0 + pad * 0.6),
        "“",
        font=fonts.font(quote),
        fill=(*t.accent_ink, 110),
        anchor="lt",
    )
    c.text(
        lines,
        c.m + pad,
        y0 + pad + quote * 0.55,
        size,
        t.accent_ink,
        line_height=line_height,
        bold=True,
        slot="item",
    )


# --- detail pages -----------------------------------------------------------------------------------------
def _measure(
    c: Canvas, items: list[str], available: float, text_w: Callable[[float], float], pad: float
) -> tuple[float, list[list[str]], list[float], float]:
    """(size, wrapped items, heights, gap): the size shrinks, then whole points drop, until they fit."""
    size = float(c.px(c.density.item))
    while True:
        wrapped = [c.fonts.wrap(item, size, text_w(size)) for item in items]
        gap = size * (0.9 if len(items) > 6 else 1.1)
        heights = [max(size * 1.3, (len(lines) - 1) * size * 1.5 + size) for lines in wrapped]
        total = 2 * pad + sum(heights) + gap * (len(heights) - 1)
        if total <= available or size <= c.px(30):
            break
        size -= 2
    while total > available and len(heights) > 1:  # drop whole points, never cut one
        total -= heights.pop() + gap
        wrapped.pop()
    if total > available:  # one very long point: keep the lines that fit, ending with "…" at a phrase
        keep = max(1, int((available - 2 * pad - size) // (size * 1.5)) + 1)
        wrapped[0] = c.fonts.truncate(wrapped[0], keep, size, text_w(size))
        heights[0] = (len(wrapped[0]) - 1) * size * 1.5 + size
    return size, wrapped, heights, gap


def _point(
    c: Canvas,
    lines: list[str],
    x: float,
    y: float,
    size: float,
    ink: tuple[int, int, int],
    accent: tuple[int, int, int],
) -> None:
    """One point's lines, a leading "term：" in the accent colour."""
    lh = size * 1.5
    emphasis = EMPHASIS.match(lines[0])
    if emphasis:
        prefix = emphasis.group(0)
        c.text([prefix], x, y, size, accent, line_height=lh, bold=True, slot="item")
        rest_x = x + c.fonts.width(prefix, size) + max(1, round(size / 44))
        c.text([lines[0][len(prefix) :]], rest_x, y, size, ink, line_height=lh, slot="item")
        c.text(lines[1:], x, y + lh, size, ink, line_height=lh, slot="item")
    else:
        c.text(lines, x, y, size, ink, line_height=lh, slot="item")


def _steps(c: Canvas, items: list[str], area_top: float, area_bottom: float) -> None:
    """A timeline: numbered step circles on a vertical line, the points beside them on the background."""
    x0, x1 = c.m, c.w - c.m
    size, wrapped, heights, gap = _measure(c, items, area_bottom - area_top, lambda s: x1 - x0 - s * 2.2, 0.0)
    total = sum(heights) + gap * (len(heights) - 1)
    y = stack(c, total, area_top, area_bottom, max_r=c.w * 0.15)
    ink, _muted, accent = c.inks_at((x0, y, x1, y + total))
    badge = size * 1.3
    cx = x0 + badge / 2
    c.draw.line(
        (cx, y + badge / 2, cx, y + total - heights[-1] + badge / 2), fill=(*accent, 160), width=c.px(4)
    )
    for position, (lines, height) in enumerate(zip(wrapped, heights, strict=True)):
        number = c.req.first_number + position  # a list continued from the card before counts on
        by = y + size / 2 - badge / 2
        c.draw.ellipse((x0, by, x0 + badge, by + badge), fill=accent)
        c.draw.text(
            (cx, by + badge / 2),
            str(number),
            font=c.fonts.font(size * 0.62),
            fill=ink_on_fill(accent),
            anchor="mm",
        )
        _point(c, lines, x0 + size * 2.2, y, size, ink, accent)
        y += height + gap


def _tiles(c: Canvas, items: list[str], area_top: float, area_bottom: float) -> None:
    """Each point on its own tile with a big two-digit number."""
    x0, x1, pad = c.m, c.w - c.m, c.px(30)
    num_w = c.px(96)
    size, wrapped, heights, gap = _measure(
        c, items, area_bottom - area_top, lambda s: x1 - x0 - num_w - 3 * pad, pad * len(items) / 2
    )
    heights = [h + 2 * pad for h in heights]
    total = sum(heights) + gap * (len(heights) - 1)
    y = stack(c, total, area_top, area_bottom, max_r=c.w * 0.14)
    accent = ensure_contrast(c.theme.accent, (255, 255, 255), 3.0)
    for position, (lines, height) in enumerate(zip(wrapped, heights, strict=True)):
        number = c.req.first_number + position  # a list continued from the card before counts on
        # a flat offset shadow: a blurred one per tile would double the card's drawing time
        shadow = c.px(8)
        c.draw.rounded_rectangle((x0, y + shadow, x1, y + height + shadow), c.px(28), fill=(20, 24, 32, 40))
        c.draw.rounded_rectangle((x0, y, x1, y + height), c.px(28), fill=(255, 255, 255, 240))
        c.fills.append((x0, y, x1, y + height))
        c.draw.text(
            (x0 + pad, y + pad - c.px(6)),
            f"{number:02d}",
            font=c.fonts.font(c.px(56)),
            fill=accent,
            anchor="lt",
            stroke_width=1,
            stroke_fill=accent,
        )
        ink, _muted, _ = c.inks_at((x0 + num_w + pad, y + pad, x1 - pad, y + height - pad))
        _point(c, lines, x0 + num_w + 2 * pad, y + pad, size, ink, accent)
        y += height + gap


def _detail(c: Canvas, variant: str) -> None:
    decorate(c, strong=False)
    top, bottom = header(c), footer(c)
    y = top + c.px(44)
    heading = c.clean(c.req.headline) or c.clean(c.req.visual_focus)
    if heading:
        y = _titled(c, heading, y) + c.px(48)
    points = card_items(c)
    if not points:
        stack(c, 0.0, y, bottom - c.px(36), max_r=c.w * 0.26)
    elif variant == "steps":
        _steps(c, points, y, bottom - c.px(36))
    elif variant == "tiles":
        _tiles(c, points, y, bottom - c.px(36))
    else:
        _list_panel(c, points, y, bottom - c.px(36), check=False)


def _result(c: Canvas, variant: str) -> None:
    decorate(c, strong=False)
    top, bottom = header(c), footer(c)
    y = _titled(c, c.clean(c.req.headline) or "总结", top + c.px(44), scale=1.1) + c.px(48)
    points = card_items(c)
    if len(points) >= 2 and variant != "takeaway":
        _list_panel(c, points, y, bottom - c.px(36), check=True)
    else:
        takeaway = points[0] if points else c.clean(c.req.visual_focus) or c.clean(c.req.headline) or "总结"
        _takeaway(c, takeaway, y, bottom - c.px(36))


_COVERS: dict[str, Callable[[Canvas], None]] = {
    "classic": _cover_classic,
    "centered": _cover_centered,
    "band": _cover_band,
    "frame": _cover_frame,
}


def draw_card(c: Canvas) -> None:
    """Draw the request's role in its layout (unknown or missing: the role's first, classic one)."""
    from tools.art import LAYOUTS

    options = LAYOUTS[c.req.role]
    variant = c.req.layout if c.req.layout in options else options[0]
    if c.req.role == "cover":
        _COVERS[variant](c)
    elif c.req.role == "detail":
        _detail(c, variant)
    else:
        _result(c, variant)
