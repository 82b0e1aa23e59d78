"""`--help` in Chinese, readable in an 80-column terminal.

Typer renders help with rich. Two things needed fixing for a Chinese CLI:

- its fixed words are English ("Usage:", "Options", "Show this message and exit.", "[default: …]", type
  names such as <str>): `localise(app)` gives every command and group our command classes, which say them
  in Chinese, and sets typer's panel titles (module-level settings of `typer.rich_utils`, read at render
  time);
- rich wraps at spaces, and a Chinese sentence has none: an option's help longer than its column was cut
  with "…". Chinese may break between any two characters, so help texts are told to fold instead.

The help test (tests/app/test_cli_help.py) renders every command at 80 columns and fails on "…" or on
English words, so a typer upgrade that moves these hooks is noticed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
import typer.rich_utils as rich_utils
from rich.markdown import Markdown
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

PRODUCT_NAME = "内容工坊"
"""The product's one name on every screen (web pages, CLI, README)."""

OPTIONS_METAVAR = "[选项]"
SUBCOMMAND_METAVAR = "命令 [参数]..."
HELP_OPTION_TEXT = "显示本帮助并退出"
TYPE_NAMES = {
    "str": "文本", "int": "整数", "float": "数字", "datetime": "时间",
    "int range": "整数", "float range": "数字",
    "path": "路径", "Path": "路径", "file": "文件", "dir": "目录", "directory": "目录",
}


def _fold(make_text: Callable[..., Markdown | Text]) -> Callable[..., Markdown | Text]:
    def make(*args: Any, **kwargs: Any) -> Markdown | Text:
        rendered = make_text(*args, **kwargs)
        if isinstance(rendered, Text):
            rendered.overflow = "fold"  # break a long Chinese run between characters instead of cutting it
        return rendered

    make.__wrapped__ = make_text  # type: ignore[attr-defined]
    return make


def _install_rich_texts() -> None:
    if hasattr(rich_utils._make_rich_text, "__wrapped__"):
        return
    rich_utils._make_rich_text = _fold(rich_utils._make_rich_text)
    rich_utils.ARGUMENTS_PANEL_TITLE = "参数"
    rich_utils.OPTIONS_PANEL_TITLE = "选项"
    rich_utils.COMMANDS_PANEL_TITLE = "命令"
    rich_utils.ERRORS_PANEL_TITLE = "出错了"
    rich_utils.DEFAULT_STRING = "[默认：{}]"
    rich_utils.REQUIRED_LONG_STRING = "[必填]"
    rich_utils.ENVVAR_STRING = "[环境变量：{}]"
    rich_utils.DEPRECATED_STRING = "（已弃用）"
    rich_utils.ABORTED_TEXT = "已取消。"
    rich_utils.RICH_HELP = "运行 [blue]'{command_path} {help_option}'[/] 查看帮助。"


def _no_type(ctx: Any) -> None:
    return None


def _type_name(shown: str | None) -> str | None:
    """A parameter's value placeholder in Chinese: 文本, 整数, 路径 …; choices stay as they are typed."""
    if shown is None:
        return None
    inner = shown.strip("<>")
    if inner.startswith("list[") and inner.endswith("]"):  # a repeatable option: its help says so
        inner = inner[5:-1]
    return TYPE_NAMES.get(inner, shown)


class _ChineseHelp:
    """Mixed into typer's command classes: the usage line and the --help option in Chinese, flags without a
    type placeholder, other placeholders in Chinese."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.help = HELP_OPTION_TEXT
            option.metavar = ""
        return option

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        pieces = self.collect_usage_pieces(ctx)  # type: ignore[attr-defined]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix="用法：")

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:  # type: ignore[attr-defined]
            if param.metavar is not None:
                continue
            if isinstance(param, TyperOption) and param.is_flag:
                param.metavar = ""
            elif isinstance(param, TyperOption):
                param.metavar = _type_name(param.display_type_rich(ctx))
        for param in self.params:  # type: ignore[attr-defined]
            if isinstance(param, TyperArgument):  # its (Chinese) name says enough: no <str> beside it
                param.display_type_rich = _no_type  # type: ignore[method-assign]
        super().format_help(ctx, formatter)  # type: ignore[misc]


class StudioCommand(_ChineseHelp, TyperCommand):
    pass


class StudioGroup(_ChineseHelp, TyperGroup):
    pass


def localise(app: typer.Typer) -> None:
    """Give `app`, its commands and its sub-apps (recursively) the Chinese help. Call once, after every
    command is registered."""
    _install_rich_texts()
    if not (isinstance(app.info.cls, type) and issubclass(app.info.cls, StudioGroup)):
        app.info.cls = StudioGroup
    app.info.options_metavar = OPTIONS_METAVAR
    app.info.subcommand_metavar = SUBCOMMAND_METAVAR
    for command in app.registered_commands:
        if not (isinstance(command.cls, type) and issubclass(command.cls, StudioCommand)):
            command.cls = StudioCommand
        command.options_metavar = OPTIONS_METAVAR
    for group in app.registered_groups:
        group.cls = StudioGroup
        group.options_metavar = OPTIONS_METAVAR
        group.subcommand_metavar = SUBCOMMAND_METAVAR
        if group.typer_instance is not None:
            localise(group.typer_instance)
