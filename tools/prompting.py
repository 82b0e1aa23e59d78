"""Prompts are data: templates with named sections that both real models and the offline provider read.

A template file has a system part and a user part::

    <!-- system -->
    你是资深小红书内容策划……
    <!-- user -->
    ## 用户需求 (request)
    $request

    ## 创作简报 (brief)
    $brief

Variables use `string.Template` syntax (`$name`), so JSON braces need no escaping; a missing variable
raises `KeyError` at render time. Values that are models, dicts or lists are rendered as indented JSON.

Every `## 标题 (key)` heading opens a section; `parse_sections` recovers `{key: value}` from a rendered
prompt (JSON values decoded). That is the contract the offline provider relies on to answer the same
prompts real models get.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

_PART = re.compile(r"^<!--\s*(system|user)\s*-->\s*$", re.MULTILINE)
_SECTION = re.compile(r"^##\s+(?P<title>.*?)\s*\((?P<key>[A-Za-z_][A-Za-z0-9_]*)\)\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```(?:json)?\s*\n(?P<body>.*?)\n```\s*$", re.DOTALL)

Message = dict[str, Any]


def to_prompt_value(value: Any) -> str:
    """Render one template variable: text as is, structured values as readable JSON."""
    if value is None:
        return "（无）"
    if isinstance(value, BaseModel | dict | list | tuple):
        plain = to_jsonable_python(value, by_alias=True, exclude_none=True)
        return json.dumps(plain, ensure_ascii=False, indent=1)
    return str(value)


@dataclass(frozen=True)
class PromptTemplate:
    """A system + user prompt pair loaded from a template file."""

    name: str
    system: Template
    user: Template

    @classmethod
    def from_text(cls, name: str, text: str) -> PromptTemplate:
        parts = _PART.split(text)
        # split yields ['', 'system', body, 'user', body]
        bodies = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
        if set(bodies) != {"system", "user"}:
            raise ValueError(f"prompt {name!r} needs exactly one <!-- system --> and one <!-- user --> part")
        return cls(name=name, system=Template(bodies["system"]), user=Template(bodies["user"]))

    @classmethod
    def load(cls, path: Path) -> PromptTemplate:
        return cls.from_text(path.stem, path.read_text(encoding="utf-8"))

    def variables(self) -> set[str]:
        names: set[str] = set()
        for template in (self.system, self.user):
            names.update(template.get_identifiers())
        return names

    def render(self, **values: Any) -> list[Message]:
        """Both messages, with every variable filled; a missing variable raises KeyError."""
        missing = self.variables() - values.keys()
        if missing:
            raise KeyError(f"prompt {self.name!r} is missing variables: {', '.join(sorted(missing))}")
        rendered = {key: to_prompt_value(value) for key, value in values.items()}
        return [
            {"role": "system", "content": self.system.substitute(rendered)},
            {"role": "user", "content": self.user.substitute(rendered)},
        ]


def parse_sections(text: str) -> dict[str, Any]:
    """`{key: value}` for every `## title (key)` section of a rendered prompt; JSON values decoded."""
    sections: dict[str, Any] = {}
    matches = list(_SECTION.finditer(text))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        raw = text[match.end() : end].strip()
        sections[match.group("key")] = _decode(raw)
    return sections


def _decode(raw: str) -> Any:
    fenced = _FENCE.match(raw)
    candidate = fenced.group("body") if fenced else raw
    if candidate[:1] in "[{":
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            return raw
    return raw
