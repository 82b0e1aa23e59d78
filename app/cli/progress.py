"""Progress of the CLI's long steps (migrations, seeding, imports, index builds, start-up).

A `Steps` reports one step at a time. The work itself advances it (a callback per embedded batch, one per
applied migration), so what is shown is real progress, not a spinner over the whole thing. In a terminal
each step is a rich progress line (spinner, bar, count, elapsed time) that stays on screen when it ends;
anywhere else (a pipe, a log file, `make run > log`) each step is plain lines: one when it starts, one at
every quarter of a counted step, one when it ends with its time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class Step:
    """One running step; `advance(n)` is safe to call from worker threads (embedding runs in one)."""

    def __init__(self, description: str, total: int | None, emit: Callable[[str], object] | None) -> None:
        self.description, self.total, self.done = description, total, 0
        self.started = time.perf_counter()
        self._emit = emit
        self._lock = threading.Lock()
        self._quarter = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            if self._progress is not None and self._task is not None:
                self._progress.update(self._task, completed=self.done)
            elif self._emit is not None and self.total:
                quarter = min(4, self.done * 4 // self.total)
                if 0 < quarter < 4 and quarter > self._quarter:
                    self._emit(f"  {self.description}：{self.done}/{self.total}")
                self._quarter = max(self._quarter, quarter)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


class Steps:
    """Reports steps on `console` (live when it is a terminal, lines otherwise), or through `log` (one
    line per event, e.g. a server's start-up log), or not at all (`Steps.silent()`)."""

    def __init__(self, console: Console | None = None, *, log: Callable[[str], object] | None = None) -> None:
        self.console = console
        self.live = console is not None and log is None and console.is_terminal
        if log is None and console is not None:
            log = partial(console.print, soft_wrap=True)  # a log line is one line, whatever the width
        self.log = log

    @classmethod
    def silent(cls) -> Steps:
        return cls()

    @contextmanager
    def step(self, description: str, total: int | None = None) -> Iterator[Step]:
        """Run one step; the yielded `Step` is advanced by the work. A counted step shows n/total."""
        if self.live and self.console is not None:
            with self._live_step(description, total) as step:
                yield step
            return
        emit = self.log
        name = escape(description) if self.console is not None else description  # a console reads markup
        step = Step(name, total, emit)
        if emit is not None:
            emit(f"· {name}{f'（共 {total}）' if total else ''}…")
        yield step
        if emit is not None:  # not reached when the work raised: no ✓ for a failed step
            count = f"{step.done}/{total}，" if total else ""
            emit(f"✓ {name}（{count}用时 {step.seconds:.1f} 秒）")

    @contextmanager
    def _live_step(self, description: str, total: int | None) -> Iterator[Step]:
        columns = [
            SpinnerColumn(finished_text="[green]✓[/green]"),
            TextColumn("{task.description}"),
            *([BarColumn(bar_width=30), MofNCompleteColumn()] if total else []),
            TimeElapsedColumn(),
        ]
        with Progress(*columns, console=self.console, transient=False) as progress:
            step = Step(description, total, None)
            step._progress = progress
            step._task = progress.add_task(escape(description), total=total)
            yield step
            progress.update(step._task, completed=total if total else 1, total=total or 1)
