"""Typography and colour for the card renderer: the card font, glyph coverage, text cleaning, Chinese-aware
wrapping and fitting, and the WCAG contrast helpers that pick readable ink and derive a palette's `Theme`.

The font is the Simplified Chinese face of Noto Sans CJK (`noto_cjk_sans_otc`), loaded lazily and cached per
thread (FreeType faces are not shared across threads). Text is wrapped by measured pixel width, per character
for Chinese and per word for Latin runs (display text keeps Chinese words whole, via jieba), with punctuation
kept off line starts (hanging it or pulling a character down) and opening brackets off line ends. Characters
the font lacks (emoji, …) are replaced by a symbol it has or dropped, so nothing renders as tofu.
"""

from __future__ import annotations

import colorsys
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

from tools import segmenter

RGB = tuple[int, int, int]
FACE_NAME = "Noto Sans CJK SC"
DARK_INK: RGB = (31, 35, 41)
LIGHT_INK: RGB = (255, 255, 255)
NO_LINE_START = frozenset("，。、；：？！）》」』】〕〉”’…—·,.;:?!)]}%％～~")
NO_LINE_END = frozenset("（《「『【〔〈“‘([{")
_TOKENS = re.compile(r"[A-Za-z0-9]+(?:[-'’.][A-Za-z0-9]+)*%?|\s+|.", re.S)
_HASHTAG = re.compile(r"(#[^\s#]+)")
_NOTDEF_PROBE = "\U0010fffd"  # a private-use code point no font here maps: renders as the .notdef box
_SUBSTITUTES = {"✅": "✓", "✔": "✓", "☑": "✓", "❌": "×", "❎": "×", "⭐": "★", "🌟": "★", "❤": "♥",
                "💖": "♥", "👉": "→", "➡": "→", "⚠": "!"}  # fmt: skip


def default_font_path() -> Path:
    from noto_cjk_sans_otc import FONT_PATH

    return Path(str(FONT_PATH))


def find_face_index(path: Path, family: str = FACE_NAME) -> int:
    """Index of `family` inside a font collection (faces are tried in order until one is missing)."""
    for index in range(64):
        try:
            name, _style = ImageFont.truetype(str(path), 16, index=index).getname()
        except OSError:
            break
        if name == family:
            return index
    raise LookupError(f"font face {family!r} not found in {path}")


