"""`studio creatives`: list, inspect, count and export the creatives — the analysts' API from a terminal.

Filters are the API's (`app.creatives.CreativeFilter`), checked the same way. Every command migrates the
database of an existing data dir first (and never creates one: they only read). Exit codes: 0 ok, 1 unknown
creative or no data dir, 2 bad options.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from app.cli.datadir import DataDirOption, fail_without
from app.labels import TABLES, agent_label, label, model_label

if TYPE_CHECKING:  # sqlalchemy, alembic and the API's models load when a command runs, not for --help
    from app.creatives import CreativeFilter, Sessions

T = TypeVar("T")
BARS = " ▁▂▃▄▅▆▇█"
DIMENSIONS = {key: text for key, text in TABLES["dimension"].items() if key != "overall"}

creatives_cli = typer.Typer(help="创作记录：查询、详情、统计、导出 CSV。", no_args_is_help=True)

StatusOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--status", "-s", help="状态，可重复或用逗号分隔：draft running paused completed failed aborted"
    ),
]
QOpt = Annotated[str | None, typer.Option("--q", "-q", help="关键词（须全部出现在标题、正文、标签或需求中）")]
TagOpt = Annotated[str | None, typer.Option("--tag", "-t", help="标签（精确匹配）")]
FromOpt = Annotated[str | None, typer.Option("--from", help="起始日期 YYYY-MM-DD（UTC，含当天）")]
ToOpt = Annotated[str | None, typer.Option("--to", help="截止日期 YYYY-MM-DD（UTC，含当天）")]
MinScoreOpt = Annotated[str | None, typer.Option("--min-score", help="最低综合评分（0~1）")]
SortOpt = Annotated[
    str | None, typer.Option("--sort", help="排序：-created（默认） created -score score title -title 等")
]
LimitOpt = Annotated[str | None, typer.Option("--limit", "-n", help="条数（1~200，默认 50）")]
OffsetOpt = Annotated[str | None, typer.Option("--offset", help="跳过的条数")]
JsonOpt = Annotated[bool, typer.Option("--json", help="输出 JSON")]


def _console() -> Console:
    return Console(highlight=False)


def _query(data_dir: Path | None, work: Callable[[Sessions], Awaitable[T]]) -> T:
    """Migrate the data dir's database, then run `work` on a session factory for it. The data dir must
    exist: these commands only read."""
    from app import migrate
    from tools.database import create_engine, session_factory

    settings = fail_without(_console(), data_dir)
    migrate.upgrade(settings.db_url)

    async def run() -> T:
        engine = create_engine(settings.db_url)
        try:
            return await work(session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(run())


def _filter(console: Console, status: list[str] | None, **values: str | None) -> CreativeFilter:
    names = {"date_from": "from", "date_to": "to", "min_score": "minScore"}
    pairs = [("status", s) for s in status or []]
    pairs += [(names.get(key, key), value) for key, value in values.items() if value is not None]
    from app.creatives import CreativeFilter
    from app.http.errors import ValidationFailed

    try:
        return CreativeFilter.from_query(pairs)
    except ValidationFailed as exc:
        console.print(f"[red]{escape(exc.message)}[/red]")
        for detail in exc.details if len(exc.details or []) > 1 else []:
            field, error = escape(str(detail.get("field"))), escape(str(detail.get("error")))
            console.print(f"  [red]{field}[/red]：{error}")
        raise typer.Exit(2) from exc


def _json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _time(value: str | None) -> str:
    return value[:16].replace("T", " ") if value else "—"


def _seconds(ms: int | None) -> str:
    if ms is None:
        return "—"
    return f"{ms / 1000:.1f} 秒" if ms < 60_000 else f"{ms / 60_000:.1f} 分钟"


def _score(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "—"


def _status(value: str) -> str:
    color = {"completed": "green", "failed": "red", "paused": "yellow", "running": "cyan"}.get(value, "dim")
    return f"[{color}]{label('status', value)}[/{color}]"


def _kind_line(c: dict[str, Any]) -> str:
    """What kind of post it is, in words: content type, theme, layout preference (those that are known)."""
    brief, options, layout = c.get("brief") or {}, c.get("options") or {}, c.get("layoutSpec") or {}
    parts = [
        ("类型", label("contentType", brief.get("contentType"))),
        ("题材", label("theme", brief.get("theme"))),
        ("版式", label("layout", options.get("layoutPreference") or layout.get("preference"))),
    ]
    return "    ".join(f"{name}：{escape(value)}" for name, value in parts if value)


@creatives_cli.command("list")
def list_command(
    status: StatusOpt = None,
    q: QOpt = None,
    tag: TagOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    min_score: MinScoreOpt = None,
    sort: SortOpt = None,
    limit: LimitOpt = None,
    offset: OffsetOpt = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOption = None,
) -> None:
    """列出符合条件的创作记录（默认最新的在前）。"""
    from app import creatives

    console = _console()
    f = _filter(console, status, q=q, tag=tag, date_from=date_from, date_to=date_to, min_score=min_score,
                sort=sort, limit=limit, offset=offset)
    items, total = _query(data_dir, lambda sessions: creatives.list_creatives(sessions, f))
    if as_json:
        _json({"items": items, "total": total, "limit": f.limit, "offset": f.offset})
        return
    if not items:
        console.print("没有符合条件的创作记录" if total == 0 else f"共 {total} 条，本页为空（offset 过大）")
        return
    table = Table(title="创作记录", title_justify="left")
    columns = (("编号", "right"), ("状态", "left"), ("标题", "left"), ("标签", "left"), ("评分", "right"),
               ("图片", "right"), ("创建时间 (UTC)", "left"), ("用时", "right"))
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for item in items:
        title = escape(item["title"]) if item["title"] else f"[dim]{escape(item['request'][:40])}[/dim]"
        table.add_row(str(item["id"]), _status(item["status"]), title, escape("、".join(item["tags"])),
                      _score(item["score"]), str(item["imageCount"]), _time(item["createdAt"]),
                      _seconds(item["durationMs"]))
    console.print(table)
    console.print(f"共 {total} 条，显示第 {f.offset + 1}–{f.offset + len(items)} 条")


@creatives_cli.command("show")
def show_command(
    creative_id: Annotated[int, typer.Argument(metavar="编号", help="作品编号（见 studio creatives list）")],
    as_json: JsonOpt = False,
    data_dir: DataDirOption = None,
) -> None:
    """查看一条创作的全部信息：内容、审核轮次、各智能体用时、用量、图片。"""
    from app import creatives

    console = _console()
    c = _query(data_dir, lambda sessions: creatives.get_creative(sessions, creative_id))
    if c is None:
        console.print(f"[red]找不到创作 #{creative_id}[/red]")
        raise typer.Exit(1)
    if as_json:
        _json(c)
        return
    usage = c["usage"]
    cost = "未知" if usage["costUsd"] is None else f"${usage['costUsd']:.4f}"
    facts = [
        f"状态：{_status(c['status'])}    综合评分：{_score(c['score'])}"
        f"    模型：{escape(model_label(c['model']) or '—')}",
        f"创建：{_time(c['createdAt'])}    完成：{_time(c['completedAt'])}"
        f"    用时：{_seconds(c['durationMs'])}",
        f"词元：{usage['promptTokens']} + {usage['completionTokens']} = {usage['totalTokens']}"
        f"    费用：{cost}",
        f"需求：{escape(c['request'])}",
        f"标签：{escape('、'.join(c['tags'])) or '—'}",
    ]
    kind = _kind_line(c)
    if kind:
        facts.insert(3, kind)
    if c["error"]:
        facts.append(f"[red]错误：{escape(str(c['error'].get('message') or c['error']))}[/red]")
    console.print(Panel("\n".join(facts), title=f"#{c['id']} {escape(c['title'] or '（无标题）')}",
                        title_align="left"))
    if c["body"]:
        console.print(Panel(escape(c["body"]), title="正文", title_align="left"))
    if c["reviewRounds"]:
        table = Table(title="审核轮次", title_justify="left")
        for name in ("轮次", "综合", *DIMENSIONS.values(), "通过"):
            table.add_column(name, justify="right")
        for r in c["reviewRounds"]:
            scores = r.get("scores") or {}
            mark = " ★" if r.get("round") == c["chosenRound"] else ""
            table.add_row(f"{r.get('round', '?')}{mark}", _score(r.get("overall")),
                          *(_score(scores.get(key)) for key in DIMENSIONS), "✓" if r.get("passed") else "✗")
        console.print(table)
    if c["timings"]:
        table = Table(title="各智能体用时", title_justify="left")
        for name, justify in (("智能体", "left"), ("次数", "right"), ("总用时", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for agent, row in c["timings"].items():
            runs, total = str(row.get("runs", 0)), _seconds(int(row.get("totalMs", 0)))
            table.add_row(escape(agent_label(agent)), runs, total)
        console.print(table)
    if c["assets"]:
        table = Table(title="图片", title_justify="left")
        for name in ("编号", "序号", "类型", "状态", "尺寸", "地址"):
            table.add_column(name, overflow="fold")
        for a in c["assets"]:
            status = "完成" if a["status"] == "complete" else f"[red]失败：{escape(a['error'] or '')}[/red]"
            table.add_row(str(a["id"]), str(a["taskIndex"] or "—"), label("role", a["role"]), status,
                          f"{a['width']}×{a['height']}", a["url"] or "—")
        console.print(table)


@creatives_cli.command("stats")
def stats_command(
    status: StatusOpt = None,
    q: QOpt = None,
    tag: TagOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    min_score: MinScoreOpt = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOption = None,
) -> None:
    """统计：各状态数量、各维度平均分与分布、热门标签、每日数量、平均用时。"""
    from app import creatives

    console = _console()
    f = _filter(console, status, q=q, tag=tag, date_from=date_from, date_to=date_to, min_score=min_score)
    s = _query(data_dir, lambda sessions: creatives.creative_stats(sessions, f))
    if as_json:
        _json(s)
        return
    mean, median = _seconds(s["meanRunTimeMs"]), _seconds(s["medianRunTimeMs"])
    console.print(f"共 [bold]{s['total']}[/bold] 条创作，其中 {s['scoredCount']} 条有评分；"
                  f"平均用时（已完成）：{mean}，中位数 {median}")
    table = Table(title="按状态", title_justify="left")
    table.add_column("状态")
    table.add_column("数量", justify="right")
    for key, count in s["byStatus"].items():
        table.add_row(_status(key), str(count))
    console.print(table)
    table = Table(title="评分（平均与分布 0→1）", title_justify="left")
    for name, justify in (("维度", "left"), ("平均", "right"), ("分布", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for key, name in (*DIMENSIONS.items(), ("overall", "综合")):
        counts = s["scoreDistribution"]["counts"][key]
        peak = max(counts) or 1
        bars = "".join(BARS[round(n / peak * (len(BARS) - 1))] for n in counts)
        table.add_row(name, _score(s["scoreAverages"][key]), f"{bars}  {sum(counts)}")
    console.print(table)
    if s["topTags"]:
        console.print("热门标签：" + escape("、".join(f"{t['tag']}({t['count']})" for t in s["topTags"])))
    if s["perDay"]:
        table = Table(title="每日数量", title_justify="left")
        for name, justify in (("日期 (UTC)", "left"), ("新建", "right"), ("已完成", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for day in s["perDay"]:
            table.add_row(day["date"], str(day["count"]), str(day["completed"]))
        console.print(table)


@creatives_cli.command("export")
def export_command(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="写入文件（默认输出到终端）")] = None,
    status: StatusOpt = None,
    q: QOpt = None,
    tag: TagOpt = None,
    date_from: FromOpt = None,
    date_to: ToOpt = None,
    min_score: MinScoreOpt = None,
    sort: SortOpt = None,
    limit: LimitOpt = None,
    offset: OffsetOpt = None,
    bom: Annotated[
        bool | None, typer.Option("--bom/--no-bom", help="UTF-8 BOM（Excel 需要；默认：写文件时加）")
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """把符合条件的创作导出为 CSV（未指定 --limit 时导出全部）。"""
    from app import creatives

    console = _console()
    f = _filter(console, status, q=q, tag=tag, date_from=date_from, date_to=date_to, min_score=min_score,
                sort=sort, limit=limit, offset=offset)
    rows = _query(data_dir, lambda sessions: creatives.export_rows(sessions, f))
    text = creatives.to_csv(rows, bom=output is not None if bom is None else bom)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(text.encode("utf-8"))
    console.print(f"已导出 [bold]{len(rows) - 1}[/bold] 条创作到 {escape(str(output))}")
