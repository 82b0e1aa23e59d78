"""A home dish no scene knows, told by its parts (`data/lexicon/dish_parts.txt`).

番茄肥牛汤 is 番茄 peeled and fried to a sauce, water, 肥牛 last; 虾仁蒸蛋 is egg beaten with warm water and
steamed, 虾仁 on top. A dish named by its ingredients and how it is cooked gets the steps of that dish —
each ingredient prepared, the method's start, the ingredients in the order they go in, the method's finish —
instead of a kitchen's general advice ("先按配方的量来") that would fit any dish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tools.lexfiles import sections
from tools.segmenter import posseg


@dataclass(frozen=True)
class _Method:
    name: str
    when: re.Pattern[str]
    open: str
    close: str


@dataclass(frozen=True, eq=False)
class _Part:
    names: tuple[str, ...]
    stage: int  # 1 builds the base, 2 cooks long, 3 goes in last
    prep: str
    cook: str
    by_method: dict[str, str]  # where the cook line of one method differs (蛋液 in a soup, not scrambled)

    def cooked(self, method: str) -> str:
        return self.by_method.get(method, self.cook)


_PART_KEYS = {"names", "stage", "prep", "cook"}


@cache
def _data() -> tuple[tuple[_Method, ...], tuple[_Part, ...]]:
    methods: list[_Method] = []
    parts: list[_Part] = []
    for name, fields in sections("dish_parts.txt").items():
        kind, _, key = name.partition(".")
        if kind == "method":
            methods.append(_Method(key, re.compile(fields["when"]), fields["open"], fields["close"]))
        elif kind == "ingredient":
            parts.append(
                _Part(
                    tuple(fields["names"].split("|")),
                    int(fields["stage"]),
                    fields.get("prep", ""),
                    fields["cook"],
                    {k: v for k, v in fields.items() if k not in _PART_KEYS},
                )
            )
    return tuple(methods), tuple(parts)


def _parts_in(dish: str) -> tuple[list[_Part], str]:
    """The ingredients `dish` names, in the order it names them (a longer name first: 嫩豆腐 before 豆腐), and
    what is left of the name without them (番茄炒蛋 → 炒)."""
    _, parts = _data()
    names = sorted(((n, p) for p in parts for n in p.names), key=lambda np: -len(np[0]))
    found: list[tuple[int, _Part]] = []
    rest = dish
    for name, part in names:
        at = rest.find(name)
        if at >= 0:
            found.append((at, part))
            rest = rest[:at] + "·" * len(name) + rest[at + len(name) :]  # keep the other names' positions
    ordered: list[_Part] = []
    for _, part in sorted(found, key=lambda f: f[0]):
        if part not in ordered:  # 番茄 and 西红柿 in one name are one ingredient
            ordered.append(part)
    return ordered, rest.replace("·", "")


def _method_of(rest: str) -> _Method | None:
    """How the dish is cooked: the method the rest of its name says last (蛋炒饭 is 炒饭, not 炒), the
    longer word when two end together."""
    methods, _ = _data()
    found = [(m.end(), m.end() - m.start(), method) for method in methods if (m := method.when.search(rest))]
    return max(found, key=lambda f: f[:2])[2] if found else None


def dish_steps(dish: str, told: str = "") -> tuple[str, ...]:
    """The steps of cooking the dish `dish` names: its ingredients prepared (the first two that need it),
    the method's start, each ingredient in the order it goes in, the method's finish. () unless the name
    says both an ingredient and how it is cooked (番茄 alone is no dish, nor 汤) — or names two ingredients
    of which one needs long cooking (番茄牛腩, 土豆排骨): such a dish is stewed. A dish whose name says no
    part of it (腌笃鲜) is cooked as the request (`told`) says it was: 春笋…咸肉…炖了两个小时; one whose name
    says no method (攸县香干) as the request says it is cooked (茶油煎)."""
    parts, rest = _parts_in(dish)
    if not parts and told and dish in _notes():
        parts, rest = _parts_in(told)[0], told
    method = _method_of(rest) or _method_of(dish)  # 番茄鸡蛋面条: the noodles are its part and its method
    if method is None and parts and told:  # (攸县香干, told 茶油煎…回家怎么煎: fried)
        method = _method_of(told)
    if method is None and len(parts) >= 2 and any(p.stage == 2 for p in parts) and not rest.strip():
        method = next((m for m in _data()[0] if m.name == "炖"), None)
    if not parts or method is None:
        return ()
    prepared = [p.prep for p in parts if p.prep][:2]
    cooked = [p.cooked(method.name) for p in sorted(parts, key=lambda p: p.stage)]
    return tuple(dict.fromkeys([*prepared, method.open, *cooked, method.close]))


@cache
def _notes() -> dict[str, str]:
    """Dish → one line on what it is and how it is eaten (`data/lexicon/dish_notes.tsv`)."""
    from tools.lexfiles import LEXICON

    table: dict[str, str] = {}
    for line in (LEXICON / "dish_notes.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "\t" in line:
            dish, note = line.split("\t", 1)
            table.setdefault(dish.strip(), note.strip())
    return table


@cache
def dish_names() -> frozenset[str]:
    """The dishes `dish_note` knows."""
    return frozenset(_notes())


def dishes_in(text: str) -> tuple[str, ...]:
    """The dishes `dish_note` knows that `text` names, each once, in its order (jieba has them as words)."""
    known = dish_names()
    return tuple(dict.fromkeys(w for w, _ in posseg(text, hmm=False) if len(w) >= 2 and w in known))


def dish_note(item: str) -> str:
    """What a dish a request lists is and how it is eaten (老火锅 → 牛油锅底又麻又辣…), for a list item that
    has no line of the evidence: the item itself, else the longest dish it ends on (重庆老火锅 → 老火锅,
    一碗热干面 → 热干面); '' for no dish the table knows."""
    notes = _notes()
    if item in notes:
        return notes[item]
    ends = [d for d in notes if len(d) >= 2 and item.endswith(d)]
    return notes[max(ends, key=len)] if ends else ""
