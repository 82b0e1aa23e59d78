"""What the request itself tells the offline writer (its story, terms, listed things and steps), a home
dish told by its parts, and the clause and tag rules that go with them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tools.offline.context import Context
from tools.offline.details import asked_parts, request_details
from tools.offline.dishes import dish_steps
from tools.offline.drafting import compose_draft
from tools.offline.material import gather
from tools.offline.topic import extract_topic


def draft(
    request: str, brief: dict[str, Any], facts: list[dict[str, str]] | None = None, seed: int = 1
) -> dict[str, Any]:
    sections = {"request": request, "brief": brief, "evidence": {"facts": facts or []}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(seed))
    return compose_draft(ctx)


def test_a_told_request_gives_its_story_and_terms_not_its_frame_or_questions() -> None:
    d = request_details(
        "去年第一次带爸妈去海边，住了四晚，预算一共三千以内，帮我写篇笔记给想带老人出游的人", "带爸妈去海边"
    )
    assert d.told == ["去年第一次带爸妈去海边", "住了四晚"] or "住了四晚" in d.told
    assert d.terms == ["预算一共三千以内"]
    assert not any("写" in c or "老人出游" in c for c in [*d.told, *d.terms])
    assert (
        request_details("阳台种薄荷怎么浇水？写一篇笔记", "阳台种薄荷").said() == ""
    )  # a question tells nothing


def test_listed_things_and_steps_are_read_apart() -> None:
    listed = request_details("写一篇露营早餐合集：烤吐司、手冲咖啡、锅煎蛋和热汤面", "露营早餐")
    assert listed.items == ["烤吐司", "手冲咖啡", "锅煎蛋", "热汤面"]
    told = request_details("推荐三本入门书：一本讲构图、一本讲用光、一本讲后期", "摄影入门书")
    assert told.items == ["一本讲构图", "一本讲用光", "一本讲后期"]
    steps = request_details("写个钓鱼攻略：先看天气和水位，带上鱼竿、饵料和折叠凳", "钓鱼攻略")
    assert steps.steps == ["先看天气和水位", "带上鱼竿、饵料和折叠凳"] and steps.items == []
    # two questions joined by 、 are asked points, not things
    assert request_details("重点讲讲什么样的排骨合适、要炖多久", "炖排骨").items == []


def test_the_things_a_request_lists_are_the_post_s_list_in_its_order() -> None:
    """A corpus that knows none of them does not replace them with the theme's general advice."""
    request = "写篇笔记推荐几个周末在家陪娃做的手工：树叶拼贴、瓶盖印章、毛线娃娃"
    brief = {
        "topic": "周末在家陪娃做的手工",
        "theme": "parenting",
        "contentType": "list",
        "keywords": ["手工"],
    }
    body = draft(request, brief)["body"]
    first_list = next(p for p in body.split("\n\n") if "1️⃣" in p)
    assert [line.split(" ", 1)[1] for line in first_list.split("\n")[1:]] == [
        "树叶拼贴",
        "瓶盖印章",
        "毛线娃娃",
    ]


def test_what_happened_to_the_writer_is_said_in_the_post() -> None:
    request = "上个月开始每天跳绳，膝盖有点疼，后来换了软底鞋就好了，写篇经验帖给想跳绳的新手"
    brief = {"topic": "跳绳", "theme": "fitness", "contentType": "guide", "keywords": ["跳绳"]}
    body = draft(request, brief)["body"]
    assert "上个月开始每天跳绳，膝盖有点疼，后来换了软底鞋就好了。" in body
    assert "经验帖" not in body


@pytest.mark.parametrize(
    ("dish", "first_words", "method_word"),
    [("冬瓜排骨汤", "冬瓜", "盐等出锅前"), ("青椒炒鸡蛋", "青椒", "出锅"), ("虾仁蒸蛋", "虾仁", "蒸")],
)
def test_a_dish_is_told_by_its_parts_and_its_method(dish: str, first_words: str, method_word: str) -> None:
    steps = dish_steps(dish)
    assert len(steps) >= 4 and steps[0].startswith(first_words)
    assert method_word in "".join(steps[-2:])
    assert all(len(s) <= 34 for s in steps)


def test_a_dish_s_parts_go_in_by_their_stage_and_the_method_changes_a_line() -> None:
    soup = dish_steps("番茄鸡蛋汤")
    fried = dish_steps("番茄炒鸡蛋")
    assert soup.index(next(s for s in soup if s.startswith("番茄下锅"))) < soup.index(
        next(s for s in soup if "蛋液" in s)
    )
    assert any("蛋液" in s and "淋" in s for s in soup) and not any("淋" in s and "蛋液" in s for s in fried)
    assert dish_steps("番茄") == () and dish_steps("汤") == () and dish_steps("鸡蛋灌饼") == ()


