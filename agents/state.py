"""The workflow state: one `TypedDict` whose keys follow seed 002 §7 (camelCase, as they appear in
`state_update` events). Artifacts are stored as their wire dicts (see `agents.artifacts`) so paused
runs survive code upgrades; only asset ids are stored for images, never bytes.

Keys written by nodes that can run in the same super-step (research ∥ reference) carry reducers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def last_value(_old: Any, new: Any) -> Any:
    """Reducer: the newest write wins (lets parallel nodes write the same key)."""
    return new


def merge_dicts(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: shallow merge, newer keys win."""
    return {**(old or {}), **(new or {})}


def union_list(old: list[str] | None, new: list[str] | None) -> list[str]:
    """Reducer: ordered union."""
    return list(dict.fromkeys([*(old or []), *(new or [])]))


class StudioState(TypedDict, total=False):
    # --- input -----------------------------------------------------------------------------------
    threadId: str  # the run's id (= LangGraph thread id)
    request: str  # the creator's message
    referenceInputs: list[dict[str, Any]]  # [{assetId, usage}] reference images already stored as assets
    imageCount: int  # images to plan, 1..9
    layoutPreference: str  # dense | balanced | visual-first
    enableHITL: bool  # pause at the two checkpoints

    # --- routing ---------------------------------------------------------------------------------
    intent: dict[str, Any] | None  # IntentDecision: full_post | image_only | question | time_query
    contentType: str | None  # edu, guide, review …
    currentAgent: Annotated[str, last_value]  # the agent that ran last
    nextAgents: list[str]  # the supervisor's latest decision (node names, or ["END"])
    iterationCount: int  # supervisor decisions so far
    maxIterations: int  # hard cap; reaching it ends the run
    llmFallbackCalls: int  # LLM routing calls spent (budgeted)
    agentAttempts: Annotated[dict[str, int], merge_dicts]  # runs per agent
    lastError: Annotated[dict[str, Any] | None, last_value]  # {agent, code, message, retryable, critical}

    # --- completion flags (seed order) -----------------------------------------------------------
    briefComplete: bool
    evidenceComplete: bool
    referenceIntelligenceComplete: bool
    contentComplete: bool
    contentApproved: bool  # the content checkpoint accepted the current draft
    layoutComplete: bool
    imagePlansComplete: bool
    imagePlansApproved: bool  # the image-plans checkpoint accepted the current plans
    imagesComplete: bool
    reviewComplete: bool  # the current package has been reviewed

    # --- interaction -----------------------------------------------------------------------------
    agentClarificationKeys: Annotated[list[str], union_list]  # clarifications already asked (once each)
    clarification: str | None  # the creator's answer to a clarification
    pendingConfirmation: dict[str, Any] | None  # the open ask_user payload while paused
    userFeedback: Annotated[
        dict[str, str], merge_dicts
    ]  # reject feedback per agent, e.g. {"writer_agent": …}
    reviewFeedback: dict[str, Any] | None  # failed review: {dimension, owner, reasons, suggestions, round}
    draftChecks: dict[str, Any] | None  # the writer's draft against the text checks: {findings, redos}
    writerNotes: list[str]  # every reject feedback an editor gave the writer, oldest first
    editorEdited: bool  # an editor modified the draft: text checks on it warn, never send it back
    plansEdited: bool  # an editor modified the image plans: card checks on them warn

    # --- artifacts -------------------------------------------------------------------------------
    creativeBrief: dict[str, Any] | None  # Brief
    evidencePack: dict[str, Any] | None  # EvidencePack
    referenceAnalyses: list[dict[str, Any]]  # [ReferenceAnalysis]
    generatedContent: dict[str, Any] | None  # Draft {title, body, tags}
    layoutSpec: dict[str, Any] | None  # LayoutSpec
    imagePlans: list[dict[str, Any]]  # [ImagePlan]
    paragraphImageBindings: list[dict[str, Any]]  # [ParagraphImageBinding]
    textOverlayPlan: list[dict[str, Any]]  # [TextOverlay]
    generatedImageAssetIds: list[int | None]  # per plan, None where generation failed
    qualityScores: dict[str, Any] | None  # the latest QualityReport
    qualityHistory: Annotated[list[dict[str, Any]], operator.add]  # every review round with its package
    answer: str | None  # direct answer for question / time intents

    # --- revisions (agents/revision.py) ------------------------------------------------------------
    revisionFrom: int  # review rounds before the current revision began (0: the thread's first run)
    revisions: list[dict[str, Any]]  # the revision requests so far, oldest first: {message, scope}
    imagesKept: bool  # a text revision keeps the pictures: card checks against the new draft only warn
    redrawOnly: list[int] | None  # a revision of some pictures: their 1-based positions (None: all)
    spanEdit: dict[str, Any] | None  # highlight-to-edit: {start, end, text, instruction} of the body

    # --- outcome ---------------------------------------------------------------------------------
    finalRound: int | None  # the review round delivered (best round when none passed)
    done: bool
