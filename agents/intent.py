"""Intent: deciding what a request is — a full post, images only, a question, or a time query.

`classify_intent` asks the LLM first (task `intent`, output `IntentOutput`) and falls back to the
rules of seed 004 when the call fails or the model is not confident enough (seed 004 §6.1).

The rules are pure functions over compiled regexes, each a table of named patterns:

- `detect_image_intent`: negative exclusions first (recalling a past image, "I can't draw"), then the
  eight positive rules in the seed's order (§2).
- `detect_web_search_intent`: the ten patterns of §3 (any one is enough).
- `detect_time_intent`: "现在几点 / 今天几号 / 星期几 / 时间戳 …" (§7.1).
- `detect_post_intent`: the request asks for a post (笔记 / 文案 / 写一篇 / 小红书 …).

`rule_intent` combines them: a post request wins (an image request inside it is the post's images),
then an image request, a web-search question, a time query, any other question, and finally a bare
topic, which is a full post. `answer_time_query` answers a time query locally, without any model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import ConfigDict, Field

from agents.artifacts import ContentType, Intent, IntentOutput
from agents.node import prompt
from tools.errors import LLMError
from tools.llm import LLMGateway

_C = r"[^，。！？；,.!?;\n]"  # one character inside the same clause
_PARTICLES = re.compile(r"[吗呢吧么嘛呀啊哦～~\s]+$")


@dataclass(frozen=True)
class Rule:
    """A named pattern; `name` says which rule fired (it ends up in the decision's reasoning)."""

    name: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Hit:
    """A rule that matched and the text it matched."""

    rule: str
    keyword: str


def _rules(*pairs: tuple[str, str], flags: int = 0) -> tuple[Rule, ...]:
    return tuple(Rule(name, re.compile(pattern, flags)) for name, pattern in pairs)


def _first_hit(rules: Sequence[Rule], text: str) -> Hit | None:
    for rule in rules:
        match = rule.pattern.search(text)
        if match:
            return Hit(rule.name, match.group(0).strip())
    return None


def _core(fragment: str) -> str:
    """A description without its trailing particles: '超绝美少女吗' → '超绝美少女'."""
    return _PARTICLES.sub("", fragment)


# --- image generation (seed 004 §2) ---------------------------------------------------------------
# Negative exclusions: talking about an image, not asking for one. "能不能/会不会" are requests.
_IMAGE_NEGATIVE = _rules(
    ("image.not_recall", rf"(?:记得|想起|回忆){_C}{{0,20}}?(?:画|图|生成)"),
    ("image.not_past", rf"(?:之前|上次|以前){_C}{{0,20}}?(?:画|绘|生成)"),
    ("image.not_unable", rf"(?:(?<!能)不能|(?<!会)不会|无法){_C}{{0,6}}?(?:画|绘|生成)"),
)
_DRAW = r"(?:绘制|画|绘)"
_NUMERAL = r"(?:[一二两三四五六七八九十几]+|\d+)"
# What 生成 must not be applied to for the descriptive rules 5 and 6: text, not pictures.
_TEXT_THING = re.compile(
    r"代码|程序|脚本|函数|文案|文章|文本|文字|报告|总结|摘要|列表|清单|表格|大纲|提纲|标题|标签|话题|"
    r"内容|回答|答案|回复|邮件|简历|方案|计划|笔记|帖子|段落|句子|翻译|故事|小说|剧本|诗|歌词|评论|"
    r"周报|日报|月报|目录|数据|名字|昵称|口号|链接|密码|随机数|ppt|json|sql|csv|markdown|slogan",
    re.IGNORECASE,
)
# What 画/绘 must not be applied to for rule 7: charts are not pictures.
_CHART = re.compile(
    r"饼图|饼状图|柱状图|柱形图|条形图|折线图|流程图|思维导图|脑图|架构图|时序图|甘特图|雷达图|散点图|"
    r"直方图|拓扑图|统计图|图表|表格|曲线图|坐标|k线|uml",
    re.IGNORECASE,
)
_IMAGE_STRONG = _rules(
    ("image.draw_measure", rf"{_DRAW}{_NUMERAL}[张幅个副只份套组款朵棵位]"),
    ("image.draw_for_me",
     rf"(?:给我|帮我|帮忙|替我|(?<![邀申聘宴])请你?|(?<![原后出起本未将从看带])来){_DRAW}"),
    ("image.generate_picture", rf"生成{_C}{{0,8}}?(?:图|画|照片|相片|海报|壁纸|头像|表情包)"),
    ("image.make_picture", rf"(?:制作|创作){_C}{{0,8}}?(?:图|画|像)"),
)
# Rule 5 reads 生成 as a command: at the start of a clause, after optional 请/帮我/我想 … — so
# "如何生成随机数" and "生成式AI" are not requests. Rule 6 (the polite form) keeps the text-type exclusion.
_GENERATE_IMPERATIVE = re.compile(
    rf"(?:^|[，。！？；,.!?;\s])(?:请|麻烦)?你?(?:帮我|给我|替我|帮忙|为我|我想|我要|想|要)?(?:再|来)?"
    rf"生成(?![式器的了过成])(?P<desc>{_C}+)"
)
_GENERATE_POLITE = re.compile(
    rf"(?:可以|(?<![智功性效技本才职])能)(?:不能|够)?(?:帮我|给我|为我|帮忙)?生成(?P<desc>{_C}*)"
)
# 画/绘 used as a verb: not 动画/漫画/油画/绘本/画家/画展/画风/画饼 …
_DRAW_OBJECT = re.compile(
    r"(?<![动漫油国壁字书版插名刻图绘彩笔古年卡描])(?:绘制|画|绘)"
    rf"(?![面家展风廊册质师本报卷布板框笔画作室像法技工圈坛意龙饼中里])(?P<obj>{_C}+)"
)
_IMAGE_ENGLISH = _rules(
    ("image.english",
     r"\b(?:draw|paint|sketch|generate|create|make|render|design)\b(?:\s+[\w'-]+){0,3}?\s+"
     r"(?:images?|pictures?|pics?|illustrations?|drawings?|paintings?|photos?|artworks?|posters?|wallpapers?)\b"),
    ("image.english", r"\b(?:draw|paint|sketch)\s+(?:me\s+)?(?:an?|the|some|two|three|\d+)\s+\w+"),
    flags=re.IGNORECASE,
)
_WEAK_IMAGE_RULES = {"image.generate_description", "image.can_generate", "image.draw_object"}


def _descriptive_hit(text: str) -> Hit | None:
    """Rules 5–7: 生成 + a picture-like description, 可以/能生成 + a longer one, 画 + a non-chart object."""
    for match in _GENERATE_IMPERATIVE.finditer(text):
        desc = _core(match.group("desc"))
        if len(desc) >= 2 and not _TEXT_THING.search(desc):
            return Hit("image.generate_description", f"生成{desc}")
    for match in _GENERATE_POLITE.finditer(text):
        desc = _core(match.group("desc"))
        if len(desc) >= 4 and not _TEXT_THING.search(desc):
            return Hit("image.can_generate", f"生成{desc}")
    for match in _DRAW_OBJECT.finditer(text):
        obj = _core(match.group("obj"))
        if len(obj) >= 2 and not _CHART.search(obj):
            verb = text[match.start() : match.start("obj")]
            return Hit("image.draw_object", f"{verb}{obj}")
    return None


def image_hit(text: str) -> Hit | None:
    """The image rule that decides `text`: a negative exclusion (`image.not_*`), a positive rule, or None."""
    negative = _first_hit(_IMAGE_NEGATIVE, text)
    if negative:
        return negative
    return _first_hit(_IMAGE_STRONG, text) or _descriptive_hit(text) or _first_hit(_IMAGE_ENGLISH, text)


def detect_image_intent(text: str) -> bool:
    """Does `text` ask for an image to be generated? (seed 004 `detectImageGenIntent`)"""
    hit = image_hit(text)
    return hit is not None and not hit.rule.startswith("image.not_")


# --- web search (seed 004 §3) ---------------------------------------------------------------------
_WEB_SEARCH = (
    *_rules(
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
    *_rules(("search.english", r"\b(?:search|latest)\b"), flags=re.IGNORECASE),
)


def web_search_hit(text: str) -> Hit | None:
    return _first_hit(_WEB_SEARCH, text)


def detect_web_search_intent(text: str) -> bool:
    """Does `text` need fresh facts from the web? (seed 004 `detectWebSearchIntent`)"""
    return web_search_hit(text) is not None


# --- time (seed 004 §7.1) -------------------------------------------------------------------------
_TIME = (
    *_rules(
        ("time.clock", r"现在几点|几点了|现在(?:的)?时间|当前时间|北京时间"),
        ("time.date", r"今天(?:是)?(?:几月)?几号|今天(?:的)?日期|几号了"),
        ("time.weekday", r"星期几|周几|礼拜几"),
        ("time.timestamp", r"时间戳"),
        ("time.day", r"今天是什么日子"),
    ),
    *_rules(
        ("time.english",
         r"\bwhat\s+time\b|\bwhat(?:'s|\s+is)\s+the\s+(?:time|date)\b|\bwhat\s+day\s+is\s+(?:it|today)\b"
         r"|\b(?:current|today's)\s+(?:time|date)\b|\btimestamp\b"),
        flags=re.IGNORECASE,
    ),
)


def time_hit(text: str) -> Hit | None:
    return _first_hit(_TIME, text)


def detect_time_intent(text: str) -> bool:
    """Does `text` ask for the current time, date, weekday or timestamp?"""
    return time_hit(text) is not None


# --- post -----------------------------------------------------------------------------------------
_POST = (
    *_rules(
        ("post.keyword",
         r"笔记|文案|帖子|种草|图文|推文|配文|爆款|小红书|写(?:一|两|几|\d+)?[篇条]|发(?:一)?[篇条]"),
    ),
    *_rules(("post.english", r"\b(?:post|caption|xiaohongshu|rednote)\b"), flags=re.IGNORECASE),
)
_QUESTION = re.compile(
    r"[?？]|什么|怎么|为什么|为何|如何|哪些|哪个|哪里|哪儿|多少|几个|是否|能不能|可不可以|有没有|是不是|"
    r"[吗呢]\s*$|^\s*(?:what|how|why|when|where|which|who)\b",
    re.IGNORECASE,
)


def post_hit(text: str) -> Hit | None:
    return _first_hit(_POST, text)


def detect_post_intent(text: str) -> bool:
    """Does `text` ask for a full post (a note, copy, a 小红书 post …)?"""
    return post_hit(text) is not None


# --- content type, category and keywords (for the rule fallback) ---------------------------------
_CONTENT_TYPE_WORDS: tuple[tuple[ContentType, str], ...] = (
    ("review", r"测评|评测|试用|对比|值不值|踩雷|开箱"),
    ("list", r"清单|合集|盘点|\d+\s*个|[一二三四五六七八九十]+个|推荐|必备|top\s*\d+"),
    ("guide", r"攻略|指南|教程|步骤|怎么|如何|方法|新手"),
    ("product", r"新品|种草|好物|产品|安利|平价|单品"),
    ("billboard", r"海报|宣传|广告|活动|招募|通知|促销|开业|上新"),
    ("diary", r"日记|日常|碎碎念|打卡|记录一下"),
    ("story", r"经历|故事|vlog|回忆|那天"),
    ("edu", r"知识|科普|原理|干货|入门|学习|考试|为什么"),
)
_CONTENT_TYPES = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _CONTENT_TYPE_WORDS)
_CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (key, re.compile(pattern, re.IGNORECASE))
    for key, pattern in (
        ("outdoor", r"露营|徒步|骑行|登山|户外|飞盘|钓鱼|帐篷|营地|爬山|野餐"),
        ("food", r"美食|做法|食谱|早餐|午餐|晚餐|便当|烘焙|蛋糕|咖啡|探店|火锅|甜品|料理"),
        ("travel", r"旅行|旅游|citywalk|city walk|古镇|海岛|酒店|景点|自驾|周边游|行程"),
        ("fashion", r"穿搭|搭配|衣服|裙|外套|通勤|ootd|显瘦|小个子"),
        ("beauty", r"护肤|化妆|彩妆|口红|底妆|防晒|敏感肌|面膜|香水|美妆"),
        ("home", r"家居|收纳|装修|改造|出租屋|软装|小户型|卧室"),
        ("fitness", r"健身|减脂|减肥|跑步|瑜伽|增肌|马甲线|拉伸"),
        ("career", r"考研|考公|学习|英语|简历|面试|职场|副业|时间管理|读书|备考"),
        ("pets", r"猫|狗|宠物|铲屎官|猫粮|狗粮|遛狗"),
        ("parenting", r"宝宝|孩子|亲子|育儿|辅食|早教|带娃|宝妈"),
    )
)
_KEYWORD_SPLIT = re.compile(
    r"[\s\W_]+|请|麻烦|帮我|帮忙|给我|替我|我想|我要|想要|一下|关于|有关|面向|针对|适合|写一篇|写篇|写一条|"
    r"写个|来一篇|一篇|一条|一份|一张|一个|小红书|笔记|文案|帖子|图文|种草|配图|推文|并且|并|还有|以及|"
    r"的|了|吗|呢|吧|啊|和|与|及"
)
_ENGLISH_STOP = frozenset((
    "the", "and", "for", "with", "that", "this", "what", "when", "where", "which", "about", "please",
    "could", "would", "should", "image", "picture", "draw", "paint", "generate", "create", "make",
    "search", "latest", "time", "date", "post",
))


