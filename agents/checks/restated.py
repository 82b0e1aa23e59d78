"""A sentence or paragraph that says again, in other words, what another one of the same post already said:
a tip that repeats an earlier step, a closing that repeats a list item, a "第五步" that is 第二步 reworded.

The character measures of `form.duplicates` see a copy or a light edit; a restatement shares few of its
characters in order, so here the post's sentences (and its lines of several sentences) are embedded in one
batch with the studio's sentence encoder (`tools.embeddings`, USE multilingual) and a pair is a restatement
when it passes one of these bars:

- the same meaning: a cosine of `SAME_MEANING` or more, with `SHARED_CHARS` of their Chinese characters in
  common and at least one word — unless both are list items under different labels (「洁面：…」「保湿：…」),
  which are different items told the same way, and read less alike than `LABELLED_SAME`;
- the same details: `DETAIL_WORDS` or more words in common that are particular to the two (not the post's
  topic: words of the title or of three lines or more) and a cosine of `SAME_DETAILS` or more;
- (a sentence that reports someone else's words, 朋友也说，…, is also compared without its frame)
- the same details retold: `RETOLD_WORDS` particular words in common, `RETOLD_CHARS` of their characters and
  a cosine of `RETOLD` (薄睡袋不够，幸好多带了一条毯子 / 只盖薄睡袋根本扛不住，还好多塞了一条毯子), or only
  `RETOLD_FEW_WORDS` of them with more characters in common (`RETOLD_FEW_CHARS`, `RETOLD_FEW`: a tip said
  again near the end, 汀步雨后很滑… / 再提醒一次：…石墩特别滑…);
- the same point under two labels: a cosine of `CLOSE_MEANING` with one particular word in common (膝盖内扣：
  …往外推 / 膝盖往中间塌：…往外打开) — unless both name a stage of a plan and not the same one (第二周… /
  第三周…), which are the plan's next steps told alike. These two bars were set on round 22's tune rows
  (`data/quality/probe_drafts.jsonl`); no good post of the benchmark's tune rows reaches them.
  The `RETOLD` bar was checked with a split of our own: set on half of the good posts (the benchmark's,
  tests/agents/data's and the adversarial set's, every other one), it fails none of the other half nor any
  of the 460 sample notes a sentence a line; the closest good pair (two make-up tips, 出油…按压) reads 0.70
  with 0.415 of its characters shared.

- a point announced as said again: a sentence after words that say so (换句话说, 说白了, 还是那句话,
  还有一点要记住 …) is compared without them, and a cosine of `ANNOUNCED` with `ANNOUNCED_CHARS` of the
  characters in common is enough — the writer's own words say it is a restatement. Set in session 21 on
  the two tune rows of the benchmark it alone catches (draft-f86-2, draft-f164-1). No tune good post, test
  post or sample note uses those words, so none could fail by it; a good post that announces a summary
  and then says something new is tested to pass.

A step that does again on purpose what an earlier one did (再滴一次色素测试 after 往水箱里滴几滴食用色素:
the test repeated after the fix) says so, and is no restatement (`_REDO`; 再说一遍 and 再提醒一次 announce
one instead).

Parallel items of a list or a plan (第3-4周：跑3分钟… / 第5-6周：跑5分钟…) read alike to the encoder: two
units whose numbers differ (neither's a subset of the other's) are never a restatement, and two units under
headings of their own (🦵 单腿臀桥 / 🦵 单腿硬拉) are held to the bar of items under different labels.

The thresholds were set on the quality benchmark's drafts (its 57 good posts and its reworded
near-duplicates, `data/quality/drafts.jsonl`), on posts the offline writer composes and on the sample notes of
`data/notes/` taken a sentence a line (their parallel list items are the hard negatives): no good or composed
post fails. Two of the 460 notes would, had their sentences been on lines of their own (a point and its
general rule: 细软发 / 锁骨发). A restatement that shares neither a word nor much of the wording (砖红色 told
as 红里透着点棕) is left unseen: the encoder scores such pairs no higher than parallel items.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from agents.checks.textutil import is_heading, lines, normalise, paragraphs, sentences, words
from tools.entities import posseg_cut

SAME_MEANING = 0.73
SHARED_CHARS = 0.40
LABELLED_SAME = 0.82  # items under different labels that read this alike say the same thing anyway
CLOSE_MEANING = 0.85  # …and this alike with a word of their own in common, however few characters they share
SAME_DETAILS = 0.60
DETAIL_WORDS = 5
RETOLD, RETOLD_CHARS, RETOLD_WORDS = 0.65, 0.42, 3
RETOLD_FEW, RETOLD_FEW_CHARS, RETOLD_FEW_WORDS = 0.62, 0.43, 2  # fewer particular words, more characters
ANNOUNCED, ANNOUNCED_CHARS = 0.60, 0.30  # a point the writer says they are saying again (换句话说，…)
_RETOLD_BARS = ((RETOLD_WORDS, RETOLD, RETOLD_CHARS), (RETOLD_FEW_WORDS, RETOLD_FEW, RETOLD_FEW_CHARS))
MIN_CHARS = 12  # shorter sentences (a label, "收藏起来～") embed too loosely to compare
TOPIC_LINES = 3  # a word on this many lines is what the post is about, not a detail of one line

# A paragraph's first line that names what follows (⏱ 第2—3分钟：颈部侧拉, 🍱 五天菜单): a label, no sentence
_TITLE_LINE = re.compile(r"[^，,。；;！？!?]{1,20}")
_LABEL = re.compile(r"^([^，,。；;！？!?：:]{1,12})[：:]")
# A number in digits, or in Chinese numerals before a unit of money, time or measure (门票四十五元 / 门票十元,
# 两小时), or a count of two numerals or more (每边十五次 / 每边十二次, 二十个): parallel items of a plan or a
# list differ in them. Small counts, ordinals and periods in words (三次, 第四周, 一天) are left out: they are
# how the items are told (每周三次 in every step, 第二个是…), not what sets them apart.
_NUMBER = re.compile(
    r"\d+(?:\.\d+)?|[零一二两三四五六七八九十百千万]+(?=[元块斤岁]|分钟|小时|公里|公斤|米)"
    r"|(?<![第零一二两三四五六七八九十百千万])[零一二两三四五六七八九十百千万]{2,}(?=[次组秒个遍])"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}\s*[.、)）]|[①-⑩]|\d\ufe0f?\u20e3)")
# The frame of reported words, up to two clauses at a sentence's start (后来跟当教练的朋友聊起这件事，
# 他也说，…; 医生提醒：…): a point retold as what someone else said is compared by what is said — the
# frame's words about who and when would otherwise keep the two apart. The bars stay those of any other
# sentence.
_REPORTED = re.compile(
    r"^(?:[^，,。：:]{0,24}[，,]){0,2}?[^，,。：:]{0,10}?"
    r"(?:说|讲|提到|建议|提醒|强调|告诉(?:我|我们)?)(?:过|了)?[，,：:]\s*"
)


# Words that announce a point said again (换句话说, 说白了, 再强调一次, 还有一点要记住): what follows restates
# an earlier point by the writer's own account, so it is held to a lower bar of likeness — the encoder
# reads a reworded point (把体温、精神头和小便次数看紧了 / 盯住体温、精神、尿量) no closer than two items
_ANNOUNCED = re.compile(
    # (…after what it is about: 回程的事再强调一下：)
    r"(?:^|[。！？!?；;，,]\s*)(?:[^，,。！？!?；;：:]{1,8}?(?:的事|这件事|这一点|这点)(?:情)?)?"
    r"(?:换句话说|也就是说|说白了|说到底|再说一遍|再强调一[次遍下]|再提醒一[次遍下]|还有一点要记住|再说回[^，,：:]{1,8}[：:]|"
    r"还是那句话|重复一遍)[，,：:]?\s*"
)


@dataclass(frozen=True)
class Restated:
    """Two units of a post that say the same thing; `whole` when either is a whole paragraph."""

    first: str
    second: str
    whole: bool


@dataclass(frozen=True)
class _Unit:
    line: int
    text: str
    whole: bool
    heading: str = ""  # the heading the unit's paragraph opens with (🦵 单腿臀桥), if any
    announced: bool = False  # what the writer says is said again (`_ANNOUNCED`), without those words
    item: bool = False  # a numbered item of a list (1️⃣ …, 2. …)


def restatement(body: str, title: str = "") -> Restated | None:
    """The pair of the body's units (on different lines) that most clearly say the same thing, if any."""
    units = _units(body)
    if len(units) < 2:
        return None
    from tools.embeddings import embed  # the encoder loads on first use, not when the critic is imported

    vectors = embed([u.text for u in units])
    similarity = vectors @ vectors.T
    topic = _topic_words(body, title)
    best: tuple[float, Restated] | None = None
    for i, j in combinations(range(len(units)), 2):
        a, b = units[i], units[j]
        if a.line == b.line or a.text in b.text or b.text in a.text:
            continue
        if _TO_READER.search(a.text) or _TO_READER.search(b.text):
            continue  # a challenge or a question to the reader (8周后回来告诉我…) asks; it restates nothing
        if _AMOUNTS_LISTED.match(a.text) or _AMOUNTS_LISTED.match(b.text):
            continue  # what a recipe takes (鳕鱼一百五十克，土豆一个，…) is used by its steps, not said again
        cosine = float(similarity[i, j])
        better = best is None or cosine > best[0]
        # two units under headings of their own are two items told the same way (单腿臀桥 / 单腿硬拉)
        # …and so are two numbered items of a list read less alike than `LABELLED_SAME`, each naming things of
        # its own (泡沫轴…上背部 / 侧躺，泡沫轴…背阔肌: two steps with one tool)
        listed = a.item and b.item and cosine < LABELLED_SAME
        apart = bool(a.heading and b.heading and a.heading != b.heading) or listed
        close = cosine >= min(SAME_DETAILS, RETOLD)
        # a paragraph, or a line of dialogue, of a story: its details come back as it goes on (“谁看见乐乐的
        # 蓝色小车了？” / 只是说：“妈妈看到群里乐乐在找一辆蓝色小车…”)
        whole = a.whole or b.whole or bool(_SPEECH.search(a.text) or _SPEECH.search(b.text))
        said_again = (a.announced or b.announced) and not whole and not numbers_differ(a.text, b.text)
        if said_again and better and cosine >= ANNOUNCED and _char_dice(a.text, b.text) >= ANNOUNCED_CHARS:
            best = (cosine, Restated(a.text, b.text, False))
        elif (
            better
            and close
            and not _redone(a.text, b.text)
            and _same_point(a.text, b.text, cosine, topic, apart, whole)
        ):
            best = (cosine, Restated(a.text, b.text, a.whole or b.whole))
    return best[1] if best else None


