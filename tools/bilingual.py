"""English and mixed-language requests, rendered in Chinese offline: "Write a post about hiking in
Hangzhou" → "杭州徒步", so the brief's topic (and the post) is Chinese.

A small word list kept as data (`data/routing/en_zh.tsv`: content nouns, activities, audiences and places
of the ten themes) — no model, no network. `localize` replaces each run of English words in a text:

- the request scaffolding goes ("write a post about", "share my", "recommend some", "how to" …);
- places move to the front, as a Chinese topic puts them ("coffee shops in Shanghai" → 上海咖啡店);
- "for <audience>" names the reader ("，给新手"), "for <thing>" becomes a modifier ("敏感肌护肤步骤");
- a word the list does not know stays in English — honest rather than a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

WORDS = Path(__file__).resolve().parent.parent / "data" / "routing" / "en_zh.tsv"
_RUN = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*(?:[\s,:&/]+[A-Za-z0-9][A-Za-z0-9'’\-]*)*")
_SCAFFOLD = re.compile(
    r"^(?:(?:please|pls|hey|hi)\s+)?(?:(?:can|could|would)\s+you\s+|help\s+me\s+|i\s+(?:want|need)\s+(?:to\s+)?|"
    r"let'?s\s+)?(?:write|create|make|draft|give\s+me|share|recommend|post|compose|put\s+together|plan)?\s*"
    r"(?:me\s+)?(?:a|an|some|my|the|your|our|a\s+few|few|\d+)?\s*"
    r"(?:(?:short|quick|long|xiaohongshu|rednote|little|nice|blog|social\s+media|casual|fun|friendly|simple|"
    r"detailed|practical|cute|relaxed|lively)\s+)*"
    r"(?:(?:post|note|article|caption|thread|piece|content)s?)?\s*(?:about|on|of|regarding)?\s+",
    re.IGNORECASE,
)
_HOW_TO = re.compile(r"^(?:how\s+to|tips\s+(?:for|on)|ideas\s+for)\s+", re.IGNORECASE)
_QUESTION_OPEN = re.compile(
    r"^(?:(?:what|how|why|where|which|when|who)(?:\s+(?:should|do|does|did|can|could|is|are|to|much|many|long|"
    r"time|kind\s+of))*|is|are|can|could|should|do|does|will)(?:\s+(?:i|we|you|my|it|there))?\s+",
    re.IGNORECASE,
)
_STOP = frozenset((
    "a", "an", "the", "some", "my", "your", "our", "their", "his", "her", "its", "of", "this", "that",
    "these", "those", "i", "me", "you", "we", "it", "is", "are", "be", "been", "very", "really", "most",
    "best", "top", "great", "good", "nice", "please", "any", "total", "complete", "absolute", "real",
    "experience", "experiences",  # "share my experience adopting …": the subject is what was experienced
    "things", "stuff", "ones", "way", "ways", "kind", "kinds", "type", "types", "everyone", "anyone",
))
_PLACE_PREP = frozenset(("in", "at", "around", "near", "to", "from", "across", "through"))
_JOIN = {"and": "和", "&": "和", "or": "或"}


@dataclass(frozen=True)
class Lexicon:
    words: dict[str, tuple[str, str]]  # english (lower, may be several words) → (kind, chinese)
    longest: int


@cache
def lexicon() -> Lexicon:
    words: dict[str, tuple[str, str]] = {}
    for line in WORDS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, english, chinese = line.split("\t")
        words[english.strip().lower()] = (kind.strip(), chinese.strip())
    return Lexicon(words, max(len(k.split()) for k in words))


def _lookup(tokens: list[str], i: int) -> tuple[int, str, str] | None:
    """The longest phrase of the word list starting at tokens[i]: (length, kind, chinese)."""
    lex = lexicon()
    for size in range(min(lex.longest, len(tokens) - i), 0, -1):
        phrase = " ".join(t.lower() for t in tokens[i : i + size])
        found = lex.words.get(phrase)
        if found is None and size == 1 and phrase.endswith("s"):
            found = lex.words.get(phrase[:-1])
        if found:
            return size, found[0], found[1]
    return None


def _render(tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Tokens → (places, audiences, words) in Chinese; unknown words kept as they were written."""
    places: list[str] = []
    audiences: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        low = token.lower()
        if low == "for":  # "for beginners" names the reader; "for sensitive skin" qualifies the topic
            rest_places, rest_audiences, rest_words = _render(tokens[i + 1 :])
            places += rest_places
            if rest_audiences and not rest_words:
                audiences += rest_audiences
            else:
                words[:0] = [*rest_audiences, *rest_words]
            break
        if low == "with":
            rest_places, rest_audiences, rest_words = _render(tokens[i + 1 :])
            places += rest_places
            taken = "".join([*rest_audiences, *rest_words])
            if words and words[-1] == "人":  # "people with oily skin": the reader, not a companion
                words.pop()
                audiences.append(f"{taken}人群" if taken else "")
            else:
                words[:0] = [f"带{taken}"] if taken else []
            break
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if low in _PLACE_PREP and following[:1].isupper() and not _lookup(tokens, i + 1):
            places.append(tokens[i + 1])  # "in Perth": a place the list does not know, kept in English
            i += 2
            continue
        if low in _STOP or low in _PLACE_PREP:
            i += 1
            continue
        if low in _JOIN:
            if words:
                words.append(_JOIN[low])
            i += 1
            continue
        found = _lookup(tokens, i)
        if found is None:
            words.append(token)
            i += 1
            continue
        size, kind, chinese = found
        (places if kind == "place" else audiences if kind == "audience" else words).append(chinese)
        i += size
    if words and words[-1] in _JOIN.values():
        words.pop()
    return places, audiences, words


