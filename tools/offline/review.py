"""The offline critic: scores a package on the five review dimensions from measurable properties."""

from __future__ import annotations

import json
import re
from typing import Any

from tools.offline.context import Context
from tools.offline.planning import BULLET, hexes, paragraphs_of
from tools.offline.text import is_concrete, keywords, strip_emoji

_ADVICE = re.compile(r"建议|一定|别|不要|记得|提前|最好|推荐|值得|适合|避开|优先|注意")


# --- review ------------------------------------------------------------------------------------------
def _clamp(x: float) -> float:
    return round(max(0.0, min(1.0, x)), 2)


def compose_review(ctx: Context) -> dict[str, Any]:
    draft = ctx.data("draft") or {}
    plans = ctx.data("plans") or []
    bindings = ctx.data("bindings") or []
    images = ctx.data("images") or []
    references = ctx.data("references") or []
    body, title = str(draft.get("body", "")), str(draft.get("title", ""))
    tags = draft.get("tags", []) or []
    paragraphs = paragraphs_of(draft)
    lines = [ln for ln in body.split("\n") if ln.strip()]
    units = [s for ln in lines for s in re.split(r"(?<=[。！？；])", ln) if len(s.strip()) >= 6]  # sentences
    concrete = sum(1 for s in units if is_concrete(s))
    useful = sum(1 for s in units if is_concrete(s) or _ADVICE.search(s))  # numbers, or what to do

    info = 0.4 + 0.05 * min(concrete, 4) + 0.04 * min(useful, 5) + (0.1 if 250 <= len(body) <= 1200 else 0.0)
    bound = {b.get("paragraphIndex") for b in bindings if isinstance(b, dict)}
    coverage = len(bound) / max(1, len(paragraphs))
    ok_images = [i for i in images if isinstance(i, dict) and i.get("status", "complete") == "complete"]
    image_ratio = len(ok_images) / max(1, len(plans)) if images else (1.0 if plans else 0.0)
    alignment = 0.35 + 0.35 * min(1.0, coverage * 1.5) + 0.3 * image_ratio
    palettes = [tuple(p.get("palette", [])) for p in plans if isinstance(p, dict)]
    same_palette = len(set(palettes)) <= 1 if palettes else False
    ref_hex = set(hexes(references))
    plan_hex = {h for p in palettes for h in p}
    style = 0.62 + (0.2 if same_palette else 0.05) + (0.15 if ref_hex and ref_hex & plan_hex else 0.1)
    avg_para = sum(len(p) for p in paragraphs) / max(1, len(paragraphs))
    readability = (
        0.5
        + (0.2 if avg_para <= 220 else 0.0)
        + (0.15 if len(paragraphs) >= 3 else 0.0)
        + (0.13 if any(BULLET.match(ln) or ln[:1] in "·•" for ln in lines) else 0.0)
    )
    emoji_used = strip_emoji(body + title) != body + title
    platform = (
        0.4
        + (0.2 if 6 <= len(title) <= 20 else 0.0)
        + (0.15 if 3 <= len(tags) <= 10 else 0.0)
        + (0.1 if emoji_used else 0.0)
        + (0.13 if re.search(r"收藏|关注|评论|点赞", body) else 0.0)
    )
    scores = {
        "infoDensity": _clamp(info),
        "textImageAlignment": _clamp(alignment),
        "styleConsistency": _clamp(style),
        "readability": _clamp(readability),
        "platformFit": _clamp(platform),
    }
    reasons_by_dim = {
        "infoDensity": f"正文只有{concrete}处具体信息（数字、价格、时长），干货偏少",
        "textImageAlignment": f"只有{len(bound)}/{len(paragraphs)}段配了图，图文对应不足",
        "styleConsistency": "各张图的配色不统一，整体风格不够一致",
        "readability": "段落偏长或缺少分点，手机上不易阅读",
        "platformFit": "标题长度、标签数量或互动引导不符合平台习惯",
    }
    suggestions_by_dim = {
        "infoDensity": "补充2-3条带数字的具体信息",
        "textImageAlignment": "为每个正文段落绑定一张对应的配图",
        "styleConsistency": "统一使用同一套配色和风格",
        "readability": "把长段落拆成分点，每段不超过4行",
        "platformFit": "标题控制在20字内，补足3-8个标签并加上收藏引导",
    }
    judged = list(scores)
    if "仅图片" in ctx.text("mode"):  # no post text: judge the images against the request
        scores.update(_image_only_scores(ctx, plans, image_ratio, same_palette))
        judged = ["textImageAlignment", "styleConsistency", "readability"]
    weak = [d for d in judged if scores[d] < 0.7]
    overall = _clamp(sum(scores.values()) / len(scores))
    return {
        "scores": scores,
        "overall": overall,
        "failReasons": [reasons_by_dim[d] for d in weak],
        "suggestions": [suggestions_by_dim[d] for d in weak] or [_praise(scores, concrete, len(paragraphs))],
    }


def _praise(scores: dict[str, float], concrete: int, paragraphs: int) -> str:
    """What this package does best, said specifically (not one stock line for every post)."""
    best = max(scores, key=lambda d: scores[d])
    return {
        "infoDensity": f"干货扎实：正文有{concrete}处具体信息，读者可以直接照做",
        "textImageAlignment": "图文对应到位：每张图都对应正文的一个段落",
        "styleConsistency": "配图风格统一，整组图放在一起很协调",
        "readability": f"结构清楚：{paragraphs}段短段落加分点，手机上读起来不累",
        "platformFit": "标题、标签和结尾引导都符合小红书的习惯",
    }[best]


def _image_only_scores(
    ctx: Context, plans: list[Any], image_ratio: float, same_palette: bool
) -> dict[str, float]:
    """Scores for an image-only package: plans on the request's topic, images generated, short overlays."""
    words = [w for w in keywords(ctx.request, limit=6) if len(w) > 1]
    plan_text = json.dumps(plans, ensure_ascii=False)
    on_topic = sum(w in plan_text for w in words) / max(1, len(words))
    overlays = [o for o in ctx.data("overlays") or [] if isinstance(o, dict)]
    short = all(len(str(o.get("headline") or "")) <= 16 and len(o.get("lines") or []) <= 4 for o in overlays)
    return {
        "infoDensity": 0.6,
        "platformFit": 0.6,
        "textImageAlignment": _clamp(0.4 + 0.3 * on_topic + 0.3 * image_ratio),
        "styleConsistency": _clamp(0.7 + (0.2 if same_palette else 0.0)),
        "readability": _clamp(0.6 + (0.2 if short else 0.0) + 0.15 * image_ratio),
    }
