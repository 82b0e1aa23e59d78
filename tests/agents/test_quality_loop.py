"""The quality loop end to end: a draft that fails the critic's checks goes back and the redo passes;
an editor's feedback is followed; an editor's own text is warned about, never redone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.run import RunRequest, WorkflowRunner
from app.resources import open_resources
from tests.agents.test_graph import creative_of, drain, make_settings
from tests.fakes import RecordingOffline, TamperedOffline

REQUEST = "厦门三天两晚旅行攻略，适合带爸妈"


def with_chengdu(answer: str) -> str:
    """The writer's answer with a sentence about another city slipped in (a model borrowing evidence)."""
    draft = json.loads(answer)
    paragraphs = draft["body"].split("\n\n")
    paragraphs.insert(1, "上次去成都，大熊猫基地早上7点半开门，去晚了熊猫都睡了，这次也照着那个节奏安排。")
    return json.dumps({**draft, "body": "\n\n".join(paragraphs)}, ensure_ascii=False)


def decisions(events: list[dict[str, Any]]) -> list[str]:
    return [e["reason"] for e in events if e["type"] == "supervisor_decision"]


async def test_a_draft_failing_the_checks_goes_back_before_the_editor_sees_it(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    model = TamperedOffline("writer", with_chengdu).install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="tampered/offline")
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        events = await drain(runner, await runner.prepare_start(RunRequest(message=REQUEST)))
    sent_back = [r for r in decisions(events) if "没通过自动检查" in r]
    assert len(sent_back) == 1 and "成都" in sent_back[0]
    writer_prompts = model.prompts("writer")
    assert len(writer_prompts) == 2 and "不要出现「成都」" in writer_prompts[1]
    pause = events[-2]
    assert pause["type"] == "ask_user" and pause["context"]["kind"] == "content"
    assert "成都" not in json.dumps(pause["context"]["data"], ensure_ascii=False)
    assert not pause["context"].get("warnings")


async def test_review_fails_a_bad_package_and_the_redo_passes(tmp_path: Path, knowledge_dir: Path) -> None:
    # the editor approves a draft the gate would have caught? No: the model slips the foreign city in on
    # each of its first three drafts, so the gate gives up and review must catch it.
    TamperedOffline("writer", with_chengdu, times=3).install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="tampered/offline", hitl_default=False)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=2))
        events = await drain(runner, handle)
        creative = await creative_of(studio, handle.thread_id)
    scores = [e for e in events if e["type"] == "quality_score"]
    assert not scores[0]["passed"] and scores[-1]["passed"]
    assert any(c["check"] == "foreign_place" for c in scores[0]["checks"])
    assert any("成都" in r for r in scores[0]["failReasons"])
    assert scores[0]["scores"]["infoDensity"] < 0.6
    assert events[-1]["type"] == "workflow_complete" and "成都" not in events[-1]["body"]
    assert creative.review_rounds[0]["checks"] and not creative.review_rounds[-1]["checks"]


async def test_reject_feedback_is_followed_and_what_is_not_done_is_said(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    spy = RecordingOffline().install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="spy/offline")
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST))
        first = (await drain(runner, handle))[-2]["context"]["data"]
        feedback = "标题里加上「爸妈」，不要提鼓浪屿，短一点。配色再高级一点"
        again = await drain(
            runner,
            await runner.prepare_resume(handle.thread_id, {"action": "reject", "userFeedback": feedback}),
        )
    redo = again[-2]["context"]["data"]
    assert "爸妈" in redo["title"] and "鼓浪屿" not in json.dumps(redo, ensure_ascii=False)
    assert len(redo["body"]) < len(first["body"])
    said = [e["content"] for e in again if e["type"] == "message" and e["agent"] == "writer_agent"]
    assert any("配色再高级一点" in m for m in said)  # the part it could not apply, said plainly
    assert len(spy.prompts("writer")) == 2


async def test_an_editors_own_text_is_warned_about_not_redone(tmp_path: Path, knowledge_dir: Path) -> None:
    settings = make_settings(tmp_path, knowledge_dir)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=2))
        draft = (await drain(runner, handle))[-2]["context"]["data"]
        body = draft["body"] + "\n\n顺便说一句，成都的火锅也很值得专门去一趟。"
        await drain(
            runner,
            await runner.prepare_resume(
                handle.thread_id, {"action": "modify", "modifiedData": {"body": body}}
            ),
        )
        events = await drain(runner, await runner.prepare_resume(handle.thread_id, {"action": "approve"}))
    scores = [e for e in events if e["type"] == "quality_score"]
    assert len(scores) == 1 and scores[0]["passed"]  # not sent back
    warned = [e["content"] for e in events if e["type"] == "message" and "仅作提醒" in e["content"]]
    assert warned and "成都" in warned[0]
    assert events[-1]["type"] == "workflow_complete" and "成都的火锅" in events[-1]["body"]


def with_stray_tags(answer: str) -> str:
    """The writer's answer with tags padded from elsewhere (another theme, another city)."""
    draft = json.loads(answer)
    return json.dumps({**draft, "tags": [*draft["tags"][:4], "口红试色", "成都美食"]}, ensure_ascii=False)


async def run_with_writer(
    tmp_path: Path, knowledge_dir: Path, tamper: Callable[[str], str]
) -> list[dict[str, Any]]:
    """A run of REQUEST whose writer answers are changed by `tamper`; its events."""
    TamperedOffline("writer", tamper).install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="tampered/offline")
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        return await drain(runner, await runner.prepare_start(RunRequest(message=REQUEST)))


async def test_the_writer_drops_tags_about_another_subject_or_place(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    events = await run_with_writer(tmp_path, knowledge_dir, with_stray_tags)
    update = next(e for e in events if e["type"] == "content_update")
    assert update["tags"] and not {"口红试色", "成都美食"} & set(update["tags"])
    assert not [r for r in decisions(events) if "没通过自动检查" in r and "标签" in r]


def with_mostly_stray_tags(answer: str) -> str:
    """The writer's answer with one tag of its own and three of another subject."""
    draft = json.loads(answer)
    tags = [draft["tags"][0], "口红试色", "通勤穿搭", "成都美食"]
    return json.dumps({**draft, "tags": tags}, ensure_ascii=False)


async def test_too_few_fitting_tags_are_filled_with_tags_for_any_post(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    events = await run_with_writer(tmp_path, knowledge_dir, with_mostly_stray_tags)
    update = next(e for e in events if e["type"] == "content_update")
    assert len(update["tags"]) >= 3 and not {"口红试色", "通勤穿搭", "成都美食"} & set(update["tags"])
    assert "生活方式" in update["tags"]
