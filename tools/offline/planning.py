"""Offline composers for the visual and control tasks: reference reading, layout, image plans and the
supervisor's fallback choice. The review composer is in `tools.offline.review`."""

from __future__ import annotations

import re
from typing import Any

from tools.art import Mood, choose_layout, mood_palette, moods, scene_mood
from tools.cardtext import WHEN_LABEL, clip, fragment_reason, paragraph_lines
from tools.labels import POSITION_LABELS, PREFERENCE_LABELS, ROLE_LABELS
from tools.offline.context import Context, walk
from tools.offline.drafting import subject_of
from tools.offline.text import dedupe
from tools.offline.voice import scene_image
from tools.overlays import card_overlays

_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")
BULLET = re.compile(r"^\s*(?:\d+[.、)]|[·•\-*]|\d\ufe0f?\u20e3)\s*")


def _first(d: dict[str, Any], *keys: str, default: Any = None) -> Any:
    for key in keys:
        if key in d and d[key] is not None:
            return d[key]
    return default


def hexes(obj: Any) -> list[str]:
    return dedupe(s.upper() for s in walk(obj) if isinstance(s, str) and _HEX.match(s))


def _level(value: Any) -> float | None:
    """Normalise a brightness/saturation reading to 0..1 (accepts 0..1 or 0..255)."""
    if isinstance(value, int | float):
        return float(value) / 255.0 if value > 1 else float(value)
    return None


# --- reference images --------------------------------------------------------------------------------
def compose_reference(ctx: Context) -> dict[str, Any]:
    analysis = ctx.data("analysis") or {}
    palette = hexes(_first(analysis, "palette", "colors", default=[]))[:6]
    brightness = _level(_first(analysis, "brightness", "meanBrightness", "mean_brightness"))
    saturation = _level(_first(analysis, "saturation", "meanSaturation", "mean_saturation"))
    tone = str(_first(analysis, "tone", "temperature", default=""))
    density = str(_first(analysis, "textDensity", "text_density", default="low"))
    composition = _first(analysis, "composition", default={})
    comp_text = (
        composition
        if isinstance(composition, str)
        else " ".join(
            str(v)
            for v in (composition.values() if isinstance(composition, dict) else [])
            if isinstance(v, str)
        )
    )
    bright = brightness if brightness is not None else 0.6
    sat = saturation if saturation is not None else 0.4
    if bright > 0.7 and sat < 0.35:
        style, mood, words = "日系清新", "干净、通透、轻松", ["清新", "低饱和", "留白", "自然光"]
    elif bright > 0.6 and "warm" in tone:
        style, mood, words = "奶油治愈风", "温暖、柔和、治愈", ["奶油色", "暖调", "柔光", "治愈"]
    elif sat > 0.55:
        style, mood, words = "多巴胺撞色", "活泼、明快、有冲击力", ["高饱和", "撞色", "活力", "明快"]
    elif bright < 0.35:
        style, mood, words = "暗调高级感", "沉静、克制、有质感", ["暗调", "高级感", "对比", "质感"]
    else:
        style, mood, words = "自然生活感", "真实、舒适、生活化", ["自然", "生活感", "柔和", "真实"]
    words.append("暖色调" if "warm" in tone else "冷色调" if "cool" in tone else "中性色调")
    if "center" in comp_text or "居中" in comp_text:
        layout = "主体居中，四周留白，适合放大标题"
    elif comp_text:
        layout = "主体偏向一侧，三分法构图，另一侧可放文字"
    else:
        layout = "构图均衡，上方或下方留出文字区域"
    regions = [
        f"{b.get('x', 0)},{b.get('y', 0)},{b.get('width', 0)}x{b.get('height', 0)}"
        for b in walk(_first(analysis, "textRegions", "text_regions", default=[]))
        if isinstance(b, dict) and "width" in b
    ][:6]
    usage = ctx.text("usage") or "style"
    density_cn = {"high": "文字较多", "medium": "文字适中", "low": "文字很少"}.get(density, "文字很少")
    return {
        "style": style,
        "mood": mood,
        "palette": palette,
        "layout": layout,
        "styleKeywords": words,
        "textRegions": regions,
        "summary": f"参考图整体为{style}，{mood}；{layout}，画面{density_cn}。"
        f"作为{ {'style': '风格', 'layout': '版式', 'content': '内容'}.get(usage, '风格') }参考使用。",
    }


# --- layout ------------------------------------------------------------------------------------------
def paragraphs_of(draft: dict[str, Any]) -> list[str]:
    return [p.strip() for p in str(draft.get("body", "")).split("\n\n") if p.strip()]


