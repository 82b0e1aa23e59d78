"""What a request itself tells the writer, besides its subject: the post's first material.

A creator who asks "上个月开始用A醇，第一周爆皮泛红，后来慢慢建立耐受了。写篇经验帖给敏感肌新手" has told
the post's story; one who asks for "雨天在家陪4岁娃玩的游戏：纸箱城堡、影子剧场、冰块寻宝" has named its
items; "不自驾，全程坐大巴+打车，预算人均800以内" are the terms the post is written to. The offline writer
says them before anything the corpus adds — a corpus that knows nothing of 纸箱城堡 must not replace them
with general advice.

- `told`: clauses of what happened to the writer (上周第一次…, 我们用了十天, 差点把帐篷点着了).
- `terms`: what the post must keep to (预算…以内, 不自驾, 全程坐大巴, 尽量少走路).
- `items`: the things the request lists (A、B、C / A、B和C / A + B + C), without the verb that leads them.
- `steps`: what the request says to do, in its order (先查潮汐表, 带小铲子、盐和网兜; 上午…中午…; A → B).
- `wants`: the things to do it names on their own (坐一趟米轨小火车, 再逛逛紫陶街, 想傍晚上去看日落): a trip's
  days have them before any general doing.

Clauses that frame or ask (写篇笔记, 帮我…, 怎么处理？, 给新手), name only the reader, or are the subject
itself are none of these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from tools.bilingual import has_english, localize, named_places
from tools.entities import places
from tools.offline.dishes import dish_note, dishes_in
from tools.offline.itinerary import TIME_OF, day_spans, visit
from tools.offline.scenes import COOKED
from tools.offline.text import POST_PARTS
from tools.offline.topic import SPACE_BREAK
from tools.segmenter import posseg

# a clause and the mark that ended it (a question is no detail)
_CLAUSES = re.compile(  # (a colon between digits is a clock time: 5:30 起床)
    r"(?P<text>(?:[^，,。！!？?；;：:\n…~～\U0001f000-\U0001faff\u2600-\u27bf]|(?<=\d):(?=\d))+)"
    r"(?P<end>[，,。！!？?；;：:\n…~～\U0001f000-\U0001faff\u2600-\u27bf]*)"
)
# a clause that asks for the post or says how to write it: 写篇笔记, 帮我整理, 别写成广告, 重点讲讲…
_FRAME = re.compile(
    r"写|帮我|帮忙|麻烦|笔记|帖子|文案|小红书|分享(?:一下|下)?|记录(?:一下|下)|记(?:一下|下来)|整理|讲讲|说说|聊聊"
    r"|介绍一下|安利|(?:加|补|提)(?:上|一)句"
    r"|推荐|列出来|配图|语气|风格|口吻|参考|收藏|post|Post"
    # what the post must leave out is an instruction, not something to say (不要提具体车次和城市)
    r"|(?:不要|别|不|不用|避免)(?:提|说|涉及|出现|透露)"
    # …and how the post is built or how it should sound (结尾给同龄人一点建议, 字数别超过800, 不要贩卖焦虑,
    # 控制在300字以内)
    rf"|^(?:{POST_PARTS}|字数|篇幅)|贩卖焦虑|鸡汤|煽情|说教|广告|软文"
    r"|^控制在|[\d一二三四五六七八九十百千]+字(?:以内|以下|左右|上下|之内)"
)
_ASKS = re.compile(
    r"怎么|如何|怎样|什么|哪些|哪个|哪里|多少|多久|(?<![十百千万])几[点个天种]|吗$|呢$|么$|能不能|要不要|值不值"
)
# (…or only who the reader is: 第一次去 says the reader is new, nothing the writer did)
# A time on the clock (6:30, 19：00): a row of a timetable opens on one
CLOCK = r"\d{1,2}[:：]\d{2}"
_READER = re.compile(  # (not a count given: 给两个选项 is a way, not a reader)
    r"^(?:写给|送给|分享给|给(?![一二两三四五六七八九十几\d]+[个只件张样次])|面向|针对|适合)"
    r"|^(?:第一次|首次|头一回)(?:去|来|到|玩)?$"
    # (…or only the reader, as an English "For busy office workers" is read: 上班族)
    r"|^(?:忙碌的|忙的)?(?:上班族|打工人|学生党|大学生|新手|职场新人|宝妈|新手爸妈|家长|新手妈妈)$"
)
# how long a thing has been had, and nothing else (用了半年的扫地机器人, 养了一年的柯尔鸭)
_HAD_FOR = re.compile(
    r"[用养穿戴住开骑练学]了(?:[一二两三四五六七八九十半\d]+|几)个?(?:天|周|星期|月|年|季)多?的?[^，,。]{1,10}"
)
# what happened: the writer, a time gone by, a turn of events, a done deed
_TOLD = re.compile(
    r"我|上周|上个月|上次|去年|前年|前段时间|最近|这次|那次|当时|后来|终于|居然|竟然|结果|差点|第一次"
    r"|刚(?:从|去|回|到|结束)"
    r"|第[一二三四五六七八九十\d]+(?:天|周|个月|次|年)|前[一二三两几]天|[了过](?=[^，。]{0,12}$)"
    r"|(?<=[带教养练攒存省])出(?:来|了)(?=[^，。]{0,12}$)"  # (带出来十几个徒弟, 攒出了首付: done)
)
# what the post keeps to: a budget, a limit, a way of getting about, a wish
_TERMS = re.compile(
    r"预算|以内|以下|不超过|之内|人均|全程|尽量|不自驾|不开车|不想|不要|不用|只能|只有|只用|一共|总共"
)
# what to do, in order (先查潮汐表; 上午…, 中午…: a day's plan), and a list led by what to do with it
# (带小铲子、盐和网兜)
_STEP = re.compile(r"^(?:先|然后|最后|记得|提前|上午|中午|下午|傍晚|晚上|早上|Day\s?\d|第[一二三四五六七]天)")
_SPACED = re.compile(SPACE_BREAK)  # (a space parts clauses here as it does in topic.CLAUSE)
_ARROW = re.compile(r"\s*(?:→|->|➡️?)\s*")
_ARROW_ASIDE = re.compile(r"[（(](?P<steps>[^（）()]+?(?:→|->|➡)[^（）()]+)[）)]")
_LIST_STEP = re.compile(r"^(?:先|然后|最后|记得|提前|带上?(?!点|一点|些)|准备|备好|穿|选|买|查|看好)")
# English the reading in Chinese left as it was: no sentence of a post
# (not a name — KALLAX, CeraVe — nor a word Chinese posts use as it is: 拿到offer, 做了个vlog)
_ENGLISH = re.compile(
    r"(?<![A-Za-z])(?!(?:offer|vlog|plog|ootd|citywalk|brunch|latte|vibe)(?![a-z]))[a-z]{4,}"
    r"(?![a-z\u4e00-\u9fff])"  # (not a word glued to the Chinese it names: biangbiang面)
)
# (…not a plus between a letter or digit and a digit: N+1, 5+2 is a sum, no list)
# (和 inside a word is none: 温和洁面, 柔和的光)
_LIST_SEP = re.compile(
    r"、|(?<![温柔平缓暖随谦祥])和(?!风|谐|善|牛)|及|以及|还有|跟|\s*(?<![A-Za-z\d])[+＋]\s*|\s*[+＋]\s*(?!\d)"
)
# a verb that leads a list (带小铲子、盐和网兜 → 小铲子, 盐, 网兜)
_LEADS = re.compile(
    r"^(?:我?只?有|带上?(?!点|一点|些)|买|准备|备好|推荐|用的是|用了|用|选|(?:想|要)?(?:吃遍|尝遍|打卡)|(?:想|要)?吃|喝|穿|(?:主要|重点)?看了?|点了?|装下?|放|试了?|包括|比如|像|只?(?:留|剩)(?:下|了){0,2}"
    # (…or the span and the wish a trip's list of places opens with: 三天两晚想去八大关、栈桥和…)
    r"|(?:[一二两三四五六七八九十\d]+[天日](?:[一二两三四五六七八九十\d]+[晚夜])?)?(?:想|要|打算|准备)?去)"
)


# what a list's last item is followed by that says something of them all: their count (洁面、保湿乳、防晒三样)
# or a wish or a verdict on them (烧豆腐、草芽米线、汽锅鸡都想安排上)
_NEAR_ALL = re.compile(r"(?:附近|一带|周边|旁边)(?:都有|都是|也有)$")
_OF_ALL = re.compile(
    r"(?:[一二两三四五六七八九十\d]+[样件个种款道瓶家]|(?:都|也|全|全都)(?:想|要|得|很|是|必须|一定|可以|不错|好吃)"
    r"[\u4e00-\u9fff]{0,6})$"
)


# a thing to do the request names on its own (坐一趟米轨小火车, 想傍晚上去看日落), without the wish
_WANT = re.compile(
    r"^(?P<wish>(?:想|要|还想|再|顺便)?)(?:早上|上午|中午|下午|傍晚|晚上)?"
    r"(?:去|坐|逛|看|吃|爬|走|骑|拍|泡|登|徒步|体验|打卡|赏|乘|上去|上山)"
)


# what opens a stop of a listed plan and is no part of it (再留大半天逛南京博物院 → 逛南京博物院)
_STOP_LEAD = re.compile(r"^(?:再|然后|最后|还要?)?(?:留|空出)?(?:大|小)?半天|^(?:再|然后|最后)")
_TIMED_STOP = re.compile(
    r"^(?P<p>[\u4e00-\u9fff]{2,6}?)(?P<t>早上|上午|中午|下午|傍晚|晚上)(?P<rest>[\u4e00-\u9fff]{2,})$"
)
# what the plan should hold more of (多安排点喝茶、听川剧、逛公园): its doings
_ARRANGE = re.compile(r"^(?:多|再|尽量)?安排(?:点|些|一些|上)?")
# …or a place the trip must go to, named first (兵马俑一定要去, 鼓浪屿必去)
_MUST_GO = re.compile(
    r"^(?P<what>[\u4e00-\u9fff]{2,8}?)(?:是)?(?:一定要|必须|必|非|很想|特别想|想)去(?:一趟|一次|看看)?$"
    # (…or ridden: 日落跨海缆车必坐)
    r"|^(?P<ride>[\u4e00-\u9fff]{2,10}?)(?:是)?(?:一定要|必须|必)坐$"
)


# a list the post is asked to speak of, with the asking before or after it (…、…都要写, 写一下…、…)
_ASKED_TO = (
    r"(?:写|写上|写进去|写一下|提到|提一下|讲讲|说说|介绍|介绍一下|讲到|聊聊"
    # (…or to list, each apart: 证件、转换插头、常用药分门别类列出来)
    r"|(?:分门别类|分类|分开|一样样|逐个|挨个)?(?:列出来|列一下|列清楚|写清楚|列上|列))"
)
_TO_WRITE = re.compile(
    rf"(?P<lead>(?:要|得|想|请|再)?{_ASKED_TO})?(?P<items>[^，,。]{{2,}}?、[^，,。]{{2,}}?)"
    rf"(?(lead)|(?:都|也|全|全都)?(?:要|得|想)?{_ASKED_TO})"
)


# The kind of post a clause asks for, at its end (…的踩坑故事, …的经历, …日记)
_KIND_TAIL = re.compile(r"(?:故事|经历|心得|感受|日记|记录|攻略|笔记|分享|测评|清单|教程)$")


@dataclass
class Details:
    told: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    wants: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)  # what the post is asked to speak of (`asked_parts`)

    def said(self) -> str:
        """The writer's own situation as one sentence: what happened, then the terms (their order in the
        request kept within each); '' when it would be too short to read as a sentence (我们上个月骑了).
        A story told stage by stage (第一周天天睡到中午，第二周开始慌，现在第三周，每天…) is said a stage a
        line (第一周：天天睡到中午。), after what led to it."""
        parts = [*self.told, *self.terms]
        if sum(map(len, parts)) < 10:
            return ""
        starts = [i for i, t in enumerate(self.told) if _STAGE_TOLD.match(t)]
        if len(starts) < 2:
            return "，".join(parts) + "。"
        lines = ["，".join(self.told[: starts[0]]) + "。"] if starts[0] else []
        for i, end in zip(starts, [*starts[1:], len(self.told)], strict=True):
            stage = _STAGE_TOLD.match(self.told[i])
            assert stage is not None
            rest = [self.told[i][stage.end() :].lstrip("，, "), *self.told[i + 1 : end]]
            lines.append(f"{stage['stage']}：{'，'.join(r for r in rest if r)}。")
        lines += ["，".join(self.terms) + "。"] if self.terms else []
        return "\n".join(lines)


# the times of a day a told clause or a step may open on (早上…, 下午…)
_TIMES_OF_DAY = r"(?:清晨|早上|上午|中午|下午|傍晚|晚上|夜里)"
# a told clause that opens on a stage of the story (第一周, 现在第三周, Day2) — or a time of a day told
# (早上在店头街吃芋子饺，下午爬卧龙山…): its line in the story
_STAGE_TOLD = re.compile(
    r"^(?:现在|到了|到)?(?P<stage>第[一二三四五六七八九十\d]{1,3}(?:天|周|个月|次|年)|[Dd]ay\s?\d{1,2}"
    rf"|{_TIMES_OF_DAY}(?=\S{{2}}))"
)


# a clause that counts the things the next one lists (秘诀就三个, 其实就两样, 我的三步)
_COUNTS_NEXT = re.compile(r"(?:就|只有|一共|总共)?[两三四五六七八九十\d]+(?:个|样|招|步|点|件)$")


_WEEKDAY_ROW = re.compile(
    r"(?P<day>周[一二三四五六日天]|星期[一二三四五六日天])[：:\s]*(?P<what>[^，,。]{2,20}?[+＋、][^，,。]{2,20})"
)


def _items(clause: str, *, longer: bool = False) -> list[str]:
    """The things a clause lists (joined by 、 or +, the last by 和/及 too), each a short phrase; [] for a
    clause that lists questions (什么样的五花肉合适、梅干菜要泡多久) or what was done (拉坯、捏泥都体验了). A
    day's row of a week is one item, with its day (周一西装马甲+直筒裤 → 周一：西装马甲+直筒裤)."""
    if day := _WEEKDAY_ROW.fullmatch(clause):
        return [f"{day['day']}：{day['what']}"]
    if "、" not in clause and not re.search(r"(?<![A-Za-z\d])[+＋]|[+＋](?!\d)", clause):
        return _dishes_run(clause)
    parts = [p.strip() for p in _LIST_SEP.split(clause) if p.strip()]
    if parts and (lead := _LEADS.match(first := re.sub(r"^(?:我们?|主要|重点)+", "", parts[0]))):
        # (吃了海蛎煎+面线糊: no 了 of the 海蛎煎)
        parts[0] = re.sub(r"^了(?=\S{2})", "", first[lead.end() :])
        if re.search(r"[的是]", parts[0]):  # 我用了三个月的方法是分区洗、…: what was done, told
            return []
    if parts and _NEAR_ALL.search(parts[-1]):  # where the things are (玉林、太古里附近都有), not the things
        return []
    if parts:  # …nor what is said of them all, after the last (防晒三样, 汽锅鸡都想安排上)
        parts[-1] = _OF_ALL.sub("", parts[-1]) or parts[-1]
    # (…each a short phrase — or a longer one after a clause that counts them: 下铺挂个小帘子当“秘密基地”)
    if len(parts) < 2 or any(_size(p) > (16 if longer else 10) or _ASKS.search(p) for p in parts):
        return []
    # 拉坯、手绘杯子都体验了; 网速、插座、签证这些都踩过坑: what was done with them, told
    if re.search(r"[了过]$|(?:这些|这几[样个种]|都|也)[^，,。]{0,4}[了过]", parts[-1]):
        return []
    return list(dict.fromkeys(parts))


