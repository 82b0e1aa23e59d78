"""The offline model answers every agent task with schema-valid, on-topic output (through litellm)."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from pydantic import BaseModel, create_model

from agents.artifacts import (
    Brief,
    Draft,
    EvidenceSummaryOutput,
    ImagePlanOutput,
    IntentOutput,
    LayoutSpec,
    ReferenceInsightOutput,
    ReviewOutput,
    SupervisorChoiceOutput,
)
from tools.llm import LLMConfig, LLMGateway
from tools.offline.schema import conform
from tools.prompting import to_prompt_value

NOTES = [
    {
        "id": "o1",
        "title": "上班族周末城市露营｜3小时搞定的松弛感🏕️",
        "tags": ["露营", "城市露营"],
        "desc": "周六早上10点出发，地铁40分钟到城郊公园营地，场地费30元一天。带一顶3秒速开帐篷就够了。"
        "傍晚6点风会变大，天幕一定要打好地钉。",
        "likes": 5320,
        "collects": 4100,
        "comments": 310,
    },
    {
        "id": "o2",
        "title": "新手露营装备清单，500元搞定",
        "tags": ["露营装备", "新手露营"],
        "desc": "帐篷200元左右的入门款足够，防潮垫一定要买，50元就有。睡袋选舒适温度10度的。总共不到500元。",
        "likes": 12000,
        "collects": 15000,
        "comments": 800,
    },
    {
        "id": "f1",
        "title": "5分钟减脂早餐｜打工人也能坚持",
        "tags": ["减脂餐", "早餐"],
        "desc": "燕麦40克加200毫升牛奶微波2分钟，再切半根香蕉。一份热量大约350千卡，饱腹到中午。",
        "likes": 2300,
        "collects": 3100,
        "comments": 120,
    },
]


def prompt(**sections: Any) -> list[dict[str, str]]:
    body = "\n\n".join(f"## {key} ({key})\n{to_prompt_value(value)}" for key, value in sections.items())
    return [{"role": "system", "content": "你是小红书内容团队的一员。"}, {"role": "user", "content": body}]


@pytest.fixture(scope="module")
def gateway() -> LLMGateway:
    return LLMGateway(LLMConfig())


REQUESTS = [
    ("帮我写一篇周末城市露营的小红书笔记，面向上班族", "outdoor", "露营"),
    ("写一篇适合新手的猫咪驱虫攻略", "pets", "驱虫"),
    ("来一篇秋冬通勤穿搭笔记", "fashion", "穿搭"),
    ("考研英语怎么复习？写个经验帖", "career", "考研"),
]


@pytest.mark.parametrize(("request_text", "theme", "word"), REQUESTS)
async def test_brief_and_draft_are_on_topic(
    gateway: LLMGateway, request_text: str, theme: str, word: str
) -> None:
    brief = await gateway.complete_structured("brief", prompt(request=request_text), Brief)
    assert brief.theme == theme
    assert word in brief.topic + "".join(brief.keywords)
    draft = await gateway.complete_structured("writer", prompt(request=request_text, brief=brief), Draft)
    assert word in draft.title + draft.body
    assert len(draft.title) <= 20
    assert 3 <= len(draft.tags) <= 8 and all(not t.startswith("#") for t in draft.tags)
    assert len(draft.paragraphs()) >= 4  # hook, points, tips, call to action


async def test_intent_table(gateway: LLMGateway) -> None:
    cases = {
        "帮我写一篇周末城市露营的小红书笔记": "full_post",
        "帮我画一张夕阳下的海边帐篷": "image_only",
        "露营要带哪些东西？": "question",
        "现在几点了": "time_query",
    }
    for text, expected in cases.items():
        out = await gateway.complete_structured("intent", prompt(request=text), IntentOutput)
        assert out.intent == expected, text


async def test_evidence_and_writer_are_grounded_in_retrieved_notes(gateway: LLMGateway) -> None:
    request = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
    brief = await gateway.complete_structured("brief", prompt(request=request), Brief)
    evidence = await gateway.complete_structured(
        "evidence", prompt(request=request, brief=brief, notes=NOTES), EvidenceSummaryOutput
    )
    sources = {f.source_id for f in evidence.facts}
    assert sources == {"o1", "o2"}  # the breakfast note is off-topic
    assert any("元" in f.text for f in evidence.facts)
    assert "露营" in evidence.recommended_tags
    assert any("数字" in p for p in evidence.title_patterns)
    draft = await gateway.complete_structured(
        "writer", prompt(request=request, brief=brief, evidence=evidence), Draft
    )
    assert "30元" in draft.body or "500元" in draft.body or "50元" in draft.body  # facts made it in
    assert "露营" in draft.tags


async def test_reject_feedback_changes_the_draft(gateway: LLMGateway) -> None:
    request = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
    brief = await gateway.complete_structured("brief", prompt(request=request), Brief)
    evidence = await gateway.complete_structured(
        "evidence", prompt(request=request, brief=brief, notes=NOTES), EvidenceSummaryOutput
    )
    first = await gateway.complete_structured(
        "writer", prompt(request=request, brief=brief, evidence=evidence), Draft
    )
    second = await gateway.complete_structured(
        "writer",
        prompt(
            request=request,
            brief=brief,
            evidence=evidence,
            feedback="太长了，精简一点，多讲预算",
            previous=first,
        ),
        Draft,
    )
    assert second.title != first.title
    assert len(second.body) < len(first.body)
    # the budget is written about, with its prices; shortened lists keep some points (never none)
    budget = next(p for p in second.paragraphs() if "预算" in p.split("\n")[0])
    assert sum(bool(re.search(r"\d+元", line)) for line in budget.split("\n")[1:]) >= 2, second.body
    assert sum(p.count("\n") for p in second.paragraphs()[1:-1]) >= 3


async def test_layout_plans_and_review_follow_the_draft(gateway: LLMGateway) -> None:
    request = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
    brief = await gateway.complete_structured("brief", prompt(request=request), Brief)
    draft = await gateway.complete_structured("writer", prompt(request=request, brief=brief), Draft)
    layout = await gateway.complete_structured(
        "layout", prompt(brief=brief, draft=draft, image_count=5, preference="dense"), LayoutSpec
    )
    assert [i.role for i in layout.items] == ["cover", "detail", "detail", "detail", "result"]
    assert all(i.text_density == "high" for i in layout.items)
    plans = await gateway.complete_structured(
        "image_plan", prompt(brief=brief, draft=draft, layout=layout), ImagePlanOutput
    )
    assert [p.index for p in plans.plans] == [1, 2, 3, 4, 5]
    assert plans.overlays[0].headline and plans.overlays[0].headline in draft.title.replace("🏕️", "")
    n_paragraphs = len(draft.paragraphs())
    assert all(0 <= b.paragraph_index < n_paragraphs for b in plans.bindings)
    assert "露营" in plans.style_query

    review = await gateway.complete_structured(
        "review",
        prompt(
            brief=brief,
            draft=draft,
            plans=plans.plans,
            bindings=plans.bindings,
            images=[{"index": p.index, "status": "complete"} for p in plans.plans],
        ),
        ReviewOutput,
    )
    weak = Draft(
        title="笔记",
        body="今天去玩了，感觉很好，大家也可以去看看，真的很不错的一个地方，推荐推荐推荐。" * 8,
        tags=["生活"],
    )
    poor = await gateway.complete_structured(
        "review", prompt(draft=weak, plans=[], bindings=[]), ReviewOutput
    )
    assert review.overall > poor.overall
    assert poor.scores.platform_fit < review.scores.platform_fit
    assert poor.fail_reasons and not review.fail_reasons


async def test_reference_reading_from_pixel_analysis(gateway: LLMGateway) -> None:
    analysis = {
        "palette": [{"hex": "#F4E9DC", "share": 0.5}, {"hex": "#C9A27E", "share": 0.3}],
        "brightness": 0.82,
        "saturation": 0.2,
        "tone": "warm",
        "textDensity": "low",
    }
    out = await gateway.complete_structured(
        "reference", prompt(analysis=analysis, usage="style"), ReferenceInsightOutput
    )
    assert out.palette[:2] == ["#F4E9DC", "#C9A27E"]
    assert "暖色调" in out.style_keywords


async def test_supervisor_fallback_picks_from_the_allowlist(gateway: LLMGateway) -> None:
    choice_model = create_model(
        "Choice", __base__=SupervisorChoiceOutput, next_agent=(Literal["writer", "review"], ...)
    )
    out = await gateway.complete_structured("supervisor", prompt(expected="review"), choice_model)
    assert out.next_agent == "review"
    out = await gateway.complete_structured("supervisor", prompt(expected="image"), choice_model)
    assert out.next_agent == "writer"
    only = create_model("Only", __base__=SupervisorChoiceOutput, next_agent=(Literal["layout"], ...))
    out = await gateway.complete_structured("supervisor", prompt(), only)  # a one-value enum is a `const`
    assert out.next_agent == "layout"


async def test_simulated_latency_is_the_whole_call() -> None:
    """The latency is a floor on each call's duration, composing included (so model time is known)."""
    try:
        slow = LLMGateway(LLMConfig(offline_latency_ms=150))
        await slow.complete_structured("brief", prompt(request="周末露营"), Brief)
        [record] = slow.meter.records
        assert record.latency_ms >= 150
    finally:
        LLMGateway(LLMConfig())  # the offline provider is process-wide: restore its defaults


