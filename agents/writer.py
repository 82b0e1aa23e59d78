"""The writer: title, body and tags, grounded in the brief and the research evidence.

It also redoes the draft: after an editor rejected it (`userFeedback["writer_agent"]`, consumed here),
and after a failed review (`reviewFeedback`, whichever agent owned it — the writer always runs again
after research, and owns platformFit). On a redo the previous draft is in the prompt so the model can
keep what worked and change what did not.
"""

from __future__ import annotations

from typing import Any

from agents.artifacts import Brief, Draft, EvidencePack
from agents.context import StudioContext
from agents.events import ContentUpdate, Message, emit
from agents.node import agent, prompt
from agents.review import review_feedback_text
from agents.state import StudioState

NAME = "writer_agent"
_REFERENCE_KEYS = ("usage", "style", "mood", "palette", "layout", "styleKeywords", "summary")


def evidence_for_prompt(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """The evidence a writer uses: summary, facts with sources, title patterns, tags, angles, top titles."""
    if not raw:
        return None
    pack = EvidencePack.model_validate(raw)
    return pack.model_dump(mode="json", by_alias=True, exclude={"notes"}, exclude_none=True)


def references_for_prompt(analyses: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """What the reference images say about style, compacted (no asset ids or pixel statistics)."""
    compact = [{k: a[k] for k in _REFERENCE_KEYS if a.get(k)} for a in analyses or [] if isinstance(a, dict)]
    return [c for c in compact if c] or None


def clean_tags(tags: list[str], fallback: list[str]) -> list[str]:
    """Tags without '#', de-duplicated; the fallback (brief keywords) when nothing is left."""
    stripped = (t.strip().lstrip("#").strip() for t in tags)
    cleaned = list(dict.fromkeys(t for t in stripped if t))
    return cleaned or list(dict.fromkeys(fallback))[:8]


@agent(NAME)
async def writer_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Write (or rewrite) the post from the brief, the evidence and any feedback."""
    raw_brief = state.get("creativeBrief")
    brief = Brief.model_validate(raw_brief) if raw_brief else None
    feedback = (state.get("userFeedback") or {}).get(NAME) or None
    previous = state.get("generatedContent") or None
    messages = prompt("writer").render(
        request=state.get("request", ""),
        brief=brief,
        evidence=evidence_for_prompt(state.get("evidencePack")),
        references=references_for_prompt(state.get("referenceAnalyses")),
        feedback=feedback,
        review_feedback=review_feedback_text(state.get("reviewFeedback")),
        previous={k: previous.get(k) for k in ("title", "body", "tags")} if previous else None,
    )
    draft = await ctx.llm.complete_structured("writer", messages, Draft)
    draft = draft.model_copy(update={"tags": clean_tags(draft.tags, brief.keywords if brief else [])})
    emit(Message(agent=NAME, content=f"标题：{draft.title}\n\n正文：{draft.body}"))
    emit(ContentUpdate(title=draft.title, body=draft.body, tags=draft.tags))
    return {
        "generatedContent": draft.model_dump(mode="json", by_alias=True),
        "contentComplete": True,
        "contentApproved": False,
        "userFeedback": {NAME: ""},  # consumed
    }
