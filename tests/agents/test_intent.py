"""Intent: seed 004's detectors as tables, the combined rule decision, the LLM-first classifier with its
rule fallback (real offline provider), and the local time answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest

from agents.events import ContentTypeDetected, IntentDetected
from agents.intent import (
    IntentDecision,
    answer_time_query,
    classify_intent,
    detect_image_intent,
    detect_post_intent,
    detect_time_intent,
    detect_web_search_intent,
    image_hit,
    rule_intent,
)
from agents.node import prompt
from tools.llm import LLMConfig, LLMGateway
from tools.prompting import parse_sections

# (text, expected, the image rule that decides it — None when no rule matches)
IMAGE_CASES: list[tuple[str, bool, str | None]] = [
    # negative exclusions come first, whatever follows
    ("你还记得之前画的那张图吗", False, "image.not_recall"),
    ("想起小时候画的画", False, "image.not_recall"),
    ("回忆一下那张图", False, "image.not_recall"),
    ("上次生成的图片不好看", False, "image.not_past"),
    ("我以前画过水彩", False, "image.not_past"),
    ("我不会画画", False, "image.not_unable"),
    ("AI 无法生成真实的照片吗", False, "image.not_unable"),
    ("你不能画一张猫吗", False, "image.not_unable"),
    # 1) 画/绘 + measure word
    ("画一张猫", True, "image.draw_measure"),
    ("绘三幅山水", True, "image.draw_measure"),
    ("画两个苹果", True, "image.draw_measure"),
    ("能不能帮我画一张猫", True, "image.draw_measure"),  # 能不能 is a request, not 不能
    # 2) 给我画 / 帮我画 / 请画 / 来画
    ("给我画只猫", True, "image.draw_for_me"),
    ("帮我画个小狗", True, "image.draw_for_me"),
    ("请画星空", True, "image.draw_for_me"),
    ("来画只兔子", True, "image.draw_for_me"),
    # 3) 生成 + 图/画
    ("生成一张照片", True, "image.generate_picture"),
    ("帮我生成一张赛博朋克风的壁纸", True, "image.generate_picture"),
    # 4) 制作/创作 + 图/画/像
    ("制作一张头像", True, "image.make_picture"),
    ("创作一幅画", True, "image.make_picture"),
    # 5) 生成 + description ≥2 chars, not a text-type thing
    ("生成美少女", True, "image.generate_description"),
    ("帮我生成海边的日落", True, "image.generate_description"),
    ("生成一段代码", False, None),
    ("生成文案", False, None),
    ("生成一份周报总结", False, None),
    ("生成列表", False, None),
    ("生成式AI是什么", False, None),
    # 6) 可以/能 + 生成 + description ≥4 chars
    ("可以生成超绝美少女吗", True, "image.can_generate"),
    ("你能生成雪山下的小木屋吗", True, "image.can_generate"),
    ("你能生成吗", False, None),
    ("能生成猫吗", False, None),
    ("可以生成一份周报总结吗", False, None),
    ("智能生成工具推荐一下", False, None),
    # 7) 画/绘 + object ≥2 chars, not a chart
    ("画夕阳风景", True, "image.draw_object"),
    ("绘制赛博朋克城市", True, "image.draw_object"),
    ("画个饼图", False, None),
    ("画流程图", False, None),
    ("画思维导图", False, None),
    ("画表格", False, None),
    ("画猫", False, None),  # the object is one character
    ("周末去看画展", False, None),  # 画 is a noun here
    ("动画片推荐", False, None),
    ("老板又在画饼", False, None),
    # 8) English
    ("draw a cat in watercolor", True, "image.english"),
    ("Please generate an image of a forest", True, "image.english"),
    ("paint me a picture of the sea", True, "image.english"),
    ("create an illustration for my blog", True, "image.english"),
    ("generate a report", False, None),
    # nothing to do with images
    ("周末露营", False, None),
]


@pytest.mark.parametrize(("text", "expected", "rule"), IMAGE_CASES)
def test_detect_image_intent(text: str, expected: bool, rule: str | None) -> None:
    assert detect_image_intent(text) is expected
    hit = image_hit(text)
    assert (hit.rule if hit else None) == rule


DETECTOR_CASES: list[tuple[Callable[[str], bool], str, bool]] = [
    # web search: the ten patterns
    (detect_web_search_intent, "帮我搜索一下露营地", True),
    (detect_web_search_intent, "搜一下上海的咖啡店", True),
    (detect_web_search_intent, "今天有什么新闻", True),
    (detect_web_search_intent, "明天天气怎么样", True),
    (detect_web_search_intent, "昨天的新闻", True),
    (detect_web_search_intent, "今天发生了什么", True),
    (detect_web_search_intent, "最新的科技新闻", True),
    (detect_web_search_intent, "最近有什么露营资讯", True),
    (detect_web_search_intent, "实时的股票数据", True),
    (detect_web_search_intent, "微博热搜", True),
    (detect_web_search_intent, "今天的头条", True),
    (detect_web_search_intent, "联网搜一下", True),
    (detect_web_search_intent, "上网查查", True),
    (detect_web_search_intent, "现在的金价价格", True),
    (detect_web_search_intent, "现在美元汇率多少", True),
    (detect_web_search_intent, "2024年3月发生了什么大事", True),
    (detect_web_search_intent, "search for camping news", True),
    (detect_web_search_intent, "the latest iPhone", True),
    (detect_web_search_intent, "露营要带什么", False),
    (detect_web_search_intent, "researcher tips", False),
    (detect_web_search_intent, "画一张猫", False),
    # time
    (detect_time_intent, "现在几点", True),
    (detect_time_intent, "几点了？", True),
    (detect_time_intent, "今天几号", True),
    (detect_time_intent, "今天星期几", True),
    (detect_time_intent, "周几", True),
    (detect_time_intent, "当前时间戳是多少", True),
    (detect_time_intent, "今天是什么日子", True),
    (detect_time_intent, "What time is it?", True),
    (detect_time_intent, "what's the date today", True),
    (detect_time_intent, "时间管理技巧", False),
    (detect_time_intent, "周末露营", False),
    # post
    (detect_post_intent, "帮我写一篇周末露营的小红书笔记", True),
    (detect_post_intent, "写一条种草文案", True),
    (detect_post_intent, "发一篇图文", True),
    (detect_post_intent, "write a post about camping", True),
    (detect_post_intent, "露营要带什么", False),
]


@pytest.mark.parametrize(
    ("detector", "text", "expected"), DETECTOR_CASES, ids=[f"{d.__name__}:{t}" for d, t, _ in DETECTOR_CASES]
)
def test_detectors(detector: Callable[[str], bool], text: str, expected: bool) -> None:
    assert detector(text) is expected


# (text, intent, needs_web_search)
RULE_CASES: list[tuple[str, str, bool]] = [
    ("帮我写一篇周末城市露营的小红书笔记，面向上班族", "full_post", False),
    ("写一篇露营笔记并配图", "full_post", False),
    ("写一篇露营笔记，再画一张封面", "full_post", False),  # image inside a post request
    ("周末露营", "full_post", False),  # a bare short topic
    ("秋冬通勤穿搭", "full_post", False),
    ("画一张夕阳下的海边", "image_only", False),
    ("可以生成超绝美少女吗", "image_only", False),
    ("draw a cat", "image_only", False),
    ("你还记得之前画的那张图吗", "question", False),  # excluded from images, and a question
    ("露营要带哪些装备？", "question", False),
    ("敏感肌能用果酸吗", "question", False),
    ("今天有什么热点新闻", "question", True),
    ("2024年3月发生了什么大事", "question", True),
    ("根据最新新闻写一篇小红书笔记", "full_post", True),
    ("现在几点", "time_query", False),
    ("今天星期几", "time_query", False),
    ("what time is it", "time_query", False),
]


@pytest.mark.parametrize(("text", "intent", "web"), RULE_CASES)
def test_rule_intent(text: str, intent: str, web: bool) -> None:
    decision = rule_intent(text)
    assert decision.intent == intent
    assert decision.needs_web_search is web
    assert decision.source == "rule"
    assert decision.rule and decision.rule not in decision.reasoning  # rule ids are for logs, not screens
    assert "判定为" in decision.reasoning
    assert 0 < decision.confidence <= 1


def test_rule_intent_explains_itself() -> None:
    decision = rule_intent("帮我写一篇周末城市露营的小红书笔记，面向上班族")
    assert decision.rule == "post.keyword"
    assert "小红书" in decision.keywords and "周末城市露营" in decision.keywords  # the hit, then the topic
    assert decision.suggested_category == "outdoor"

    image = rule_intent("画一张猫")
    assert (image.rule, image.confidence) == ("image.draw_measure", 0.85)
    assert image.keywords[0] == "画一张"
    assert rule_intent("画夕阳风景").confidence < image.confidence  # a descriptive rule is weaker

    excluded = rule_intent("我不会画画")
    assert excluded.intent == "full_post" and "image.not_unable" in excluded.rule

    assert rule_intent("露营装备测评").content_type == "review"
    assert rule_intent("").intent == "full_post"


def test_event_payloads_fit_the_events() -> None:
    decision = rule_intent("帮我写一篇露营装备测评笔记")
    intent_payload = decision.intent_detected_payload()
    assert set(intent_payload) == {"intent", "confidence", "keywords", "suggestedCategory", "source"}
    assert IntentDetected.model_validate(intent_payload).wire()["suggestedCategory"] == "outdoor"
    type_payload = decision.content_type_detected_payload()
    assert type_payload == {"contentType": "review", "confidence": 0.7, "reasoning": decision.reasoning}
    assert ContentTypeDetected.model_validate(type_payload).content_type == "review"


def test_decision_is_frozen() -> None:
    decision = rule_intent("周末露营")
    with pytest.raises(ValueError):
        decision.intent = "question"  # type: ignore[misc]


def test_prompt_carries_the_request_section() -> None:
    messages = prompt("intent").render(request="周末露营")
    assert [m["role"] for m in messages] == ["system", "user"]
    intents = ("full_post", "image_only", "question", "time_query")
    assert all(word in messages[0]["content"] for word in intents)
    assert parse_sections(messages[1]["content"]) == {"request": "周末露营"}


# --- classify_intent with the real offline provider -------------------------------------------------
@pytest.fixture
def llm() -> LLMGateway:
    return LLMGateway(LLMConfig())


@pytest.fixture
def failing_llm() -> Iterator[LLMGateway]:
    """An offline gateway whose every call fails. It reconfigures the process-wide offline provider,
    so the healthy configuration is restored afterwards."""
    try:
        yield LLMGateway(LLMConfig(offline_failure_rate=1.0, max_retries=0))
    finally:
        LLMGateway(LLMConfig())


async def test_classify_intent_uses_the_llm(llm: LLMGateway) -> None:
    decision = await classify_intent(llm, "帮我写一篇周末城市露营的小红书笔记")
    assert isinstance(decision, IntentDecision)
    assert decision.source == "llm"
    assert decision.intent == "full_post"
    assert decision.rule == ""
    assert decision.confidence >= 0.6
    assert [r.task for r in llm.meter.records] == ["intent"]


async def test_explicit_search_request_turns_web_search_on(llm: LLMGateway) -> None:
    decision = await classify_intent(llm, "搜索一下露营地推荐")
    assert decision.source == "llm"
    assert decision.needs_web_search is True


async def test_classify_intent_falls_back_when_the_llm_fails(failing_llm: LLMGateway) -> None:
    decision = await classify_intent(failing_llm, "画一张夕阳下的海边")
    assert decision.source == "rule"
    assert decision.intent == "image_only"
    assert decision.rule == "image.draw_measure"
    assert decision.fallback == "LLM_UNAVAILABLE" and "模型调用失败" in decision.reasoning
    assert [r.ok for r in failing_llm.meter.records] == [False]


async def test_classify_intent_falls_back_below_min_confidence(llm: LLMGateway) -> None:
    decision = await classify_intent(llm, "现在几点", min_confidence=0.99)
    assert decision.source == "rule"
    assert decision.intent == "time_query"
    assert "< 0.99" in decision.fallback and "把握不足" in decision.reasoning
    assert [r.ok for r in llm.meter.records] == [True]  # the model answered; its confidence was too low


# --- answer_time_query ------------------------------------------------------------------------------
def test_answer_time_query_naive_datetime_is_local() -> None:
    answer = answer_time_query(datetime(2024, 5, 1, 14, 30, 5))
    assert "14:30:05" in answer
    assert "2024年5月1日" in answer
    assert "星期三" in answer
    assert "Asia/Shanghai（UTC+08:00）" in answer
    assert "1714545005" in answer


def test_answer_time_query_converts_aware_datetimes() -> None:
    moment = datetime(2024, 12, 31, 20, 0, tzinfo=UTC)  # already 1 January in Shanghai
    answer = answer_time_query(moment)
    assert "04:00:00" in answer and "2025年1月1日" in answer and "星期三" in answer
    assert str(int(moment.timestamp())) in answer
    eastern = datetime(2024, 7, 4, 9, 0, tzinfo=timezone(timedelta(hours=-4)))
    new_york = answer_time_query(eastern, "America/New_York")
    assert "09:00:00" in new_york and "星期四" in new_york and "America/New_York（UTC-04:00）" in new_york


def test_answer_time_query_defaults_to_now() -> None:
    before = int(datetime.now(UTC).timestamp())
    answer = answer_time_query()
    stamp = int(answer.rsplit("：", 1)[1])
    assert before <= stamp <= before + 5


def test_a_countdown_to_a_day_is_a_time_query_answered_with_the_days_left() -> None:
    from agents.answer import answer_time_query as answered  # (the answer agent's own import)

    now = datetime(2026, 11, 29, 15, 0)
    assert "距离国庆（2027年10月1日）还有 306 天" in answered(now, request="离国庆还有多少天？")
    assert "距离春节（2027年2月6日）还有 69 天" in answered(now, request="距离春节还有几天")
    assert "距离圣诞（2026年12月25日）还有 26 天" in answered(now, request="How many days until Christmas?")
    assert "还有" not in answered(now, request="现在几点")
    assert rule_intent("离国庆还有多少天？").intent == "time_query"
    assert rule_intent("减脂期晚上饿了能吃点啥 有推荐的吗 别长篇大论").intent == "question"
