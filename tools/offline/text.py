"""Small Chinese text utilities for the offline writer: seeding, keywords, topic and audience extraction."""

from __future__ import annotations

import hashlib
import logging
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any, TypeVar

from tools.offline.lexicon import GENERIC, STOPWORDS, THEMES, Theme

T = TypeVar("T")

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")
_CONCRETE = re.compile(r"\d|[一二三四五六七八九十两半]+(?:个|元|块|分钟|小时|天|次|步|件|瓶|克|斤|公里|km)")
_AUDIENCE = re.compile(
    r"(?:面向|针对|给|写给|适合)(?P<who>[^，。,.！!？?\s的]{2,12}?)(?:的|看|群体|人群|朋友|，|。|$)"
)
_REQUEST_SCAFFOLD = re.compile(
    r"^(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我|替我)?(?:写|创作|生成|来|出|整理|做)(?:一篇|一条|一份|一个|篇|条|份|个)?"
)
_TRAILING_SCAFFOLD = re.compile(r"(?:的)?(?:小红书)?(?:种草)?(?:笔记|文案|帖子|攻略帖|内容|图文)$")


def rng_for(*parts: Any) -> random.Random:
    """A deterministic RNG seeded by the inputs, so the same prompt always gets the same answer."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pick(rng: random.Random, options: Sequence[T]) -> T:
    return options[rng.randrange(len(options))]


@cache
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def tokens(text: str) -> list[str]:
    """Meaningful words of `text`: jieba segmentation minus stopwords, punctuation and single characters."""
    return list(_tokens(text))


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    """Segmenting is the offline model's main cost, and the same notes are read by run after run."""
    words = _jieba().lcut(strip_emoji(text))
    return tuple(
        w.strip()
        for w in words
        if len(w.strip()) >= 2 and w.strip() not in STOPWORDS and not re.fullmatch(r"[\W\d_]+", w.strip())
    )


def keywords(text: str, limit: int = 6, *, extra: Iterable[str] = ()) -> list[str]:
    """Most frequent meaningful words, first-seen order breaking ties; `extra` words weigh in too."""
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}
    for position, word in enumerate([*tokens(text), *extra]):
        counts[word] += 1
        order.setdefault(word, position)
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return ranked[:limit]


def strip_emoji(text: str) -> str:
    return _EMOJI.sub("", text)


_ENUMERATION = re.compile(r"^(?:\d{1,2}\s*[.、)）:：]|[①-⑩]|[（(]\d{1,2}[)）]|[-·•])\s*")


def sentences(text: str) -> list[str]:
    """Split Chinese prose into sentences, trimmed, without list numbering, dropping fragments."""
    parts = (_ENUMERATION.sub("", s.strip(" \n\t，,")).strip() for s in _SENTENCE_END.split(text))
    return [p for p in parts if len(p) >= 8]


def is_concrete(sentence: str) -> bool:
    """Does the sentence carry a number, price, duration or count — something a reader can use?"""
    return bool(_CONCRETE.search(sentence))


def detect_theme(text: str) -> Theme:
    """The corpus theme whose trigger words the text mentions most; the generic theme when none."""
    lowered = text.lower()
    best, best_hits = GENERIC, 0
    for theme in THEMES.values():
        hits = sum(lowered.count(word) for word in theme.triggers)
        if hits > best_hits:
            best, best_hits = theme, hits
    return best


def theme_by_key(key: str | None) -> Theme:
    return THEMES.get(key or "", GENERIC)


def extract_audience(text: str) -> str | None:
    match = _AUDIENCE.search(text)
    return match.group("who") if match else None


def extract_topic(request: str) -> str:
    """The subject of a request: '帮我写一篇周末城市露营的小红书笔记，面向上班族' → '周末城市露营'."""
    first = re.split(r"[，,。！!？?；;\n]", request.strip(), maxsplit=1)[0]
    topic = _REQUEST_SCAFFOLD.sub("", first)
    topic = _TRAILING_SCAFFOLD.sub("", topic)
    topic = re.sub(r"^(?:关于|有关)", "", topic)
    topic = re.sub(r"^(?:适合|面向|针对|给|写给)[^的]{2,12}的", "", topic).strip("的 ")
    if len(topic) < 2:
        words = keywords(request, 3)
        topic = "".join(words[:2]) or request[:12]
    return topic[:24]


def shorten(text: str, limit: int) -> str:
    """Cut to `limit` characters at a natural break when possible."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for mark in "，。；！？、 ":
        pos = cut.rfind(mark)
        if pos >= limit * 0.6:
            return cut[:pos]
    return cut


def dedupe(items: Iterable[T]) -> list[T]:
    seen: set[T] = set()
    out: list[T] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def overlap(a: Iterable[str], b: str) -> int:
    """How many of the words `a` occur in the text `b`."""
    return sum(1 for word in a if word and word in b)
