"""Card text that reads as finished copy: lines cut only at phrase boundaries (ending in "…" when cut),
labels that are whole phrases rather than keyword fragments, and page markers recognised so that a card
shows its page number once.

Shared by the offline planner (`tools.offline.planning`), the image planner's normalisation, the renderer
and the critic's card checks (`agents.checks.cards`), so all of them agree on what a fragment or a cut is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from tools import segmenter

ELLIPSIS = "…"
_CLAUSE_END = re.compile(r"(?<=[，。！？；!?;])")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])")
_BOUNDARY = "，。！？；、：,.!?;: "
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d\u20e3]")
_BULLET = re.compile(r"^\s*(?:\d{1,2}\s*[.、)）:：]|[①-⑳]|[·•\-*●▪◆✓✔☑✅👉]|\d\ufe0f?\u20e3)\s*")
PAGE_MARK = re.compile(
    r"^\s*(?:第\s*)?(?:\d{1,2}|[一二三四五六七八九])\s*(?:/|／|\||of)\s*\d{1,2}\s*(?:张|页|P)?\s*$"
    r"|^\s*(?:P|p|第)\s*\d{1,2}\s*(?:张|页)?\s*$"
)
# Words a phrase cannot end with (a connective or particle left hanging) or start with.
_DANGLING_END = tuple("的和与及或在把被对从给让跟、，：（“并而但")
_DANGLING_START = tuple("的了着过和与及、，。）”")
_MEASURE = re.compile(r"^[一二两三四五六七八九十几半每]\s*[个根只条张块片份碗杯颗瓶件次串盒包把位家]$")
_LIST_JOIN = re.compile(r"[、/·]")
# A clause ending in a sentence-final 的 (是…的, 超好的, 我是这样做的) is whole; 两天一夜的 is not.
_FINAL_DE = re.compile(r"(?:是|很|超|挺|真|蛮|太|特别|非常|可以|会|能)[^，,、：:；;]{0,8}的$")


def clean(text: str) -> str:
    """Display text: no list marker, no emoji, single spaces, no dangling separators at the ends."""
    text = _EMOJI.sub("", _BULLET.sub("", text or ""))
    return " ".join(text.split()).strip(" ，,。；;：:、")


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    return tuple(segmenter.cut(text))


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: whole when it fits, else cut at the last phrase boundary
    (punctuation, else a word boundary) and ended with "…" — never mid-word."""
    text = text.strip()
    if len(text) <= limit:
        return text
    room = max(1, limit - 1)
    head = text[:room]
    cut = max(head.rfind(ch) for ch in _BOUNDARY)
    if cut >= room * 0.45:
        return head[:cut].rstrip(_BOUNDARY) + ELLIPSIS
    return (whole_words(text, room) or head).rstrip(_BOUNDARY) + ELLIPSIS


_LOOSE_FLAGS = ("d", "p", "c", "u", "r", "m", "q")  # adverbs, prepositions, conjunctions, particles…
_MODALS = frozenset({"能", "会", "要", "可以", "可", "想", "得", "让", "把", "被", "是", "有"})


def whole_words(text: str, room: int) -> str:
    """The longest start of `text` of at most `room` characters that ends with a whole word that can end a
    phrase (no adverb, preposition, conjunction, particle or modal left hanging); "" when there is none."""
    pairs = segmenter.posseg(text)
    kept: list[tuple[str, str]] = []
    for word, flag in pairs:
        if sum(len(w) for w, _ in kept) + len(word) > room:
            break
        kept.append((word, flag))
    while kept and (
        kept[-1][1].startswith(_LOOSE_FLAGS) or kept[-1][0] in _MODALS or kept[-1][0][-1] in _BOUNDARY
    ):
        kept.pop()
    return "".join(w for w, _ in kept)


