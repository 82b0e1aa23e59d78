"""The offline writer's material: evidence lines with their roles, the note a post follows, and the
evidence composer that ranks notes by how much they are about the subject."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tools.offline import voice
from tools.offline.context import Context
from tools.offline.drafting import compose_draft
from tools.offline.material import gather, role_of, sequence_of
from tools.offline.writing import compose_evidence


@pytest.mark.parametrize(
    ("raw", "role"),
    [
        ("第二，翻拌手法是从底部往上捞，不要画圈；", "step"),  # numbered: a step even though it advises
        ("3. 面霜选厚一点的质地，晚上可以多涂一层；", "step"),
        ("下午去听了一场评弹，一杯茶加听曲大概30元；", "step"),  # an hour of a day in sequence
        ("记得带一套备用衣服在随身包里。", "tip"),
        ("另外少喝咖啡、多喝水，每周做两次补水面膜。", "tip"),
        ("坚持两周后，泛红范围缩小了一半。", "outcome"),
        ("来苏州第三次，这次一个景点门票都没买，就在平江路附近住了两晚。", "story"),
        ("民宿在小巷里，一晚380元，推开窗就是河。", "item"),
        ("帐篷：选3秒速开的，200元左右。", "item"),
        ("整理了这周的通勤穿搭，供大家参考。", "story"),  # the note presenting itself
        ("两种都玩了半年，给上班族做个对比。", "story"),
    ],
)
def test_a_line_says_what_it_does_in_its_note(raw: str, role: str) -> None:
    assert role_of(raw, raw.rstrip("；。")) == role


def test_how_a_note_numbered_its_parts() -> None:
    assert sequence_of("第一步洁面：早晚各一次") == "step"
    assert sequence_of("首先把鸡腿肉腌20分钟") == "step"
    assert sequence_of("早上7点去菜场吃一碗面") == "time"
    assert sequence_of("第二天去鼓浪屿") == "time"
    assert sequence_of("1. 杨公堤：比苏堤人少") == "number"
    assert sequence_of("民宿一晚380元") == ""


def _fact(text: str, source: str) -> dict[str, Any]:
    return {"text": text, "sourceId": source}


def test_the_lead_note_keeps_its_lines_and_others_must_name_the_subject() -> None:
    facts = [
        _fact("蛋白打到尖角直立就停，打过头容易开裂。", "chiffon"),
        _fact("出炉倒扣2小时放凉再脱模。", "chiffon"),
        _fact("用6寸活底模，150度烤50分钟。", "chiffon"),
        _fact("气球墙：100个乳胶气球约80元。", "party"),
        _fact("蛋糕自己做，6寸戚风加奶油，材料约60元。", "party"),
        _fact("背景布加小彩旗，50元。", "party"),
    ]
    material = gather(facts, avoid=[], specific=["戚风"], theme=["烘焙"])
    assert material.lead == "chiffon"
    kept = {ln.text for ln in material.lines}
    assert {"出炉倒扣2小时放凉再脱模", "用6寸活底模，150度烤50分钟"} <= kept  # the lead's, subject or not
    assert "蛋糕自己做，6寸戚风加奶油，材料约60元" in kept  # another note's line naming the subject
    assert not any("气球" in t or "彩旗" in t for t in kept)  # the party's own matters stay out
    assert gather(facts, avoid=["倒扣"], specific=["戚风"], theme=[]).lines[0].text.startswith("蛋白")
    assert all("倒扣" not in ln.text for ln in gather(facts, avoid=["倒扣"], specific=[], theme=[]).lines)


def test_a_thing_had_at_an_activity_follows_no_note_of_the_activity_alone() -> None:
    """露营咖啡 is coffee made at a camp: a camping note (first, with three lines) is no lead — only its line
    on coffee stays, beside the coffee note's."""
    from tools.offline.drafting import _activity_head

    camp = "周五下班直接去露营"
    facts = [
        {"text": "6点半下班直接开到城郊一个付费营地，40分钟车程。", "sourceId": "camp", "sourceTitle": camp},
        {"text": "8点前搭好帐篷，煮了一锅番茄火锅。", "sourceId": "camp", "sourceTitle": camp},
        {"text": "周六早上醒来泡杯咖啡，10点收帐回家。", "sourceId": "camp", "sourceTitle": camp},
        {"text": "先用少量热水闷蒸咖啡粉，等30秒让它排气。", "sourceId": "drip", "sourceTitle": "挂耳咖啡"},
    ]
    assert _activity_head("露营咖啡") == "咖啡" and _activity_head("露营装备") == ""
    kept = [ln.text for ln in gather(facts, [], ["露营", "咖啡"], ["露营"], head="咖啡").lines]
    assert kept == ["周六早上醒来泡杯咖啡，10点收帐回家", "先用少量热水闷蒸咖啡粉，等30秒让它排气"]
    assert len(gather(facts, [], ["露营", "咖啡"], ["露营"]).lines) == 4  # (camping: all the lead's)


