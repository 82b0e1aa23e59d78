"""The brief compiler: one request (plus a clarification or an editor's feedback) → a structured `Brief`.

Every later agent works from the brief, so it is announced right away (`brief_ready`) and its content
type replaces the intent's guess in state.

A clarification answer ('方向：…' / '说明：…', see `agents.hitl.clarification_text`) is merged as structured
fields — the angle, the audience, constraints — and never pasted into the topic: whatever the model
returns, a topic carrying the answer in brackets ("点东西（补充：美食探店）") is cleaned, and an angle the
model left empty is the chosen direction.
"""

from __future__ import annotations

import re
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


_PASTED = re.compile(r"\s*[（(【\[]?\s*(?:补充|说明|方向)\s*[:：][^）)】\]]*[）)】\]]?")
_DIRECTION = re.compile(r"^方向[:：](.+)$", re.MULTILINE)


def merge_clarification(brief: Brief, clarification: str | None) -> Brief:
    """Keep the clarification out of the topic, and in the angle (see the module docstring)."""
    if not clarification:
        return brief
    topic = _PASTED.sub("", brief.topic).strip(" ，,；;")
    update: dict[str, Any] = {"topic": topic or brief.topic}
    direction = _DIRECTION.search(clarification)
    if not brief.angle.strip() and direction and direction.group(1).strip() not in topic:
        update["angle"] = direction.group(1).strip()[:200]
    return brief.model_copy(update=update)


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
    brief = merge_clarification(brief, state.get("clarification"))
    wire = brief.model_dump(mode="json", by_alias=True)
    emit(BriefReady(brief=wire))
    update: dict[str, Any] = {"creativeBrief": wire, "briefComplete": True, "contentType": brief.content_type}
    if feedback:
        update["userFeedback"] = {NAME: ""}  # consumed
    return update
