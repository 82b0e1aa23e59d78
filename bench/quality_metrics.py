"""The quality benchmark's measures, kept apart from the rules they judge.

Nothing here uses `tools/entities.py`, jieba or the critic's checks: places are counted with the fixed
gazetteer in `data/quality/places.jsonl` by substring (longest name first), topics by substring of the
request row's topic words. So a blind spot of the studio's own extractor cannot hide its own failures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "quality"
SPLITS = ("tune", "holdout")

_EMOJI = re.compile("[\U0001f000-\U0001faff\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\u20e3]")
_INVISIBLE = re.compile("[\ufe0f\u200d]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_WORDISH = re.compile(r"[\u4e00-\u9fffA-Za-z0-9]")
# A place name right before one of these names a street (青岛的肥城路, 上海的南京路, 南京的北京西路), not
# the place; a street that is a sight of its own (广州北京路) is in the gazetteer and wins as the longer name.
# (a street named after a place, 肥城路 or 南京西路; not a town's own old street, 泉州西街)
_STREET = re.compile(r"[东西南北中]?(?:路|大街|大道|巷|弄)|街")
_SENTENCE_END = re.compile(r"[。！？!?；;\n]+")
# Particles and internet words that make a text chatty; exclamation marks count towards liveliness too.
COLLOQUIAL = (
    "啦",
    "呀",
    "哈",
    "嘛",
    "呢",
    "哦",
    "噢",
    "吧",
    "咱",
    "超级",
    "真的",
    "绝了",
    "宝子",
    "姐妹",
    "家人们",
    "冲鸭",
    "yyds",
    "～",
    "~",
)


def load_rows(name: str, data_dir: Path = DATA_DIR) -> list[dict[str, Any]]:
    """The rows of `data/quality/<name>.jsonl`."""
    lines = (data_dir / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def spread(
    rows: Sequence[dict[str, Any]], limit: int | None, key: Callable[[dict[str, Any]], Any] | None = None
) -> list[dict[str, Any]]:
    """`limit` rows spread evenly over `rows` (so a quick run still sees every kind and both splits); with a
    `key`, over each of its groups in proportion, at least one row each (good and flawed drafts)."""
    if limit is None or limit >= len(rows):
        return list(rows)
    if limit <= 0:
        return []
    if key is not None:
        groups: dict[Any, list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(key(row), []).append(row)
        shares = {k: max(1, round(limit * len(g) / len(rows))) for k, g in groups.items()}
        picked = {id(r) for k, g in groups.items() for r in spread(g, shares[k])}
        return [r for r in rows if id(r) in picked]
    step = len(rows) / limit
    return [rows[min(len(rows) - 1, int(i * step))] for i in range(limit)]


# --- places --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Place:
    name: str
    parent: str | None
    kind: str
    not_in: tuple[str, ...] = ()


class Gazetteer:
    """A fixed list of place names with their parents; finds them in text by longest-first substring."""

    def __init__(self, places: Iterable[Place]) -> None:
        self.places = {p.name: p for p in places}
        self._by_first: dict[str, list[Place]] = {}
        for place in sorted(self.places.values(), key=lambda p: -len(p.name)):
            self._by_first.setdefault(place.name[0], []).append(place)
        self._children: dict[str, list[str]] = {}
        for place in self.places.values():
            if place.parent:
                self._children.setdefault(place.parent, []).append(place.name)

    @classmethod
    def load(cls, path: Path = DATA_DIR / "places.jsonl") -> Gazetteer:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return cls(Place(r["name"], r.get("parent"), r["kind"], tuple(r.get("notIn", ()))) for r in rows)

    def find(self, text: str) -> list[str]:
        """Place names in `text`, in order of first mention, each once; a name inside one of its `notIn`
        words (大理 in 大理石), inside a longer name (洛阳 in 洛阳桥) or naming a street (肥城路) is not
        counted."""
        found: list[str] = []
        i = 0
        while i < len(text):
            match = next(
                (
                    p
                    for p in self._by_first.get(text[i], ())
                    if text.startswith(p.name, i) and not _inside(text, i, p)
                ),
                None,
            )
            if match is None:
                i += 1
                continue
            if match.name not in found:
                found.append(match.name)
            i += len(match.name)
        return found

    def ancestors(self, name: str) -> list[str]:
        out: list[str] = []
        parent = self.places[name].parent if name in self.places else None
        while parent and parent not in out:
            out.append(parent)
            parent = self.places[parent].parent if parent in self.places else None
        return out

    def descendants(self, name: str) -> list[str]:
        out: list[str] = []
        stack = list(self._children.get(name, ()))
        while stack:
            child = stack.pop()
            if child not in out:
                out.append(child)
                stack.extend(self._children.get(child, ()))
        return out

    def related(self, names: Iterable[str]) -> set[str]:
        """The places a post about `names` may mention: them, their parents and their children."""
        allowed: set[str] = set()
        for name in names:
            allowed |= {name, *self.ancestors(name), *self.descendants(name)}
        return allowed

    def foreign(self, text: str, request_places: Iterable[str], request: str = "") -> list[str]:
        """Places in `text` that are neither the request's places nor their parents or children — nor only
        where the writer set out from or goes home to (从昆明南坐动车, 从武汉毕业, 回北京): the post says
        nothing about those. A place the request's own words name (给第一次去北疆的人) is not foreign either,
        though its other parts are (a request naming 东南亚 does not allow 曼谷 in a post about 大叻)."""
        allowed = self.related(request_places) | set(self.find(request))
        return [name for name in self.find(text) if name not in allowed and not _only_way(text, name)]


def _only_way(text: str, name: str) -> bool:
    """Is every occurrence of `name` right after 从 or 回, or right before 出发?"""
    spots = [m.start() for m in re.finditer(re.escape(name), text)]
    return bool(spots) and all(
        (i > 0 and text[i - 1] in "从回") or text.startswith("出发", i + len(name)) for i in spots
    )


def _inside(text: str, i: int, place: Place) -> bool:
    end = i + len(place.name)
    if _STREET.match(text, end):
        return True
    for word in place.not_in:
        offset = word.find(place.name)
        while offset >= 0:
            start = i - offset
            if start >= 0 and text.startswith(word, start) and start + len(word) >= end:
                return True
            offset = word.find(place.name, offset + 1)
    return False


@cache
def gazetteer() -> Gazetteer:
    return Gazetteer.load()


def post_text(post: Mapping[str, Any]) -> str:
    """Title, body and tags of a post as one text."""
    return "\n".join(
        [str(post.get("title", "")), str(post.get("body", "")), " ".join(post.get("tags") or [])]
    )


# --- on topic ------------------------------------------------------------------------------------------
def content_paragraphs(body: str) -> list[str]:
    """Blank-line-separated blocks with at least 10 Chinese characters (headings and sign-offs are not)."""
    return [p.strip() for p in body.split("\n\n") if len(_HAN.findall(p)) >= 10]


def _has_topic(text: str, topics: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(t.lower() in lowered for t in topics if t)


def on_topic(post: Mapping[str, Any], topics: Sequence[str], *, share: float = 0.8) -> tuple[bool, float]:
    """(on topic?, share of content paragraphs that name a topic word). On topic: the title names one of
    the request's topic words and at least `share` of the body's content paragraphs do."""
    paragraphs = content_paragraphs(str(post.get("body", "")))
    hits = sum(1 for p in paragraphs if _has_topic(p, topics))
    paragraph_share = hits / len(paragraphs) if paragraphs else 0.0
    title_ok = _has_topic(str(post.get("title", "")), topics)
    return title_ok and bool(paragraphs) and paragraph_share >= share, round(paragraph_share, 3)


# --- title templates -----------------------------------------------------------------------------------
def title_skeleton(
    title: str, *, request: str, masks: Iterable[str] = (), places: Gazetteer | None = None
) -> str:
    """The title's template: emoji and spaces stripped; the request's words (every run of ≥ 2 characters
    shared with the request), `masks` of ≥ 2 characters (topic words, places, audience) and any gazetteer
    place → X, a run of masked characters → one X; digits → #; Latin letters lower-cased.

    "厦门三天两晚攻略｜4个要点🗺️" for "厦门三天两晚攻略" → "X｜#个要点"."""
    text, request = (
        re.sub(r"\s+", "", _INVISIBLE.sub("", _EMOJI.sub("", t))).lower() for t in (title, request)
    )
    masked = [False] * len(text)
    words = [m.lower() for m in masks if len(m) >= 2] + (places.find(text) if places else [])
    for word in words:
        for found in re.finditer(re.escape(word), text):
            masked[found.start() : found.end()] = [True] * len(word)
    i = 0
    while i < len(text):  # the longest run from i (≥ 2 word characters) that the request also contains
        length = 0
        while (
            i + length < len(text)
            and _WORDISH.match(text[i + length])
            and text[i : i + length + 1] in request
        ):
            length += 1
        if length >= 2:
            masked[i : i + length] = [True] * length
            i += length
        else:
            i += 1
    out: list[str] = []
    for char, hidden in zip(text, masked, strict=True):
        token = "X" if hidden else "#" if char.isdigit() else char
        if not (token in "X#" and out and out[-1] == token):
            out.append(token)
    return "".join(out)


# --- the feedback expectations -------------------------------------------------------------------------
def emoji_count(text: str) -> int:
    return len(_EMOJI.findall(text))


def _chars(text: str) -> int:
    return max(1, len(_WORDISH.findall(text)))


def colloquial_density(text: str) -> float:
    """Colloquial particles and words per 100 characters."""
    return 100 * sum(text.count(word) for word in COLLOQUIAL) / _chars(text)


def liveliness(text: str) -> float:
    """Emoji, exclamation marks and colloquial words per 100 characters."""
    marks = emoji_count(text) + text.count("！") + text.count("!")
    return 100 * (marks + sum(text.count(word) for word in COLLOQUIAL)) / _chars(text)


def _prose(post: Mapping[str, Any]) -> str:
    return f"{post.get('title', '')}\n{post.get('body', '')}"


def _tags(post: Mapping[str, Any]) -> set[str]:
    return {str(t).lstrip("#").strip() for t in post.get("tags") or []}


def _count(text: str, words: Sequence[str]) -> int:
    return sum(text.count(w) for w in words if w)


def check_expectation(
    expect: Mapping[str, Any], first: Mapping[str, Any], redo: Mapping[str, Any]
) -> list[str]:
    """The names of the expectations the redo fails (empty: it complies). Every key must hold."""
    failed: list[str] = []
    title, body, prose, tags = (
        str(redo.get("title", "")),
        str(redo.get("body", "")),
        _prose(redo),
        _tags(redo),
    )
    first_body = str(first.get("body", ""))
    for key, value in expect.items():
        if key == "titleContains":
            ok = all(w in title for w in value)
        elif key == "bodyNotContains":
            ok = not any(w in body for w in value)
        elif key == "notMentions":
            ok = not any(w in prose or any(w in t for t in tags) for w in value)
        elif key == "mentions":
            ok = any(w in prose for w in value)
        elif key == "mentionsMore":
            ok = _count(prose, value) > _count(_prose(first), value)
        elif key == "bodyShorter":
            ok = len(body) <= float(value) * len(first_body)
        elif key == "bodyLonger":
            ok = len(body) >= float(value) * len(first_body)
        elif key == "livelier":
            ok = liveliness(prose) > liveliness(_prose(first))
        elif key == "moreFormal":
            before, after = liveliness(_prose(first)), liveliness(prose)
            ok = after < before or before == after == 0
        elif key == "moreColloquial":
            ok = colloquial_density(prose) > colloquial_density(_prose(first))
        elif key == "moreEmoji":
            ok = emoji_count(prose) > emoji_count(_prose(first))
        elif key == "fewerEmoji":
            ok = emoji_count(prose) < emoji_count(_prose(first)) or emoji_count(prose) == 0
        elif key == "noEmoji":
            ok = emoji_count(prose) == 0
        elif key == "tagsContain":
            ok = all(str(w).lstrip("#") in tags for w in value)
        elif key == "tagsNotContain":
            ok = not any(str(w).lstrip("#") in tags for w in value)
        elif key == "tagsChanged":
            old_tags = _tags(first)
            union = old_tags | tags
            ok = bool(union) and len(old_tags & tags) / len(union) <= float(value)
        else:
            raise ValueError(f"unknown expectation {key!r}")
        if not ok:
            failed.append(key)
    return failed


def sentences(body: str) -> list[str]:
    return sorted(s.strip() for s in _SENTENCE_END.split(body) if s.strip())


def differs(first: Mapping[str, Any], redo: Mapping[str, Any]) -> bool:
    """Whether the redo is more than the first draft reshuffled: another title, another set of tags, or
    other body sentences (the same sentences in another order do not count)."""
    return (
        str(first.get("title", "")).strip() != str(redo.get("title", "")).strip()
        or _tags(first) != _tags(redo)
        or sentences(str(first.get("body", ""))) != sentences(str(redo.get("body", "")))
    )


def pick_subject(
    pick: Mapping[str, Any], first: Mapping[str, Any], request_places: Sequence[str], places: Gazetteer
) -> str | None:
    """What `{X}` stands for in a feedback case, chosen from the first draft (None: nothing to pick)."""
    source = pick.get("from")
    body = str(first.get("body", ""))
    if source == "body_place":
        own = set(request_places) | {a for p in request_places for a in places.ancestors(p)}
        return next((p for p in places.find(body) if p not in own), None)
    if source == "body_word":
        return next((w for w in pick.get("candidates", ()) if w in body), None)
    if source == "first_tag":
        tags = [str(t).lstrip("#") for t in first.get("tags") or []]
        return tags[0] if tags else None
    raise ValueError(f"unknown pick {source!r}")


def substitute(value: Any, subject: str | None) -> Any:
    """`value` with every "{X}" replaced by `subject` (in strings, lists and dicts)."""
    if isinstance(value, str):
        return value.replace("{X}", subject or "")
    if isinstance(value, list):
        return [substitute(v, subject) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, subject) for k, v in value.items()}
    return value


def rate(hits: int, n: int) -> float | None:
    return round(hits / n, 3) if n else None
