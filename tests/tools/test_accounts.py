"""`tools.accounts` on a real SQLite database built by the real migrations: password hashing and login, API
tokens, the login throttle, web sessions, the permission table and the audit records of every change.

Passwords are hashed with argon2's cheapest parameters here (`PASSWORD_HASH_PARAMETERS`, patched per test);
the production default is checked on its own."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import argon2
import pytest
from sqlalchemy import select

from app import migrate
from tools import accounts as accounts_module
from tools.accounts import (
    PERMISSIONS,
    Accounts,
    Action,
    InvalidAccount,
    LoginFailed,
    LoginThrottle,
    LoginThrottled,
    Principal,
    Role,
    Sessions,
    TokenNotFound,
    UserDisabled,
    UserExists,
    UserNotFound,
    can,
    can_on,
)
from tools.database import (
    ApiToken,
    AuditRecord,
    LoginAttempt,
    User,
    WebSession,
    create_engine,
    session_factory,
)

PRODUCTION_PARAMETERS = accounts_module.PASSWORD_HASH_PARAMETERS  # read before any test patches it
ACTOR = "cli:tester"
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounts_module, "PASSWORD_HASH_PARAMETERS", argon2.profiles.CHEAPEST)


class Clock:
    """A settable UTC clock."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}"


@pytest.fixture
async def db(db_url: str) -> AsyncIterator[Sessions]:
    await migrate.upgrade_async(db_url)
    engine = create_engine(db_url)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(db: Sessions, clock: Clock) -> Accounts:
    return Accounts(db, clock=clock)


async def audit_actions(db: Sessions) -> list[tuple[str, str]]:
    async with db() as session:
        rows = await session.scalars(select(AuditRecord).order_by(AuditRecord.id))
        return [(r.actor, r.action) for r in rows]


# --- passwords ------------------------------------------------------------------------------------------


def test_production_passwords_use_rfc_9106_low_memory_argon2id() -> None:
    assert PRODUCTION_PARAMETERS == argon2.profiles.RFC_9106_LOW_MEMORY
    assert PRODUCTION_PARAMETERS.type is argon2.Type.ID
    assert PRODUCTION_PARAMETERS.memory_cost >= 64 * 1024 and PRODUCTION_PARAMETERS.time_cost >= 3


async def test_a_password_is_stored_as_an_argon2id_hash_and_verified(
    accounts: Accounts, db: Sessions
) -> None:
    user = await accounts.add_user("Alice", "creator", PASSWORD, actor=ACTOR)
    assert (user.name, user.role, user.has_password, user.disabled) == ("alice", Role.CREATOR, True, False)
    async with db() as session:
        stored = (await session.scalar(select(User.password_hash).where(User.name == "alice"))) or ""
    assert stored.startswith("$argon2id$") and PASSWORD not in stored

    principal = await accounts.verify_password("ALICE ", PASSWORD, "127.0.0.1")  # names ignore case
    assert principal == Principal(user_id=user.id, name="alice", role=Role.CREATOR, via="password")
    assert principal.actor == "user:alice"
    with pytest.raises(LoginFailed) as wrong:
        await accounts.verify_password("alice", PASSWORD + "!", "127.0.0.1")
    with pytest.raises(LoginFailed) as unknown:
        await accounts.verify_password("mallory", PASSWORD, "127.0.0.1")
    assert wrong.value.message == unknown.value.message  # nothing tells which names exist
    assert wrong.value.code == "UNAUTHENTICATED"
    with pytest.raises(LoginFailed):  # longer than any password that can be set: never a match
        await accounts.verify_password("alice", PASSWORD + "x" * 2000, "127.0.0.1")


async def test_a_hash_with_old_parameters_is_upgraded_at_the_next_login(db: Sessions, clock: Clock) -> None:
    await Accounts(db, clock=clock).add_user("alice", "editor", PASSWORD, actor=ACTOR)
    stronger = argon2.PasswordHasher(time_cost=2, memory_cost=64, parallelism=1)
    await Accounts(db, clock=clock, hasher=stronger).verify_password("alice", PASSWORD, None)
    async with db() as session:
        stored = await session.scalar(select(User.password_hash)) or ""
    assert not stronger.check_needs_rehash(stored) and "t=2" in stored
    await Accounts(db, clock=clock, hasher=stronger).verify_password("alice", PASSWORD, None)  # still works


