"""Per-user run limits: how many runs one user may have going at once (`STUDIO_MAX_CONCURRENT_RUNS_PER_USER`)
and start per minute (`STUDIO_MAX_STARTS_PER_MINUTE`); past either, a 429 `RATE_LIMITED` with `Retry-After`.

The counts come from the database (`creatives.owner_id`, `status`, `created_at`), so every server process
on one database sees the same ones. Within a process, check-then-start is atomic without holding a lock
across the start: under the user's lock the check counts the stored runs plus the starts this process has
let through and not finished storing (their thread ids, left out of the stored counts so none counts
twice), and reserves the new start's place. A burst of one user's starts (an integration's token) so waits
for a count each, not for each other's commits. Two processes racing can let one run past the limit, never
more.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from math import ceil

from sqlalchemy import func, select
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


_locks: dict[int, asyncio.Lock] = {}
_starting: dict[int, set[str]] = {}  # per user: threads past the check, not yet started (this process)


def _lock(user_id: int) -> asyncio.Lock:
    lock = _locks.get(user_id)
    if lock is None:
        lock = _locks[user_id] = asyncio.Lock()
    return lock


@asynccontextmanager
async def check_run_limits(
    request: Request, principal: Principal, thread_id: str, *, starting: bool = True
) -> AsyncIterator[None]:
    """Check the limits for starting (or, not `starting`, resuming) `thread_id` and keep its place while the
    block starts the run."""
    settings = settings_of(request)
    sessions = resources_of(request).sessions
    user = principal.user_id
    async with _lock(user):
        now = utcnow()
        reserved = _starting.setdefault(user, set())
        pending = set(reserved)  # as of the query: one that finishes meanwhile still counts once, here
        stored = Creative.owner_id == user
        if pending:
            stored = stored & Creative.thread_id.not_in(pending)
        async with sessions() as session:
            running = await session.scalar(
                select(func.count()).select_from(Creative).where(
                    stored, Creative.status == CreativeStatus.RUNNING.value
                )
            ) or 0
            recent = (await session.scalars(
                select(Creative.created_at)
                .where(stored, Creative.created_at > now - WINDOW)
                .order_by(Creative.created_at)
            )).all() if starting else []
        running += len(pending)
        limit = settings.max_concurrent_runs_per_user
        if running >= limit:
            raise RateLimited(
                f"你已有 {running} 个运行在进行（上限 {limit} 个），请等其中一个结束后再开始",
                retry_after=BUSY_RETRY_S, details={"limit": limit, "running": running, "kind": "concurrent"},
            )
        per_minute = settings.max_starts_per_minute
        if starting and len(recent) + len(pending) >= per_minute:
            # the starts being stored are the newest: the oldest stored one frees the next place
            stored_past = per_minute - len(pending)
            oldest = recent[len(recent) - stored_past] if stored_past > 0 else now
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=now.tzinfo)
            wait = max(1, ceil((oldest + WINDOW - now).total_seconds()))
            raise RateLimited(
                f"一分钟内最多开始 {per_minute} 次创作，请 {wait} 秒后再试",
                retry_after=wait, details={"limit": per_minute, "kind": "per_minute"},
            )
        reserved.add(thread_id)
    try:
        yield
    finally:
        reserved.discard(thread_id)  # (the user's set stays: a check under way may hold it)
