"""The critic's card checks (agents/checks/cards.py): each check with a failing and a passing case, and the
real image planner's output (offline model) passing them all."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agents.checks.cards import card_findings
from agents.context import StudioContext
from agents.image_planner import image_planner_agent
from tests.agents.harness import run_node
from tests.agents.test_visual_agents import DRAFT, planned_state

TITLE = DRAFT["title"]


def package() -> dict[str, Any]:
    """A clean four-card package for DRAFT (cover, two details, result)."""
    plans = [
        {"index": 1, "role": "cover", "subject": "城市露营", "basePrompt": "封面", "palette": ["#101820"]},
        {"index": 2, "role": "detail", "subject": "装备清单", "basePrompt": "装备", "palette": ["#101820"]},
        {"index": 3, "role": "detail", "subject": "选址攻略", "basePrompt": "选址", "palette": ["#101820"]},
        {"index": 4, "role": "result", "subject": "城市露营", "basePrompt": "总结", "palette": ["#101820"]},
    ]
    overlays = [
        {"imageIndex": 1, "headline": TITLE, "lines": ["工作日被会议塞满？"], "caption": "#城市露营 #上班族"},
        {
            "imageIndex": 2,
            "headline": "装备清单",
            "lines": ["帐篷：选3秒速开的，新手10分钟搭好", "营地灯和充电宝"],
            "caption": None,
        },
        {
            "imageIndex": 3,
            "headline": "选址攻略",
            "lines": ["优先选有水电的公园营地，一晚80元左右", "提前在小程序预约，周六上午最抢手"],
            "caption": None,
        },
        {"imageIndex": 4, "headline": "划重点", "lines": ["装备清单", "选址攻略"], "caption": None},
    ]
    layout = {
        "items": [
            {"index": 1, "role": "cover", "paragraphIndexes": [0]},
            {"index": 2, "role": "detail", "paragraphIndexes": [1]},
            {"index": 3, "role": "detail", "paragraphIndexes": [2]},
            {"index": 4, "role": "result", "paragraphIndexes": [5]},
        ]
    }
    return {"draft": DRAFT, "plans": plans, "overlays": overlays, "layout": layout}


def checks(pkg: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in card_findings(**pkg):
        assert finding.owner == "image_planner_agent"
        found.setdefault(finding.check, []).append(finding.reason)
    return found


def test_a_clean_package_passes() -> None:
    assert checks(package()) == {}


def test_a_keyword_fragment_badge_fails() -> None:
    pkg = package()
    pkg["plans"][2]["subject"] = "宝石、核心"
    [finding] = [f for f in card_findings(**pkg) if f.check == "card_fragment"]
    assert finding.dimension == "readability"
    assert finding.reason == "第3张图的主体标签「宝石、核心」是关键词碎片，不是完整短语"
    pkg["plans"][2]["subject"] = "豆浆、一根"
    assert "card_fragment" in checks(pkg)
    # a list of words the post itself writes is a whole phrase
    pkg["plans"][2]["subject"] = "防潮垫+睡袋"
    assert "card_fragment" not in checks(pkg)


def test_a_line_cut_mid_phrase_fails_and_an_ellipsis_passes() -> None:
    pkg = package()
    pkg["overlays"][2]["lines"][0] = "优先选有水电的公园"
    found = checks(pkg)
    assert found["card_cut_text"] == ["第3张图的文字「优先选有水电的公园」在半句处断开，结尾没有省略号"]
    pkg["overlays"][2]["lines"][0] = "优先选有水电的公园营地…"
    assert "card_cut_text" not in checks(pkg)
    pkg["overlays"][2]["lines"][0] = "优先选有水电的公园营地，一晚80元左右和"
    assert "card_cut_text" in checks(pkg)


def test_a_clause_ending_in_a_final_de_is_whole() -> None:
    """是…的 and 超好的 end a sentence; 两天一夜的 leaves its noun out."""
    pkg = package()
    for line in ("周末露营，我是这样准备的", "营地的老板人超好的"):
        pkg["overlays"][2]["lines"][0] = line
        assert "card_cut_text" not in checks(pkg), line
    pkg["overlays"][2]["lines"][0] = "第一次露营两天一夜的"
    assert "card_cut_text" in checks(pkg)


def test_a_page_number_caption_fails() -> None:
    pkg = package()
    pkg["overlays"][1]["caption"] = "2/4"
    found = checks(pkg)
    assert found["card_page_twice"] == ["第2张图的说明文字「2/4」又写了一遍页码，卡片上已经有页码"]
    pkg["overlays"][1]["caption"] = "#露营装备"
    assert "card_page_twice" not in checks(pkg)


def test_a_summary_that_repeats_a_detail_card_fails() -> None:
    pkg = package()
    pkg["overlays"][3]["lines"] = ["帐篷：选3秒速开的，新手10分钟搭好", "营地灯和充电宝"]
    found = card_findings(**pkg)
    duplicates = [f for f in found if f.check == "card_duplicate"]
    assert duplicates and all(f.dimension == "textImageAlignment" for f in duplicates)
    assert duplicates[0].reason == "第4张图重复了第2张图的「帐篷：选3秒速开的，新手10分钟搭好」"
    two_details = package()
    two_details["overlays"][2]["lines"] = list(two_details["overlays"][1]["lines"])
    assert "card_duplicate" in checks(two_details)


def test_overlay_text_from_another_card_fails() -> None:
    pkg = package()
    pkg["overlays"][1]["lines"] = ["卡式炉煮火锅最省事", "营地灯和充电宝"]  # paragraph 3's line on card 2
    found = checks(pkg)
    assert found["card_overlay_mismatch"] == ["第2张图的文字「卡式炉煮火锅最省事」不是它对应段落里的内容"]
    missing = package()
    missing["overlays"] = missing["overlays"][:3]
    assert checks(missing)["card_overlay_missing"] == ["第4张图没有对应的文字规划"]


def test_the_cover_headline_is_the_title_or_the_editors_text() -> None:
    pkg = package()
    pkg["overlays"][0]["headline"] = "下班后的露营时光"
    found = checks(pkg)
    assert found["cover_headline"] == [f"封面标题「下班后的露营时光」不是笔记标题「{TITLE}」"]
    clipped = package()
    clipped["overlays"][0]["headline"] = TITLE.split("｜")[0]  # the title's main part is the title
    assert "cover_headline" not in checks(clipped)
    edited = package()
    edited["plans"][0]["overlay"] = {"imageIndex": 1, "headline": "下班就去露营！", "lines": []}
    assert "cover_headline" not in checks(edited)


@pytest.mark.parametrize("count", [3, 4, 6])
async def test_the_planners_own_cards_pass_every_check(ctx: StudioContext, count: int) -> None:
    state = await planned_state(ctx, imageCount=count)
    run = await run_node(image_planner_agent, state, ctx)
    found = card_findings(
        draft=copy.deepcopy(DRAFT),
        plans=run.update["imagePlans"],
        overlays=run.update["textOverlayPlan"],
        layout=state["layoutSpec"],
    )
    assert found == []
