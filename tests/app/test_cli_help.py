"""`studio … --help` for every command and group, rendered at 80 columns: nothing cut with "…", no English
sentence, none of typer's fixed English words, the product's one name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.cells import cell_len
from typer.testing import CliRunner

from app.cli.help import PRODUCT_NAME
from app.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

# Words no English sentence does without; a help text that contains one next to other English words is
# English prose, not a command, an option or a value.
FUNCTION_WORDS = {"the", "this", "and", "or", "of", "to", "a", "an", "for", "with", "is", "be", "by", "from",
                  "on", "in", "at", "it", "apply", "revert", "default", "required", "exit"}
TYPER_WORDS = ["Usage", "Options", "Arguments", "Commands", "Show this message", "[default", "[required]",
               "<str>", "<int>", "<bool>", "<path>", "<file>", "<float>", "[OPTIONS]", "COMMAND [ARGS]"]


def command_paths(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group under `group` (typer's own click group), as argument lists: new commands
    are covered without touching this test."""
    ctx = group.context_class(group)
    paths = [prefix]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if hasattr(command, "list_commands"):
            paths += command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


COMMANDS = command_paths(typer.main.get_group(cli))


def english_sentences(text: str) -> list[str]:
    runs = re.findall(r"[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*)+", text)
    return [run for run in runs if len(run.split()) >= 2 and FUNCTION_WORDS & set(run.lower().split())]


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path in COMMANDS}
    assert {"", "run", "serve", "db upgrade", "notes seed", "notes import", "creatives list"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "studio")
def test_help_at_80_columns_is_whole_and_chinese(path: tuple[str, ...]) -> None:
    result = runner.invoke(cli, [*path, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert max(cell_len(line) for line in out.splitlines()) <= 80  # no line is wider than the screen
    assert "…" not in out, out
    assert english_sentences(out) == [], out
    assert [word for word in TYPER_WORDS if word in out] == [], out
    assert "用法：" in out and "显示本帮助并退出" in out
    assert re.search(r"[\u4e00-\u9fff]{4}", out)  # every page says what it does in Chinese
    assert "内容工作室" not in out


def test_top_level_help_names_the_product() -> None:
    result = runner.invoke(cli, ["--help"], env={"COLUMNS": "80"})
    assert PRODUCT_NAME in result.output


def test_help_in_a_real_80_column_process() -> None:
    """Through `python -m app`, as a user runs it: the long Chinese help of `run` folds, is not cut."""
    result = subprocess.run([sys.executable, "-m", "app", "run", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "COLUMNS": "80",
                                                         "PYTHONPATH": str(ROOT)}, check=False)
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout
    flat = re.sub(r"[\s│]+", "", result.stdout)
    assert "一句话需求，例如：帮我写一篇周末城市露营的小红书笔记" in flat  # whole, across its lines
    assert "每个确认点自动通过；澄清问题选第一个选项" in flat
