"""Text helpers the deterministic checks share: how a post is cut into paragraphs, lines and sentences, how
text is normalised for comparison, how characters are counted, and what the request is about (`Scope`).

The scope is built from the brief when there is one and from the request alone when not, so the checks run
the same whatever model (or none) wrote the brief.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agents.checks.places import PlaceScope
from tools import segmenter
from tools.lexfiles import sections

EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2190-\u21ff\u3030\u303d\u3297\u3299]")
_JOINERS = re.compile("[\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff]|\u200d.")
_KEYCAP = re.compile("[0-9#*]\ufe0f?\u20e3")
_SENTENCE = re.compile(r"(?<=[。！？!?；;…])|\n")
# (a number before a colon or a point is no numbering when a digit follows: 19:30, 1.5公里)
_NUMBERING = re.compile(r"^(?:\d{1,2}\s*[.、)）:：](?!\d)|[①-⑩]|[（(]\d{1,2}[)）]|[-·•*])\s*")
# A line that is an item of a list: numbered (1. / 1️⃣ / ①), bulleted, or led by an emoji.
LIST_ITEM = re.compile(
    r"^\s*(?:\d{1,2}\s*[.、)）]|[①-⑩]|\d\ufe0f?\u20e3|[-·•*▪︎]|[\U0001f000-\U0001faff\u2600-\u27bf]"
    r"|[□■◆◇○●▶►▸√✓])"  # (a checklist's box: □ 滋润型面霜，比平时厚一个度)
)
_NOT_WORD = re.compile(r"[\W_]+")
# Words of request scaffolding that say nothing about the topic, and adverbs of degree (厨房特别小: a line
# saying 特别震撼 shares no subject with it).
_SCAFFOLD_WORDS = frozenset(
    """
    帮 帮我 我 写 一篇 篇 一个 一份 一条 小红书 笔记 文案 帖子 内容 分享 推荐 整理 生成 创作 给 适合
    面向 针对 关于 需要 什么 怎么 如何 哪些 可以 一下 一些 这个 那个 合集 清单 攻略 心得 经验 教程 指南
    写个 来 要 的 了 和 与 及 请 做 想 吧 呢 吗 啊 新手 入门 第一次 一次 本地人 本地 朋友 大家 我们 自己
    补充 write post about for the a an of to in on and with
    特别 非常 超级 十分 真的 比较 有点 有些
    """.split()  # noqa: SIM905 - a word list reads best as text
)
_AUDIENCE = re.compile(
    r"(?:面向|针对|给|写给|适合|for)\s*(?P<who>[^，。,.！!？?\s的]{2,12}?)(?:的|看|群体|人群|，|。|$)"
)


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[str, ...]:
    """Meaningful jieba words of `text` (two characters or more, no punctuation, digits or scaffolding)."""
    out = []
    for word in segmenter.cut(strip_emoji(text).lower()):
        word = word.strip()
        if len(word) >= 2 and word not in _SCAFFOLD_WORDS and not re.fullmatch(r"[\W\d_]+", word):
            out.append(word)
    return tuple(dict.fromkeys(out))


def strip_emoji(text: str) -> str:
    return EMOJI.sub("", _JOINERS.sub("", _KEYCAP.sub("", text)))


def char_count(text: str) -> int:
    """Characters as a reader (and the writer prompt) counts them: an emoji is one, however it is encoded."""
    return len(_JOINERS.sub("", text.strip()))


def normalise(text: str) -> str:
    """For comparisons: no emoji, numbering, punctuation or spaces; lower case."""
    return _NOT_WORD.sub("", strip_emoji(_NUMBERING.sub("", text.strip())).lower())


def bigrams(text: str) -> set[str]:
    flat = normalise(text)
    return {flat[i : i + 2] for i in range(len(flat) - 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def paragraphs(body: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]


def lines(body: str) -> list[str]:
    return [line.strip() for line in body.splitlines() if line.strip()]


def sentences(text: str) -> list[str]:
    """Sentences and list lines of `text`, with their end punctuation, list numbering removed."""
    out = []
    for part in _SENTENCE.split(text):
        part = _NUMBERING.sub("", strip_emoji(part).strip()).strip()
        if part:
            out.append(part)
    return out


def is_heading(line: str) -> bool:
    """A short label line such as "🗺️ 行程路线" or "⚠️ 避坑提醒：" (no sentence of its own)."""
    core = normalise(line)
    return len(core) <= 8 and not re.search(r"[，。！？!?,]", line.rstrip("：:"))


def cjk_len(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff]", text))


# Words of a request that say how much or when, or that it began, of any subject (完全不运动, 想开始跑步):
# no topic — 面试完全对不上 shares nothing with a running plan
_HOLLOW_FLAGS = frozenset({"d", "ad", "c", "p", "r", "u", "y", "e", "o"})
# (…nor the words that say what kind of telling it is: 改造的过程, 我的经历)
_HOLLOW_VERBS = frozenset("开始 想要 觉得 希望 打算 知道 需要 可以 应该 经历 过程".split())  # noqa: SIM905


def _hollow_words(text: str) -> frozenset[str]:
    from tools.entities import posseg_cut

    return frozenset(
        w for w, flag in posseg_cut(strip_emoji(text).lower()) if flag in _HOLLOW_FLAGS or w in _HOLLOW_VERBS
    )


@dataclass(frozen=True)
class Scope:
    """What the post is meant to be about, from the request and (when known) the brief."""

    request: str
    text: str  # request + brief topic, keywords, audience: everything that says what the post is about
    kind_text: str  # request + brief topic and keywords: what kind of post it is (an audience says nothing)
    topic_words: frozenset[str]  # jieba words of that text
    topic_bigrams: frozenset[str]  # character bigrams of the topic words
    audience: str
    themes: tuple[str, ...]  # keys of data/lexicon/theme_words.txt the request belongs to
    near: tuple[str, ...]  # those themes and the themes they are related to (a trip talks food)
    places: PlaceScope
    narrative: bool = False  # a story or a diary: most of its lines tell what happened, in words of their own
    recipe: bool = False  # the brief made it a recipe: cooked at home, no shop to visit

    def named(self, limit: int = 3) -> str:
        """The first topic words as the request writes them (iPad, not the lowered ipad), for a reason."""
        lowered = self.text.lower()
        ordered = sorted(self.topic_words, key=lambda w: (lowered.find(w) < 0, lowered.find(w)))
        said = [self.text[at : at + len(w)] if (at := lowered.find(w)) >= 0 else w for w in ordered]
        return "、".join(said[:limit]) or self.request[:20]


def scope_of(request: str, brief: Mapping[str, Any] | None) -> Scope:
    brief = brief or {}
    parts = [request]
    if isinstance(brief.get("topic"), str):
        parts.append(brief["topic"])
    parts.extend(str(k) for k in brief.get("keywords") or [] if isinstance(k, str))
    kind_text = "\n".join(parts)
    if isinstance(brief.get("audience"), str):
        parts.append(brief["audience"])
    text = "\n".join(parts)
    topic_words = frozenset(words(text)) - _hollow_words(text)
    topic_bigrams = frozenset(b for w in topic_words if re.search(r"[\u4e00-\u9fff]", w) for b in bigrams(w))
    match = _AUDIENCE.search(request)
    audience = str(brief.get("audience") or (match.group("who") if match else ""))
    # a place named only in who the post is for ("给第一次去山西的人") widens nothing when the subject names
    # its own place (大同): the post is about 大同, and 平遥 is elsewhere
    subject_parts = [p for p in parts if p != brief.get("audience")]
    if match:
        subject_parts[0] = request.replace(match.group("who"), "")
    subject_places = PlaceScope.of(subject_parts)
    place_scope = subject_places if subject_places.names else PlaceScope.of(parts)
    themes = themes_of(without_challenge(text), str(brief.get("theme") or ""))
    table = sections("theme_words.txt")
    # the themes related to the post's own (a trip talks food) — of the brief's theme when it has one: a 预算
    # line makes a renovation touch money, and money's talk of careers is still no part of a renovation post
    own = [t for t in themes if t == brief.get("theme")] or list(themes)
    near = [*themes, *(r for t in own for r in table[t].get("related", "").split() if r in table)]
    return Scope(
        request=request,
        text=text,
        kind_text=kind_text,
        topic_words=topic_words,
        topic_bigrams=topic_bigrams,
        audience=audience,
        themes=themes,
        near=tuple(dict.fromkeys(near)),
        places=place_scope,
        narrative=brief.get("contentType") in ("story", "diary"),
        recipe=brief.get("contentType") == "recipe",
    )


_CHALLENGE = re.compile(r"(?:\d+|[一二三四五六七八九十百]+)(?:天|周|个月)打卡|打卡(?:记录|日记|第|挑战)")


def without_challenge(text: str) -> str:
    """`text` without its 打卡 when it speaks of a check-in challenge (跳绳30天打卡, 打卡记录): then no
    打卡 of it is a visit to a place (a trip's or a café's)."""
    return text.replace("打卡", "") if _CHALLENGE.search(text) else text


def themes_of(text: str, theme_key: str = "") -> tuple[str, ...]:
    """Themes whose trigger words the text uses (all of them: 露营美食 is outdoor and food)."""
    lowered = text.lower()
    found = [key for key, entry in sections("theme_words.txt").items() if _hits(entry["triggers"], lowered)]
    if theme_key in sections("theme_words.txt") and theme_key not in found:
        found.append(theme_key)
    return tuple(found)


def _hits(word_line: str, text: str) -> list[str]:
    """Words of `word_line` in `text`; English ones as whole words (cat is not in education)."""
    return [
        w
        for w in word_line.split()
        if (re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", text) if w.isascii() else w in text)
    ]


def theme_hits(theme: str, sentence: str, *, min_len: int = 1) -> set[str]:
    """The theme's vocabulary words `sentence` uses (only words of `min_len` characters or more). A
    one-character word counts as a word of its own or as the head (last character) of a word: 灯 in 台灯,
    面 in 一碗面, but not 面 in 面试."""
    entry = sections("theme_words.txt").get(theme, {})
    lowered = sentence.lower()
    hits = {
        w
        for w in entry.get("words", "").split()
        if len(w) >= max(2, min_len) and w in lowered and _whole(w, lowered)
    }
    if min_len <= 1:
        single = {w for w in entry.get("words", "").split() if len(w) == 1}
        hits |= single.intersection(_heads(lowered))
    return hits


def _whole(word: str, text: str) -> bool:
    """Is `word` in `text` as a word of its own, not starting inside another one (早教 in 要趁早教: jieba
    reads 趁早 / 教)? jieba's cut is not perfect (上早教课 → 上 / 早 / 教课), so only a start that falls
    inside a longer word rules an occurrence out."""
    if word.isascii():
        return True
    inside: set[int] = set()  # offsets that lie inside a word of two or more characters, not at its start
    offset = 0
    for token in _tokens(text):
        inside.update(range(offset + 1, offset + len(token)))
        offset += len(token)
    start = text.find(word)
    while start >= 0:
        if start not in inside:
            return True
        start = text.find(word, start + 1)
    return False


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(segmenter.cut(text))


@lru_cache(maxsize=4096)
def _heads(text: str) -> frozenset[str]:
    return frozenset(word[-1] for word in segmenter.cut(text) if word.strip())