async def test_disabled_and_password_less_users_cannot_log_in(accounts: Accounts) -> None:
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    await accounts.add_user("robot", "analyst", None, actor=ACTOR)  # a token-only account
    with pytest.raises(LoginFailed):
        await accounts.verify_password("robot", "", None)
    disabled = await accounts.disable_user("alice", actor=ACTOR)
    assert disabled.disabled
    with pytest.raises(LoginFailed):
        await accounts.verify_password("alice", PASSWORD, None)
    assert (await accounts.disable_user("alice", actor=ACTOR)).disabled  # idempotent
    await accounts.enable_user("alice", actor=ACTOR)
    assert (await accounts.verify_password("alice", PASSWORD, None)).name == "alice"


async def test_change_password(accounts: Accounts, db: Sessions) -> None:
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    kept, _ = await accounts.create_session("alice")
    ended, _ = await accounts.create_session("alice")
    with pytest.raises(LoginFailed):  # a user changing their own password gives the current one
        await accounts.change_password("alice", "new password 1", actor="user:alice", current_password="nope")
    with pytest.raises(InvalidAccount):
        await accounts.change_password("alice", "short", actor=ACTOR)
    await accounts.change_password("alice", "new password 1", actor="user:alice", current_password=PASSWORD,
                                   keep_session=kept)
    with pytest.raises(LoginFailed):
        await accounts.verify_password("alice", PASSWORD, None)
    assert (await accounts.verify_password("alice", "new password 1", None)).name == "alice"
    assert await accounts.authenticate_session(kept) is not None  # the session that asked stays
    assert await accounts.authenticate_session(ended) is None  # every other session of the user ends
    await accounts.change_password("alice", "new password 2", actor=ACTOR)  # the local admin: no current one
    assert (await accounts.verify_password("alice", "new password 2", None)).name == "alice"
    assert await accounts.authenticate_session(kept) is None
    assert ("user:alice", "password_change") in await audit_actions(db)


@pytest.mark.parametrize("name", ["", "   ", "a b", "-alice", ".x", "a/b", "a:b", "x" * 65, "名\n字"])
async def test_bad_names_are_refused(accounts: Accounts, name: str) -> None:
    with pytest.raises(InvalidAccount):
        await accounts.add_user(name, "creator", PASSWORD, actor=ACTOR)


async def test_names_roles_and_passwords_are_checked(accounts: Accounts) -> None:
    added = await accounts.add_user("Ｗang.小明@studio", "admin", PASSWORD, actor=ACTOR)
    assert added.name == "wang.小明@studio"  # NFKC (the full-width Ｗ) and lower case
    with pytest.raises(UserExists):
        await accounts.add_user("WANG.小明@STUDIO", "editor", PASSWORD, actor=ACTOR)
    with pytest.raises(InvalidAccount) as role:
        await accounts.add_user("bob", "boss", PASSWORD, actor=ACTOR)
    assert "creator（创作者）" in role.value.message
    with pytest.raises(InvalidAccount):
        await accounts.add_user("bob", "creator", "1234567", actor=ACTOR)  # 8 characters at least
    assert not await accounts.get_user("bob")
    assert [u.name for u in await accounts.list_users()] == ["wang.小明@studio"]
    assert await accounts.has_users()


# --- API tokens -------------------------------------------------------------------------------------------


async def test_a_token_authenticates_by_its_secret_and_only_its_hash_is_stored(
    accounts: Accounts, db: Sessions, clock: Clock
) -> None:
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    secret, token = await accounts.create_token("alice", note="laptop", actor=ACTOR)
    assert re.fullmatch(r"cs_[A-Za-z0-9_-]{43}", secret)
    assert (token.user_name, token.role, token.state) == ("alice", Role.CREATOR, "active")
    assert token.note == "laptop"
    assert token.prefix == secret[:8] and token.expires_at is None
    async with db() as session:
        row = await session.scalar(select(ApiToken))
    assert row is not None and row.token_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in repr(vars(row))

    principal = await accounts.authenticate_token(secret)
    assert principal == Principal(user_id=token.user_id, name="alice", role=Role.CREATOR, via="token",
                                  token_id=token.id)
    flipped = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    wrongs = (flipped, secret[:-1], secret + "x", "", "Bearer " + secret, secret.upper(), "cs_" + "a" * 43)
    for wrong in wrongs:
        assert await accounts.authenticate_token(wrong) is None

    # last use: written on first use, then at most once a minute
    [listed] = await accounts.list_tokens("alice")
    first = listed.last_used_at
    assert first == clock.now
    clock.advance(seconds=30)
    await accounts.authenticate_token(secret)
    assert (await accounts.list_tokens())[0].last_used_at == first
    clock.advance(seconds=31)
    await accounts.authenticate_token(secret)
    assert (await accounts.list_tokens())[0].last_used_at == clock.now