_SPEECH = re.compile(r"[“「][^”」]{4,}")
# A line of things and their amounts only, three or more (鳕鱼一百五十克，土豆一个，胡萝卜小半根): a recipe's
# ingredients or a packing list
_AMOUNT_ITEM = (
    r"[^，,、。；;：:了着过把被]{1,10}?"  # the thing
    r"(?:\d|[一二两三四五六七八九十半几少适小])[^，,、。；;：:]{0,5}"  # …and how much of it
)
_AMOUNTS_LISTED = re.compile(rf"^(?:{_AMOUNT_ITEM}[，,、]\s*){{2,}}{_AMOUNT_ITEM}[。；;]?$")
_TO_READER = re.compile(r"(?:回来|来|评论区|留言区?)(?:告诉|跟|和)(?:我|大家)|告诉我|[？?]\s*$")


def _same_point(
    a: str, b: str, cosine: float, topic: frozenset[str], apart: bool = False, whole: bool = False
) -> bool:
    if numbers_differ(a, b):
        return False
    shared = set(words(a)) & set(words(b))
    particular = len(shared - topic)
    if particular >= DETAIL_WORDS:
        return True
    if _stages_differ(a, b):  # 第二周开始加了站立体式… / 第三周开始练平衡体式…: the next stage, told alike
        return False
    if apart and _own_things(a, b) and _own_things(b, a):  # 穿法1 / 穿法2, each with its 搭配 of its own
        return False
    if particular >= 1 and cosine >= CLOSE_MEANING:  # 膝盖内扣：…往外推 / 膝盖往中间塌：…往外打开
        return True
    same_label = not (apart or _labels_differ(a, b))
    for need, bar, chars in () if whole else _RETOLD_BARS:
        if particular >= need and cosine >= bar and _char_dice(a, b) >= chars and same_label:
            return True
    return (
        cosine >= SAME_MEANING
        and bool(shared)
        and _char_dice(a, b) >= SHARED_CHARS
        and (
            not (apart or _labels_differ(a, b))
            or (cosine >= LABELLED_SAME and not (_own_things(a, b) and _own_things(b, a)))
        )
    )


