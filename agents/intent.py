"""Intent: deciding what a request is — a full post, images only, a question, or a time query.

`classify_intent` asks the LLM first (task `intent`, output `IntentOutput`) and falls back to the
rules when the call fails or the model is not confident enough (seed 004 §6.1).

The rules live in `tools.routing` (with seed 004's image rules in `tools.image_rules`), one table shared
with the offline model's intent composer so the two cannot disagree:

- `detect_image_intent`: negative exclusions first (recalling a past image, "I can't draw"), then the
  eight positive rules in the seed's order (§2).
- `detect_web_search_intent`: the ten patterns of §3 (any one is enough).
- `detect_time_intent`: the current time or date only — "现在几点 / 今天几号 / 星期几 / 时间戳" (§7.1).
- `detect_post_intent`: the request asks for content — 笔记 / 写一篇 / 攻略 / 清单 / 分享 / 测评 …

`rule_intent` turns `tools.routing.route` into a decision: a content ask wins (even with 怎么 / 时间 in
it), then an image request, a web-search question, a time query, any other question, and finally a
bare topic, which is a full post. `answer_time_query` answers a time query locally, without any model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import ConfigDict, Field

from agents.artifacts import Intent, IntentOutput
from agents.node import prompt
from tools import image_rules as _image_rules
from tools.bilingual import localize
from tools.errors import LLMError
from tools.image_rules import Hit, Rule, image_hit
from tools.llm import LLMGateway
from tools.routing import content_type_of, post_hit, route, time_hit, web_search_hit

__all__ = [
    "Hit",
    "IntentDecision",
    "Rule",
    "answer_time_query",
    "category_of",
    "classify_intent",
    "content_type_of",
    "detect_image_intent",
    "detect_post_intent",
    "detect_time_intent",
    "detect_web_search_intent",
    "image_hit",
    "post_hit",
    "rule_intent",
    "time_hit",
    "topic_keywords",
    "web_search_hit",
]


def detect_image_intent(text: str) -> bool:
    """Does `text` ask for an image to be generated? (seed 004 `detectImageGenIntent`)"""
    return _image_rules.detect_image_intent(text)


def detect_web_search_intent(text: str) -> bool:
    """Does `text` need fresh facts from the web? (seed 004 `detectWebSearchIntent`)"""
    return web_search_hit(text) is not None


def detect_time_intent(text: str) -> bool:
    """Does `text` ask for the current time, date, weekday or timestamp?"""
    return time_hit(text) is not None


def detect_post_intent(text: str) -> bool:
    """Does `text` ask for content to be made (a note, copy, a list, a guide, a review …)?"""
    return post_hit(text) is not None


# --- content type, category and keywords (for the rule fallback) ---------------------------------
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
    fallback: str = Field("", description="Why the rules decided, not the model (for logs, not screens).")

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
    """The shared routing rules (`tools.routing.route`) as a decision (the fallback of `classify_intent`)."""
    decided = route(text)
    local = localize(text)  # English words of the topic in Chinese, for keywords, category and type
    keywords = list(dict.fromkeys([*(h.keyword[:24] for h in decided.hits), *topic_keywords(local)]))[:12]
    kind, kind_confidence = content_type_of(local)
    matched = "、".join(dict.fromkeys(f"「{h.keyword[:24]}」" for h in decided.hits)) or "无"
    return IntentDecision(
        intent=decided.intent,
        confidence=decided.confidence,
        keywords=keywords,
        suggested_category=category_of(local),
        content_type=kind,
        content_type_confidence=kind_confidence,
        reasoning=f"按关键词规则判定为{_INTENT_LABELS[decided.intent]}；命中的词：{matched}"[:400],
        needs_web_search=decided.search is not None,
        source="rule",
        rule=decided.rule,
    )


async def classify_intent(llm: LLMGateway, text: str, *, min_confidence: float = 0.6) -> IntentDecision:
    """Ask the model (task `intent`); fall back to `rule_intent` on an LLM error or low confidence.

    An explicit web-search request in the text (seed 004 §3) always turns on `needs_web_search`.
    """
    messages = prompt("intent").render(request=text)
    try:
        output = await llm.complete_structured("intent", messages, IntentOutput)
    except LLMError as exc:
        why, fallback = "模型调用失败", exc.code
    else:
        if output.confidence >= min_confidence:
            fields = output.model_dump(by_alias=False)
            fields["needs_web_search"] = output.needs_web_search or detect_web_search_intent(text)
            return IntentDecision.model_validate({**fields, "source": "llm"})
        why, fallback = "模型把握不足", f"confidence {output.confidence:.2f} < {min_confidence:.2f}"
    decision = rule_intent(text)
    return decision.model_copy(
        update={"reasoning": f"{why}，改用规则兜底：{decision.reasoning}"[:400], "fallback": fallback}
    )


# --- time answer (seed 004 §7.1) -------------------------------------------------------------------
_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


# Days a countdown may ask for: fixed ones by month and day, and the lunar festivals by year (hand-written
# from the published Chinese calendar, 2026–2030; a year the table lacks is answered without the count)
_FIXED_DAYS = {
    "元旦": (1, 1), "情人节": (2, 14), "妇女节": (3, 8), "五一": (5, 1), "劳动节": (5, 1), "儿童节": (6, 1),
    "六一": (6, 1), "国庆": (10, 1), "双十一": (11, 11), "双11": (11, 11), "平安夜": (12, 24),
    "圣诞": (12, 25), "高考": (6, 7),
}
_ENGLISH_DAYS = {"christmas": "圣诞", "new year": "元旦", "valentine": "情人节"}
_LUNAR_DAYS = {
    "春节": {2026: (2, 17), 2027: (2, 6), 2028: (1, 26), 2029: (2, 13), 2030: (2, 3)},
    "过年": {2026: (2, 17), 2027: (2, 6), 2028: (1, 26), 2029: (2, 13), 2030: (2, 3)},
    "端午": {2026: (6, 19), 2027: (6, 9), 2028: (5, 28), 2029: (6, 16), 2030: (6, 5)},
    "中秋": {2026: (9, 25), 2027: (9, 15), 2028: (10, 3), 2029: (9, 22), 2030: (9, 12)},
}
_ON_DATE = re.compile(r"(?P<m>1[0-2]|[1-9])\s*(?:月|\.|/)\s*(?P<d>3[01]|[12]\d|[1-9])(?:日|号)?")


def _countdown(request: str, today: date) -> str:
    """'距离国庆（10月1日）还有 N 天' for a request that asks how long until a day it names; '' otherwise."""
    lowered = request.lower()
    said = [*(n for n in _FIXED_DAYS if n in request), *(z for e, z in _ENGLISH_DAYS.items() if e in lowered)]
    if said:
        fixed = _FIXED_DAYS[said[0]]
        return _days_until(said[0], today, lambda _year: fixed)
    for name, years in _LUNAR_DAYS.items():
        if name in request:
            return _days_until(name, today, years.get)
    if found := _ON_DATE.search(request):
        on = (int(found["m"]), int(found["d"]))
        return _days_until(f"{on[0]}月{on[1]}日", today, lambda _year: on)
    return ""


def _days_until(name: str, today: date, on: Callable[[int], tuple[int, int] | None]) -> str:
    """The count to the next `name` on or after `today` (`on` gives its month and day of a year)."""
    for year in (today.year, today.year + 1):
        when = on(year)
        if when is None:
            continue
        try:
            target = date(year, *when)
        except ValueError:  # (2月30日: no such day)
            return ""
        if target >= today:
            days = (target - today).days
            said = "就是今天" if days == 0 else f"还有 {days} 天"
            return f"距离{name}（{target.year}年{target.month}月{target.day}日）{said}。"
    return ""


def answer_time_query(now: datetime | None = None, tz: str = "Asia/Shanghai", request: str = "") -> str:
    """The local answer to a time query: time, date, weekday, timezone and Unix timestamp — and, when the
    request asks how long until a day it names (离国庆还有多少天), the count of days.

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
    count = _countdown(request, local.date()) if request else ""
    return (
        f"现在是 {local:%H:%M:%S}，{local.year}年{local.month}月{local.day}日，"
        f"{_WEEKDAYS[local.weekday()]}。\n"
        + (f"{count}\n" if count else "")
        + f"时区：{tz}（UTC{offset[:3]}:{offset[3:5]}）\n"
        f"Unix 时间戳：{int(local.timestamp())}"
    )
