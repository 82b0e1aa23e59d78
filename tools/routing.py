"""Routing a request: a full post, images only, a question to answer, or a time query.

One rule table, shared by the rule fallback (`agents.intent.rule_intent`) and the offline model's intent
composer (`tools.offline.briefing.compose_intent`), so the two can never disagree. The word lists live in
`data/routing/markers.json`; the labelled set they are measured on is `data/routing/requests.jsonl`.

The order of `route` is the routing policy (issue 12):

1. A request to make content — write / share / recommend / review / list / plan (笔记, 攻略, 清单, 分享,
   心得, 测评 …) — is a full post, even when it holds 怎么 / 什么 / 时间 / 几点. A weak marker (推荐, 经验,
   攻略 …) does not count when the request ends as a question put to the studio ("有什么推荐的防晒吗？"),
   and an artifact word that is the subject of a question ("笔记被限流了怎么办？") is no request at all.
2. An image request (seed 004 §2, `tools.image_rules`) is images only.
3. A web-search question (seed 004 §3) and then a current-time question (现在几点, 今天几号, 星期几,
   时间戳) — the time route is only for the clock and the calendar.
4. A question that wants advice or a fact for the asker ("上班族颈椎痛怎么办？") is answered directly.
5. Anything else — a bare topic, "如何挑选跑鞋" phrased as a title — is a full post.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from tools.image_rules import C as _C
from tools.image_rules import Hit, Rule, first_hit, image_hit, rules

RouteIntent = Literal["full_post", "image_only", "question", "time_query"]
MARKERS = Path(__file__).resolve().parent.parent / "data" / "routing" / "markers.json"


# --- web search (seed 004 §3) ---------------------------------------------------------------------
WEB_SEARCH = (
    *rules(
        ("search.keyword", r"搜索|搜一下|搜一搜"),
        ("search.day_news", rf"[今明昨][天日]{_C}{{0,6}}?(?:新闻|天气)"),
        ("search.today_events", r"今天发生了(?:什么|啥)"),
        ("search.latest_news", rf"(?:最新|最近){_C}{{0,8}}?(?:新闻|资讯)"),
        ("search.realtime", rf"实时{_C}{{0,6}}?(?:信息|数据)"),
        ("search.trending", r"热点|头条|热搜"),
        ("search.online", r"(?:联网|上网)[搜查]"),
        ("search.current_price", rf"现在{_C}{{0,8}}?(?:价格|天气|汇率)"),
        ("search.dated_event", rf"\d{{4}}\s*年\s*\d{{1,2}}\s*月{_C}{{0,20}}?(?:事件|发生|大事|新闻)"),
    ),
    *rules(("search.english", r"\b(?:search|latest)\b"), flags=re.IGNORECASE),
)


def web_search_hit(text: str) -> Hit | None:
    return first_hit(WEB_SEARCH, text)


# --- time (seed 004 §7.1): the clock and the calendar, now --------------------------------------------
_NOW = r"(?:今天|今日|明天|昨天|后天|今儿(?:个)?|现在|当前|此刻|这会儿)"
_CALENDAR = r"(?:农历|阴历|公历|阳历)"
# the time is the whole ask: its clause ends right after it
_ASKED = r"(?=[了啦呀啊吗呢来着钟]*(?:\s|$|[，,。？?！!~～]))"
TIME = (
    *rules(
        ("time.clock",
         rf"现在(?:到底|究竟)?(?:是)?几点|几点(?:了|啦)|几点钟了|{_NOW}(?:是)?(?:几|多少)点(?:几分)?{_ASKED}|{_NOW}(?:是)?几时几分"
         rf"|现在(?:的)?(?:具体|准确|确切)?时间|当前时间|北京时间(?:是)?(?:几点|多少)|(?:现在|当前)的?北京时间|^\s*(?:现在)?北京时间[？?]*\s*$"
         rf"|^\s*(?:帮我|给我)?报(?:个|一下)?(?:现在的?|当前的?)?(?:北京)?时|(?:帮忙|帮我)?(?:看|查)(?:一)?下(?:现在的?)?时间{_ASKED}"
         rf"|现在是?(?:上午|下午|白天|晚上)还是(?:上午|下午|白天|晚上){_ASKED}"),
        ("time.date",
         rf"{_NOW}(?:的)?{_CALENDAR}?(?:是)?(?:几月)?几号|{_NOW}(?:的)?{_CALENDAR}?日期|几号了"
         rf"|{_NOW}(?:的)?{_CALENDAR}?(?:是)?几月几[日号]|{_NOW}(?:是)?(?:农历|阴历)(?:几月)?(?:初|十|廿)?几"
         rf"|{_NOW}(?:是)?(?:的)?{_CALENDAR}?(?:什么|哪天)?日期{_ASKED}|{_NOW}(?:是)?{_CALENDAR}?多少号"
         rf"|现在是?几月份?{_ASKED}|(?:现在|今年)是?(?:哪|几)一?年{_ASKED}"
         rf"|{_NOW}(?:的|是)?{_CALENDAR}(?:是)?(?:多少|哪天|几[号月])"
         rf"|(?:今天|这周|本周)是?(?:一年中的|今年的|\d{{4}}年的?)?第几(?:天|周)|今年是?(?:农历|阴历)?(?:什么|哪)年{_ASKED}"),
        ("time.weekday",
         rf"{_NOW}(?:是)?(?:星期|周|礼拜)几|^\s*(?:星期|周|礼拜)几(?:了)?[呀啊？?，,\s]*(?:今天|今儿)?[呀啊？?]*\s*$"
         rf"|今天是不是(?:周|星期|礼拜)[一二三四五六日天末]|今天是(?:周|星期|礼拜)[一二三四五六日天末]吗"),
        # how long until a day (离国庆还有多少天, 距离春节还有几天, 还有几天到元旦)
        ("time.countdown",
         r"(?:离|距离?)[^，,。？?！!\s]{1,10}?还(?:有|剩)(?:多少|几)天|还有(?:多少|几)天(?:就)?(?:到|过|放)[^，,。？?！!\s]{1,6}"
         r"[？?]*\s*$"),
        ("time.timestamp", r"时间戳"),
        ("time.day", r"今天是什么日子"),
    ),
    *rules(
        ("time.english",
         r"\bwhat\s+time\b(?!\s+(?:should|to|do|does|did|would|is\s+(?:best|good)))"
         r"|\bwhat(?:'s|\s+is)\s+the\s+(?:time|date|day\s+today)\b|\bwhat\s+day\s+is\s+(?:it|today)\b"
         r"|\bwhat\s+(?:year|month|day\s+of\s+the\s+week)\s+is\s+(?:it|today)\b|\btoday\s+is\s+which\s+day\b"
         r"|\b(?:current|today's)\s+(?:time|date)\b|\bdate\s+today\b|\bday\s+of\s+the\s+week\b.{0,12}\btoday\b"
         r"|\btell\s+me\s+the\s+time\b|\bgot\s+the\s+time\b|\bhow\s+late\s+is\s+it\b"
         r"|^\W*(?:the\s+)?time(?:\s+now)?(?:\s+(?:please|pls|plz))?\W*$"
         r"|\bis\s+(?:it|today)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+weekend)\b"
         r"|\btimestamp\b|\b(?:unix|epoch)\s+time\b"
         r"|\bhow\s+many\s+days\s+(?:until|till|to|left\s+(?:until|till|before))\b"),
        flags=re.IGNORECASE,
    ),
)


def time_hit(text: str) -> Hit | None:
    return first_hit(TIME, text)


# --- content asks and questions (data/routing/markers.json) -------------------------------------------
@dataclass(frozen=True)
class Markers:
    strong: re.Pattern[str]
    weak: re.Pattern[str]
    verbs: re.Pattern[str]
    english: re.Pattern[str]
    question: re.Pattern[str]
    question_english: re.Pattern[str]
    subject_after: str


@cache
def markers() -> Markers:
    raw = json.loads(MARKERS.read_text(encoding="utf-8"))

    def alt(key: str) -> str:
        return "|".join(sorted(raw[key], key=len, reverse=True))

    return Markers(
        strong=re.compile(alt("post_strong"), re.IGNORECASE),
        weak=re.compile(alt("post_weak")),
        verbs=re.compile(alt("post_verbs")),
        english=re.compile(rf"\b(?:{alt('post_english')})\b", re.IGNORECASE),
        # (…or a 吗 that ends a clause the message goes on after: 真的有用吗 我下个月去)
        question=re.compile(
            rf"[?？]|(?:{alt('question_words')})|[吗呢么嘛][\s!！~～。]*$"
            r"|(?<=[\u4e00-\u9fff]{2})吗(?=[\s，,。！!~～])"
        ),
        question_english=re.compile(rf"^\s*(?:{alt('question_english')})\b", re.IGNORECASE),
        subject_after=alt("subject_after_noun"),
    )


# "Could you put together a note on …?" asks for something to be made, however it is punctuated
_POLITE_ASK = re.compile(
    r"^\s*(?:could|can|would|will)\s+you\s+(?:please\s+)?"
    r"(?:write|put\s+together|make|create|draft|compose|prepare|turn|give\s+me|help\s+me\s+(?:write|make))\b",
    re.IGNORECASE,
)
_ENDS_AS_QUESTION = re.compile(r"(?:[?？]|[吗呢么嘛])[\s!！~～。]*$")


# A trip's plan asked how to lay out (香山一日游怎么安排, 三日游如何玩): the plan is what is asked for — not
# the way somewhere (到天安门的路线怎么走 asks directions)
_PLAN_ASKED = re.compile(
    r"(?:一日游|两日游|三日游|行程)\s*(?:该|要)?(?:怎么|如何)(?:安排|玩|走|排|规划)"
    r"|路线\s*(?:该|要)?(?:怎么|如何)(?:安排|规划)"
    r"|[一二两三四五六七八九十\d]+天(?:[一二两三四五六七八九十\d]+[晚夜])?\s*(?:该|要)?(?:怎么|如何)(?:安排|玩|规划)"
)


def _is_subject(text: str, start: int, end: int) -> bool:
    """An artifact word the question is about ("小红书笔记被限流了", "攻略里说的"), not one asked for."""
    m = markers()
    if _PLAN_ASKED.match(text, start):
        return False
    if _READ_BEFORE.search(text[max(0, start - 12) : start]):  # 看了好多笔记说…: read, not asked for
        return True
    rest = text[end:]
    while (more := m.strong.match(rest)) or (more := m.weak.match(rest)):  # "小红书|笔记|为什么…"
        rest = rest[more.end() :]
    return re.match(rf"\s*(?:{m.subject_after})", rest) is not None


# What the asker read or saved, right before the post word it names (看了好多笔记, 收藏了好多练臀笔记,
# 刷到好多分享说…): what the question is about, not a post asked for
_READ_BEFORE = re.compile(
    r"(?:看了|看到|看过|刷到|刷了|刷过|收藏了|收藏的|搜了|搜到|翻了|读了|查了|网上)[^，,。！!？?\s写]{0,8}$"
)


# A post word that only says what a picture is for (小红书封面图, 清单卡片背景, a cover image for my vlog)
_PICTURE_AFTER = re.compile(rf"{_C}{{0,3}}?(?:封面|海报|配图|卡片|背景|壁纸|头像|插画|图片|图(?![文表解]))")
_PICTURE_FOR = re.compile(
    r"\b(?:images?|pictures?|photos?|covers?|posters?|thumbnails?|illustrations?)\s+for\s+"
    r"(?:my|our|a|an|the|this)\s+(?:[\w'-]+\s+){0,2}$",
    re.IGNORECASE,
)


def _for_picture(text: str, start: int, end: int) -> bool:
    return _PICTURE_AFTER.match(text, end) is not None or _PICTURE_FOR.search(text[:start]) is not None


# "How I organized my tiny kitchen": a told experience's title, no question (it asks nothing of the studio)
_TOLD_HOW = re.compile(
    r"^\s*how\s+(?:i|we)\s+(?:finally\s+|actually\s+)?"
    r"(?:[a-z]+ed|got|made|built|kept|taught|found|went|grew|lost|saved|spent|took|beat|quit|ran|paid)\b",
    re.IGNORECASE,
)
# 求推荐 / 有没有…推荐: the asker wants a recommendation, not a post of them
# (…but 求攻略 asks for the guide itself: a post)
_ASKING_FOR = re.compile(r"(?:求|有没有|有无|谁有|能不能)(?!攻略)[^，。,.！!？?]{0,20}$")


# Asked of other people, not of the studio (谁能分享一下…, 有没有人推荐…): the asker wants answers
_ASKED_OF_OTHERS = re.compile(
    r"(?:谁能|谁可以|谁会|有没有人|有人能|有谁|求大家|求各位|大家能不能"
    # (…or people of a kind: 有没有宝妈分享一下, 有没有过来人说说)
    r"|有没有(?:宝妈|宝爸|姐妹|家长|过来人|大佬|朋友|同行|前辈)们?)[^，,。！!？?\s]{0,2}$"
)
# the words of telling one asks others for with 求 (…？求分享) — not 求攻略, which asks the studio for a guide
_SHARED_BY_OTHERS = frozenset(("分享", "推荐", "安利", "种草"))
# …or said to them right after the word (分享一下你们家孩子是几岁开始分房睡的？)
_OTHERS_AFTER = re.compile(r"(?:一下|下)?(?:你们|大家|各位|姐妹们|宝妈们|家长们|朋友们)")
# A post the asker only wishes to write, said before what stops them (想写穿搭笔记但我不会拍照 …还是…):
# their question is the ask
_WISH_BUT = re.compile(r"想(?:写|发|做|拍)[^，,。！!？?\s]{0,12}?(?=但|可是|不过|就是)")


# …and a verb whose object is a picture (把这段话做成图): no post made
_MADE_PICTURE = re.compile(r"(?:一|几|两|\d+)?[张幅]?(?:图|图片|海报|卡片图|壁纸|长图)(?![文表])")


def _not_asked(text: str, start: int, end: int) -> bool:
    """Is the post word at start:end asked of other people, or only a post the asker wishes for?"""
    if _ASKED_OF_OTHERS.search(text[max(0, start - 8) : start]) or _OTHERS_AFTER.match(text, end):
        return True
    if text[start - 1 : start] == "求" and text[start:end] in _SHARED_BY_OTHERS:  # 求分享, 求推荐: of others
        return True
    return any(w.start() <= start and end <= w.end() for w in _WISH_BUT.finditer(text))


def post_hit(text: str) -> Hit | None:
    """The content ask in `text`: a write verb, a strong artifact word, or a weak one outside a question."""
    m = markers()
    for match in m.strong.finditer(text):
        if _not_asked(text, *match.span()):
            continue
        if not _is_subject(text, match.start(), match.end()) and not _for_picture(text, *match.span()):
            return Hit("post.keyword", match.group(0))
    verbs = (v for v in m.verbs.finditer(text) if not _MADE_PICTURE.match(text, v.end()))
    verb = next((v for v in verbs if not _not_asked(text, *v.span())), None)
    if verb:
        return Hit("post.verb", verb.group(0))
    if (told := _TOLD_HOW.match(text)) and not text.rstrip().endswith(("?", "？")):
        return Hit("post.english", told.group(0).strip())
    asked = m.question_english.search(text) and not _POLITE_ASK.search(text)
    for english in m.english.finditer(text):
        if not (asked and text.rstrip().endswith(("?", "？"))) and not _for_picture(text, *english.span()):
            return Hit("post.english", english.group(0))
    if not _ENDS_AS_QUESTION.search(text):
        for match in m.weak.finditer(text):
            asking = _ASKING_FOR.search(text[: match.start()]) or _not_asked(text, *match.span())
            if not _is_subject(text, match.start(), match.end()) and not asking:
                return Hit("post.weak", match.group(0))
    return None


def question_hit(text: str) -> Hit | None:
    """A question form: a question mark or word, a final 吗/呢, or an English question opening."""
    m = markers()
    found = m.question.search(text) or m.question_english.search(text)
    return Hit("question", found.group(0).strip() or "？") if found else None


# --- content type --------------------------------------------------------------------------------
ContentKind = Literal["guide", "review", "story", "list", "edu", "product", "billboard", "diary"]
# a count of things (三款, 五家, 四条): the list's kind, unless ways were tried (see content_type_of)
_COUNTED_WORDS = (
    r"(?:\d+|[二两三四五六七八九十几]+)\s*"
    # (…people are no list: 带出来十几个徒弟, 请了5个小朋友)
    # (…nor spans of time: 改了两个通宵, 练了三个晚上)
    r"(?:个(?!半?(?:月|小时|钟头)|星期|周|人|徒弟|学生|同事|朋友|小朋友|孩子|娃|粉丝|客户|员工|队员|孙"
    r"|通宵|晚上|白天|早上|上午|下午|夜|假期|工作日|季度|学期)"
    r"|[款家处]|条(?![小短长大]{0,3}腿|尾巴|命))"
    r"(?![^，,。；;！!？?\n]{0,14}?(?:办法|方法|技巧|妙招|建议|习惯|窍门|诀窍|原则|思路|要点))"
)
_CONTENT_TYPE_WORDS: tuple[tuple[ContentKind, str], ...] = (
        # (a trip's plan listed is a plan: 列个行程清单)
        ("guide", r"行程(?:清单|单|表)|路线清单|日程表"),
        # (…and a budget listed is a part of the post, not its kind: 顺便列一下预算清单)
        ("list", r"(?<!预算)(?<!花费)(?<!费用)(?<!开销)清单|合集|合辑|盘点|推荐|必备|必吃|必买"
                 r"|top\s*\d+|checklist|\blist\b|recommend"),
        ("review", r"测评|评测|试用(?!期)|(?<!前后)对比|值不值|(?<![不别])踩雷|开箱|探店|优缺点"
                   r"|使用(?:体验|感受)|\breview\b"),
        ("billboard", r"海报|宣传|广告|活动|招募|通知|促销|开业|上新"),
        # (日常 that says what kind of thing is no diary: 日常眼妆教程, 日常通勤穿搭; nor a place to check in)
        ("diary", r"日记|日常(?![\u4e00-\u9fffA-Za-z])|碎碎念|打卡(?![地点攻])|记录|vlog|diary|journal"),
        ("story", r"经历|故事|回忆|那天|心得|经验(?!帖|贴)|感悟|感受|体会|复盘|游记(?!攻略)|\bstory\b"
                  r"|(?:这个|这段|整个)过程|那(?:几|[一二两三四五六七八九十\d]+)(?:天|个月|年|周)|那段(?:日子|时间)"),
        # (a recipe asked for is no list of the things its ingredients count: 八个鸡翅 一罐可乐…写篇新手菜谱)
        ("guide", r"菜谱|食谱|做法"),
        # a count of things is a list, unless a story said so first (我练到能连做5个，分享这个过程) — not a
        # count of ways (几个我家的办法, 3个小技巧: tips on how, a guide)
        # (nor a count of time, of a body or of people: 卤了两个半小时, 一只三条腿的橘猫, 两个人吃刚好)
        ("list", _COUNTED_WORDS),
        ("product", r"新品|种草|好物|产品(?!经理|运营|设计|岗)|安利|平价|单品"),  # (not a 产品经理's job)
        ("edu", r"知识|科普|原理|干货|入门知识|为什么|区别"),
        ("guide", r"攻略|指南|教程|步骤|怎么|如何|怎样|方法|新手|经验帖|经验贴|做法|食谱|路线|计划|规划|"
                  r"guide|tips|how\s+to|recipes?|itinerary"),
)
_CONTENT_TYPES = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _CONTENT_TYPE_WORDS)


_NEGATED = re.compile(r"(?:别|不要|不想|不是|不用|避免|拒绝)[^，,。；;！!？?\n]{0,8}")


def content_type_of(text: str) -> tuple[ContentKind, float]:
    """The post's content type from the request's own words, with a rule confidence; 'guide' (0.5) when
    nothing says. Collections come first: a "探店合集" is a list, a "早茶探店" a review. What the request
    says the post must not be (别写成广告, 不要推荐具体品牌) asks for no kind."""
    # (a count of things tried among the ways that worked is no list: 试了几招…给两个选项让他自己挑)
    ways = _WAYS_TRIED.search(text)
    text = _NEGATED.sub("", text)
    # (…nor a count of things bought on a trip a guide is asked of: 买了两个杯子…，写篇两天攻略)
    guide = _GUIDE_ASKED.search(text)
    for kind, pattern in _CONTENT_TYPES:
        if pattern.search(text) and not ((ways or guide) and pattern is _COUNTED):
            return kind, 0.7
    return "guide", 0.5


_GUIDE_ASKED = re.compile(r"攻略|指南|教程|行程")
_WAYS_TRIED = re.compile(r"(?:[几\d一二两三四五六七八九十]+|小|妙)招|小技巧|小妙招|几个办法")
_COUNTED = next(p for _, p in _CONTENT_TYPES if p.pattern == _COUNTED_WORDS)


# --- the decision ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Route:
    """What the request is, how sure the rules are, which rule fired and every rule that matched."""

    intent: RouteIntent
    confidence: float
    rule: str
    hits: tuple[Hit, ...]
    image: Hit | None = None  # the image rule that decided, or the exclusion that vetoed one
    search: Hit | None = None


# A request that turns the text down (只要图, 不用写文案, 不需要配文): whatever post word it names is refused
_NO_TEXT = re.compile(
    r"只要(?:图|图片|配图|照片|海报)|(?:不用|不要|不需要|无需|别)(?:给我)?(?:写成?|配|给|整理成|做成)?(?:一篇)?"
    r"(?:文案|文字|正文|配文|笔记|帖子|长文)"
    # (…or the guide a question might have become: 有推荐吗 不用写攻略)
    r"|(?:不用|不要|不需要|无需|别)(?:给我)?(?:写成?|整理成|做成)(?:一篇|一份)?(?:攻略|清单|教程)"
    r"|(?:文案|文字|正文|配文)(?:我)?(?:自己|会)(?:写|来|想|编|配|搞)(?!不)|(?:我)?自己(?:写|想|编|配)(?:文案|文字|正文|配文)"
    # the text refused after its noun (文案不要, 文字就不用了), not how it should be (文案不要太长)
    r"|(?:文案|文字|正文|配文)(?:内容)?(?:我|我们)?(?:就|也|先|暂时)?(?:不要|不用|不需要|免了|省了|别)(?:写|配|给)?了?"
    r"(?=[，,。！!？?~～\s]|$)"
    # …or only pictures asked for (纯图片就好, 只做图)
    r"|纯(?:图|图片|配图)|只做(?:图|图片|卡片)|(?:别|不要|不用)(?:写|放|加|有)字|无字"
    r"|只(?:负责|管|要)?出图|(?:不用|不要|别)(?:改|动)(?:文字|文案)|(?:文字|文案|正文)不用(?:改|动)|把这段(?:文案|文字|话)配上?图"
    # (…or a brief for pictures only: 配图需求：咖啡 拿铁拉花 俯拍)
    r"|^\s*(?:配图|图片|封面|海报|插画)需求[：:]"
    # (…or the post is written already: 我的探店笔记写好了)
    r"|(?:笔记|帖子|文章|游记|正文)(?:已经|早就)?写好了"
    # …or the text is theirs (文案不用你管, 给这篇写好的笔记配图)
    r"|(?:文案|文字|正文|配文)(?:不用|不需要|不要)你(?:管|写|操心|来)?|(?:文案|文字|正文|配文)你(?:不用|不要|别)(?:管|写|操心)"
    r"|已经写好的|写好了的"
    r"|给(?:这篇|这条|这个|我的|我这篇)?[^，。！？；,.!?;\n]{0,10}?(?:笔记|文案|帖子|文章|推文|游记|vlog|视频)"
    r"(?:配|做(?:个|一张|几张|一组)?[^，。！？；,.!?;\n]{0,6}(?:图|封面|海报))"
    # …only pictures needed (只需要配图)
    r"|只需要(?:图|图片|配图|照片|海报|封面)"
    # …or already written (文字我已经写好了, 文案有了)
    r"|(?:文案|文字|正文|配文)(?:我|我们)?(?:已经|早就)?(?:写好|有了|准备好|弄好)"
    # …in English (no text please, without a caption, just the image)
    r"|\b(?:no|without(?:\s+any)?)\s+(?:text|caption|copy|words)\b"
    r"|\b(?:I'll|I\s+will|I'm\s+going\s+to)\s+write\s+(?:the\s+)?(?:words|text|caption|copy)\b|\b(?:just|only)\s+(?:the\s+|an?\s+)?(?:images?|pictures?)\b"
)
# The pictures are all that is wanted (封面就行, 来张海报 图就好) — unless writing is asked for outright
# (写一篇…的笔记，配图就行: a post, its pictures fine)
_PICTURES_ENOUGH = re.compile(
    r"(?:^|[\s，,。])(?:[一两几三四五六\d]张)?(?:图|图片|配图|封面|海报|卡片)就(?:行|好|可以|够了?)(?!看)"
)
# The asker wants the answer itself, no post (直接告诉我答案, 简单回答一下就行)
_ANSWER_ONLY = re.compile(
    # (…said to the studio, not told of someone: 老板直接说我的KR不够…)
    r"直接(?:告诉我|回答)(?:答案|结论)?|(?:^|[，,。\s你请就])直接说(?:答案|结论|吧|就行|就好)?"
    r"|只要(?:答案|结论)|简单回答|给我个(?:答案|结论)"
    # (…or no long write-up: 别长篇大论, 说重点就行)
    r"|(?:别|不用|不要)(?:跟我)?长篇大论|说重点就(?:行|好)|简单说(?:说|一下|两句)?就(?:行|好)"
    r"|\bjust\s+asking\s+for\s+(?:myself|me)\b|\bfor\s+myself,?\s+not\s+(?:a|for\s+a)\s+post\b"
)
_PICTURE = re.compile(
    r"图|照片|海报|壁纸|封面|插画|卡片|\b(?:images?|pictures?|photos?|posters?|illustrations?|wallpapers?)\b",
    re.IGNORECASE,
)
# The asker's own decision put to the studio (我是不是该退卡, 我该买哪个): advice for them, whatever
# 分享/推荐 it opens with — unless it asks for writing outright (写篇…)
_FOR_MYSELF = re.compile(
    r"我(?:是不是|该不该|要不要|应不应该)(?:该|要)?|我(?:该|应该)(?:买|选|怎么办|怎么选|退|换)|适合我吗|帮我(?:看看|参考一下)[^，。]{0,6}(?:买|选)"
    # (…or which of the two to take, asked last: …碳纤维的和铝合金的选哪个好)
    r"|(?:选|买|挑|入)哪(?:个|款|一个|一款|种)(?:好|更好|比较好|合适|更合适)?[？?。！!～~\s]*$"
    # (…or said to be for the asker's own use, or only to know: 有没有准备清单 我自己用的, 我就想知道…)
    r"|(?:我)?自己(?:用|看|参考)(?:的|就行|就好)?[？?。！!～~\s]*$|我(?:就|只)?(?:是)?想知道"
    # (…or to buy for oneself, said in passing: 推荐几款防晒吧 我自己买 预算150以内)
    r"|我自己(?:买|入|囤)(?=[，,。！!？?～~\s])"
    # (…or asked politely, for a stay or a buy with a budget: 请推荐一下适合带娃的杭州酒店 预算800)
    r"|^\s*请(?:帮我)?推荐(?:一下|下)?(?=[^，,。！!？?\n]{2,30}[，,\s]+预算)"
)
_WEAK_IMAGE_RULES = {"image.generate_description", "image.can_generate", "image.draw_object"}


# What a picture asked for says on it (标题是秋冬穿搭合集, 每张写一个食材): its words, no post asked for
_ON_THE_PICTURE = re.compile(
    r"(?:标题|主题|文字|字|上面|每张|图上|卡片上)(?:下面|上面|底下|旁边|角上)?(?:是|写|写上|写着|写个|就写|用|配)"
    r"[^，。！!？?；;\n\s]*"
)


def route(text: str) -> Route:
    """Route `text` by the policy of the module docstring."""
    image = image_hit(text)
    wants_image = image is not None and not image.rule.startswith("image.not_")
    post = post_hit(_ON_THE_PICTURE.sub("", text) if wants_image else text)
    search, clock = web_search_hit(text), time_hit(text)
    question = question_hit(text)
    refused = _NO_TEXT.search(text) or (_PICTURES_ENOUGH.search(text) and not markers().verbs.search(text))
    intent: RouteIntent
    if not text.strip():
        intent, confidence, rule = "full_post", 0.3, "empty"
    elif refused and (wants_image or _PICTURE.search(text)):  # 只要图，不用写文案: images, whatever it names
        intent, confidence, rule = "image_only", 0.85, "image.no_text"
    elif question and (refused or _ANSWER_ONLY.search(text)) and not (wants_image or _PICTURE.search(text)):
        # 直接告诉我答案，不用写帖子: a question, whatever post word it names
        intent, confidence, rule = "question", 0.8, "question.no_post"
    # (…asked as a question, or only opened by 推荐 without a word of writing: 推荐几款防晒吧 我自己买)
    elif (
        post and (question or post.rule == "post.weak") and _FOR_MYSELF.search(text)
        and not markers().verbs.search(text)
    ):
        intent, confidence, rule = "question", 0.75, "question.for_myself"
    elif post:
        intent, confidence, rule = "full_post", 0.85, post.rule
        if wants_image and image:
            rule = f"{post.rule}+{image.rule}"
    elif wants_image and image:
        intent, confidence, rule = "image_only", 0.7 if image.rule in _WEAK_IMAGE_RULES else 0.85, image.rule
    elif search:
        intent, confidence, rule = "question", 0.75, search.rule
    elif clock:
        intent, confidence, rule = "time_query", 0.9, clock.rule
    elif question:
        intent, confidence, rule = "question", 0.7, "question"
    elif len(text.strip()) <= 20:
        intent, confidence, rule = "full_post", 0.6, "bare_topic"
    else:
        intent, confidence, rule = "full_post", 0.6, "topic"
    if image and not wants_image:  # the exclusion explains why a drawing word did not count
        rule = f"{rule}; {image.rule}"
    hits = tuple(h for h in (post, image, search, clock, question) if h is not None)
    return Route(intent, confidence, rule, hits, image=image, search=search)


__all__ = [
    "ContentKind",
    "Hit",
    "Route",
    "Rule",
    "content_type_of",
    "image_hit",
    "post_hit",
    "question_hit",
    "route",
    "time_hit",
    "web_search_hit",
]
