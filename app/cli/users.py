"""`studio users` and `studio tokens`: accounts from a terminal, acting as the local admin.

The commands work in-process on the data dir's database (migrated first) through `tools.accounts.Accounts`;
every change is an audit record whose actor is `cli:<os user>`. `studio tokens create` prints only the new
token on stdout — everything else goes to stderr — so `TOKEN=$(studio tokens create alice --role creator)`
works. Exit codes: 0 ok, 1 no data dir, unknown user or token, name taken; 2 bad input.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.cli.datadir import DataDirOption, fail_without, writable
from app.labels import TABLES, key_of, label

if TYPE_CHECKING:  # sqlalchemy, argon2 and alembic load when a command runs, not for --help
    from tools.accounts import Accounts, Role, TokenInfo, UserInfo

T = TypeVar("T")

users_cli = typer.Typer(
    help="账号：添加、列出、停用、启用用户，修改密码。", no_args_is_help=True
)
tokens_cli = typer.Typer(help="API 令牌：创建（只在标准输出打印令牌）、列出、吊销。", no_args_is_help=True)

TOKEN_STATES = {"active": "有效", "expired": "已过期", "revoked": "已吊销"}
EXPIRES_DAYS_MAX = 3650

NameArg = Annotated[str, typer.Argument(metavar="用户名", help="用户名（不区分大小写）", show_default=False)]
RoleOpt = Annotated[
    str | None,
    typer.Option(
        "--role", "-r", metavar="角色", help="admin 管理员、creator 创作者、editor 编辑、analyst 分析师"
    ),
]
PasswordStdinOpt = Annotated[
    bool, typer.Option("--password-stdin", help="从标准输入读取密码（标准输入不是终端时自动如此）")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="输出 JSON")]


def register_account_commands(cli: typer.Typer) -> None:
    """Mount `studio users` and `studio tokens`."""
    cli.add_typer(users_cli, name="users")
    cli.add_typer(tokens_cli, name="tokens")


def _out() -> Console:
    return Console(highlight=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _fail(message: str, code: int = 1) -> typer.Exit:
    _err().print(f"[red]{escape(message)}[/red]", soft_wrap=True)
    return typer.Exit(code)


def os_user() -> str:
    """The operating-system user running the command (the CLI's audit actor is `cli:<this>`)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER …
        return f"uid{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def local_actor() -> str:
    """The audit actor of a local CLI command: `cli:<os user>` (it acts as the local admin)."""
    from tools.accounts import cli_actor

    return cli_actor(os_user())


def _with_accounts(data_dir: Path | None, work: Callable[[Accounts], Awaitable[T]], *, create: bool) -> T:
    """Migrate the data dir's database, then run `work` on its accounts. A command that writes (`create`)
    creates a missing data dir (and says so on stderr); the others need an existing one. Account errors
    end the command: exit 2 for bad input, 1 otherwise."""
    from app import migrate
    from tools.accounts import AccountError, Accounts, InvalidAccount
    from tools.database import create_engine, session_factory

    settings = writable(data_dir) if create else fail_without(_err(), data_dir)
    migrate.upgrade(settings.db_url)

    async def run() -> T:
        engine = create_engine(settings.db_url)
        try:
            return await work(Accounts(session_factory(engine)))
        finally:
            await engine.dispose()

    try:
        return asyncio.run(run())
    except AccountError as exc:
        raise _fail(exc.message, 2 if isinstance(exc, InvalidAccount) else 1) from exc


def _role(value: str) -> Role:
    """A role given as its key or its Chinese name (管理员 …); exit 2 with the choices otherwise."""
    from tools.accounts import Role

    try:
        return Role(key_of("accountRole", value.strip().lower()))
    except ValueError:
        choices = "、".join(f"{key}（{text}）" for key, text in TABLES["accountRole"].items())
        raise _fail(f"没有「{value}」这个角色，角色只能是：{choices}", 2) from None


def _role_text(role: str) -> str:
    return label("accountRole", role)


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def _read_password(from_stdin: bool) -> str:
    """The new password: the first line of stdin when asked or when stdin is not a terminal; otherwise a
    hidden prompt on stderr, typed twice."""
    from tools.accounts import PASSWORD_MAX, PASSWORD_MIN

    if from_stdin or not _stdin_is_terminal():
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise _fail("没有从标准输入读到密码（第一行即密码）", 2)
        return password
    for _ in range(3):
        first = typer.prompt("新密码", hide_input=True, err=True, default="", show_default=False)
        if not PASSWORD_MIN <= len(first) <= PASSWORD_MAX:
            _err().print(f"[red]密码长度须为 {PASSWORD_MIN}~{PASSWORD_MAX} 个字符[/red]")
            continue
        if typer.prompt("再输入一次", hide_input=True, err=True, default="", show_default=False) == first:
            return str(first)
        _err().print("[red]两次输入的密码不一致[/red]")
    raise _fail("没有设置密码", 2)


def _time(value: datetime | None, empty: str = "—") -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else empty


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


# --- users ------------------------------------------------------------------------------------------------


@users_cli.command("add")
def users_add(
    name: NameArg,
    role: RoleOpt = None,
    password_stdin: PasswordStdinOpt = False,
    data_dir: DataDirOption = None,
) -> None:
    """添加用户并设置密码（隐藏输入，输入两次；或从标准输入读取）。"""
    from tools.accounts import check_name

    if role is None:
        raise _fail("请用 --role 指定角色：admin、creator、editor 或 analyst", 2)
    chosen = _role(role)

    async def add(accounts: Accounts) -> UserInfo:
        if await accounts.get_user(check_name(name)) is not None:  # before asking for a password
            raise _fail(f"用户「{name}」已存在")
        return await accounts.add_user(name, chosen, _read_password(password_stdin), actor=local_actor())

    user = _with_accounts(data_dir, add, create=True)
    _out().print(f"已添加用户 [bold]{escape(user.name)}[/bold]（{_role_text(user.role)}）")


@users_cli.command("list")
def users_list(as_json: JsonOpt = False, data_dir: DataDirOption = None) -> None:
    """列出所有用户：角色、状态、是否设了密码、有效令牌数。"""
    users: list[UserInfo] = _with_accounts(data_dir, lambda accounts: accounts.list_users(), create=False)
    if as_json:
        _json([
            {"name": u.name, "role": u.role.value, "disabled": u.disabled, "hasPassword": u.has_password,
             "activeTokens": u.active_tokens, "createdAt": _iso(u.created_at),
             "passwordChangedAt": _iso(u.password_changed_at), "disabledAt": _iso(u.disabled_at)}
            for u in users
        ])
        return
    console = _out()
    if not users:
        console.print("还没有用户。添加：studio users add 用户名 --role 角色")
        return
    table = Table("用户名", "角色", "状态", "密码", "有效令牌", "创建时间（UTC）")
    for u in users:
        state = "[dim]已停用[/dim]" if u.disabled else "[green]正常[/green]"
        password = "已设置" if u.has_password else "未设置（仅令牌）"
        table.add_row(escape(u.name), _role_text(u.role), state, password, str(u.active_tokens),
                      _time(u.created_at))
    console.print(table)
    console.print(f"共 {len(users)} 个用户")


@users_cli.command("disable")
def users_disable(name: NameArg, data_dir: DataDirOption = None) -> None:
    """停用用户：其 API 令牌与登录会话立即失效（数据保留）。"""

    async def disable(accounts: Accounts) -> tuple[bool, UserInfo]:
        before = await accounts.get_user(name)
        return bool(before and before.disabled), await accounts.disable_user(name, actor=local_actor())

    already, user = _with_accounts(data_dir, disable, create=False)
    if already:
        _out().print(f"用户 [bold]{escape(user.name)}[/bold] 已是停用状态")
    else:
        _out().print(f"已停用用户 [bold]{escape(user.name)}[/bold]：其 API 令牌与登录会话都不再有效")


@users_cli.command("enable")
def users_enable(name: NameArg, data_dir: DataDirOption = None) -> None:
    """重新启用被停用的用户（其未过期、未吊销的令牌恢复有效）。"""
    user = _with_accounts(
        data_dir, lambda accounts: accounts.enable_user(name, actor=local_actor()), create=False
    )
    _out().print(f"已启用用户 [bold]{escape(user.name)}[/bold]（{_role_text(user.role)}）")


@users_cli.command("passwd")
def users_passwd(
    name: NameArg, password_stdin: PasswordStdinOpt = False, data_dir: DataDirOption = None
) -> None:
    """修改用户的密码（并结束其所有登录会话）。"""
    from tools.accounts import UserNotFound

    async def change(accounts: Accounts) -> UserInfo:
        if await accounts.get_user(name) is None:  # before asking for a password
            raise UserNotFound(f"没有用户「{name}」")
        return await accounts.change_password(name, _read_password(password_stdin), actor=local_actor())

    user = _with_accounts(data_dir, change, create=False)
    _out().print(f"已修改用户 [bold]{escape(user.name)}[/bold] 的密码，其登录会话已全部结束")


# --- tokens -----------------------------------------------------------------------------------------------


def _expires(value: str | None) -> timedelta | None:
    if value is None:
        return None
    text = value.strip()
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= EXPIRES_DAYS_MAX):
        raise _fail(f"--expires-days 须为 1~{EXPIRES_DAYS_MAX} 的整数（天）", 2)
    return timedelta(days=int(text))


