"""What a post is made of: the evidence's sentences as lines, each with its role, in its note's order.

A post reads as one experience when its list is one note's own sequence (its steps in their order, its
items as that author grouped them) and its advice is advice — not five notes' best-scoring sentences
under a heading that promises steps. So every line keeps its source and its place in it, and says what
it is:

- `step`: the source numbered it (第一，… / 1. … / 第一步… / 第3分钟：…) — a sequence to keep in order;
- `item`: a labelled or concrete point (早餐：… / 民宿一晚380元…);
- `tip`: advice to the reader (建议… / 记得… / 别… / 最好…);
- `outcome`: what it led to (坚持一个月，上妆终于不起皮了) — a closing line, not a point;
- `story`: the author's own narration with nothing a reader can use (来苏州第三次…) — told in a story,
  left out of a list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.offline import voice
from tools.offline.text import is_concrete, overlap, strip_emoji

_OPEN_END = re.compile(r"[，、：:；;（(“「《—～~]$|(?:和|与|及|或|但|而|的|了|是|在|把|被|就|还|也|都|到)$")
_NUMBERING = re.compile(
    r"^(?:第[一二三四五六七八九十\d]+(?:[天步点条]|(?=[，,、：:]))|[\d一二三四五六七八九十]+[.、）)]|首先|其次|最后)[：:，,、]?"
)
# A numbered part of a note: 第一，… / 1. … / 第二步保湿：… / 第3分钟：… / 首先…
_STEP = re.compile(
    r"^(?:(?P<step>第[一二三四五六七八九十\d]+(?:步|[，,、])|第[一二三四五六七八九十\d]+分钟[：:，,]|首先|其次|然后|最后)"
    r"|(?P<time>(?:早上|早晨|上午|中午|午饭后|下午|傍晚|晚上|夜里|第[一二三四五六七八九十\d]+(?:天|周|个月)|Day\s?\d))"
    r"|(?P<number>第[一二三四五六七八九十\d]+(?:点|条)|\d{1,2}\s*[.、)）]|[①-⑩])"
    r")"
)
_PAIRS = (("“", "”"), ("（", "）"), ("「", "」"), ("(", ")"))
_INTRO = re.compile(r"^[^：:]{0,14}(?:要点|几点|如下|总结|建议|经验|心得|分享|步骤|做法)[^：:]{0,4}[：:]")
_INLINE_NUMBER = re.compile(r"(?<=[：:，,；;\s])\d{1,2}[.、]\s*")
_ADDS_TO = re.compile(r"^(?:再|又)?(?:加上|配合上?|搭配上)")
_CONNECTIVE = re.compile(r"^(?:另外|此外|而且|还有|所以|因此|但是|不过|然后|同时|最后|其次|首先)[，,、]?")
_NARRATIVE = re.compile(r"^(?:我|我们|和|跟|去年|今年|以前|之前|上周|上个月|\d+月)|于是|开始了")
_META = re.compile(r"(?:总结出的经验|说下真实感受|分享(?:一下)?(?:准备过程|经验|心得)|如下|以下)$")
_SENTENCES = re.compile(r"[^。！？!?；;\n]+")
# A colon that opens a numbered list ends the sentence before it: 后来改成四步：1.结论… (the list's first part
# is a line of its own, not the end of the story that announced it)
_LIST_OPENS = re.compile(r"[：:](?=\s*(?:1|一|①)\s*[.、)）])")
_NEGATED = re.compile(r"不买|别买|不要|没必要|先不|不用|踩雷|后悔")
_LABELLED = re.compile(r"^[^，,。：:]{2,8}[：:]\S")
# A line that only asks: its question word at its end, with nothing after it (毕业后有什么规划)
_ASKS_ONLY = re.compile(r"(?:什么|怎么|怎样|哪些|哪个|哪里|为什么|多少|吗|呢|么)[^，,。\d]{0,3}$|[？?]$")
# A line that announces what a note goes on to say instead of saying it (a note's hook): "这三种裙子小个子
# 要谨慎", "终于摸索出显高公式", "做足准备后体验非常好", "总结的经验，新手照着做基本能成".
_TEASER = re.compile(
    r"这[几一两二三四五六七八九十\d]+[种个点条件款招步样类套]|终于(?:摸索|总结|找到|学会)|踩(?:过|了)(?:不少|很多|好多)坑"
    r"|(?:公式|秘诀|心法)$|(?:方法|顺序|细节)(?:很|非常|特别)重要$|体验(?:非常|特别|超级?)?(?:好|棒)$|分享给(?:大家|你们)|看(?:这|以下)几"
    r"|总结(?:出|了)?的(?:经验|方法)|照着做(?:基本|就|也)?能|(?:挑|选|列)(?:了)?几个最"
    r"|这(?:套|个)(?:方法|流程|做法|办法|步骤)"  # 这套方法在35度的户外也能撑到下午: the method follows
)
# Advice to the reader. A numbered step may advise too: it stays a step.
_TIP = re.compile(
    r"^(?:建议|记得|一定|千万|最好|注意|别|不要|尽量|提前|如果|要是|想要|新手|第一次)|建议|记得|一定要|千万|最好|注意|别[^人]|不要|避开"
)
# A line about the note itself (给上班族做个对比, 整理了这周的穿搭): no scene for a post
_ABOUT_NOTE = re.compile(r"对比|分享|总结|整理|推荐|参考|记录|合集|清单|攻略|供大家|给大家")
# The note presenting itself (整理了…，供大家参考 / 两种都玩了半年，给上班族做个对比): no point of a post
_FOR_READERS = re.compile(
    r"供大家参考|仅供参考|给大家(?:参考|分享)|分享给大家|整理了(?:这|一)|做(?:个|一个|一下)(?:对比|总结|记录|分享)"
)
# a line that ends on what the note goes on to do (梅雨季连续下了半个月，整理一下室内去处): its frame
_GOES_ON_TO = re.compile(r"(?:整理|总结|盘点|记录|汇总)一下[^，,。；;]{0,12}$")
_ALSO = re.compile(r"^(?:另外|此外|还有|再就是)[，,]?")  # what a note adds after its steps is advice too
# What the note's advice led to: 坚持两周后，泛红范围缩小了一半 / 现在早上只要5分钟 / 一年下来…稳定了很多
_OUTCOME = re.compile(
    r"^(?:这样|照这样|坚持|现在|如今|一年下来|半年下来|[一两三四五六七八九十\d]+(?:周|个月|天|年)(?:下来|后|之后))"
    r".*(?:了|多了|不少|一半|好转|稳定|[\d一二三四五六七八九十]+(?:分钟|斤|元|块))"
    # what it all came to (总花费不到200元, 一共花了80块): an outcome, not a tip
    r"|^(?:总花费|总共花了?|一共花了?|全部花了|整个改造花了)[^，。；]{0,6}?[\d一二三四五六七八九十两百千]+(?:元|块)"
)

# The author's situation, which a story tells and a list leaves out: 来苏州第三次 / 一个人来西安的第四天 /
# 和闺蜜去了7天云南 / 去年开始… / 周六下午走了一遍
# A line that opens on what to do or choose (首选…, 建议…, 先…, 别…): advice, not a situation
_ADVISES = re.compile(r"首选|建议|推荐|优先|尽量|一定要|记得|千万|别|不要|可以|先|选")
_SITUATION = re.compile(
    r"第[一二三四五六七八九十\d]+(?:次|天|年|座)|(?:去|来)了?[\d一二三四五六七八九十两]+天|这次|那次|一个人(?:来|去)"
    r"|^(?:和|跟|带)(?:闺蜜|朋友|爸妈|家人|老公|老婆|孩子|娃|同事)|^(?:去年|今年|最近|前段时间|以前|之前|上周|上个月|\d+月)"
    r"|走了一遍|^周[六日末]|(?:住|待|生活|工作)了[\d一二三四五六七八九十两半]+"
    # (…and the writer's own home as it was: 租房厨房台面只有1.2米长，以前…堆满; 租的房子只有40平，但我有…)
    r"|只有[\d.一二三四五六七八九十两]+(?:平|米|㎡|平米|个)(?:长|宽)?[，,]|以前[^，,。]{0,12}堆满|但我有"
)


# The turn of a story: it took time, at last, to one's surprise
_TURN = re.compile(r"才(?:肯|敢|会|愿意|开始|发现)|终于|总算|居然|竟然")


def as_line(text: str, limit: int = 60) -> str | None:
    """A sentence as one list line: the whole sentence, or its leading whole clauses; None when it would
    have to be cut mid-phrase, is only a heading ('总结出的经验'), or carries no usable information. A
    numbered part of a note may be short (4.需要的支持): its note's list says what it is."""
    text = strip_emoji(text).strip().rstrip("。；;，,！!")
    shortest = 4 if _NUMBERING.match(text) else 8
    if text.endswith(("…", "...")):  # an excerpt: keep its whole clauses only
        text = re.split(r"[，,；;]", text[:-1].rstrip("."))[0] if "，" in text else ""
    whole = text
    text = _NUMBERING.sub("", _INTRO.sub("", text).lstrip()).lstrip()
    text = _CONNECTIVE.sub("", _INLINE_NUMBER.sub("", text))
    if text != whole and text.startswith("是"):  # 其次是微喇叭裤 → 微喇叭裤, not 是微喇叭裤
        text = text[1:]
    if len(text) > limit:
        cut = max(text.rfind(mark, 0, limit) for mark in "，；,;")
        text = text[:cut] if cut >= 12 else ""
    if len(text) < shortest or _OPEN_END.search(text) or _META.search(text) or _TEASER.search(text):
        return None
    if _ADDS_TO.match(text):  # (加上艾宾浩斯复习…: what it is added to was said before, in its note)
        return None
    if _ASKS_ONLY.search(text):  # a question its note went on to answer (毕业后有什么规划): no point
        return None
    if any(text.count(a) != text.count(b) for a, b in _PAIRS):
        return None
    return text


