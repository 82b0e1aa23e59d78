"""What a composer sees: the parsed prompt sections, the task, the schema and a seeded RNG."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tools.bilingual import has_english, localize
from tools.offline.lexicon import Theme
from tools.offline.scenes import facet
from tools.offline.text import detect_theme, theme_by_key
from tools.offline.topic import extract_topic


@dataclass
class Context:
    task: str
    sections: dict[str, Any]
    last_user: str  # the whole last user message, for prompts without sections
    schema: dict[str, Any] | None
    rng: random.Random

    def text(self, key: str, default: str = "") -> str:
        value = self.sections.get(key)
        if isinstance(value, str):
            return "" if value.strip() in {"", "（无）"} else value.strip()
        return default

    def data(self, key: str) -> Any:
        value = self.sections.get(key)
        return None if isinstance(value, str) else value

    @property
    def request(self) -> str:
        return self.text("request") or self.last_user

    @property
    def read(self) -> str:
        """The request's words, and an English or mixed one's Chinese reading beside them (`localize`): what
        scenes, readers and activities are matched against (Diapers, night feeds → 纸尿裤, 夜奶)."""
        request = self.request
        return f"{request} {localize(request)}" if has_english(request) else request

    @property
    def brief(self) -> dict[str, Any]:
        value = self.data("brief")
        return value if isinstance(value, dict) else {}

    @property
    def feedback(self) -> str:
        return " ".join(t for t in (self.text("feedback"), self.text("review_feedback")) if t)

    @property
    def theme(self) -> Theme:
        key = self.brief.get("theme")  # ("" when the brief found none: 通勤路上读的小说 wears no clothes)
        theme = theme_by_key(key) if key or isinstance(key, str) else detect_theme(self.request)
        return facet(theme, f"{self.request} {self.topic}")  # make-up speaks as make-up, not skincare

    @property
    def topic(self) -> str:
        return str(self.brief.get("topic") or extract_topic(self.request))


def walk(obj: Any) -> Iterator[Any]:
    """Every dict and string nested in a JSON value (depth-first)."""
    stack = [obj]
    while stack:
        item = stack.pop(0)
        yield item
        if isinstance(item, dict):
            stack[0:0] = list(item.values())
        elif isinstance(item, list):
            stack[0:0] = item


def note_dicts(obj: Any) -> list[dict[str, Any]]:
    """Notes found anywhere in tool output: dicts with a title and a desc (deduplicated by id/title)."""
    seen: set[str] = set()
    notes: list[dict[str, Any]] = []
    for item in walk(obj):
        if (
            isinstance(item, dict)
            and isinstance(item.get("title"), str)
            and isinstance(item.get("desc"), str)
        ):
            key = str(item.get("id") or item["title"])
            if key not in seen:
                seen.add(key)
                notes.append(item)
    return notes


def tag_names(obj: Any) -> list[str]:
    """Tag strings found in tool output: `{"tag": ...}` items or `tags` lists."""
    names: list[str] = []
    for item in walk(obj):
        if isinstance(item, dict):
            if isinstance(item.get("tag"), str):
                names.append(item["tag"])
            for key in ("tags", "topTags", "recommendedTags"):
                if isinstance(item.get(key), list):
                    names.extend(t for t in item[key] if isinstance(t, str))
    return names


def engagement(note: dict[str, Any]) -> float:
    score = sum(float(note.get(k) or 0) for k in ("likes", "collects")) + 2 * float(note.get("comments") or 0)
    return math.log1p(max(score, 0.0))
