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

from tools.bilingual import localize
from tools.offline.lexicon import GENERIC, STOPWORDS, THEMES, Theme

T = TypeVar("T")

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")
_CONCRETE = re.compile(r"\d|[一二三四五六七八九十两半]+(?:个|元|块|分钟|小时|天|次|步|件|瓶|克|斤|公里|km)")
_AUDIENCE = re.compile(
    r"(?:面向|针对|给|写给|适合)(?![我你自])(?P<who>[^，。,.！!？?\s的做买吃用去拍写画煮送]{2,12}?)"
    r"(?:的|看|群体|人群|朋友|，|。|$)"
)
# "给第一次去广东的朋友", "写给刚毕业的大学生" — a whole reader phrase at the end of a clause
_AUDIENCE_PHRASE = re.compile(
    r"(?:^|[，,。；;\s])(?:写给|送给|分享给|给|面向|针对|适合)(?![我你自])(?P<who>[^，。,.！!？?\s]{2,16}?"
    r"(?:的(?:朋友|人|你|宝妈|姐妹|小伙伴|同学|家长|新手)|朋友|们|党|族|新手|小白|宝妈|爸妈|家长|同学|姐妹|人群|打工人|大学生|学生|游客|人))"
    r"(?=$|[，,。！!？?；;\s]|看|写)"
)
_AUDIENCE_CLAUSE = re.compile(
    r"^(?:写给|送给|分享给|给|面向|针对|适合)(?![我你自])(?P<who>[^，。,.！!？?\s]{2,16}?)(?:看|阅读|参考)?$"
)
# a question the request turns into content ("…需要准备什么？写个清单"): its tail, and the content noun
_ASKED_TAIL = re.compile(
    r"(?:需要|要|该|应该|可以)?(?:准备|带|买|吃|玩|选|穿|看|注意)?(?:些)?"
    r"(?:什么|哪些东西|哪些|怎么办|怎么[\u4e00-\u9fff]{0,2})$"
)
_CONTENT_NOUN = re.compile(r"清单|攻略|合集|测评|食谱|教程|指南|时间表|计划")
# a clause that is only scaffolding: who it is for, or what to make of it ("写个清单", "给大学生")
_NOT_TOPIC = re.compile(
    r"^(?:(?:请|麻烦)?(?:帮我|给我)?(?:写|做|整理|出|来)(?:一|几)?[个篇份条]?(?:成)?(?:小红书)?"
    r"(?:清单|笔记|攻略|合集|文案|教程|帖子|图文)?(?:并?配图)?(?:吧|呀)?$|(?:写给|给|面向|针对|适合)\S{0,16}$)"
)
_REQUEST_SCAFFOLD = re.compile(
    r"^(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我|替我)?(?:"
    r"(?:写|创作|生成)(?:一篇|一条|一份|一个|篇|条|份|个)?|(?:来|出|整理|做)(?:一篇|一条|一份|一个|篇|条|份|个)|"
    r"(?:分享|安利|推荐)(?:一下)?(?:我的)?(?:几款|几个|一些|几家)?)"
)
_TRAILING_SCAFFOLD = re.compile(
    r"(?:的)?(?:小红书)?(?:种草)?(?:笔记|文案|帖子|攻略帖|内容|图文|种草文)$|(?:的)?(?:经验分享|分享|心得分享)$"
)


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
    """The reader the request names: '…，给第一次去广东的朋友' → '第一次去广东的朋友',
    '面向上班族' → '上班族'.

    English words are read in Chinese first ("for beginners" → 新手)."""
    text = localize(text)
    clauses = [c.strip() for c in re.split(r"[，,。！!？?；;\n]", text) if c.strip()]
    for position, clause in enumerate(clauses):  # a clause that is only the reader: all of it ("给" opens
        whole = _AUDIENCE_CLAUSE.match(clause)  # a topic too — "给狗狗做蛋糕" — so not in the first clause)
        if whole and len(clauses) > 1 and (position or not clause.startswith("给")):
            return whole.group("who")
    match = _AUDIENCE_PHRASE.search(text)
    if match:
        return match.group("who")
    match = _AUDIENCE.search(text)
    return match.group("who") if match else None


def _subject(clause: str) -> str:
    """A clause without the request scaffolding around it: '帮我写一篇周末露营的笔记' → '周末露营'."""
    topic = _REQUEST_SCAFFOLD.sub("", clause)
    topic = _TRAILING_SCAFFOLD.sub("", topic)
    topic = re.sub(r"^(?:关于|有关)", "", topic)
    stripped = re.sub(r"^(?:适合|面向|针对|写给|给)[^的做买吃用去拍写画煮送]{2,12}的", "", topic).strip("的 ")
    return stripped if len(stripped) >= 2 else topic.strip("的 ")


def extract_topic(request: str) -> str:
    """The subject of a request: '帮我写一篇周末城市露营的小红书笔记，面向上班族' → '周末城市露营'.

    English and mixed requests are read in Chinese first ('Write a post about hiking in Hangzhou' →
    '杭州徒步'); a clause that only names the reader or the kind of content is skipped."""
    request = localize(request)
    clauses = [c.strip() for c in re.split(r"[，,。！!？?；;：:\n]", request.strip()) if c.strip()]
    candidates = [c for c in clauses if not _NOT_TOPIC.match(c)] or clauses[:1]
    first, topic = "", ""
    for first in candidates:  # the first clause with a subject left once the scaffolding is gone
        topic = _subject(first)
        if len(topic) >= 2:
            break
    asked = _ASKED_TAIL.search(topic)
    later = next((m for c in clauses if c != first and (m := _CONTENT_NOUN.search(c))), None)
    if asked and later and asked.start() >= 2:  # "露营需要准备什么？写个清单" → "露营清单"
        topic = topic[: asked.start()] + later.group(0)
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
