"""The critic's deterministic checks of a post's text, run whatever the model: by the review agent, and by
a gate right after the writer (so an editor is never asked to approve a draft that fails them).

`text_findings` returns one `Finding` per failed check (stable check ids below), each with the review
dimension it pulls down, the agent that redoes the work and a concrete Chinese reason. `summarize` turns
findings into per-dimension score caps the review applies on top of the model's scores.

Check ids: foreign_place, topic_drift, off_topic_advice (content.py, infoDensity), other_readers
(readers.py, infoDensity); cta_mismatch,
title_length, title_pasted, tag_count, tag_unrelated, tag_foreign_place, stock_phrase (form.py,
platformFit); duplicate, cut_off (form.py, readability).

Precision matters as much as recall: a false fail sends good work back. So each check reports only what it
can name — a place it can resolve, a sentence sharing nothing with the topic, a phrase from a list kept as
data — and stays silent on what it cannot tell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents.artifacts import Dimension
from agents.checks import Finding
from agents.checks.content import advice_outside_topic, fact_texts, foreign_places, topic_drift
from agents.checks.form import all_form
from agents.checks.readers import advice_for_other_readers
from agents.checks.textutil import scope_of

# The score a dimension is capped at when one of its checks fails: under every default threshold (0.6).
FAILED_CAP = 0.5
CHECK_IDS = (
    "foreign_place",
    "topic_drift",
    "off_topic_advice",
    "cta_mismatch",
    "title_length",
    "title_pasted",
    "tag_count",
    "tag_unrelated",
    "tag_foreign_place",
    "duplicate",
    "cut_off",
    "stock_phrase",
)


def text_findings(
    *,
    request: str,
    brief: Mapping[str, Any] | None,
    draft: Mapping[str, Any],
    evidence: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """Every failed text check of `draft` ({title, body, tags}) against the request and brief.

    `brief` may be None or empty: the topic, audience and places then come from the request alone.
    `evidence` (the EvidencePack wire dict) lets a finding name research as the owner when the evidence's
    own facts carried the foreign place, the drifting sentences or the advice.
    """
    scope = scope_of(request, brief)
    facts = fact_texts(evidence)
    return [
        *foreign_places(scope, draft, facts),
        *topic_drift(scope, draft, facts),
        *advice_outside_topic(scope, draft, facts),
        *advice_for_other_readers(scope, draft, facts),
        *all_form(scope, draft, evidence),
    ]


def summarize(findings: Iterable[Finding], cap: float = FAILED_CAP) -> dict[Dimension, float]:
    """Per dimension with a failed check, the most its score may be: apply with
    `score = min(model_score, caps.get(dimension, 1.0))`. Pass `cap` under your thresholds when they are
    not the defaults (e.g. `min(thresholds.values()) - 0.1`)."""
    return {f.dimension: cap for f in findings}


def apply_caps(
    scores: Mapping[str, float], findings: Iterable[Finding], cap: float = FAILED_CAP
) -> dict[str, float]:
    """The model's dimension scores (camelCase keys) with every dimension that failed a check capped."""
    caps = summarize(findings, cap)
    return {key: min(value, caps.get(key, 1.0)) for key, value in scores.items()}  # type: ignore[call-overload]


def reasons_by_owner(findings: Iterable[Finding]) -> dict[str, list[str]]:
    """The fail reasons grouped by the agent that redoes the work (what each one receives)."""
    grouped: dict[str, list[str]] = {}
    for finding in findings:
        grouped.setdefault(finding.owner, []).append(finding.reason)
    return grouped
