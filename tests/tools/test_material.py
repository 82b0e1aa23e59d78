"""The offline writer's material: evidence lines with their roles, the note a post follows, and the
evidence composer that ranks notes by how much they are about the subject."""

from __future__ import annotations

import random
from typing import Any

import pytest

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