def sequence_of(raw: str) -> str:
    """How the note numbered this part: 'step' (第一步, 首先, 第3分钟), 'time' (早上…, 第二天), 'number'
    (1. / 第一点) or ''."""
    match = _STEP.match(_INTRO.sub("", strip_emoji(raw).strip()).lstrip())
    return next((name for name, found in match.groupdict().items() if found), "") if match else ""


def role_of(raw: str, line: str) -> str:
    """What a line does in its note (see the module docstring); `raw` is the sentence before cleaning."""
    raw = strip_emoji(raw).strip()
    if sequence_of(raw):
        return "step"
    if _OUTCOME.search(line) and not _TIP.search(line):
        return "outcome"
    if _TIP.search(line) or _ALSO.match(raw):
        return "tip"
    if _LABELLED.match(line):
        return "item"
    if (_FOR_READERS.search(line) and not is_concrete(line)) or _GOES_ON_TO.search(line):
        return "story"  # 整理了这周的通勤穿搭，供大家参考
    if _SITUATION.search(line) or (_NARRATIVE.search(line) and not is_concrete(line)):
        return "story"
    if "我" in line and _TURN.search(line):  # 我家小三花用了一个月才肯让我摸: what happened, no advice
        return "story"
    return "item"


@dataclass(frozen=True)
class Line:
    text: str
    source: str  # the note it came from ('' when the evidence did not say)
    role: str
    sequence: str = ""  # for a step: how its note numbered it (`sequence_of`)