def _int(value: Any, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(str(value).strip())))
    except (TypeError, ValueError):
        return default


def _focus(paragraph: str, topic: str) -> str:
    """A whole phrase naming what a paragraph shows: its first item's label (鸡蛋灌饼 of 「鸡蛋灌饼：…」),
    its heading, or the subject its heading names (快手早餐 of 「快手早餐·选之前看看」), else the topic —
    never a word picked out of its sentences (之前 of 选之前看看)."""
    heading, lines = paragraph_lines(paragraph)
    # the first item's own name only: a later item's (小药包) may sit on the next card of a split list
    labels = [ln.split("：", 1)[0] for ln in lines[:1] if 2 <= ln.find("：") <= 8]
    labels = [label for label in labels if not WHEN_LABEL.match(label)]
    named = heading.split("·", 1)[0] if heading and "·" in heading else ""
    for candidate in (*labels[:1], heading or "", named):
        if candidate and len(candidate) <= 14 and not fragment_reason(candidate):
            return candidate
    return topic


def compose_layout(ctx: Context) -> dict[str, Any]:
    draft = ctx.data("draft") or {}
    paragraphs = paragraphs_of(draft)
    count = _int(ctx.sections.get("image_count"), 4, 1, 9)
    preference = ctx.text("preference") or "balanced"
    density = {"dense": "high", "visual-first": "low"}.get(preference, "medium")
    # the first paragraph is the hook and the last the call to action: details illustrate the middle,
    # a result page sums up with the closing paragraph
    body_indexes = list(range(1, len(paragraphs) - 1)) or [0]
    # the emblem names what the post is about, not the request's question (猫咪第一次打疫苗, not …要注意什么)
    subject = subject_of(ctx.topic, str(ctx.brief.get("audience") or "")) or ctx.topic
    has_result = count >= 3
    details = count - 1 - int(has_result)
    items = []
    for index in range(1, count + 1):
        if index == 1:
            role, paras, blocks, position = "cover", [0], ["headline", "subtitle", "tags"], "center"
            focus = subject
        elif index == count and has_result:
            # it names the points the detail cards made (`tools.overlays`): the closing paragraph is a call
            # to the reader, never a point
            role, paras, blocks, position = "result", [], ["headline", "checklist"], "bottom"
            focus = subject
        else:
            # spread the body paragraphs over the detail cards (a paragraph shared by two cards is split)
            slot = (index - 2) * len(body_indexes) // max(1, details) if details else 0
            chunk = body_indexes[slot : (index - 1) * len(body_indexes) // max(1, details)] or [
                body_indexes[min(slot, len(body_indexes) - 1)]
            ]
            role, paras, blocks, position = "detail", chunk, ["heading", "bullets"], "top"
            source = paragraphs[paras[0]] if paragraphs else ctx.topic
            focus = _focus(source, ctx.topic)
        items.append(
            {
                "index": index,
                "role": role,
                "visualFocus": focus,
                "textDensity": "low" if role == "cover" and density != "high" else density,
                "textPosition": position,
                "blocks": blocks,
                "paragraphIndexes": paras,
            }
        )
    label = PREFERENCE_LABELS.get(preference, "均衡")
    return {
        "preference": preference,
        "items": items,
        "notes": f"共{count}张：封面抓眼球，中间{max(0, details)}张讲细节"
        + ("，最后一张做总结" if has_result else "")
        + f"；文字密度按「{label}」安排。",
    }


# --- image plans -------------------------------------------------------------------------------------
_FEEDBACK_SUBJECT = re.compile(
    r"(?:主体|画面|主角|图里|图中)(?:改成|换成|改为|换为|要有|突出|用)[「“\"]?([^，。,.!！?？」”\"]{1,16})"
)
_FEEDBACK_LAYOUT = re.compile(r"(?:版式|排版|布局|模板|样式)")
_FEEDBACK_MOODS = {"深色": "night", "暗色": "night", "夜景": "night", "暗调": "night", "暖色": "cosy",
                   "温暖": "cosy", "清新": "fresh", "浅色": "fresh", "亮色": "energetic", "鲜艳": "energetic",
                   "素雅": "calm", "简约": "calm"}  # fmt: skip


def _feedback_mood(feedback: str) -> Mood | None:
    keys = [key for word, key in _FEEDBACK_MOODS.items() if word in feedback]
    return next((m for m in moods() if keys and m.key == keys[0]), None)


