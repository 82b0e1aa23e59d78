"""`studio run`, `studio resume` and `studio threads`: drive the workflow from a terminal.

A run streams its events into a live display (rich; on a terminal it also shows the draft growing as the
writer streams it) or, with `--json`, as NDJSON on stdout (one stored event per line — the ephemeral
`content_delta`s are left out —, then one `{"type": "result", ...}` line). At each `ask_user` the CLI
decides — `--auto-approve`, the `resume` flags, or an interactive prompt — and resumes in the same process.
A pause left unanswered stays in the on-disk checkpointer and continues later, from any process, with
`studio resume <threadId>`.

Exit codes: 0 finished or left paused, 1 the run failed (an `error` event), 2 bad input, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import click
import typer
from pydantic import ValidationError
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from agents.artifacts import IMAGE_DIMENSIONS
from agents.errors import InvalidConfirmation, NotPaused, RunError, ThreadNotFound
from app.cli.datadir import DataDirOption, existing, writable
from app.cli.progress import Steps
from app.labels import TABLES, agent_label, key_of, label
from app.settings import Settings
from tools.errors import ImageInputError, StudioError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from agents.run import Resources, RunHandle, WorkflowRunner

OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130
Event = dict[str, Any]

AutoApproveOption = Annotated[
    bool, typer.Option("--auto-approve", help="每个确认点自动通过；澄清问题选第一个选项")
]
JsonOption = Annotated[bool, typer.Option("--json", help="不显示进度界面，每行输出一个 JSON 事件（NDJSON）")]
VerboseOption = Annotated[
    bool, typer.Option("--verbose", "-v", help="显示调试信息：置信度、相似度、工具参数、错误代码")
]


class RefType(StrEnum):
    style = "style"
    layout = "layout"
    content = "content"


class Layout(StrEnum):
    dense = "dense"
    balanced = "balanced"
    visual_first = "visual-first"


DIMENSIONS = {key: text for key, text in TABLES["dimension"].items() if key != "overall"}
READY = {"brief_ready": "创作简报", "layout_spec_ready": "版式规划", "alignment_map_ready": "图文对齐"}
STATUS_LABELS = TABLES["status"]
CHOICES = {"1": "approve", "a": "approve", "approve": "approve", "继续": "approve",
           "2": "reject", "r": "reject", "reject": "reject", "重新生成": "reject",
           "3": "modify", "m": "modify", "modify": "modify", "修改": "modify"}
FORM_MARK = re.compile(r"^===\s*(标题|正文|标签)[^\n]*$", re.MULTILINE)
DRAFT_LINES = 6  # body lines of the streaming draft in the live area
DRAFT_LINE_CHARS = 160  # …each cut to its last characters


def _label(agent: str | None) -> str:
    return agent_label(agent)


def _one_line(text: str, limit: int = 80) -> str:
    """The first line of `text`, cut at `limit` characters (timeline entries stay one line each)."""
    first = text.strip().split("\n", 1)[0].strip()
    return first[:limit] + "…" if len(first) > limit or "\n" in text.strip() else first


def _is_clarification(pending: Event) -> bool:
    return bool((pending.get("context") or {}).get("__clarification"))


# --- decisions ---------------------------------------------------------------------------------------------


def answer_from_text(text: str, options: list[Event]) -> Event:
    """A clarification answer: an option's number, id or label selects it; anything else is free text."""
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(options):
        return {"userResponse": {"selectedIds": [options[int(text) - 1]["id"]]}}
    for option in options:
        if text in (option["id"], option["label"]):
            return {"userResponse": {"selectedIds": [option["id"]]}}
    return {"userResponse": {"selectedIds": [], "customInput": text}}


def auto_decision(pending: Event) -> Event:
    if _is_clarification(pending):
        options = pending.get("options") or []
        return answer_from_text("1", options) if options else {"userResponse": {"customInput": ""}}
    return {"action": "approve"}


def content_form(draft: Event) -> str:
    tags = " ".join(f"#{tag}" for tag in draft.get("tags") or [])
    return (
        "修改下面三段后保存并关闭编辑器（“===”开头的分隔行请保留，这一行说明会被忽略）。\n\n"
        f"=== 标题 ===\n{draft.get('title') or ''}\n\n"
        f"=== 正文 ===\n{draft.get('body') or ''}\n\n"
        f"=== 标签（空格分隔）===\n{tags}\n"
    )


