"""The `studio` command line. Sub-commands live in their own modules and are mounted here."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from app import migrate
from app.settings import Settings, get_settings

cli = typer.Typer(help="Content Studio — 多智能体内容工作室", no_args_is_help=True, add_completion=False)
db_cli = typer.Typer(help="数据库迁移。", no_args_is_help=True)
cli.add_typer(db_cli, name="db")
console = Console()

DataDirOption = Annotated[
    Path | None, typer.Option("--data-dir", help="Data directory (default: $STUDIO_DATA_DIR or ./.studio).")
]


def load_settings(data_dir: Path | None = None, **overrides: object) -> Settings:
    """Settings from the environment, with the CLI's options on top."""
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    settings = get_settings(**overrides)
    settings.ensure_dirs()
    return settings


@db_cli.command("upgrade")
def db_upgrade(revision: str = "head", data_dir: DataDirOption = None) -> None:
    """Apply migrations up to REVISION (default: the newest)."""
    settings = load_settings(data_dir)
    migrate.upgrade(settings.db_url, revision)
    console.print(f"数据库已升级到 [bold]{migrate.current(settings.db_url)}[/bold]")


@db_cli.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(help="Target revision, e.g. base.")],
    data_dir: DataDirOption = None,
) -> None:
    """Revert migrations down to REVISION."""
    settings = load_settings(data_dir)
    migrate.downgrade(settings.db_url, revision)
    console.print(f"数据库已回退到 [bold]{migrate.current(settings.db_url) or 'base'}[/bold]")


@db_cli.command("current")
def db_current(data_dir: DataDirOption = None) -> None:
    """Show the database's revision."""
    settings = load_settings(data_dir)
    console.print(migrate.current(settings.db_url) or "base (空数据库)")


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8000).")] = None,
    data_dir: DataDirOption = None,
    prepare: Annotated[bool, typer.Option(help="Migrate and load the sample corpus first.")] = True,
) -> None:
    """启动 HTTP 服务（网页工作台与 API）。"""
    import uvicorn

    from app.factory import create_app
    from app.setup import prepare_data

    settings = load_settings(data_dir)
    if prepare:
        asyncio.run(prepare_data(settings, log=console.print))
    uvicorn.run(
        create_app(settings, tune_gc=True),
        host=host or settings.host,
        port=port or settings.port,
        log_level="info",
        timeout_graceful_shutdown=5,
    )


def _mount_subcommands() -> None:
    from app.creatives_cli import creatives_cli
    from app.notes_cli import notes_cli
    from app.run_cli import register_run_commands

    cli.add_typer(notes_cli, name="notes")
    cli.add_typer(creatives_cli, name="creatives")
    register_run_commands(cli)


_mount_subcommands()


def main() -> None:
    cli()
