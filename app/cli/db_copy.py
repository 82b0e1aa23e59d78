"""`studio db copy-to URL`: move a data dir's SQLite database into an empty PostgreSQL database.

What moves:

- every table of `tools.database.metadata` but `run_leases` and `run_workers`, which describe processes
  alive now (a new database starts with none; its servers' sweepers continue the runs that were `running`,
  from their checkpoints) — in foreign-key order, ids kept, read and written `BATCH` rows at a time, and
  each id sequence set past the copied ids;
- every checkpoint of LangGraph's SQLite saver (`STUDIO_CHECKPOINT_DB`), with its pending writes, into the
  PostgreSQL saver: what paused and interrupted runs resume from.

What stays: the data dir's files — images (`assets/`), the knowledge store (`lancedb/`), `admin-token` —
which the PostgreSQL setup keeps using from the same data dir; the SQLite files are left as they are.

The order of things: checks that write nothing (a PostgreSQL URL that answers; the data dir's database is
SQLite and no live process uses it; the target's studio tables are empty); the migrations of both sides;
then one transaction on the target for the tables, inside which the checkpoints are written and every
paused or running thread's latest checkpoint is checked before the commit. A failure rolls the tables back;
the checkpoints already written are harmless, and a retry writes them again (the saver's writes upsert).
"""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.datadir import fail_without
from app.cli.progress import Steps
from app.settings import Settings
from tools.errors import StudioError

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
    from sqlalchemy import Table
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

BATCH = 1000  # rows read and inserted at a time
LIVE_TABLES = frozenset({"run_leases", "run_workers"})  # about processes alive now: not copied
TABLE_NAMES = {  # what each table holds, as the progress says it
    "users": "账号",
    "api_tokens": "API 令牌",
    "sessions": "网页登录",
    "login_links": "一次性登录链接",
    "login_attempts": "登录尝试",
    "audit_records": "审计记录",
    "creatives": "作品",
    "image_assets": "图片记录",
    "run_events": "运行事件",
    "creative_versions": "作品版本",
}


class CopyError(StudioError):
    """The copy was refused, or failed and was rolled back: `exit_code` 2 for a bad URL, 1 otherwise."""

    code = "DB_COPY_FAILED"

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Copied:
    """What a copy moved: rows per table, creatives per status, checkpoints and the threads they are of."""

    rows: dict[str, int] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    checkpoints: int = 0
    threads: int = 0


def copy_to_command(console: Console, url: str, data_dir: Path | None) -> None:
    """`studio db copy-to`: copy with progress on `console`, then say what moved and what to set next."""
    settings = fail_without(console, data_dir)
    try:
        copied = asyncio.run(copy_database(settings, url, Steps(console)))
    except CopyError as exc:
        console.print(f"[red]{escape(exc.message)}[/red]", soft_wrap=True)
        raise typer.Exit(exc.exit_code) from exc
    for line in summary(copied, settings.data_dir, url):
        console.print(line, soft_wrap=True)


def summary(copied: Copied, data_dir: Path, url: str) -> list[str]:
    """The closing lines: the runs left running, what stayed in the data dir, the counts and what to set."""
    where = escape(str(data_dir.resolve()))
    lines = []
    if running := copied.statuses["running"]:
        lines.append(
            f"· {running} 个运行中的任务原样复制：PostgreSQL 上的服务启动后会从它们最后的检查点接着运行"
        )
    lines.append(
        f"· 图片（assets/）和知识库（lancedb/）留在数据目录 {where}，没有复制：新的配置继续用这个数据目录；"
        "原来的 SQLite 文件保持原样，可留作备份"
    )
    rows = copied.rows
    lines.append(
        f"[bold green]已复制到 PostgreSQL[/bold green]：作品 {rows.get('creatives', 0)} 个"
        f"（待确认 {copied.statuses['paused']} 个）、图片记录 {rows.get('image_assets', 0)} 条、"
        f"运行事件 {rows.get('run_events', 0)} 条、账号 {rows.get('users', 0)} 个、"
        f"检查点 {copied.checkpoints} 个（{copied.threads} 个会话）。"
        f"下一步：设置 STUDIO_DATABASE_URL={escape(shown_url(url))}，数据目录不变（--data-dir {where}）"
    )
    return lines


