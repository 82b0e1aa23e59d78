"""The `studio` command line. Sub-commands live in their own modules and are mounted here.

Heavy libraries (alembic, the agents, uvicorn) are imported inside the commands that need them, so
`studio --help` and the quick commands start fast.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.datadir import DataDirOption, fail_without, writable
from app.cli.help import PRODUCT_NAME, localise
from app.cli.progress import Steps

if TYPE_CHECKING:
    from app.http.auth import Bootstrap
    from app.settings import Settings

cli = typer.Typer(
    help=f"{PRODUCT_NAME}（Content Studio）：多智能体小红书图文创作。第一次使用请运行 make run。",
    no_args_is_help=True,
    add_completion=False,
)
db_cli = typer.Typer(help="数据库：迁移、回退、查看版本、复制到 PostgreSQL。", no_args_is_help=True)
cli.add_typer(db_cli, name="db")
console = Console(highlight=False)


def upgrade_with_progress(settings: Settings, steps: Steps, revision: str = "head") -> int:
    """Apply the pending migrations one by one, each a counted step; the number applied."""
    from app import migrate

    todo = migrate.pending(settings.db_url, revision)
    if todo:
        with steps.step("数据库迁移", total=len(todo)) as step:
            migrate.upgrade(settings.db_url, revision, applied=lambda _revision: step.advance())
    return len(todo)


@db_cli.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Option(metavar="版本", help="升级到哪个版本（默认最新）")] = "head",
    data_dir: DataDirOption = None,
) -> None:
    """把数据库升级到最新版本（没有数据目录时会创建）。"""
    from app import migrate

    settings = writable(data_dir)
    applied = upgrade_with_progress(settings, Steps(console), revision)
    version = migrate.current(settings.db_url)
    if applied:
        console.print(f"数据库已升级到 [bold]{version}[/bold]（应用了 {applied} 个迁移）")
    else:
        console.print(f"数据库已是 [bold]{version}[/bold]，无需升级")


@db_cli.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(metavar="版本", help="回退到哪个版本，例如 base（清空）")],
    data_dir: DataDirOption = None,
) -> None:
    """把数据库回退到指定版本。"""
    from app import migrate

    settings = fail_without(console, data_dir)
    with Steps(console).step(f"回退数据库到 {revision}"):
        migrate.downgrade(settings.db_url, revision)
    console.print(f"数据库已回退到 [bold]{migrate.current(settings.db_url) or 'base'}[/bold]")


@db_cli.command("current")
def db_current(data_dir: DataDirOption = None) -> None:
    """显示数据库当前的版本。"""
    from app import migrate

    settings = fail_without(console, data_dir)
    console.print(migrate.current(settings.db_url) or "base（空数据库）")


@db_cli.command("copy-to")
def db_copy_to(
    url: Annotated[
        str, typer.Argument(metavar="URL", help="空的 PostgreSQL 数据库，例如 postgresql://用户:密码@主机:5432/库名")
    ],
    data_dir: DataDirOption = None,
) -> None:
    """把数据目录的数据库搬到空的 PostgreSQL 数据库。

    复制作品、图片记录、运行事件、账号和暂停的任务；图片文件与知识库留在数据目录。
    """
    from app.cli.db_copy import copy_to_command

    copy_to_command(console, url, data_dir)


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(metavar="地址", help="监听地址（默认 127.0.0.1）")] = None,
    port: Annotated[int | None, typer.Option(metavar="端口", help="端口（默认 8000）")] = None,
    data_dir: DataDirOption = None,
    prepare: Annotated[
        bool, typer.Option(
            "--prepare/--no-prepare", show_default=False, help="启动前先迁移数据库并加载示例数据（默认开启）"
        )
    ] = True,
    workers: Annotated[
        int, typer.Option(
            "--workers", min=1, max=64, metavar="数量",
            help="服务进程数：共用一个端口和一个数据库，任一进程都能处理任一会话（默认 1）",
        )
    ] = 1,
    fd: Annotated[int | None, typer.Option(hidden=True)] = None,  # a worker of `--workers`: the socket
    quiet: Annotated[bool, typer.Option(hidden=True)] = False,  # a worker that does not announce itself
) -> None:
    """启动 HTTP 服务（网页工作台与 API）。"""
    from app.cli.datadir import settings_for
    from app.ports import port_taken, taken_message

    started = time.perf_counter()
    configured = settings_for(data_dir)  # reads the settings, creates nothing
    host, port = host or configured.host, port or configured.port
    # before anything is migrated or seeded for a server that cannot start
    if fd is None and port_taken(host, port):
        console.print(f"[red]{escape(taken_message(host, port))}[/red]", soft_wrap=True)
        raise typer.Exit(1)
    settings = writable(data_dir, lambda message: console.print(message, soft_wrap=True))
    steps = Steps(console)
    if prepare:
        from app.setup import prepare_data

        asyncio.run(prepare_data(settings, steps=steps))
    if workers > 1:
        from app.cli.workers import serve_workers

        raise typer.Exit(serve_workers(settings, host, port, workers))
    _serve(settings, host, port, started, fd=fd, quiet=quiet)


def _serve(
    settings: Settings, host: str, port: int, started: float, *, fd: int | None = None, quiet: bool = False
) -> None:
    """Run uvicorn (on `host:port`, or on the socket `fd` a `--workers` parent bound); once it listens, one
    line says where, and where the data lives — unless `quiet` (a worker other than the first)."""
    import uvicorn

    from app.cli.api import remove_server_file, write_server_file
    from app.http.factory import create_app
    from app.ports import local_url

    settings = settings.model_copy(update={"host": host, "port": port})
    app = create_app(settings, tune_gc=True)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and not quiet:
                # the address as bound (a wildcard bind: this machine's loopback), so the login cookie the
                # printed link sets belongs to the same host name the studio is then used under
                url = local_url(host, port) + "/"
                where = escape(str(settings.data_dir.resolve()))
                console.print(
                    f"[bold green]{PRODUCT_NAME}已启动[/bold green]：{url}（监听 {host}:{port}）"
                    f"  数据目录：{where}  用时 {time.perf_counter() - started:.1f} 秒",
                    soft_wrap=True,
                )
                _announce_login(settings, app.state.bootstrap, url)
                write_server_file(settings.data_dir, url.rstrip("/"))

    if not quiet:
        console.print("· 正在启动服务（打开数据库与知识库）…")
    _log_studio_to_stderr()
    where = {"fd": fd} if fd is not None else {"host": host, "port": port}
    config = uvicorn.Config(app, **where, log_level="info", timeout_graceful_shutdown=5)
    try:
        Server(config).run()
    finally:
        if not quiet:
            remove_server_file(settings.data_dir)


def _announce_login(settings: Settings, boot: Bootstrap, url: str) -> None:
    """After the start line: the local admin made by a first start, and the one-time login URL."""
    from app.http.auth import login_url, token_path

    if boot.created:
        console.print(
            f"· 首次启动：已创建本机管理员 admin，它的 API 令牌保存在 "
            f"{escape(str(token_path(settings)))}（仅本机用户可读，命令行会自动使用）",
            soft_wrap=True,
        )
    if boot.login_secret:
        console.print(
            f"[bold]在浏览器打开这个一次性登录链接进入工作台[/bold]：{login_url(url, boot.login_secret)}",
            soft_wrap=True,
        )
    else:
        console.print(f"· 登录：{login_url(url, None)}", soft_wrap=True)


def _log_studio_to_stderr() -> None:
    """The server's own log lines (`studio.*`: runs, HTTP errors, failed model calls in the provider's
    words) at INFO on stderr; other libraries keep their own levels."""
    import logging

    studio = logging.getLogger("studio")
    if not studio.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-9s %(name)s: %(message)s"))
        studio.addHandler(handler)
        studio.setLevel(logging.INFO)
        studio.propagate = False


def _mount_subcommands() -> None:
    from app.cli.api import api
    from app.cli.creatives import creatives_cli
    from app.cli.doctor import doctor
    from app.cli.notes import notes_cli
    from app.cli.run import register_run_commands
    from app.cli.users import register_account_commands
    from app.cli.versions import register_version_commands

    cli.add_typer(notes_cli, name="notes")
    cli.add_typer(creatives_cli, name="creatives")
    register_run_commands(cli)
    register_version_commands(cli)
    register_account_commands(cli)
    cli.command()(doctor)
    cli.command("api")(api)
    localise(cli)


_mount_subcommands()


def main() -> None:
    cli()