def clauses(text: str) -> list[str]:
    """Sentences of `text`; a sentence longer than a line is split into its comma clauses."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        sentence = clean(sentence)
        if not sentence:
            continue
        if len(sentence) <= 24:
            out.append(sentence)
            continue
        part = ""
        for clause in (clean(c) for c in _CLAUSE_END.split(sentence)):
            if not clause:
                continue
            if part and len(part) + 1 + len(clause) > 24:
                out.append(part)
                part = clause
            else:
                part = f"{part}，{clause}" if part else clause
        if part:
            out.append(part)
    return out


def paragraph_lines(paragraph: str) -> tuple[str | None, list[str]]:
    """(heading, lines) of one draft paragraph: a first line that is not a list item is its heading; each
    list item is a line; prose becomes its sentences/clauses. Nothing is cut here."""
    raw = [ln.strip() for ln in paragraph.split("\n") if clean(ln)]
    heading = None
    if len(raw) > 1 and (not _BULLET.match(raw[0]) or _marked_heading(raw[0], raw[1])):
        heading, raw = clean(raw[0]), raw[1:]
    if len(raw) == 1 and not _BULLET.match(raw[0]):
        return heading, clauses(raw[0])
    return heading, [clean(ln) for ln in raw if clean(ln)]


def _marked_heading(first: str, second: str) -> bool:
    """Is a first line that starts like a list item (✅, 👉) the heading of the list below it: a label
    with its subject (✅应届生·我的做法), or marked unlike the items that follow (✅ over 1️⃣ 2️⃣)?"""
    mark, next_mark = _BULLET.match(first), _BULLET.match(second)
    label = "·" in first and not re.search(r"[，。！？!?,；;]", first)
    if mark is None:
        return False
    return label or next_mark is None or mark.group(0).strip() != next_mark.group(0).strip()


# A label that says when, not what (平日：…, 周一：…, 早上：…): no name for a card's emblem or a summary point
WHEN_LABEL = re.compile(
    r"^(?:平日|工作日|周末|周[一二三四五六日]|星期.|每天|早上|早晨|上午|中午|下午|傍晚|晚上|睡前|第.{1,3}[天周步])$"
)


def is_page_mark(text: str | None) -> bool:
    return bool(text) and bool(PAGE_MARK.match(str(text)))


def fragment_reason(label: str, sources: str = "") -> str | None:
    """Why `label` (a badge, a motif label) is not a whole phrase, or None when it is one. A list of words
    joined by 、 or / counts as whole only when it appears verbatim in `sources` (the post, the overlay)."""
    text = label.strip()
    if not text:
        return None
    if _LIST_JOIN.search(text) and text not in sources:
        return "是关键词碎片，不是完整短语"
    if any(_MEASURE.match(part.strip()) for part in _LIST_JOIN.split(text)):
        return "只有数量词，是半截短语"
    if text.startswith(_DANGLING_START):
        return "以虚词开头，是半截短语"
    if len(text) > 1 and text.endswith(_DANGLING_END):
        return "以虚词或标点结尾，是半截短语"
    return None


def cut_reason(line: str, sources: str = "") -> str | None:
    """Why `line` reads as cut mid-phrase (and carries no "…"), or None. A line that is the start of a
    longer phrase in `sources` (the post) which goes on without punctuation is cut."""
    text = line.strip()
    if not text or text.endswith((ELLIPSIS, "...")) or text[-1] in "。！？!?；;~～）)」”":
        return None
    if sources and len(text) >= 4:
        start = 0
        while (at := sources.find(text, start)) >= 0:
            after = sources[at + len(text) : at + len(text) + 1]
            if not after or after in _BOUNDARY + "\n）)”」】~～!！" or _EMOJI.match(after):
                return None  # found whole somewhere
            start = at + 1
        if text in sources:
            return "在半句处断开，结尾没有省略号"
    if len(text) > 1 and text.endswith(_DANGLING_END) and not _FINAL_DE.search(text):
        return "在半句处断开，结尾没有省略号"
    return None


_QUOTED = re.compile(r"「[^」]*」|“[^”]*”")
_SUBJECT = re.compile(r"画面主体[：:][^，,。；;]*")
PROMPT_WORDS_FILE = Path(__file__).resolve().parent.parent / "data" / "lexicon" / "prompt_words.txt"


@lru_cache(maxsize=1)
def _prompt_words() -> frozenset[str]:
    lines = PROMPT_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.strip() for ln in lines if ln.strip() and not ln.startswith("#"))


@lru_cache(maxsize=1024)
def scene_words(prompt: str, exclude: str = "", limit: int = 2) -> tuple[str, ...]:
    """The prompt's own scene nouns (what the image shows besides its subject), in order: the topic (in
    「」), the subject and generic prompt vocabulary are skipped.
    '夜市里的烤冷面摊，暖黄灯串' → 夜市, 冷面."""
    text = _SUBJECT.sub("", _QUOTED.sub("", prompt or ""))
    words: list[str] = []
    for word, flag in segmenter.posseg(text):
        word = word.strip()
        if (
            2 <= len(word) <= 5
            and flag.startswith(("n", "vn"))
            and flag != "nr"
            and word not in _prompt_words()
            and word not in exclude
            and word not in words
        ):
            words.append(word)
        if len(words) >= limit:
            break
    return tuple(words)