async def test_unknown_task_still_gets_schema_valid_output(gateway: LLMGateway) -> None:
    class Poll(BaseModel):
        question: str
        options: list[str]
        votes: int

    out = await gateway.complete_structured("poll", prompt(request="周末露营投票"), Poll)
    assert out.question and isinstance(out.votes, int)


def test_conform_fills_trims_and_clamps() -> None:
    schema = IntentOutput.model_json_schema(by_alias=True)
    fixed = conform({"intent": "nonsense", "confidence": 3, "keywords": ["a"] * 20, "extra": 1}, schema)
    out = IntentOutput.model_validate(fixed)
    assert out.intent == "full_post" and out.confidence == 1 and len(out.keywords) == 12


def test_writer_lines_keep_whole_clauses_and_drop_list_numbering() -> None:
    from tools.offline.material import as_line as _line
    from tools.offline.text import sentences

    assert sentences("1. 安吉的一个竹林营地，营位一晚200元。2、早上6点出发骑到太湖边") == [
        "安吉的一个竹林营地，营位一晚200元。",
        "早上6点出发骑到太湖边",
    ]
    excerpt = "第三个月：跟着骑行群参加了第一次50公里的长途，平均速…"
    assert _line(excerpt) == "第三个月：跟着骑行群参加了第一次50公里的长途"
    assert _line("我坚持了6周，一周5次…") is None  # nothing whole is left worth a line
    assert _line("早餐：一杯无糖豆浆、一个鸡蛋。") == "早餐：一杯无糖豆浆、一个鸡蛋"
    assert _line("带爸妈出去玩了三次，总结出的经验") is None  # a heading, not a fact
    assert _line("去了之后才发现最好的时间是") is None  # cut mid-phrase
    assert _line("总结几个要点：1. 优先选物理防晒，刺激小") == "优先选物理防晒，刺激小"
    assert _line("他说“别急着买") is None  # an open quote