def content_type_of(text: str) -> tuple[ContentType, float]:
    """The post's content type by keywords, with a rule confidence; 'guide' (0.5) when nothing says."""
    for kind, pattern in _CONTENT_TYPES:
        if pattern.search(text):
            return kind, 0.7
    return "guide", 0.5


def category_of(text: str) -> str:
    """The corpus theme the text mentions most, '' when none does."""
    counts = {key: len(pattern.findall(text)) for key, pattern in _CATEGORIES}
    best = max(counts, key=lambda key: counts[key])
    return best if counts[best] else ""


def topic_keywords(text: str, limit: int = 6) -> list[str]:
    """The request's content words: what is left between the scaffolding ('帮我写一篇…的笔记')."""
    words: list[str] = []
    for chunk in _KEYWORD_SPLIT.split(text):
        chunk = chunk.strip()
        if chunk.isascii() and (len(chunk) < 4 or chunk.lower() in _ENGLISH_STOP):
            continue
        if 2 <= len(chunk) <= 12 and chunk not in words:
            words.append(chunk)
    return words[:limit]


# --- the decision ---------------------------------------------------------------------------------
class IntentDecision(IntentOutput):
    """What the request is, who decided (`source`) and, for rules, which rule fired (`rule`)."""

    model_config = ConfigDict(frozen=True)

    source: Literal["llm", "rule"]
    rule: str = Field("", description="The rule that fired (rule decisions only), e.g. image.draw_measure.")

    def intent_detected_payload(self) -> dict[str, Any]:
        """The fields of the `intent_detected` event (camelCase)."""
        return {
            "intent": self.intent,
            "confidence": self.confidence,
            "keywords": list(self.keywords),
            "suggestedCategory": self.suggested_category,
            "source": self.source,
        }

    def content_type_detected_payload(self) -> dict[str, Any]:
        """The fields of the `content_type_detected` event (camelCase)."""
        return {
            "contentType": self.content_type,
            "confidence": self.content_type_confidence,
            "reasoning": self.reasoning,
        }


