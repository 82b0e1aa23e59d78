"""The brief compiler: one request (plus a clarification or an editor's feedback) → a structured `Brief`.

Every later agent works from the brief, so it is announced right away (`brief_ready`) and its content
type replaces the intent's guess in state.
"""

from __future__ import annotations

from typing import Any

from agents.artifacts import Brief
from agents.context import StudioContext
from agents.events import BriefReady, emit
from agents.node import agent, prompt
from agents.state import StudioState

NAME = "brief_compiler_agent"


def _clean_keywords(brief: Brief) -> Brief:
    """Keywords without a leading '#', de-duplicated (models like to write them as hashtags)."""
    words = list(dict.fromkeys(k.lstrip("#").strip() for k in brief.keywords if k.lstrip("#").strip()))
    return brief.model_copy(update={"keywords": words or [brief.topic[:24]]})


@agent(NAME)
async def brief_compiler_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Compile the creative brief from the request, the clarification answer and any reject feedback."""
    feedback = (state.get("userFeedback") or {}).get(NAME) or None
    messages = prompt("brief").render(
        request=state.get("request", ""),
        clarification=state.get("clarification") or None,
        feedback=feedback,
    )
    brief = _clean_keywords(await ctx.llm.complete_structured("brief", messages, Brief))
    wire = brief.model_dump(mode="json", by_alias=True)
    emit(BriefReady(brief=wire))
    update: dict[str, Any] = {"creativeBrief": wire, "briefComplete": True, "contentType": brief.content_type}
    if feedback:
        update["userFeedback"] = {NAME: ""}  # consumed
    return update