def test_recommended_tags_follow_the_topic_not_the_theme() -> None:
    from tools.offline.writing import _recommended_tags

    cycling = [
        {"title": "环太湖骑行", "desc": "一天骑了100公里", "tags": ["骑行", "环太湖"]},
        {"title": "新手骑行装备", "desc": "头盔和骑行裤", "tags": ["骑行", "骑行装备"]},
    ]
    tags = _recommended_tags(["骑行", "西湖"], cycling, ["露营", "秋冬露营", "周末去哪儿", "骑行路线"])
    assert tags[:2] == ["骑行", "骑行装备"]  # the notes' tags on the subject first
    assert "骑行路线" in tags and not {"露营", "秋冬露营", "周末去哪儿"} & set(tags)
    assert "环太湖" not in tags  # one note's own matter (another lake) is no tag of a 西湖 ride


def test_the_subject_is_the_thing_not_its_span_and_the_theme_follows_it() -> None:
    from tools.offline.drafting import subject_of

    assert subject_of("新手在家练普拉提的第一个月", "") == "新手在家练普拉提"
    assert subject_of("猫咪第一次打疫苗要注意什么", "") == "猫咪第一次打疫苗"
    assert subject_of("上班族通勤路上可以听的播客推荐", "") == "播客"
    assert subject_of("“露营早餐”一锅出", "") == "露营早餐一锅出"  # a quoted subject without its marks
    # where is asked: the thing is what the post is about (not 南京秋天 alone)
    assert subject_of("苏州冬天去哪看梅花", "") == "苏州冬天梅花"
    assert subject_of("武汉哪里的热干面好吃", "") == "武汉热干面"