def _own_things(a: str, b: str) -> bool:
    """Does `a` name a thing (a noun of two characters or more) that `b` does not?
    Two items of a labelled list that each name their own (周二：番茄牛肉末… / 周四：牛肉末炒豆角…) are two
    items, however alike the encoder reads them; a step told again keeps its things, rewords the rest."""
    return any(
        flag.startswith("n") and len(word) >= 2 and word not in b
        for word, flag in posseg_cut(a)
    )


def _units(body: str) -> list[_Unit]:
    """The sentences of the body's lines (headings left out) long enough to compare, and each line of two
    sentences or more as a whole (a restatement may span a step's two sentences); each with the heading
    it stands under in its paragraph."""
    units: list[_Unit] = []
    number = -1
    labelled = [_labels(p) for p in paragraphs(body)]
    for at, paragraph in enumerate(paragraphs(body)):
        heading = ""
        # (a record: its labels come again in another paragraph, each record of its own thing)
        record = any(len(labelled[at] & other) >= 2 for o, other in enumerate(labelled) if o != at)
        for k, line in enumerate(lines(paragraph)):
            number += 1
            opens = k == 0 and len(lines(paragraph)) > 1 and (_TITLE_LINE.fullmatch(line) or record)
            if is_heading(line) or opens:
                heading = normalise(line)
                continue
            parts = [s for s in sentences(line) if len(normalise(s)) >= MIN_CHARS]
            item = bool(_NUMBERED.match(line))
            units.extend(_Unit(number, s, False, heading, item=item) for s in parts)
            announcing = False  # (…and the sentences after it on its line: 再说回物理那支：…；问题是…)
            for said in parts:  # what the writer says again, without the words announcing it
                again = _ANNOUNCED.search(said)
                if again and len(normalise(said[again.end() :])) >= MIN_CHARS:
                    units.append(_Unit(number, said[again.end() :], False, heading, announced=True))
                elif announcing:
                    units.append(_Unit(number, said, False, heading, announced=True))
                announcing = announcing or bool(again)
            for said in parts:  # what someone else is reported to say, without the frame that reports it
                frame = _REPORTED.match(said)
                rest = said[frame.end() :] if frame else ""
                if len(normalise(rest)) >= MIN_CHARS:
                    units.append(_Unit(number, rest, False, heading))
            if len(sentences(line)) > 1 and len(normalise(line)) >= MIN_CHARS:
                units.append(_Unit(number, line, True, heading))
    return units