def _note(nid: str, title: str, desc: str, tags: list[str], likes: int) -> dict[str, Any]:
    return {"id": nid, "title": title, "desc": desc, "tags": tags, "likes": likes, "collects": likes}


def _context(task: str, sections: dict[str, Any]) -> Context:
    return Context(task=task, sections=sections, last_user="", schema=None, rng=random.Random(7))


CHIFFON = _note(
    "chiffon",
    "第一次做戚风不塌腰的关键只有3个",
    "烤塌了五次之后总结的经验。第一，蛋白打到提起打蛋器有短小直立的尖角就停，打过头反而容易开裂；"
    "第二，翻拌手法是从底部往上捞，不要画圈，蛋黄糊分三次和蛋白霜混合；第三，出炉立刻从10cm高处震一下，"
    "然后倒扣至少2小时完全放凉再脱模。我用的是6寸活底模，上下火150度烤50分钟。",
    ["烘焙", "戚风蛋糕"],
    900,
)
PARTY = _note(
    "party",
    "女儿一周岁派对，布置不到300元",
    "1.气球墙：数字气球加100个乳胶气球，约80元；2.背景布加小彩旗，50元；3.蛋糕自己做，6寸戚风加奶油和水果，"
    "材料约60元；4.桌布和纸盘在网上买，30元。",
    ["派对布置", "仪式感"],
    12000,
)


def test_the_note_about_the_subject_leads_the_evidence_not_the_most_liked() -> None:
    brief = {"topic": "新手烤戚风蛋糕不塌的方法", "keywords": ["戚风", "蛋糕", "不塌"], "audience": "新手"}
    ctx = _context(
        "evidence", {"brief": brief, "notes": [PARTY, CHIFFON], "request": "新手烤戚风蛋糕不塌的方法"}
    )
    evidence = compose_evidence(ctx)
    sources = [f["sourceId"] for f in evidence["facts"]]
    assert sources[0] == "chiffon" and sources.count("chiffon") >= 4  # its whole sequence, in order
    assert [f["text"][:2] for f in evidence["facts"] if f["sourceId"] == "chiffon"][1:4] == [
        "第一",
        "第二",
        "第三",
    ]
    assert all("气球" not in f["text"] for f in evidence["facts"])  # the party note only where it names 戚风

    draft = compose_draft(
        _context(
            "writer",
            {"brief": {**brief, "contentType": "guide"}, "evidence": evidence, "request": brief["topic"]},
        )
    )
    steps = [ln for ln in draft["body"].split("\n") if "\ufe0f\u20e3" in ln]  # keycap-numbered lines
    assert len(steps) == 3 and "蛋白" in steps[0] and "翻拌" in steps[1] and "倒扣" in steps[2]
    assert "气球" not in draft["body"]


BREAKFAST = _note(
    "breakfast",
    "上班族健身早餐，吃完不饿到中午",
    "我的固定组合：1个水煮蛋加1杯无糖豆浆加1片全麦面包。没时间做就去便利店买茶叶蛋和无糖酸奶，10分钟搞定。"
    "健身日多加一根香蕉，练完不会头晕。",
    ["健身饮食", "上班族", "健身"],
    5000,
)
LUNCH_BREAK = _note(
    "lunch",
    "午休30分钟，在工位旁练完一组",
    "第一步，午饭前找会议室做5分钟动态热身；第二步，深蹲、俯卧撑、平板支撑各3组，20分钟练完；"
    "第三步，用湿巾擦汗换件T恤，下午开会不尴尬。午休练完下午反而不困。",
    ["午休健身", "办公室运动"],
    300,
)