def _dishes_run(clause: str) -> list[str]:
    """Dishes named one after another with no mark between, the last after 和 (想吃遍热干面豆皮和鸭脖): each
    a dish the writer knows (`dish_note`), after what leads them."""
    lead = _LEADS.match(clause)
    rest = clause[lead.end() :] if lead else ""
    words = [w for w, _ in posseg(rest, hmm=False) if w not in "和跟与及还有"]
    whole = "".join(words) == re.sub(r"[和跟与及]|还有", "", rest)
    if len(words) >= 2 and whole and all(map(dish_note, words)):
        return list(dict.fromkeys(words))
    return []


def _wanted(wanted: str) -> list[str]:
    """A thing wanted, as the plan's doings: two joined by 和 are two (去洱海骑行和苍山 → 去洱海骑行, 去苍山
    看看)."""
    pair = re.fullmatch(r"(去[^和]{2,8})和([^和]{2,6})", wanted)
    return [pair[1], visit(pair[2])] if pair and places(pair[2]) else [wanted]


def _dishes_named(text: str) -> list[str]:
    """The dishes the writer knows (`dish_note`) that a request names, two or more, in its order (虾饺烧卖凤爪
    到底点哪些, …流沙包一般): what a post on eating them is about; [] for fewer."""
    dishes = dishes_in(text)
    return list(dishes) if len(dishes) >= 2 else []


