"""Art direction for cards: the scene's mood (time of day, atmosphere) → a palette, and the card layouts a
post gets, chosen by content type and style and stable per creative.

Both are decided when images are planned (the plan then carries its palette and `layout`, so an editor sees
and can change them) and read by the offline renderer, which draws each named layout. The mood words and
palettes are data (`data/lexicon/moods.json`); a night scene is checked first and is always dark.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

MOODS_FILE = Path(__file__).resolve().parent.parent / "data" / "lexicon" / "moods.json"

COVER_LAYOUTS = ("classic", "centered", "band", "frame")
DETAIL_LAYOUTS = ("list", "steps", "tiles")
RESULT_LAYOUTS = ("checklist", "takeaway")
LAYOUTS: dict[str, tuple[str, ...]] = {
    "cover": COVER_LAYOUTS,
    "detail": DETAIL_LAYOUTS,
    "result": RESULT_LAYOUTS,
}
# What an editor sees (and may type instead of the key) for each layout.
LAYOUT_LABELS = {
    "classic": "左对齐大标题",
    "centered": "居中海报",
    "band": "色块标题",
    "frame": "杂志边框",
    "list": "编号清单",
    "steps": "步骤时间线",
    "tiles": "分栏卡片",
    "checklist": "打勾清单",
    "takeaway": "金句总结",
}
_BY_LABEL = {label: key for key, label in LAYOUT_LABELS.items()}
# Preferred layouts per content type (first = most fitting); a post picks among them by a stable hash.
_COVERS = {
    "guide": ("classic", "band", "frame"),
    "list": ("band", "centered", "classic"),
    "review": ("frame", "classic", "centered"),
    "product": ("centered", "frame", "band"),
    "story": ("centered", "frame", "classic"),
    "diary": ("frame", "centered", "band"),
    "edu": ("classic", "band", "centered"),
    "billboard": ("band", "centered", "frame"),
}
_DETAILS = {
    "guide": ("steps", "list", "tiles"),
    "list": ("list", "tiles", "steps"),
    "review": ("tiles", "list"),
    "product": ("tiles", "list"),
    "story": ("list", "tiles"),
    "diary": ("tiles", "list"),
    "edu": ("steps", "list", "tiles"),
    "billboard": ("tiles", "list"),
}


@dataclass(frozen=True)
class Mood:
    key: str
    label: str  # Chinese, e.g. 夜色
    words: tuple[str, ...]
    palettes: tuple[tuple[str, ...], ...]


@cache
def moods() -> tuple[Mood, ...]:
    raw = json.loads(MOODS_FILE.read_text(encoding="utf-8"))
    return tuple(
        Mood(key, value["label"], tuple(value["words"]), tuple(tuple(p) for p in value["palettes"]))
        for key, value in raw.items()
        if not key.startswith("_")
    )


def _hash(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


_SLOT_LABEL = re.compile(r"(?m)^(?:早上|上午|中午|下午|傍晚|晚上)[：:]")


def scene_mood(head: str, body: str = "") -> Mood | None:
    """The mood the words call for: `head` (subject, prompt, title) weighs three times `body` (the post).
    A night word in `head` always makes a night scene; in the body, night must score at least as well as
    any other mood and be said more than once (a breakfast post that mentions last night, a cat toy that
    keeps it quiet 晚上, is not a night scene)."""
    body = _SLOT_LABEL.sub("", body)  # (a day plan's 晚上： is an hour of the day, not the scene's)
    scores = {m.key: sum(3 * head.count(w) + body.count(w) for w in m.words) for m in moods()}
    by_key = {m.key: m for m in moods()}
    if any(w in head for w in by_key["night"].words) if "night" in by_key else False:
        return by_key["night"]
    if scores.get("night", 0) < 2:
        scores["night"] = 0
    best = max(scores, key=lambda k: (scores[k], k == "night"), default=None)
    return by_key[best] if best is not None and scores[best] > 0 else None


def mood_palette(mood: Mood, key: str) -> list[str]:
    """One of the mood's palettes, the same for the same `key` (the creative)."""
    return list(mood.palettes[_hash(mood.key, key) % len(mood.palettes)])


def is_dark(palette: list[str]) -> bool:
    """Is the dominant colour dark (relative luminance below 0.2)?"""
    from tools.typography import hex_rgb, luminance

    return bool(palette) and luminance(hex_rgb(palette[0])) < 0.2


def layout_key(value: str | None, role: str) -> str | None:
    """A layout name (key or Chinese label) as a key valid for `role`; None when it names none."""
    text = (value or "").strip()
    key = _BY_LABEL.get(text, text.lower())
    return key if key in LAYOUTS.get(role, ()) else None


def choose_layout(role: str, content_type: str, style: str, key: str) -> str:
    """The layout for a card of `role`, by content type, varied by style and creative (stable for `key`)."""
    options: tuple[str, ...]
    if role == "cover":
        options = _COVERS.get(content_type, COVER_LAYOUTS)
    elif role == "detail":
        options = _DETAILS.get(content_type, DETAIL_LAYOUTS)
    else:
        return "checklist"
    return options[_hash(role, content_type, style, key) % len(options)]
