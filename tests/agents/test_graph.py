"""The whole workflow through the real graph, runner, SQLite, LanceDB, offline model and renderer."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import select

from agents.events import EVENT_TYPES, parse_event
from agents.graph import build_graph
from agents.run import Resources, RunRequest, WorkflowRunner
from app import migrate
from app.resources import open_resources
from app.settings import ReviewThresholds, Settings
from tests.fakes import RecordingOffline, reference_png
from tools.database import Creative, ImageAsset
from tools.labels import agent_label, label
from tools.llm import LLMConfig, LLMGateway

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def make_settings(tmp_path: Path, knowledge_dir: Path, **overrides: Any) -> Settings:
    overrides = {"render_workers": 0, **overrides}  # cards in threads: no worker processes per test
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", **overrides)  # type: ignore[call-arg]
    settings.ensure_dirs()
    shutil.copytree(knowledge_dir, settings.store_dir, dirs_exist_ok=True)
    migrate.upgrade(settings.db_url)
    return settings


@pytest.fixture
async def studio(tmp_path: Path, knowledge_dir: Path) -> AsyncIterator[Resources]:
    async with open_resources(make_settings(tmp_path, knowledge_dir)) as resources:
        yield resources


async def drain(runner: WorkflowRunner, handle: Any) -> list[dict[str, Any]]:
    return [event async for event in runner.stream(handle)]


def reference_data_url() -> str:
    return "data:image/png;base64," + base64.b64encode(reference_png()).decode()


async def creative_of(resources: Resources, thread_id: str) -> Creative:
    async with resources.sessions() as session:
        creative = (
            await session.execute(select(Creative).where(Creative.thread_id == thread_id))
        ).scalar_one()
        return creative


async def test_full_run_with_both_checkpoints_emits_the_whole_protocol(studio: Resources) -> None:
    runner = WorkflowRunner(studio)
    handle = await runner.prepare_start(
        RunRequest(
            message=REQUEST,
            reference_images=[{"data": reference_data_url(), "type": "style"}],
            image_count=4,
        )
    )
    events = await drain(runner, handle)
    assert [e["type"] for e in events[-2:]] == ["ask_user", "workflow_paused"]
    ask = events[-2]
    assert ask["context"]["__hitl"] and ask["context"]["kind"] == "content"
    assert {"approve", "reject"} <= {o["id"] for o in ask["options"]}
    assert ask["context"]["data"]["title"] and ask["interruptId"]
    assert (await creative_of(studio, handle.thread_id)).status == "paused"
    assert (await runner.pending(handle.thread_id))["interruptId"] == ask["interruptId"]

    edited_title = "上班族周末露营｜轻松出发"
    resume = await runner.prepare_resume(
        handle.thread_id,
        {
            "action": "modify",
            "modifiedData": {"title": edited_title},
            "interruptId": ask["interruptId"],
        },
    )
    events += await drain(runner, resume)
    ask = events[-2]
    assert ask["type"] == "ask_user" and ask["context"]["kind"] == "image_plans"
    plans = ask["context"]["data"]["plans"]
    assert len(plans) == 4
    edited = [plans[1], plans[0], plans[2]]  # reorder and drop the last
    edited[0] = {**edited[0], "subject": "帐篷与天幕"}
    resume = await runner.prepare_resume(
        handle.thread_id, {"action": "modify", "modifiedData": {"plans": edited}}
    )
    events += await drain(runner, resume)

    # the stream is the contract: valid events, one seq sequence across the three streams
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    for event in events:
        parse_event(event)
        assert event["threadId"] == handle.thread_id
    # a new thread is acknowledged before the graph starts, then the supervisor takes over
    accepted = {"type": "workflow_progress", "progress": 0.0, "currentAgent": "supervisor"}
    assert events[0] == {**events[0], **accepted}
    assert events[1] == {**events[1], "type": "agent_start", "agent": "supervisor"}
    missing = EVENT_TYPES - {e["type"] for e in events} - {"error"}
    assert not missing, f"never emitted: {sorted(missing)}"

    done = events[-1]
    assert done["type"] == "workflow_complete"
    assert done["title"] == edited_title
    assert len(done["imageAssetIds"]) == 3
    progress = [e for e in events if e["type"] == "image_progress"]
    for task in (1, 2, 3):
        statuses = [e["status"] for e in progress if e["taskId"] == task]
        assert statuses[0] == "queued" and statuses[-1] == "complete"

    creative = await creative_of(studio, handle.thread_id)
    assert creative.status == "completed" and creative.title == edited_title
    assert creative.brief and creative.evidence and creative.layout_spec and creative.review_rounds
    assert creative.reference_analyses and creative.image_plans[0]["subject"] == "帐篷与天幕"
    assert creative.timings["writer_agent"]["runs"] == 1 and creative.prompt_tokens > 0
    assert creative.score is not None and creative.completed_at is not None
    async with studio.sessions() as session:
        assets = (
            (
                await session.execute(
                    select(ImageAsset).where(
                        ImageAsset.creative_id == creative.id, ImageAsset.role != "reference"
                    )
                )
            )
            .scalars()
            .all()
        )
    assert {a.id for a in assets} >= set(done["imageAssetIds"])
    for asset_id in done["imageAssetIds"]:
        located = await studio.assets.open_path(asset_id)
        assert located is not None
        with Image.open(located[0]) as png:
            assert png.size == (1080, 1440)


async def test_reject_redoes_the_writer_with_the_feedback_in_its_prompt(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    spy = RecordingOffline().install()
    settings = make_settings(tmp_path, knowledge_dir, llm_model="spy/offline")
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST))
        first = await drain(runner, handle)
        draft = first[-2]["context"]["data"]
        feedback = "太长了，精简一点，多讲讲预算"
        again = await drain(
            runner,
            await runner.prepare_resume(handle.thread_id, {"action": "reject", "userFeedback": feedback}),
        )
    assert again[-2]["type"] == "ask_user" and again[-2]["context"]["kind"] == "content"
    assert again[-2]["context"]["data"] != draft
    writer_prompts = spy.prompts("writer")
    assert len(writer_prompts) == 2
    assert feedback not in writer_prompts[0] and feedback in writer_prompts[1]
    assert spy.tasks().count("brief") == 1  # nothing before the writer ran again
    started = [e["agent"] for e in again if e["type"] == "agent_start"]
    assert started == ["writer_agent"]


async def test_resume_in_a_new_process_reruns_no_finished_stage(tmp_path: Path, knowledge_dir: Path) -> None:
    settings = make_settings(tmp_path, knowledge_dir)
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST))
        await drain(runner, handle)
    script = (
        "import asyncio, json, sys\n"
        "from agents.run import WorkflowRunner\n"
        "from app.resources import open_resources\n"
        "from app.settings import Settings\n"
        "async def main():\n"
        "    async with open_resources(Settings(_env_file=None)) as studio:\n"
        "        runner = WorkflowRunner(studio)\n"
        "        handle = await runner.prepare_resume(sys.argv[1], {'action': 'approve'})\n"
        "        events = [e async for e in runner.stream(handle)]\n"
        "        print(json.dumps({'events': events, 'tasks': [r.task for r in handle.meter.records]}))\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "STUDIO_DATA_DIR": str(settings.data_dir)}
    out = subprocess.run(  # noqa: ASYNC221 - the point is a separate process; nothing else runs meanwhile
        [sys.executable, "-c", script, handle.thread_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    started = [e["agent"] for e in result["events"] if e["type"] == "agent_start"]
    assert started == ["layout_planner_agent", "image_planner_agent"]
    assert set(result["tasks"]) == {"layout", "image_plan"}  # no brief, evidence or writer call again
    assert result["events"][-2]["context"]["kind"] == "image_plans"


async def test_failed_review_flows_back_and_ends_within_max_rounds(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    settings = make_settings(
        tmp_path, knowledge_dir, review=ReviewThresholds(overall=0.99), hitl_default=False
    )
    async with open_resources(settings) as studio:
        runner = WorkflowRunner(studio)
        handle = await runner.prepare_start(RunRequest(message=REQUEST, image_count=3))
        events = await drain(runner, handle)
        creative = await creative_of(studio, handle.thread_id)
    scores = [e for e in events if e["type"] == "quality_score"]
    assert [s["round"] for s in scores] == [1, 2, 3] and not any(s["passed"] for s in scores)
    backflows = [e for e in events if e["type"] == "supervisor_decision" and "回流" in e["reason"]]
    assert len(backflows) == 2
    for decision, score in zip(backflows, scores, strict=False):
        weakest = min(score["scores"], key=score["scores"].get)
        # the reason names the weakest dimension or the agent it flows back to, in Chinese
        shown = (label("dimension", weakest), agent_label(decision["decision"]))
        assert any(name in decision["reason"] for name in shown), decision["reason"]
    assert events[-1]["type"] == "workflow_complete"
    assert any(e["type"] == "message" and "最高" in e["content"] for e in events)
    best = max(s["overall"] for s in scores)
    assert events[-1]["qualityScores"]["overall"] == best
    assert creative.status == "completed" and len(creative.review_rounds) == 3


async def test_provider_failure_is_an_error_event_and_a_failed_creative(
    tmp_path: Path, knowledge_dir: Path
) -> None:
    settings = make_settings(tmp_path, knowledge_dir, offline_failure_rate=1.0, llm_max_retries=0)
    try:
        async with open_resources(settings) as studio:
            runner = WorkflowRunner(studio)
            handle = await runner.prepare_start(RunRequest(message=REQUEST, enable_hitl=False))
            events = await drain(runner, handle)
            creative = await creative_of(studio, handle.thread_id)
    finally:
        LLMGateway(LLMConfig())  # the offline provider is process-wide: restore its defaults
    assert events[-1]["type"] == "error"
    assert events[-1]["code"] == "LLM_UNAVAILABLE" and events[-1]["message"]
    intent = next(e for e in events if e["type"] == "intent_detected")
    assert intent["source"] == "rule"  # the LLM failed, the seed's rules decided
    assert creative.status == "failed" and creative.error["code"] == "LLM_UNAVAILABLE"


async def test_research_and_reference_run_in_the_same_step(tmp_path: Path, knowledge_dir: Path) -> None:
    settings = make_settings(tmp_path, knowledge_dir, offline_latency_ms=120, hitl_default=False)
    try:
        async with open_resources(settings) as studio:
            runner = WorkflowRunner(studio)
            handle = await runner.prepare_start(
                RunRequest(message=REQUEST, reference_images=[{"data": reference_data_url()}], image_count=1)
            )
            events = await drain(runner, handle)
    finally:
        LLMGateway(LLMConfig())

    def window(agent: str) -> tuple[int, int]:
        start = next(e["timestamp"] for e in events if e["type"] == "agent_start" and e["agent"] == agent)
        end = next(e["timestamp"] for e in events if e["type"] == "agent_end" and e["agent"] == agent)
        return start, end

    research, reference = window("research_evidence_agent"), window("reference_intelligence_agent")
    assert research[0] < reference[1] and reference[0] < research[1], (research, reference)
    decision = next(e for e in events if e["type"] == "supervisor_decision" and "+" in e["decision"])
    assert set(decision["decision"].split("+")) == {"research_evidence_agent", "reference_intelligence_agent"}


async def test_vague_request_is_clarified_once(studio: Resources) -> None:
    runner = WorkflowRunner(studio)
    handle = await runner.prepare_start(
        RunRequest(message="帮我写一篇笔记", enable_hitl=False, image_count=1)
    )
    events = await drain(runner, handle)
    ask = events[-2]
    assert ask["context"]["__clarification"] and ask["selectionType"] == "single"
    events = await drain(
        runner,
        await runner.prepare_resume(
            handle.thread_id,
            {"userResponse": {"selectedIds": ["outdoor"], "customInput": "周末露营，写给上班族"}},
        ),
    )
    assert events[-1]["type"] == "workflow_complete"
    assert not any(e["type"] == "ask_user" for e in events)
    brief = next(e["brief"] for e in events if e["type"] == "brief_ready")
    assert "露营" in json.dumps(brief, ensure_ascii=False)


@pytest.mark.parametrize(("message", "needle"), [("露营一般要带哪些东西？", "露营"), ("现在几点了", "星期")])
async def test_questions_are_answered_directly(studio: Resources, message: str, needle: str) -> None:
    runner = WorkflowRunner(studio)
    events = await drain(runner, await runner.prepare_start(RunRequest(message=message)))
    assert events[-1]["type"] == "workflow_complete"
    answer = [e for e in events if e["type"] == "message" and e["agent"] == "answer_agent"]
    assert answer and needle in answer[-1]["content"]
    assert not any(e["type"] == "agent_start" and e["agent"] == "writer_agent" for e in events)


async def test_image_only_requests_take_the_short_path(studio: Resources) -> None:
    runner = WorkflowRunner(studio)
    events = await drain(
        runner,
        await runner.prepare_start(RunRequest(message="帮我画一张夕阳下的海边帐篷", enable_hitl=False)),
    )
    started = [e["agent"] for e in events if e["type"] == "agent_start"]
    assert "writer_agent" not in started and "brief_compiler_agent" not in started
    assert started[-3:] == ["image_planner_agent", "image_agent", "review_agent"]
    assert events[-1]["type"] == "workflow_complete" and events[-1]["imageAssetIds"]


def test_graph_drawing_matches_the_snapshot() -> None:
    drawing = build_graph().get_graph().draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(drawing, encoding="utf-8")
    assert drawing == SNAPSHOT.read_text(encoding="utf-8")
