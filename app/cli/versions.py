"""`studio revise`, `studio versions` and `studio export`: a creative's versions from a terminal.

`revise THREAD 消息` starts a revision run on a finished thread (docs/protocol.md, "revising a finished
thread": what the message asks — the text, the pictures or the whole post — is redone) in this process and
follows it exactly like `studio run` (the same live display or `--json` lines, the same checkpoints), ending
with the new version's number. `versions CREATIVE` lists a creative's versions; `export CREATIVE` writes one
version's publishing package (`app.package`: the pictures in order, post.txt, manifest.json).

Errors are one Chinese line on stderr and a non-zero exit, never a traceback: `revise` exits like `run`
(1 the run failed, 2 refused — unknown or busy thread, a stale `--based-on` —, 130 interrupted); `versions`
and `export` exit 1 for an unknown creative or version, or an unwritable file, and 2 for a bad option.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.cli.datadir import DataDirOption, existing, fail_without
from app.cli.run import (
    AutoApproveOption,
    Event,
    JsonOption,
    JsonView,
    LiveView,
    Studio,
    VerboseOption,
    View,
    _guard,
)
from app.labels import label

if TYPE_CHECKING:
    from app.package import Sessions
    from tools.assets import AssetStore

T = TypeVar("T")
MAX_MESSAGE = 4000
THREAD_ID = re.compile(r"[A-Za-z0-9_.:-]{1,100}")  # RunRequest.thread_id's pattern


def _out() -> Console:
    return Console(highlight=False)


def _fail(message: str, code: int = 1) -> typer.Exit:
    Console(stderr=True, highlight=False).print(f"[red]{escape(message)}[/red]", soft_wrap=True)
    return typer.Exit(code)


def _positive(value: str | None, what: str) -> int | None:
    """A whole number ≥ 1 typed on the command line (None when not given); a Chinese error (exit 2) else."""
    if value is None:
        return None
    text = value.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1):
        raise _fail(f"{what}必须是正整数（只用数字 0-9），而不是 {value!r}", 2)
    return int(text)


def actor_name(actor: str | None) -> str:
    """Who, as the web studio says it: `user:anna` → anna, `cli:bob` → 命令行（bob）."""
    text = actor or ""
    if not text:
        return "未知"
    if text == "system":
        return "系统"
    if text.startswith("user:"):
        return text[5:]
    if text.startswith("cli:"):
        return f"命令行（{text[4:]}）"
    return text


# --- revise ------------------------------------------------------------------------------------------------


class ReviseLiveView(LiveView):
    """`LiveView`, saying what the revision redoes and which version it made."""

    def _on_workflow_progress(self, e: Event) -> None:
        super()._on_workflow_progress(e)
        if str(e.get("phase") or "").startswith("修订"):
            self.line(e, "[magenta]↻[/magenta]", str(e["phase"]))

    def complete(self, event: Event, images: list[Event]) -> None:
        super().complete(event, images)
        version, creative = event.get("version"), event.get("creativeId")
        if version:
            self.console.print(
                f"[green]已生成第 {version} 版[/green]：studio versions {creative} 查看所有版本，"
                f"studio export {creative} 下载发布包",
                soft_wrap=True,
            )


class ReviseJsonView(JsonView):
    """`JsonView` whose `result` line also carries the new version's number."""

    def __init__(self) -> None:
        super().__init__()
        self.version: int | None = None

    def line(self, obj: Event) -> None:  # type: ignore[override]
        if obj.get("type") == "result" and obj.get("status") == "completed":
            obj = {**obj, "version": self.version}
        JsonView.line(obj)

    def complete(self, event: Event, images: list[Event]) -> None:
        self.version = event.get("version")
        super().complete(event, images)