@pytest.mark.parametrize(
    ("request_text", "theme"),
    [
        ("上班族通勤路上可以听的播客推荐", "career"),  # about 播客, whatever 通勤 suggests
        ("延吉三天两晚美食和拍照行程", "travel"),  # the subject still says the trip
        ("周末在家做一顿日式咖喱", "food"),
        # no theme's trigger word: the scene it names, then its words (the frame 写篇笔记 is no study note)
        ("去年冬天坐了一夜的绿皮火车硬座，想说说怎么熬过来的", "travel"),
        ("在互联网公司做了两年运营，最近转岗去做产品，聊聊这段时间", "career"),
        ("第一次在家给仓鼠换垫料，写篇笔记", "pets"),
        # a bag on one's back is no fashion; a pipe, a tap or a toilet is the home; a first taste is food
        ("五一特种兵出游，一个双肩包装下三天的行李，写个清单", "travel"),
        ("卫生间马桶堵了，自己用皮搋子疏通好了，写篇笔记", "home"),
        ("在成都吃到了人生第一口冒菜，写篇笔记", "food"),
        # what is asked about (笼子、垫料和饮食) is the pet's, not a diet plan's; a dish of rabbit is food
        ("第一次养龙猫，笼子、垫料和饮食要注意什么？写个清单", "pets"),
        ("带孩子去平遥古城玩两天，写篇亲子游攻略", "travel"),  # a trip to a named place stays a trip
        ("在乐山吃了冷吃兔和跷脚牛肉，写篇探店笔记", "food"),
    ],
)
def test_the_theme_follows_the_thing_itself(request_text: str, theme: str) -> None:
    import random

    from tools.offline.briefing import compose_brief
    from tools.offline.context import Context

    sections = {"request": request_text}
    ctx = Context(task="brief", sections=sections, last_user="", schema=None, rng=random.Random(1))
    assert compose_brief(ctx)["theme"] == theme


def test_a_count_is_no_part_of_the_subject_and_a_trip_is_no_list_of_things() -> None:
    from tools.offline.drafting import subject_of

    assert subject_of("成都必吃的几家火锅推荐", "") == "成都火锅"
    assert subject_of("秋冬必备的三款保湿面霜推荐", "") == "保湿面霜"
    assert subject_of("一个人的旅行", "") == "一个人的旅行"  # 一个人 is who, not how many


def test_a_long_subject_is_never_cut_through_the_middle() -> None:
    """A title's subject is at most ten characters: a long one keeps its last thing and what kind of thing
    it is, or drops when and what one meant first — never its end (七月打算去东极岛海边 lost the camping)."""
    from tools.offline.drafting import subject_of

    assert subject_of("八月打算去涠洲岛海边露营", "") == "涠洲岛海边露营"
    assert subject_of("出租屋厨房不用工具也能变整洁的收纳", "") == "出租屋厨房收纳"
    assert subject_of("一个人坐了二十几个小时硬座火车的回家路", "") == "硬座火车回家路"
    assert subject_of("狗狗换粮怎么换才不拉稀", "") == "狗狗换粮"  # how (怎么换) is no thing
    assert subject_of("成都玉林路宠物友好餐厅合集", "") == "玉林路宠物友好餐厅"  # the street says the city


