"""Editor feedback read as operations (tools.feedback), and the offline writer applying each of them."""

from __future__ import annotations

from typing import Any

import pytest

from agents.artifacts import Brief, Draft
from tools.feedback import emoji_count, parse, unmet
from tools.llm import LLMConfig, LLMGateway
from tools.prompting import to_prompt_value


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("删掉银河和泉州的内容", "avoid", ["银河", "泉州"]),
        ("卡式炉那部分删掉，我们不带这个", "avoid", ["卡式炉"]),  # 那部分 points at what it follows
        ("把那段删掉", "avoid", []),  # names nothing: never 把, which would delete every line holding it
        ("正文不要出现成都", "avoid", ["成都"]),
        ("别提价格了", "avoid", ["价格"]),
        ("标题里加上周末", "title_add", ["周末"]),
        ("标题要有「亲测」", "title_add", ["亲测"]),
        ("标题改成「三天玩遍厦门」", "title_set", "三天玩遍厦门"),
        ("多写点预算", "expand", ["预算"]),
        ("住宿部分写详细点", "expand", ["住宿"]),
        ("太长了，精简一下", "length", "shorter"),
        ("内容太短，再丰富一些", "length", "longer"),
        ("写得正式一些", "tone", "formal"),
        ("语气口语化一点", "tone", "colloquial"),
        ("再活泼一点", "tone", "lively"),
        ("改成面向大学生", "audience", "大学生"),
        ("写给退休阿姨看", "audience", "退休阿姨"),
        ("多加点emoji", "emoji", "more"),
        ("表情太多了", "emoji", "fewer"),
        ("不要用任何表情", "emoji", "none"),
        ("标签换成露营、野餐", "tags_set", ["露营", "野餐"]),
        ("换一批标签", "tags_refresh", True),
        ("结尾换一句互动引导", "closing_refresh", True),
    ],
)
def test_each_kind_of_feedback_is_read(text: str, field: str, expected: Any) -> None:
    assert getattr(parse(text), field) == expected


def test_several_instructions_in_one_feedback_and_what_is_not_understood() -> None:
    fb = parse("标题里加上周末，正文不要出现成都；短一点。把配色弄高级点")
    assert fb.title_add == ["周末"] and fb.avoid == ["成都"] and fb.length == "shorter"
    assert fb.unparsed == ["把配色弄高级点"]
    assert parse("").empty and not fb.empty


def test_unmet_names_what_a_redo_did_not_do() -> None:
    fb = parse("标题里加上周末，正文不要出现成都，短一点")
    before = {"title": "成都三天两晚", "body": "成都的火锅很好吃。" * 10, "tags": ["成都"]}
    lazy = {"title": "成都三天两晚攻略", "body": "成都的火锅很好吃。" * 12, "tags": ["成都"]}
    assert unmet(fb, lazy, before) == ["标题里没有加上「周末」", "仍然提到了「成都」", "正文没有变短"]
    done = {"title": "周末去重庆", "body": "重庆的小面很好吃。", "tags": ["重庆"]}
    assert unmet(fb, done, before) == []
    assert emoji_count("好吃😋🔥") == 2


# --- the offline writer applies them ----------------------------------------------------------------
EVIDENCE = {
    "summary": "检索到6篇与厦门旅行相关的笔记。",
    "facts": [
        {"text": "鼓浪屿船票要提前3天在公众号预约，35元往返", "sourceId": "t1"},
        {"text": "曾厝垵适合傍晚去，小吃一条街人均50元左右", "sourceId": "t1"},
        {"text": "环岛路骑行要避开中午，傍晚5点出发最舒服", "sourceId": "t2"},
        {"text": "沙坡尾的老船坞改成了文创区，拍照不用门票", "sourceId": "t2"},
        {"text": "住在中山路附近，去哪儿都方便，一晚300元左右", "sourceId": "t3"},
        {"text": "南普陀寺免费开放，早上8点前人最少", "sourceId": "t3"},
        {"text": "八市的海鲜可以买了找加工店做，加工费一斤15元", "sourceId": "t4"},
    ],
    "titlePatterns": ["数字清单式标题（3/6）"],
    "recommendedTags": ["厦门旅行", "鼓浪屿", "厦门攻略", "海边旅行"],
}