def _glue(parts: list[str]) -> str:
    """Chinese words run together; two English words keep a space between them."""
    out = ""
    for part in parts:
        if out and out[-1].isascii() and out[-1].isalnum() and part[:1].isascii() and part[:1].isalnum():
            out += " "
        out += part
    return out


def render_english(run: str) -> str:
    """One run of English words in Chinese, e.g. "Write a post about hiking in Hangzhou" → "杭州徒步"."""
    text = _SCAFFOLD.sub("", run.strip() + " ", count=1).strip()
    if not text:  # the run was only the ask ("Write a" before a Chinese or numeric part): nothing to keep
        return ""
    text = _HOW_TO.sub("", text + " ", count=1).strip() or text
    text = _QUESTION_OPEN.sub("", text.rstrip("?？ ") + " ", count=1).strip() or text
    tokens = [t for t in re.split(r"[\s,:/]+", text) if t]
    places, audiences, words = _render(tokens)
    topic = _glue([*places, *words])
    if audiences:
        return f"{topic}，给{'、'.join(dict.fromkeys(audiences))}" if topic else "、".join(audiences)
    return topic


def has_english(text: str) -> bool:
    return _RUN.search(text) is not None and any(len(m.group(0)) >= 3 for m in _RUN.finditer(text))


_NUMBERS = {"one": "一", "two": "两", "three": "三", "four": "四", "five": "五", "six": "六", "seven": "七"}
_UNITS = {"day": "天", "night": "晚", "week": "周", "hour": "小时", "month": "个月"}
# "3 days", "two nights": a duration reads as 3天 / 两晚 (a word list would leave "3 days" as it is)
_DURATION = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven)[\s-]*(day|night|week|hour|month)s?\b", re.IGNORECASE
)


def _duration(match: re.Match[str]) -> str:
    number = match.group(1).lower()
    return _NUMBERS.get(number, number) + _UNITS[match.group(2).lower()]


def localize(text: str) -> str:
    """`text` with each run of English words rendered in Chinese; Chinese text is returned unchanged."""
    if not has_english(text):
        return text
    text = _DURATION.sub(_duration, text)

    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) < 3 and run.isupper():  # "AI", "T恤"-style abbreviations stay as written
            return run
        return render_english(run)

    out = _RUN.sub(replace, text)
    out = re.sub(r"(?<=[\u4e00-\u9fff])\s+|\s+(?=[\u4e00-\u9fff])", "", out)
    return re.sub(r"，\s*，", "，", out).strip(" ，")