@tokens_cli.command("create")
def tokens_create(
    name: NameArg,
    role: RoleOpt = None,
    expires_days: Annotated[
        str | None, typer.Option("--expires-days", metavar="天数", help="几天后过期（默认长期有效）")
    ] = None,
    note: Annotated[str | None, typer.Option("--note", metavar="备注", help="备注，例如用在哪台机器")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """为用户创建 API 令牌，标准输出只打印令牌本身；用户不存在且指定了 --role 时一并创建。"""
    chosen = None if role is None else _role(role)
    expires_in = _expires(expires_days)

    async def create(accounts: Accounts) -> tuple[bool, str, TokenInfo]:
        existed = await accounts.get_user(name) is not None
        secret, token = await accounts.create_token(
            name, role=chosen, expires_in=expires_in, note=note, actor=local_actor()
        )
        return not existed, secret, token

    created, secret, token = _with_accounts(data_dir, create, create=True)
    err = _err()
    who = f"[bold]{escape(token.user_name)}[/bold]（{_role_text(token.role)}）"  # no spaces around it
    if created:
        err.print(f"已创建用户{who}，没有密码，只能用令牌访问", soft_wrap=True)
    until = f"有效期至 {_time(token.expires_at)}（UTC）" if token.expires_at else "长期有效"
    err.print(f"已为{who}创建令牌 #{token.id}（{token.prefix}…），{until}。令牌只显示这一次，请妥善保存。",
              soft_wrap=True)
    typer.echo(secret)


@tokens_cli.command("list")
def tokens_list(
    name: Annotated[
        str | None,
        typer.Argument(metavar="用户名", help="只列出这个用户的令牌（默认全部）", show_default=False),
    ] = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOption = None,
) -> None:
    """列出 API 令牌（不含令牌本身）：编号、用户、状态、到期与最近使用时间。"""
    tokens = _with_accounts(data_dir, lambda accounts: accounts.list_tokens(name), create=False)
    if as_json:
        _json([
            {"id": t.id, "user": t.user_name, "role": t.role.value, "prefix": t.prefix, "note": t.note,
             "state": t.state, "createdAt": _iso(t.created_at), "expiresAt": _iso(t.expires_at),
             "revokedAt": _iso(t.revoked_at), "lastUsedAt": _iso(t.last_used_at)}
            for t in tokens
        ])
        return
    console = _out()
    if not tokens:
        console.print("还没有令牌。创建：studio tokens create 用户名 --role 角色")
        return
    table = Table("编号", "用户", "角色", "令牌", "备注", "状态", "创建（UTC）", "到期", "最近使用")
    colors = {"active": "green", "expired": "yellow", "revoked": "dim"}
    for t in tokens:
        state = f"[{colors[t.state]}]{TOKEN_STATES[t.state]}[/{colors[t.state]}]"
        table.add_row(str(t.id), escape(t.user_name), _role_text(t.role), f"{t.prefix}…",
                      escape(t.note or ""), state, _time(t.created_at), _time(t.expires_at, "长期"),
                      _time(t.last_used_at, "从未"))
    console.print(table)
    console.print(f"共 {len(tokens)} 个令牌")


@tokens_cli.command("revoke")
def tokens_revoke(
    token: Annotated[
        str,
        typer.Argument(
            metavar="令牌", help="令牌编号（见 studio tokens list）或令牌本身", show_default=False
        ),
    ],
    data_dir: DataDirOption = None,
) -> None:
    """吊销 API 令牌：此后用它的请求都会被拒绝。"""
    from tools.accounts import looks_like_token

    text = token.strip()
    if text.isascii() and text.isdigit() and len(text) <= 18:
        which: int | str = int(text)
    elif looks_like_token(text):
        which = text
    else:
        raise _fail("请给出令牌编号（studio tokens list 中的「编号」）或令牌本身", 2)

    async def revoke(accounts: Accounts) -> tuple[bool, TokenInfo]:
        revoked = {t.id for t in await accounts.list_tokens() if t.state == "revoked"}
        info = await accounts.revoke_token(which, actor=local_actor())
        return info.id in revoked, info

    already, info = _with_accounts(data_dir, revoke, create=False)
    where = f"#{info.id}（{escape(info.user_name)}，{info.prefix}…）"
    _out().print(f"令牌 {where}早已吊销" if already else f"已吊销令牌 {where}")