_INTENT_LABELS: dict[Intent, str] = {
    "full_post": "完整图文笔记",
    "image_only": "仅生成图片",
    "question": "直接回答问题",
    "time_query": "本地时间查询",
}


def rule_intent(text: str) -> IntentDecision:
    """Seed 004's keyword rules, combined into one decision (the fallback of `classify_intent`)."""
    image = image_hit(text)
    wants_image = image is not None and not image.rule.startswith("image.not_")
    post, search, clock = post_hit(text), web_search_hit(text), time_hit(text)
    intent: Intent
    if not text.strip():
        intent, confidence, rule = "full_post", 0.3, "empty"
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
    elif _QUESTION.search(text):
        intent, confidence, rule = "question", 0.7, "question"
    elif len(text.strip()) <= 20:
        intent, confidence, rule = "full_post", 0.6, "bare_topic"
    else:
        intent, confidence, rule = "full_post", 0.5, "default"
    if image and not wants_image:  # the exclusion explains why a drawing word did not count
        rule = f"{rule}; {image.rule}"
    hits = [h for h in (post, image, search, clock) if h is not None]
    keywords = list(dict.fromkeys([*(h.keyword[:24] for h in hits), *topic_keywords(text)]))[:12]
    kind, kind_confidence = content_type_of(text)
    matched = "、".join(f"{h.rule}「{h.keyword[:24]}」" for h in hits) or "无关键词命中"
    return IntentDecision(
        intent=intent,
        confidence=confidence,
        keywords=keywords,
        suggested_category=category_of(text),
        content_type=kind,
        content_type_confidence=kind_confidence,
        reasoning=f"规则判定为{_INTENT_LABELS[intent]}（{rule}）；命中：{matched}"[:400],
        needs_web_search=search is not None,
        source="rule",
        rule=rule,
    )