async def test_revoked_expired_and_disabled_users_tokens_do_not_authenticate(
    accounts: Accounts, clock: Clock
) -> None:
    await accounts.add_user("alice", "editor", PASSWORD, actor=ACTOR)
    by_id, first = await accounts.create_token("alice", actor=ACTOR)
    by_secret, _ = await accounts.create_token("alice", actor=ACTOR)
    expiring, _ = await accounts.create_token("alice", expires_in=timedelta(days=1), actor=ACTOR)
    for secret in (by_id, by_secret, expiring):
        assert await accounts.authenticate_token(secret) is not None

    assert (await accounts.revoke_token(first.id, actor=ACTOR)).state == "revoked"
    assert (await accounts.revoke_token(by_secret, actor=ACTOR)).state == "revoked"
    assert (await accounts.revoke_token(first.id, actor=ACTOR)).state == "revoked"  # again: no change
    with pytest.raises(TokenNotFound):
        await accounts.revoke_token(999, actor=ACTOR)
    assert await accounts.authenticate_token(by_id) is None
    assert await accounts.authenticate_token(by_secret) is None

    clock.advance(hours=23, minutes=59)
    assert await accounts.authenticate_token(expiring) is not None
    clock.advance(minutes=1)
    assert await accounts.authenticate_token(expiring) is None
    assert [t.state for t in await accounts.list_tokens("alice")] == ["revoked", "revoked", "expired"]

    live, _ = await accounts.create_token("alice", actor=ACTOR)
    await accounts.disable_user("alice", actor=ACTOR)
    assert await accounts.authenticate_token(live) is None
    with pytest.raises(UserDisabled):
        await accounts.create_token("alice", actor=ACTOR)
    await accounts.enable_user("alice", actor=ACTOR)
    assert await accounts.authenticate_token(live) is not None


async def test_create_token_creates_a_missing_user_when_given_a_role(
    accounts: Accounts, db: Sessions
) -> None:
    with pytest.raises(UserNotFound):
        await accounts.create_token("robot", actor=ACTOR)
    secret, token = await accounts.create_token("Robot", role="analyst", actor=ACTOR)
    robot = await accounts.get_user("robot")
    assert robot is not None and robot.role is Role.ANALYST and not robot.has_password
    assert (await accounts.authenticate_token(secret)) is not None
    _, again = await accounts.create_token("robot", role="analyst", actor=ACTOR)  # same role: fine
    assert again.id != token.id
    with pytest.raises(InvalidAccount) as other_role:
        await accounts.create_token("robot", role="admin", actor=ACTOR)
    assert "分析师" in other_role.value.message
    with pytest.raises(InvalidAccount):
        await accounts.create_token("robot", expires_in=timedelta(0), actor=ACTOR)
    with pytest.raises(UserNotFound):
        await accounts.list_tokens("nobody")
    [user] = await accounts.list_users()
    assert user.active_tokens == 2
    assert await audit_actions(db) == [(ACTOR, "user_add"), (ACTOR, "token_create"), (ACTOR, "token_create")]


# --- the login throttle -----------------------------------------------------------------------------------

THROTTLE = LoginThrottle(account_failures=3, address_failures=5, window=timedelta(minutes=10))


async def fail(accounts: Accounts, name: str, address: str | None, times: int = 1) -> None:
    for _ in range(times):
        with pytest.raises(LoginFailed):
            await accounts.verify_password(name, "wrong password", address)


async def test_failures_lock_an_account_for_the_window(db: Sessions, clock: Clock) -> None:
    accounts = Accounts(db, clock=clock, throttle=THROTTLE)
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    await fail(accounts, "alice", "10.0.0.1")
    clock.advance(minutes=2)
    await fail(accounts, "alice", "10.0.0.2", times=2)  # from anywhere: the account counts
    with pytest.raises(LoginThrottled) as locked:  # now even the right password is refused, unchecked
        await accounts.verify_password("Alice", PASSWORD, "10.0.0.3")
    assert locked.value.code == "LOGIN_THROTTLED"
    assert locked.value.retry_after == 8 * 60  # until the first of the three failures leaves the window
    assert locked.value.details == {"retryAfter": 480}
    clock.advance(minutes=8)
    assert (await accounts.verify_password("alice", PASSWORD, "10.0.0.3")).name == "alice"

    # a success starts the account's count again: two more failures do not lock it
    await fail(accounts, "alice", "10.0.0.4", times=2)
    assert (await accounts.verify_password("alice", PASSWORD, "10.0.0.4")).name == "alice"