@dataclass
class Material:
    """The lines of a post's evidence, on topic, each once, in evidence order."""

    lines: list[Line] = field(default_factory=list)

    @property
    def lead(self) -> str:
        """The note the post follows: the one the evidence put first (research ranks the note most about
        the subject first), when it gives three lines or more — a note that gave its best two is one
        source among others."""
        sources = [ln.source for ln in self.lines if ln.source]
        first = sources[0] if sources else ""
        return first if sources.count(first) >= 3 else ""

    def scene(self) -> str:
        """The lead note's opening when it sets the scene a reader knows (干皮一到秋冬就起皮，粉底也挂不住):
        the post's first words. Not the author's own story (我…), nor a fact with numbers (a point)."""
        first = next((ln for ln in self.lines if ln.source == self.lead and self.lead), None)
        if not first or first.role not in ("item", "story") or is_concrete(first.text):
            return ""
        own = "我" in first.text or _SITUATION.search(first.text) or _ABOUT_NOTE.search(first.text)
        # (…nor advice, which is a point: 首选高腰直筒款，… is no situation a reader knows; nor a labelled
        # line, a part of the note's list: 症状：打喷嚏、流鼻涕…)
        plain = not _ADVISES.match(first.text) and not is_labelled(first.text)
        return "" if own or not plain or len(first.text) > 30 else first.text

    def of(self, *roles: str, lead: bool | None = None) -> list[Line]:
        """Lines of these roles — only the lead note's (`lead=True`), only the others' (`False`), or all."""
        return [
            ln
            for ln in self.lines
            if ln.role in roles and (lead is None or (ln.source == self.lead and bool(self.lead)) == lead)
        ]


