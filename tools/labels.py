"""Chinese names for the values agents show in messages and summaries (layout preferences, overlay block
names, card roles, corpus themes, card layouts), and `plain`, which replaces such raw values inside free
text a model wrote — the Chinese UI never shows an enum name."""

from __future__ import annotations

import re

from tools.art import LAYOUT_LABELS

PREFERENCE_LABELS = {"balanced": "均衡", "dense": "信息密集", "visual-first": "图片优先"}
BLOCK_LABELS = {
    "headline": "主标题",
    "subtitle": "副标题",
    "tags": "标签",
    "heading": "小标题",
    "bullets": "要点",
    "checklist": "清单",
    "caption": "说明文字",
    "quote": "金句",
    "steps": "步骤",
    "body": "正文",
}
ROLE_LABELS = {"cover": "封面", "detail": "内页", "result": "总结页"}
DENSITY_LABELS = {"low": "文字少", "medium": "文字适中", "high": "文字多"}
POSITION_LABELS = {"top": "上方", "center": "中部", "bottom": "下方"}


def theme_label(key: str) -> str:
    from tools.offline.lexicon import THEMES

    theme = THEMES.get(key)
    return theme.label if theme else key


def _all_labels() -> dict[str, str]:
    from tools.offline.lexicon import THEMES

    labels = {k: v.label for k, v in THEMES.items()}
    labels |= LAYOUT_LABELS | DENSITY_LABELS | ROLE_LABELS | BLOCK_LABELS | PREFERENCE_LABELS
    return labels


_WORD = re.compile(r"(?<![A-Za-z_-])(visual-first|[a-z][a-z_]*[a-z])(?![A-Za-z_-])")


def plain(text: str) -> str:
    """`text` with every known raw value (balanced, headline, cover, outdoor, …) in Chinese."""
    labels = _all_labels()
    return _WORD.sub(lambda m: labels.get(m.group(1), m.group(1)), text)


def blocks_text(blocks: list[str]) -> str:
    return "、".join(BLOCK_LABELS.get(b, b) for b in blocks)
