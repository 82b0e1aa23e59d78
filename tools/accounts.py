"""Accounts: users and their roles, passwords, API tokens, web sessions, the login throttle, the audit trail.

The data layer of authentication (issue 15, part 1). Nothing here knows HTTP or reads the environment: the
HTTP middleware, the login page and the CLI (`app/cli/users.py`) build on `Accounts`, which takes everything
it needs — a session factory, the password hasher, the throttle, the session lifetime, a clock — as
constructor arguments. Every row lives in the database (`tools/database.py`: `users`, `api_tokens`,
`sessions`, `login_attempts`, `audit_records`), so several server processes share users, tokens, sessions
and the throttle's counts.

**Roles and what they may do** (`PERMISSIONS`, `can(role, action)`):

| action | admin | creator | editor | analyst | what it covers |
|---|---|---|---|---|---|
| `start_run` | ✓ | ✓ | | | start a run (`POST /api/agent/stream`) |
| `confirm_own` | ✓ | ✓ | ✓ | | answer the checkpoints of one's own runs (approve, reject, modify, clarify) |
| `confirm_any` | ✓ | | ✓ | | the same for anyone's paused run |
| `cancel_own` | ✓ | ✓ | ✓ | | cancel or resume one's own run |
| `cancel_any` | ✓ | | ✓ | | cancel or resume anyone's run |
| `read_own` | ✓ | ✓ | ✓ | ✓ | one's own threads, creatives, images and their audit records |
| `read_all` | ✓ | | ✓ | ✓ | everyone's |
| `inbox` | ✓ | | ✓ | | the paused threads awaiting an editor |
| `stats` | ✓ | | | ✓ | creative statistics |
| `export` | ✓ | | | ✓ | the CSV / JSON export of creatives |
| `manage_users` | ✓ | | | | users, roles, everyone's tokens |
| `model_override` | ✓ | | | | the per-request `model` of a run (unless a setting opens it to all) |

An `_own` action on something the principal owns is allowed by `_own` or `_any`; on someone else's only by
`_any` (`can_on(role, "confirm", owned=...)`).

**Passwords** are argon2id hashes (`argon2-cffi`, parameters `PASSWORD_HASH_PARAMETERS`); a hash made with
other parameters is re-hashed at the next successful login. Checking a password runs in a worker thread
(~50 ms of CPU). An unknown, disabled or password-less account is checked against a dummy hash, so the time
taken does not tell which names exist.

**API tokens** are `cs_` + 43 URL-safe characters (`secrets.token_urlsafe(32)`, 256 bits); only their
SHA-256 is stored (argon2 per request would cost ~50 ms each), looked up by that hash and compared in
constant time. A token may expire and may be revoked; it authenticates as its user with the user's current
role, never once the user is disabled. `last_used_at` is written at most once a minute per token.

**Login throttle** (`LoginThrottle`): `verify_password` refuses, without checking the password, while an
account has `account_failures` failed attempts in `window` since its last successful login, or an address has
`address_failures` failed attempts in `window` (a success does not reset an address: one valid account must
not unlock guessing at others). Refused attempts are not recorded, so the lock ends `window` after the
failures that caused it. Attempts are recorded under the name tried, whether or not it exists.

**Web sessions**: `create_session` returns a random cookie secret (only its SHA-256 is stored) with a CSRF
secret for the session's forms; a password change or a disabled user ends the user's sessions.

**Audit**: every change made through `Accounts` writes an `audit_records` row in the same transaction, with
the `actor` given by the caller (`user:<name>`, `cli:<os user>`, `system`). `audit()` records any other
action (confirms, cancels … in later parts).

Errors are `AccountError` subclasses (`tools.errors.StudioError`) with stable codes: `VALIDATION_ERROR`,
`USER_EXISTS`, `USER_NOT_FOUND`, `USER_DISABLED`, `TOKEN_NOT_FOUND`, `UNAUTHENTICATED`, `LOGIN_THROTTLED`
(`retry_after` seconds).
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from math import ceil
from typing import Any, Literal

import argon2
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tools.database import (
    ApiToken,
    AuditRecord,
    LoginAttempt,
    LoginLink,
    RowWriter,
    User,
    WebSession,
    utcnow,
)
from tools.errors import StudioError
from tools.labels import label

Sessions = async_sessionmaker[AsyncSession]


# --- roles and permissions ----------------------------------------------------------------------------


class Role(enum.StrEnum):
    ADMIN = "admin"
    CREATOR = "creator"
    EDITOR = "editor"
    ANALYST = "analyst"


class Action(enum.StrEnum):
    START_RUN = "start_run"
    CONFIRM_OWN = "confirm_own"
    CONFIRM_ANY = "confirm_any"
    CANCEL_OWN = "cancel_own"
    CANCEL_ANY = "cancel_any"
    READ_OWN = "read_own"
    READ_ALL = "read_all"
    INBOX = "inbox"
    STATS = "stats"
    EXPORT = "export"
    MANAGE_USERS = "manage_users"
    MODEL_OVERRIDE = "model_override"


PERMISSIONS: Mapping[Role, frozenset[Action]] = {
    Role.ADMIN: frozenset(Action),
    Role.CREATOR: frozenset(
        {Action.START_RUN, Action.CONFIRM_OWN, Action.CANCEL_OWN, Action.READ_OWN}
    ),
    Role.EDITOR: frozenset(
        {Action.CONFIRM_OWN, Action.CONFIRM_ANY, Action.CANCEL_OWN, Action.CANCEL_ANY, Action.READ_OWN,
         Action.READ_ALL, Action.INBOX}
    ),
    Role.ANALYST: frozenset({Action.READ_OWN, Action.READ_ALL, Action.STATS, Action.EXPORT}),
}
"""What each role may do; see the table in the module's docstring."""

