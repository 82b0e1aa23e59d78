"""A newcomer's first commands: reading commands never create `./.studio` (they say what to do), writing
commands say where they created it, and the long steps show real progress (migrations, seeding, imports).

Commands run through typer's CliRunner in an empty working directory (the default data dir is `./.studio`
there), and once as a real process."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

import app.cli.notes
from app.cli.main import cli
from app.cli.progress import Steps
from tools.knowledge import KnowledgeStore, Note

ROOT = Path(__file__).resolve().parents[2]
NO_DATA_DIR = "这里还没有数据目录"
runner = CliRunner()

READING = [
    ["notes", "stats"],
    ["notes", "search", "露营装备"],
    ["notes", "styles", "奶油风"],
    ["notes", "reindex"],
    ["creatives", "list"],
    ["creatives", "show", "1"],
    ["creatives", "stats"],
    ["creatives", "export"],
    ["threads"],
    ["resume", "no-such-thread", "--approve"],
    ["db", "current"],
    ["db", "downgrade", "base"],
]


def note(i: int) -> dict[str, object]:
    return {"id": f"n{i}", "title": f"第{i}篇露营笔记", "desc": "帐篷、睡袋和防潮垫怎么选" * (1 + i % 3),
            "tags": ["露营"], "likes": i, "collects": i, "comments": 0, "author": "a",
            "published_at": "2026-06-01", "theme": "outdoor", "url": ""}


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory with no STUDIO_* setting: the data dir is the default `./.studio`."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in [name for name in os.environ if name.startswith("STUDIO_")]:
        monkeypatch.delenv(name)
    return work


def studio(*args: str) -> Result:
    return runner.invoke(cli, list(args), env={"COLUMNS": "200"})


@pytest.mark.parametrize("command", READING, ids=" ".join)
def test_reading_commands_never_create_the_data_dir(empty_cwd: Path, command: list[str]) -> None:
    result = studio(*command)
    assert result.exit_code != 0, result.output
    assert NO_DATA_DIR in result.output and "make run" in result.output and "--data-dir" in result.output
    assert str(empty_cwd / ".studio") in result.output  # where it looked
    assert "Traceback" not in result.output
    assert list(empty_cwd.iterdir()) == []


def test_a_reading_command_named_a_missing_dir_says_so(empty_cwd: Path) -> None:
    result = studio("notes", "stats", "--data-dir", "elsewhere")
    assert result.exit_code == 1
    assert "elsewhere 不存在" in result.output and "--data-dir" in result.output
    assert list(empty_cwd.iterdir()) == []


def test_a_reading_command_in_a_real_process(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("STUDIO_")}
    result = subprocess.run([sys.executable, "-m", "app", "creatives", "list"], cwd=tmp_path,
                            env={**env, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 1
    assert NO_DATA_DIR in result.stdout + result.stderr
    assert not (tmp_path / ".studio").exists()


def test_db_upgrade_creates_the_data_dir_says_where_and_counts_the_migrations(empty_cwd: Path) -> None:
    result = studio("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert f"已创建数据目录：{empty_cwd / '.studio'}" in result.output
    steps = len(list((ROOT / "migrations" / "versions").glob("0*.py")))
    assert "数据库迁移" in result.output and f"{steps}/{steps}" in result.output  # counted per migration
    assert (empty_cwd / ".studio" / "studio.db").is_file()
    again = studio("db", "upgrade")
    assert again.exit_code == 0 and "已创建数据目录" not in again.output and "无需升级" in again.output
    assert studio("db", "current").exit_code == 0  # the dir exists now: reading works


def test_import_reports_the_new_dir_and_its_progress(empty_cwd: Path, tmp_path: Path) -> None:
    notes = write_jsonl(tmp_path / "notes.jsonl", [note(i) for i in range(40)])
    result = studio("notes", "import", str(notes))
    assert result.exit_code == 0, result.output
    assert f"已创建数据目录：{empty_cwd / '.studio'}" in result.output
    assert "导入笔记（共 40）" in result.output and "✓ 导入笔记（40/40" in result.output
    assert "已导入 40 条笔记" in result.output


def test_an_invalid_import_creates_nothing(empty_cwd: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    result = studio("notes", "import", str(bad))
    assert result.exit_code == 1 and "未导入任何内容" in result.output
    assert list(empty_cwd.iterdir()) == []


def test_seed_shows_counted_progress(
    empty_cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = tmp_path / "sample"
    (sample / "notes").mkdir(parents=True)
    write_jsonl(sample / "notes" / "outdoor.jsonl", [note(i) for i in range(20)])
    style = {"name": "奶油风", "keywords": ["奶油色"], "prompt": "soft creamy", "palette": ["#F5E6D3"],
             "description": "低饱和的奶油色调"}
    write_jsonl(sample / "styles.jsonl", [style])
    monkeypatch.setattr(app.cli.notes, "SAMPLE_DATA_DIR", sample)  # a small corpus: the same code path
    result = studio("notes", "seed")
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"已创建数据目录：{empty_cwd / '.studio'}" in out
    assert "加载示例笔记（共 20）" in out and "✓ 加载示例笔记（20/20" in out
    assert "✓ 加载示例风格（1/1" in out
    assert "已加载示例数据：20 条笔记、1 个风格" in out


def test_upsert_reports_each_embedded_batch(tmp_path: Path) -> None:
    """The progress is the embedding's own: several reports for several batches, adding up to the notes."""
    reports: list[int] = []
    notes = [Note.model_validate(note(i)) for i in range(40)]  # 80 texts: 3 batches of 32

    async def upsert() -> int:
        async with KnowledgeStore(tmp_path / "store") as store:
            return await store.upsert_notes(notes, progress=reports.append)

    assert asyncio.run(upsert()) == 40
    assert len(reports) >= 3 and sum(reports) == 40, reports


def test_steps_on_a_terminal_draw_bars_and_elsewhere_print_lines() -> None:
    screen = io.StringIO()
    with Steps(Console(file=screen, force_terminal=True, width=80)).step("加载示例笔记", total=8) as step:
        for _ in range(8):
            step.advance()
    assert "\x1b[" in screen.getvalue() and "8/8" in screen.getvalue()

    lines: list[str] = []
    with Steps(log=lines.append).step("加载示例笔记", total=8) as step:
        workers = [threading.Thread(target=step.advance, args=(2,)) for _ in range(4)]  # like embed's thread
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert lines[0] == "· 加载示例笔记（共 8）…"
    assert lines[1:-1] == ["  加载示例笔记：2/8", "  加载示例笔记：4/8", "  加载示例笔记：6/8"]
    assert lines[-1].startswith("✓ 加载示例笔记（8/8，用时")

    lines.clear()
    with pytest.raises(RuntimeError), Steps(log=lines.append).step("数据库迁移", total=1):
        raise RuntimeError("the work failed")
    assert lines == ["· 数据库迁移（共 1）…"]  # a failed step is never ticked off
