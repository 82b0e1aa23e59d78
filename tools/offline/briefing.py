"""Offline composers that understand the request: its intent (what kind of answer it wants) and the
creative brief (topic, audience, goal, tone, constraints, keywords, call to action)."""

from __future__ import annotations

import re
from typing import Any

from tools.offline.context import Context
from tools.offline.lexicon import GENERIC
from tools.offline.text import dedupe, extract_audience, keywords, shorten

_TIME = re.compile(r"几点|时间|日期|几号|星期几|周几|时间戳|今天是|现在是")
_IMAGE = re.compile(
    r"画|绘|生成.{0,6}(?:图|照片|海报|插画|壁纸)|配图|海报|插画|draw|paint|image|picture", re.I
)
_POST = re.compile(r"笔记|文案|帖子|种草|攻略|写一篇|写篇|图文|小红书")
_QUESTION = re.compile(r"[?？]|什么|怎么|为什么|哪些|哪个|如何|吗|是否|能不能|有没有")
_CONTENT_TYPES = (
    (re.compile(r"攻略|指南|教程|步骤|怎么"), "guide"),
    (re.compile(r"测评|评测|试用|对比|值不值"), "review"),
    (re.compile(r"清单|合集|盘点|\d+个|推荐"), "list"),
    (re.compile(r"经历|故事|日记|vlog|记录"), "story"),
    (re.compile(r"知识|科普|原理|学习|考"), "edu"),
    (re.compile(r"新品|种草|好物|产品"), "product"),
)


def content_type(text: str) -> str:
    for pattern, kind in _CONTENT_TYPES:
        if pattern.search(text):
            return kind
    return "guide"


# --- intent ------------------------------------------------------------------------------------------
def compose_intent(ctx: Context) -> dict[str, Any]:
    text = ctx.request
    theme = ctx.theme
    wants_post = bool(_POST.search(text))
    if _TIME.search(text) and not wants_post and len(text) < 30:
        intent, confidence = "time_query", 0.9
    elif _IMAGE.search(text) and not wants_post:
        intent, confidence = "image_only", 0.82
    elif _QUESTION.search(text) and not wants_post:
        intent, confidence = "question", 0.78
    else:
        intent, confidence = "full_post", 0.9 if wants_post else 0.66
    kind = content_type(text)
    return {
        "intent": intent,
        "confidence": confidence,
        "keywords": keywords(text, 6),
        "suggestedCategory": theme.key,
        "contentType": kind,
        "contentTypeConfidence": 0.8 if kind != "guide" or "攻略" in text else 0.6,
        "reasoning": f"请求围绕「{ctx.topic}」，属于{theme.label}类；"
        + {
            "full_post": "需要完整的图文笔记。",
            "image_only": "只需要生成图片。",
            "question": "是一个可以直接回答的问题。",
            "time_query": "是在询问当前时间。",
        }[intent],
        "needsWebSearch": bool(re.search(r"最新|今天|实时|新闻|热搜", text)),
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