async def classify_intent(llm: LLMGateway, text: str, *, min_confidence: float = 0.6) -> IntentDecision:
    """Ask the model (task `intent`); fall back to `rule_intent` on an LLM error or low confidence.

    An explicit web-search request in the text (seed 004 §3) always turns on `needs_web_search`.
    """
    messages = prompt("intent").render(request=text)
    try:
        output = await llm.complete_structured("intent", messages, IntentOutput)
    except LLMError as exc:
        why = f"模型调用失败（{exc.code}）"
    else:
        if output.confidence >= min_confidence:
            fields = output.model_dump(by_alias=False)
            fields["needs_web_search"] = output.needs_web_search or detect_web_search_intent(text)
            return IntentDecision.model_validate({**fields, "source": "llm"})
        why = f"模型置信度 {output.confidence:.2f} 低于 {min_confidence:.2f}"
    decision = rule_intent(text)
    return decision.model_copy(update={"reasoning": f"{why}，改用规则兜底：{decision.reasoning}"[:400]})


# --- time answer (seed 004 §7.1) -------------------------------------------------------------------
_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


def answer_time_query(now: datetime | None = None, tz: str = "Asia/Shanghai") -> str:
    """The local answer to a time query: time, date, weekday, timezone and Unix timestamp.

    A naive `now` is read as wall-clock time in `tz`; an aware one is converted to `tz`.
    An unknown `tz` raises `zoneinfo.ZoneInfoNotFoundError`.
    """
    zone = ZoneInfo(tz)
    if now is None:
        local = datetime.now(zone)
    elif now.tzinfo is None:
        local = now.replace(tzinfo=zone)
    else:
        local = now.astimezone(zone)
    offset = local.strftime("%z") or "+0000"
    return (
        f"现在是 {local:%H:%M:%S}，{local.year}年{local.month}月{local.day}日，"
        f"{_WEEKDAYS[local.weekday()]}。\n"
        f"时区：{tz}（UTC{offset[:3]}:{offset[3:5]}）\n"
        f"Unix 时间戳：{int(local.timestamp())}"
    )