def _prompt(**sections: Any) -> list[dict[str, str]]:
    body = "\n\n".join(f"## {key} ({key})\n{to_prompt_value(v)}" for key, v in sections.items() if v)
    return [{"role": "system", "content": "写一篇小红书笔记。"}, {"role": "user", "content": body}]


@pytest.fixture(scope="module")
def gateway() -> LLMGateway:
    return LLMGateway(LLMConfig())


async def _draft_and_redo(gateway: LLMGateway, feedback: str) -> tuple[Draft, Draft]:
    request = "厦门三天两晚旅行攻略，写给第一次去的大学生"
    brief = await gateway.complete_structured("brief", _prompt(request=request), Brief)
    first = await gateway.complete_structured(
        "writer", _prompt(request=request, brief=brief, evidence=EVIDENCE), Draft
    )
    redo = await gateway.complete_structured(
        "writer",
        _prompt(request=request, brief=brief, evidence=EVIDENCE, feedback=feedback, previous=first),
        Draft,
    )
    return first, redo


@pytest.mark.parametrize(
    "feedback",
    [
        "标题里加上「学生党」",
        "正文不要出现鼓浪屿",
        "多写点住宿",
        "短一点",
        "写得再详细些，长一点",
        "写得正式一些，不要表情",
        "改成面向退休阿姨",
        "多加点emoji",
        "标签换成厦门、大学生旅行",
        "换一批标签",
        "标题改成「厦门三天怎么玩」",
    ],
)
async def test_the_offline_writer_applies_the_feedback(gateway: LLMGateway, feedback: str) -> None:
    first, redo = await _draft_and_redo(gateway, feedback)
    wanted = parse(feedback)
    assert unmet(wanted, redo.model_dump(), first.model_dump()) == []
    assert redo.model_dump() != first.model_dump()
    assert len(redo.title) <= 20


async def test_feedback_it_cannot_read_still_changes_the_draft(gateway: LLMGateway) -> None:
    first, redo = await _draft_and_redo(gateway, "整体感觉不太对，再想想")
    assert redo.title != first.title


def test_another_subject_is_not_another_reader() -> None:
    assert parse("换成大学生").audience == "大学生"
    assert parse("受众换成上班族").audience == "上班族"
    assert parse("换成秋天露营").audience is None  # a new subject: the brief's to read (a full redo)
    assert parse("改成正式一点").audience is None and parse("改成正式一点").tone == "formal"
    assert parse("换成写给带小孩的家庭").audience == "带小孩的家庭"  # 写给 says it is a reader


def test_notes_on_separate_lines_do_not_carry_their_subject_over() -> None:
    # the writer gets every note of the thread joined by lines: 标题 in one note is not the next note's
    joined = parse("标题里加上「新手必看」\n换成写给大学生")
    assert joined.title_add == ["新手必看"] and joined.title_set is None and joined.audience == "大学生"
    assert parse("标题要有周末，再加上露营").title_add == ["周末", "露营"]  # within a note it does


def test_shorter_shortens_a_story_told_in_prose_too() -> None:
    """A post told as one paragraph of prose (a study story) has no list lines to drop: 写短一点 drops its
    last sentences, never below two, and leaves the opening and the closing."""
    from tools.offline.drafting import KEPT_TOLD, _shorten_body

    told = (
        "二战英语一从52分提到78分。3-6月背单词，每天100个新词。7-9月精做真题阅读，逐句翻译。"
        "10月开始写作文，先背框架再改写。11-12月做套卷，严格按考试时间3小时。"
    )
    body = f"考研英语复习这件事，我想认真记录一下。\n\n{told}\n\n你有什么心得？评论区一起交流"
    short = _shorten_body(body, int(0.75 * len(body)))
    opening, kept, closing = short.split("\n\n")
    assert len(short) <= 0.75 * len(body) and told.startswith(kept) and kept.count("。") >= KEPT_TOLD
    assert opening == "考研英语复习这件事，我想认真记录一下。" and closing.startswith("你有什么心得")
    assert _shorten_body(body, 10).split("\n\n")[1].count("。") == KEPT_TOLD  # the floor holds