def revise(
    thread_id: Annotated[str, typer.Argument(metavar="会话编号", help="已结束的会话（见 studio threads）")],
    message: Annotated[str, typer.Argument(
        metavar="修改意见", help="要改什么，例如：标题里加上「新手必看」、第2张图换成蓝色调、重写一篇",
    )],
    hitl: Annotated[bool | None, typer.Option(
        "--hitl/--no-hitl", show_default=False, help="是否在确认点暂停（默认沿用这个会话的设置）",
    )] = None,
    based_on: Annotated[str | None, typer.Option(
        "--based-on", metavar="版本号", help="你看到的当前版本：之后已有新版本时不修改，以免覆盖",
    )] = None,
    auto_approve: AutoApproveOption = False,
    json_output: JsonOption = False,
    data_dir: DataDirOption = None,
    verbose: VerboseOption = False,
) -> None:
    """修改一个已结束的会话：按你的意见只重做文案、配图或整篇，生成新版本。"""
    view: View = (
        ReviseJsonView() if json_output else ReviseLiveView(verbose=verbose, auto_approve=auto_approve)
    )
    base = _positive(based_on, "--based-on ")

    def body() -> int:
        from agents.errors import RunError, ThreadNotFound
        from agents.run import RunRequest
        from app.cli.users import local_actor

        text = message.strip()
        if not text:
            raise RunError("修改意见不能为空：写下要改什么，例如「标题短一点」")
        if len(text) > MAX_MESSAGE:
            raise RunError(f"修改意见最多 {MAX_MESSAGE} 字（现在 {len(text)} 字）")
        unknown = ThreadNotFound(f"找不到会话 {thread_id}（用 studio threads 查看最近的运行）")
        if not THREAD_ID.fullmatch(thread_id):  # no thread has such an id
            raise unknown
        request = RunRequest(message=text, thread_id=thread_id, enable_hitl=hitl, based_on=base)
        suffix = f" --data-dir {data_dir}" if data_dir is not None else ""
        with Studio(existing(data_dir), view, auto_approve=auto_approve, hint_suffix=suffix) as studio:
            studio.open(seed=False)
            creative = studio.loop.run(studio.runner.find(thread_id))
            if creative is None:
                raise unknown
            handle = studio.loop.run(studio.runner.prepare_revise(request, actor=local_actor()))
            studio.loop.run(_audit_revision(studio, handle.creative_id, thread_id, text))
            if isinstance(view, LiveView):
                current = creative.current_version or 0
                basis = f"在第 {current} 版的基础上修改" if current else "在上次的结果上修改"
                view.console.print(f"[dim]修改会话 {thread_id} · 作品 #{handle.creative_id} · {basis}[/dim]")
            return studio.drive(handle)

    _guard(view, body)


async def _audit_revision(studio: Studio, creative_id: int, thread_id: str, message: str) -> None:
    """Record the revision as the local admin (`cli:<os user>`), as the server records one."""
    from app.cli.users import local_actor
    from tools.accounts import Accounts

    await Accounts(studio.resources.sessions).audit(
        local_actor(), "revise", thread_id=thread_id, creative_id=creative_id, details={"message": message}
    )


# --- versions and export -----------------------------------------------------------------------------------


def _with_database(data_dir: Path | None, work: Callable[[Sessions, AssetStore], Awaitable[T]]) -> T:
    """Migrate the data dir's database (it must exist: these commands only read), then run `work` on a
    session factory and the asset store."""
    from app import migrate
    from tools.assets import AssetStore
    from tools.database import create_engine, session_factory

    settings = fail_without(Console(stderr=True, highlight=False), data_dir)
    migrate.upgrade(settings.db_url)

    async def run() -> T:
        engine = create_engine(settings.db_url)
        try:
            sessions = session_factory(engine)
            return await work(sessions, AssetStore(settings.assets_dir, sessions))
        finally:
            await engine.dispose()

    return asyncio.run(run())


CreativeArgument = Annotated[
    str, typer.Argument(metavar="作品编号", help="作品编号（见 studio creatives list）")
]


