"""`studio run` shows the draft as the writer streams it — on a terminal only: piped output and `--json`
stay as they were (no partial drafts, no `content_delta` lines)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from app.cli.main import cli
from app.cli.run import LiveView
from app.settings import Settings
from app.setup import prepare_data
from tools.offline import register_offline_provider

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"
runner = CliRunner()


def delta(**fields: Any) -> dict[str, Any]:
    base = {"type": "content_delta", "threadId": "t", "timestamp": 0, "agent": "writer_agent", "attempt": 1,
            "reset": False, "titleOffset": 0, "titleDelta": "", "bodyOffset": 0, "bodyDelta": ""}
    return {**base, **fields}


def rendered(view: LiveView) -> str:
    console = Console(width=80, record=True, force_terminal=False)
    console.print(view)
    return console.export_text()


def test_the_live_view_shows_the_growing_draft_until_the_content_update() -> None:
    view = LiveView()
    view.show(delta(reset=True, titleDelta="周末"))
    view.show(delta(titleOffset=2, titleDelta="露营清单", bodyDelta="第一行\n"))
    view.show(delta(titleOffset=6, bodyOffset=4, bodyDelta="\n".join(f"第{i}行" for i in range(2, 10))))
    screen = rendered(view)
    assert "正在撰写文案" in screen and "周末露营清单" in screen
    assert "第9行▍" in screen and "第2行" not in screen  # the body's last lines only
    view.show(delta(attempt=2, reset=True, titleDelta="重写"))
    screen = rendered(view)
    assert "重新生成中（第 2 次）" in screen and "重写" in screen and "第9行" not in screen
    view.show({"type": "content_update", "threadId": "t", "timestamp": 0, "title": "重写的标题", "body": "…",
               "tags": []})
    assert "正在撰写" not in rendered(view) and view.draft is None


@pytest.fixture
def data_dir(tmp_path: Path, knowledge_dir: Path) -> Path:
    data = tmp_path / "data"
    settings = Settings(_env_file=None, data_dir=data)
    settings.ensure_dirs()
    shutil.copytree(knowledge_dir, settings.store_dir, dirs_exist_ok=True)
    asyncio.run(prepare_data(settings, log=lambda _message: None))
    return data


@pytest.fixture
def paced() -> Iterator[None]:
    register_offline_provider(first_token_ms=20, chars_per_s=600)  # a draft that takes a couple of seconds
    yield
    register_offline_provider(first_token_ms=None, chars_per_s=None)


def run(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    arguments = ["run", REQUEST, "--no-hitl", "--images", "1", *args, "--data-dir", str(data_dir)]
    return runner.invoke(cli, arguments, env={"COLUMNS": "120", **(env or {})})


def test_on_a_terminal_the_run_shows_the_draft_as_it_streams(data_dir: Path, paced: None) -> None:
    result = run(data_dir, env={"FORCE_COLOR": "1"})  # rich draws its live area as on a terminal
    assert result.exit_code == 0, result.output
    assert "正在撰写文案" in result.output and "创作完成" in result.output


def test_piped_and_json_output_show_no_partial_drafts(data_dir: Path, paced: None) -> None:
    piped = run(data_dir, env={"TTY_COMPATIBLE": "0", "FORCE_COLOR": ""})  # not a terminal, however slow
    assert piped.exit_code == 0, piped.output
    assert "正在撰写" not in piped.output and "文案：" in piped.output

    as_json = run(data_dir, "--json")
    assert as_json.exit_code == 0, as_json.output
    lines = [json.loads(line) for line in as_json.stdout.splitlines() if line.strip()]
    assert lines[-1]["status"] == "completed"
    assert "content_delta" not in {line["type"] for line in lines} and "content_update" in {
        line["type"] for line in lines
    }