def test_a_subject_never_ends_on_a_loose_word_or_half_an_english_phrase() -> None:
    from tools.offline.drafting import _nominal, _tidy_end, subject_of

    assert subject_of("卫生间花洒软管一直往外渗水", "") == "卫生间花洒软管"
    assert subject_of("阳台推拉门轨道总是卡住", "") == "阳台推拉门轨道"
    assert subject_of("坚持hiit训练三个月", "") == "hiit训练三个月"
    assert _tidy_end("zone 2慢跑三个") == "zone 2慢跑" and _tidy_end("泉州古城两天一夜") == "泉州古城两天一夜"
    assert subject_of("通勤smart casual穿搭：西装加直筒裤", "") == "通勤"  # not 通勤smart
    # a state or an event is no thing: titles put it before ｜ or ，, never inside 把…安排明白了
    assert not _nominal("纱窗发黄发脆") and _nominal("阳台晾衣架") and _nominal("东极岛海边露营")


def test_a_heading_key_is_never_a_span_of_time() -> None:
    from tools.offline.drafting import _key

    assert _key("半年护肤", ["闭口", "皮肤", "半年", "护肤"]) == "护肤"
    assert _key("大连看海的两天一夜", ["大连", "看海", "两天一夜"]) != "两天一夜"


def test_a_heading_key_is_a_thing_not_a_doing_or_a_lesson() -> None:
    """带的东西和睡上铺的小经验 is headed by 上铺, not 小经验 or 带; 用过的尾灯和反光装备 by the gear."""
    from tools.offline.drafting import _key

    assert _key("带的东西和坐硬座的小经验") == "硬座"
    assert _key("用过的头灯和保暖睡袋") in {"头灯", "保暖睡袋", "睡袋"}
    assert _key("好用的婴儿推车") == "婴儿推车"  # a short head after 的 is still the key


def test_a_line_that_says_an_earlier_one_again_is_dropped() -> None:
    """A scene's advice and a note's line may name the same three things: the post says it once."""
    from tools.offline.drafting import _distinct

    first, again = "速干衣和涉水鞋穿上，手机装进防水袋", "建议穿速干衣，手机一定放防水袋"
    assert _distinct([first, "出发前看天气", again, "结伴下水"]) == [first, "出发前看天气", "结伴下水"]


def test_of_a_scene_s_advice_what_names_the_subject_comes_first() -> None:
    """A grooming scene holds bathing and nail tips: a post on trimming claws says the nail tip first."""
    import random

    from tools.offline.context import Context
    from tools.offline.drafting import compose_draft

    brief = {"topic": "猫咪剪指甲", "theme": "pets", "contentType": "guide", "keywords": ["剪指甲"]}
    sections = {"request": "给猫咪剪指甲的小技巧", "brief": brief, "evidence": {"facts": []}}
    for seed in range(5):
        ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(seed))
        body = compose_draft(ctx)["body"]
        assert "剪指甲只剪" in body.split("\n\n")[1]  # the first list: the nail tip among the points


def test_a_word_only_of_how_long_the_writer_has_been_at_it_keeps_no_line() -> None:
    """入职 of 入职三个月 is context: a note's offer-letter line that shares only it stays out of a post on
    reporting to one's boss."""
    import random

    from tools.offline.context import Context
    from tools.offline.drafting import compose_draft

    lead = {"sourceId": "a", "sourceTitle": "向领导汇报的顺序"}
    facts = [
        {**lead, "text": "汇报先说结论，再说原因，最后给方案。"},
        {**lead, "text": "汇报前把数据核对一遍，别临场翻表。"},
        {**lead, "text": "每周五下班前发一封简短的进度汇报邮件。"},
        {"sourceId": "b", "sourceTitle": "求职", "text": "拿到口头offer后，要求书面邮件写明薪资和入职日期。"},
    ]
    brief = {"topic": "我学会的向上汇报", "theme": "career", "contentType": "guide", "keywords": ["入职"]}
    sections = {"request": "入职三个月，写写我学会的向上汇报", "brief": brief, "evidence": {"facts": facts}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(3))
    body = compose_draft(ctx)["body"]
    assert "汇报" in body and "offer" not in body