def versions(
    creative: CreativeArgument,
    as_json: Annotated[bool, typer.Option("--json", help="输出 JSON（与 API 的版本列表相同）")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """列出一个作品的所有版本：版本号、来源、操作人、时间、标题。"""
    from agents.context import default_asset_url
    from agents.run import version_wire
    from app.package import creative_info
    from tools.database import CreativeVersion

    creative_id = _positive(creative, "作品编号")
    assert creative_id is not None

    async def work(sessions: Sessions, _assets: AssetStore) -> tuple[Any, list[CreativeVersion]]:
        from sqlalchemy import select

        info = await creative_info(sessions, creative_id)
        if info is None:
            return None, []
        async with sessions() as session:
            rows = await session.scalars(
                select(CreativeVersion).where(CreativeVersion.creative_id == creative_id)
                .order_by(CreativeVersion.number)
            )
            return info, list(rows)

    info, rows = _with_database(data_dir, work)
    if info is None:
        raise _fail(f"找不到作品 #{creative_id}（用 studio creatives list 查看）")
    items = []
    for row in rows:
        wire = version_wire(row, default_asset_url)
        wire["sourceLabel"] = label("versionSource", wire["source"])
        for key in ("imagePlans", "textOverlayPlan"):
            wire.pop(key)
        items.append(wire)
    if as_json:
        typer.echo(json.dumps(
            {"creativeId": creative_id, "current": info.current_version, "items": items},
            ensure_ascii=False, indent=2,
        ))
        return
    console = _out()
    if not rows:
        console.print(f"作品 #{creative_id} 还没有版本（运行完成后才会生成第 1 版）")
        return
    table = Table(title=f"作品 #{creative_id} 的版本", title_justify="left")
    for name, justify in (("版本", "right"), ("来源", "left"), ("操作人", "left"), ("时间", "left"),
                          ("图片", "right"), ("标题", "left")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for row, wire in zip(rows, items, strict=True):
        made = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
        number = f"{row.number} ★" if row.number == info.current_version else str(row.number)
        source = wire["sourceLabel"]
        if row.restored_from:
            source += f"（第 {row.restored_from} 版）"
        when = made.astimezone().strftime("%Y-%m-%d %H:%M")
        table.add_row(number, source, escape(actor_name(row.actor)), when, str(len(wire["imageUrls"])),
                      escape(row.title or "（无标题）"))
    console.print(table)
    console.print(f"★ 当前版本：第 {info.current_version} 版。下载发布包：studio export {creative_id}"
                  + escape(" [--version 版本号]"), soft_wrap=True)


def export(
    creative: CreativeArgument,
    version: Annotated[str | None, typer.Option(
        "--version", metavar="版本号", help="导出哪个版本（默认当前版本）",
    )] = None,
    output: Annotated[str | None, typer.Option(
        "--output", "-o", metavar="路径", help="写到这个文件，或这个目录下的默认文件名（默认当前目录）",
    )] = None,
    data_dir: DataDirOption = None,
) -> None:
    """导出一个版本的发布包（zip）：按顺序编号的图片、post.txt（标题、正文、话题标签）、manifest.json。"""
    from agents.run import VersionNotFound
    from app.package import Package, build_package, creative_info, load_version

    creative_id = _positive(creative, "作品编号")
    assert creative_id is not None
    number = _positive(version, "--version ")

    async def work(sessions: Sessions, assets: AssetStore) -> Package | None:
        info = await creative_info(sessions, creative_id)
        if info is None:
            return None
        return await build_package(assets, info, await load_version(sessions, info, number))

    try:
        package = _with_database(data_dir, work)
    except VersionNotFound as exc:
        raise _fail(f"{exc.message}（用 studio versions {creative_id} 查看所有版本）") from exc
    if package is None:
        raise _fail(f"找不到作品 #{creative_id}（用 studio creatives list 查看）")
    target = Path(output).expanduser() if output else Path.cwd()
    if target.is_dir() or (output or "").endswith(("/", "\\")):  # a directory: the package's own name in it
        target = target / package.filename
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(package.data)
    except OSError as exc:
        raise _fail(f"无法写入 {target}：{exc.strerror or exc}") from exc
    images = len(package.manifest.get("images") or [])
    size = len(package.data) / 1024
    _out().print(
        f"已导出作品 #{creative_id} 第 {package.version} 版的发布包"
        f"（{images} 张图片、post.txt、manifest.json，{size:.0f} KB）：{escape(str(target))}",
        soft_wrap=True,
    )
    missing = package.manifest.get("missing") or []
    if missing:
        where = "、".join(f"第 {m['index']} 张（{m['reason']}）" for m in missing)
        _out().print(f"[yellow]注意：没有放进发布包的图片：{escape(where)}[/yellow]", soft_wrap=True)


def register_version_commands(cli: typer.Typer) -> None:
    """Mount `revise`, `versions` and `export` on the `studio` app."""
    cli.command("revise")(revise)
    cli.command("versions")(versions)
    cli.command("export")(export)