def _labels(paragraph: str) -> set[str]:
    """The labels of a paragraph's lines after its first (质地：… / 成膜：… / 持妆：…). Two paragraphs that
    share two of them are records of two things (A款 / B款, 穿法1 / 穿法2): each one's first line heads
    it, so the same label in two records is the same attribute of two things, not a point said twice."""
    return {normalise(m.group(1)) for line in lines(paragraph)[1:] if (m := _LABEL.match(line))}


def _topic_words(body: str, title: str) -> frozenset[str]:
    """Words the whole post is about: the title's and those on `TOPIC_LINES` lines or more."""
    counts = Counter(w for line in lines(body) for w in set(words(line)))
    return frozenset({w for w, n in counts.items() if n >= TOPIC_LINES} | set(words(title)))


_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def _value(token: str) -> str:
    """A number as digits, so that 三 and 3 are the same number (四十五 → 45, 两 → 2)."""
    if not token or token[0].isdigit():
        return token
    total, digit = 0, 0
    for char in token:
        if char in _DIGITS:
            digit = _DIGITS[char]
        elif char in _UNITS:
            total += (digit or 1) * _UNITS[char]
            digit = 0
        else:
            return token
    return str(total + digit)


def _numbers(text: str) -> set[str]:
    """The numbers a unit gives, as digits (三公里 and 3公里 are one number); a list item's own number
    (2. 小组项目怎么写？) is where it stands, not what it says."""
    return {_value(n) for n in _NUMBER.findall(_ORDINAL.sub("", text))}


