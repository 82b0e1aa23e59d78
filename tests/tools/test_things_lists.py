"""A request asking what to have, get or bring (必备清单, 带什么, 准备什么, 装备, 待产包) is answered with the
things of its scene (data/lexicon/scene_tips.txt `things:`), whatever notes the corpus holds: a real list of
things to get, with the scene's advice beside it — not three tips on the subject."""

from __future__ import annotations

import random
import re

import pytest

from agents.checks.text import text_findings
from tools.offline import voice
from tools.offline.context import Context
from tools.offline.drafting import compose_draft
from tools.offline.writing import compose_answer


def _draft(request: str, topic: str, theme: str, seed: int = 1, feedback: str = "") -> dict[str, object]:
    brief = {"topic": topic, "theme": theme, "contentType": "list", "keywords": [topic[:2]]}
    sections: dict[str, object] = {"request": request, "brief": brief, "evidence": {"facts": []}}
    if feedback:
        sections["feedback"] = feedback
    return compose_draft(Context("draft", sections, "", None, random.Random(seed)))


def _numbered(body: str) -> list[str]:
    """The list lines of a body, without their keycap or number."""
    return [re.sub(r"^\S+\s", "", ln) for ln in body.splitlines() if re.match(r"^(?:\d️⃣|\d+\.)\s", ln)]


CASES = [
    ("新手养猫必备清单", "新手养猫必备", "pets", "猫砂"),
    ("第一次露营需要准备什么？写个清单", "露营清单", "outdoor", "帐篷"),
    ("西藏旅行必带物品，写篇笔记", "西藏旅行必带物品", "travel", "防晒"),
    ("宝宝出生前的待产包清单", "待产包", "parenting", "产褥垫"),
    ("租房第一次做饭，厨房必备清单", "租房第一次做饭", "food", "炒锅"),  # the clause that asks: a kitchen's
    ("新手滑雪装备推荐", "新手滑雪装备", "outdoor", "雪镜"),
]


@pytest.mark.parametrize(("request_text", "topic", "theme", "essential"), CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_request_for_things_lists_the_things_of_its_scene(
    request_text: str, topic: str, theme: str, essential: str, seed: int
) -> None:
    draft = _draft(request_text, topic, theme, seed)
    body = str(draft["body"])
    items = _numbered(body)
    scene = voice.things_asked(theme, topic, request_text)
    assert len(items) >= 4 and all(item in scene.things for item in items)
    assert any(essential in item for item in items)  # the essentials lead: they are never left out
    names = voice.thing_names(items)
    tips = [ln[2:] for ln in body.splitlines() if ln.startswith("· ")]
    assert not any(name in tip for tip in tips for name in names)  # no tip says again what the list says
    brief = {"topic": topic, "theme": theme, "contentType": "list", "keywords": [topic[:2]]}
    assert [f.check for f in text_findings(request=request_text, brief=brief, draft=draft)] == []


def test_a_post_on_the_subject_that_asks_for_no_things_keeps_its_advice() -> None:
    assert not voice.things_asked("pets", "新手养猫注意事项", "新手养猫注意事项").things
    body = str(_draft("新手养猫注意事项", "新手养猫注意事项", "pets")["body"])
    assert not any("：" in item and item in voice.things_asked("pets", "养猫必备", "养猫必备").things
                   for item in _numbered(body))  # fmt: skip


def test_two_scenes_of_a_kind_each_bring_their_essentials() -> None:
    """A beach trip with a child: the sea's things, then a child's — never a beach outfit (fashion's)."""
    things = voice.things_asked("travel", "带娃去海边玩", "带娃去海边玩要带什么").things
    assert any("防晒" in t for t in things[:3]) and any("推车" in t or "水杯" in t for t in things[:6])
    assert not any(t.startswith("长裙") for t in things)


def test_things_the_editor_refused_are_left_out() -> None:
    draft = _draft("新手养猫必备清单", "新手养猫必备", "pets", feedback="不要提航空箱")
    assert "航空箱" not in str(draft["body"]) and len(_numbered(str(draft["body"]))) >= 4


def test_a_shorter_list_keeps_four_things_and_a_longer_one_all() -> None:
    scene = voice.things_asked("pets", "新手养猫必备", "新手养猫必备清单")
    short = _numbered(str(_draft("新手养猫必备清单", "新手养猫必备", "pets", feedback="写短一点")["body"]))
    long = _numbered(str(_draft("新手养猫必备清单", "新手养猫必备", "pets", feedback="写长一点")["body"]))
    assert len(short) == 4 and short == list(scene.things[:3]) + short[3:]
    assert len(long) == len(scene.things)


def test_a_question_about_what_to_get_is_answered_with_the_things_when_no_note_has_it() -> None:
    def answer(question: str, notes: list[dict[str, object]]) -> str:
        sections = {"question": question, "notes": notes}
        return compose_answer(Context("answer", sections, "", None, random.Random(1)))

    hamster = answer("养仓鼠需要买什么", [])
    assert "笼子" in hamster and "垫料" in hamster and "没有直接相关的笔记" in hamster
    assert "写成一篇完整的笔记" in hamster  # the post is still offered
    # (the advice beside the list says something the list does not)
    extra = [ln for ln in hamster.splitlines() if ln.startswith("另外")]
    assert extra and not any(n in extra[0] for n in voice.thing_names(voice.things_asked(
        "pets", "养仓鼠", "养仓鼠需要买什么").things[:6]))  # fmt: skip
    note = {"title": "仓鼠新手入门，笼子怎么选", "desc": "仓鼠笼子底面积至少要够它跑，垫料铺厚。", "tags": []}
    grounded = answer("养仓鼠需要买什么", [note])
    assert "仓鼠新手入门" in grounded  # a note on it is quoted, as before
    # (what kind of answer is asked — 装备 — is no subject: a camping note is no answer on skiing)
    camping = {"title": "露营新手装备清单", "desc": "给新手的建议是先买必需品。", "tags": []}
    skiing = answer("第一次滑雪需要准备什么装备", [camping])
    assert "露营" not in skiing and "雪镜" in skiing


def test_an_old_or_ill_animal_s_things_are_no_starter_kit() -> None:
    assert not voice.things_asked("pets", "适合老年猫的猫粮和用品", "推荐几款适合老年猫的猫粮和用品").things
    assert voice.things_asked("pets", "新手养猫必备", "新手养猫必备清单").things


def test_a_trip_asked_for_its_days_and_its_gear_keeps_its_days_and_adds_the_gear() -> None:
    request_text = "武功山徒步两天一夜，写一篇路线和装备攻略，面向没爬过山的新手"
    brief = {"topic": "武功山徒步两天一夜", "theme": "travel", "contentType": "guide", "keywords": ["武功山"]}
    sections: dict[str, object] = {"request": request_text, "brief": brief, "evidence": {"facts": []}}
    body = str(compose_draft(Context("draft", sections, "", None, random.Random(1)))["body"])
    assert "Day1" in body and "Day2" in body  # the route, day by day
    headings = [h.format(e="") for h in voice.THINGS_HEADINGS]
    gear = [p for p in body.split("\n\n") if any(h in p for h in headings)]
    assert gear and any("登山鞋" in p or "登山杖" in p for p in gear)  # …then what to bring
