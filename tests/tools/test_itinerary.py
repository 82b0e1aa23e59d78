"""A trip guide asked for a span of days is laid out day by day (tools/offline/itinerary.py), and what the
offline writer makes of it passes the critic."""

from __future__ import annotations

import random

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
        ("新疆十二天自驾", 0),  # a span this long is no plan a post lays out (十二天 is no 二天)
        ("9天行程", 0),
        ("厦门美食攻略", 0),
    ],
)
def test_the_span_of_a_trip(request_text: str, days: int) -> None:
    assert itinerary.trip_days(request_text) == days


def test_a_plan_arrives_rests_and_leaves_and_says_nothing_twice() -> None:
    points = ["去海边栈道走走，看日落", "逛老城区的小巷", "防晒要足，帽子和墨镜都带上"]
    for days in range(1, 6):
        plan, left = itinerary.day_plan(days, points)
        lines = [line for _, slots in plan for _, line in slots]
        assert len(lines) == len(set(lines))
        assert "防晒要足，帽子和墨镜都带上" in left  # advice stays a tip, not a time of day
        if days > 1:
            assert plan[0][1][0] == ("上午", itinerary.ARRIVE)
            assert plan[-1][1][-1] == ("下午", itinerary.LEAVE)  # the last day ends on the way home
            assert plan[0][0] == "Day1" and str(days) in plan[-1][0]
        assert all(slots for _, slots in plan)  # no day printed empty
    plan, _ = itinerary.day_plan(5, points)
    assert ("Day4", [("全天", itinerary.REST)]) in plan  # the free middle of a long trip, said once


def _draft(request: str, topic: str, seed: int = 1) -> dict[str, object]:
    brief = {"topic": topic, "theme": "travel", "contentType": "guide", "keywords": [topic[:2]]}
    sections = {"request": request, "brief": brief, "evidence": {"facts": []}}
    ctx = Context(task="draft", sections=sections, last_user="", schema=None, rng=random.Random(seed))
    return compose_draft(ctx)


@pytest.mark.parametrize(
    ("request_text", "topic", "days"),
    [
        ("写一篇去北海看海的两天一夜攻略，给第一次去的大学生", "北海看海", 2),
        ("景洪三日游攻略", "景洪三日游", 3),
        ("写个扬州一日游", "扬州一日游", 1),
    ],
)
def test_a_trip_with_no_notes_is_told_day_by_day_and_passes_the_critic(
    request_text: str, topic: str, days: int
) -> None:
    draft = _draft(request_text, topic)
    body = str(draft["body"])
    if days > 1:
        assert all(f"Day{n}" in body for n in range(1, days + 1))
        assert itinerary.LEAVE in body.split(f"Day{days}")[1]
    else:
        assert "上午：" in body and "下午：" in body and "Day" not in body
    brief = {"topic": topic, "contentType": "guide", "theme": "travel"}
    assert [f.check for f in text_findings(request=request_text, brief=brief, draft=draft)] == []


def test_a_trip_without_a_span_keeps_its_list() -> None:
    body = str(_draft("北海看海攻略", "北海看海")["body"])
    assert "Day1" not in body and "上午：" not in body
