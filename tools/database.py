"""The relational store: SQLAlchemy 2.0 models and the async engine.

Three tables for the work: `creatives` (one row per workflow run and everything it produced), `image_assets`
(every generated or uploaded image, stored as a content-addressed file) and `run_events` (the persisted
SSE log, replayable by `seq`); two for runs across processes (`agents/run/` reads and writes them):
`run_leases` (which worker runs a thread, until when) and `run_workers` (the processes that run them).
Six for accounts (`tools/accounts.py` reads and writes them): `users`, `api_tokens`, `sessions` (web
logins), `login_links` (one-time login URLs), `login_attempts` (the login
throttle) and `audit_records` (who did what, when). The schema is owned by Alembic (`migrations/`);
`metadata` here is what the migrations are written against.

SQLite (aiosqlite) is the default; the URL may point at PostgreSQL instead (psycopg 3, the driver the
LangGraph checkpointer uses there too). `database_url` gives any URL its driver.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    Row,
    String,
    Text,
    UniqueConstraint,
    event,
)
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.pool import ConnectionPoolEntry

ROW_ID_MAX = 2**31 - 1  # the largest id a row can have on every backend (PostgreSQL's integer is 32-bit)


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC; SQLite hands back naive datetimes, which are UTC by construction."""
    if value is None:
        return None
    return (value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)).isoformat()


class CreativeStatus(enum.StrEnum):
    """Lifecycle of a creative; follows its run."""

    DRAFT = "draft"
    RUNNING = "running"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    ABORTED = "aborted"


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class Creative(Base):
    """One workflow run and its artifacts. JSON columns hold the artifacts as their wire (camelCase) dicts."""

    __tablename__ = "creatives"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    thread_id: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    status: Mapped[str] = mapped_column(String(16), default=CreativeStatus.DRAFT, index=True)
    request: Mapped[str] = mapped_column(Text)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # imageCount, layoutPreference, HITL…

    title: Mapped[str | None] = mapped_column(Text)
    body: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[Any]] = mapped_column(JSON, default=list)

    brief: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    evidence: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    reference_analyses: Mapped[list[Any]] = mapped_column(JSON, default=list)
    layout_spec: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    image_plans: Mapped[list[Any]] = mapped_column(JSON, default=list)
    bindings: Mapped[list[Any]] = mapped_column(JSON, default=list)
    overlay_plan: Mapped[list[Any]] = mapped_column(JSON, default=list)

    review_rounds: Mapped[list[Any]] = mapped_column(
        JSON, default=list
    )  # [{round, scores, overall, passed…}]
    score: Mapped[float | None] = mapped_column(Float, index=True)  # overall score of the chosen round

    model: Mapped[str | None] = mapped_column(String(200))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float | None] = mapped_column(Float, default=0.0)  # None: a price was unknown
    usage: Mapped[dict[str, Any]] = mapped_column(
        JSON, default=dict
    )  # per task: calls, tokens, cost, latency
    timings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # per agent: runs, total ms
    error: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    # who started the run: the user (None before accounts, or from the local CLI) and the actor
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    started_by: Mapped[str | None] = mapped_column(String(128))
    # the thread's last event seq: the database allocates every event's seq from it (migration 0006)
    last_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # the number of the version the row shows (0: none yet); versions are allocated from it (migration 0007)
    current_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    assets: Mapped[list[ImageAsset]] = relationship(back_populates="creative", order_by="ImageAsset.id")


class ImageAsset(Base):
    """An image file on disk (content-addressed by sha256) and what produced it.

    `superseded_at` is None while the row is in its creative's current set: the pictures of the package it
    has now — one row per task index (a complete image or the failure), plus its uploads. A redone picture
    replaces the row of its task index, which is kept as history with the time it left the set
    (`tools.assets.AssetStore`: `save` / `record_failure`, and `set_current` when a stage's or an earlier
    round's pictures become the package). `picture_path` is set for a card an image model's picture became:
    that picture as the model drew it, before the overlay, so the card can be drawn again with new parameters
    (`agents.image_edit`; migration 0009)."""

    __tablename__ = "image_assets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    creative_id: Mapped[int | None] = mapped_column(
        ForeignKey("creatives.id", ondelete="SET NULL"), index=True
    )
    task_index: Mapped[int | None] = mapped_column(Integer)  # 1-based image task of the run; None for uploads
    role: Mapped[str] = mapped_column(String(32))  # cover | detail | result | reference
    prompt: Mapped[str | None] = mapped_column(Text)
    provider: Mapped[str] = mapped_column(String(200))
    file_path: Mapped[str] = mapped_column(Text)  # relative to the assets dir
    mime: Mapped[str] = mapped_column(String(64))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), default="complete")  # complete | failed
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    superseded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # None: current
    picture_path: Mapped[str | None] = mapped_column(Text)  # the model's bare picture, relative; None: none

    creative: Mapped[Creative | None] = relationship(back_populates="assets")


