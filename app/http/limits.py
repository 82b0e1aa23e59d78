"""Per-user run limits: how many runs one user may have going at once (`STUDIO_MAX_CONCURRENT_RUNS_PER_USER`)
and start per minute (`STUDIO_MAX_STARTS_PER_MINUTE`); past either, a 429 `RATE_LIMITED` with `Retry-After`.

The counts come from the database (`creatives.owner_id`, `status`, `created_at`), so every server process
on one database sees the same ones. Within a process, check-then-start is exact without a lock: a check
reads the user's running and recent threads by id (no lock held while it waits for the database), then, with
no await until the new start's place is reserved, adds every start of this process that may have been
stored after the read — those reserved before it and not yet done, and those reserved while it was under
way (`_Ledger`). Counted by thread id, none counts twice. A burst of one user's starts (an integration's
token) so waits neither for each other's counts nor for each other's commits. Two processes racing can let
one run past the limit, never more.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from math import ceil

from sqlalchemy import select
from starlette.requests import Request

from app.http.errors import ApiError
from app.http.request import resources_of, settings_of
from tools.accounts import Principal
from tools.database import Creative, CreativeStatus, utcnow

WINDOW = timedelta(minutes=1)
BUSY_RETRY_S = 10  # a full set of concurrent runs: ask again in this many seconds


class RateLimited(ApiError):
    code = "RATE_LIMITED"
    status = 429

    def __init__(self, message: str, *, retry_after: int, details: dict[str, object]) -> None:
        super().__init__(message, details={**details, "retryAfter": retry_after})
        self.headers = {"Retry-After": str(retry_after)}


class _Ledger:
    """One user's starts in this process that a database read may not show yet: `pending` are past the check
    and not yet stored and started; `since` keeps, while a check is reading, every start reserved during a
    read (by the reservation's tick), so a start stored and finished between a read and its decision still
    counts."""

    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.since: dict[str, int] = {}
        self.tick = 0
        self.reading = 0

    def overlapping(self, before: set[str], tick: int) -> set[str]:
        """The starts that may have been stored after a read that began at `tick` with `before` pending."""
        return before | {thread for thread, at in self.since.items() if at > tick}

    def reserve(self, thread_id: str) -> None:
        self.tick += 1
        self.pending.add(thread_id)
        if self.reading:
            self.since[thread_id] = self.tick

    def done_reading(self) -> None:
        self.reading -= 1
        if not self.reading:
            self.since.clear()


_ledgers: dict[int, _Ledger] = {}


@asynccontextmanager
async def check_run_limits(
    request: Request, principal: Principal, thread_id: str, *, starting: bool = True
) -> AsyncIterator[None]:
    """Check the limits for starting (or, not `starting`, resuming) `thread_id` and keep its place while the
    block starts the run."""
    settings = settings_of(request)
    sessions = resources_of(request).sessions
    user = principal.user_id
    ledger = _ledgers.setdefault(user, _Ledger())
    now = utcnow()
    before, tick = set(ledger.pending), ledger.tick
    ledger.reading += 1
    try:
        mine, window = Creative.owner_id == user, Creative.created_at > now - WINDOW
        async with sessions() as session:
            running_ids = set((await session.scalars(
                select(Creative.thread_id).where(mine, Creative.status == CreativeStatus.RUNNING.value)
            )).all())
            recent = {} if not starting else {thread: at for thread, at in (await session.execute(
                select(Creative.thread_id, Creative.created_at).where(mine, window)
            )).all()}
        # from here to the reservation no await: the decision and the place it takes are one step
        unseen = ledger.overlapping(before, tick)
    finally:
        ledger.done_reading()
    running = len(running_ids | unseen)
    limit = settings.max_concurrent_runs_per_user
    if running >= limit:
        raise RateLimited(
            f"你已有 {running} 个运行在进行（上限 {limit} 个），请等其中一个结束后再开始",
            retry_after=BUSY_RETRY_S, details={"limit": limit, "running": running, "kind": "concurrent"},
        )
    per_minute = settings.max_starts_per_minute
    if starting:
        # the starts not stored yet are the newest; the oldest stored one frees the next place
        started = sorted(at for thread, at in recent.items() if thread not in unseen)
        if len(started) + len(unseen) >= per_minute:
            stored_past = per_minute - len(unseen)
            oldest = started[len(started) - stored_past] if stored_past > 0 else now
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=now.tzinfo)
            wait = max(1, ceil((oldest + WINDOW - now).total_seconds()))
            raise RateLimited(
                f"一分钟内最多开始 {per_minute} 次创作，请 {wait} 秒后再试",
                retry_after=wait, details={"limit": per_minute, "kind": "per_minute"},
            )
    ledger.reserve(thread_id)
    try:
        yield
    finally:
        ledger.pending.discard(thread_id)
