"""The intake node: classify the request (LLM first, seed 004's rules as fallback) and announce it."""

from __future__ import annotations

from typing import Any

from agents.context import StudioContext
from agents.events import ContentTypeDetected, IntentDetected, Message, emit
from agents.intent import classify_intent
from agents.node import agent
from agents.state import StudioState

_ROUTE_NOTES = {
    "full_post": "将为你生成完整的图文笔记",
    "image_only": "只需要图片：走「规划 → 生成 → 审核」短路径",
    "question": "这是一个问题，将直接回答",
    "time_query": "这是时间查询，直接在本地回答",
}


@agent("intent")
async def intent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Decide between a full post, images only, a question and a time query."""
    decision = await classify_intent(
        ctx.llm, state.get("request", ""), min_confidence=ctx.options.intent_min_confidence
    )
    emit(
        IntentDetected(
            intent=decision.intent,
            confidence=decision.confidence,
            keywords=list(decision.keywords),
            suggested_category=decision.suggested_category,
            source=decision.source,
        )
    )
    emit(
        ContentTypeDetected(
            content_type=decision.content_type,
            confidence=decision.content_type_confidence,
            reasoning=decision.reasoning,
        )
    )
    emit(Message(agent="intent", content=_ROUTE_NOTES.get(decision.intent, "")))
    return {
        "intent": {
            "intent": decision.intent,
            "confidence": decision.confidence,
            "keywords": list(decision.keywords),
            "suggestedCategory": decision.suggested_category,
            "contentType": decision.content_type,
            "needsWebSearch": decision.needs_web_search,
            "source": decision.source,
        },
        "contentType": decision.content_type,
    }
