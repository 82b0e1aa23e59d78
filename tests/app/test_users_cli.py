"""`studio users` and `studio tokens` through the real CLI on a data dir whose database the commands
migrate themselves; what they did is checked through `tools.accounts` and the audit table."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import argon2
import pytest
from sqlalchemy import select
from typer.testing import CliRunner, Result

from app.cli import users as users_cli
from app.cli.main import cli
from tools import accounts as accounts_module
from tools.accounts import Accounts, LoginFailed, Role
from tools.database import AuditRecord, create_engine, session_factory

ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"cs_[A-Za-z0-9_-]{43}")
PASSWORD = "a long enough password"
T = TypeVar("T")
runner = CliRunner()


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounts_module, "PASSWORD_HASH_PARAMETERS", argon2.profiles.CHEAPEST)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def studio(data_dir: Path, *args: str, input: str | None = None) -> Result:
    return runner.invoke(cli, [*args, "--data-dir", str(data_dir)], input=input, env={"COLUMNS": "200"})


def with_accounts(data_dir: Path, work: Callable[[Accounts], Awaitable[T]]) -> T:
    async def run() -> T:
        engine = create_engine(f"sqlite+aiosqlite:///{data_dir / 'studio.db'}")
        try:
            return await work(Accounts(session_factory(engine)))
        finally:
            await engine.dispose()

    return asyncio.run(run())


def audit(data_dir: Path) -> list[AuditRecord]:
    async def read(_: Accounts) -> list[AuditRecord]:
        engine = create_engine(f"sqlite+aiosqlite:///{data_dir / 'studio.db'}")
        try:
            async with session_factory(engine)() as session:
                return list(await session.scalars(select(AuditRecord).order_by(AuditRecord.id)))
        finally:
            await engine.dispose()

    return with_accounts(data_dir, read)


def test_users_add_list_passwd_disable_and_enable(data_dir: Path) -> None:
    result = studio(data_dir, "users", "add", "Alice", "--role", "creator", input=PASSWORD + "\n")
    assert result.exit_code == 0, result.output
    assert "已添加用户 alice（创作者）" in result.stdout
    assert "已创建数据目录" in result.stderr  # the first writing command creates the data dir
    result = studio(data_dir, "users", "add", "bob", "-r", "编辑", "--password-stdin", input=PASSWORD + "\n")
    assert result.exit_code == 0 and "已添加用户 bob（编辑）" in result.stdout

    principal = with_accounts(data_dir, lambda a: a.verify_password("alice", PASSWORD, None))
    assert principal.role is Role.CREATOR

    listed = studio(data_dir, "users", "list")
    assert listed.exit_code == 0, listed.output
    rows = [line for line in listed.stdout.splitlines() if "alice" in line or "bob" in line]
    assert len(rows) == 2 and "创作者" in rows[0] and "正常" in rows[0] and "已设置" in rows[0]
    assert "编辑" in rows[1] and "共 2 个用户" in listed.stdout
    assert "creator" not in listed.stdout  # roles in Chinese

    result = studio(data_dir, "users", "passwd", "alice", input="a brand new password\n")
    assert result.exit_code == 0 and "已修改用户 alice 的密码" in result.stdout
    with pytest.raises(LoginFailed):
        with_accounts(data_dir, lambda a: a.verify_password("alice", PASSWORD, None))
    with_accounts(data_dir, lambda a: a.verify_password("alice", "a brand new password", None))

    result = studio(data_dir, "users", "disable", "ALICE")
    assert result.exit_code == 0 and "已停用用户 alice" in result.stdout
    assert "已是停用状态" in studio(data_dir, "users", "disable", "alice").stdout
    with pytest.raises(LoginFailed):  # a disabled user cannot log in, even with the right password
        with_accounts(data_dir, lambda a: a.verify_password("alice", "a brand new password", None))
    assert "已停用" in studio(data_dir, "users", "list").stdout
    as_json = json.loads(studio(data_dir, "users", "list", "--json").stdout)
    assert [(u["name"], u["role"], u["disabled"]) for u in as_json] == [
        ("alice", "creator", True), ("bob", "editor", False),
    ]
    assert studio(data_dir, "users", "enable", "alice").exit_code == 0
    with_accounts(data_dir, lambda a: a.verify_password("alice", "a brand new password", None))


def test_the_password_prompt_is_hidden_and_asked_twice(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(users_cli, "_stdin_is_terminal", lambda: True)
    typed = "short\nfirst password\nsecond password\nfirst password\nfirst password\n"
    result = studio(data_dir, "users", "add", "carol", "--role", "analyst", input=typed)
    assert result.exit_code == 0, result.output
    assert "密码长度须为 8~1024 个字符" in result.stderr and "两次输入的密码不一致" in result.stderr
    assert "first password" not in result.output  # hidden input is not echoed
    with_accounts(data_dir, lambda a: a.verify_password("carol", "first password", None))


def test_tokens_create_prints_only_the_token_on_stdout(data_dir: Path) -> None:
    result = studio(data_dir, "tokens", "create", "robot", "--role", "analyst", "--expires-days", "30",
                    "--note", "夜间导出")
    assert result.exit_code == 0, result.output
    assert TOKEN.fullmatch(result.stdout.rstrip("\n")) and result.stdout.count("\n") == 1
    secret = result.stdout.strip()
    assert "已创建用户robot（分析师）" in result.stderr and "创建令牌 #1" in result.stderr
    assert "有效期至" in result.stderr and secret not in result.stderr
    principal = with_accounts(data_dir, lambda a: a.authenticate_token(secret))
    assert principal is not None and (principal.name, principal.role) == ("robot", Role.ANALYST)

    again = studio(data_dir, "tokens", "create", "robot")  # an existing user: no role needed
    assert again.exit_code == 0 and TOKEN.fullmatch(again.stdout.strip()) and again.stdout.strip() != secret
    assert "已创建用户" not in again.stderr and "长期有效" in again.stderr


def test_tokens_create_in_a_real_process_writes_nothing_else_to_stdout(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("STUDIO_")}
    result = subprocess.run(
        [sys.executable, "-m", "app", "tokens", "create", "ci", "--role", "creator"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert TOKEN.fullmatch(result.stdout.rstrip("\n")) and result.stdout.count("\n") == 1
    assert "已创建数据目录" in result.stderr and "令牌只显示这一次" in result.stderr
    principal = with_accounts(tmp_path / ".studio", lambda a: a.authenticate_token(result.stdout.strip()))
    assert principal is not None and principal.role is Role.CREATOR


def test_tokens_list_and_revoke(data_dir: Path) -> None:
    first = studio(data_dir, "tokens", "create", "alice", "-r", "creator", "--note", "laptop").stdout.strip()
    second = studio(data_dir, "tokens", "create", "bob", "--role", "editor").stdout.strip()

    listed = studio(data_dir, "tokens", "list")
    assert listed.exit_code == 0, listed.output
    assert "alice" in listed.stdout and "bob" in listed.stdout and "laptop" in listed.stdout
    assert first[:8] + "…" in listed.stdout and first not in listed.stdout and second not in listed.stdout
    assert "有效" in listed.stdout and "共 2 个令牌" in listed.stdout
    only_bob = json.loads(studio(data_dir, "tokens", "list", "bob", "--json").stdout)
    assert [(t["id"], t["user"], t["state"]) for t in only_bob] == [(2, "bob", "active")]

    result = studio(data_dir, "tokens", "revoke", "1")
    assert result.exit_code == 0 and "已吊销令牌 #1（alice" in result.stdout
    assert with_accounts(data_dir, lambda a: a.authenticate_token(first)) is None
    assert "早已吊销" in studio(data_dir, "tokens", "revoke", "1").stdout
    result = studio(data_dir, "tokens", "revoke", second)  # by the token itself
    assert result.exit_code == 0 and "已吊销令牌 #2（bob" in result.stdout
    assert with_accounts(data_dir, lambda a: a.authenticate_token(second)) is None
    assert studio(data_dir, "tokens", "list").stdout.count("已吊销") == 2


def test_a_disabled_users_token_stops_working(data_dir: Path) -> None:
    secret = studio(data_dir, "tokens", "create", "alice", "--role", "creator").stdout.strip()
    assert studio(data_dir, "users", "disable", "alice").exit_code == 0
    assert with_accounts(data_dir, lambda a: a.authenticate_token(secret)) is None
    refused = studio(data_dir, "tokens", "create", "alice")
    assert refused.exit_code == 1 and refused.stdout == "" and "已停用" in refused.stderr


def test_every_change_is_audited_as_the_os_user_and_reads_are_not(data_dir: Path) -> None:
    studio(data_dir, "users", "add", "alice", "--role", "admin", input=PASSWORD + "\n")
    studio(data_dir, "users", "passwd", "alice", input="another password\n")
    studio(data_dir, "tokens", "create", "robot", "--role", "analyst")
    studio(data_dir, "tokens", "revoke", "1")
    studio(data_dir, "users", "disable", "robot")
    studio(data_dir, "users", "enable", "robot")
    studio(data_dir, "users", "list")
    studio(data_dir, "tokens", "list")
    records = audit(data_dir)
    assert [r.action for r in records] == [
        "user_add", "password_change", "user_add", "token_create", "token_revoke", "user_disable",
        "user_enable",
    ]
    assert {r.actor for r in records} == {f"cli:{getpass.getuser()}"}
    assert records[0].details == {"name": "alice", "role": "admin", "password": True}
    assert records[3].details["prefix"] and all(r.address is None for r in records)


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"),
    [
        (["users", "add", "alice"], PASSWORD, 2, "请用 --role 指定角色"),
        (["users", "add", "alice", "--role", "boss"], PASSWORD, 2, "analyst（分析师）"),
        (["users", "add", "a b", "--role", "creator"], PASSWORD, 2, "用户名「a b」不可用"),
        (["users", "add", "alice", "--role", "creator"], "", 2, "没有从标准输入读到密码"),
        (["users", "add", "alice", "--role", "creator"], "short", 2, "密码长度须为"),
        (["tokens", "create", "alice", "--expires-days", "0"], None, 2, "--expires-days 须为"),
        (["tokens", "create", "alice", "--expires-days", "３"], None, 2, "--expires-days 须为"),
        (["tokens", "create", "nobody"], None, 1, "没有用户「nobody」"),
        (["tokens", "revoke", "abc"], None, 2, "请给出令牌编号"),
    ],
)
def test_bad_input(data_dir: Path, args: list[str], stdin: str | None, code: int, message: str) -> None:
    result = studio(data_dir, *args, input=None if stdin is None else stdin + "\n")
    assert result.exit_code == code, result.output
    assert message in result.stderr and result.stdout == ""


def test_unknown_users_and_tokens_and_no_data_dir(data_dir: Path) -> None:
    for args in (["users", "list"], ["users", "disable", "x"], ["tokens", "list"], ["tokens", "revoke", "1"]):
        result = studio(data_dir, *args)
        assert result.exit_code == 1 and "不存在" in result.stderr
    assert not data_dir.exists()  # reading commands never create it
    assert studio(data_dir, "tokens", "create", "alice", "--role", "creator").exit_code == 0
    for args, message in ((["users", "disable", "nobody"], "没有用户「nobody」"),
                          (["users", "passwd", "nobody"], "没有用户「nobody」"),
                          (["tokens", "list", "nobody"], "没有用户「nobody」"),
                          (["tokens", "revoke", "7"], "没有令牌 #7")):
        result = studio(data_dir, *args, input=PASSWORD + "\n")
        assert result.exit_code == 1 and message in result.stderr, result.output
    taken = studio(data_dir, "users", "add", "ALICE", "--role", "editor", input=PASSWORD + "\n")
    assert taken.exit_code == 1 and "已存在" in taken.stderr
