"""The scenes of the offline brief's goal table (data/brief/goals.json): a theme, or a finer scene of it."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from tools.offline.lexicon import Theme

GOALS = Path(__file__).resolve().parents[2] / "data" / "brief" / "goals.json"


@cache
def goals() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOALS.read_text(encoding="utf-8"))
    return data


def scene_of(theme_key: str, text: str) -> str:
    """The goal table's scene: the theme, or a finer scene of it the text names — 'food_out' for eating out
    (探店, 必吃 …, never a recipe), 'makeup' for make-up (眼妆, 底妆 …, not skincare)."""
    scene = theme_key or "*"
    data = goals()
    for finer, themes in data["scene_themes"].items():
        if scene in themes and re.search(data["scenes"][finer], text, re.IGNORECASE):
            return finer
    return scene


def facet(theme: Theme, text: str) -> Theme:
    """The theme as the text's finer scene speaks it: make-up (眼妆, 底妆) is beauty with its own tags, emoji,
    benefit and image scene, not skincare's (#护肤, 🧴, 稳定又好状态)."""
    voice = goals().get("scene_voice", {}).get(scene_of(theme.key, text))
    if not voice:
        return theme
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in voice.items()}
    return replace(theme, **fields)
