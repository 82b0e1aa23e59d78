"""First-run preparation shared by `make run` and `studio serve`: migrate, then seed the sample corpus."""

from __future__ import annotations

from collections.abc import Callable

from app import migrate
from app.settings import Settings


async def prepare_data(settings: Settings, *, log: Callable[[str], object] = print) -> None:
    """Bring the database to the newest revision and load the shipped sample corpus into an empty store."""
    settings.ensure_dirs()
    await migrate.upgrade_async(settings.db_url)
    log(f"数据库已就绪：{migrate.current(settings.db_url)}")
    from app.notes_cli import seed_sample_data

    await seed_sample_data(settings, log=log)
