"""The quality benchmark's measures and data: each measure passes and fails where it should, and the
labelled sets keep the shape the benchmark (and issue 12) promise."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bench.quality_metrics import (
    SPLITS,
    Gazetteer,
    Place,
    check_expectation,
    differs,
    gazetteer,
    load_rows,
    on_topic,
    pick_subject,
    spread,
    substitute,
    title_skeleton,
)

THEMES = {"outdoor", "food", "travel", "fashion", "beauty", "home", "fitness", "career", "pets", "parenting"}


def post(title: str = "标题", body: str = "正文", tags: list[str] | None = None) -> dict[str, Any]:
    return {"title": title, "body": body, "tags": tags if tags is not None else ["标签"]}


# --- the gazetteer -------------------------------------------------------------------------------------
def test_gazetteer_prefers_the_longest_name_and_skips_ordinary_words() -> None:
    places = gazetteer()
    assert places.find("从洛阳桥走到西湖") == ["洛阳桥", "西湖"]  # 洛阳桥 is in 泉州, not 洛阳
    assert places.find("大理石台面和大理的洱海") == ["大理", "洱海"]
    assert places.find("早餐吃了希腊酸奶，晚上意大利面") == []
    assert places.find("罗马尼亚和罗马") == ["罗马尼亚", "罗马"]
    assert places.find("成都、成都、重庆") == ["成都", "重庆"]
    assert places.find("青岛的肥城路和上海的南京路") == ["青岛", "上海"]  # streets named after cities
    assert places.find("南京的北京西路") == ["南京"]  # …with a direction too
    assert places.find("广州北京路步行街") == ["广州", "北京路"]  # a street that is a sight of its own
    assert places.find("泉州西街和开元寺") == ["泉州", "开元寺"]  # a town's own old street is the town
    assert places.foreign("西栅夜景是精华", ["乌镇"]) == []  # 西栅 lies in 乌镇


def test_parents_and_children_of_the_request_places_are_not_foreign() -> None:
    places = gazetteer()
    text = "厦门三天：鼓浪屿、环岛路，福建的海鲜，顺路去泉州开元寺，再飞成都"
    assert places.foreign(text, ["厦门"]) == ["泉州", "开元寺", "成都"]
    assert places.foreign(text, ["福建"]) == ["成都"]  # a province's cities and spots are its own
    assert places.foreign("收纳改造，顺便去了上海", []) == ["上海"]  # a request without places has none
    assert places.foreign("鼓浪屿的小路", ["鼓浪屿"]) == []
    assert places.foreign("鼓浪屿的小路", ["泉州"]) == ["鼓浪屿"]


def test_a_place_the_request_itself_names_is_not_foreign_but_its_other_parts_are() -> None:
    places = gazetteer()
    request = "在越南大叻待了一周 写篇美食笔记 给想去东南亚穷游的学生党"
    assert places.foreign("大叻的夜市，东南亚穷游第一站", ["大叻"], request) == []
    assert places.foreign("大叻的夜市，东南亚穷游第一站", ["大叻"]) == ["东南亚"]
    assert places.foreign("大叻吃完再去曼谷", ["大叻"], request) == ["曼谷"]


def test_a_small_gazetteer_follows_its_parents() -> None:
    tiny = Gazetteer(
        [Place("甲省", None, "province"), Place("乙市", "甲省", "city"), Place("丙山", "乙市", "spot")]
    )
    assert tiny.ancestors("丙山") == ["乙市", "甲省"]
    assert sorted(tiny.descendants("甲省")) == ["丙山", "乙市"]
    assert tiny.related(["乙市"]) == {"甲省", "乙市", "丙山"}


# --- on topic and title templates ----------------------------------------------------------------------
def test_on_topic_needs_the_title_and_most_paragraphs() -> None:
    topics = ["露营", "帐篷", "营地"]
    about = "周末去营地露营，帐篷搭在湖边，晚上风有点大。"
    drift = "最近在练手冲咖啡，磨豆的粗细和水温最关键。"
    assert on_topic(post("周末露营记", "\n\n".join([about] * 5)), topics) == (True, 1.0)
    assert on_topic(post("周末露营记", "\n\n".join([about] * 4 + [drift])), topics) == (True, 0.8)
    assert on_topic(post("周末露营记", "\n\n".join([about] * 3 + [drift] * 2)), topics) == (False, 0.6)
    assert on_topic(post("我的周末", "\n\n".join([about] * 5)), topics)[0] is False  # the title too
    # headings and sign-offs (fewer than 10 Chinese characters) are not content paragraphs
    assert on_topic(post("露营", f"{about}\n\n收藏起来吧！"), topics) == (True, 1.0)


def test_title_skeleton_masks_the_topic_and_keeps_the_template() -> None:
    places = gazetteer()
    first = title_skeleton("厦门三天两晚攻略｜4个要点🗺️", request="厦门三天两晚攻略，给大学生", places=places)
    second = title_skeleton("小户型收纳改造｜6个要点✨", request="帮我写小户型收纳改造", places=places)
    assert first == second == "X｜#个要点"
    other = title_skeleton("住了一年才懂的收纳", request="帮我写小户型收纳改造", places=places)
    assert other != first and "X" in other
    masked = title_skeleton("带爸妈玩桂林5天", request="一篇旅行笔记", masks=["爸妈"], places=places)
    assert masked == "带X玩X#天"  # audience and places masked, digits → #
    assert title_skeleton("Write a post about", request="Write a post about camping") == "X"


# --- feedback expectations -----------------------------------------------------------------------------
FIRST = post(
    "泉州两天一夜", "第一天去开元寺，人很少。\n\n第二天去西街吃面线糊，一碗十几块。", ["泉州", "古城"]
)


@pytest.mark.parametrize(
    ("expect", "redo", "failed"),
    [
        ({"titleContains": ["不踩坑"]}, post("泉州不踩坑", FIRST["body"]), []),
        ({"titleContains": ["不踩坑"]}, post("泉州两天", FIRST["body"]), ["titleContains"]),
        ({"bodyNotContains": ["开元寺"]}, post(body="第二天去西街吃面线糊。"), []),
        ({"bodyNotContains": ["开元寺"]}, post(body="开元寺人很少。"), ["bodyNotContains"]),
        ({"notMentions": ["西街"]}, post(body="开元寺。", tags=["西街美食"]), ["notMentions"]),
        ({"mentions": ["大学生", "学生"]}, post(body="学生党也能去。"), []),
        ({"mentionsMore": ["元", "块"]}, post(body="门票0元，面线糊十几块，住宿两百元。"), []),
        ({"mentionsMore": ["元", "块"]}, post(body="开元寺人很少。"), ["mentionsMore"]),
        ({"bodyShorter": 0.8}, post(body="第一天去开元寺。"), []),
        ({"bodyShorter": 0.8}, post(body=FIRST["body"]), ["bodyShorter"]),
        ({"bodyLonger": 1.15}, post(body=FIRST["body"] * 2), []),
        ({"bodyLonger": 1.15}, post(body=FIRST["body"]), ["bodyLonger"]),
        ({"livelier": True}, post(body="开元寺人超级少啦！西街的面线糊真的绝了😋"), []),
        ({"livelier": True}, post(body=FIRST["body"]), ["livelier"]),
        ({"moreFormal": True}, post(body="开元寺游客较少，西街面线糊价格适中。"), []),
        ({"moreColloquial": True}, post(body="开元寺人很少哦，西街的面线糊吃了吗？好吃啦"), []),
        ({"moreColloquial": True}, post(body=FIRST["body"]), ["moreColloquial"]),
        ({"moreEmoji": True}, post(body="开元寺🏯西街🍜"), []),
        ({"fewerEmoji": True, "noEmoji": True}, post(body=FIRST["body"]), []),
        ({"noEmoji": True}, post(body="开元寺🏯"), ["noEmoji"]),
        ({"tagsContain": ["#泉州拍照"]}, post(tags=["泉州拍照", "古城"]), []),
        ({"tagsNotContain": ["泉州"], "tagsChanged": 0.3}, post(tags=["闽南古城", "面线糊"]), []),
        (
            {"tagsNotContain": ["泉州"], "tagsChanged": 0.3},
            post(tags=["泉州", "面线糊"]),
            ["tagsNotContain", "tagsChanged"],
        ),
    ],
)
def test_expectations(expect: dict[str, Any], redo: dict[str, Any], failed: list[str]) -> None:
    assert check_expectation(expect, FIRST, redo) == failed


def test_a_formal_first_draft_needs_a_formal_redo_and_unknown_expectations_are_errors() -> None:
    lively = post(body="开元寺人超少啦！😋")
    assert check_expectation({"moreFormal": True}, lively, post(body="开元寺游客较少。")) == []
    assert check_expectation({"moreFormal": True}, lively, lively) == ["moreFormal"]
    assert check_expectation({"fewerEmoji": True}, lively, lively) == ["fewerEmoji"]
    with pytest.raises(ValueError, match="unknown expectation"):
        check_expectation({"titleContain": ["x"]}, FIRST, FIRST)


def test_a_reshuffled_redo_does_not_differ() -> None:
    shuffled = post(
        FIRST["title"], "第二天去西街吃面线糊，一碗十几块。\n\n第一天去开元寺，人很少。", ["古城", "泉州"]
    )
    assert not differs(FIRST, shuffled)
    assert differs(FIRST, {**shuffled, "title": "泉州古城慢游"})
    assert differs(FIRST, {**shuffled, "body": shuffled["body"] + "\n\n晚上住在古城民宿。"})
    assert differs(FIRST, {**shuffled, "tags": ["古城"]})


def test_the_subject_is_picked_from_the_first_draft() -> None:
    places = gazetteer()
    draft = post(body="厦门第一天去鼓浪屿，福建的海鲜很好吃，第二天去环岛路。", tags=["厦门旅行", "海岛"])
    assert pick_subject({"from": "body_place"}, draft, ["厦门"], places) == "鼓浪屿"  # not 厦门 nor 福建
    assert pick_subject({"from": "body_place"}, post(body="厦门很好玩"), ["厦门"], places) is None
    assert pick_subject({"from": "body_word", "candidates": ["泳衣", "海鲜"]}, draft, [], places) == "海鲜"
    assert pick_subject({"from": "first_tag"}, draft, [], places) == "厦门旅行"
    assert substitute({"notMentions": ["{X}"], "n": 1}, "鼓浪屿") == {"notMentions": ["鼓浪屿"], "n": 1}


def test_spread_takes_rows_from_the_whole_set() -> None:
    rows = [{"i": i} for i in range(10)]
    assert [r["i"] for r in spread(rows, 3)] == [0, 3, 6]
    # 88 families of three: every 44th row is a good draft — a key spreads over good and flawed alike
    families = [{"i": i, "good": i % 3 == 0} for i in range(264)]
    picked = spread(families, 6, key=lambda r: r["good"])
    assert len(picked) == 6 and sum(r["good"] for r in picked) == 2
    assert picked == sorted(picked, key=lambda r: r["i"])
    assert spread(rows, None) == rows and spread(rows, 0) == []


# --- the data ------------------------------------------------------------------------------------------
def _split_rule(rows: list[dict[str, Any]], key: str) -> None:
    """Within each group (kind, or draft family in order), the 2nd, 5th, 8th … is held out."""
    order: dict[str, int] = {}
    for row in rows:
        order.setdefault(row[key], len(order))
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row["split"])
    if key == "family":
        expected = {f: "holdout" if i % 3 == 1 else "tune" for f, i in order.items()}
        assert all(s == expected[row[key]] for row in rows for s in [row["split"]])
    else:
        for splits in groups.values():
            assert splits == ["holdout" if i % 3 == 1 else "tune" for i in range(len(splits))]
    share = sum(r["split"] == "holdout" for r in rows) / len(rows)
    assert 0.25 <= share <= 0.4


def test_the_request_set() -> None:
    rows = load_rows("requests")
    places = gazetteer()
    assert len(rows) >= 60 and len({r["id"] for r in rows}) == len(rows)
    assert {r["split"] for r in rows} == set(SPLITS)
    # round 1 (req-001…) split before tuning; rounds 2–6 and 8 (req-201…req-640, req-901…) were measured
    # once as fresh, then tuned on; round 7 (req-701…800) is held out, and with round 1's third it is
    # about a third of the set; rounds 10 and 11 (req-1001…) held a third of themselves out as they were
    # written
    _split_rule([r for r in rows if int(r["id"][4:]) < 200], "kind")
    _split_rule([r for r in rows if 1000 <= int(r["id"][4:]) < 1200], "kind")
    # round 12 (req-1201…) held out the ids ending on 2, 5 or 8 as it was written
    assert all(
        r["split"] == ("holdout" if int(r["id"][4:]) % 10 in (2, 5, 8) else "tune")
        for r in rows
        if 1200 <= int(r["id"][4:]) < 2900
    )
    # rounds 29–31 (req-2901…, req-3001…, req-3101…) held out every third row from req-2902, req-3002 and
    # req-3102 on as they were written
    assert all(
        r["split"] == ("holdout" if (int(r["id"][4:]) - 2900) % 3 == 2 else "tune")
        for r in rows
        if 2900 <= int(r["id"][4:]) < 3000
    )
    assert all(
        r["split"] == ("holdout" if (int(r["id"][4:]) - 3000) % 3 == 2 else "tune")
        for r in rows
        if 3000 <= int(r["id"][4:]) < 3100
    )
    # (…and so did rounds 32 to 36, 38, 40, 41, 43, 45, 47, 49, 51, 53, 55 and 57, from req-3202,
    # req-3302 … req-4702 on)
    # (…but for nine of round 53's, whose posts were read by mistake in session 37: tune rows since)
    read = {f"req-{n}" for n in (4502, 4505, 4520, 4529, 4532, 4550, 4553, 4556, 4559)}
    for start in range(3100, 4800, 100):
        assert all(
            r["split"] == ("holdout" if (int(r["id"][4:]) - start) % 3 == 2 and r["id"] not in read
                           else "tune")
            for r in rows
            if start <= int(r["id"][4:]) < start + 100
        )
    later = [(r, int(r["id"][4:])) for r in rows if 200 <= int(r["id"][4:]) < 1000]
    assert all(r["split"] == ("holdout" if 700 <= n < 900 else "tune") for r, n in later)
    assert 0.25 <= sum(r["split"] == "holdout" for r in rows) / len(rows) <= 0.4
    assert {r["theme"] for r in rows if r["intent"] == "full_post"} == THEMES
    assert Counter(r["intent"] for r in rows).keys() == {"full_post", "image_only", "question", "time_query"}
    traps = [r for r in rows if r["kind"] == "trap"]
    assert len(traps) >= 10 and all(r["intent"] == "full_post" for r in traps)
    # (…or how long or how much, which rounds 29 and 30 ask too: 换粮要过渡多久？…写篇经验帖; or which day,
    # round 45's 第几天才能画好眼线)
    asked = ("如何", "什么", "怎么", "哪些", "时间", "几点", "多久", "多少", "几天")
    assert all(any(w in r["message"] for w in asked) for r in traps)
    assert {"place_in_corpus", "place_outside", "english", "mixed", "image", "question", "time"} <= {
        r["kind"] for r in rows
    }
    for row in rows:
        assert all(p in places.places for p in row["places"]), row["id"]
        assert row["intent"] != "full_post" or row["topics"], row["id"]


def test_the_draft_set() -> None:
    rows = load_rows("drafts")
    places = gazetteer()
    good = [r for r in rows if not r["flaws"]]
    flawed = [r for r in rows if r["flaws"]]
    assert len(good) >= 20 and len(flawed) >= 40 and len({r["id"] for r in rows}) == len(rows)
    round_1 = [r for r in rows if int(r["family"][1:]) <= 21]
    _split_rule(round_1, "family")
    # rounds 2–6 (F22–F67), 8–10 (F78–F107) and 14 (F138–F147) were each measured as a holdout once, then
    # tuned on; rounds 7 and 11–13 (F68–F77, F108–F137) are held out, with round 1's third about a third of
    # the set; round 16 (F162–) held a third of its families out as it was written
    _split_rule([r for r in rows if int(r["family"][1:]) >= 162], "family")
    families = [(r, int(r["family"][1:])) for r in rows]
    held = {f for _, f in families if 68 <= f <= 77 or 108 <= f <= 137}
    assert all(r["split"] == ("holdout" if f in held else "tune") for r, f in families if 22 <= f < 162)
    assert 0.3 <= sum(r["split"] == "holdout" for r in rows) / len(rows) <= 0.4
    kinds = Counter(k for r in flawed for k in r["flaws"])
    assert len(kinds) >= 12 and min(kinds.values()) >= 3
    assert {k for r in flawed if r["split"] == "holdout" for k in r["flaws"]} == set(kinds)
    for row in good:  # publishable: a short title, 3–10 tags, 300–600 characters, no foreign place
        draft = row["draft"]
        assert len(draft["title"]) <= 20 and 3 <= len(draft["tags"]) <= 10, row["id"]
        assert 300 <= len(draft["body"]) <= 600 and "\n\n" in draft["body"], row["id"]
        text = "\n".join([draft["title"], draft["body"], *draft["tags"]])
        assert places.foreign(text, row["places"]) == [], row["id"]
    for row in flawed:
        base = next(g for g in good if g["family"] == row["family"])
        assert row["draft"] != base["draft"], row["id"]
        if "long_title" in row["flaws"]:
            assert len(row["draft"]["title"]) > 20
        if "wrong_place" in row["flaws"]:
            seeded = "\n".join([row["draft"]["body"], *row["draft"]["tags"]])  # in the body or a tag
            assert places.foreign(seeded, row["places"]), row["id"]


def test_the_feedback_set() -> None:
    rows = load_rows("feedback")
    assert len(rows) >= 30 and len({r["id"] for r in rows}) == len(rows)
    _split_rule(rows, "kind")
    assert {"title_add", "delete_part", "more_about", "shorter", "longer", "livelier", "more_formal"} <= {
        r["kind"] for r in rows
    }
    for row in rows:  # every expectation is one the checker knows, and {X} only where something is picked
        check_expectation(substitute(row["expect"], "某物"), FIRST, FIRST)
        uses_subject = "{X}" in str(row["expect"]) or "{X}" in row["feedback"]
        assert uses_subject == ("pick" in row), row["id"]


def test_where_the_writer_set_out_from_is_no_foreign_place() -> None:
    places = gazetteer()
    assert places.foreign("周五从昆明南坐动车到建水，周日回昆明。", ["建水"]) == []
    assert places.foreign("昆明出发，一个半小时到建水。", ["建水"]) == []
    assert places.foreign("从昆明出发，顺路在昆明吃了米线。", ["建水"]) == ["昆明"]
