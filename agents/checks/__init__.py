"""Deterministic quality checks: what the critic verifies whatever the model says.

Each check returns `Finding`s: which check failed, the review dimension it pulls below threshold, the
agent that must redo the work, and a concrete Chinese reason the agent (and the editor) can act on.
`text` holds the checks of the post's text (run after the writer and in review), `cards` those of the
cards' text against the overlay plan (run in review).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from agents.artifacts import Dimension

Owner = Literal["writer_agent", "research_evidence_agent", "image_planner_agent"]


@dataclass(frozen=True)
class Finding:
    """One failed check."""

    check: str  # stable id, e.g. "foreign_place"
    dimension: Dimension  # the review dimension this failure pulls below its threshold
    owner: Owner  # the agent that redoes the work
    reason: str  # concrete Chinese fail reason, e.g. "正文提到成都，但需求是厦门"

    def wire(self) -> dict[str, Any]:
        """As stored in a review round and sent in events (camelCase)."""
        return {"check": self.check, "dimension": self.dimension, "owner": self.owner, "reason": self.reason}