def compose_image_plans(ctx: Context) -> dict[str, Any]:
    draft = ctx.data("draft") or {}
    layout = ctx.data("layout") or {}
    theme = ctx.theme
    feedback = ctx.feedback
    paragraphs = paragraphs_of(draft)
    references = ctx.data("references") or []
    ref_palette = hexes(references)[:5]
    ref_words = [w for r in references if isinstance(r, dict) for w in r.get("styleKeywords", [])]
    title = str(draft.get("title") or ctx.topic)
    tags = [str(t) for t in draft.get("tags", [])][:3]
    content_type = str(ctx.brief.get("contentType") or "guide")
    items = layout.get("items") or [
        {
            "index": 1,
            "role": "cover",
            "visualFocus": ctx.topic,
            "textPosition": "center",
            "paragraphIndexes": [0],
        }
    ]
    wanted = _FEEDBACK_SUBJECT.search(feedback)
    if wanted:  # "主体改成帐篷" → every card is about it
        items = [{**item, "visualFocus": wanted.group(1).strip()} for item in items]
    head = " ".join([title, ctx.topic, *(str(i.get("visualFocus", "")) for i in items)])
    mood = _feedback_mood(feedback) or scene_mood(head, " ".join(paragraphs))
    palette = ref_palette or (mood_palette(mood, title) if mood else list(theme.palette))
    style = mood.key if mood else theme.key
    # a plan rejected for its look gets another layout than the one it had
    layout_seed = f"{title}|{feedback}" if _FEEDBACK_LAYOUT.search(feedback) else title
    overlays = card_overlays(items, paragraphs, title, tags)
    # (a trip's scene has its own look: a sea trip's pictures are of the sea, not the theme's town streets)
    look = scene_image(theme.key, f"{ctx.request} {ctx.topic}") or theme.scene
    plans, bindings = [], []
    for item in items:
        index, role = int(item.get("index", 1)), str(item.get("role", "detail"))
        paras = [
            p for p in item.get("paragraphIndexes", []) if isinstance(p, int) and 0 <= p < len(paragraphs)
        ]
        focus = str(item.get("visualFocus") or ctx.topic)
        scene = f"{look}，画面主体：{focus}"
        page = ROLE_LABELS.get(role, "内页")
        room = POSITION_LABELS.get(str(item.get("textPosition")), "中部")
        atmosphere = "、".join(ref_words[:3]) or (f"{mood.label}、{theme.tone}" if mood else theme.tone)
        base = f"小红书风格竖版配图（3:4），{page}，主题「{ctx.topic}」，{scene}，{atmosphere}的氛围，"
        base += f"为文字留出{room}空间"
        plans.append(
            {
                "index": index,
                "role": role,
                "subject": clip(focus, 40),
                "basePrompt": base,
                "prompt": base,
                "palette": palette[:5],
                "background": "gradient" if role == "cover" else "split" if index % 2 else "solid",
                "layout": choose_layout(role, content_type, style, layout_seed),
            }
        )
        for p in paras:
            bindings.append(
                {
                    "paragraphIndex": p,
                    "imageIndex": index,
                    "reason": f"第{index}张图呈现第{p + 1}段的「{clip(focus, 12)}」",
                }
            )
    style_query = " ".join(dedupe([*ref_words[:3], theme.label, ctx.topic, theme.tone]))
    return {"plans": plans, "bindings": bindings, "overlays": overlays, "styleQuery": style_query}


# --- supervisor fallback -----------------------------------------------------------------------------
def _allowed(schema: dict[str, Any] | None) -> list[str]:
    props = (schema or {}).get("properties", {})
    field = props.get("nextAgent") or props.get("next_agent") or {}
    if "$ref" in field:
        name = field["$ref"].rsplit("/", 1)[-1]
        field = (schema or {}).get("$defs", {}).get(name, {})
    if "const" in field:  # a one-value Literal
        return [str(field["const"])]
    return [str(v) for v in field.get("enum", [])]


def compose_supervisor(ctx: Context) -> dict[str, Any]:
    allowed = _allowed(ctx.schema) or [str(v) for v in (ctx.data("allowed") or [])]
    expected = ctx.text("expected")
    if expected in allowed:
        choice, reason = expected, f"按完成标记，下一步应由 {expected} 处理"
    elif allowed:
        choice, reason = allowed[0], f"在允许的选项中选择最靠前的 {allowed[0]}"
    else:
        choice, reason = "END", "没有可选的下一步"
    return {"nextAgent": choice, "reason": reason}