def test_a_note_that_does_not_say_what_sets_the_subject_apart_does_not_lead() -> None:
    """午休 is what a lunch-break workout is about; a breakfast note shares 健身 and 上班族, not 午休."""
    brief = {
        "topic": "上班族如何利用午休时间健身",
        "keywords": ["午休", "健身", "上班族"],
        "audience": "上班族",
    }
    alone = _context("evidence", {"brief": brief, "notes": [BREAKFAST], "request": brief["topic"]})
    evidence = compose_evidence(alone)
    assert not evidence["facts"]  # nothing about 午休: nothing borrowed from breakfast
    # …and the editor reads so in the summary, with no filler (暂无) and no word of how often (每天)
    assert "没有直接讲「" in evidence["summary"] and "暂无" not in evidence["summary"]
    both = _context(
        "evidence", {"brief": brief, "notes": [BREAKFAST, LUNCH_BREAK], "request": brief["topic"]}
    )
    facts = compose_evidence(both)["facts"]
    assert [f["text"][:3] for f in facts[:3]] == ["第一步", "第二步", "第三步"]  # the lunch note leads


OATS = _note(
    "oats",
    "5块钱搞定一周早餐｜打工人速食合集",
    "周日晚上备好一周早餐。燕麦杯：即食燕麦40g加牛奶200ml，冷藏一夜；杂粮饭团：糙米饭包肉松和海苔，早上微波1分半；"
    "周一：小米粥加水煮蛋。",
    ["早餐", "快手早餐", "一周备餐"],
    3000,
)
PANCAKE = _note(
    "pancake",
    "5分钟快手早餐：鸡蛋灌饼平替版",
    "平底锅不放油，放入冷冻手抓饼皮中火加热，鼓起大泡后灌入蛋液；翻面煎到鸡蛋凝固，刷酱卷生菜；"
    "从开火到出锅不到5分钟。",
    ["快手早餐", "鸡蛋灌饼"],
    9000,
)


def test_a_request_for_several_things_lists_one_thing_per_note_named() -> None:
    """推荐几道…早餐 is several dishes from several notes — not one recipe's steps numbered as dishes; a
    label that says when (周一) is no dish."""
    brief = {"topic": "快手早餐", "keywords": ["快手早餐", "早餐"], "audience": "新手", "contentType": "list"}
    ctx = _context(
        "evidence", {"brief": brief, "notes": [PANCAKE, OATS], "request": "推荐几道适合新手的快手早餐"}
    )
    texts = [f["text"] for f in compose_evidence(ctx)["facts"]]
    assert texts[0].startswith("鸡蛋灌饼：") and sum(t.startswith("鸡蛋灌饼") for t in texts) == 1
    assert any(t.startswith("燕麦杯：") for t in texts) and any(t.startswith("杂粮饭团：") for t in texts)
    assert not any(t.startswith("周一") for t in texts)
    draft = compose_draft(
        _context(
            "writer",
            {
                "brief": brief,
                "evidence": {"facts": [{"text": t, "sourceId": "x"} for t in texts]},
                "request": "推荐几道适合新手的快手早餐",
            },
        )
    )
    items = [ln for ln in draft["body"].split("\n") if "\ufe0f\u20e3" in ln]
    assert len(items) == 3 and "鸡蛋灌饼" in items[0]


def test_kind_words_are_neither_subject_nor_tag() -> None:
    brief = {
        "topic": "上班族如何利用午休时间健身",
        "keywords": ["午休", "健身", "经验分享"],
        "audience": "上班族",
        "contentType": "story",
    }
    draft = compose_draft(
        _context(
            "writer",
            {
                "brief": brief,
                "evidence": {"facts": [], "recommendedTags": ["经验分享", "午休健身"]},
                "request": "上班族如何利用午休时间健身？写一篇经验分享",
            },
        )
    )
    assert "经验分享" not in draft["tags"] and "午休健身" in draft["tags"]
    assert "上班族利用" not in draft["title"] and "午休" in draft["title"]