Verb = Literal["confirm", "cancel", "read"]
_ANY = {"confirm": Action.CONFIRM_ANY, "cancel": Action.CANCEL_ANY, "read": Action.READ_ALL}
_OWN = {"confirm": Action.CONFIRM_OWN, "cancel": Action.CANCEL_OWN, "read": Action.READ_OWN}


def can(role: Role | str, action: Action | str) -> bool:
    """Whether `role` may do `action`; False for an unknown role or action."""
    try:
        return Action(action) in PERMISSIONS[Role(role)]
    except ValueError:
        return False


def can_on(role: Role | str, verb: Verb, *, owned: bool) -> bool:
    """Whether `role` may `verb` (confirm, cancel, read) a run or creative: its own (`owned`) or another's."""
    return can(role, _ANY[verb]) or (owned and can(role, _OWN[verb]))


def parse_role(value: str) -> Role:
    try:
        return Role(value)
    except ValueError:
        known = "、".join(f"{role.value}（{label('accountRole', role.value)}）" for role in Role)
        message = f"没有「{value}」这个角色，角色只能是：{known}"
        raise InvalidAccount(message, details={"field": "role"}) from None


# --- errors -------------------------------------------------------------------------------------------


class AccountError(StudioError):
    code = "ACCOUNT_ERROR"


class InvalidAccount(AccountError):
    """A bad name, role, password or expiry."""

    code = "VALIDATION_ERROR"


class UserExists(AccountError):
    code = "USER_EXISTS"


class UserNotFound(AccountError):
    code = "USER_NOT_FOUND"


class UserDisabled(AccountError):
    code = "USER_DISABLED"


class TokenNotFound(AccountError):
    code = "TOKEN_NOT_FOUND"


class LoginFailed(AccountError):
    """Wrong name or password, or an account that cannot log in (disabled, no password): one message."""

    code = "UNAUTHENTICATED"


class LoginThrottled(AccountError):
    """Too many failed logins of this account or from this address; `retry_after`: seconds to wait."""

    code = "LOGIN_THROTTLED"

    def __init__(self, retry_after: int) -> None:
        minutes = max(1, ceil(retry_after / 60))
        super().__init__(f"登录失败次数过多，请 {minutes} 分钟后再试", details={"retryAfter": retry_after})
        self.retry_after = retry_after


# --- names, secrets and hashing ---------------------------------------------------------------------------

NAME_MAX = 64
_NAME = re.compile(r"[\w][\w.@+-]*")
PASSWORD_MIN = 8
PASSWORD_MAX = 1024  # argon2 takes any length; a bound keeps a request from feeding it megabytes
TOKEN_PREFIX = "cs_"
_TOKEN = re.compile(r"cs_[A-Za-z0-9_-]{43}")
TOKEN_SHOWN = 8  # characters of a token kept as its `prefix` ("cs_" and 5 more): enough to tell tokens apart
ADDRESS_MAX = 64
LAST_USED_EVERY = timedelta(minutes=1)  # a token's / session's last-use time is written at most this often
ATTEMPTS_KEPT = timedelta(days=1)  # login attempts older than this (or the throttle window) are deleted

PASSWORD_HASH_PARAMETERS: argon2.Parameters = argon2.profiles.RFC_9106_LOW_MEMORY
"""The argon2id parameters of new password hashes: RFC 9106's low-memory profile (3 passes over 64 MiB,
4 lanes; ~50 ms). Tests may set `argon2.profiles.CHEAPEST` here to stay fast; never lower it in production."""


def password_hasher() -> PasswordHasher:
    """A hasher with the module's current `PASSWORD_HASH_PARAMETERS`."""
    return PasswordHasher.from_parameters(PASSWORD_HASH_PARAMETERS)


