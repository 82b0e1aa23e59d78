"""The brief keeps the request's audience and goal, and a clarification answer becomes structured fields
(angle, audience, constraints), never part of the topic or the title — through the real offline model
(LLMGateway → litellm provider) and through a real run paused for clarification."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from agents.answer import suggested_post_request
from agents.artifacts import Brief
from agents.brief_compiler import merge_clarification
from agents.hitl import UserResponse, clarification_text
from agents.node import prompt
from agents.run import Resources, RunRequest, WorkflowRunner
from tests.agents.test_graph import drain, studio  # noqa: F401  (the fixture)
from tools.lexfiles import sections
from tools.llm import LLMConfig, LLMGateway
from tools.offline.briefing import goal_and_cta
from tools.offline.scenes import goals

CLARIFIED = "厦门三天两晚，写给第一次去的大学生，想多逛逛小众海边"


@pytest.fixture
def offline_llm() -> Iterator[LLMGateway]:
    yield LLMGateway(LLMConfig())


async def brief_of(llm: LLMGateway, request: str, clarification: str | None = None) -> Brief:
    messages = prompt("brief").render(request=request, clarification=clarification, feedback=None)
    return await llm.complete_structured("brief", messages, Brief)


async def test_a_food_tour_keeps_its_audience_and_is_no_recipe(offline_llm: LLMGateway) -> None:
    brief = await brief_of(offline_llm, "顺德早茶探店合集，给第一次去广东的朋友")
    assert brief.audience == "第一次去广东的朋友"
    assert brief.content_type == "list" and "顺德早茶" in brief.topic
    for text in (brief.goal, brief.call_to_action):
        assert not any(w in text for w in ("一道", "做给自己", "照着做", "菜谱")), text
    assert "店" in brief.goal


@pytest.mark.parametrize(
    ("request_text", "kind", "needle", "banned"),
    [
        ("西安回民街小吃探店，写给学生党", "review", "学生党", "做给自己吃"),
        ("露营需要准备什么？写个清单", "list", "清单", "挑个好天气"),
        ("家常红烧肉做法，新手也能学会", "guide", "做", "点单"),
        ("三亚五天四晚亲子游攻略", "guide", "行程", "做给自己吃"),
        ("平价口红测评", "review", "评论区", "这周就做"),
        ("Write a post about hiking in Hangzhou", "guide", "杭州徒步", "Write"),
    ],
)
async def test_goal_and_cta_fit_the_content_type(
    offline_llm: LLMGateway, request_text: str, kind: str, needle: str, banned: str
) -> None:
    brief = await brief_of(offline_llm, request_text)
    text = json.dumps(brief.model_dump(by_alias=True), ensure_ascii=False)
    assert brief.content_type == kind, text
    assert needle in text and banned not in text, text


async def test_a_clarification_fills_fields_not_the_topic(offline_llm: LLMGateway) -> None:
    detail = "写给刚来上海的实习生，不要超过600字"
    answer = clarification_text(UserResponse(selected_ids=["food"], custom_input=detail))
    assert answer == "方向：美食探店\n说明：写给刚来上海的实习生，不要超过600字"
    brief = await brief_of(offline_llm, "随便写点东西", answer)
    assert brief.topic == "美食探店" and "补充" not in brief.topic and "说明" not in brief.topic
    assert brief.audience == "刚来上海的实习生"
    assert "不要超过600字" in brief.constraints and brief.theme == "food"

    concrete = await brief_of(offline_llm, "写一篇成都旅行笔记", "方向：美食探店")
    assert concrete.topic == "成都旅行" and concrete.angle == "美食探店"


def test_a_pasted_clarification_is_taken_out_of_the_topic() -> None:
    pasted = Brief.model_validate({
        "topic": "点东西（补充：美食探店）", "audience": "上班族", "goal": "分享", "tone": "轻松",
        "keywords": ["美食"], "callToAction": "收藏吧",
    })
    merged = merge_clarification(pasted, "方向：美食探店")
    assert merged.topic == "点东西" and merged.angle == "美食探店"
    assert pasted.angle == ""  # a brief stored before `angle` existed still validates


def test_an_answer_suggests_a_post_on_its_topic() -> None:
    assert suggested_post_request("上班族颈椎痛怎么办？") == "写一篇上班族颈椎痛的笔记"
    assert suggested_post_request("请问杭州哪里可以露营？") == "写一篇杭州哪里可以露营的笔记"
    assert suggested_post_request("吗？") is None
    assert suggested_post_request("第一次养狗需要准备什么") == "写一篇第一次养狗的准备清单"
    assert suggested_post_request("去西藏要带哪些东西？") == "写一篇去西藏的必带清单"
    assert suggested_post_request("宝宝第一次去游泳馆，要注意什么") == "写一篇宝宝第一次去游泳馆的注意事项"
    assert suggested_post_request("露营有哪些要注意的地方？") == "写一篇露营的注意事项"
    # a question word is never cut in half (什么 is no sentence-final 么)
    asked = "西安回民街除了肉夹馍还能吃什么"
    assert suggested_post_request(asked) == f"写一篇{asked}的笔记"


async def test_a_clarified_run_never_pastes_the_answer(studio: Resources) -> None:  # noqa: F811
    runner = WorkflowRunner(studio)
    handle = await runner.prepare_start(RunRequest(message="随便写点东西", enable_hitl=False, image_count=1))
    events = await drain(runner, handle)
    assert events[-2]["type"] == "ask_user" and events[-2]["context"]["__clarification"]
    events = await drain(
        runner,
        await runner.prepare_resume(
            handle.thread_id,
            {"userResponse": {"selectedIds": ["travel"], "customInput": CLARIFIED}},
        ),
    )
    done = events[-1]
    assert done["type"] == "workflow_complete"
    brief = next(e["brief"] for e in events if e["type"] == "brief_ready")
    assert brief["topic"] == "厦门三天两晚" and brief["audience"] == "第一次去的大学生", brief
    assert brief["angle"] == "想多逛逛小众海边" and brief["theme"] == "travel", brief
    assert "想多逛逛小众海边" in done["body"].split("\n\n")[0]  # the post takes the angle asked for
    for text in (brief["topic"], done["title"]):
        assert not any(w in text for w in ("补充", "方向", "说明", "随便")), text


async def test_a_question_run_ends_with_a_suggested_post(studio: Resources) -> None:  # noqa: F811
    runner = WorkflowRunner(studio)
    events = await drain(runner, await runner.prepare_start(RunRequest(message="上班族颈椎痛怎么办？")))
    assert events[-1]["type"] == "workflow_complete"
    assert events[-1]["suggestedRequest"] == "写一篇上班族颈椎痛的笔记"
    clock = await drain(runner, await runner.prepare_start(RunRequest(message="现在几点")))
    assert clock[-1]["type"] == "workflow_complete" and clock[-1]["suggestedRequest"] is None


def test_calls_to_action_vary_by_topic_and_stay_of_their_kind() -> None:
    """Posts of one kind do not all end alike: each goal lists calls to action of the same kind (the
    critic's CTA families: a variant may match none, never another), and a topic always gets the same one."""
    families = sections("cta_families.txt")
    for key, entry in goals()["goals"].items():
        kinds = [{f for f, family in families.items() if re.search(family["cta"], c)} for c in entry["cta"]]
        named = [k for k in kinds if k]
        assert len(entry["cta"]) >= 2 and all(k == named[0] for k in named), (key, entry["cta"], kinds)
    topics = ["杭州西湖一日游", "厦门三天两晚", "泉州古城citywalk", "青岛海边两天", "成都三天吃喝", "大理"]
    said = {goal_and_cta("travel", "guide", t, topic=t, audience="上班族")[1] for t in topics}
    assert len(said) >= 2 and all(c in goals()["goals"]["travel/guide"]["cta"] for c in said), said
    again = goal_and_cta("travel", "guide", topics[0], topic=topics[0], audience="上班族")
    assert again == goal_and_cta("travel", "guide", topics[0], topic=topics[0], audience="上班族")


async def test_whose_recovery_it_is_makes_no_lead_of_a_note_on_a_child(studio: Resources) -> None:  # noqa: F811
    """新手妈妈产后恢复: the postpartum note leads the post, not a toddler's nights that name 妈妈."""
    runner = WorkflowRunner(studio)
    request = RunRequest(message="新手妈妈产后恢复的经验分享", enable_hitl=False, image_count=1)
    events = await drain(runner, await runner.prepare_start(request))
    done = events[-1]
    assert done["type"] == "workflow_complete"
    assert "凯格尔" in done["body"] or "腹直肌" in done["body"]
    assert not any(w in done["body"] for w in ("夜奶", "读绘本", "断夜"))
