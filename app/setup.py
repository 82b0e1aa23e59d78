"""First-run preparation shared by `make run` and `studio serve`: migrate, then seed the sample corpus."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from app import migrate
from app.cli.progress import Steps
from app.settings import Settings


async def prepare_data(
    settings: Settings, *, log: Callable[[str], object] = print, steps: Steps | None = None
) -> None:
    """Bring the database to the newest revision and load the shipped sample corpus into an empty store.

    Each long step reports through `steps` (by default as lines through `log`); `log` gets the summaries.
    """
    steps = steps if steps is not None else Steps(log=log)
    log = steps.log or log
    settings.ensure_dirs()
    todo = await asyncio.to_thread(migrate.pending, settings.db_url)
    if todo:
        with steps.step("数据库迁移", total=len(todo)) as step:
            await asyncio.to_thread(
                migrate.upgrade, settings.db_url, applied=lambda _revision: step.advance()
            )
    log(f"数据库已就绪：{migrate.current(settings.db_url)}")
    from app.cli.notes import seed_sample_data

    await seed_sample_data(settings, log=log, steps=steps)