_ORDINAL = re.compile(r"^\s*\d{1,2}\s*[.、)）]\s*(?!\d)")


def numbers_differ(a: str, b: str) -> bool:
    """Do `a` and `b` each give numbers, neither's a subset of the other's (parallel items of a list)?"""
    x, y = _numbers(a), _numbers(b)
    # (…or the same count of figures, one of them changed: 硬拉 各10kg 4组×10次 / 硬拉 各12kg 4组×10次)
    seq_a, seq_b = re.findall(r"\d+(?:\.\d+)?", a), re.findall(r"\d+(?:\.\d+)?", b)
    changed = len(seq_a) == len(seq_b) >= 2 and seq_a != seq_b
    return bool(x and y) and (changed or not (x <= y or y <= x))


# A stage of a plan or a diary: its day, week, step or weekday (第三周, Day2, 第二步, 周四), or a span of
# them (第1-2周)
_STAGE = re.compile(
    r"第[一二两三四五六七八九十\d]+(?:\s*[-—–~～到至]\s*[一二两三四五六七八九十\d]+)?[天周步次个晚月]"
    r"|[Dd]ay\s?\d+|周[一二三四五六日天]"
)


# A doing done again on purpose (再滴一次色素测试, 再称一遍): a step that repeats a check, not a point said
# again (再说一遍 and 再提醒一次 are `_ANNOUNCED`)
_REDO = re.compile(
    r"再(?!说|讲|提醒|强调|重复|啰嗦|唠叨)[\u4e00-\u9fff]{1,2}一[次遍](?![\u4e00-\u9fff]{0,2}[说讲])"
)


def _redone(a: str, b: str) -> bool:
    """Does either say it does again what the other did (a test repeated after the fix)?"""
    return bool(_REDO.search(a) or _REDO.search(b))


def _stages_differ(a: str, b: str) -> bool:
    """Do both name a stage of the post's plan, and not the same one?"""
    x, y = set(_STAGE.findall(a)), set(_STAGE.findall(b))
    return bool(x and y) and not (x & y)


def _labels_differ(a: str, b: str) -> bool:
    """Both are items under a label ("洁面：…") and the labels are not the same — nor both a frame that sums
    up (我的结论：… / 所以我现在的用法是：…: one conclusion drawn twice, not two items)."""
    x, y = _LABEL.match(a), _LABEL.match(b)
    if x is None or y is None:
        return False
    labels = normalise(x.group(1)), normalise(y.group(1))
    return labels[0] != labels[1] and not all(_SUMMING_UP.search(label) for label in labels)


_SUMMING_UP = re.compile(r"(?:结论|总结|用法|做法|心得|体会|答案)(?:是|就是)?$|^(?:所以|总之|总的来说|最后)")


def _char_dice(a: str, b: str) -> float:
    x, y = set(_CJK.findall(a)), set(_CJK.findall(b))
    return 2 * len(x & y) / (len(x) + len(y)) if x and y else 0.0
