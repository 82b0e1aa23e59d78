"""A trip guide asked for a span of days is laid out day by day (tools/offline/itinerary.py), and what the
offline writer makes of it passes the critic."""

from __future__ import annotations

import random
import re

import pytest

from agents.checks.text import text_findings
from tools.offline import itinerary
from tools.offline.context import Context
from tools.offline.drafting import compose_draft


@pytest.mark.parametrize(
    ("request_text", "days"),
    [
        ("青岛两天一夜攻略", 2),
        ("桂林阳朔三天两晚怎么玩", 3),
        ("4天3晚西双版纳行程", 4),
        ("长沙一日游", 1),
        ("周末去苏州", 2),
        ("杭州西湖周末一日游路线", 1),  # a count of days says more than 周末
        ("周末两天一夜去莫干山", 2),
        ("新疆十二天自驾", 0),  # a span this long is no plan a post lays out (十二天 is no 二天)
        ("9天行程", 0),
        ("厦门美食攻略", 0),
    ],
)
def test_the_span_of_a_trip(request_text: str, days: int) -> None:
    assert itinerary.trip_days(request_text) == days


def test_a_plan_arrives_rests_and_leaves_and_says_nothing_twice() -> None:
    points = ["去海边栈道走走，看日落", "逛老城区的小巷", "防晒要足，帽子和墨镜都带上", "早上去菜市场吃早饭"]
    for days in range(1, 6):
        laid_out = itinerary.day_plan(days, points, random.Random(days))
        assert laid_out is not None
        plan, left = laid_out
        lines = [line for _, slots in plan for _, line in slots]
        assert len(lines) == len(set(lines))
        assert "防晒要足，帽子和墨镜都带上" in left  # advice stays a tip, not a time of day
        assert all(slots for _, slots in plan)  # no day printed empty
        if days > 1:
            assert plan[0][0] == "Day1" and str(days) in plan[-1][0]
            assert plan[0][1][0][0] == "上午" and plan[0][1][0][1] in itinerary.ARRIVE
            when, last = plan[-1][1][-1]
            assert when == "傍晚" and last in itinerary.LEAVE  # the last day ends on the way home
    plan, _ = itinerary.day_plan(5, points, random.Random(0)) or ([], [])
    free = [label for label, slots in plan if slots == [("全天", itinerary.REST)]]
    assert len(free) == 1 and "Day4" in free[0]  # the free middle of a long trip, said once


@pytest.mark.parametrize(
    ("line", "doing", "said"),
    [
        ("杨公堤：比苏堤人少，骑车很舒服", True, "去杨公堤，比苏堤人少，骑车很舒服。"),
        ("北山街到宝石山：沿湖走一段后上山", True, "北山街到宝石山，沿湖走一段后上山。"),
        ("我的路线：从栈桥出发，往北走到天主教堂", True, "从栈桥出发，往北走到天主教堂。"),
        ("从大学路走到小鱼山公园，山顶能看海", True, "从大学路走到小鱼山公园，山顶能看海。"),
        ("门票：免费，但要提前预约", False, "门票：免费，但要提前预约。"),
        ("交通：地铁2号线直达", False, "交通：地铁2号线直达。"),
        ("全程约5公里，4个小时", False, "全程约5公里，4个小时。"),
    ],
)
def test_a_line_led_by_a_spot_s_name_is_a_place_to_go(line: str, doing: bool, said: str) -> None:
    """Notes list spots as 名称：说明; a plan's slot says going there, with no second colon after its time."""
    assert itinerary.is_doing(line) is doing
    assert itinerary.sentence(line) == said


def test_too_little_to_do_keeps_the_list() -> None:
    assert itinerary.day_plan(2, ["防晒要足", "去海边走走"], random.Random(0)) is None


def _draft(request: str, topic: str, seed: int = 1, facts: list[str] | None = None) -> dict[str, object]:
    brief = {"topic": topic, "theme": "travel", "contentType": "guide", "keywords": [topic[:2]]}
    evidence = {"facts": [{"text": f, "sourceId": "n1", "sourceTitle": topic} for f in facts or []]}
    sections = {"request": request, "brief": brief, "evidence": evidence}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(seed))
    return compose_draft(ctx)


def _facts(*lines: str) -> list[dict[str, str]]:
    return [{"text": line, "sourceId": "n1", "sourceTitle": "北海两天一夜"} for line in lines]