async def test_an_unknown_account_is_throttled_the_same_way(db: Sessions, clock: Clock) -> None:
    accounts = Accounts(db, clock=clock, throttle=THROTTLE)
    await fail(accounts, "ghost", None, times=3)
    with pytest.raises(LoginThrottled):
        await accounts.verify_password("ghost", "anything", None)


async def test_failures_lock_an_address_across_accounts(db: Sessions, clock: Clock) -> None:
    accounts = Accounts(db, clock=clock, throttle=THROTTLE)
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    await accounts.add_user("bob", "editor", PASSWORD, actor=ACTOR)
    for name in ("ann", "ben", "cat", "dan"):  # names that do not exist count too
        await fail(accounts, name, "203.0.113.9")
    assert (await accounts.verify_password("bob", PASSWORD, "203.0.113.9")).name == "bob"  # no reset…
    await fail(accounts, "eve", "203.0.113.9")  # …the fifth failure from this address locks it
    with pytest.raises(LoginThrottled) as locked:
        await accounts.verify_password("alice", PASSWORD, "203.0.113.9")
    assert locked.value.retry_after == 600
    assert (await accounts.verify_password("alice", PASSWORD, "198.51.100.7")).name == "alice"  # elsewhere
    clock.advance(minutes=10, seconds=1)
    assert (await accounts.verify_password("alice", PASSWORD, "203.0.113.9")).name == "alice"


async def test_refused_attempts_are_not_recorded_and_old_ones_are_pruned(db: Sessions, clock: Clock) -> None:
    accounts = Accounts(db, clock=clock, throttle=THROTTLE)
    await fail(accounts, "alice", "10.0.0.1", times=3)
    for _ in range(5):  # hammering a locked account neither extends the lock nor fills the table
        with pytest.raises(LoginThrottled):
            await accounts.verify_password("alice", "guess", "10.0.0.1")
    async with db() as session:
        assert len((await session.scalars(select(LoginAttempt))).all()) == 3
    clock.advance(days=1, minutes=1)
    await fail(accounts, "alice", "10.0.0.1")
    async with db() as session:
        assert len((await session.scalars(select(LoginAttempt))).all()) == 1


async def test_the_throttle_is_shared_by_processes_on_one_database(
    db_url: str, db: Sessions, clock: Clock
) -> None:
    other_engine = create_engine(db_url)  # another server process: its own engine on the same file
    try:
        here = Accounts(db, clock=clock, throttle=THROTTLE)
        there = Accounts(session_factory(other_engine), clock=clock, throttle=THROTTLE)
        await here.add_user("alice", "creator", PASSWORD, actor=ACTOR)
        await fail(here, "alice", "10.0.0.1", times=2)
        await fail(there, "alice", "10.0.0.1")
        for accounts in (here, there):
            with pytest.raises(LoginThrottled):
                await accounts.verify_password("alice", PASSWORD, "10.0.0.1")
    finally:
        await other_engine.dispose()


# --- web sessions -----------------------------------------------------------------------------------------


async def test_sessions_log_in_expire_and_log_out(db: Sessions, clock: Clock) -> None:
    accounts = Accounts(db, clock=clock, session_ttl=timedelta(hours=8))
    await accounts.add_user("alice", "editor", PASSWORD, actor=ACTOR)
    secret, info = await accounts.create_session("alice", address="127.0.0.1")
    async with db() as session:
        assert (await session.scalar(select(WebSession.id))) == hashlib.sha256(secret.encode()).hexdigest()
    found = await accounts.authenticate_session(secret)
    assert found is not None
    principal, session_info = found
    assert (principal.name, principal.role, principal.via) == ("alice", Role.EDITOR, "session")
    assert session_info == info and info.expires_at == clock.now + timedelta(hours=8)
    assert info.check_csrf(info.csrf_secret) and not info.check_csrf("forged") and not info.check_csrf(None)
    assert await accounts.authenticate_session("not-a-session") is None

    assert await accounts.end_session(secret, address="127.0.0.1")
    assert await accounts.authenticate_session(secret) is None
    assert not await accounts.end_session(secret)

    expiring, _ = await accounts.create_session("alice")
    clock.advance(hours=8)
    assert await accounts.authenticate_session(expiring) is None

    disabled, _ = await accounts.create_session("alice")
    await accounts.disable_user("alice", actor=ACTOR)
    assert await accounts.authenticate_session(disabled) is None
    with pytest.raises(UserDisabled):
        await accounts.create_session("alice")
    assert [a for _, a in await audit_actions(db)] == [
        "user_add", "login", "logout", "login", "login", "user_disable",
    ]