def normalize_name(name: str) -> str:
    """The stored form of a user name: NFKC, trimmed, lower case."""
    return unicodedata.normalize("NFKC", name).strip().lower()


def check_name(name: str) -> str:
    """The normalised name, or `InvalidAccount`: 1–64 letters (any script), digits, `_ . @ + -`."""
    normal = normalize_name(name)
    if not (0 < len(normal) <= NAME_MAX and _NAME.fullmatch(normal)):
        raise InvalidAccount(
            f"用户名「{name}」不可用：1~{NAME_MAX} 个字符，只能是文字、数字和 _ . @ + -，不能以符号开头",
            details={"field": "name"},
        )
    return normal


def check_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidAccount(
            f"密码长度须为 {PASSWORD_MIN}~{PASSWORD_MAX} 个字符", details={"field": "password"}
        )
    return password


def hash_secret(secret: str) -> str:
    """The SHA-256 (hex) stored for a token or session secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_token_secret() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def looks_like_token(value: str) -> bool:
    """Whether `value` has the shape of an API token (`cs_` and 43 URL-safe characters)."""
    return _TOKEN.fullmatch(value) is not None


def user_actor(name: str) -> str:
    return f"user:{name}"


def cli_actor(os_user: str) -> str:
    return f"cli:{os_user}"


def _utc(value: datetime) -> datetime:
    """SQLite gives naive datetimes back; every stored time is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _opt_utc(value: datetime | None) -> datetime | None:
    return None if value is None else _utc(value)


def _address(address: str | None) -> str | None:
    return address[:ADDRESS_MAX] if address else None


# --- what the functions return ------------------------------------------------------------------------


@dataclass(frozen=True)
class Principal:
    """Who a request or command acts as: an authenticated user and how it was authenticated."""

    user_id: int
    name: str
    role: Role
    via: Literal["password", "token", "session"]
    token_id: int | None = None

    @property
    def actor(self) -> str:
        return user_actor(self.name)

    def can(self, action: Action | str) -> bool:
        return can(self.role, action)

    def can_on(self, verb: Verb, owner_id: int | None) -> bool:
        """Whether this principal may `verb` something owned by `owner_id` (None: nobody's, e.g. a run
        started before accounts existed — only `_any` allows it)."""
        return can_on(self.role, verb, owned=owner_id is not None and owner_id == self.user_id)


@dataclass(frozen=True)
class UserInfo:
    id: int
    name: str
    role: Role
    has_password: bool
    created_at: datetime
    password_changed_at: datetime | None
    disabled_at: datetime | None
    active_tokens: int = 0

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None


TokenState = Literal["active", "expired", "revoked"]


@dataclass(frozen=True)
class TokenInfo:
    id: int
    user_id: int
    user_name: str
    role: Role
    prefix: str
    note: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None
    state: TokenState


@dataclass(frozen=True)
class SessionInfo:
    id: str  # the SHA-256 of the cookie secret
    user_id: int
    csrf_secret: str
    address: str | None
    created_at: datetime
    expires_at: datetime
    last_seen_at: datetime

    def check_csrf(self, value: str | None) -> bool:
        """Whether a form's CSRF value is this session's (constant time)."""
        return value is not None and hmac.compare_digest(self.csrf_secret.encode(), value.encode())


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    actor: str
    user_id: int | None
    action: str
    thread_id: str | None
    creative_id: int | None
    details: dict[str, Any]
    address: str | None


class AuditAction(enum.StrEnum):
    """The audit actions `Accounts` writes itself; later parts add their own (confirm, cancel …)."""

    USER_ADD = "user_add"
    USER_DISABLE = "user_disable"
    USER_ENABLE = "user_enable"
    PASSWORD_CHANGE = "password_change"
    TOKEN_CREATE = "token_create"
    TOKEN_REVOKE = "token_revoke"
    LOGIN = "login"
    LOGOUT = "logout"
    LOGIN_LINK = "login_link"


@dataclass(frozen=True)
class LoginThrottle:
    """Failed password logins allowed in `window`: per account (since its last success) and per address."""

    account_failures: int = 5
    address_failures: int = 20
    window: timedelta = timedelta(minutes=15)


def _user_info(user: User, active_tokens: int = 0) -> UserInfo:
    return UserInfo(
        id=user.id,
        name=user.name,
        role=Role(user.role),
        has_password=user.password_hash is not None,
        created_at=_utc(user.created_at),
        password_changed_at=_opt_utc(user.password_changed_at),
        disabled_at=_opt_utc(user.disabled_at),
        active_tokens=active_tokens,
    )