def test_a_few_lines_of_a_note_titled_on_something_else_are_left_out() -> None:
    """A thin corpus's nearest note may be on another subject: its title says so, and its lines go."""
    early = _fact("早起不适合所有人，找到自己精力最好的两小时才是关键。", "career-1")
    train = _fact("保温杯和充电宝带上，车上可以接热水。", "travel-2")
    facts = [{**early, "sourceTitle": "早起学习100天"}, {**train, "sourceTitle": "高铁出行小物"}]
    material = gather(facts, avoid=[], specific=["卧铺", "火车"], theme=["旅行", "高铁"])
    kept = {ln.text for ln in material.lines}
    assert kept == {"保温杯和充电宝带上，车上可以接热水"}


# A trip note on the right place but another activity (the sample corpus's outdoor-012), a West Lake note
# and a note with a meal and the way there: what a post on seeing ginkgo leaves in Hangzhou may use.
CAMPS = "营地推荐｜杭州周边3个宝藏营地"
CAMPING = [
    ("千岛湖附近的湖景营地：早上湖面有雾，景色最美，但周末要提前两周订位。", "camps", CAMPS),
    ("三个营地都可以租帐篷和装备，新手不用自己带全套。", "camps", CAMPS),
    ("秋天去最舒服，蚊子少也不热。", "camps", CAMPS),  # a camping note's line, naming no camping word
    ("营地旁边就有一片银杏林，11月中旬最黄。", "camps", CAMPS),  # …and one that serves the request
]
WEST_LAKE = [
    ("北山街到宝石山：沿湖走一段后上宝石山，半小时到山顶，看夕阳很美。", "lake", "杭州西湖避开人流的4条小路"),
    ("杨公堤：比苏堤人少，沿途有几个小公园，骑车很舒服。", "lake", "杭州西湖避开人流的4条小路"),
    ("湖边新开的营地可以租帐篷看日落。", "lake", "杭州西湖避开人流的4条小路"),  # another activity
]
TRIP = [
    ("从杭州东站坐地铁1号线到龙翔桥，20分钟左右。", "trip", "杭州两天一夜"),  # getting there
    ("中午在知味观吃一碗片儿川，25元。", "trip", "杭州两天一夜"),  # a meal: every trip post eats
    ("民宿一晚380元，推开窗就是山。", "trip", "杭州两天一夜"),  # staying
]