def shown_url(url: str) -> str:
    """`url` with its password masked, for the screen."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:  # a URL SQLAlchemy cannot read has no password it could show
        return url
    return url if parsed.password is None else parsed.render_as_string(hide_password=True)


async def copy_database(settings: Settings, url: str, steps: Steps) -> Copied:
    """Copy the data dir's SQLite database (`settings`) into the empty PostgreSQL database `url`."""
    from app import migrate
    from tools.database import create_engine

    target_url = postgresql_url(url)
    source_url = sqlite_source(settings)
    source, target = create_engine(source_url), create_engine(target_url)
    try:
        await refuse_live_workers(source, settings.run_lease_s)
        await refuse_data(target, url)
        with _failing("迁移数据目录的数据库失败"):
            await _migrate(migrate, source_url, steps, "迁移数据目录的数据库")
        with _failing("迁移目标数据库失败"):
            await _migrate(migrate, target_url, steps, "迁移目标数据库")
        copied = Copied(statuses=await creative_statuses(source))
        unsettled = await unsettled_threads(source)
        target_settings = settings.model_copy(update={"database_url": target_url})
        with _failing("复制失败，目标数据库的表已回滚（可以修好原因后再运行一次）"):
            async with source.connect() as reading, target.begin() as writing:
                for table in copied_tables():
                    copied.rows[table.name] = await copy_table(reading, writing, table, steps)
                await copy_checkpoints(settings, target_settings, steps, copied, unsettled)
    finally:
        await source.dispose()
        await target.dispose()
    return copied


def postgresql_url(url: str) -> str:
    """The studio's form of a PostgreSQL URL (`CopyError`, exit 2, for anything else)."""
    from tools.database import database_url, is_postgresql

    try:
        normalised = database_url(url)
    except ValueError:
        normalised = ""
    if not normalised or not is_postgresql(normalised):
        raise CopyError(
            f"「{shown_url(url)}」不是 PostgreSQL 数据库的 URL：目标应当形如 "
            "postgresql://用户:密码@主机:5432/库名",
            exit_code=2,
        )
    return normalised


def sqlite_source(settings: Settings) -> str:
    """The URL of the data dir's SQLite database; `CopyError` when it is not SQLite or does not exist."""
    from sqlalchemy.engine import make_url

    from tools.database import is_postgresql

    if is_postgresql(settings.db_url):
        raise CopyError(
            "STUDIO_DATABASE_URL 已指向 PostgreSQL：copy-to 从数据目录的 SQLite 数据库复制，"
            "运行它时不要设置 STUDIO_DATABASE_URL"
        )
    database = make_url(settings.db_url).database
    if not database or not Path(database).is_file():
        where = settings.data_dir.resolve()
        raise CopyError(f"数据目录 {where} 里没有数据库（studio.db）：没有可复制的内容")
    return settings.db_url


async def _migrate(migrate: Any, url: str, steps: Steps, description: str) -> None:
    """Bring `url` to the newest revision (on PostgreSQL with the checkpoint tables), one step a migration."""
    todo = await asyncio.to_thread(migrate.pending, url)
    if todo:
        with steps.step(description, total=len(todo)) as step:
            await asyncio.to_thread(migrate.upgrade, url, applied=lambda _step: step.advance())