def parse_content_form(text: str) -> Event:
    """The fields of a `content_form` the editor kept: {title?, body?, tags?}."""
    marks = list(FORM_MARK.finditer(text))
    sections = {
        mark.group(1): text[mark.end(): following.start() if following else len(text)].strip()
        for mark, following in zip(marks, [*marks[1:], None], strict=True)
    }
    edited: Event = {}
    if "标题" in sections:
        edited["title"] = " ".join(sections["标题"].split())
    if "正文" in sections:
        edited["body"] = sections["正文"]
    if "标签" in sections:
        edited["tags"] = [t.lstrip("#") for t in re.split(r"[\s,，、]+", sections["标签"]) if t.lstrip("#")]
    return edited


# --- output ------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """How a stream segment ended."""

    pending: Event | None = None
    complete: Event | None = None
    error: Event | None = None


class View(Protocol):
    interactive: bool
    streams_draft: bool  # wants the ephemeral `content_delta` events

    def segment(self, loop: asyncio.Runner, events: AsyncIterator[Event]) -> Outcome: ...
    def decide(self, pending: Event) -> Event | None: ...
    def paused(self, pending: Event, hint: str) -> None: ...
    def complete(self, event: Event, images: list[Event]) -> None: ...
    def failed(self, event: Event) -> None: ...
    def invalid(self, code: str, message: str) -> None: ...


async def _consume(events: AsyncIterator[Event], show: Any) -> Outcome:
    outcome = Outcome()
    async for event in events:
        show(event)
        kind = event["type"]
        if kind == "ask_user":
            outcome.pending = event
        elif kind == "workflow_complete":
            outcome.complete = event
        elif kind == "error":
            outcome.error = event
    return outcome


class JsonView:
    """NDJSON on stdout: every event, then one `result` line. Never prompts."""

    interactive = False
    streams_draft = False

    def __init__(self) -> None:
        self.err = Console(stderr=True, highlight=False)

    @staticmethod
    def line(obj: Event) -> None:
        typer.echo(json.dumps(obj, ensure_ascii=False))

    def segment(self, loop: asyncio.Runner, events: AsyncIterator[Event]) -> Outcome:
        return loop.run(_consume(events, self.line))

    def decide(self, pending: Event) -> Event | None:
        return None

    def paused(self, pending: Event, hint: str) -> None:
        self.line({"type": "result", "status": "paused", "threadId": pending.get("threadId"),
                   "pending": pending, "resume": hint})

    def complete(self, event: Event, images: list[Event]) -> None:
        scores = event.get("qualityScores") or {}
        self.line({"type": "result", "status": "completed", "threadId": event.get("threadId"),
                   "creativeId": event.get("creativeId"), "title": event["title"], "body": event["body"],
                   "tags": event["tags"], "score": scores.get("overall"), "qualityScores": scores,
                   "images": images})

    def failed(self, event: Event) -> None:
        self.err.print(f"[red]运行失败：{escape(event.get('message') or '')}[/red]")
        self.line({"type": "result", "status": "failed", "threadId": event.get("threadId"),
                   "error": {k: event.get(k) for k in ("code", "message", "agent", "retryable")}})

    def invalid(self, code: str, message: str) -> None:
        self.err.print(f"[red]{escape(message)}[/red]")
        self.line({"type": "result", "status": "invalid", "error": {"code": code, "message": message}})