class FontBook:
    """The card font at any size (cached per thread: FreeType faces are not shared across threads), glyph
    coverage, text cleaning, measuring and wrapping."""

    def __init__(self, path: Path | None = None, *, family: str = FACE_NAME) -> None:
        self._path = path
        self._family = family
        self._index: int | None = None
        self._local = threading.local()
        self._coverage: dict[str, bool] = {}
        self._advances: dict[tuple[int, str], float] = {}

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = default_font_path()
        return self._path

    @property
    def index(self) -> int:
        if self._index is None:
            self._index = find_face_index(self.path, self._family)
        return self._index

    def font(self, size: float) -> ImageFont.FreeTypeFont:
        cache: dict[int, ImageFont.FreeTypeFont] = self._local.__dict__.setdefault("fonts", {})
        key = max(8, round(size))
        if key not in cache:
            cache[key] = ImageFont.truetype(str(self.path), key, index=self.index)
        return cache[key]

    def warm_up(self) -> None:
        """Load the font and the word-segmentation dictionary now (~1 s) instead of on first use."""
        self.font(40)
        _segment("预热")

    def has_glyph(self, char: str) -> bool:
        """False when the font would draw `char` as its missing-glyph box."""
        known = self._coverage.get(char)
        if known is None:
            font = self.font(32)
            mask, probe = font.getmask(char), font.getmask(_NOTDEF_PROBE)
            known = mask.size != probe.size or bytes(mask) != bytes(probe)
            self._coverage[char] = known
        return known

    def clean(self, text: str | None) -> str:
        """NFC text with known emoji replaced, format/control characters and uncovered glyphs removed."""
        out: list[str] = []
        for char in unicodedata.normalize("NFC", text or ""):
            char = _SUBSTITUTES.get(char, char)
            if char in "\n\t":
                out.append("\n" if char == "\n" else " ")
            elif unicodedata.category(char)[0] in "CM" or not (char.isspace() or self.has_glyph(char)):
                continue
            else:
                out.append(" " if char.isspace() else char)
        return re.sub(r" {2,}", " ", "".join(out)).strip()

    def width(self, text: str, size: float) -> float:
        key = max(8, round(size))
        total = 0.0
        for char in text:
            advance = self._advances.get((key, char))
            if advance is None:
                advance = self._advances[(key, char)] = self.font(key).getlength(char)
            total += advance
        return total

    def wrap(self, text: str, size: float, max_width: float, *, words: bool = False) -> list[str]:
        """Lines no wider than `max_width`. `words` keeps Chinese words whole (display text, via jieba);
        otherwise Chinese breaks between any two characters, as body text conventionally does."""
        lines: list[str] = []
        for paragraph in text.split("\n"):
            lines.extend(self._wrap_paragraph(paragraph, size, max_width, words=words))
        return lines

    def _wrap_paragraph(self, text: str, size: float, max_width: float, *, words: bool) -> list[str]:
        tokens: list[str] = []
        for word in _segment(text) if words else [text]:
            for token in _TOKENS.findall(word) if not words or len(word) == 1 else [word]:
                # a word longer than a line is split into characters
                tokens.extend(token if len(token) > 1 and self.width(token, size) > max_width else [token])
        lines: list[str] = []
        line, width, last = "", 0.0, ""
        for token in tokens:
            advance = self.width(token, size)
            if not line and token.isspace():
                continue
            if not line or width + advance <= max_width:
                line, width, last = line + token, width + advance, token
                continue
            if not words and token[0] in NO_LINE_START and width + advance <= max_width + size * 0.5:
                line, width = line + token, width + advance  # hanging punctuation (body text only)
                continue
            carry = ""
            if len(line) > 1 and (line[-1] in NO_LINE_END or token[0] in NO_LINE_START):
                # (display text carries its last word whole: 清迈五天|行程，, never 清迈五天行|程，)
                whole = words and len(line) > len(last) > 1 and line.endswith(last)
                line, carry = (line[: -len(last)], last) if whole else (line[:-1], line[-1])
            lines.append(line.rstrip())
            line = carry + ("" if token.isspace() else token)
            width, last = self.width(line, size), line
        if line.strip():
            lines.append(line.rstrip())
        if (
            len(lines) > 1
            and len(lines[-1]) == 1
            and len(lines[-2]) > 3
            and lines[-2][-1] not in NO_LINE_START
        ):
            lines[-2:] = [lines[-2][:-1], lines[-2][-1] + lines[-1]]  # no one-character last line
        return lines

    def balanced(self, text: str, size: float, max_width: float, *, words: bool = False) -> list[str]:
        """Each paragraph in as many lines as a greedy wrap needs, but as even as possible (no orphans)."""
        lines: list[str] = []
        for paragraph in text.split("\n"):
            greedy = self._wrap_paragraph(paragraph, size, max_width, words=words)
            low, high, best = max_width * 0.45, max_width, greedy
            for _ in range(8 if len(greedy) > 1 else 0):
                middle = (low + high) / 2
                trial = self._wrap_paragraph(paragraph, size, middle, words=words)
                if len(trial) <= len(greedy):
                    best, high = trial, middle
                else:
                    low = middle
            lines.extend(best)
        return lines

    def fit(
        self,
        text: str,
        max_width: float,
        max_lines: int,
        max_size: float,
        min_size: float,
        *,
        words: bool = True,
    ) -> tuple[int, list[str]]:
        """Largest size (stepping down) at which `text` wraps into `max_lines`, balanced; else truncated at
        `min_size`. Display text, so Chinese words are kept whole by default."""
        size = round(max_size)
        while size > min_size:
            if len(self.wrap(text, size, max_width, words=words)) <= max_lines:
                return size, self.balanced(text, size, max_width, words=words)
            size -= max(2, round(size * 0.04))
        size = round(min_size)
        return size, self.truncate(self.wrap(text, size, max_width, words=words), max_lines, size, max_width)

    def truncate(self, lines: list[str], max_lines: int, size: float, max_width: float) -> list[str]:
        """The first `max_lines` lines; when text is dropped, the last one ends with "…" at a phrase
        boundary (punctuation, else a word boundary) — never mid-word."""
        if len(lines) <= max_lines:
            return lines
        kept = lines[:max_lines]
        last = kept[-1]
        while last and self.width(last + "…", size) > max_width:
            last = last[:-1]
        kept[-1] = _phrase_end(last, lines[max_lines - 1][len(last) :] + "".join(lines[max_lines:])) + "…"
        return kept


