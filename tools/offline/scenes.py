"""The scenes of the offline brief's goal table (data/brief/goals.json): a theme, or a finer scene of it."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from tools.entities import places
from tools.offline.lexicon import Theme

# …said of food to be had somewhere (推荐, 吃, 避坑): a dish's name alone (扬州炒饭) may be a recipe asked for
_EATEN = re.compile(r"推荐|吃(?!法)|避坑|好吃|攻略|打卡|美食|去|逛|哪")
# A dish made at home, asked how: never eating out, wherever the dish comes from (成都火锅底料怎么炒)
COOKED = re.compile(
    r"做法|在家(?!附近|楼下|门口|旁边|对面)|自己做|自制|食谱|菜谱|怎么[做炒煮烧炖蒸烤煎拌腌卤包熬]|教程|步骤|配方|复刻|学会|下厨|厨房"
)

# food brought or sent home from a place: eaten at home, not there
BROUGHT = re.compile(r"带回(?:来|家)|(?:背|带|买|扛|寄)了[^，。；;\s]{0,6}回(?:来|家)|寄回家")

# a trip counted in days, its plan, or the drive there
_TRIP = re.compile(
    r"(?:住|待|呆|玩)了?[一二两三四五六七八九十\d]+(?:天|晚|夜)|[一二两三四五六七\d]天|行程|路线|(?:开车|自驾)去"
    # (…or a stay told: 住在龙潭村的老房子民宿)
    r"|住在[^，,。]{0,10}(?:民宿|酒店|客栈|青旅)"
)

GOALS = Path(__file__).resolve().parents[2] / "data" / "brief" / "goals.json"


@cache
def goals() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOALS.read_text(encoding="utf-8"))
    return data


def scene_of(theme_key: str, text: str) -> str:
    """The goal table's scene: the theme, or a finer scene of it the text names — 'food_out' for eating out
    (探店, 必吃 …, or food in a place not said to be cooked; never a recipe), 'makeup' for make-up (眼妆,
    底妆 …, not skincare)."""
    scene = theme_key or "*"
    data = goals()
    for finer, themes in data["scene_themes"].items():
        if scene in themes and re.search(data["scenes"][finer], text, re.IGNORECASE):
            if finer == "food_out" and scene == "travel" and _TRIP.search(text):
                continue  # a trip of days that passes a café (安吉住了两晚，竹林和咖啡馆) is still a trip
            return finer
    # food to be had in a place, not said to be cooked, is eaten there (成都火锅推荐, 西湖边吃杭帮菜)
    # (…and not brought home: 背了两斤火腿回来)
    home = COOKED.search(text) or BROUGHT.search(text)
    if scene == "food" and _EATEN.search(text) and places(text) and not home:
        return "food_out"
    return scene


def facet(theme: Theme, text: str) -> Theme:
    """The theme as the text's finer scene speaks it: make-up (眼妆, 底妆) is beauty with its own tags, emoji,
    benefit and image scene, not skincare's (#护肤, 🧴, 稳定又好状态)."""
    voice = goals().get("scene_voice", {}).get(scene_of(theme.key, text))
    if not voice:
        return theme
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in voice.items()}
    return replace(theme, **fields)