# --- permissions ------------------------------------------------------------------------------------------

TABLE = {  # the table in tools/accounts.py's docstring, row by row: admin, creator, editor, analyst
    "start_run": "✓✓··",
    "confirm_own": "✓✓✓·",
    "confirm_any": "✓·✓·",
    "cancel_own": "✓✓✓·",
    "cancel_any": "✓·✓·",
    "read_own": "✓✓✓✓",
    "read_all": "✓·✓✓",
    "inbox": "✓·✓·",
    "stats": "✓··✓",
    "export": "✓··✓",
    "manage_users": "✓···",
    "model_override": "✓···",
}
ROLES = [Role.ADMIN, Role.CREATOR, Role.EDITOR, Role.ANALYST]


@pytest.mark.parametrize("action", list(TABLE))
def test_the_permission_table(action: str) -> None:
    assert [can(role, action) for role in ROLES] == [mark == "✓" for mark in TABLE[action]]


def test_permissions_cover_every_action_and_refuse_unknown_ones() -> None:
    assert set(TABLE) == {a.value for a in Action}
    assert set(PERMISSIONS) == set(Role)
    assert PERMISSIONS[Role.ADMIN] == frozenset(Action)
    assert not can("root", "start_run") and not can("admin", "delete_everything")
    docstring = accounts_module.__doc__ or ""
    for action in TABLE:
        assert f"| `{action}` |" in docstring  # the documented table names every action


def test_own_and_any() -> None:
    assert can_on("creator", "confirm", owned=True) and not can_on("creator", "confirm", owned=False)
    assert can_on("editor", "confirm", owned=False) and can_on("editor", "cancel", owned=False)
    assert can_on("analyst", "read", owned=False) and not can_on("analyst", "cancel", owned=True)
    creator = Principal(user_id=7, name="c", role=Role.CREATOR, via="token")
    assert creator.can_on("read", 7) and not creator.can_on("read", 8)
    assert not creator.can_on("read", None)  # a run nobody owns (started before accounts) is not "own"
    assert creator.can(Action.START_RUN) and not creator.can(Action.INBOX)


# --- audit ------------------------------------------------------------------------------------------------


async def test_every_change_is_an_audit_record_and_the_trail_filters(
    accounts: Accounts, db: Sessions
) -> None:
    await accounts.add_user("alice", "creator", PASSWORD, actor=ACTOR)
    _, token = await accounts.create_token("alice", actor=ACTOR)
    await accounts.revoke_token(token.id, actor="user:admin", address="192.0.2.1")
    await accounts.change_password("alice", "another password", actor=ACTOR)
    await accounts.disable_user("alice", actor=ACTOR)
    await accounts.enable_user("alice", actor=ACTOR)
    await accounts.audit("user:alice", "confirm", thread_id="t-1", details={"action": "approve"},
                         address="192.0.2.2")
    assert [a for _, a in await audit_actions(db)] == [
        "user_add", "token_create", "token_revoke", "password_change", "user_disable", "user_enable",
        "confirm",
    ]
    [revoke] = await accounts.audit_trail(action="token_revoke")
    alice = await accounts.get_user("alice")
    assert alice is not None
    assert (revoke.actor, revoke.user_id, revoke.address) == ("user:admin", alice.id, "192.0.2.1")
    assert revoke.details == {"name": "alice", "tokenId": token.id, "prefix": token.prefix}
    [confirm] = await accounts.audit_trail(thread_id="t-1")
    assert (confirm.action, confirm.details, confirm.creative_id) == ("confirm", {"action": "approve"}, None)
    assert len(await accounts.audit_trail(user_id=alice.id)) == 6
    assert [e.action for e in await accounts.audit_trail(limit=2)] == ["user_enable", "confirm"]
    async with db() as session:  # no secret or hash reaches the audit trail
        details = " ".join(str(r.details) for r in await session.scalars(select(AuditRecord)))
    assert "argon2" not in details and PASSWORD not in details