class LiveView:
    """The human display: a timeline printed line by line above a live area (overall and per-image progress
    bars, the current step); tables for scores, paused output and the result; prompts at each pause."""

    interactive = True

    def __init__(
        self, thresholds: dict[str, float] | None = None, *, verbose: bool = False, auto_approve: bool = False
    ) -> None:
        self.verbose = verbose  # debug numbers (confidences, `detail` of messages, tool arguments) only then
        self.auto_approve = auto_approve  # pauses are answered at once: never say we wait for the user
        self.image_only = False  # an image-only package is judged on the image dimensions only
        self.console = Console(highlight=False)
        self.err = Console(stderr=True, highlight=False)
        self.thresholds = thresholds or {}
        self.progress = Progress(
            SpinnerColumn(finished_text="[green]✓[/green]"), TextColumn("{task.description}"),
            BarColumn(bar_width=32), TaskProgressColumn(), TimeElapsedColumn(), console=self.console,
        )
        self.overall = self.progress.add_task("[bold]总进度[/bold] 准备中", total=100)
        self.images: dict[int, TaskID] = {}
        self.status = "启动中…"
        self.draft: tuple[str, str] | None = None  # the title and body while the writer streams them
        self.draft_attempt = 1
        # a growing draft only means something on a live screen (rich draws nothing in between elsewhere)
        self.streams_draft = self.console.is_terminal

    def __rich__(self) -> RenderableType:
        parts: list[RenderableType] = [self.progress, Text(f"  {self.status}", style="cyan")]
        if self.draft is not None:
            parts.append(self.draft_preview())
        return Group(*parts)

    def draft_preview(self, lines: int = DRAFT_LINES) -> Panel:
        """The streaming draft: its title and its body's last `lines` lines (the live area stays small)."""
        title, body = self.draft or ("", "")
        rows = body.rstrip().split("\n")
        tail = [row[-DRAFT_LINE_CHARS:] for row in rows[-lines:]]
        text = Text(title or "…", style="bold")
        text.append("\n\n" + ("…\n" if len(rows) > lines else "") + "\n".join(tail) + "▍")
        heading = f"重新生成中（第 {self.draft_attempt} 次）" if self.draft_attempt > 1 else "正在撰写文案"
        return Panel(text, title=heading, title_align="left", border_style="dim")

    def stream_draft(self, e: Event) -> None:
        """Apply a `content_delta`: a reset starts the text over, anything else is appended."""
        title, body = ("", "") if e.get("reset") or self.draft is None else self.draft
        self.draft = (title + (e.get("titleDelta") or ""), body + (e.get("bodyDelta") or ""))
        self.draft_attempt = int(e.get("attempt") or 1)

    def segment(self, loop: asyncio.Runner, events: AsyncIterator[Event]) -> Outcome:
        try:
            with Live(self, console=self.console, refresh_per_second=8, transient=False):
                try:
                    return loop.run(_consume(events, self.show))
                finally:
                    self.draft = None  # a draft cut off mid-stream does not stay on screen
        finally:
            if not self.console.is_terminal:  # rich leaves a file's last frame without a line end
                self.console.line()

    # --- events --------------------------------------------------------------------------------------------
    def line(self, event: Event, mark: str, text: str, note: str = "") -> None:
        clock = datetime.fromtimestamp(event.get("timestamp", 0) / 1000).strftime("%H:%M:%S")
        extra = f" [dim]{escape(_one_line(note))}[/dim]" if note else ""
        self.console.print(f"[dim]{clock}[/dim] {mark} {escape(_one_line(text))}{extra}",
                           no_wrap=True, overflow="ellipsis")

    def show(self, e: Event) -> None:
        """One event as a line (or a status, a bar, a draft): the handler named after its type, if any."""
        handler = getattr(self, f"_on_{e['type']}", None)
        if handler is not None:
            handler(e)

    def _on_agent_start(self, e: Event) -> None:
        agent = e.get("agent")
        if agent == "supervisor":
            return
        from agents.node import AGENTS  # langgraph: imported by the first event, not by `studio --help`

        self.status = f"当前：{_label(agent)}（{AGENTS[agent].phase if agent in AGENTS else '处理中'}）"
        self.line(e, "[bold blue]▶[/bold blue]", e["content"])

    def _on_agent_end(self, e: Event) -> None:
        ok = e["content"].endswith("完成")
        self.line(e, "[green]✓[/green]" if ok else "[yellow]![/yellow]", e["content"],
                  f"{e['durationMs'] / 1000:.1f}s")

    def _on_supervisor_decision(self, e: Event) -> None:
        target = agent_label(e["decision"])
        source = label("source", e["source"])
        self.line(e, "[magenta]→[/magenta]", f"调度：{target}", f"[{source}] {e['reason']}")

    def _on_tool_call(self, e: Event) -> None:
        arguments = json.dumps(e.get("toolInput") or {}, ensure_ascii=False) if self.verbose else ""
        self.line(e, "  [dim]⚙[/dim]", label("tool", e["tool"]), arguments)

    def _on_tool_result(self, e: Event) -> None:
        if isinstance(e.get("toolOutput"), dict) and "error" in e["toolOutput"]:
            self.line(e, "  [yellow]⚙[/yellow]", f"{label('tool', e['tool'])} 调用失败")

    def _on_intent_detected(self, e: Event) -> None:
        self.image_only = e["intent"] == "image_only"
        source = label("source", e.get("source"))
        confidence = f"（置信度 {e['confidence']:.0%}，{source}）" if self.verbose else ""
        theme = label("theme", e.get("suggestedCategory"))
        about = "、".join(e.get("keywords") or [])
        self.line(e, "[cyan]◆[/cyan]", f"识别意图：{label('intent', e['intent'])}{confidence}",
                  f"题材：{theme} · {about}" if theme and about else theme or about)

    def _on_content_type_detected(self, e: Event) -> None:
        confidence = f"（置信度 {e['confidence']:.0%}）" if self.verbose else ""
        self.line(e, "[cyan]◆[/cyan]", f"内容类型：{label('contentType', e['contentType'])}{confidence}",
                  e.get("reasoning") or "")

    def _on_brief_ready(self, e: Event) -> None:
        self.line(e, "[cyan]◆[/cyan]", f"{READY[e['type']]}已就绪")

    _on_layout_spec_ready = _on_alignment_map_ready = _on_brief_ready

    def _on_content_delta(self, e: Event) -> None:
        self.stream_draft(e)

    def _on_content_update(self, e: Event) -> None:
        self.draft = None
        self.line(e, "[cyan]✎[/cyan]", f"文案：{e['title']}")

    def _on_message(self, e: Event) -> None:
        agent = e.get("agent")
        self.status = f"{_label(agent)}：{e['content']}"
        if e["type"] == "message" and e["content"]:
            self.line(e, "[dim]·[/dim]", f"{_label(agent)}：{e['content']}")
        if self.verbose and e.get("detail"):
            self.line(e, "  [dim]…[/dim]", f"详情：{e['detail']}")

    _on_progress = _on_message

    def _on_workflow_progress(self, e: Event) -> None:
        self.progress.update(self.overall, completed=e["progress"] * 100,
                             description=f"[bold]总进度[/bold] {e['phase']}")

    def _on_image_progress(self, e: Event) -> None:
        self.image(e)

    def _on_quality_score(self, e: Event) -> None:
        self.scores(e)

    def _on_ask_user(self, e: Event) -> None:
        if self.auto_approve:
            answer = "自动选择第一个选项" if _is_clarification(e) else "自动通过"
            self.status = f"{answer}，继续…"
            self.line(e, "[green]⏵[/green]", f"{answer}：{e['question']}")
        else:
            self.status = "等待你的确认"
            self.line(e, "[yellow]⏸[/yellow]", e["question"])

    def _on_workflow_complete(self, e: Event) -> None:
        self.progress.update(self.overall, completed=100, description="[bold]总进度[/bold] 完成")
        self.status = "已完成"

    def _on_error(self, e: Event) -> None:
        self.status = "出错了"
        self.line(e, "[red]✗[/red]", e["message"], f"错误代码 {e.get('code')}" if self.verbose else "")

    def image(self, e: Event) -> None:
        number, status = e["taskId"], e["status"]
        description = f"  图片 {number}：{label('imageStatus', status)}"
        if number not in self.images:
            self.images[number] = self.progress.add_task(description, total=100)
        self.progress.update(self.images[number], completed=e["progress"] * 100, description=description)
        if status == "complete":
            self.line(e, "[green]▣[/green]", f"图片 {number} 已生成", f"素材 #{e.get('assetId')}")
        elif status == "failed":
            self.line(e, "[red]▣[/red]", f"图片 {number} 生成失败", e.get("errorMessage") or "")

    def scores(self, e: Event) -> None:
        verdict = "[green]通过[/green]" if e["passed"] else "[yellow]未通过[/yellow]"
        title = f"质量审核 第{e['round']}轮：综合 {e['overall']:.2f} {verdict}"
        table = Table(title=title, title_justify="left")
        for name, justify in (("维度", "left"), ("得分", "right"), ("阈值", "right"), ("", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        shown = [k for k in DIMENSIONS if k in IMAGE_DIMENSIONS] if self.image_only else list(DIMENSIONS)
        for key, name in ((k, DIMENSIONS[k]) for k in shown):
            score, bar = float(e["scores"].get(key, 0.0)), "█" * round(float(e["scores"].get(key, 0.0)) * 10)
            low = score < self.thresholds.get(key, 0.0)
            limit = self.thresholds.get(key)
            table.add_row(name, f"{score:.2f}", f"{limit:.2f}" if limit is not None else "-",
                          f"[{'yellow' if low else 'green'}]{bar}[/]")
        self.console.print(table)
        for reason in e.get("failReasons") or []:
            self.console.print(f"  [yellow]·[/yellow] {escape(reason)}")

    # --- pauses --------------------------------------------------------------------------------------------
    def show_pending(self, pending: Event) -> None:
        context = pending.get("context") or {}
        data = context.get("data") or {}
        if _is_clarification(pending):
            self.console.print(f"\n[bold yellow]？ {escape(pending['question'])}[/bold yellow]")
            for number, option in enumerate(pending.get("options") or [], start=1):
                about = option.get("description")
                description = f" [dim]— {escape(about)}[/dim]" if about else ""
                self.console.print(f"  [bold]{number}[/bold]. {escape(option['label'])}{description}")
        elif context.get("kind") == "image_plans":
            table = Table(title=escape(pending["question"]), title_justify="left", show_lines=False)
            for name in ("#", "类型", "画面主体", "风格", "提示词"):
                table.add_column(name, overflow="fold")
            for plan in data.get("plans") or []:
                # the planner's own prompt; the style-enhanced one (often English style wording) only verbose
                key = "prompt" if self.verbose else "basePrompt"
                prompt = str(plan.get(key) or plan.get("prompt") or plan.get("basePrompt") or "")
                short = prompt if self.verbose else prompt[:60] + ("…" if len(prompt) > 60 else "")
                role = label("role", plan.get("role"))
                table.add_row(str(plan.get("index")), role, escape(str(plan.get("subject"))),
                              escape(str(plan.get("style") or "-")), escape(short))
            self.console.print(table)
        else:
            tags = " ".join(f"#{t}" for t in data.get("tags") or [])
            body = (f"[bold]{escape(data.get('title') or '')}[/bold]\n\n{escape(data.get('body') or '')}"
                    f"\n\n[cyan]{escape(tags)}[/cyan]")
            self.console.print(Panel(body, title=escape(pending["question"]), title_align="left"))

    def decide(self, pending: Event) -> Event | None:
        """Ask the user; None when they abort (Ctrl-C) or stdin is closed."""
        self.show_pending(pending)
        try:
            if _is_clarification(pending):
                text = ""
                while not text.strip():
                    text = typer.prompt("输入编号选择，或直接写下你的主题和读者")
                return answer_from_text(text, pending.get("options") or [])
            return self._checkpoint(pending)
        except (click.exceptions.Abort, typer.Abort):  # typer ≥0.22 vendors its own click
            return None

    def _checkpoint(self, pending: Event) -> Event:
        context = pending.get("context") or {}
        while True:
            choice = typer.prompt("请选择 1 继续 / 2 重新生成 / 3 修改后继续", default="1")
            action = CHOICES.get(str(choice).strip().lower())
            if action == "approve":
                return {"action": "approve"}
            if action == "reject":
                feedback = ""
                while not feedback.strip():
                    feedback = typer.prompt("修改意见（告诉智能体要改什么）")
                return {"action": "reject", "userFeedback": feedback.strip()}
            if action == "modify":
                edited = self._edit(context.get("kind"), context.get("data") or {})
                if edited is not None:
                    return {"action": "modify", "modifiedData": edited}
                continue
            self.console.print("[yellow]请输入 1、2 或 3[/yellow]")

    def _edit(self, kind: str | None, data: Event) -> Event | None:
        try:
            if kind == "image_plans":
                self.console.print("在编辑器中修改图片规划（可改内容、调整顺序、删除条目），保存后关闭")
                original = {"plans": data.get("plans") or []}
                text = click.edit(json.dumps(original, ensure_ascii=False, indent=2), extension=".json")
                if text is None:
                    self.console.print("[yellow]没有保存修改[/yellow]")
                    return None
                parsed = json.loads(text)
                edited: Event = {"plans": parsed} if isinstance(parsed, list) else parsed
                changed = edited != original
            else:
                text = click.edit(content_form(data), extension=".txt")
                if text is None:
                    self.console.print("[yellow]没有保存修改[/yellow]")
                    return None
                edited = {k: v for k, v in parse_content_form(text).items() if v != data.get(k)}
                changed = bool(edited)
        except json.JSONDecodeError as exc:
            self.console.print(f"[red]JSON 格式错误：{escape(str(exc))}[/red]")
            return None
        except click.ClickException as exc:
            self.console.print(f"[red]无法打开编辑器（{escape(exc.message)}），请设置 $EDITOR[/red]")
            return None
        if not changed:
            self.console.print("[yellow]内容没有变化[/yellow]")
            return None
        return edited

    def paused(self, pending: Event, hint: str) -> None:
        self.console.print(f"\n[yellow]运行已暂停，等待确认。稍后继续：[/yellow][bold]{escape(hint)}[/bold]")

    # --- endings -------------------------------------------------------------------------------------------
    def complete(self, event: Event, images: list[Event]) -> None:
        scores = event.get("qualityScores") or {}
        overall = scores.get("overall")
        passed = "通过" if scores.get("passed") else "未全部达标"
        verdict = "-" if overall is None else f"{overall:.2f}（{passed}）"
        tags = " ".join(f"#{t}" for t in event["tags"])
        lines = [
            f"[bold]{escape(event['title'])}[/bold]", "",
            *([escape(event["body"]), ""] if event["body"].strip() else []),  # image-only runs have no text
            *([f"[cyan]{escape(tags)}[/cyan]", ""] if tags else []),
            f"质量评分：{verdict}",
            f"作品编号：{event.get('creativeId')}    会话：{event.get('threadId')}",
        ]
        self.console.print(Panel("\n".join(lines), title="[green]✓ 创作完成[/green]", title_align="left"))
        if images:
            self.console.print("图片文件：")
        for number, image in enumerate(images, start=1):  # unwrapped, so a path can be copied
            where = image["path"] or f"素材 #{image['assetId']}（文件缺失）"
            self.console.print(f"  {number}. {escape(where)}", soft_wrap=True)

    def failed(self, event: Event) -> None:
        retry = "，可以稍后重试" if event.get("retryable") else ""
        self.err.print(f"[red]✗ 运行失败：{escape(event.get('message') or '')}{retry}[/red]")

    def invalid(self, code: str, message: str) -> None:
        self.err.print(f"[red]{escape(message)}[/red]")


# --- one invocation ----------------------------------------------------------------------------------------


async def warm(*loads: Callable[[], object]) -> None:
    """Run the loads in threads, at once."""
    await asyncio.gather(*(asyncio.to_thread(load) for load in loads))


class Studio:
    """One CLI invocation: an event loop kept across prompts (`asyncio.Runner`, so Ctrl-C at a prompt is a
    plain KeyboardInterrupt), the opened resources and a runner."""

    def __init__(self, settings: Settings, view: View, *, auto_approve: bool, hint_suffix: str = "") -> None:
        self.settings, self.view = settings, view
        self.auto_approve, self.hint_suffix = auto_approve, hint_suffix
        self.loop = asyncio.Runner()
        self.stack = AsyncExitStack()

    def open(self, *, seed: bool, steps: Steps | None = None) -> None:
        from agents.run import WorkflowRunner
        from app import migrate
        from app.resources import load_text_tools, open_resources
        from app.setup import prepare_data

        if seed:
            self.loop.run(prepare_data(self.settings, log=lambda _message: None, steps=steps))
        else:
            self.loop.run(migrate.upgrade_async(self.settings.db_url))
        opened = self.stack.enter_async_context(open_resources(self.settings))
        self.resources: Resources = self.loop.run(opened)
        self.runner: WorkflowRunner = WorkflowRunner(self.resources)
        # What a run needs first (litellm's import, jieba, the encoder: seconds of CPU) loads now, in threads:
        # the loop never stalls mid-run, so the run's lease is renewed on time and a server on the same data
        # dir leaves the run alone.
        self.loop.run(warm(self.resources.llm.litellm, load_text_tools))
        self.loop.run(self.runner.keeper.start())
        self.stack.push_async_callback(self.runner.keeper.close)
        if isinstance(self.view, LiveView):
            self.view.thresholds = dict(self.resources.options.thresholds)

    def __enter__(self) -> Studio:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        try:
            self.loop.run(self.stack.aclose())
        finally:
            self.loop.close()

    def hint(self, thread_id: str) -> str:
        return f"studio resume {thread_id}{self.hint_suffix}"

    def drive(self, handle: RunHandle) -> int:
        """Stream, answer pauses and resume until the run ends or is left paused; the exit code."""
        from agents.run import HANDED_ON

        while True:
            events = self.runner.stream(handle, ephemeral=self.view.streams_draft)
            try:
                outcome = self.view.segment(self.loop, events)
            except asyncio.CancelledError as exc:
                if HANDED_ON not in exc.args:
                    raise
                self.view.failed({  # this process stalled past its lease; a server continues the run
                    "message": "这个运行已交给服务进程继续，可在工作台或用 studio api 查看"
                    f"（/api/agent/threads/{handle.thread_id}/events）",
                    "threadId": handle.thread_id,
                })
                return FAILED
            if outcome.error is not None:
                self.view.failed(outcome.error)
                return FAILED
            if outcome.complete is not None:
                self.view.complete(outcome.complete, self.loop.run(self.images(outcome.complete)))
                return OK
            if outcome.pending is None:
                self.view.failed({"message": "工作流意外结束，没有结果", "threadId": handle.thread_id})
                return FAILED
            next_handle = self.answer(outcome.pending)
            if next_handle is None:
                return OK
            handle = next_handle

    def answer(self, pending: Event, payload: Event | None = None) -> RunHandle | None:
        """Resume `pending` with `payload`, or with the view's decision; None leaves the run paused."""
        thread_id = str(pending["threadId"])
        while True:
            if payload is None:
                payload = auto_decision(pending) if self.auto_approve else self.view.decide(pending)
            if payload is None:
                self.view.paused(pending, self.hint(thread_id))
                return None
            try:
                handle = self.loop.run(self.runner.prepare_resume(
                    thread_id, {**payload, "interruptId": pending.get("interruptId")}))
                self.loop.run(self._audit(handle, payload, pending))
                return handle
            except InvalidConfirmation as exc:
                if not self.view.interactive or self.auto_approve:
                    raise
                self.view.invalid(exc.code, f"修改不合法：{exc.message}，请重新选择")
                payload = None

    async def _audit(self, handle: RunHandle, payload: Event, pending: Event) -> None:
        """Record the decision as the local admin (`cli:<os user>`), as the server records a confirm."""
        from app.audit import confirm_details
        from app.cli.users import local_actor
        from tools.accounts import Accounts

        action, details = confirm_details(payload, pending)
        await Accounts(self.resources.sessions).audit(
            local_actor(), action, thread_id=handle.thread_id, creative_id=handle.creative_id, details=details
        )

    async def images(self, event: Event) -> list[Event]:
        found = []
        for asset_id in event.get("imageAssetIds") or []:
            located = await self.resources.assets.open_path(asset_id)
            found.append({"assetId": asset_id, "path": str(located[0]) if located else None,
                          "mime": located[1] if located else None})
        return found


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"参数不合法：{where + '：' if where else ''}{first['msg']}"


def _guard(view: View, body: Any) -> None:
    """Run `body() -> exit code`; map bad input to 2, other studio errors to 1, Ctrl-C to 130."""
    try:
        code = body()
    except ValidationError as exc:
        view.invalid("VALIDATION_ERROR", _validation_message(exc))
        code = BAD_INPUT
    except (RunError, ImageInputError) as exc:
        view.invalid(exc.code, exc.message)
        code = BAD_INPUT
    except StudioError as exc:
        view.invalid(exc.code, exc.message)
        code = FAILED
    except OSError as exc:
        view.invalid("IO_ERROR", f"无法读取文件：{exc}")
        code = BAD_INPUT
    except KeyboardInterrupt:
        view.invalid("INTERRUPTED", "已中断，本次运行已中止")
        code = INTERRUPTED
    raise typer.Exit(code)


# --- commands ----------------------------------------------------------------------------------------------


def register_run_commands(cli: typer.Typer) -> None:
    """Mount `run`, `resume` and `threads` on the `studio` app."""
    cli.command("run")(run)
    cli.command("resume")(resume)
    cli.command("threads")(threads)


def run(
    request: Annotated[
        str, typer.Argument(metavar="需求", help="一句话需求，例如：帮我写一篇周末城市露营的小红书笔记")
    ],
    ref: Annotated[list[Path] | None, typer.Option("--ref", exists=True, dir_okay=False,
                                                   help="参考图片文件（可重复）")] = None,
    ref_type: Annotated[RefType, typer.Option("--ref-type", help="参考图用途")] = RefType.style,
    images: Annotated[int, typer.Option("--images", help="图片数量（1-9）")] = 4,
    layout: Annotated[Layout, typer.Option("--layout", help="版式偏好")] = Layout.balanced,
    auto_approve: AutoApproveOption = False,
    no_hitl: Annotated[bool, typer.Option("--no-hitl", help="不在确认点暂停，一口气跑完")] = False,
    json_output: JsonOption = False,
    data_dir: DataDirOption = None,
    model: Annotated[str | None, typer.Option("--model", help="本次使用的 litellm 模型")] = None,
    image_provider: Annotated[str | None, typer.Option("--image-provider", help="本次使用的图片服务")] = None,
    verbose: VerboseOption = False,
) -> None:
    """开始一次创作：实时显示各智能体的进度，在确认点询问你的意见。"""
    view: View = JsonView() if json_output else LiveView(verbose=verbose, auto_approve=auto_approve)

    def body() -> int:
        from agents.run import RunRequest, reference_from_path

        settings = writable(data_dir)
        request_model = RunRequest(
            message=request, reference_images=[reference_from_path(p, ref_type.value) for p in ref or []],
            layout_preference=layout.value, image_count=images, enable_hitl=False if no_hitl else None,
            image_provider=image_provider, model=model,
        )
        suffix = f" --data-dir {data_dir}" if data_dir is not None else ""
        with Studio(settings, view, auto_approve=auto_approve, hint_suffix=suffix) as studio:
            # the first run in a new data dir migrates and loads the sample corpus: show those steps
            studio.open(seed=True, steps=Steps(view.console) if isinstance(view, LiveView) else None)
            from app.cli.users import local_actor

            handle = studio.loop.run(studio.runner.prepare_start(request_model, started_by=local_actor()))
            if isinstance(view, LiveView):
                view.console.print(f"[dim]会话 {handle.thread_id} · 作品 #{handle.creative_id}[/dim]")
            return studio.drive(handle)

    _guard(view, body)


def resume(
    thread_id: Annotated[
        str, typer.Argument(metavar="会话编号", help="要继续的会话编号（见 studio threads）")
    ],
    approve: Annotated[bool, typer.Option("--approve", help="通过当前确认点")] = False,
    reject: Annotated[str | None, typer.Option("--reject", help="打回重做，并附上修改意见")] = None,
    modify_file: Annotated[Path | None, typer.Option(
        "--modify-file", exists=True, dir_okay=False, help="改好的文案或图片规划（JSON 文件）",
    )] = None,
    answer: Annotated[str | None, typer.Option("--answer", help="回答澄清问题：选项编号或自由文本")] = None,
    auto_approve: AutoApproveOption = False,
    json_output: JsonOption = False,
    data_dir: DataDirOption = None,
    verbose: VerboseOption = False,
) -> None:
    """继续一个已暂停的运行（可以在另一个进程里）。"""
    view: View = JsonView() if json_output else LiveView(verbose=verbose, auto_approve=auto_approve)

    def body() -> int:
        flags = {"--approve": approve, "--reject": reject is not None,
                 "--modify-file": modify_file is not None, "--answer": answer is not None}
        chosen = [flag for flag, given in flags.items() if given]
        if len(chosen) > 1:
            raise RunError(f"{' 和 '.join(chosen)} 只能选一个")
        settings = existing(data_dir)
        suffix = f" --data-dir {data_dir}" if data_dir is not None else ""
        with Studio(settings, view, auto_approve=auto_approve, hint_suffix=suffix) as studio:
            studio.open(seed=False)
            creative = studio.loop.run(studio.runner.find(thread_id))
            if creative is None:
                raise ThreadNotFound(f"找不到会话 {thread_id}（用 studio threads 查看最近的运行）")
            pending = studio.loop.run(studio.runner.pending(thread_id))
            if pending is None or creative.status != "paused":
                state = label("status", creative.status)
                raise NotPaused(f"会话 {thread_id} 当前没有等待确认的步骤（状态：{state}）")
            payload = _payload_from_flags(pending, approve, reject, modify_file, answer)
            if isinstance(view, LiveView):
                view.console.print(f"[dim]继续会话 {thread_id} · {escape(creative.request[:60])}[/dim]")
                if payload is not None:
                    view.show_pending(pending)
            elif payload is None and not auto_approve:
                view.paused(pending, studio.hint(thread_id))
                return OK
            handle = studio.answer(pending, payload)
            return OK if handle is None else studio.drive(handle)

    _guard(view, body)


def _payload_from_flags(pending: Event, approve: bool, reject: str | None, modify_file: Path | None,
                        answer: str | None) -> Event | None:
    clarification = _is_clarification(pending)
    if answer is not None:
        if not clarification:
            raise InvalidConfirmation("这是一个确认点，请用 --approve、--reject 或 --modify-file")
        return answer_from_text(answer, pending.get("options") or [])
    if (approve or reject is not None or modify_file is not None) and clarification:
        raise InvalidConfirmation("这是一个澄清问题，请用 --answer 回答")
    if approve:
        return {"action": "approve"}
    if reject is not None:
        return {"action": "reject", "userFeedback": reject}
    if modify_file is not None:
        try:
            data = json.loads(modify_file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidConfirmation(f"{modify_file} 不是合法的 JSON：{exc}") from exc
        if isinstance(data, list):
            data = {"plans": data}
        return {"action": "modify", "modifiedData": data}
    return None


def threads(
    status: Annotated[
        str | None, typer.Option("--status", help="只看某个状态，例如 paused 或 待审核")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=500, help="最多显示多少条")] = 20,
    data_dir: DataDirOption = None,
) -> None:
    """最近的运行（找到暂停中的会话，用 studio resume 继续）。"""
    view = LiveView()
    status = key_of("status", status) if status is not None else None  # "待审核" works as well as "paused"

    def body() -> int:
        from tools.database import CreativeStatus

        if status is not None and status not in set(CreativeStatus):
            choices = "、".join(f"{s.value}（{label('status', s.value)}）" for s in CreativeStatus)
            raise RunError(f"未知状态 {status}，可选：{choices}")
        with Studio(existing(data_dir), view, auto_approve=False) as studio:
            studio.open(seed=False)
            rows = studio.loop.run(studio.resources.store.recent(limit, status))
        if not rows:
            view.console.print(f"没有状态为 {status} 的运行" if status else "还没有运行记录")
            return OK
        table = Table(title="最近的运行", title_justify="left")
        table.add_column("会话编号", no_wrap=True, style="bold")
        table.add_column("状态", no_wrap=True, min_width=6)
        table.add_column("需求", overflow="fold", max_width=40)
        table.add_column("更新时间", no_wrap=True, min_width=11)
        for row in rows:
            updated = row.updated_at if row.updated_at.tzinfo else row.updated_at.replace(tzinfo=UTC)
            request = row.request if len(row.request) <= 16 else row.request[:15] + "…"
            table.add_row(row.thread_id, label("status", row.status), escape(request),
                          updated.astimezone().strftime("%m-%d %H:%M"))
        view.console.print(table)
        return OK

    _guard(view, body)