NOTES = _facts(
    "早上去侨港风情街吃一碗糖水和卷粉",
    "下午去老街骑楼拍照，傍晚沿着海边走到银滩看日落",
    "晚上去外沙海鲜岛挑海鲜，加工费另算",
    "去涠洲岛的船要提前买票，旺季早班容易满",
)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_trip_with_things_to_do_is_told_day_by_day_and_passes_the_critic(seed: int) -> None:
    request_text = "写一篇北海两天一夜攻略，给第一次去的大学生"
    brief = {"topic": "北海两天一夜", "theme": "travel", "contentType": "guide", "keywords": ["北海"]}
    sections = {"request": request_text, "brief": brief, "evidence": {"facts": NOTES}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(seed))
    draft = compose_draft(ctx)
    body = str(draft["body"])
    assert "Day1" in body and "Day2" in body and "Day3" not in body
    assert any(line in body.split("Day2")[1] for line in itinerary.LEAVE)
    assert "侨港" in body  # the notes' things to do are the slots, not frame lines
    assert [f.check for f in text_findings(request=request_text, brief=brief, draft=draft)] == []


def test_a_trip_without_a_span_keeps_its_list() -> None:
    body = str(_draft("北海看海攻略", "北海看海")["body"])
    assert "Day1" not in body and "上午：" not in body


def _summary_lines(paragraphs: list[str], title: str, tags: list[str]) -> list[str]:
    """The lines of the summary card of a post whose second paragraph is its one detail card."""
    from tools.overlays import card_overlays

    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "result", "paragraphIndexes": [len(paragraphs) - 1]},
    ]
    return [str(line) for line in card_overlays(items, paragraphs, title, tags)[2]["lines"]]


def test_a_day_plan_s_summary_card_names_what_is_done_not_the_day() -> None:
    paragraphs = [
        "泉州两天一夜，照着走就行。",
        "Day1\n上午：落地先办入住，行李一放，轻装出门。\n下午：西街和开元寺，开元寺免费，东西塔很壮观。",
        "Day2\n上午：去蟳埔村体验簪花，建议选早上人少的时候。\n傍晚：留出返程的时间，提前往车站走。",
        "收藏这份攻略，下个假期直接出发！",
    ]
    lines = _summary_lines(paragraphs, "泉州两天一夜", ["泉州"])
    assert "Day1" not in lines and "西街和开元寺" in lines


def test_a_summary_card_names_what_a_frame_label_leads_into_not_the_label() -> None:
    paragraphs = [
        "考研英语复习这件事，我想认真记录一下。",
        "复习·几点感受\n二战英语一从52分提到78分\n时间线：3-6月背单词\n每天100个新词加复习旧词",
        "你有什么心得？评论区一起交流",
    ]
    lines = _summary_lines(paragraphs, "考研英语复习", ["考研英语"])
    assert "时间线" not in lines and "3-6月背单词" in lines  # 时间线 says how the rest is told


def test_spare_doings_fill_only_the_slots_the_evidence_leaves() -> None:
    points = ["去老街骑楼拍照", "防晒要足，帽子和墨镜都带上"]
    spare = ["下午去海边走走，踩踩水", "晚上去海鲜排档吃饭", "查好潮汐表，退潮时去赶海", "早起去海边看日出"]
    plan, left = itinerary.day_plan(2, points, random.Random(0), spare) or ([], [])
    lines = [line for _, slots in plan for _, line in slots]
    assert plan[0][1][1] == ("下午", "去老街骑楼拍照")  # the evidence's doing goes first
    assert ("晚上", "去海鲜排档吃饭") in plan[0][1]  # a spare line said at a time goes in that slot
    assert left == ["防晒要足，帽子和墨镜都带上"]  # a spare line left over is dropped, not made a tip
    assert len(lines) == len(set(lines))
    # with no doing of its own and no spare lines, a trip keeps its list
    assert itinerary.day_plan(2, ["防晒要足"], random.Random(0), []) is None
    assert itinerary.day_plan(2, ["防晒要足"], random.Random(0), spare[:2]) is not None