def test_leaves_are_not_flowers_and_a_long_subject_drops_its_season_first() -> None:
    """秋天去南京栖霞山看红叶: the title kept 秋天去…看 and lost 红叶 (a cut from the end), and the post gave
    flower-field advice (bees, 花田) for a leaf-peeping trip."""
    from tools.offline.drafting import subject_of
    from tools.offline.voice import scene_tips

    assert subject_of("秋天去南京栖霞山看红叶", "") == "南京栖霞山看红叶"
    assert subject_of("冬天去哈尔滨看冰雕", "") == "冬天去哈尔滨看冰雕"  # short enough: the season stays
    for subject in ("南京栖霞山看红叶", "杭州看银杏", "北京香山赏枫"):
        tips = "".join(scene_tips("travel", subject, f"写一篇{subject}的攻略"))
        assert "叶" in tips and "蜜蜂" not in tips and "花田" not in tips
    assert "蜜蜂" in "".join(scene_tips("travel", "武汉大学看樱花", "武汉大学看樱花攻略"))


async def test_a_subject_no_theme_covers_gets_advice_said_of_it(gateway: LLMGateway) -> None:
    """A guitar is no place and no theme of the corpus: the post's advice is said of the guitar, not a
    trip's (住处选在主要景点附近), and a question topic is asked whole in the title."""
    request_text = "出一篇《新手如何挑选第一把吉他》的图文"
    brief = await gateway.complete_structured("brief", prompt(request=request_text), Brief)
    assert brief.theme != "travel"
    draft = await gateway.complete_structured("writer", prompt(request=request_text, brief=brief), Draft)
    assert draft.title.startswith("新手如何挑选第一把吉他")
    listed = [ln for ln in draft.body.splitlines() if ln.startswith(("1️⃣", "2️⃣", "3️⃣", "·"))]
    assert listed and any("吉他" in ln for ln in listed)
    assert not any(w in draft.body for w in ("景点", "行程", "住处"))
    # (said so it reads of any subject: no 第一次接触吉他 nor 吉他相关的东西)
    assert not any(w in draft.body for w in ("接触吉他", "吉他相关"))


async def test_a_post_on_keeping_turtles_gives_no_other_pet_s_advice(gateway: LLMGateway) -> None:
    request_text = "写篇帖子聊聊为什么越来越多年轻人开始养乌龟"
    brief = await gateway.complete_structured("brief", prompt(request=request_text), Brief)
    draft = await gateway.complete_structured("writer", prompt(request=request_text, brief=brief), Draft)
    assert "乌龟" in draft.title + draft.body
    assert not any(w in draft.body for w in ("狗狗", "美容师", "猫砂", "遛狗"))


async def test_a_redo_keeps_the_title_the_creator_named_unless_asked_for_another(gateway: LLMGateway) -> None:
    request_text = "写一篇笔记，标题就叫“今天也是努力存钱的一天”，讲讲我的记账方法"
    brief = await gateway.complete_structured("brief", prompt(request=request_text), Brief)
    first = await gateway.complete_structured("writer", prompt(request=request_text, brief=brief), Draft)
    assert first.title == "今天也是努力存钱的一天"
    previous = first.model_dump(by_alias=True)
    critic = "正文只有2处具体信息（数字、价格、时长），干货偏少"
    redo = await gateway.complete_structured(
        "writer", prompt(request=request_text, brief=brief, previous=previous, review_feedback=critic), Draft
    )
    assert redo.title == first.title
    asked = await gateway.complete_structured(
        "writer", prompt(request=request_text, brief=brief, previous=previous, feedback="换个标题"), Draft
    )
    assert asked.title != first.title


async def test_a_pet_friendly_restaurant_post_speaks_of_pets_in_restaurants(gateway: LLMGateway) -> None:
    """The scene that names more of the subject wins (宠物友好餐厅, not any 餐厅 nor a pet's trip), and a tag
    names the whole street (#玉林路, not 广西's 玉林)."""
    request_text = "成都玉林路宠物友好餐厅合集，可以带猫的那种，写篇笔记"
    brief = await gateway.complete_structured("brief", prompt(request=request_text), Brief)
    draft = await gateway.complete_structured("writer", prompt(request=request_text, brief=brief), Draft)
    assert "餐厅" in draft.title and "铲屎官" in (brief.audience or "")
    assert "店" in draft.body and any(w in draft.body for w in ("牵引绳", "猫包", "水碗"))
    assert not any(w in draft.body for w in ("高铁", "飞机", "航空箱", "招牌"))
    assert "玉林路" in draft.tags and "玉林" not in draft.tags