def _size(text: str) -> int:
    """How long `text` reads, a word in Latin letters counted as one (biangbiang面 is two)."""
    return len(re.sub(r"[A-Za-z]+", "A", text))


def _names(clause: str, subject: str) -> bool:
    """Is the clause the subject with little more than who is new to it (新手第一次做戚风蛋糕总是塌 of
    戚风蛋糕总是塌)?"""
    bare = _NEW_TO_IT.sub("", _first(clause))
    return bool(subject) and _first(subject) in bare and len(bare) - len(_first(subject)) < 4


# who is new to it, said before what they do (新手第一次给猫剪指甲): no part of what happened
_NEW_TO_IT = re.compile(r"^(?:新手|小白|萌新|新人)")


def _first(text: str) -> str:
    """`text` without 第一次, which a subject may have dropped (狗狗坐飞机托运 of 狗狗第一次坐飞机托运…)."""
    return text.replace("第一次", "")


def _says_more(clause: str) -> bool:
    """Does the clause tell, ask, frame, set terms or steps, or name the reader — more than a thing's name?"""
    return any(p.search(clause) for p in (_FRAME, _ASKS, _TOLD, _TERMS, _STEP)) or bool(_READER.match(clause))


def _bare_thing(clause: str) -> bool:
    """Is the clause a thing's name and nothing more (甑糕, 登山杖, T形帛画): short, with no word of telling,
    asking, framing or terms?"""
    if not 2 <= _size(clause) <= 8 or re.search(r"[了过着的是吗呢]", clause):
        return False
    if re.match(CLOCK, clause):  # (a row of the clock is a step: 8:30断桥)
        return False
    if _NAME_OR_AGE.search(clause):  # (a pet's name or age is no thing of a list: 叫栗子, 两个月大)
        return False
    if _says_more(clause):
        return False
    # (jieba's noun flags miss rare names — 粿条 is yg + q —, so: no adverb, particle, preposition,
    # conjunction or pronoun in it, a verb only before the noun it ends in (蛋烘糕), and more than a count:
    # 一壶四杯)
    tagged = posseg(clause)
    flags = [flag for _, flag in tagged]
    if re.search(r"[不没别想要]", clause) or any(f[:1] in "dupcr" or f in ("y", "e") for f in flags):
        return False
    # (nor where and how many there are, or what each is like: 家里两只猫, 一只胖一只瘦)
    if flags[0] == "s" or any(f == "m" and g == "a" for f, g in pairwise(flags)):
        return False
    verbs = [w for w, f in tagged if f in ("v", "vd", "vg", "vi", "vq")]
    # (a verb of one character inside a name, 烘 of 蛋烘糕 — not a doing of two, 挑食)
    if verbs and ((flags[-1][:1] != "n" and flags[-1] != "zg") or len(verbs) > 1 or len(verbs[0]) > 1):
        return False
    return not all(f[:1] in ("m", "q", "t") for f in flags)


