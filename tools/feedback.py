"""An editor's feedback on a draft, read as operations: what to add, delete, expand, shorten, retarget.

"标题里加上周末，正文不要出现泉州和银河" → [TitleAdd("周末"), Avoid("泉州"), Avoid("银河")]. The offline
writer applies the operations; the writer agent checks any model's redo against them (`unmet`) and
reports what was not done, so a redo is never the same draft reshuffled. Clauses no rule reads are kept
in `Feedback.unparsed`: a model may still act on them, the offline one says it could not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Tone = Literal["lively", "formal", "colloquial"]

_CLAUSES = re.compile(r"[，,。；;！!？?\n]+")
_ITEMS = re.compile(r"[、和与及跟/,，]|以及")
_QUOTES = "「」『』“”\"'《》"
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")
_CONTENT_WORDS = re.compile(
    r"(?:相关)?(?:的)?(?:这|那)?(?:内容|部分|段落|那段|这段|信息|描述|介绍|字样|这个词|这些词|这几个字)$"
)


def _items(text: str) -> list[str]:
    """'银河和泉州的内容' → ['银河', '泉州']: the things a clause names."""
    text = _CONTENT_WORDS.sub("", text)
    text = re.sub(r"^(?:把|将)", "", text)  # 把那段删掉: the verb's object marker names nothing
    text = re.sub(r"(?:了|吧|啊|呀|哦|啦|呢)+$", "", text)
    items = [i.strip(_QUOTES + " 的") for i in _ITEMS.split(text)]
    return [i for i in items if 1 <= len(i) <= 16]


@dataclass
class Feedback:
    """What the feedback asks for. Empty lists / None mean "not asked"."""

    title_add: list[str] = field(default_factory=list)
    title_set: str | None = None
    avoid: list[str] = field(default_factory=list)  # must appear nowhere (title, body, tags)
    expand: list[str] = field(default_factory=list)  # write more about
    length: Literal["shorter", "longer"] | None = None
    tone: Tone | None = None
    audience: str | None = None
    emoji: Literal["more", "fewer", "none"] | None = None
    tags_set: list[str] = field(default_factory=list)
    tags_add: list[str] = field(default_factory=list)
    tags_remove: list[str] = field(default_factory=list)
    tags_refresh: bool = False
    closing_refresh: bool = False  # another call to action at the end
    title_refresh: bool = False  # another title (not a given one)
    unparsed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.title_add or self.title_set or self.avoid or self.expand or self.length or self.tone
            or self.audience or self.emoji or self.tags_set or self.tags_add or self.tags_remove
            or self.tags_refresh
            or self.closing_refresh
            or self.title_refresh
        )


_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:不要|别|不用|去掉|删掉|拿掉)(?:用|要|打|加)?[「“\"]?#(?P<x>[^\s」”\"#，。]+?)[」”\"]?(?:这个|这些|那个)?标签"),
     "tags_remove"),
    (re.compile(r"标签(?:全部|都|全都)?(?:换掉|换一换|换换|重新选|重选|不行|太泛|不精准)"), "tags_refresh"),
    (re.compile(r"标签(?:再)?(?:换|改)(?:几个|一批|些|一些)"), "tags_refresh"),
    (re.compile(r"(?:结尾|互动引导|行动号召|收尾)(?:的)?(?:话|句子)?.{0,4}(?:换|改|重写|不对|不符)|(?:换|改)(?:个|一个|一句)?(?:结尾|互动引导)"),
     "closing_refresh"),
    (re.compile(r"标题(?:改成|换成|改为|就叫|用)[「“\"]?(?P<x>[^」”\"]+)"), "title_set"),
    (re.compile(r"^(?:换|改|重新起|重起|再起)(?:个|一个)?标题$|^标题(?:换一个|换个|换一下|重新起一个|再想一个|不够吸引人)$"),
     "title_refresh"),
    (re.compile(r"标题(?:里|中|上)?(?:要|需要|得)?(?:加上|加入|加|带上|带|放上|放进|包含|出现|体现|突出)了?(?P<x>.+)"),
     "title_add"),
    (re.compile(r"(?:在)?标题(?:里|中)?(?:要)?有(?P<x>.+)"), "title_add"),
    (re.compile(r"(?:把)?标签(?:改成|换成|改为|用)(?P<x>.+)"), "tags_set"),
    (re.compile(r"标签(?:里)?(?:加上|加入|加|补充|增加)(?P<x>.+)"), "tags_add"),
    (re.compile(r"(?:换|改)(?:一批|一下|几个)?标签|标签(?:不相关|不对|太泛|换一批|换一下|重新选)"),
     "tags_refresh"),
    (re.compile(r"(?:(?:不要|别|不用|无需|不需要|避免)(?:再)?(?:出现|提到?|提及|写|说|讲|涉及|带)|(?:这篇)?不(?:写|提))(?P<x>.+)"),
     "avoid"),
    (re.compile(r"(?:删掉|删除|去掉|拿掉|删去|移除|去除|砍掉)(?P<x>.+)"), "avoid"),
    (re.compile(r"(?P<x>.+?)(?:的(?:内容|部分|段落))?(?:都)?(?:删掉|删除|去掉|不要了|拿掉)"), "avoid"),
    (re.compile(r"(?:多写写?|多讲讲?|多说说?|多介绍|详细写|展开写|展开讲|重点写|补充|加点|多加点|多来点|增加)(?:一些|一点|点|些)?(?:关于)?(?P<x>.+)"),
     "expand"),
    (re.compile(r"(?P<x>.+?)(?:写|讲|说)得?(?:再)?(?:详细|具体|多)(?:一些|一点|点)?"), "expand"),
    (re.compile(r"(?:改成|换成|改为|写给|面向|针对|受众(?:改成|换成|是|改为)?)(?P<x>[^，。]{2,12}?)(?:看|群体|人群|读者)?$"),
     "audience"),
]
# how the name of a group of readers ends (大学生, 上班族, 新手妈妈, 宝爸, 学生党, 打工人, 小白 …)
_READERS = re.compile("[人族党生者们妈爸友控宝员户群客手白孩娃工姐哥辈长师众庭侣]$")
_SHORTER = re.compile(
    r"短一?些|短一?点|精简|简洁|太长|啰嗦|冗长|删减|压缩|少写|[一二三四五两\d]段(?:以内|之内|就好|就够)"
)
_LONGER = re.compile(r"长一?些|长一?点|详细|丰富|太短|多写点|展开|充实")
_TONES: tuple[tuple[Tone, re.Pattern[str]], ...] = (
    ("formal", re.compile(r"正式|专业|严谨|书面|客观|克制")),
    ("colloquial", re.compile(r"口语|接地气|随意|聊天|大白话|像朋友|亲切")),
    ("lively", re.compile(r"活泼|生动|有趣|俏皮|有梗|轻松|有活力|热情")),
)
_EMOJI_NONE = re.compile(r"(?:不要用?|别用|不用|去掉|删掉)(?:任何)?(?:emoji|表情|表情符号)", re.I)
_EMOJI_FEWER = re.compile(
    r"(?:少用|少一?点|少些|减少)(?:一?点|一些)?(?:emoji|表情)"
    r"|(?:emoji|表情)(?:符号)?(?:太多|少一?[点些]|少些|减少)",
    re.I,
)
_EMOJI_MORE = re.compile(
    r"(?:多用|多加|多一?点|加点|多些|加一些)(?:emoji|表情)|(?:emoji|表情)(?:符号)?(?:多一?[点些]|太少)", re.I
)


def parse(text: str | None) -> Feedback:
    """Read `text` clause by clause into a `Feedback`."""
    feedback = Feedback()
    if not text or not text.strip():
        return feedback
    whole = text.strip()
    if _EMOJI_NONE.search(whole):
        feedback.emoji = "none"
    elif _EMOJI_FEWER.search(whole):
        feedback.emoji = "fewer"
    elif _EMOJI_MORE.search(whole):
        feedback.emoji = "more"
    target = ""  # what the previous clause was about: 标题 or 标签
    new_line = False
    for raw in _CLAUSE_ENDS.split(whole):
        if new_line:  # a new line is a new note (an editor's notes are joined by lines): nothing carries
            target = ""
        new_line = "\n" in raw
        clause = raw.strip().rstrip("，,。；;！!？?").strip()
        if not clause:
            continue
        clause = re.sub(r"^(?:请|麻烦|能不能|可以|希望|最好|然后|另外|还有|再|并且|而且|也)+", "", clause)
        named = "标签" if "#" in clause or "标签" in clause else "标题" if "标题" in clause else ""
        if not named and target and _CONTINUES.match(clause):  # "标题要有X，再加上Y": Y goes to the title
            clause = f"{target}{clause}"
        elif "#" in clause and "标签" not in clause:  # "加上#南京拍照" is about tags
            clause = f"标签{clause}"
        target = named or target
        understood = _clause(clause, feedback)
        if not understood and not _style(clause, feedback):
            feedback.unparsed.append(clause)
    feedback.avoid = list(dict.fromkeys(feedback.avoid))
    return feedback


# clauses with what ends them kept in front of the next (so a line break is seen): split before each clause
_CLAUSE_ENDS = re.compile(r"(?<=[，,。；;！!？?\n])(?=[^，,。；;！!？?\n])")
_CONTINUES = re.compile(r"^(?:加上|加入|加|带上|带|换成|改成|换几个|换一批|换些|也要|还要)")


def _style(clause: str, feedback: Feedback) -> bool:
    """Length, tone and emoji words in a clause; True when the clause said one of them."""
    found = False
    if re.search(r"emoji|表情", clause, re.I):
        found = True
    if _SHORTER.search(clause):
        feedback.length, found = "shorter", True
    elif _LONGER.search(clause) and not feedback.expand:
        feedback.length, found = "longer", True
    for tone, pattern in _TONES:
        if pattern.search(clause):
            feedback.tone, found = tone, True
            break
    return found


def _clause(clause: str, feedback: Feedback) -> bool:
    if re.search(r"emoji|表情", clause, re.I):
        return False  # read as a whole by `parse`
    for pattern, kind in _RULES:
        match = pattern.search(clause)
        if not match:
            continue
        value = (match.groupdict().get("x") or "").strip(_QUOTES + " ")
        if kind == "title_set" and value:
            feedback.title_set = value[:20]
        elif kind == "title_add" and value:
            feedback.title_add.extend(_items(value))
        elif kind == "tags_set":
            if re.match(r"^更|的$|^(?:精准|具体|相关|合适)", value):  # "换成更精准的": other tags
                feedback.tags_refresh = True
            else:
                feedback.tags_set.extend(i.lstrip("#") for i in _items(value))
        elif kind == "tags_add":
            feedback.tags_add.extend(i.lstrip("#") for i in _items(value))
        elif kind == "tags_refresh":
            feedback.tags_refresh = True
        elif kind == "tags_remove":
            feedback.tags_remove.extend(_items(value))
            feedback.tags_refresh = True
        elif kind == "closing_refresh":
            feedback.closing_refresh = True
        elif kind == "title_refresh":
            feedback.title_refresh = True
        elif kind == "avoid":
            items = [i for i in _items(re.sub(r"^(?:正文|文中|标题|标签)(?:里|中)?的?", "", value)) if i]
            if not items:
                continue
            feedback.avoid.extend(items)
        elif kind == "expand":
            items = _items(value)
            if not items or _SHORTER.search(value) or _LONGER.fullmatch(value):
                continue
            feedback.expand.extend(items)
        elif kind == "audience":
            if _TONES[0][1].search(value) or _TONES[1][1].search(value) or _TONES[2][1].search(value):
                continue  # "改成正式一点" is a tone, not an audience
            said = re.search(r"(?:改成|换成|改为)" + re.escape(value), clause)
            if said and not re.match(r"(?:面向|写给|针对|给)", value) and not _READERS.search(value):
                continue  # "换成秋天露营" names another subject; "换成大学生" a reader
            feedback.audience = re.sub(r"^(?:面向|写给|针对|给)", "", value).strip("的")
        return True
    return False


# --- checking a redo ------------------------------------------------------------------------------------
def emoji_count(text: str) -> int:
    return len(_EMOJI.findall(text))


def unmet(feedback: Feedback, draft: Mapping[str, Any], previous: Mapping[str, Any] | None) -> list[str]:
    """The operations `draft` does not show, in Chinese (empty when everything asked for is there)."""
    title, body = str(draft.get("title") or ""), str(draft.get("body") or "")
    tags = [str(t) for t in draft.get("tags") or []]
    everything = " ".join([title, body, *tags])
    misses = [f"标题里没有加上「{x}」" for x in feedback.title_add if x not in title]
    if feedback.title_set and feedback.title_set not in title:
        misses.append(f"标题没有改成「{feedback.title_set}」")
    misses += [f"仍然提到了「{x}」" for x in feedback.avoid if x in everything]
    misses += [f"正文没有写到「{x}」" for x in feedback.expand if x not in body]
    misses += [f"标签里没有「{x}」" for x in [*feedback.tags_set, *feedback.tags_add] if x not in tags]
    misses += [f"标签里还有「{x}」" for x in feedback.tags_remove if x in tags]
    if feedback.audience and feedback.audience not in everything:
        misses.append(f"没有改成面向「{feedback.audience}」")
    if previous:
        before = str(previous.get("body") or "")
        if feedback.length == "shorter" and len(body) >= len(before):
            misses.append("正文没有变短")
        if feedback.length == "longer" and len(body) <= len(before):
            misses.append("正文没有变长")
        emoji_before = emoji_count(before + str(previous.get("title") or ""))
        emoji_now = emoji_count(body + title)
        if feedback.emoji == "more" and emoji_now <= emoji_before:
            misses.append("emoji 没有变多")
        if feedback.emoji == "fewer" and emoji_now >= max(1, emoji_before):
            misses.append("emoji 没有变少")
        if feedback.tags_refresh and set(tags) == {str(t) for t in previous.get("tags") or []}:
            misses.append("标签没有更换")
        if feedback.title_refresh and title == str(previous.get("title") or ""):
            misses.append("标题没有更换")
    if feedback.emoji == "none" and emoji_count(body + title):
        misses.append("仍然有 emoji")
    return misses