_PHRASE_BREAK = "，。、；：！？,.;:!? "
_DANGLING = tuple("的和与及或在把被对从给让跟并而但（“《")


def _phrase_end(kept: str, rest: str) -> str:
    """`kept` cut back to where a phrase ends: its last punctuation when that keeps at least half of it,
    else its last whole word (the text goes on with `rest`); no connective left hanging."""
    cut = max(kept.rfind(ch) for ch in _PHRASE_BREAK)
    if cut >= len(kept) * 0.5:
        kept = kept[:cut]
    elif rest and kept:
        from tools.cardtext import whole_words

        kept = whole_words(kept + rest, len(kept)) or kept
    while len(kept) > 1 and (kept.endswith(_DANGLING) or kept[-1] in _PHRASE_BREAK):
        kept = kept[:-1]
    return kept.rstrip()


@lru_cache(maxsize=2048)
def _segment(text: str) -> tuple[str, ...]:
    """Chinese word segmentation (jieba; its dictionary loads on first use, ~1 s once per process)."""
    words: list[str] = []
    for part in _HASHTAG.split(text):  # "#周末去哪儿" stays one unit
        if part:
            words.extend([part] if _HASHTAG.fullmatch(part) else segmenter.cut(part))
    return tuple(words)


# --- colour -----------------------------------------------------------------------------------------------
def hex_rgb(value: str) -> RGB:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def luminance(colour: RGB) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = colour
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: RGB, b: RGB) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def readable_on(background: RGB) -> RGB:
    """Dark or light ink, whichever contrasts more; pure black for mid-tones where soft ink misses 4.5:1."""
    ink = DARK_INK if contrast(DARK_INK, background) >= contrast(LIGHT_INK, background) else LIGHT_INK
    return (0, 0, 0) if contrast(ink, background) < 4.5 < contrast((0, 0, 0), background) else ink


def ink_on_fill(fill: RGB) -> RGB:
    """Ink for large/bold text on a coloured fill (pills, badges, motifs): white whenever it reaches the
    WCAG large-text ratio of 3:1 (it looks cleaner on saturated colours), else `readable_on`."""
    return LIGHT_INK if contrast(LIGHT_INK, fill) >= 3.0 else readable_on(fill)


def ensure_contrast(colour: RGB, background: RGB, ratio: float) -> RGB:
    """`colour`, moved toward black or white (whichever the background needs) until it reaches `ratio`."""
    target = (0, 0, 0) if luminance(background) > 0.4 else (255, 255, 255)
    for step in range(11):
        candidate = mix(colour, target, step / 10)
        if contrast(candidate, background) >= ratio:
            return candidate
    return target


def _saturation(colour: RGB) -> float:
    return colorsys.rgb_to_hls(*(c / 255 for c in colour))[2]


@dataclass(frozen=True)
class Theme:
    base: RGB  # dominant background colour
    second: RGB  # second background colour (gradient end, split half)
    accent: RGB  # shapes, badges, highlights
    accent_ink: RGB  # text on the accent


def make_theme(palette: list[str]) -> Theme:
    colours = [hex_rgb(c) for c in palette]
    base = colours[0]
    others = colours[1:]
    if others:
        accent = max(others, key=lambda c: _saturation(c) * 2 + min(contrast(c, base), 4.5) / 4.5)
        second = mix(base, min(others, key=lambda c: abs(luminance(c) - luminance(base))), 0.55)
    else:
        h, lum, s = colorsys.rgb_to_hls(*(c / 255 for c in base))
        r, g, b = colorsys.hls_to_rgb(h, 0.42 if lum > 0.5 else 0.68, max(s, 0.55))
        accent = (round(r * 255), round(g * 255), round(b * 255))
        second = mix(base, (255, 255, 255) if lum < 0.5 else accent, 0.22)
    # Keep the two background ends on the same side of the ink, so one text colour reads on both.
    ink = readable_on(base)
    for t in (0.8, 0.6, 0.4, 0.2, 0.0):
        if contrast(ink, second) >= 4.5:
            break
        second = mix(base, second, t)
    accent = ensure_contrast(accent, base, 2.2)
    return Theme(base=base, second=second, accent=accent, accent_ink=ink_on_fill(accent))