_NAME_OR_AGE = re.compile(
    r"^(?:叫|名叫|取名|大名|小名)|^(?:[\d一二两三四五六七八九十半]+)(?:个月|岁|周|天)(?:大|半)?$"
)
_ONE_MORE = re.compile(r"还有(?:一[个款家瓶支件种罐])?(?P<thing>[^，,。]{2,8}?)(?:的|家的)?")
_OF_THESE = re.compile(r"^[^，,。]{0,6}?(?:这些|这几[样个种件]|等等?)")


def _listed_apart(clauses: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The clauses with a list written as clauses of their own (连吃了五天 肉丸胡辣汤 甑糕 油茶麻花) joined
    by 、 into one, with the clause that leads it when it names the first thing (主要看马王堆 辛追夫人 →
    主要看马王堆、辛追夫人)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(clauses):
        parts, joint = _parts_after(clauses, i)
        if parts:  # 分成四块：项目现状 账号和权限 …: the parts it names
            out += [clauses[i], (joint.join(parts), clauses[i + len(parts)][1])]
            i += len(parts) + 1
            continue
        if counted := _counted_after(clauses, i):  # 试了三款粉底液 雅诗兰黛DW 阿玛尼权力 还有毛戈平
            names, used = counted
            out += [clauses[i], ("、".join(names), clauses[i + used][1])]
            i += used + 1
            continue
        if len(run := _named_run(clauses, i)) >= 3:  # 信息采集 户籍房产核验 网上报名 …: stages named
            out.append(("、".join(run), clauses[i + len(run) - 1][1]))
            i += len(run)
            continue
        j = i
        while j < len(clauses) and _bare_thing(clauses[j][0]) and clauses[j][1] in ("，", ",", ""):
            j += 1
        run = [c for c, _ in clauses[i:j]]
        if j < len(clauses) and _bare_thing(clauses[j][0]):  # (the last one ends the sentence)
            run.append(clauses[j][0])
            j += 1
        elif run and j < len(clauses) and _OF_THESE.match(clauses[j][0]):
            run.append(clauses[j][0])  # (…or one more and what was done with them all: 签证这些都踩过坑)
            j += 1
        elif run and j < len(clauses) and (more := _ONE_MORE.fullmatch(clauses[j][0])):
            run.append(more["thing"])  # (…or one more, said last: 还有一个无印良品的)
            j += 1
        lead, lead_end = out[-1] if out else ("", "")
        # (not a clause that asks for the list: 装备清单要写：冲锋衣 抓绒 …)
        led = lead_end in ("，", ",") and not _FRAME.search(lead)
        # (…and names the first thing after its verb: not 吃了好多)
        bare = re.sub(r"^(?:我们?|主要|重点|还|都|就|也|一共)+", "", lead)
        verb = _LEADS.match(bare)
        led = led and verb is not None and _bare_thing(bare[verb.end() :])
        if len(run) >= 2 or (run and led):
            if led:
                lead = out.pop()[0]
            out.append(("、".join([lead, *run] if led else run), clauses[j - 1][1]))
            i = j
        else:
            out.append(clauses[i])
            i += 1
    return out


# a clause that says a thing is made of a count of parts, named after its colon (分成四块：, 包括三步：)
_IN_PARTS = re.compile(
    r"(?:分成|分为|包括|有|只用|只要|就|一共|总共)(?P<n>[一二两三四五六七八九十\d]+)"
    r"(?P<unit>块|部分|个部分|步|类|项|段|个阶段|个节点)$"
)
_NUMERALS = {c: i for i, c in enumerate("一二三四五六七八九十", 1)} | {"两": 2}


def _parts_after(clauses: list[tuple[str, str]], i: int) -> tuple[list[str], str]:
    """The parts a clause that counts them (分成四块：) names in the clauses after its colon, as many as it
    counts, each short and telling nothing, and what joins them as one clause — steps in their order (只用
    三步：洗脸 精华 防晒 → 洗脸 → 精华 → 防晒), other parts as a list; ([], '') when they are not all
    there."""
    text, end = clauses[i]
    counted = _IN_PARTS.search(text) if end[:1] in ("：", ":") else None
    if counted is None:
        return [], ""
    n = int(counted["n"]) if counted["n"].isdigit() else _NUMERALS.get(counted["n"], 0)
    parts = [c for c, _ in clauses[i + 1 : i + 1 + n]]
    fits = len(parts) == n >= 2 and all(
        2 <= _size(p) <= 12 and not any(x.search(p) for x in (_FRAME, _ASKS, _TOLD)) for p in parts
    )
    if not fits:
        return [], ""
    # (a part named as two things is one part: 账号和权限, said with 与 so no list splits it)
    return [p.replace("和", "与") for p in parts], " → " if counted["unit"] == "步" else "、"


# a clause that counts the things tried or bought (试了三款粉底液, 买了两台扫地机): their names follow it
_COUNTED = re.compile(
    r"(?:试了|买了|用了|入了|对比了|比较了|挑了|换了)(?:[这那])?(?P<n>[一二两三四五六七八九十\d])"
    r"(?:款|个|种|支|瓶|家|台|双|件|套)[\u4e00-\u9fff]{0,6}$"
)


def _counted_after(clauses: list[tuple[str, str]], i: int) -> tuple[list[str], int] | None:
    """The names of the things a clause counts (试了三款粉底液), in the clauses right after it — a space or
    a 还有 between two names parts them too —, as many as it counts, and how many clauses hold them."""
    counted = _COUNTED.search(clauses[i][0])
    if counted is None:
        return None
    n = int(counted["n"]) if counted["n"].isdigit() else _NUMERALS.get(counted["n"], 0)
    names: list[str] = []
    used = 0
    for text, _ in clauses[i + 1 : i + 1 + n]:
        if len(names) >= n or _FRAME.search(text) or _ASKS.search(text):
            break
        used += 1
        parts = [s for p in re.split(r"\s+|还有|以及", text) if (s := p.strip(" 和"))]
        if len(names) + len(parts) < n:  # (…or a 和 between two names: 科沃斯和石头)
            parts = [s for part in parts for s in re.split(r"和|、", part) if s]
        names += parts
    fits = len(names) == n >= 2 and all(
        2 <= _size(p) <= 12 and not any(x.search(p) for x in (_FRAME, _ASKS, _TOLD)) for p in names
    )
    return (names, used) if fits else None


def _named_run(clauses: list[tuple[str, str]], i: int) -> list[str]:
    """The clauses from `i` on that each name a thing or a stage in a few words and tell nothing (信息采集,
    户籍房产核验, 网上报名): written apart as a list is; a run of three or more is one."""
    run: list[str] = []
    for text, end in clauses[i:]:
        if not _named(text):
            break
        run.append(text)
        if end not in ("，", ",", ""):
            break
    return run


def _named(clause: str) -> bool:
    """Is the clause a short name of a thing or a stage (户籍房产核验), with no one, no count, no when and no
    word of telling, asking or framing in it?"""
    if not 3 <= _size(clause) <= 8 or re.search(r"[了过着的是吗呢我你他她它不没别想要]", clause):
        return False
    if _says_more(clause):
        return False
    flags = [flag for _, flag in posseg(clause)]
    return flags[-1][:1] in ("n", "v") and not any(f[:1] in "dupcrmqty" or f in ("e", "ad") for f in flags)


def _goes_on_telling(clause: str) -> bool:
    """Does a clause right after a told one go on with the story? Not a term, nor a step to do — except a
    step at its time of day, which a told day goes on with (这次去的老挝琅勃拉邦，五天，早上五点半起床
    看布施)."""
    return not _TERMS.search(clause) and (not _STEP.match(clause) or bool(TIME_OF.match(clause)))


def _opened_alone(details: Details, opened: str, subject: str) -> None:
    """A story's start that nothing told follows is told after all when the subject leaves out what
    happened (宝宝10个月第一次扶着沙发自己站起来了 of subject 宝宝10个月): the opening names only the
    subject — not a span of it (陪产假第一个月), which tells nothing."""
    left = opened.replace(subject, "", 1) if subject and subject in opened else ""
    if not details.told and len(left) >= 4 and "了" in left:
        details.told.append(opened)


def _in_topic(clause: str, topic: str) -> bool:
    """Is the clause the topic, or a part of it long enough to be said by it (孩子三岁 of
    孩子三岁挑食不吃青菜)?"""
    return clause == topic or (len(clause) >= 4 and clause in topic)


def _plain(request: str) -> str:
    """The request in Chinese, its clauses parted as `_CLAUSES` reads them: a space between Chinese words
    ends one, and so does a dash before what it lists (三步补妆法——吸油纸、散粉、定妆喷雾)."""
    text = _SPACED.sub("，", re.sub("[\ufe0f\u200d]", "", localize(request)))
    # (…and a space before a clock time: 6:30起床 7:00早餐 is a timetable's rows)
    return re.sub(rf"\s+(?={CLOCK})", "，", re.sub(r"——+", "：", text))


def _without_days(text: str) -> str:
    """The text without the days a plan sets out: they are the trip's days, not a story or a list
    (第一天城墙+回民街 第二天兵马俑, see `tools.offline.itinerary.asked_days`)."""
    for start, end in day_spans(text):
        text = text[:start] + "，" + text[end:]
    return text


def _stepped(details: Details, clause: str) -> str:
    """The clause without what it gives the plan, which goes to `details`: steps in brackets
    (添加顺序整理好了（高铁米粉→菜泥→果泥）), a timetable's row (6:30起床), doings to arrange more of
    (多安排点喝茶、听川剧) and stops listed with their doings (中山陵坐观光车上去、夫子庙晚上看灯); what is
    left is read on ("" for none)."""
    if aside := _ARROW_ASIDE.search(clause):
        details.steps += [s.strip() for s in _ARROW.split(aside["steps"]) if s.strip()]
        clause = (clause[: aside.start()] + clause[aside.end() :]).strip()
    # (6:30起床, 19:00下班去健身房: a timetable's row, not what happened — unless arrows chain the rows)
    row = re.match(rf"{CLOCK}\s*[\u4e00-\u9fff]", clause) and not _ARROW.search(clause)
    if row and "了" not in clause:
        details.steps.append(clause)
        return ""
    arranged = _ARRANGE.match(clause)
    doings = [d for d in re.split(r"[、和]", clause[arranged.end() :]) if len(d) >= 2] if arranged else []
    # (…or stops listed each with what is done there: 中山陵坐观光车上去、夫子庙晚上看灯、再留半天逛博物院)
    # (…its time of day said first, as a plan's line: 夫子庙晚上看灯 → 晚上去夫子庙看灯)
    stops = [_TIMED_STOP.sub(r"\g<t>去\g<p>\g<rest>", _STOP_LEAD.sub("", p)) for p in clause.split("、")]
    if len(stops) >= 2 and all(places(p) and len(p) <= 14 for p in stops):
        doings = stops
    if len(doings) < 2:
        return clause
    details.wants += [d for d in doings if d not in details.wants]
    return ""


def request_details(request: str, subject: str, topic: str = "") -> Details:
    """The request's own story, terms, items and steps (see the module docstring); `subject` is the topic
    the writer already says, so its clause is not said again — nor the clause that is the whole `topic`
    (新手学吉他的第一个月 of subject 学吉他: a topic, nothing that happened)."""
    details = Details()
    telling = False  # a clause right after a told one goes on telling (…，膝盖有点疼，后来…)
    # the clauses that set the scene of what is told next (带五岁女儿去看马王堆，她居然…; 停跑三周，每天泡沫轴
    # 放松，…，坚持了一个月)
    setting: list[str] = []
    opened = ""  # the subject's clause when it starts the story told
    untold: list[str] = []  # the clauses that set a scene no told clause followed
    # (a space between two Chinese characters ends a clause too: 荔波小七孔 上个月带爸妈去的)
    # (an emoji's variation selector or joiner, left by the emoji that ended a clause, is no text: 🏝️ 晕船)
    text = _without_days(_plain(request))
    clauses = [(m.group("text").strip(), m.group("end")) for m in _CLAUSES.finditer(text)]
    announced = False  # the clause before counts what this one lists (秘诀就三个：贴纸书、…)
    for clause, end in _listed_apart(clauses):
        counted, announced = announced, bool(_COUNTS_NEXT.search(clause))
        clause = _stepped(details, clause)
        if _ARROW.search(clause):  # 5:30 起床 → 晨跑 5km: steps in their order
            details.steps += [s for s in _ARROW.split(clause) if s.strip() and not _ENGLISH.search(s)]
            continue
        was_telling, telling = telling, False
        was_setting, setting = setting, []
        if to_write := _TO_WRITE.fullmatch(clause):  # 面线糊、土笋冻、四果汤都要写: the things, not the ask
            clause = to_write["items"]
        if len(clause) < 2 or _FRAME.search(clause) or _READER.match(clause) or _ENGLISH.search(clause):
            continue
        if "？" in end or "?" in end or _ASKS.search(clause):
            continue
        if subject and subject in clause and _HAD_FOR.fullmatch(clause):
            continue  # how long the subject has been had (用了半年的扫地机器人): the opening says it
        if items := _items(clause, longer=counted):
            if _LIST_STEP.match(clause):
                details.steps.append(clause)
            else:
                details.items += [i for i in items if i not in details.items]
        elif clause in subject or _names(clause, subject) or _in_topic(clause, topic):
            # the subject itself (两岁宝宝戒夜奶): the opening names it — unless it tells what happened and
            # the story goes on (我第一次自己包荠菜馄饨，失败了三次才成功): then it is the story's start
            if _TOLD.search(clause):
                telling, opened = True, clause
            continue
        elif _KIND_TAIL.search(clause) and (
            (subject and _first(subject) in _first(clause)) or not _TOLD.search(clause)
        ):
            continue  # …and the kind of post told of it (金毛第一次洗澡的踩坑故事, 狗狗第一次坐飞机…攻略), or
            # of a part of it, which tells nothing (租房第一次做饭，厨房必备清单)
        elif must := _MUST_GO.match(clause):  # 兵马俑一定要去: a stop of the trip's days, nothing told
            ride = must["ride"] or ""
            when = "傍晚" if re.search(r"日落|夕阳|晚霞", ride) else ""
            details.wants.append(f"{when}去坐{ride}" if ride else visit(must["what"]))
        elif _TOLD.search(clause) or (was_telling and _goes_on_telling(clause)):
            details.told += [opened] if opened and not details.told else []
            details.told += [*was_setting, clause]
            telling = True
        elif _TERMS.search(clause):
            details.terms.append(clause)
        elif _STEP.match(clause):
            details.steps.append(clause)
        else:
            setting = [*was_setting, clause]
            # (…a told visit to a doctor is no stop of a trip: 去医院说是髂胫束综合征)
            if (want := _WANT.match(clause)) and not re.search(r"医院|诊所|医生|宠物医院", clause):
                wanted = clause[want.end("wish") :]
                details.wants += _wanted(wanted)
            else:
                untold.append(clause)
    _opened_alone(details, opened, subject)
    _untold_story(details, untold)
    _record_told(details, text)
    # (an English request's story, which the reading leaves out, may still name where the trip went: "We saw
    # the Terracotta Warriors and walked the city wall" — places to go, beyond the one the topic names)
    if has_english(request):  # (`text` is the reading, its spaces made commas)
        details.wants += [visit(p) for p in named_places(request) if p not in text and p not in topic]
    _without_parts(details, asked_parts(request))
    if not details.items and not COOKED.search(text):  # (the dishes a post on eating out names, wherever)
        details.items = _dishes_named(text)
    if len(details.steps) < 2:  # one thing to do (再逛逛紫陶街) is part of a plan, not the post's steps —
        # a thing wanted at its time of day (想去鲁迅故里，中午吃茴香豆和臭豆腐)
        details.wants += [s for s in details.steps if _WANT.match(s)]
        details.steps = []
    return details


_RECORD = re.compile(r"记录|游记|日记|故事|经历|回忆")
_TIME_OF_DAY = re.compile(rf"^{_TIMES_OF_DAY}")


def _record_told(details: Details, text: str) -> None:
    """A record's times of day are what happened, not a plan's steps (晚上风大到帐篷一直响 of a 露营记录) —
    and so are those of a day whose other times are told (早上去黑龙庙看黄河，中午吃了碗饸饹面…), in order."""
    timed = details.steps and all(_TIME_OF_DAY.match(s) for s in details.steps)
    if timed and (_RECORD.search(text) or any(_TIME_OF_DAY.match(t) for t in details.told)):
        told = [*details.told, *details.steps]
        details.told, details.steps = sorted(told, key=lambda t: text.find(t) % (len(text) + 1)), []


def _untold_story(details: Details, untold: list[str]) -> None:
    """A story told with no 我 nor a time (从里斯本坐火车3小时到波尔图 就为了吃…三明治 一份14欧两个人都
    吃不完): what its clauses tell, with its figures, is still what happened — not what it asks on the way
    (顺便跟里斯本的比一比)."""
    untold = [c for c in untold if not re.match(r"顺便|再|还要|也要", c)]
    if not details.told and len(untold) >= 2 and any(re.search(r"\d", c) for c in untold):
        details.told = untold


def _without_parts(details: Details, parts: list[str]) -> None:
    """The parts the post is asked to speak of (分交通 住宿 路线三块写) are no things it lists — unless a
    dish (面线糊 土笋冻 四果汤都要写) — and nothing that happened."""
    details.items = [
        i for i in details.items if not any(p in i for p in parts) or (i in parts and dish_note(i))
    ]
    details.told = [t for t in details.told if t not in parts]
    details.parts = parts


# The parts the post is asked to be written in, or to speak of, one after another (分交通 住宿 路线三块写;
# 想分三部分写 准备期 最难的三晚 后来的作息; 讲讲补水点 厕所 还有冬天穿搭; 网速 孤独感 收入都要写): what each
# section is about — no things the post lists, and nothing said of them yet.
_PARTS_COUNT = r"(?:[一二两三四五六七八九十\d]+(?:块|部分|个部分|类|段|方面|个方面))"
# (not a doing begun with 分 or 按: 按时间分开喂, 分开装)
_PART_LEAD = re.compile(
    rf"^(?:我?想|要|请|帮我|最好)?(?:(?:重点|主要)?(?:分成?|分为|按)(?!开|别|享|钟|手|量|时|摩|照|压|揉|键){_PARTS_COUNT}?(?:来)?(?:写|讲|说)?[：:]?"
    r"|(?:重点|主要|还要|也|再)?(?:讲讲|说说|聊聊|写写|讲一讲|说一说|写一下|告诉大家|介绍一下|介绍|写清楚|讲清楚)"
    r"|(?:重点|主要)?(?:写|讲|说)(?![篇一个成完得好过了])(?=[\u4e00-\u9fff]{2}))"
)
_PART_TAIL = re.compile(
    rf"{_PARTS_COUNT}?(?:都|也|全)?(?:要|得|想)?(?:来)?(?:写|讲|说)(?:一下|进去|清楚|上|到)?$"
)
_PART_WORDS = re.compile(r"^(?:还有|以及|和|再|最后|然后)")
# where the parts are done, asked (写清楚哪里可以停下来拍照和补水): the doings are the parts
_WHERE_TO = re.compile(r"^(?:哪里|哪儿|在哪里?|哪些地方|什么地方)(?:可以|能)?(?:停下来|停一下|歇脚)?")
# a clause that is no part: a post asked for, a refusal, a manner, the writer's story
_NO_PART = re.compile(
    r"写篇|一篇|帮我写|笔记|帖子|不要|别|不用|顺便|语气|风格|口吻|给[^，]{0,8}看|我|了$|吧$"
)


def asked_parts(request: str) -> list[str]:
    """The parts the request asks the post to be written in or to speak of, in its order; [] when it
    names fewer than two."""
    text = _plain(request)
    marked = [(m.group("text").strip(), m.group("end")) for m in _CLAUSES.finditer(text)]
    clauses = [c for c, _ in marked if c]
    ends = [e for c, e in marked if c]
    for i, clause in enumerate(clauses):
        lead = _PART_LEAD.match(clause)
        first = _WHERE_TO.sub("", clause[lead.end() :]) if lead else ""  # (哪里可以停下来拍照和补水)
        if not lead or _NO_PART.search(first) or len(first) == 1:  # (讲真: no part)
            continue
        if _IN_PARTS.search(clause) and ends[i][:1] in ("：", ":"):
            continue  # (分成四块：项目现状 账号和权限 …: the items of a template, see `_parts_after`)
        # (parts counted may be asked as questions: 分三部分：踩的坑 怎么改的 下次准备清单)
        counted = re.search(_PARTS_COUNT, lead.group(0)) is not None
        parts = [first] if first else []
        for later in clauses[i + 1 :]:
            part = _PART_WORDS.sub("", later)
            tail = _PART_TAIL.search(part)
            part = part[: tail.start()] if tail and tail.start() >= 2 else part
            if not 2 <= len(part) <= 12 or _NO_PART.search(part) or (_ASKS.search(part) and not counted):
                break
            parts.append(part)
            if tail:
                break
        if len(parts) == 1:  # (…two named in one: 再写写蛋挞和波特酒)
            parts = [p for p in re.split(r"[和、跟与]", parts[0]) if p]
        parts = [p for p in parts if 2 <= len(p) <= 12 and (counted or not _ASKS.search(p))]
        if len(parts) >= 2:
            return list(dict.fromkeys(parts))
    for j, clause in enumerate(clauses):  # (…or said before what asks for them: 网速 孤独感 收入都要写)
        tail = _PART_TAIL.search(clause)
        if not tail or tail.start() < 2 or not re.search(r"都|也|全", clause[tail.start() :]):
            continue
        parts = [p for p in re.split(r"[和、跟与]", clause[: tail.start()]) if p]  # (高反和装备都要写)
        for earlier in reversed(clauses[:j] if len(parts) == 1 else []):
            if not 2 <= len(earlier) <= 8 or _NO_PART.search(earlier) or _TOLD.search(earlier):
                break
            parts.insert(0, _PART_WORDS.sub("", earlier))
        if len(parts) >= 2:
            return list(dict.fromkeys(parts))
    return []
