"""The label table: every value the studio can produce has a Chinese label, and unknown ones never leak."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from pydantic.alias_generators import to_camel

from agents import artifacts
from agents.node import AGENTS
from tools.accounts import Role
from tools.database import CreativeStatus
from tools.labels import FALLBACK, TABLES, agent_label, key_of, label, labels
from tools.offline.lexicon import GENERIC, THEMES
from tools.research import TOOLS

CJK = re.compile(r"[\u3400-\u9fff]")
DATA = Path(__file__).resolve().parents[2] / "data"


def literal_values(annotation: object) -> tuple[str, ...]:
    """The members of a Literal, also inside `X | None`."""
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return tuple(v for arg in typing.get_args(annotation) for v in literal_values(arg))


# (table, where the values come from)
SOURCES: list[tuple[str, tuple[str, ...]]] = [
    ("intent", typing.get_args(artifacts.Intent)),
    ("contentType", typing.get_args(artifacts.ContentType)),
    ("role", typing.get_args(artifacts.ImageRole)),
    ("density", typing.get_args(artifacts.TextDensity)),
    ("position", typing.get_args(artifacts.TextPosition)),
    ("layout", typing.get_args(artifacts.LayoutPreference)),
    ("dimension", typing.get_args(artifacts.Dimension)),
    ("usage", literal_values(artifacts.ReferenceAnalysis.model_fields["usage"].annotation)),
    ("background", literal_values(artifacts.ImagePlan.model_fields["background"].annotation)),
    ("status", tuple(s.value for s in CreativeStatus)),
    ("theme", (*THEMES, GENERIC.key, *(p.stem for p in (DATA / "notes").glob("*.jsonl")))),
    ("tool", tuple(to_camel(name) for name in TOOLS)),
    ("agent", tuple(AGENTS)),
    ("accountRole", tuple(role.value for role in Role)),
]


@pytest.mark.parametrize(("kind", "values"), SOURCES, ids=[kind for kind, _ in SOURCES])
def test_every_value_the_studio_produces_has_a_chinese_label(kind: str, values: tuple[str, ...]) -> None:
    assert values
    for value in values:
        assert value in TABLES[kind], f"{kind}: no label for {value!r}"
        assert CJK.search(TABLES[kind][value]), f"{kind}.{value} is not labelled in Chinese"


def test_agent_labels_match_the_agents_own_names() -> None:
    for name, info in AGENTS.items():
        assert TABLES["agent"][name] == info.label
    assert agent_label("research_evidence_agent+reference_intelligence_agent") == "研究员 + 视觉分析师"
    assert agent_label(None) == "系统"


def test_theme_labels_match_the_offline_vocabulary() -> None:
    for key, theme in THEMES.items():
        assert TABLES["theme"][key] == theme.label


def test_unknown_values_fall_back_to_neutral_chinese_and_chinese_values_pass_through() -> None:
    for kind in TABLES:
        assert kind in FALLBACK
        shown = label(kind, "made_up_value-42")
        assert shown and "made_up" not in shown and (CJK.search(shown) or shown == "—")
    assert label("theme", "美食") == "美食"  # a model answering in Chinese
    assert label("contentType", "") == "" and label("contentType", None) == ""
    assert label("no-such-table", "x") == "其他"
    assert labels("block", ["headline", "subtitle", "sparkles"]) == "大标题 / 副标题 / 其他模块"


def test_key_of_reads_a_label_back() -> None:
    assert key_of("theme", "户外") == "outdoor"
    assert key_of("theme", "outdoor") == "outdoor"
    assert key_of("theme", "不存在") == "不存在"
