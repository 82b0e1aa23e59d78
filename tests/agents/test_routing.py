"""Routing on the labelled set (data/routing/requests.jsonl): the rule fallback and the offline model
(through the real litellm provider and LLMGateway, as the agents call it) must each route ≥ 98 % of the
requests of each split right — the held-out third was marked before the rules were tuned. English and
mixed requests become a Chinese topic."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.intent import classify_intent, rule_intent
from tools.bilingual import localize
from tools.llm import LLMConfig, LLMGateway
from tools.offline.text import extract_audience
from tools.offline.topic import extract_topic

SET = Path(__file__).resolve().parents[2] / "data" / "routing" / "requests.jsonl"
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line
]
INTENTS = ("full_post", "question", "time_query", "image_only")


@pytest.fixture
def offline_llm() -> Iterator[LLMGateway]:
    yield LLMGateway(LLMConfig())  # the default model is the embedded offline one


def matrix(pairs: list[tuple[str, str]]) -> str:
    """The confusion matrix (rows: expected, columns: routed) as text for the assertion message."""
    counts = Counter(pairs)
    head = "expected \\ routed".ljust(18) + "".join(i.rjust(12) for i in INTENTS)
    lines = [head] + [
        want.ljust(18) + "".join(str(counts[(want, got)]).rjust(12) for got in INTENTS) for want in INTENTS
    ]
    return "\n".join(lines)


def check(split: str, decide: Callable[[str], str]) -> None:
    rows = [r for r in ROWS if r["split"] == split]
    pairs = [(r["intent"], decide(r["text"])) for r in rows]
    wrong = [(r["text"], want, got) for r, (want, got) in zip(rows, pairs, strict=True) if want != got]
    accuracy = 1 - len(wrong) / len(rows)
    assert accuracy >= 0.98, f"{split}: {accuracy:.1%}\n{matrix(pairs)}\nwrong: {wrong}"


FIRST_SET = 154  # rows written before the rules were tuned


def test_the_set_is_big_enough_and_split_before_tuning() -> None:
    assert len(ROWS) >= 150
    assert sum(r["kind"] == "trap" for r in ROWS) >= 30
    assert {r["intent"] for r in ROWS} == set(INTENTS)
    # a third of the set as first written was held out before the rules were tuned; the rows added later
    # (a probe of other phrasings, data/routing/README.md) were seen while fixing, so all are train rows
    first = ROWS[:FIRST_SET]
    holdout = [r for r in first if r["split"] == "holdout"]
    assert len(holdout) >= len(first) // 3 and {r["intent"] for r in holdout} == set(INTENTS)
    assert all(r["split"] == "train" for r in ROWS[FIRST_SET:])
    assert len({r["text"] for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("split", ["train", "holdout"])
def test_the_rule_fallback_routes_the_set(split: str) -> None:
    check(split, lambda text: rule_intent(text).intent)


@pytest.mark.parametrize("split", ["train", "holdout"])
async def test_the_offline_model_routes_the_set(offline_llm: LLMGateway, split: str) -> None:
    decided: dict[str, str] = {}
    sources: Counter[str] = Counter()
    for row in ROWS:
        if row["split"] == split:
            decision = await classify_intent(offline_llm, row["text"])
            decided[row["text"]] = decision.intent
            sources[decision.source] += 1
    assert sources["llm"] >= 0.9 * sum(sources.values()), sources  # the model decided, not the fallback
    check(split, decided.__getitem__)


@pytest.mark.parametrize(
    ("request_text", "intent"),
    [
        ("寒假时间规划经验分享，给大学生", "full_post"),
        ("上班族时间管理心得，怎么做到不加班", "full_post"),
        ("跑步减肥怎么吃，新手食谱推荐", "full_post"),
        ("露营需要准备什么？写个清单", "full_post"),
        ("上班族颈椎痛怎么办？", "question"),
        ("现在几点", "time_query"),
        ("星期几去爬山人最少，写一篇攻略", "full_post"),
        ("周几去游泳馆人最少？", "question"),  # a weekday in a question is not the calendar
        ("我的探店笔记为什么没人看？", "question"),  # the note is the subject, not the ask
        ("有什么适合学生党的平价护肤推荐吗？", "question"),  # a weak marker inside a question to us
        ("学生党平价护肤推荐", "full_post"),
    ],
)
async def test_issue_cases_route_alike_in_both(
    offline_llm: LLMGateway, request_text: str, intent: str
) -> None:
    assert rule_intent(request_text).intent == intent
    assert (await classify_intent(offline_llm, request_text)).intent == intent


@pytest.mark.parametrize(
    ("request_text", "topic", "audience"),
    [
        ("Write a post about hiking in Hangzhou", "杭州徒步", None),
        ("Recommend some budget coffee shops in Shanghai", "上海平价咖啡店", None),
        ("write a xiaohongshu post about camping for beginners", "露营", "新手"),
        ("帮我写一篇 Tokyo travel guide 的笔记", "东京旅行攻略", None),
        ("a yoga routine for office workers", "瑜伽日常流程", "上班族"),
    ],
)
def test_english_requests_get_a_chinese_topic(request_text: str, topic: str, audience: str | None) -> None:
    assert extract_topic(request_text) == topic
    assert extract_audience(request_text) == audience


def test_unknown_english_words_stay_english() -> None:
    assert localize("Write about quokka photography in Grindelwald") == "Grindelwald quokka摄影"
    assert localize("Write about quokka photography in Perth") == "珀斯quokka摄影"  # (a town abroad known)
    assert localize("秋冬通勤穿搭") == "秋冬通勤穿搭"  # Chinese is left alone


def test_english_durations_read_as_chinese() -> None:
    assert localize("Chengdu 3 days food trip") == "成都3天美食旅行"
    assert localize("two nights in Xiamen") == "两晚厦门"
    assert "5天" in localize("a 5-day hike for beginners")


def test_an_english_experience_request_is_about_what_was_experienced() -> None:
    assert extract_topic("Share my experience adopting a shelter cat") == "领养流浪猫"
    assert extract_topic("健身 beginner 的 full body 训练计划，写成小红书") == "健身新手的全身训练计划"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("怎么平衡带娃和上班？聊聊我请育儿嫂的经历", "full_post"),  # telling one's own story is a post
        ("说说我考驾照挂了两次科目二的心得", "full_post"),
        ("你能说说我该怎么办吗", "question"),  # …asking what to do is not
        ("帮我生成一张秋日野餐的氛围图，只要图片，不需要配文", "image_only"),  # the text turned down
        ("做一张圣诞节海报就行，不用写文案", "image_only"),
        ("帮我的柯基出两张生日配图，文案我自己来", "image_only"),
        ("帮我写一篇文案，不用配图", "full_post"),
        ("生成三张小狗在草地上打滚的图就行，文案不要", "image_only"),  # refused after its noun
        ("出两张海边日落的图，文字就不用了", "image_only"),
        ("文案不要太长，写个露营攻略", "full_post"),  # how the text should be is no refusal
        ("给这篇烘焙笔记配两张图，文案我已经写好了", "image_only"),  # the text is already written
        ("做一张猫咪生日的封面，文字不用写", "image_only"),
        ("Could you write a short note on repotting a monstera?", "full_post"),  # a polite ask to make
        ("Can you help me write a packing list for a ski trip?", "full_post"),
        ("Can you tell me what to pack for a ski trip?", "question"),  # …asking for advice is not
        ("电饭煲新手必看的几个用法", "full_post"),  # 必看 says it is for readers
        ("这几部电影必看吗？", "question"),
        ("帮我写一篇猫咪晒太阳的笔记，配图就行", "full_post"),
        ("把这些旅行照片做成卡片，正文暂时别写", "image_only"),  # the text refused for now
        ("做几张咖啡知识卡片，纯图片就行", "image_only"),
        ("跑步机和椭圆机我该买哪个？推荐一下", "question"),  # the asker's own choice, whatever 推荐 says
        ("分享一下你们的看法，我要不要养第二只猫", "question"),
        ("我该不该辞职读研？写篇笔记聊聊我的纠结", "full_post"),  # …unless it asks for writing outright
        ("今天农历初几", "time_query"),  # the lunar calendar is the calendar too
        ("明天的阴历是几月几号？", "time_query"),
    ],
)
async def test_stories_refused_text_and_the_lunar_date(
    offline_llm: LLMGateway, text: str, intent: str
) -> None:
    """Written after the fresh request round of session 4 showed these three misroutes (kept out of the
    labelled set, whose held-out third predates the rules)."""
    assert rule_intent(text).intent == intent
    decision = await classify_intent(offline_llm, text)
    assert (decision.intent, decision.source) == (intent, "llm")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("我练了两个月俯卧撑，从跪着做到能连做20个，想分享一下这个过程", "story"),  # a count of what was done
        ("推荐5个适合周末去的小众公园", "list"),  # a count of things recommended
        ("杭州三个宝藏咖啡馆", "list"),
        ("我的考研经历", "story"),
        ("三岁宝宝挑食怎么办，分享几个我家的办法", "guide"),  # a count of ways is tips on how, no list
        ("早起的3个小技巧", "guide"),
    ],
)
def test_a_count_makes_a_list_unless_a_story_says_otherwise(text: str, kind: str) -> None:
    from tools.routing import content_type_of

    assert content_type_of(text)[0] == kind


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("几点啦？", "time_query"),
        ("请问现在是几点几分", "time_query"),
        ("今儿个礼拜几", "time_query"),
        ("今天什么日期", "time_query"),
        ("今天阳历多少号", "time_query"),
        ("现在是几月份", "time_query"),
        ("今年是哪一年", "time_query"),
        ("帮我报个时", "time_query"),
        ("今天是一年中的第几天", "time_query"),
        ("which day of the week is it today", "time_query"),
        ("tell me the time please", "time_query"),
        ("time now?", "time_query"),
        ("what year is it", "time_query"),
        ("现在北京时间？", "time_query"),
        ("帮忙看下时间", "time_query"),
        ("今天是不是周五", "time_query"),
        ("is today friday?", "time_query"),
        ("unix time now", "time_query"),
        ("How late is it now?", "time_query"),
        # a time inside a wider question or post is not the clock
        ("今天什么日期适合搬家", "question"),
        ("今天几点去西湖看日落最好看", "question"),
        ("现在是上午还是下午去爬山比较好", "question"),
        ("what time should I visit the Forbidden City", "question"),
        ("现在几月份去云南合适", "question"),
        ("帮我写一篇周末几点去爬山的攻略", "full_post"),
    ],
)
def test_the_clock_and_calendar_asked_in_other_words(text: str, intent: str) -> None:
    """Time queries are the whole ask: the clock, the date, the weekday, the year, said any way; a time
    word inside a wider question is that question."""
    assert rule_intent(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # pictures asked for in other words
        ("来张赛博朋克风的城市夜景图", "image_only"),  # a measure word without a numeral
        ("我需要三张露营的氛围图", "image_only"),
        ("帮我P一张生日派对背景图", "image_only"),
        ("配图：雪山下的小木屋", "image_only"),  # a picture noun as a label
        ("给我整几张猫咪表情包", "image_only"),  # 几张 of a picture is no question
        ("图就行，别写字", "image_only"),
        ("想要一幅梵高风格的向日葵", "image_only"),
        ("请设计一个宠物店的logo", "image_only"),
        ("帮我把这张照片换成宫崎骏的画风", "image_only"),
        ("a poster for a jazz night, just the image", "image_only"),
        ("I'd like an illustration of a fox in the snow", "image_only"),
        # a post word that only says what the picture is for
        ("小红书封面图，主题是早八通勤妆", "image_only"),
        ("做一张极简风格的待办清单卡片背景", "image_only"),
        ("I just need a cover image for my travel vlog", "image_only"),
        ("周末在家做蛋挞的教程，配几张图", "full_post"),
        ("封面图怎么做才好看", "question"),
        # questions asked in other words
        ("新手适合买哪款跑鞋", "question"),
        ("求推荐适合油皮的防晒", "question"),
        ("我的绿萝老是黄叶，咋整", "question"),
        ("学游泳一般几节课能学会", "question"),
        ("为啥我的面包烤出来是硬的", "question"),
        ("考驾照科目二难不难", "question"),
        ("大家觉得周末去爬山还是去逛展好", "question"),
        ("any tips for falling asleep faster?", "question"),
        ("写一篇哪款扫地机器人性价比高的测评", "full_post"),
        ("帮我写一篇周末去哪玩的推荐笔记，标题要有悬念", "full_post"),
    ],
)
def test_pictures_and_questions_asked_in_other_words(text: str, intent: str) -> None:
    """Each line stands for a way of asking (written after the misroutes of probes kept out of the
    labelled set): a measure word, a label, a style or a design names a picture; 哪款, 咋, 为啥, A不A and
    A还是B好 ask."""
    assert rule_intent(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("用了三个月的洗地机，说说优缺点和适合什么家庭", "full_post"),  # a span of use told, then 说说
        ("用了三个月的洗地机，适合什么家庭？", "question"),
        ("被裁员后三个月，我是怎么调整心态重新找工作的", "full_post"),  # 我是怎么…的 tells how
        ("我是怎么胖了十斤的？", "question"),
        ("第一次带猫搬家，提前一周做了哪些准备", "full_post"),  # what was done, listed
        ("搬家前要做哪些准备？", "question"),
        ("露营咖啡怎么煮，挂耳和摩卡壶对比", "full_post"),  # a comparison asked for
        ("挂耳和摩卡壶对比哪个好？", "question"),
        ("做两张对比图：装修前和装修后", "image_only"),
    ],
)
def test_told_experiences_and_comparisons_are_posts(text: str, intent: str) -> None:
    assert rule_intent(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("健身三个月，说说饮食是怎么安排的", "full_post"),  # how the writer did it, asked to be told
        ("健身三个月，饮食怎么安排？", "question"),
        ("小户型客厅怎么摆才显大，附我家改造前后", "full_post"),  # the writer's own pictures attached
        ("附近有什么好吃的", "question"),
    ],
)
def test_a_telling_of_how_it_was_done_and_an_attachment_are_posts(text: str, intent: str) -> None:
    assert rule_intent(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("油皮夏天怎么选粉底液，我试了四款说说感受", "full_post"),  # things tried, counted, then 说说
        ("衣柜收纳改造，用了宜家的几个收纳盒", "full_post"),  # 几个 of things used is "a few"
        ("用了几个收纳盒还是乱怎么办", "question"),
        ("我最近下巴一直爆痘 换了三个洗面奶都没用 是不是内分泌的问题啊", "question"),
    ],
)
def test_things_used_counted_are_told_not_asked(text: str, intent: str) -> None:
    assert rule_intent(text).intent == intent
