"""Offline composers that understand the request: its intent (what kind of answer it wants) and the
creative brief (topic, audience, goal, tone, constraints, keywords, call to action)."""

from __future__ import annotations

import re
from typing import Any

from tools.bilingual import localize
from tools.offline.context import Context
from tools.offline.lexicon import GENERIC
from tools.offline.text import dedupe, detect_theme, extract_audience, extract_topic, keywords, shorten
from tools.routing import content_type_of, route

_INTENT_REASONS = {
    "full_post": "需要一篇完整的图文笔记。",
    "image_only": "只需要生成图片。",
    "question": "是一个可以直接回答的问题。",
    "time_query": "是在询问当前的时间或日期。",
}


def content_type(text: str) -> str:
    """The content type the request's own words ask for (shared with the rule fallback)."""
    return content_type_of(localize(text))[0]


# --- intent ------------------------------------------------------------------------------------------
def compose_intent(ctx: Context) -> dict[str, Any]:
    """Route the request with the shared table (`tools.routing`), as the rule fallback does."""
    text = ctx.request
    local = localize(text)
    theme = detect_theme(local)
    decided = route(text)
    kind, kind_confidence = content_type_of(local)
    # the model is surer than the bare rules where a marker decided, less sure on a bare topic
    confidence = min(0.95, decided.confidence + 0.08) if decided.rule != "empty" else 0.5
    return {
        "intent": decided.intent,
        "confidence": round(confidence, 2),
        "keywords": keywords(local, 6),
        "suggestedCategory": "" if theme is GENERIC else theme.key,
        "contentType": kind,
        "contentTypeConfidence": kind_confidence,
        "reasoning": f"请求围绕「{extract_topic(text)}」，属于{theme.label}类；{_INTENT_REASONS[decided.intent]}"
        f"（依据：{decided.rule}）",
        "needsWebSearch": decided.search is not None or bool(re.search(r"最新|实时|新闻|热搜", text)),
    }


# --- brief -------------------------------------------------------------------------------------------
def compose_brief(ctx: Context) -> dict[str, Any]:
    request = ctx.request
    clarification = ctx.text("clarification")
    theme = ctx.theme
    full = f"{request} {clarification}".strip()
    audience = extract_audience(full) or theme.audience
    topic = ctx.topic
    words = dedupe([*keywords(topic, 3), *keywords(full, 6)])
    constraints = ["标题不超过20个字", "正文分段清晰，每段不超过4行", "信息真实具体，避免夸大和绝对化用语"]
    length = re.search(r"(\d{2,4})\s*字", full)
    if length:
        constraints.append(f"正文控制在{length.group(1)}字左右")
    if clarification:
        constraints.append(f"用户补充：{shorten(clarification, 60)}")
    tone = theme.tone
    if re.search(r"专业|正式|严谨", full):
        tone = "专业、严谨"
    elif re.search(r"搞笑|幽默|有趣|沙雕", full):
        tone = "幽默、有梗"
    return {
        "topic": topic,
        "audience": audience,
        "goal": theme.goal if theme is not GENERIC else f"围绕「{topic}」分享一份实用经验，让读者愿意收藏",
        "tone": tone,
        "constraints": constraints,
        "keywords": words[:8] or [topic],
        "callToAction": theme.cta,
        "theme": "" if theme is GENERIC else theme.key,
        "contentType": content_type(full),
        "platform": "xiaohongshu",
    }