def _token_info(token: ApiToken, user: User, now: datetime) -> TokenInfo:
    expires = _opt_utc(token.expires_at)
    state: TokenState = (
        "revoked" if token.revoked_at is not None else "expired" if expires and expires <= now else "active"
    )
    return TokenInfo(
        id=token.id,
        user_id=user.id,
        user_name=user.name,
        role=Role(user.role),
        prefix=token.prefix,
        note=token.note,
        created_at=_utc(token.created_at),
        expires_at=expires,
        revoked_at=_opt_utc(token.revoked_at),
        last_used_at=_opt_utc(token.last_used_at),
        state=state,
    )


def _session_info(row: WebSession) -> SessionInfo:
    return SessionInfo(
        id=row.id,
        user_id=row.user_id,
        csrf_secret=row.csrf_secret,
        address=row.address,
        created_at=_utc(row.created_at),
        expires_at=_utc(row.expires_at),
        last_seen_at=_utc(row.last_seen_at),
    )


def _audit_entry(row: AuditRecord) -> AuditEntry:
    return AuditEntry(
        id=row.id,
        at=_utc(row.at),
        actor=row.actor,
        user_id=row.user_id,
        action=row.action,
        thread_id=row.thread_id,
        creative_id=row.creative_id,
        details=dict(row.details or {}),
        address=row.address,
    )


# --- the accounts ----------------------------------------------------------------------------------------


def _audit_row(
    now: datetime,
    actor: str,
    action: str,
    *,
    user_id: int | None,
    thread_id: str | None,
    creative_id: int | None,
    details: dict[str, Any] | None,
    address: str | None,
) -> dict[str, Any]:
    """An `audit_records` row's values."""
    return {
        "at": now, "actor": actor, "user_id": user_id, "action": action, "thread_id": thread_id,
        "creative_id": creative_id, "details": details or {}, "address": _address(address),
    }


