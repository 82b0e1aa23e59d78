"""Which CLI commands may create the data dir, and what they say about it.

The default data dir is `./.studio` (or `$STUDIO_DATA_DIR`). Commands that only read (search, stats,
listings, `db current`, `resume` …) never create it: run in the wrong directory, they say so and exit
non-zero instead of leaving an empty `.studio` behind. Commands that write (`db upgrade`, `notes seed`,
`notes import`, `run`, `serve`) create it and say where.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.settings import Settings, get_settings
from tools.errors import StudioError

DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", metavar="目录", help="数据目录（默认：$STUDIO_DATA_DIR 或 ./.studio）"),
]


class NoDataDir(StudioError):
    """A reading command found no data dir where it looked."""

    code = "NO_DATA_DIR"


def settings_for(data_dir: Path | None) -> Settings:
    """The settings, with `data_dir` when given; creates nothing."""
    return get_settings(**({"data_dir": data_dir} if data_dir is not None else {}))



def existing(data_dir: Path | None) -> Settings:
    """Settings for a command that reads: the data dir must already exist (`NoDataDir` otherwise)."""
    settings = settings_for(data_dir)
    if not settings.data_dir.is_dir():
        where = settings.data_dir.resolve()
        if data_dir is None:
            message = f"这里还没有数据目录（{where}），先运行 `make run`，或用 --data-dir 指定"
        else:
            message = f"数据目录 {where} 不存在，先运行 `make run`，或用 --data-dir 指定已有的数据目录"
        raise NoDataDir(message, details={"dataDir": str(where)})
    settings.ensure_dirs()
    return settings


def writable(data_dir: Path | None, notice: Callable[[str], object] | None = None) -> Settings:
    """Settings for a command that writes: creates the data dir if needed and tells `notice` (by default
    stderr) where, so nobody wonders where `.studio` came from."""
    settings = settings_for(data_dir)
    created = not settings.data_dir.exists()
    settings.ensure_dirs()
    if created:
        message = f"已创建数据目录：{escape(str(settings.data_dir.resolve()))}"
        if notice is None:
            Console(stderr=True, highlight=False).print(message, soft_wrap=True)
        else:
            notice(message)
    return settings


def fail_without(console: Console, data_dir: Path | None) -> Settings:
    """`existing(data_dir)` for typer commands: prints the message in red and exits 1 when it is missing."""
    try:
        return existing(data_dir)
    except NoDataDir as exc:
        console.print(f"[red]{escape(exc.message)}[/red]", soft_wrap=True)
        raise typer.Exit(1) from exc