# advice not to get a thing (可以先不买：自动喂食器…): no line of a post about that thing
_NOT_TO_GET = re.compile(r"先不买|不用买|别买|不要买|没必要买|不必买|可以不买|不建议买|不推荐买")


def _turns_down(line: str, specific: list[str]) -> bool:
    """Does the line advise against getting what the post is about?"""
    refused = _NOT_TO_GET.search(line)
    return refused is not None and any(w in line[refused.end() :] for w in specific if len(w) >= 2)


def gather(
    facts: list[dict[str, object]],
    avoid: list[str],
    specific: list[str],
    theme: list[str],
    asked: frozenset[str] = frozenset(),
    *,
    head: str = "",
    follows: tuple[str, ...] = (),
) -> Material:
    """The evidence facts as lines with their roles. A note on the topic still says things about other
    matters (a trip note's 老人作息 line in a post on getting up early): when enough lines name the subject
    (`specific`) or its theme, the rest are left out.

    A post asking for an activity (`asked`: `voice.activities` of the request — 看银杏, 露营) is not about
    another one: a note of the right place titled on another activity (营地推荐｜杭州周边3个宝藏营地) gives
    it no line but one naming an asked activity, and any other note no line about another activity only
    (三个营地都可以租帐篷). A note titled on an asked activity keeps its lines (a stargazing note's tent).

    A subject that is a thing had at an activity (`head`: 咖啡 of 露营咖啡) is that thing: a note follows
    (its lines all stay) only when its title names it, and the other lines must name it too. A post on
    doing something at a place (三亚学冲浪) follows a note only when its title names one of `follows` (the
    doing, its theme's words): a trip's budget note of the place is no lead of it."""
    lines: list[Line] = []
    titles: dict[str, str] = {}
    for fact in facts:  # a fact may hold several sentences: each is a candidate line
        source = str(fact.get("sourceId") or "")
        titles[source] = title = str(fact.get("sourceTitle") or "")
        on_asked = bool(asked & voice.activities(title))
        elsewhere = not on_asked and voice.other_activity(title, asked)
        for raw in _SENTENCES.findall(_LIST_OPENS.sub("。", str(fact.get("text") or ""))):
            if not (line := as_line(raw)) or any(x in line for x in avoid) or _turns_down(line, specific):
                continue
            if not on_asked and (
                voice.other_activity(line, asked) or (elsewhere and not asked & voice.activities(line))
            ):
                continue
            lines.append(Line(line, source, role_of(raw, line), sequence_of(raw)))
    unique: dict[str, Line] = {}
    for ln in lines:
        unique.setdefault(ln.text, ln)
    lines = list(unique.values())
    lead = Material(lines).lead
    if head and head not in titles.get(lead, ""):  # (a camping note's lines are not a camp coffee's)
        lead, specific, theme = "", [head], []
    elif follows and not any(w in titles.get(lead, "") for w in follows):
        lead = ""
    # (a note titled on the place alone keeps no line but one naming the subject: three 三亚 budget lines)
    on_title = list(follows) or [*specific, *theme]
    # the lead note is on the subject as a whole: all its lines stay; the others' must name it
    named = [ln for ln in lines if (lead and ln.source == lead) or overlap(specific, ln.text)]
    themed = [ln for ln in lines if ln not in named and overlap(theme, ln.text)]
    if len(named) >= 3:
        lines = named
    elif len(named) + len(themed) >= 3:
        lines = [ln for ln in lines if ln in named or ln in themed]
    else:  # few lines: a note whose title names neither the subject nor its theme is about something else
        # (an early riser's CPA diary, the nearest note a thin corpus has for a night on a sleeper train)
        lines = [
            ln
            for ln in lines
            if ln in named
            or ln in themed
            or not (title := titles.get(ln.source, ""))
            or overlap(on_title, title)
        ]
    return Material(lines)


def is_list_item(line: str) -> bool:
    """An enumeration worth a list line of its own in a list post (帐篷、睡袋、防潮垫), not a refusal."""
    return line.count("、") >= 2 and not _NEGATED.search(line)


def is_labelled(line: str) -> bool:
    return bool(_LABELLED.match(line))