def test_a_trip_s_doings_follow_its_scenes() -> None:
    from tools.offline.voice import trip_doings

    sea = trip_doings("大连看海两天一夜")
    assert any("赶海" in d for d in sea[0]) and len(sea) == 2  # the sea's, then a town's
    hike = trip_doings("武功山徒步两天一夜")
    assert hike and all(not any("老街" in d for d in pool) for pool in hike)  # no town streets on a hike
    assert not any("老街" in d for pool in trip_doings("上海迪士尼一日游") for d in pool)
    town = trip_doings("西江千户苗寨三天两晚")
    assert len(town) == 1 and any("小巷" in d for d in town[0])
    for child in ("带两岁宝宝去青岛玩三天", "带3岁半的孩子去厦门", "带娃去三亚"):  # a child's age between
        assert any("孩子" in d for pool in trip_doings(child) for d in pool), child
    refused = trip_doings("大连两天一夜，不看海")
    assert not any("赶海" in d for pool in refused for d in pool)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_trip_the_notes_know_nothing_of_is_still_told_day_by_day(seed: int) -> None:
    request_text = "写一篇去大连看海的两天一夜攻略，面向第一次去的大学生"
    draft = _draft(request_text, "大连看海的两天一夜", seed)
    body = str(draft["body"])
    assert "Day1" in body and "Day2" in body and "Day3" not in body
    slots = [ln for ln in body.splitlines() if re.match(r"(?:早上|上午|中午|下午|傍晚|晚上)：", ln)]
    assert sum("海" in ln for ln in slots) >= 2  # the days are the sea's, not any town's
    brief = {"topic": "大连看海的两天一夜", "theme": "travel", "contentType": "guide", "keywords": ["大连"]}
    assert [f.check for f in text_findings(request=request_text, brief=brief, draft=draft)] == []


def test_a_day_plan_s_summary_card_skips_the_frame_every_trip_has() -> None:
    paragraphs = [
        "大连看海两天一夜，照着走就行。",
        "Day1\n上午：落地先办入住，行李一放，轻装出门。\n下午：去海边走走，找一段人少的沙滩踩踩水。\n"
        "晚上：去海鲜排档吃饭，挑当天的海货现做。",
        "收藏这份攻略，下个假期直接出发！",
    ]
    lines = _summary_lines(paragraphs, "大连看海两天一夜", ["大连"])
    assert not any("入住" in ln for ln in lines)  # arriving is every trip's, no point of this one
    assert any("海边" in ln or "海鲜" in ln for ln in lines)


def test_a_summary_card_names_the_plan_s_own_spots_before_the_hours_any_trip_fills() -> None:
    paragraphs = [
        "杭州西湖一日游路线没那么复杂，记住下面这几条就够用。",
        "杭州·一天这样走\n上午：去杨公堤，比苏堤人少，骑车很舒服。\n中午：就在附近找家小店，尝尝当地人平时吃的。\n"
        "下午：北山街到宝石山，沿湖走一段后上宝石山。\n傍晚：天黑前往回走，别赶最后一班车。",
        "收藏这份攻略，下个假期直接出发！",
    ]
    lines = _summary_lines(paragraphs, "杭州西湖一日游路线", ["杭州", "西湖"])
    assert any("杨公堤" in ln for ln in lines) and any("宝石山" in ln for ln in lines)
    assert not any("小店" in ln for ln in lines)  # a scene's general doing: no point of this trip


def test_a_trip_s_pictures_show_its_scene() -> None:
    from tools.offline.voice import scene_image

    assert "大海" in scene_image("travel", "写一篇去大连看海的两天一夜攻略")
    assert "夜景" in scene_image("travel", "凤凰古城夜景怎么拍")  # the phrase's head, not 古城
    assert scene_image("travel", "泉州两天一夜") == ""  # no scene of its own: the theme's look
    assert scene_image("travel", "大连两天一夜，不看海") == ""


def test_the_last_afternoon_takes_no_evening_line_the_way_home_is_at_dusk() -> None:
    spare = ["傍晚找个高处看日落", "下午去老街走走", "早上去菜市场吃早点"]
    for seed in range(4):
        plan, _ = itinerary.day_plan(2, ["去海边走走", "逛老城区"], random.Random(seed), spare) or ([], [])
        last = [when for when, _ in plan[-1][1]]
        assert last.count("傍晚") == 1 and last[-1] == "傍晚"


