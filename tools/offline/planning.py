"""Offline composers for the visual and control tasks: reference reading, layout, image plans and the
supervisor's fallback choice. The review composer is in `tools.offline.review`."""

from __future__ import annotations

import re
from typing import Any

from tools.labels import label
from tools.offline.context import Context, walk
from tools.offline.text import dedupe, keywords, shorten, strip_emoji

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


def compose_layout(ctx: Context) -> dict[str, Any]:
    draft = ctx.data("draft") or {}
    paragraphs = paragraphs_of(draft)
    count = _int(ctx.sections.get("image_count"), 4, 1, 9)
    preference = ctx.text("preference") or "balanced"
    density = {"dense": "high", "visual-first": "low"}.get(preference, "medium")
    # the first paragraph is the hook and the last the call to action: details illustrate the middle
    body_indexes = list(range(1, len(paragraphs) - 1)) or [0]
    items = []
    for index in range(1, count + 1):
        if index == 1:
            role, paras, blocks, position = "cover", [0], ["headline", "subtitle", "tags"], "center"
            focus = [ctx.topic]
        elif index == count and count >= 3:
            role, paras, blocks, position = "result", [body_indexes[0]], ["headline", "checklist"], "bottom"
            focus = [f"{ctx.topic}清单"]
        else:
            slot = (index - 2) % len(body_indexes)
            role, paras, blocks, position = "detail", [body_indexes[slot]], ["heading", "bullets"], "top"
            source = paragraphs[paras[0]] if paragraphs else ctx.topic
            focus = [w for w in keywords(source, 4) if w not in ctx.topic][:2] or [ctx.topic]
        items.append(
            {
                "index": index,
                "role": role,
                "visualFocus": "、".join(focus),
                "textDensity": "low" if role == "cover" and density != "high" else density,
                "textPosition": position,
                "blocks": blocks,
                "paragraphIndexes": paras,
            }
        )
    return {
        "preference": preference,
        "items": items,
        "notes": f"共{count}张：封面抓眼球，中间{max(0, count - 2)}张讲细节，最后一张做总结；"
        f"文字密度按「{label('layout', preference)}」安排。",
    }


# --- image plans -------------------------------------------------------------------------------------
def _bullets(paragraph: str, limit: int) -> tuple[str | None, list[str]]:
    lines = [ln.strip() for ln in paragraph.split("\n") if ln.strip()]
    heading = None
    if len(lines) > 1 and not BULLET.match(lines[0]):
        heading = shorten(strip_emoji(lines[0]).strip(), 16)
        lines = lines[1:]
    items = [shorten(strip_emoji(BULLET.sub("", ln)).strip(), 22) for ln in lines]
    if len(items) == 1:
        items = [shorten(s, 22) for s in re.split(r"[，。！？；]", items[0]) if len(s) >= 4]
    return heading, [i for i in items if i][:limit]


def compose_image_plans(ctx: Context) -> dict[str, Any]:
    draft = ctx.data("draft") or {}
    layout = ctx.data("layout") or {}
    theme = ctx.theme
    paragraphs = paragraphs_of(draft)
    references = ctx.data("references") or []
    ref_palette = hexes(references)[:5]
    ref_words = [w for r in references if isinstance(r, dict) for w in r.get("styleKeywords", [])]
    palette = ref_palette or list(theme.palette)
    title = str(draft.get("title") or ctx.topic)
    tags = [str(t) for t in draft.get("tags", [])][:3]
    items = layout.get("items") or [
        {
            "index": 1,
            "role": "cover",
            "visualFocus": ctx.topic,
            "textPosition": "center",
            "paragraphIndexes": [0],
        }
    ]
    limit = {"high": 6, "medium": 4, "low": 2}
    plans, overlays, bindings = [], [], []
    for item in items:
        index, role = int(item.get("index", 1)), str(item.get("role", "detail"))
        paras = [
            p for p in item.get("paragraphIndexes", []) if isinstance(p, int) and 0 <= p < len(paragraphs)
        ]
        text = paragraphs[paras[0]] if paras else ""
        focus = str(item.get("visualFocus") or ctx.topic)
        heading, bullets = _bullets(text, limit.get(str(item.get("textDensity")), 4))
        if role == "cover":
            headline, lines = (
                shorten(strip_emoji(title), 18),
                [shorten(strip_emoji(text), 22)] if text else [],
            )
        elif role == "result":
            headline, lines = "划重点", bullets or [shorten(strip_emoji(text), 22)]
        else:
            headline, lines = heading or shorten(focus, 12), bullets
        scene = f"{theme.scene}，画面主体：{focus}"
        page = {"cover": "封面", "detail": "内页", "result": "总结页"}.get(role, "内页")
        room = {"top": "上方", "center": "中部", "bottom": "下方"}.get(str(item.get("textPosition")), "中部")
        mood = "、".join(ref_words[:3]) or theme.tone
        base = f"小红书风格竖版配图（3:4），{page}，主题「{ctx.topic}」，{scene}，{mood}的氛围，"
        base += f"为文字留出{room}空间"
        plans.append(
            {
                "index": index,
                "role": role,
                "subject": shorten(focus, 40),
                "basePrompt": base,
                "prompt": base,
                "palette": palette[:5],
                "background": "gradient"
                if role == "cover"
                else "split"
                if role == "detail" and index % 2
                else "solid",
            }
        )
        overlays.append(
            {
                "imageIndex": index,
                "headline": headline,
                "lines": [ln for ln in lines if ln][:6],
                "caption": " ".join(f"#{t}" for t in tags) if role == "cover" else f"{index}/{len(items)}",
                "position": item.get("textPosition", "center"),
            }
        )
        for p in paras:
            bindings.append(
                {
                    "paragraphIndex": p,
                    "imageIndex": index,
                    "reason": f"第{index}张图呈现第{p + 1}段的「{shorten(focus, 12)}」",
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