class Accounts:
    """Users, passwords, tokens, sessions, the login throttle and the audit trail over one database.

    Changes take `actor` (who does it: `user:<name>`, `cli:<os user>`, `system`) and optionally `address`
    (the client's IP) and write their audit record in the same transaction.
    """

    def __init__(
        self,
        sessions: Sessions,
        *,
        hasher: PasswordHasher | None = None,
        throttle: LoginThrottle | None = None,
        session_ttl: timedelta = timedelta(days=7),
        clock: Callable[[], datetime] = utcnow,
        writer: RowWriter | None = None,
    ) -> None:
        self._sessions = sessions
        self._writer = writer
        self._hasher = hasher or password_hasher()
        self.throttle = throttle or LoginThrottle()
        self.session_ttl = session_ttl
        self._clock = clock
        self._dummy_hash: str | None = None

    def _now(self) -> datetime:
        return _utc(self._clock())

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def _verify(self, stored: str | None, password: str) -> bool:
        """argon2 verification in a worker thread; a missing hash is checked against a dummy one, so the
        answer takes as long either way."""
        if stored is None:
            if self._dummy_hash is None:
                self._dummy_hash = await self._hash(secrets.token_urlsafe(16))
            stored = self._dummy_hash
        try:
            return await asyncio.to_thread(self._hasher.verify, stored, password)
        except (VerificationError, InvalidHashError):
            return False

    @staticmethod
    def _audit(
        session: AsyncSession,
        now: datetime,
        actor: str,
        action: str,
        *,
        user_id: int | None = None,
        thread_id: str | None = None,
        creative_id: int | None = None,
        details: dict[str, Any] | None = None,
        address: str | None = None,
    ) -> None:
        session.add(AuditRecord(**_audit_row(
            now, actor, action, user_id=user_id, thread_id=thread_id, creative_id=creative_id,
            details=details, address=address,
        )))

    @staticmethod
    async def _user(session: AsyncSession, name: str) -> User:
        normal = normalize_name(name)
        user = await session.scalar(select(User).where(User.name == normal))
        if user is None:
            raise UserNotFound(f"没有用户「{name}」", details={"name": normal})
        return user

    # --- users -------------------------------------------------------------------------------------------

    async def has_users(self) -> bool:
        async with self._sessions() as session:
            return await session.scalar(select(User.id).limit(1)) is not None

    async def add_user(
        self, name: str, role: Role | str, password: str | None, *, actor: str, address: str | None = None
    ) -> UserInfo:
        """A new user; `password` None makes a token-only account (it cannot log in with a password)."""
        normal, role = check_name(name), parse_role(role)
        hashed = None if password is None else await self._hash(check_password(password))
        now = self._now()
        try:
            async with self._sessions.begin() as session:
                user = await self._new_user(session, now, normal, role, hashed, actor=actor, address=address)
                return _user_info(user)
        except IntegrityError:
            raise UserExists(f"用户「{normal}」已存在", details={"name": normal}) from None

    async def _new_user(
        self, session: AsyncSession, now: datetime, name: str, role: Role, hashed: str | None, *,
        actor: str, address: str | None,
    ) -> User:
        """Add a user and its `user_add` record; `IntegrityError` when the name is taken."""
        user = User(name=name, role=role.value, password_hash=hashed, created_at=now, updated_at=now,
                    password_changed_at=now if hashed else None)
        session.add(user)
        await session.flush()
        self._audit(session, now, actor, AuditAction.USER_ADD, user_id=user.id, details={
            "name": name, "role": role.value, "password": hashed is not None,
        }, address=address)
        return user

    async def get_user(self, name: str) -> UserInfo | None:
        async with self._sessions() as session:
            try:
                return _user_info(await self._user(session, name))
            except UserNotFound:
                return None

    async def list_users(self) -> list[UserInfo]:
        """Every user, by name, with its number of active (unrevoked, unexpired) tokens."""
        now = self._now()
        active = (
            select(ApiToken.user_id, func.count().label("n"))
            .where(ApiToken.revoked_at.is_(None))
            .where((ApiToken.expires_at.is_(None)) | (ApiToken.expires_at > now))
            .group_by(ApiToken.user_id)
            .subquery()
        )
        async with self._sessions() as session:
            rows = await session.execute(
                select(User, active.c.n).outerjoin(active, active.c.user_id == User.id).order_by(User.name)
            )
            return [_user_info(user, n or 0) for user, n in rows.all()]

    async def disable_user(self, name: str, *, actor: str, address: str | None = None) -> UserInfo:
        """Disable a user: its tokens and sessions stop authenticating (sessions are ended). Idempotent."""
        now = self._now()
        async with self._sessions.begin() as session:
            user = await self._user(session, name)
            if user.disabled_at is None:
                user.disabled_at = now
                ended = await self._end_sessions(session, user.id)
                self._audit(session, now, actor, AuditAction.USER_DISABLE, user_id=user.id,
                            details={"name": user.name, "sessionsEnded": ended}, address=address)
            return _user_info(user)

    async def enable_user(self, name: str, *, actor: str, address: str | None = None) -> UserInfo:
        now = self._now()
        async with self._sessions.begin() as session:
            user = await self._user(session, name)
            if user.disabled_at is not None:
                user.disabled_at = None
                self._audit(session, now, actor, AuditAction.USER_ENABLE, user_id=user.id,
                            details={"name": user.name}, address=address)
            return _user_info(user)

    async def change_password(
        self,
        name: str,
        new_password: str,
        *,
        actor: str,
        address: str | None = None,
        current_password: str | None = None,
        keep_session: str | None = None,
    ) -> UserInfo:
        """Set a user's password and end its sessions (but `keep_session`, the cookie secret of the session
        that asked). With `current_password` (a user changing their own) that is checked first, as a
        throttled login: `LoginThrottled` / `LoginFailed`. Without it the caller is trusted (an admin, the
        local CLI)."""
        check_password(new_password)
        if current_password is not None:
            await self.verify_password(name, current_password, address)
        hashed = await self._hash(new_password)
        now = self._now()
        async with self._sessions.begin() as session:
            user = await self._user(session, name)
            user.password_hash, user.password_changed_at = hashed, now
            keep = hash_secret(keep_session) if keep_session else None
            ended = await self._end_sessions(session, user.id, keep=keep)
            self._audit(session, now, actor, AuditAction.PASSWORD_CHANGE, user_id=user.id,
                        details={"name": user.name, "sessionsEnded": ended}, address=address)
            return _user_info(user)

    # --- password login and its throttle ------------------------------------------------------------------

    async def verify_password(self, name: str, password: str, address: str | None) -> Principal:
        """The user `name` if `password` is theirs and they may log in; else `LoginFailed` (one message
        whatever was wrong), or `LoginThrottled` while the account or address is locked — then the password
        is not even checked and nothing is recorded."""
        account = normalize_name(name)[:NAME_MAX]
        address = _address(address)
        now = self._now()
        async with self._sessions() as session:
            retry_after = await self._locked_for(session, account, address, now)
            if retry_after:
                raise LoginThrottled(retry_after)
            user = await session.scalar(select(User).where(User.name == account))
        usable = user is not None and user.disabled_at is None and user.password_hash is not None
        stored = user.password_hash if usable and user is not None else None
        # a password longer than any that can be set is checked (cut) all the same, so it takes as long
        ok = await self._verify(stored, password[:PASSWORD_MAX]) and usable and len(password) <= PASSWORD_MAX
        rehashed = None
        if ok and stored and self._hasher.check_needs_rehash(stored):
            rehashed = await self._hash(password)  # parameters changed since: upgrade the hash now
        async with self._sessions.begin() as session:
            session.add(LoginAttempt(account=account, address=address, succeeded=ok, at=now))
            await session.execute(
                delete(LoginAttempt).where(LoginAttempt.at < now - max(ATTEMPTS_KEPT, self.throttle.window))
            )
            if rehashed is not None and user is not None:
                fresh = await session.get(User, user.id)
                if fresh is not None and fresh.password_hash == stored:
                    fresh.password_hash = rehashed
        if not ok or user is None:
            raise LoginFailed("用户名或密码不正确")
        return Principal(user_id=user.id, name=user.name, role=Role(user.role), via="password")

    async def _locked_for(
        self, session: AsyncSession, account: str, address: str | None, now: datetime
    ) -> int:
        """Seconds until this account and address may try again; 0 when they may now."""
        window = self.throttle.window
        last_ok = await session.scalar(
            select(func.max(LoginAttempt.at)).where(LoginAttempt.account == account, LoginAttempt.succeeded)
        )
        since = max(now - window, _utc(last_ok)) if last_ok is not None else now - window
        checks = [(LoginAttempt.account == account, since, self.throttle.account_failures)]
        if address is not None:
            checks.append((LoginAttempt.address == address, now - window, self.throttle.address_failures))
        wait = 0.0
        for where, after, limit in checks:
            # the limit-th most recent failure in the window: while it is in the window, the lock holds
            nth = await session.scalar(
                select(LoginAttempt.at)
                .where(where, LoginAttempt.at > after, LoginAttempt.succeeded.is_(False))
                .order_by(LoginAttempt.at.desc())
                .offset(max(limit, 1) - 1)
                .limit(1)
            )
            if nth is not None:
                wait = max(wait, (_utc(nth) + window - now).total_seconds())
        return ceil(wait) if wait > 0 else 0

    # --- API tokens ---------------------------------------------------------------------------------------

    async def create_token(
        self,
        name: str,
        *,
        role: Role | str | None = None,
        expires_in: timedelta | None = None,
        note: str | None = None,
        actor: str,
        address: str | None = None,
    ) -> tuple[str, TokenInfo]:
        """A new API token of user `name` → (the secret, shown once; its record). A missing user is created
        (token-only, no password) when `role` is given; an existing user must have the `role` given."""
        normal = check_name(name)
        wanted = None if role is None else parse_role(role)
        if expires_in is not None and expires_in <= timedelta(0):
            raise InvalidAccount("有效期必须大于 0", details={"field": "expires"})
        if note is not None and len(note) > 200:
            raise InvalidAccount("备注最多 200 个字符", details={"field": "note"})
        secret = new_token_secret()
        now = self._now()
        try:
            async with self._sessions.begin() as session:
                user = await session.scalar(select(User).where(User.name == normal))
                if user is None:
                    if wanted is None:
                        raise UserNotFound(
                            f"没有用户「{normal}」；指定角色即可同时创建它", details={"name": normal}
                        )
                    user = await self._new_user(
                        session, now, normal, wanted, None, actor=actor, address=address
                    )
                elif wanted is not None and user.role != wanted.value:
                    raise InvalidAccount(
                        f"用户「{normal}」是{label('accountRole', user.role)}，"
                        f"不是{label('accountRole', wanted.value)}",
                        details={"field": "role", "role": user.role},
                    )
                elif user.disabled_at is not None:
                    raise UserDisabled(f"用户「{normal}」已停用", details={"name": normal})
                token = ApiToken(
                    user_id=user.id, token_hash=hash_secret(secret), prefix=secret[:TOKEN_SHOWN], note=note,
                    created_at=now, expires_at=now + expires_in if expires_in else None,
                )
                session.add(token)
                await session.flush()
                self._audit(session, now, actor, AuditAction.TOKEN_CREATE, user_id=user.id, details={
                    "name": user.name, "tokenId": token.id, "prefix": token.prefix,
                    "expiresAt": token.expires_at.isoformat() if token.expires_at else None, "note": note,
                }, address=address)
                return secret, _token_info(token, user, now)
        except IntegrityError:  # the user was created by someone else meanwhile
            raise UserExists(f"用户「{normal}」已存在，请重试", details={"name": normal}) from None

    async def list_tokens(self, name: str | None = None) -> list[TokenInfo]:
        """The tokens of user `name` (`UserNotFound` if there is none), or of everyone; oldest first."""
        now = self._now()
        async with self._sessions() as session:
            query = select(ApiToken, User).join(User, User.id == ApiToken.user_id).order_by(ApiToken.id)
            if name is not None:
                query = query.where(User.id == (await self._user(session, name)).id)
            return [_token_info(token, user, now) for token, user in (await session.execute(query)).all()]

    async def revoke_token(self, token: int | str, *, actor: str, address: str | None = None) -> TokenInfo:
        """Revoke a token, given by its id or by its secret. Revoking a revoked token changes nothing."""
        now = self._now()
        async with self._sessions.begin() as session:
            if isinstance(token, int):
                where = ApiToken.id == token
            else:
                where = ApiToken.token_hash == hash_secret(token)
            row = (await session.execute(
                select(ApiToken, User).join(User, User.id == ApiToken.user_id).where(where)
            )).first()
            if row is None:
                shown = f"#{token}" if isinstance(token, int) else token[:TOKEN_SHOWN] + "…"
                raise TokenNotFound(f"没有令牌 {shown}", details={"token": shown})
            found, user = row
            if found.revoked_at is None:
                found.revoked_at = now
                self._audit(session, now, actor, AuditAction.TOKEN_REVOKE, user_id=user.id, details={
                    "name": user.name, "tokenId": found.id, "prefix": found.prefix,
                }, address=address)
            return _token_info(found, user, now)

    async def authenticate_token(self, secret: str) -> Principal | None:
        """The principal an API token stands for; None for anything that is not a live token of an enabled
        user (malformed, unknown, revoked, expired)."""
        if not looks_like_token(secret):
            return None
        digest = hash_secret(secret)
        now = self._now()
        async with self._sessions() as session:
            row = (await session.execute(
                select(ApiToken, User)
                .join(User, User.id == ApiToken.user_id)
                .where(ApiToken.token_hash == digest)
            )).first()
            if row is None:
                return None
            token, user = row
            if not hmac.compare_digest(token.token_hash.encode(), digest.encode()):
                return None
            if token.revoked_at is not None or user.disabled_at is not None:
                return None
            if token.expires_at is not None and _utc(token.expires_at) <= now:
                return None
            principal = Principal(user_id=user.id, name=user.name, role=Role(user.role), via="token",
                                  token_id=token.id)
            if token.last_used_at is None or _utc(token.last_used_at) <= now - LAST_USED_EVERY:
                token.last_used_at = now
                await session.commit()
            return principal

    # --- web sessions ---------------------------------------------------------------------------------------

    async def create_session(
        self, name: str, *, address: str | None = None, via: str = "password"
    ) -> tuple[str, SessionInfo]:
        """A web session for user `name`, whom the caller authenticated → (the cookie secret, its record).
        Recorded as a `login`; expired sessions of anyone are deleted on the way."""
        secret, now = secrets.token_urlsafe(32), self._now()
        async with self._sessions.begin() as session:
            user = await self._user(session, name)
            if user.disabled_at is not None:
                raise UserDisabled(f"用户「{user.name}」已停用", details={"name": user.name})
            await session.execute(delete(WebSession).where(WebSession.expires_at <= now))
            row = WebSession(
                id=hash_secret(secret), user_id=user.id, csrf_secret=secrets.token_urlsafe(32),
                address=_address(address), created_at=now, expires_at=now + self.session_ttl,
                last_seen_at=now,
            )
            session.add(row)
            self._audit(session, now, user_actor(user.name), AuditAction.LOGIN, user_id=user.id,
                        details={"via": via}, address=address)
            return secret, _session_info(row)

    async def authenticate_session(self, secret: str) -> tuple[Principal, SessionInfo] | None:
        """The principal and session of a cookie secret; None if unknown, expired or the user is disabled."""
        if not secret or len(secret) > 100:
            return None
        digest, now = hash_secret(secret), self._now()
        async with self._sessions() as session:
            row = (await session.execute(
                select(WebSession, User)
                .join(User, User.id == WebSession.user_id)
                .where(WebSession.id == digest)
            )).first()
            if row is None:
                return None
            found, user = row
            if not hmac.compare_digest(found.id.encode(), digest.encode()):
                return None
            if user.disabled_at is not None or _utc(found.expires_at) <= now:
                return None
            principal = Principal(user_id=user.id, name=user.name, role=Role(user.role), via="session")
            if _utc(found.last_seen_at) <= now - LAST_USED_EVERY:
                found.last_seen_at = now
                info = _session_info(found)
                await session.commit()
                return principal, info
            return principal, _session_info(found)

    async def end_session(self, secret: str, *, address: str | None = None) -> bool:
        """Log out: delete the session (recorded as `logout`); False when there was none."""
        now = self._now()
        async with self._sessions.begin() as session:
            row = (await session.execute(
                select(WebSession, User).join(User, User.id == WebSession.user_id)
                .where(WebSession.id == hash_secret(secret))
            )).first()
            if row is None:
                return False
            found, user = row
            await session.delete(found)
            self._audit(session, now, user_actor(user.name), AuditAction.LOGOUT, user_id=user.id,
                        address=address)
            return True

    # --- one-time login links -------------------------------------------------------------------------------

    async def create_login_link(
        self, name: str, *, ttl: timedelta = timedelta(hours=24), actor: str, address: str | None = None
    ) -> str:
        """A one-time login secret for user `name` (the `?token=` of the URL a first start prints), valid
        for `ttl`; only its SHA-256 is stored. Recorded as `login_link`."""
        secret, now = secrets.token_urlsafe(32), self._now()
        async with self._sessions.begin() as session:
            user = await self._user(session, name)
            if user.disabled_at is not None:
                raise UserDisabled(f"用户「{user.name}」已停用", details={"name": user.name})
            await session.execute(delete(LoginLink).where(LoginLink.expires_at <= now))
            session.add(
                LoginLink(id=hash_secret(secret), user_id=user.id, created_at=now, expires_at=now + ttl)
            )
            self._audit(session, now, actor, AuditAction.LOGIN_LINK, user_id=user.id,
                        details={"name": user.name, "expiresAt": (now + ttl).isoformat()}, address=address)
        return secret

    async def redeem_login_link(
        self, secret: str, *, address: str | None = None
    ) -> tuple[str, SessionInfo, Principal] | None:
        """Log in with a one-time link → (the new session's cookie secret, its record, the principal); None
        when the link is unknown, used, expired or its user is disabled. Of two requests racing with the same
        link, exactly one wins (the row is claimed by a conditional UPDATE)."""
        if not secret or len(secret) > 100:
            return None
        digest, now = hash_secret(secret), self._now()
        async with self._sessions.begin() as session:
            claimed = await session.execute(
                update(LoginLink)
                .where(LoginLink.id == digest, LoginLink.used_at.is_(None), LoginLink.expires_at > now)
                .values(used_at=now)
            )
            if not getattr(claimed, "rowcount", 0):
                return None
            user = await session.scalar(
                select(User).join(LoginLink, LoginLink.user_id == User.id).where(LoginLink.id == digest)
            )
            if user is None or user.disabled_at is not None:
                return None
            name = user.name
        cookie, info = await self.create_session(name, address=address, via="link")
        principal = Principal(user_id=info.user_id, name=name, role=Role(user.role), via="session")
        return cookie, info, principal

    @staticmethod
    async def _end_sessions(session: AsyncSession, user_id: int, *, keep: str | None = None) -> int:
        query = delete(WebSession).where(WebSession.user_id == user_id)
        if keep is not None:
            query = query.where(WebSession.id != keep)
        result = await session.execute(query)
        return int(getattr(result, "rowcount", 0) or 0)

    # --- audit ----------------------------------------------------------------------------------------------

    async def audit(
        self,
        actor: str,
        action: str,
        *,
        user_id: int | None = None,
        thread_id: str | None = None,
        creative_id: int | None = None,
        details: dict[str, Any] | None = None,
        address: str | None = None,
    ) -> None:
        """Record that `actor` did `action` (on a thread, a creative …): in the next group commit of the
        writer given (the server's: a start's record so waits for no commit of its own), else in a
        transaction of its own."""
        if self._writer is not None:
            await self._writer.insert(AuditRecord, _audit_row(
                self._now(), actor, action, user_id=user_id, thread_id=thread_id, creative_id=creative_id,
                details=details, address=address,
            ))
            return
        async with self._sessions.begin() as session:
            self._audit(session, self._now(), actor, action, user_id=user_id, thread_id=thread_id,
                        creative_id=creative_id, details=details, address=address)

    async def last_actions(self, thread_ids: list[str]) -> dict[str, AuditEntry]:
        """The newest audit record of each thread that has one (one query for a whole inbox page)."""
        if not thread_ids:
            return {}
        newest = (
            select(func.max(AuditRecord.id))
            .where(AuditRecord.thread_id.in_(thread_ids))
            .group_by(AuditRecord.thread_id)
        )
        async with self._sessions() as session:
            rows = (await session.scalars(select(AuditRecord).where(AuditRecord.id.in_(newest)))).all()
        return {row.thread_id: _audit_entry(row) for row in rows if row.thread_id is not None}

    async def audit_trail(
        self,
        *,
        thread_id: str | None = None,
        creative_id: int | None = None,
        user_id: int | None = None,
        action: str | None = None,
        limit: int | None = None,
    ) -> list[AuditEntry]:
        """Audit records matching every filter given, oldest first (with `limit`: the newest `limit`)."""
        query = select(AuditRecord)
        for column, value in ((AuditRecord.thread_id, thread_id), (AuditRecord.creative_id, creative_id),
                              (AuditRecord.user_id, user_id), (AuditRecord.action, action)):
            if value is not None:
                query = query.where(column == value)
        query = query.order_by(AuditRecord.id.desc())
        if limit is not None:
            query = query.limit(limit)
        async with self._sessions() as session:
            rows = (await session.scalars(query)).all()
        return [_audit_entry(row) for row in reversed(rows)]