async def refuse_live_workers(source: AsyncEngine, lease_s: float) -> None:
    """Refuse while a server or a `studio run` works on the data dir: what it wrote during the copy would
    not be copied. A worker is live when it is not stopping, was seen within a lease and — on this host —
    its process exists."""
    from sqlalchemy import select

    from tools.database import RunWorker, pid_alive

    since = datetime.now(UTC) - timedelta(seconds=lease_s)
    async with source.connect() as conn:
        if not await _has_table(conn, RunWorker.__tablename__):
            return
        rows = (
            await conn.execute(
                select(RunWorker.host, RunWorker.pid).where(
                    RunWorker.stopping_at.is_(None), RunWorker.seen_at >= since
                )
            )
        ).all()
    here = socket.gethostname()
    live = [f"{host} 上的进程 {pid}" for host, pid in rows if host != here or pid_alive(pid)]
    if live:
        raise CopyError(
            f"数据目录正在被使用（{'、'.join(live)}：服务或 studio run）：先停止它们再复制；"
            f"刚被强行结束的进程，等 {lease_s:g} 秒后再试"
        )


async def refuse_data(target: AsyncEngine, url: str) -> None:
    """Refuse a target whose studio tables hold rows (or that does not answer), before anything is written."""
    from sqlalchemy import select

    try:
        async with target.connect() as conn:
            filled = [
                table.name
                for table in copied_tables()
                if await _has_table(conn, table.name)
                and await conn.scalar(select(1).select_from(table).limit(1)) is not None
            ]
    except Exception as exc:  # whatever the driver says: the database did not answer
        raise CopyError(f"连不上目标数据库 {shown_url(url)}：{_reason(exc)}") from exc
    if filled:
        raise CopyError(
            f"目标数据库已有数据（{'、'.join(filled)}），什么也没有写入：copy-to 只复制到空的数据库，"
            "请换一个新建的数据库（CREATE DATABASE …）"
        )


def copied_tables() -> list[Table]:
    """The studio's tables to copy, each after the tables it refers to; of those free to go next, the first
    in `TABLE_NAMES` (the accounts, then the work), a table it does not name last."""
    from tools.database import metadata

    rank = {name: n for n, name in enumerate(TABLE_NAMES)}
    todo = sorted(
        (table for table in metadata.sorted_tables if table.name not in LIVE_TABLES),
        key=lambda table: rank.get(table.name, len(rank)),
    )
    order: list[Table] = []
    while todo:
        placed = {table.name for table in order} | LIVE_TABLES
        ready = next(t for t in todo if {fk.column.table.name for fk in t.foreign_keys} - {t.name} <= placed)
        order.append(ready)
        todo.remove(ready)
    return order


async def copy_table(reading: AsyncConnection, writing: AsyncConnection, table: Table, steps: Steps) -> int:
    """Copy one table, `BATCH` rows at a time in key order, then set its id sequence past the copied ids.

    SQLite gives back the stored UTC times without their zone; the target's sessions work in UTC, so they
    land as the same instants."""
    from sqlalchemy import func, select

    total = int(await reading.scalar(select(func.count()).select_from(table)) or 0)
    name = TABLE_NAMES.get(table.name, table.name)
    verb = "复制 " if name[0].isascii() else "复制"  # a space before a Latin word
    with steps.step(f"{verb}{name}（{table.name}）", total=total) as step:
        result = await reading.stream(select(table).order_by(*table.primary_key.columns))
        async for rows in result.mappings().partitions(BATCH):
            await writing.execute(table.insert(), [dict(row) for row in rows])
            step.advance(len(rows))
    if (column := table.autoincrement_column) is not None:
        after = select(func.coalesce(func.max(column), 0) + 1).scalar_subquery()
        sequence = func.pg_get_serial_sequence(table.name, column.name)
        await writing.execute(select(func.setval(sequence, after, False)))
    return step.done


async def creative_statuses(source: AsyncEngine) -> Counter[str]:
    from sqlalchemy import func, select

    from tools.database import Creative

    async with source.connect() as conn:
        rows = (await conn.execute(select(Creative.status, func.count()).group_by(Creative.status))).all()
    return Counter({status: count for status, count in rows})