def test_a_trip_the_notes_know_leads_with_them_however_the_request_words_its_parts() -> None:
    import json
    from pathlib import Path

    from tools.offline.writing import compose_evidence

    corpus = Path(__file__).resolve().parents[2] / "data" / "notes" / "travel.jsonl"
    text = corpus.read_text(encoding="utf-8")
    notes = [json.loads(line) for line in text.splitlines() if line.strip()]
    quanzhou = [n for n in notes if "泉州" in n["title"]]
    request_text = "泉州三日游笔记，要有每天的路线和花费，语气轻松一点"
    brief = {"topic": "泉州三日游", "theme": "travel", "contentType": "guide",
             "keywords": ["三日游", "泉州", "每天", "路线", "花费"]}  # fmt: skip
    sections = {"request": request_text, "brief": brief, "notes": quanzhou}
    ctx = Context(task="evidence", sections=sections, last_user="", schema=None, rng=random.Random(1))
    facts = compose_evidence(ctx)["facts"]
    assert len(facts) >= 4 and any("西街" in f["text"] for f in facts)


def test_a_tag_is_made_a_whole_street_never_the_start_of_a_route() -> None:
    from tools.offline.drafting import _street

    assert _street("玉林", "成都玉林路小吃") == "玉林路"  # #玉林 is a city in 广西
    assert _street("一日游", "杭州西湖周末一日游路线") == "一日游"  # not #一日游路
    assert _street("citywalk", "北京胡同citywalk路线") == "citywalk"


def test_a_route_s_total_is_left_out_once_its_stops_are_spread_over_the_days() -> None:
    facts = [
        "我的路线：从栈桥出发，往北走到天主教堂，周边的红瓦建筑拍照很出片。",
        "沿浙江路、肥城路到大学路，那面著名的红墙拐角人比较多。",
        "从大学路走到小鱼山公园，门票10元左右，山顶能俯瞰红瓦绿树和海。",
        "全程约5公里，4个小时。",
        "青岛老城区都是坡，顺路走会省很多体力。",
    ]
    body = str(_draft("青岛两天一夜攻略", "青岛两天一夜", 1, facts)["body"])
    assert "Day1" in body and "栈桥" in body and "小鱼山" in body
    assert "全程约5公里" not in body  # a total for a walk the plan has cut into hours says nothing


@pytest.mark.parametrize(
    ("request_text", "kept"), [("杭州西湖一日游路线", False), ("杭州周边一日游推荐", True)]
)
def test_a_tag_for_a_city_s_surroundings_only_on_a_trip_out_of_it(request_text: str, kept: bool) -> None:
    brief = {"topic": request_text, "theme": "travel", "contentType": "guide", "keywords": ["杭州"]}
    evidence = {"facts": [], "recommendedTags": ["杭州周边", "杭州", "西湖", "周末去哪儿"]}
    sections = {"request": request_text, "brief": brief, "evidence": evidence}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(1))
    tags = compose_draft(ctx)["tags"]
    assert ("杭州周边" in tags) is kept and "杭州" in tags


def test_a_note_s_timed_lines_go_in_their_slots_once_a_day_without_their_label_twice() -> None:
    """A note's plan (第一天中午：…；下午：…) is said slot by slot: its time words make the lines things to
    do, the slot's label is not said twice (下午：：), and a day has one lunch."""
    points = [
        "第一天中午：火车站附近吃米粉，一碗12元左右",
        "下午：橘子洲头散步，傍晚沿江看夕阳",
        "晚上：去夜市吃口味虾和糖油粑粑",
        "第二天早上：吃一碗肉丝粉加一个煎蛋",
        "中午：随便找一家湘菜馆，辣椒炒肉几乎都不会差",
    ]
    spare = ["中午：就在附近找家小店，尝尝当地人平时吃的", "找一家街边的咖啡馆坐一坐"]
    plan, left = itinerary.day_plan(2, points, random.Random(0), spare) or ([], [])
    said = [(when, line) for _, slots in plan for when, line in slots]
    assert ("中午", "火车站附近吃米粉，一碗12元左右") in said
    assert ("下午", "橘子洲头散步，傍晚沿江看夕阳") in said
    assert not any(line.startswith(("：", ":")) for _, line in said) and not left
    for _, slots in plan:
        assert [when for when, _ in slots].count("中午") <= 1


def test_the_doings_a_request_names_are_in_its_days() -> None:
    """坐一趟米轨小火车，再逛逛紫陶街 are what the trip is for: its days do them, before any general doing
    — the request's wish (再, 想) not said."""
    request = "建水古城慢游两天一夜：坐一趟米轨小火车，再逛逛紫陶街，写成一篇适合带爸妈去的攻略"
    brief = {"topic": "建水古城慢游两天一夜", "theme": "travel", "contentType": "guide", "keywords": ["建水"]}
    sections = {"request": request, "brief": brief, "evidence": {"facts": []}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(3))
    body = str(compose_draft(ctx)["body"])
    days = body.split("Day2")
    assert len(days) == 2 and "米轨小火车" in body and "紫陶街" in body
    assert not re.search(r"：(?:再|想)", body)


