"""`studio notes`: import, search and inspect the knowledge store; load the shipped sample data.

Also `seed_sample_data(settings)`, which `app.setup.prepare_data` runs on first start.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from app.cli.datadir import DataDirOption, fail_without, writable
from app.cli.progress import Steps
from app.labels import key_of, label
from app.settings import Settings
from tools.errors import ImportRowsError, KnowledgeError
from tools.knowledge import (
    SAMPLE_DATA_DIR,
    SAMPLE_DATA_MISSING,
    VECTOR_INDEX_FROM,
    KnowledgeStore,
    Note,
    Style,
    VectorIndex,
    load_sample_data,
    parse_notes_file,
    parse_styles_file,
)

notes_cli = typer.Typer(help="笔记库与风格库：导入、检索、统计、加载示例数据。", no_args_is_help=True)

def _console() -> Console:
    return Console(highlight=False)


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(f"[red]{message}[/red]")
    return typer.Exit(1)


# --- seeding ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedReport:
    notes: int  # notes written (0 when skipped)
    styles: int  # styles written (0 when skipped)
    notes_before: int
    styles_before: int
    seconds: float


async def seed_store(
    store: KnowledgeStore,
    *,
    force: bool = False,
    data_dir: Path = SAMPLE_DATA_DIR,
    steps: Steps | None = None,
) -> SeedReport:
    """Load the sample notes into an empty notes table and the sample styles into an empty styles table
    (each independently); with `force`, upsert them regardless (imported data is kept). Each write is a
    counted step of `steps`, advanced as the texts are embedded."""
    steps = steps or Steps.silent()
    started = time.perf_counter()
    notes_before, styles_before = await store.count_notes(), await store.count_styles()
    written_notes = written_styles = 0
    if force or notes_before == 0 or styles_before == 0:
        notes, styles = load_sample_data(data_dir)
        if force or notes_before == 0:
            with steps.step("加载示例笔记", total=len(notes)) as step:
                written_notes = await store.upsert_notes(notes, progress=step.advance)
        if force or styles_before == 0:
            with steps.step("加载示例风格", total=len(styles)) as step:
                written_styles = await store.upsert_styles(styles, progress=step.advance)
    return SeedReport(
        written_notes, written_styles, notes_before, styles_before, time.perf_counter() - started
    )


async def seed_sample_data(
    settings: Settings,
    *,
    log: Callable[[str], object] = print,
    force: bool = False,
    data_dir: Path = SAMPLE_DATA_DIR,
    steps: Steps | None = None,
) -> None:
    """Seed the store at `settings.store_dir` with the sample data if it is empty; log what happened.

    Missing sample files (e.g. an installed package without `data/`) are logged, not raised, so a server
    still starts; invalid sample files raise `ImportRowsError` (the shipped data is part of the product).
    """
    try:
        log(await _seed(settings, force=force, data_dir=data_dir, steps=steps))
    except KnowledgeError as exc:
        if exc.code != SAMPLE_DATA_MISSING:
            raise
        log(f"{exc.message}，跳过示例数据")


async def _seed(settings: Settings, *, force: bool, data_dir: Path, steps: Steps | None = None) -> str:
    async with KnowledgeStore(settings.store_dir) as store:
        report = await seed_store(store, force=force, data_dir=data_dir, steps=steps)
        if not (report.notes or report.styles):
            return f"知识库已有 {report.notes_before} 条笔记、{report.styles_before} 个风格，跳过示例数据"
        return (
            f"已加载示例数据：{report.notes} 条笔记、{report.styles} 个风格"
            f"（库中现有 {await store.count_notes()} 条笔记、{await store.count_styles()} 个风格，"
            f"用时 {report.seconds:.1f} 秒）"
        )


# --- commands --------------------------------------------------------------------------------------------


@notes_cli.command("import")
def import_file(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, metavar="文件", help=".jsonl 或 .csv 文件")
    ],
    fmt: Annotated[str | None, typer.Option("--format", help="jsonl 或 csv（默认按扩展名判断）")] = None,
    styles: Annotated[bool, typer.Option("--styles", help="文件里是风格而不是笔记")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """从文件导入笔记（或风格）；只要有一行无效，就什么都不导入。"""
    console = _console()
    try:
        if styles:
            style_rows, note_rows = parse_styles_file(file, fmt=fmt), []
        else:
            style_rows, note_rows = [], parse_notes_file(file, fmt=fmt)
    except ImportRowsError as exc:
        table = Table(title=f"{file.name}：{len(exc.rows)} 行无效，未导入任何内容", title_justify="left")
        table.add_column("行号", justify="right", style="bold")
        table.add_column("错误", overflow="fold")
        for row in exc.rows:
            table.add_row(str(row["line"]), str(row["error"]))
        console.print(table)
        raise typer.Exit(1) from exc
    except KnowledgeError as exc:
        raise _fail(console, exc.message) from exc
    if not style_rows and not note_rows:
        console.print(f"{file.name} 中没有数据，未导入任何内容")
        return

    settings = writable(data_dir)
    unit = "个风格" if styles else "条笔记"

    async def run() -> tuple[int, int]:
        async with KnowledgeStore(settings.store_dir) as store:
            with Steps(console).step(f"导入{unit[1:]}", total=len(style_rows or note_rows)) as step:
                if styles:
                    written = await store.upsert_styles(style_rows, progress=step.advance)
                    return written, await store.count_styles()
                written = await store.upsert_notes(note_rows, progress=step.advance)
                return written, await store.count_notes()

    started = time.perf_counter()
    written, total = asyncio.run(run())
    seconds = time.perf_counter() - started
    console.print(f"已导入 [bold]{written}[/bold] {unit}（库中共 {total} {unit}，用时 {seconds:.1f} 秒）")


@notes_cli.command()
def search(
    query: Annotated[str, typer.Argument(metavar="关键词", help="要找什么，例如：露营装备")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="最多显示多少条")] = 10,
    theme: Annotated[str | None, typer.Option(help="只看某个主题，例如：美食（或 food）")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """在笔记库中混合检索（向量 + 关键词）。"""
    console = _console()
    settings = fail_without(console, data_dir)
    theme = key_of("theme", theme) if theme else None

    async def run() -> list[tuple[Note, float, float, bool]]:
        async with KnowledgeStore(settings.store_dir) as store:
            hits = await store.search_notes(query, limit=limit, theme=theme)
        return [(hit.note, hit.score, hit.similarity, hit.keyword_score is not None) for hit in hits]

    hits = asyncio.run(run())
    if not hits:
        console.print("没有找到相关笔记（知识库为空？先运行 studio notes seed）")
        return
    table = Table(title=f"“{query}” 的检索结果", title_justify="left")
    for name, justify in (
        ("#", "right"),
        ("标题", "left"),
        ("主题", "left"),
        ("赞", "right"),
        ("藏", "right"),
        ("评", "right"),
        ("相似度", "right"),
        ("关键词", "center"),
        ("编号", "left"),
    ):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for rank, (note, _score, similarity, keyword) in enumerate(hits, start=1):
        table.add_row(
            str(rank),
            note.title,
            label("theme", note.theme),
            str(note.likes),
            str(note.collects),
            str(note.comments),
            f"{similarity:.2f}",
            "✓" if keyword else "",
            note.id,
        )
    console.print(table)


@notes_cli.command("styles")
def styles_search(
    query: Annotated[str, typer.Argument(metavar="描述", help="想要的风格，例如：奶油风 温柔")],
    limit: Annotated[int, typer.Option(min=1, max=36, help="最多显示多少个")] = 3,
    threshold: Annotated[float, typer.Option(min=0, max=1, help="算作匹配所需的相似度")] = 0.6,
    data_dir: DataDirOption = None,
) -> None:
    """按相似度查找风格；低于阈值的行显示为灰色。"""
    console = _console()
    settings = fail_without(console, data_dir)

    async def run() -> list[tuple[Style, float]]:
        async with KnowledgeStore(settings.store_dir) as store:
            return [(hit.style, hit.similarity) for hit in await store.search_styles(query, limit=limit)]

    hits = asyncio.run(run())
    if not hits:
        console.print("风格库为空（先运行 studio notes seed）")
        return
    table = Table(title=f"“{query}” 的风格匹配（阈值 {threshold:.2f}）", title_justify="left")
    for name in ("风格", "相似度", "关键词", "色板", "是否匹配"):
        table.add_column(name, overflow="fold")
    for style, similarity in hits:
        matched = similarity >= threshold
        swatches = " ".join(f"[{color}]■[/] {color}" for color in style.palette)
        table.add_row(
            style.name,
            f"{similarity:.2f}",
            "、".join(style.keywords),
            swatches,
            "✓" if matched else "低于阈值",
            style=None if matched else "dim",
        )
    console.print(table)


@notes_cli.command()
def stats(data_dir: DataDirOption = None) -> None:
    """各主题的笔记数，以及风格库的大小。"""
    console = _console()
    settings = fail_without(console, data_dir)

    async def run() -> tuple[dict[str, int], int, tuple[object, object] | None, VectorIndex | None]:
        async with KnowledgeStore(settings.store_dir) as store:
            return (
                await store.theme_counts(),
                await store.count_styles(),
                await store.date_range(),
                await store.vector_index(),
            )

    counts, style_count, dates, index = asyncio.run(run())
    table = Table(title="笔记库统计", title_justify="left")
    table.add_column("主题")
    table.add_column("笔记数", justify="right")
    for theme, count in counts.items():
        table.add_row(label("theme", theme), str(count))
    table.add_row("[bold]合计[/bold]", f"[bold]{sum(counts.values())}[/bold]")
    console.print(table)
    if dates:
        console.print(f"发布时间：{dates[0]} 至 {dates[1]}")
    console.print(f"风格库：{style_count} 个风格")
    if index is None:
        console.print(f"向量索引：无（精确检索；笔记达到 {VECTOR_INDEX_FROM} 条时导入会自动建立）")
    else:
        rows = f"已索引 {index.indexed_rows} 条，未索引 {index.unindexed_rows} 条"
        console.print(f"向量索引：{index.kind}，{rows}")


@notes_cli.command()
def reindex(data_dir: DataDirOption = None) -> None:
    """立即为笔记建立向量索引（导入达到 20,000 条时会自动建立，笔记数翻倍时自动重建）。"""
    console = _console()
    settings = fail_without(console, data_dir)

    async def run() -> tuple[VectorIndex, float] | None:
        async with KnowledgeStore(settings.store_dir) as store:
            count = await store.count_notes()
            if not count:
                return None
            started = time.perf_counter()
            with Steps(console).step(f"为 {count} 条笔记建立向量索引"):
                index = await store.build_vector_index()
            return index, time.perf_counter() - started

    try:
        built = asyncio.run(run())
    except KnowledgeError as exc:
        raise _fail(console, exc.message) from exc
    if built is None:
        raise _fail(console, "知识库里还没有笔记，无需建立向量索引（先运行 studio notes seed 或 import）")
    index, seconds = built
    console.print(f"已建立向量索引：{index.kind}，{index.indexed_rows} 条笔记（用时 {seconds:.1f} 秒）")


@notes_cli.command()
def seed(
    force: Annotated[bool, typer.Option("--force", help="即使库中已有数据也加载")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """把自带的示例笔记和风格加载到空的知识库。"""
    console = _console()
    settings = writable(data_dir)
    try:
        summary = asyncio.run(_seed(settings, force=force, data_dir=SAMPLE_DATA_DIR, steps=Steps(console)))
        console.print(summary)
    except ImportRowsError as exc:
        raise _fail(console, f"{exc.message}：{exc.rows[:5]}") from exc
    except KnowledgeError as exc:
        raise _fail(console, exc.message) from exc
