"""`studio run`, `studio resume` and `studio threads` on real runs: the real graph, real SQLite, real LanceDB
with the shipped sample corpus, the offline model and renderer. The corpus is seeded once per module and the
seeded data dir is copied for each test."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner, Result

from app.cli.main import cli
from app.cli.run import answer_from_text, auto_decision, content_form, parse_content_form
from app.settings import Settings
from app.setup import prepare_data

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path) -> Path:
    """A prepared data dir: the session's seeded store (embedding the corpus once is enough), migrated."""
    data = tmp_path_factory.mktemp("seeded") / "data"
    settings = Settings(_env_file=None, data_dir=data)
    settings.ensure_dirs()
    shutil.copytree(knowledge_dir, settings.store_dir, dirs_exist_ok=True)
    asyncio.run(prepare_data(settings, log=lambda _message: None))  # migrates; the store is not empty
    return data


@pytest.fixture
def data_dir(seeded: Path, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(seeded, target)
    return target


def studio(data_dir: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(cli, [*args, "--data-dir", str(data_dir)], input=input,
                         env={"COLUMNS": "160", **(env or {})})


def studio_process(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a new process (a resume there only has the on-disk checkpointer to go on)."""
    env = {**os.environ, "STUDIO_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "app", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=240, check=False)


def lines(stdout: str) -> list[dict[str, Any]]:
    """Every stdout line of a --json run is one JSON object."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == kind]


def assert_paused_at(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    result = events[-1]
    assert result["type"] == "result" and result["status"] == "paused", result
    assert result["pending"]["context"]["kind"] == kind
    assert result["resume"].startswith(f"studio resume {result['threadId']}")  # + --data-dir when given
    return result


def assert_real_images(data_dir: Path, events: list[dict[str, Any]]) -> None:
    """The final result's images are real 1080x1440 PNG files, also according to the database."""
    complete = of_type(events, "workflow_complete")[-1]
    result = events[-1]
    assert result["type"] == "result" and result["status"] == "completed"
    ids = complete["imageAssetIds"]
    assert ids and [i["assetId"] for i in result["images"]] == ids
    with sqlite3.connect(data_dir / "studio.db") as db:
        rows = db.execute("SELECT id, file_path FROM image_assets WHERE status = 'complete'").fetchall()
        stored = dict(rows)
    for image in result["images"]:
        path = Path(image["path"])
        assert path == (data_dir / "assets" / stored[image["assetId"]]).resolve()
        with Image.open(path) as picture:
            picture.load()
            assert picture.format == "PNG"
            assert picture.size == (1080, 1440)


# --- pure helpers ------------------------------------------------------------------------------------------


def test_content_form_round_trips_and_keeps_edits() -> None:
    draft = {"title": "周末城市露营指南", "body": "第一段。\n\n第二段 #露营", "tags": ["露营", "周末"]}
    assert parse_content_form(content_form(draft)) == draft
    edited = content_form(draft).replace("周末城市露营指南", "下班后露营").replace("#周末", "#城市, 通勤")
    assert parse_content_form(edited) == {**draft, "title": "下班后露营", "tags": ["露营", "城市", "通勤"]}


def test_clarification_answers() -> None:
    options = [{"id": "outdoor", "label": "户外露营"}, {"id": "food", "label": "美食探店"}]
    assert answer_from_text("2", options) == {"userResponse": {"selectedIds": ["food"]}}
    assert answer_from_text("户外露营", options) == {"userResponse": {"selectedIds": ["outdoor"]}}
    assert answer_from_text("7", options)["userResponse"] == {"selectedIds": [], "customInput": "7"}
    clarification = {"context": {"__clarification": True}, "options": options}
    assert auto_decision(clarification) == {"userResponse": {"selectedIds": ["outdoor"]}}
    assert auto_decision({"context": {"__hitl": True, "kind": "content"}}) == {"action": "approve"}


# --- runs --------------------------------------------------------------------------------------------------


def test_run_auto_approve_json_delivers_real_images(data_dir: Path) -> None:
    result = studio(data_dir, "run", REQUEST, "--auto-approve", "--json")
    assert result.exit_code == 0, result.output
    events = lines(result.stdout)
    seqs = [e["seq"] for e in events[:-1]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert len(of_type(events, "ask_user")) == 2  # both checkpoints were met and approved
    complete = of_type(events, "workflow_complete")
    assert len(complete) == 1 and "露营" in complete[0]["title"]
    assert events[-1]["title"] == complete[0]["title"]
    assert events[-1]["creativeId"] == complete[0]["creativeId"]
    assert_real_images(data_dir, events)


def test_json_run_stops_at_pause_and_resumes_in_new_processes(data_dir: Path) -> None:
    first = studio(data_dir, "run", REQUEST, "--json")
    assert first.exit_code == 0, first.output
    events = lines(first.stdout)
    assert [e["type"] for e in events[-3:]] == ["ask_user", "workflow_paused", "result"]
    thread_id = assert_paused_at(events, "content")["threadId"]
    assert not of_type(events, "workflow_complete")

    plans = studio_process(data_dir, "resume", thread_id, "--approve", "--json")
    assert plans.returncode == 0, plans.stderr
    events = lines(plans.stdout)
    assert_paused_at(events, "image_plans")
    assert "writer_agent" not in [e["agent"] for e in of_type(events, "agent_start")]  # not re-run

    done = studio_process(data_dir, "resume", thread_id, "--approve", "--json")
    assert done.returncode == 0, done.stderr
    events = lines(done.stdout)
    assert "露营" in of_type(events, "workflow_complete")[0]["title"]
    assert_real_images(data_dir, events)

    again = studio(data_dir, "resume", thread_id, "--approve")
    assert again.exit_code == 2
    assert "没有等待确认" in again.output


def test_reject_repauses_with_a_new_draft_and_threads_lists_it(data_dir: Path) -> None:
    events = lines(studio(data_dir, "run", REQUEST, "--json").stdout)
    paused = assert_paused_at(events, "content")
    thread_id, before = paused["threadId"], paused["pending"]["context"]["data"]

    result = studio(data_dir, "resume", thread_id, "--reject", "标题更口语一点，多写下班后的放松感", "--json")
    assert result.exit_code == 0, result.output
    events = lines(result.stdout)
    assert "writer_agent" in [e["agent"] for e in of_type(events, "agent_start")]
    after = assert_paused_at(events, "content")["pending"]["context"]["data"]
    assert after != before

    listed = studio(data_dir, "threads", "--status", "paused")
    assert listed.exit_code == 0, listed.output
    assert thread_id in listed.output and "待审核" in listed.output
    assert thread_id not in studio(data_dir, "threads", "--status", "completed").output

    # the run and the decision are on record as the local CLI's, with the feedback
    with sqlite3.connect(data_dir / "studio.db") as db:
        started = db.execute(
            "SELECT started_by, owner_id FROM creatives WHERE thread_id = ?", (thread_id,)
        ).fetchone()
        records = db.execute(
            "SELECT actor, action, details FROM audit_records WHERE thread_id = ?", (thread_id,)
        ).fetchall()
    actor = f"cli:{getpass.getuser()}"
    assert tuple(started) == (actor, None)
    assert [(a, action) for a, action, _ in records] == [(actor, "reject")]
    assert json.loads(records[0][2])["feedback"] == "标题更口语一点，多写下班后的放松感"


def test_bad_input_exits_2(data_dir: Path, tmp_path: Path) -> None:
    unknown = studio(data_dir, "resume", "no-such-thread", "--approve")
    assert unknown.exit_code == 2
    assert "找不到会话 no-such-thread" in unknown.output

    as_json = studio(data_dir, "resume", "no-such-thread", "--approve", "--json")
    assert as_json.exit_code == 2
    assert lines(as_json.stdout)[-1]["error"]["code"] == "THREAD_NOT_FOUND"

    both = studio(data_dir, "resume", "no-such-thread", "--approve", "--reject", "再改改")
    assert both.exit_code == 2 and "只能选一个" in both.output

    too_many = studio(data_dir, "run", REQUEST, "--images", "12", "--json")
    assert too_many.exit_code == 2
    assert lines(too_many.stdout)[-1]["status"] == "invalid"

    not_an_image = tmp_path / "note.png"
    not_an_image.write_text("这不是图片", encoding="utf-8")
    bad_ref = studio(data_dir, "run", REQUEST, "--ref", str(not_an_image))
    assert bad_ref.exit_code == 2, bad_ref.output

    assert studio(data_dir, "threads", "--status", "sleeping").exit_code == 2


# --- the human display -------------------------------------------------------------------------------------


def test_interactive_run_approve_reject_approve(data_dir: Path) -> None:
    """Content: approve; plans: reject with feedback, then approve the new plans (extra lines are spare
    approvals, should the review send the post back to a checkpointed stage)."""
    answers = "1\n2\n每张图上的字少一点\n" + "1\n" * 6
    result = studio(data_dir, "run", REQUEST, input=answers)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "文案已生成" in out and out.count("图片规划已完成") >= 2
    assert "每张图上的字少一点" in out  # echoed by the prompt
    assert "调度" in out and "创作专家" in out and "质量审核" in out
    assert "创作完成" in out
    assert out.count(".png") >= 1
    for line in out.splitlines():
        if line.strip().endswith(".png"):
            assert Path(line.split(". ", 1)[1].strip()).is_file()


def test_eof_at_prompt_leaves_run_paused_then_resume_interactively(data_dir: Path) -> None:
    first = studio(data_dir, "run", REQUEST)  # no input: EOF at the first prompt
    assert first.exit_code == 0, first.output
    hint = next(line for line in first.output.splitlines() if "studio resume" in line)
    thread_id = hint.split("studio resume ", 1)[1].split()[0]
    assert f"--data-dir {data_dir}" in hint

    later = studio(data_dir, "resume", thread_id, input="1\n" * 8)
    assert later.exit_code == 0, later.output
    assert "文案已生成" in later.output and "创作完成" in later.output


def test_modify_content_in_editor(data_dir: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import re, sys\n"
        "path = sys.argv[1]\n"
        "text = open(path, encoding='utf-8').read()\n"
        "text = re.sub(r'(=== 标题 ===\\n).*', r'\\1下班后的城市露营', text)\n"
        "open(path, 'w', encoding='utf-8').write(text)\n",
        encoding="utf-8",
    )
    result = studio(data_dir, "run", REQUEST, input="3\n" + "1\n" * 8,
                    env={"EDITOR": f"{sys.executable} {editor}", "VISUAL": ""})
    assert result.exit_code == 0, result.output
    assert "文案：下班后的城市露营" in result.output  # the edit came back as a content_update
    assert "创作完成" in result.output


def test_live_display_on_a_terminal(data_dir: Path) -> None:
    result = studio(data_dir, "run", REQUEST, "--auto-approve", "--images", "2", env={"TTY_COMPATIBLE": "1"})
    assert result.exit_code == 0, result.output
    assert "\x1b[" in result.output  # the live area was drawn with cursor control
    assert "总进度" in result.output and "创作完成" in result.output
    assert "等待你的确认" not in result.output and "自动通过" in result.output  # nobody is asked


# --- labels: every value in Chinese, debug numbers only with --verbose ------------------------------------


def raw_values_in(text: str) -> list[str]:
    """Identifiers of the studio (label table keys, artifact enums) that appear as words in `text`."""
    import re
    import typing

    from agents import artifacts
    from tools.labels import TABLES

    raw = {key for table in TABLES.values() for key in table}
    for name in ("Intent", "ContentType", "ImageRole", "TextDensity", "TextPosition", "LayoutPreference"):
        raw |= set(typing.get_args(getattr(artifacts, name)))
    alternatives = "|".join(sorted(map(re.escape, raw), key=len, reverse=True))
    return sorted(set(re.findall(rf"(?<![A-Za-z0-9_\-])({alternatives})(?![A-Za-z0-9_\-])", text)))


def test_live_view_shows_chinese_labels_and_hides_debug_numbers(data_dir: Path) -> None:
    from tools.labels import TABLES

    result = studio(data_dir, "run", "写一篇关于猫咪日常的日记", "--images", "2", input="1\n" * 8)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "识别意图：图文笔记" in out
    assert any(f"内容类型：{name}" in out for name in TABLES["contentType"].values()), out
    assert "题材：萌宠" in out
    assert "检索笔记" in out and "匹配风格库" in out  # tool calls by their Chinese names
    assert "[规则]" in out  # the supervisor's decision source
    plans = out[out.index("图片规划已完成") :]
    assert "│ 封面 │" in plans and "│ 内页 │" in plans  # image roles in the plans table
    assert "置信度" not in out and '{"query"' not in out  # debug numbers and tool arguments: --verbose only
    assert raw_values_in(out) == [], raw_values_in(out)


def test_verbose_live_view_adds_the_debug_numbers(data_dir: Path) -> None:
    request = "做一张咖啡店新品海报，只要图片"
    result = studio(data_dir, "run", request, "--auto-approve", "--images", "1", "--verbose")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "等待你的确认" not in out and "等待确认" not in out
    assert "识别意图：只要图片（置信度" in out
    assert '匹配风格库 {"query"' in out  # the tool's arguments
    # an image-only package is judged on the image dimensions only
    table = out[out.index("质量审核 第1轮") :]
    assert "图文一致" in table and "信息密度" not in table and "平台适配" not in table