def test_a_dish_no_scene_knows_gets_its_own_steps_not_a_kitchen_s_general_advice() -> None:
    brief = {"topic": "冬瓜虾仁汤", "theme": "food", "contentType": "guide", "keywords": ["冬瓜", "虾仁"]}
    out = draft("在家做冬瓜虾仁汤，清淡好喝的做法分享", brief)
    steps = next(p for p in out["body"].split("\n\n") if "1️⃣" in p)
    assert "冬瓜" in steps and "虾仁" in steps and "按配方" not in out["body"]
    assert "冬瓜虾仁汤" in out["tags"]  # the dish names its tag


def test_a_numbered_part_of_a_note_is_kept_however_short() -> None:
    note = {
        "sourceId": "n",
        "sourceTitle": "周会发言四步",
        "text": "后来改成四步：1.进度；2.风险，最多两条；3.需要谁帮忙；4.下周计划。",
    }
    lines = [ln.text for ln in gather([note], [], ["周会"], []).lines]
    assert lines == ["进度", "风险，最多两条", "需要谁帮忙", "下周计划"] or lines[-3:] == [
        "风险，最多两条",
        "需要谁帮忙",
        "下周计划",
    ]


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("写一篇腊八粥的做法 重点讲讲豆子要泡多久", "腊八粥"),
        ("阿勒泰冬天自驾 一天能开多远？写篇笔记记一下", "阿勒泰冬天自驾"),
        ("三岁宝宝分床睡，我们用了两周，第一周真的难熬……帮我写成笔记", "三岁宝宝分床睡"),
    ],
)
def test_a_space_an_ellipsis_or_an_emoji_ends_a_clause(request_text: str, topic: str) -> None:
    assert extract_topic(request_text).startswith(topic)
    assert (
        extract_topic("帮我写一篇 capsule wardrobe 的笔记") != "capsule"
    )  # a space inside English is no clause end


def test_refreshed_tags_take_no_other_subject_s_top_tags() -> None:
    brief = {"topic": "赶海", "theme": "travel", "contentType": "guide", "keywords": ["赶海"]}
    sections = {
        "request": "写一篇赶海攻略",
        "brief": brief,
        "evidence": {"facts": [], "topTags": ["独库公路", "胡杨林", "旅行攻略", "赶海装备"]},
        "feedback": "换一批标签",
    }
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(2))
    tags = compose_draft(ctx)["tags"]
    assert "赶海" in tags and not {"独库公路", "胡杨林"} & set(tags)


def test_arrows_plus_signs_and_a_day_s_hours_are_the_request_s_own_list() -> None:
    routine = request_details("写篇晨间习惯的帖子：6:00 起床 → 拉伸10分钟 → 跑步3km", "晨间习惯")
    assert routine.steps == ["6:00起床", "拉伸10分钟", "跑步3km"] or routine.steps == [
        "6:00 起床",
        "拉伸10分钟",
        "跑步3km",
    ]
    outfit = request_details("周末出游穿搭：卫衣 + 工装裤 + 板鞋，帮我写篇笔记", "周末出游穿搭")
    assert outfit.items == ["卫衣", "工装裤", "板鞋"]
    day = request_details(
        "苏州慢游一日：上午逛拙政园，中午吃面，下午去平江路喝茶，帮我写成笔记", "苏州慢游一日"
    )
    assert day.steps == ["上午逛拙政园", "中午吃面", "下午去平江路喝茶"]
    # a list of what was done is told, not listed
    done = request_details("带娃去农场玩了一天，挤牛奶、喂小羊都体验了，写个亲子游记", "农场亲子游")
    assert done.items == [] and "挤牛奶、喂小羊都体验了" in done.told


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("带爸妈去黄山看云海，写个游记给想带老人去的朋友参考", "带爸妈去黄山看云海"),
        ("写一篇宝宝断奶的经验贴，分享给新手妈妈", "宝宝断奶"),
        ("穿搭｜小个子冬天的羊毛大衣怎么选，写篇笔记", "小个子冬天的羊毛大衣"),
    ],
)
def test_a_purpose_a_post_kind_or_a_bar_is_no_subject(request_text: str, topic: str) -> None:
    assert extract_topic(request_text).startswith(topic)


def test_first_time_titles_only_for_a_first_doing() -> None:
    """第一次{s} reads only of something done for the first time (第一次去泉州), never of a thing."""
    brief = {"topic": "杭州不累的路线", "theme": "travel", "contentType": "guide", "keywords": ["杭州"]}
    titles = [draft("带爸妈去杭州西湖玩两天，写个不累的路线", brief, seed=s)["title"] for s in range(12)]
    assert not any(t.startswith("第一次") for t in titles)
    brief = {"topic": "养布偶猫", "theme": "pets", "contentType": "guide", "keywords": ["布偶猫"]}
    firsts = [draft("第一次养布偶猫，写篇新手攻略", brief, seed=s)["title"] for s in range(60)]
    assert any(t.startswith("第一次") for t in firsts)  # still one of the skeletons there


def test_where_the_parts_are_done_asked_names_the_doings_as_the_parts() -> None:
    request = "周日沿着东湖绿道骑了一圈，写篇路线笔记，写清楚在哪里可以停下来吃饭和上厕所"
    assert asked_parts(request) == ["吃饭", "上厕所"]
