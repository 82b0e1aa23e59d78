from __future__ import annotations

import pytest

from agents.artifacts import Brief
from tools.prompting import PromptTemplate, parse_sections

TEMPLATE = """<!-- system -->
你是小红书内容策划。
<!-- user -->
## 用户需求 (request)
$request

## 创作简报 (brief)
$brief

## 修改意见 (feedback)
$feedback
"""


def test_render_fills_every_section_and_parse_recovers_them() -> None:
    brief = Brief(
        topic="周末城市露营",
        audience="上班族",
        goal="种草",
        tone="松弛",
        keywords=["露营"],
        call_to_action="收藏",
    )
    messages = PromptTemplate.from_text("t", TEMPLATE).render(
        request="写露营笔记", brief=brief, feedback=None
    )
    assert messages[0] == {"role": "system", "content": "你是小红书内容策划。"}
    sections = parse_sections(messages[1]["content"])
    assert sections["request"] == "写露营笔记"
    assert sections["brief"]["topic"] == "周末城市露营"
    assert sections["brief"]["callToAction"] == "收藏"  # camelCase on the wire
    assert sections["feedback"] == "（无）"


def test_missing_variable_fails_loudly() -> None:
    with pytest.raises(KeyError, match="feedback"):
        PromptTemplate.from_text("t", TEMPLATE).render(request="x", brief={})


def test_template_needs_both_parts() -> None:
    with pytest.raises(ValueError, match="system"):
        PromptTemplate.from_text("bad", "## 只有用户 (request)\n$request")


def test_parse_sections_decodes_fenced_json_and_keeps_broken_json_as_text() -> None:
    text = '## 数据 (data)\n```json\n{"a": 1}\n```\n\n## 坏 (bad)\n{not json\n'
    assert parse_sections(text) == {"data": {"a": 1}, "bad": "{not json"}
