"""Readers for the word lists in `data/lexicon/` (the critic's checks and the offline model share them).

Two formats: a plain list (one or more words a line) and an INI-like file of [section] then `key: value`
lines. `#` starts a note in both.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

LEXICON = Path(__file__).resolve().parents[1] / "data" / "lexicon"


@cache
def sections(name: str) -> dict[str, dict[str, str]]:
    """An INI-like data file of `data/lexicon`: [section] then `key: value` lines; # starts a note."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for raw in (LEXICON / name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = out.setdefault(line[1:-1], {})
        elif current is not None and ":" in line:
            key, _, value = line.partition(":")
            current[key.strip()] = value.strip()
    return out


@cache
def word_list(name: str) -> tuple[str, ...]:
    """A data file of words: one or more a line, separated by spaces; # starts a note."""
    text = (LEXICON / name).read_text(encoding="utf-8")
    return tuple(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


@cache
def generic_tags(theme: str) -> tuple[str, ...]:
    """The tags that fit any post of `theme` ('any': of every theme), lower-cased, in the order of
    `generic_tags.txt` (the most used first)."""
    return tuple(t.lower() for t in sections("generic_tags.txt").get(theme, {}).get("tags", "").split())


@cache
def landmark_rows() -> dict[str, str]:
    """Landmark → the city (or province) it lies in, as `landmarks.tsv` lists them — and an old village by
    its plain name too (诺邓古村 is 诺邓村) where the table has no row of that name; not an old town by its
    plain name: 白沙镇 and 龙门镇 are towns of many counties."""
    lines = (LEXICON / "landmarks.tsv").read_text(encoding="utf-8").splitlines()
    rows = dict(line.split("\t", 1) for line in lines if line.strip() and not line.startswith("#"))
    plain = {
        name[:-2] + name[-1]: city
        for name, city in rows.items()
        if len(name) >= 4 and name.endswith("古村")
    }
    return rows | {name: city for name, city in plain.items() if name not in rows}