def test_a_line_that_says_its_time_further_on_keeps_to_that_time() -> None:
    """住在洱海边的民宿，整个下午在院子里晒太阳 is an afternoon: never the morning's line."""
    points = ["住在洱海边的民宿，整个下午在院子里晒太阳看书", "沿湖骑车到古镇，停下来拍照", "去镇上吃午饭"]
    for seed in range(6):
        plan, _ = itinerary.day_plan(1, points, random.Random(seed)) or ([], [])
        said = [(when, line) for _, slots in plan for when, line in slots]
        assert all(when in ("下午", "傍晚") for when, line in said if "整个下午" in line), said


def test_the_places_a_trip_request_lists_bare_are_visited_in_its_days() -> None:
    """五天行程：古城寺庙、周日夜市、素贴山 names where to go: each is a day's line (a night market at night),
    never a bare tip."""
    request = "第一次去清迈，五天行程：古城寺庙、周日夜市、素贴山，帮我写成攻略帖"
    brief = {"topic": "清迈五天行程", "theme": "travel", "contentType": "guide", "keywords": ["清迈"]}
    sections = {"request": request, "brief": brief, "evidence": {"facts": []}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(3))
    body = str(compose_draft(ctx)["body"])
    assert "晚上：去周日夜市逛逛" in body and "去素贴山看看" in body and "去古城寺庙看看" in body
    assert not re.search(r"^· (?:古城寺庙|周日夜市|素贴山)$", body, re.MULTILINE)
    assert itinerary.is_stop("鼓浪屿") and not itinerary.is_stop("速干毛巾")


def test_a_line_of_what_a_trip_cost_is_no_doing() -> None:
    assert not itinerary.is_doing("玩：蜈支洲岛门票加船票约150元，潜水体验另算")
    assert not itinerary.is_doing("住宿：前两晚住大东海附近的海景民宿")
    assert itinerary.is_doing("玩蜈支洲岛，上午坐船过去")


def test_a_day_another_note_told_is_said_as_the_plan_it_now_is() -> None:
    from tools.offline.itinerary import sentence

    assert sentence("去老街喝了一杯咖啡，逛了一下午的书店") == "去老街喝一杯咖啡，逛一下午的书店。"
    assert sentence("去海边走走，吃完了再回") == "去海边走走，吃完了再回。"  # (one deed done is no told day)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_day_told_hour_by_hour_is_the_plan_s_day_and_a_place_not_gone_to_is_not_in_it(seed: int) -> None:
    request = (
        "上周末去泉州 没去蟳埔村 人太多了 上午走了洛阳桥 下午爬清源山看了老君岩 晚上在西街吃了碗面线糊 "
        "想写一篇避开人流的泉州一日游"
    )
    draft = _draft(request, "避开人流的泉州一日游", seed)
    body = str(draft["body"])
    planned = ("上午：走洛阳桥", "下午：爬清源山看老君岩", "晚上：在西街吃一碗面线糊")
    assert all(line in body for line in planned), body
    assert body.count("洛阳桥") == 1  # (said as the plan, not told again before it)
    plan_and_tips = body[body.index("上午：") :]
    tags = [str(t) for t in draft["tags"]]  # type: ignore[attr-defined]
    assert "蟳埔村" not in plan_and_tips and not any("蟳埔村" in t for t in tags)


def test_a_told_day_is_said_as_a_plan() -> None:
    assert itinerary.as_planned("上午去了灵隐寺") == "上午去灵隐寺"
    assert itinerary.as_planned("晚上在西街吃了碗面线糊") == "晚上在西街吃一碗面线糊"


def test_days_sharing_one_card_are_headed_by_their_span_and_each_line_keeps_its_day() -> None:
    from tools.overlays import card_overlays

    paragraphs = ["开头。", "🚄Day1\n上午：去城墙看看。\n下午：去回民街逛逛。", "☀️Day2\n全天：去兵马俑看看。"]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1, 2]},
    ]
    detail = card_overlays(items, paragraphs, "西安五天", ["西安"])[1]
    assert detail["headline"] == "Day1—Day2"
    assert detail["lines"][-1].startswith("Day2") and "兵马俑" in detail["lines"][-1]