class RunEvent(Base):
    """One SSE event of a thread, in order. `(thread_id, seq)` is unique: the replay log."""

    __tablename__ = "run_events"
    __table_args__ = (
        UniqueConstraint("thread_id", "seq", name="uq_run_events_thread_seq"),
        Index("ix_run_events_thread_type", "thread_id", "type"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    thread_id: Mapped[str] = mapped_column(String(128))
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(48))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class VersionSource(enum.StrEnum):
    """What made a version of a creative."""

    RUN = "run"  # a run that completed (the first, or a revision of the thread)
    QUICK_ACTION = "quick_action"  # a one-click rewrite (shorter, livelier, another title …)
    RESTORE = "restore"  # an earlier version made current again
    MANUAL_EDIT = "manual_edit"  # title, body or tags edited by hand
    SELECTION_EDIT = "selection_edit"  # a passage of the body the creator selected, rewritten as they asked
    IMAGE_EDIT = "image_edit"  # one picture edited: a painted mask, new parameters or its text


class CreativeVersion(Base):
    """One version of a creative: what a completed run, an edit or a restore left — title, body, tags, the
    image set (asset ids), the plans and the review — with what made it and who. Numbered from 1 per
    creative (`creatives.current_version` is the last one's number, and the creative row shows its
    content); never changed or deleted."""

    __tablename__ = "creative_versions"
    __table_args__ = (UniqueConstraint("creative_id", "number", name="uq_creative_versions_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    creative_id: Mapped[int] = mapped_column(ForeignKey("creatives.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(Text)
    body: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[Any]] = mapped_column(JSON, default=list)
    asset_ids: Mapped[list[Any]] = mapped_column(JSON, default=list)
    image_plans: Mapped[list[Any]] = mapped_column(JSON, default=list)
    overlay_plan: Mapped[list[Any]] = mapped_column(JSON, default=list)
    review: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # the quality scores it ended with
    source: Mapped[str] = mapped_column(String(32))  # VersionSource
    actor: Mapped[str | None] = mapped_column(String(128))  # user:<name>, cli:<os user>
    based_on: Mapped[int | None] = mapped_column(Integer)  # the version it was made from
    restored_from: Mapped[int | None] = mapped_column(Integer)  # a restore: the version it copies
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RunLease(Base):
    """Which worker runs a thread's current segment, until when. A worker renews its leases while it
    runs them; a lease past `expires_at` is free for any worker to take (and continue the run from its
    last checkpoint). `cancel_requested_at`: another process asked the owner to cancel the run."""

    __tablename__ = "run_leases"

    thread_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200), index=True)  # a worker id
    acquired_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    cancel_requested_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RunWorker(Base):
    """A process that runs workflows (a server, or a CLI run): `takes_runs` for the servers, whose
    sweepers take over other workers' expired runs. `seen_at` is renewed with its leases; a stopping
    server sets `stopping_at` and hands its runs to the live peers that take runs, if any."""

    __tablename__ = "run_workers"

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    host: Mapped[str] = mapped_column(String(200))
    pid: Mapped[int] = mapped_column(Integer)
    takes_runs: Mapped[bool] = mapped_column(Boolean)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    stopping_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this host (a `run_workers` row's; another user's counts as
    alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class User(Base):
    """An account: a person (or a script's identity) with one role. `name` is stored normalised (NFKC,
    lower case); `password_hash` is an argon2 hash, None for a token-only account (it cannot log in with
    a password). A disabled user keeps its rows but neither its tokens nor its sessions authenticate."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    role: Mapped[str] = mapped_column(String(16))  # tools.accounts.Role: admin | creator | editor | analyst
    password_hash: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    password_changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """An API token of a user. Only the SHA-256 of the secret is stored; `prefix` (the secret's first
    characters) lets people tell their tokens apart."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    prefix: Mapped[str] = mapped_column(String(16))
    note: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class WebSession(Base):
    """A web login. `id` is the SHA-256 of the cookie's secret (the secret itself is never stored);
    `csrf_secret` is the value the session's forms must carry."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_secret: Mapped[str] = mapped_column(String(64))
    address: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LoginLink(Base):
    """A one-time login URL (what a first start prints): `id` is the SHA-256 of its secret; `used_at` is set
    by the one request that redeems it."""

    __tablename__ = "login_links"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class LoginAttempt(Base):
    """One password login attempt, for the throttle (failures per account and per address in a window).
    `account` is the name as tried (normalised), whether or not such a user exists."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_account_at", "account", "at"),
        Index("ix_login_attempts_address_at", "address", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account: Mapped[str] = mapped_column(String(64))
    address: Mapped[str | None] = mapped_column(String(64))
    succeeded: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class AuditRecord(Base):
    """Who did what, when: an account change, a login, a confirm… `actor` is `user:<name>`,
    `cli:<os user>` or `system`; `details` is a JSON object of the action's particulars."""

    __tablename__ = "audit_records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(128))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    action: Mapped[str] = mapped_column(String(48), index=True)
    thread_id: Mapped[str | None] = mapped_column(String(128), index=True)
    creative_id: Mapped[int | None] = mapped_column(
        ForeignKey("creatives.id", ondelete="SET NULL"), index=True
    )
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    address: Mapped[str | None] = mapped_column(String(64))


metadata = Base.metadata


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


# one async driver per database; PostgreSQL's is psycopg 3, which langgraph-checkpoint-postgres needs anyway
DRIVERS = {"sqlite": "aiosqlite", "postgresql": "psycopg"}
SUPPORTED = "SQLite (sqlite:///PATH) or PostgreSQL (postgresql://USER:PASSWORD@HOST:PORT/DATABASE)"


def database_url(url: str) -> str:
    """`url` with the studio's async driver for its database, whatever driver it named: `postgresql://…`,
    `postgres://…` or `postgresql+asyncpg://…` → `postgresql+psycopg://…`; `sqlite:///…` →
    `sqlite+aiosqlite:///…`. ValueError for any other database."""
    scheme, separator, rest = url.partition("://")
    backend = scheme.partition("+")[0].lower()
    backend = "postgresql" if backend == "postgres" else backend
    if not separator:
        raise ValueError(f"a database URL starts with its database's name: {SUPPORTED}")
    if backend not in DRIVERS:
        raise ValueError(f"the studio does not run on {scheme}:// databases, only on {SUPPORTED}")
    return f"{backend}+{DRIVERS[backend]}://{rest}"


def is_postgresql(url: str) -> bool:
    return database_url(url).startswith("postgresql+")


def sync_url(url: str) -> str:
    """The same database through a blocking driver: Python's sqlite3, or psycopg (which is both)."""
    return database_url(url).replace("sqlite+aiosqlite://", "sqlite://", 1)


def libpq_url(url: str) -> str:
    """A PostgreSQL URL as libpq takes it (`psycopg.connect`, the checkpointer's pool): no driver part."""
    if not is_postgresql(url):
        raise ValueError("not a PostgreSQL URL")
    return "postgresql://" + database_url(url).partition("://")[2]


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An async engine with the studio's driver (`database_url`). SQLite connections get WAL, a busy
    timeout and foreign keys; PostgreSQL sessions work in UTC, so times come back as SQLite's do."""
    url = database_url(url)
    if is_postgresql(url):
        return create_async_engine(url, echo=echo, connect_args={"options": "-c TimeZone=UTC"})
    engine = create_async_engine(url, echo=echo)
    event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def blocking_twin(engine: AsyncEngine) -> Engine | None:
    """A synchronous engine on the same SQLite file as `engine` (driver `sqlite` instead of `aiosqlite`,
    the same pragmas), for code that runs a whole transaction on a thread of its own; None for other
    databases and for in-memory SQLite, where a second engine would not see the same data."""
    url = engine.url
    if url.drivername != "sqlite+aiosqlite" or url.database in (None, "", ":memory:"):
        return None
    twin = create_sync_engine(url.set(drivername="sqlite"), echo=engine.echo)
    event.listen(twin, "connect", _sqlite_pragmas)
    return twin


T = TypeVar("T")


class RowWriter(Protocol):
    """A group-committing writer (the run store's `agents.run.writer.BatchWriter`): the asset store's rows and
    the audit trail's go through the same commits as the runs' events when they are given one — under load,
    one commit for many, and on SQLite no second writer waiting for the write lock."""

    async def insert(self, model: type[Base], values: dict[str, Any]) -> Row[Any]: ...

    async def run(self, op: Callable[[AsyncConnection], Awaitable[T]]) -> T: ...


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


class AssetAnalysisRow(Base):
    """What an image shows — its recognised text and element boxes (`tools.image_analysis.AssetAnalysis`, as
    its wire dict) — computed once per asset and kept (migration 0008). Identical bytes stored as another
    asset reuse it (found through `image_assets.sha256`)."""

    __tablename__ = "asset_analyses"

    asset_id: Mapped[int] = mapped_column(
        ForeignKey("image_assets.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    analysis: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