async def unsettled_threads(source: AsyncEngine) -> list[str]:
    """Threads whose run goes on from a checkpoint: paused ones, and those left running."""
    from sqlalchemy import select

    from tools.database import Creative, CreativeStatus

    waiting = (CreativeStatus.PAUSED.value, CreativeStatus.RUNNING.value)
    async with source.connect() as conn:
        rows = await conn.execute(select(Creative.thread_id).where(Creative.status.in_(waiting)))
        return list(rows.scalars())


async def copy_checkpoints(
    settings: Settings, target: Settings, steps: Steps, copied: Copied, unsettled: list[str]
) -> None:
    """Every checkpoint of the SQLite saver, with its pending writes, into the PostgreSQL saver; then check
    that each of `unsettled` has the same latest checkpoint on both sides."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from app.resources import open_checkpointer

    path = settings.checkpoint_db
    if path is None or not path.is_file():
        return
    async with AsyncSqliteSaver.from_conn_string(str(path)) as source, open_checkpointer(target) as saver:
        await source.setup()
        async with source.conn.execute("SELECT count(*) FROM checkpoints") as cursor:
            total = int((await cursor.fetchone() or [0])[0])
        threads: set[str] = set()
        with steps.step("复制检查点（暂停的任务从这里继续）", total=total) as step:
            async for saved in source.alist(None):  # one at a time, newest first
                await copy_checkpoint(saved, saver)
                threads.add(saved.config["configurable"]["thread_id"])
                step.advance()
        copied.checkpoints, copied.threads = step.done, len(threads)
        for thread_id in unsettled:
            await check_latest(source, saver, thread_id)


async def copy_checkpoint(saved: CheckpointTuple, target: BaseCheckpointSaver[Any]) -> None:
    """One checkpoint, stored under its parent (`aput` takes the parent's id from the config it is given)
    with all its channel versions as new (so each blob is written, once per version), then its pending
    writes, task by task in their order (`aput_writes` numbers a task's writes as given)."""
    where = saved.config["configurable"]
    config: dict[str, Any] = {"thread_id": where["thread_id"], "checkpoint_ns": where["checkpoint_ns"]}
    if saved.parent_config is not None:
        config["checkpoint_id"] = saved.parent_config["configurable"]["checkpoint_id"]
    checkpoint = saved.checkpoint
    stored = await target.aput(
        {"configurable": config}, checkpoint, saved.metadata, dict(checkpoint["channel_versions"])
    )
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in saved.pending_writes or ():
        by_task.setdefault(task_id, []).append((channel, value))
    for task_id, writes in by_task.items():
        await target.aput_writes(stored, writes, task_id)


async def check_latest(
    source: BaseCheckpointSaver[Any], target: BaseCheckpointSaver[Any], thread_id: str
) -> None:
    """The thread's latest checkpoint is the same on both sides (what its run continues from)."""
    config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    mine = await source.aget_tuple(config)
    if mine is None:  # a run that stopped before its first checkpoint: nothing to continue from either
        return
    theirs = await target.aget_tuple(config)
    if theirs is None or theirs.checkpoint["id"] != mine.checkpoint["id"]:
        raise CopyError(f"会话 {thread_id} 的最新检查点没有复制过去，目标数据库的表已回滚")


async def _has_table(conn: AsyncConnection, name: str) -> bool:
    from sqlalchemy import inspect

    return bool(await conn.run_sync(lambda sync: inspect(sync).has_table(name)))


@contextmanager
def _failing(message: str) -> Iterator[None]:
    """Turn an unexpected failure of one phase into a `CopyError` that says which phase and why."""
    try:
        yield
    except CopyError:
        raise
    except Exception as exc:
        raise CopyError(f"{message}：{type(exc).__name__}: {_reason(exc)}") from exc


def _reason(exc: Exception) -> str:
    """The first line of what the driver (under SQLAlchemy's wrapper) said."""
    said = str(getattr(exc, "orig", None) or exc).strip()
    return said.splitlines()[0] if said else ""