def _titled(rows: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    return [{"text": t, "sourceId": s, "sourceTitle": title} for t, s, title in rows]


def _kept(request: str, rows: list[tuple[str, str, str]], asked: bool = True) -> set[str]:
    """The lines `gather` keeps for `request`'s activities (none when not `asked`: the rule left out)."""
    activities = voice.activities(request, asked=True) if asked else frozenset()
    return {ln.text for ln in gather(_titled(rows), [], ["杭州", "天平山"], ["旅行"], activities).lines}


def test_the_activities_a_request_asks_for() -> None:
    assert voice.activities("周末去杭州看银杏，写个攻略", asked=True) == {"travel.赏秋叶"}
    assert voice.activities("写一篇去北京香山看红叶的笔记", asked=True) == {"travel.赏秋叶"}
    assert voice.activities("周末去郊区露营顺便看星星", asked=True) == {"outdoor.露营", "outdoor.观星"}
    assert voice.activities("不露营，只去看红叶", asked=True) == {"travel.赏秋叶"}  # a refused one is not
    assert voice.activities("成都三天两晚吃喝攻略", asked=True) == frozenset()  # food is no activity


def test_a_post_on_one_activity_leaves_out_the_lines_about_another() -> None:
    rows = CAMPING + WEST_LAKE + TRIP
    kept = _kept("周末去杭州看银杏，写个攻略", rows)
    # the camping note's lines go, even one naming no camping word; its line on the leaves stays
    assert not any("营地" in t or "帐篷" in t for t in kept if "银杏" not in t)
    assert "秋天去最舒服，蚊子少也不热" not in kept
    assert "营地旁边就有一片银杏林，11月中旬最黄" in kept
    # of another note, the line about camping goes and the rest stays: walking, cycling along, getting
    # there, eating, staying
    assert "湖边新开的营地可以租帐篷看日落" not in kept
    assert {t.rstrip("。") for t, _, _ in WEST_LAKE[:2] + TRIP} <= kept
    # the camping note, first in the evidence, no longer leads the post
    asked = voice.activities("周末去杭州看银杏", asked=True)
    assert gather(_titled(rows), [], ["杭州"], ["旅行"], asked).lead != "camps"


def test_a_post_asking_for_that_activity_too_keeps_its_lines() -> None:
    rows = CAMPING + WEST_LAKE + TRIP
    everything = _kept("", rows, asked=False)
    assert "三个营地都可以租帐篷和装备，新手不用自己带全套" in everything
    assert _kept("周末去杭州看银杏，顺便露营一晚", rows) == everything
    assert _kept("杭州周边露营攻略", rows) == everything
    # a request naming no activity: nothing is left out for it
    assert _kept("杭州两天一夜怎么玩", rows) == everything


def test_a_note_on_the_asked_activity_keeps_its_lines_on_another() -> None:
    """A note about the leaves is about the post's subject as a whole: its tent line is part of that trip."""
    leaves = [
        ("天平山的红枫11月下旬最好看，早上8点前到人少。", "maple", "苏州天平山赏枫攻略"),
        ("山脚有营地可以搭帐篷，第二天一早就能上山。", "maple", "苏州天平山赏枫攻略"),
        ("天平山脚下的农家菜，一桌200元左右。", "maple", "苏州天平山赏枫攻略"),
    ]
    kept = _kept("苏州天平山看红叶", leaves)
    assert "山脚有营地可以搭帐篷，第二天一早就能上山" in kept
    assert kept == _kept("", leaves, asked=False)


CAMPS_BEIJING = "营地推荐｜北京周边适合过夜的4个营地"


def test_a_red_leaf_post_says_nothing_of_camping() -> None:
    """The writer end to end: the two lines of a Beijing camping guide are no material for 香山红叶."""
    facts = _titled([
        ("今年在北京周边露营了十几次，推荐四个适合过夜的营地。", "camps", CAMPS_BEIJING),
        ("北京秋天露营最舒服，但10月下旬以后夜里会接近零度。", "camps", CAMPS_BEIJING),
    ])
    brief = {"topic": "北京香山看红叶", "keywords": ["香山", "红叶"], "contentType": "guide"}
    sections = {"brief": brief, "evidence": {"facts": facts}, "request": "写一篇去北京香山看红叶的笔记"}
    draft = compose_draft(_context("writer", sections))
    assert "露营" not in draft["body"] and "营地" not in draft["body"]
    assert "叶" in draft["body"]  # the scene's own advice instead


TIMELINE = _note(
    "timeline",
    "秋招时间表，这几个节点别错过",
    "8月：大厂提前批开始，简历最好7月底就改好；9月：正式批网申高峰，同时准备笔试；10月：笔试面试最密集，"
    "记录每家公司的进度和面试官；11月：补录批次。",
    ["秋招", "求职", "应届生", "网申"],
    9000,
)
WEAKNESS = _note(
    "weakness",
    "面试被问“你的缺点”，别再这样答了",
    "避雷答法：“我太追求完美了”，面试官一年要听几百遍。建议：选一个真实但不致命的缺点，再说你正在怎么改进。"
    "比如：“我以前开会不太主动发言，现在会提前准备两个问题。”注意不要说和岗位核心能力冲突的缺点。",
    ["面试", "面试技巧", "求职"],
    8000,
)
CIVIL = _note(
    "civil",
    "考公结构化面试，从68分到85分的经历",
    "第一次进面只拿了68分。做法：1.审题：每道题先花30秒写框架；2.每天对着手机录像答3道题；3.找研友互相打分。",
    ["考公", "公务员面试", "结构化面试"],
    8000,
)


def test_who_a_note_is_for_does_not_make_it_lead_nor_does_a_kind_of_the_subject() -> None:
    """应届生 is who the post is for, 面试 what it is about: the timeline note that only names 应届生 does not
    lead, and neither does a note whose tags name only a kind of interview the request never asks about."""
    brief = {
        "topic": "应届生第一次面试的准备", "audience": "应届生", "theme": "career", "contentType": "story",
        "keywords": ["应届生", "第一次", "面试", "准备"],
    }  # fmt: skip
    request = "应届生第一次面试的准备经验分享"
    sections = {"brief": brief, "notes": [TIMELINE, CIVIL, WEAKNESS], "request": request}
    facts = compose_evidence(_context("evidence", sections))["facts"]
    assert facts[0]["sourceId"] == "weakness"
    # a closing quote stays with its sentence, never opening the next one
    assert not any(f["text"].startswith("”") for f in facts)
    assert any(f["text"].endswith("两个问题。”") for f in facts)


def test_a_reader_named_in_the_topic_is_the_audience_and_the_subject_reads_as_a_noun() -> None:
    from tools.offline.briefing import compose_brief
    from tools.offline.drafting import subject_of

    brief = compose_brief(_context("brief", {"request": "应届生第一次面试的准备经验分享"}))
    assert brief["audience"] == "应届生"
    assert subject_of("应届生第一次面试的准备", "应届生") == "面试准备"


def test_a_reader_s_skin_is_much_of_what_a_skincare_post_is_about() -> None:
    """干皮 is who the post is for and what it is about: among the sample notes a 秋冬干皮保湿 search finds,
    the dry-skin note leads, not the one on skincare prices (a person reader, 应届生, weighs a fifth; a
    skin type half)."""
    import json
    from pathlib import Path

    found = ("beauty-018", "beauty-046", "beauty-033", "beauty-039", "beauty-037", "beauty-015", "beauty-001")
    path = Path(__file__).parents[2] / "data" / "notes" / "beauty.jsonl"
    notes = {n["id"]: n for n in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    brief = {
        "topic": "秋冬干皮保湿护肤", "audience": "干皮", "theme": "beauty", "contentType": "story",
        "keywords": ["护肤心得", "秋冬", "干皮", "保湿"],
    }  # fmt: skip
    sections = {"brief": brief, "notes": [notes[i] for i in found], "request": "秋冬干皮保湿护肤心得"}
    assert compose_evidence(_context("evidence", sections))["facts"][0]["sourceId"] == "beauty-018"


def test_a_line_that_adds_to_what_its_note_said_before_is_no_line_of_its_own() -> None:
    from tools.offline.material import as_line

    assert as_line("加上艾宾浩斯复习（第1、2、4、7、15天各复习一次），抽查能记得75%左右") is None
    assert as_line("再配合一点深蹲，效果更明显") is None
    tip = "另外少喝咖啡、多喝水，秋冬每周做两次补水面膜。"
    assert as_line(tip) == "少喝咖啡、多喝水，秋冬每周做两次补水面膜"  # an 另外 leans on nothing


def test_a_numbered_part_keeps_no_copula_and_advice_sets_no_scene() -> None:
    """其次是微喇叭裤 is a line on 微喇叭裤 (no 是微喇叭裤); the lead note's first advice (首选高腰直筒款…) is
    a point of the post, not the situation its opening starts from."""
    from tools.offline.material import as_line

    assert as_line("其次是微喇叭裤，膝盖以下微微展开") == "微喇叭裤，膝盖以下微微展开"
    assert as_line("是时候换季了，衣柜整理一下") == "是时候换季了，衣柜整理一下"
    request = "梨形身材怎么挑牛仔裤，分享我试过的几条"
    facts = [
        {"text": "首选高腰直筒款，裤腿从臀部垂直落下", "sourceId": "jeans"},
        {"text": "其次是微喇叭裤，膝盖以下微微展开", "sourceId": "jeans"},
        {"text": "颜色选中蓝和深蓝，比浅蓝更显瘦", "sourceId": "jeans"},
    ]
    brief = {"topic": "梨形身材牛仔裤", "theme": "fashion", "contentType": "list", "keywords": ["牛仔裤"]}
    ctx = _context("writer", {"brief": brief, "evidence": {"facts": facts}, "request": request})
    body = str(compose_draft(ctx)["body"])
    assert not body.startswith("首选") and "是微喇叭裤" not in body and "微喇叭裤" in body


def test_a_line_ending_on_what_its_note_goes_on_to_do_is_the_note_s_frame() -> None:
    line = "连着下了一周雨，总结一下带娃能去的室内场馆"
    assert role_of(line, line) == "story"
    advice = "雨天带娃去室内场馆，提前在公众号预约"
    assert role_of(advice, advice) != "story"
