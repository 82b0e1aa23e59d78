"""The image planner: layout + draft → `ImagePlan`s, paragraph→image bindings and text overlays, with the
prompts enhanced from the style library (seed 000's RAG node).

1. The model plans (`image_plan` prompt); `normalize_plans` then aligns its answer with the layout: one
   plan per layout item (same index and role), one overlay per image, bindings that point at existing
   paragraphs and images and include every paragraph the layout shows.
2. Style retrieval (`searchStyles`, once per run, on the model's `styleQuery` plus the cover's subject): when
   the best hit `matches` the similarity threshold, every prompt becomes `basePrompt，<style prompt>` and
   takes the style's palette — unless a style/layout reference image gave one (the reference wins).
   No match, or a failed lookup, keeps the planner's own prompts; retrieval never blocks the run.
3. Image-only requests (intent `image_only`) have no draft or layout: the planner works straight from the
   request — `imageCount` images, or the count the request states (三张 / 3张), cover first then details.

The plans are announced with `alignment_map_ready`; the checkpoint after this node pauses for an editor.
"""

from __future__ import annotations

import re
from typing import Any

from agents.artifacts import (
    Brief,
    Draft,
    ImagePlan,
    ImagePlanOutput,
    LayoutItem,
    LayoutSpec,
    ParagraphImageBinding,
    ReferenceAnalysis,
    TextOverlay,
)
from agents.context import StudioContext
from agents.events import AlignmentMapReady, Progress, emit
from agents.layout_planner import (
    MAX_IMAGES,
    draft_for_prompt,
    filler_item,
    image_count_of,
    preference_of,
)
from agents.node import agent, call_tool, prompt
from agents.state import StudioState
from tools.errors import StudioError
from tools.knowledge import StyleHit

NAME = "image_planner_agent"
MAX_BINDINGS = 40
ROLE_LABELS = {"cover": "封面", "detail": "内页", "result": "总结页"}
POSITION_LABELS = {"top": "上方", "center": "中部", "bottom": "下方"}
LINE_LIMITS = {"low": 2, "medium": 4, "high": 6}

_CN_DIGITS = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
_COUNT = re.compile(r"(\d+|十[一二三四五六七八九]?|[一两二三四五六七八九]十?)\s*(?:张|幅|副)")
_LEAD = re.compile(r"^(?:请你|请|麻烦你?|帮我|帮忙|给我|替我|我想要|我想|我要|想要|能不能|可以)")
_VERB = re.compile(r"^(?:生成|绘制|画|做|制作|设计|来|出|整|拍|搞)")
_QUANTITY = re.compile(r"^(?:[一两二三四五六七八九十几]+|\d+)\s*(?:张|幅|副|个|组|套|系列)")
_TAIL = re.compile(
    r"(?:的)?(?:小红书)?(?:图片|配图|插画|插图|照片|封面图|封面|海报|壁纸|头像|卡片|素材|图)+$"
)
_CLAUSE = re.compile(r"[，,。！!？?；;\n]")
_BULLET = re.compile(r"^\s*(?:\d+[.、)）]|[·•\-*✅✔️☑️👉]|\d\ufe0f?\u20e3)\s*")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")


# --- small text helpers ---------------------------------------------------------------------------
def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clean(text: str) -> str:
    return _EMOJI.sub("", _BULLET.sub("", text)).strip(" ：:，,。")


def requested_count(request: str) -> int | None:
    """The image count a request states ('三张', '3张', '十二幅'), clamped to 1..9; None if it states none."""
    match = _COUNT.search(request)
    if not match:
        return None
    word = match.group(1)
    if word.isdigit():
        value = int(word)
    elif word.startswith("十"):
        value = 10 + _CN_DIGITS.get(word[1:], 0)
    else:
        value = _CN_DIGITS[word[0]] * (10 if word.endswith("十") else 1)
    return max(1, min(MAX_IMAGES, value))


def request_subject(request: str) -> str:
    """What an image-only request is about: '帮我生成三张周末露营的图片' → '周末露营'."""
    clause = next((c.strip() for c in _CLAUSE.split(request) if c.strip()), request.strip())
    subject = clause
    while True:
        before = subject
        for pattern in (_LEAD, _VERB, _QUANTITY):
            subject = pattern.sub("", subject).strip()
        if subject == before:
            break
    subject = _TAIL.sub("", subject).strip().removesuffix("的").strip()
    return _short(subject or clause or "图片", 40)


def _paragraph_lines(paragraph: str, limit: int) -> tuple[str | None, list[str]]:
    """(heading, bullet lines) drawn from one paragraph of the draft."""
    lines = [ln.strip() for ln in paragraph.split("\n") if _clean(ln)]
    heading = None
    if len(lines) > 1 and not _BULLET.match(lines[0]):
        heading, lines = _short(_clean(lines[0]), 12), lines[1:]
    items = [_clean(ln) for ln in lines]
    if len(items) == 1:
        items = [s.strip() for s in re.split(r"[，。！？；]", items[0]) if len(s.strip()) >= 4]
    return heading, [_short(item, 22) for item in items if item][:limit]


# --- layout for image-only requests ---------------------------------------------------------------
def image_only_layout(count: int, subject: str) -> LayoutSpec:
    """Cover first, then details, all about the request's subject, little text."""
    items = [
        LayoutItem(
            index=index,
            role="cover" if index == 1 else "detail",
            visual_focus=_short(subject, 40),
            text_density="low",
            text_position="center" if index == 1 else "bottom",
            blocks=["headline"],
        )
        for index in range(1, count + 1)
    ]
    return LayoutSpec(preference="visual-first", items=items, notes="只生成图片：封面在前，其余为细节图")


# --- normalisation --------------------------------------------------------------------------------
def _fallback_plan(item: LayoutItem, topic: str) -> ImagePlan:
    page = ROLE_LABELS.get(item.role, "内页")
    room = POSITION_LABELS.get(item.text_position, "中部")
    base = (
        f"小红书风格竖版配图（3:4），{page}，主题「{topic}」，画面主体：{item.visual_focus}，"
        f"构图简洁、光线柔和，为文字留出{room}空间"
    )
    return ImagePlan(
        index=item.index,
        role=item.role,
        subject=item.visual_focus,
        base_prompt=base,
        prompt=base,
        background="gradient" if item.role == "cover" else "solid",
    )


def _fallback_overlay(
    item: LayoutItem, total: int, paragraphs: list[str], draft: Draft | None, subject: str | None
) -> TextOverlay:
    if draft is None:  # image-only: a short headline about the subject
        return TextOverlay(
            image_index=item.index,
            headline=_short(subject or item.visual_focus, 16 if item.role == "cover" else 12),
            caption=None if item.role == "cover" else f"{item.index}/{total}",
            position=item.text_position,
        )
    text = "\n".join(paragraphs[p] for p in item.paragraph_indexes[:1])
    heading, lines = _paragraph_lines(text, LINE_LIMITS[item.text_density])
    if item.role == "cover":
        return TextOverlay(
            image_index=item.index,
            headline=_short(_clean(draft.title), 18),
            lines=[_short(_clean(text), 22)] if _clean(text) else [],
            caption=" ".join(f"#{t}" for t in draft.tags[:3]),
            position=item.text_position,
        )
    return TextOverlay(
        image_index=item.index,
        headline="划重点" if item.role == "result" else heading or _short(item.visual_focus, 12),
        lines=lines,
        caption=f"{item.index}/{total}",
        position=item.text_position,
    )


def normalize_plans(
    output: ImagePlanOutput,
    layout: LayoutSpec,
    *,
    paragraphs: list[str],
    draft: Draft | None,
    topic: str,
    subject: str | None = None,
) -> ImagePlanOutput:
    """Align the model's answer with the layout (see the module docstring). Pure."""
    items = sorted(layout.items, key=lambda item: item.index)
    total = len(items)
    by_index = {plan.index: plan for plan in output.plans}
    overlays_by_index = {overlay.image_index: overlay for overlay in output.overlays}

    plans: list[ImagePlan] = []
    overlays: list[TextOverlay] = []
    for position, item in enumerate(items):
        plan = by_index.get(item.index)
        if plan is None and len(output.plans) == total:
            plan = output.plans[position]
        if plan is None:
            plan = _fallback_plan(item, topic)
        plans.append(
            plan.model_copy(
                update={"index": item.index, "role": item.role, "prompt": plan.prompt or plan.base_prompt}
            )
        )
        fallback = _fallback_overlay(item, total, paragraphs, draft, subject)
        overlay = overlays_by_index.get(item.index)
        if overlay is None or draft is None:
            overlay = fallback
        elif not (overlay.headline or "").strip():
            overlay = overlay.model_copy(update={"headline": fallback.headline})
        overlays.append(
            overlay.model_copy(update={"image_index": item.index, "position": item.text_position})
        )

    images = {item.index for item in items}
    seen: set[tuple[int, int]] = set()
    bindings: list[ParagraphImageBinding] = []

    def bind(binding: ParagraphImageBinding) -> None:
        key = (binding.paragraph_index, binding.image_index)
        if key not in seen and binding.paragraph_index < len(paragraphs) and binding.image_index in images:
            seen.add(key)
            bindings.append(binding)

    for binding in output.bindings:
        bind(binding)
    for item in items:
        for paragraph in item.paragraph_indexes:
            bind(
                ParagraphImageBinding(
                    paragraph_index=paragraph,
                    image_index=item.index,
                    reason=f"版式安排第{item.index}张图展示第{paragraph + 1}段"
                    f"（{_short(item.visual_focus, 12)}）",
                )
            )
    bindings.sort(key=lambda b: (b.image_index, b.paragraph_index))
    return ImagePlanOutput(
        plans=plans, bindings=bindings[:MAX_BINDINGS], overlays=overlays, style_query=output.style_query
    )


# --- style retrieval (RAG) ------------------------------------------------------------------------
def reference_palette(references: list[ReferenceAnalysis]) -> list[str]:
    """The palette of the first style/layout reference that has one (it beats the style library's)."""
    for ref in sorted(references, key=lambda r: r.usage != "style"):
        if ref.usage in ("style", "layout") and ref.palette:
            return list(ref.palette[:5])
    return []


def style_query_of(output: ImagePlanOutput, brief: Brief | None, references: list[ReferenceAnalysis]) -> str:
    """What to look up: the planner's style query (else the references' and brief's words) + cover subject."""
    base = output.style_query.strip()
    if not base:
        words = [w for r in references for w in r.style_keywords[:3]]
        if brief is not None:
            words += [brief.topic, brief.tone]
        base = " ".join(words)
    cover = output.plans[0].subject if output.plans else ""
    parts = [base, cover] if cover and cover not in base else [base]
    return " ".join(p for p in parts if p).strip()[:200]


def apply_style(
    plans: list[ImagePlan], hit: StyleHit | None, threshold: float, ref_palette: list[str]
) -> list[ImagePlan]:
    """Enhance every plan with the matched style; without a match keep the planner's prompts."""
    out = []
    for plan in plans:
        if hit is not None and hit.matches(threshold):
            style = hit.style
            update: dict[str, Any] = {
                "prompt": f"{plan.base_prompt}，{style.prompt}"[:1200],
                "style": style.name[:40],
                "style_similarity": round(hit.similarity, 4),
                "palette": ref_palette or list(style.palette[:8]),
            }
        else:
            update = {"prompt": plan.base_prompt, "style": None, "style_similarity": None}
            if ref_palette:
                update["palette"] = ref_palette
        out.append(plan.model_copy(update=update))
    return out


async def find_style(query: str, ctx: StudioContext) -> StyleHit | None:
    """The best style for `query`, or None; a failed lookup is reported and treated as 'no match'."""
    if not query:
        return None
    try:
        hits: list[StyleHit] = await call_tool(
            NAME,
            "searchStyles",
            {"query": query, "limit": 3},
            lambda: ctx.knowledge.search_styles(query, limit=3),
        )
    except StudioError as exc:
        emit(Progress(agent=NAME, content=f"风格库检索失败（{exc.message[:80]}），使用原始提示词"))
        return None
    return hits[0] if hits else None


# --- the node -------------------------------------------------------------------------------------
def _image_only(state: StudioState) -> bool:
    return (state.get("intent") or {}).get("intent") == "image_only"


@agent(NAME)
async def image_planner_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Plan every image, bind paragraphs to images, plan the overlays and apply the style library."""
    request = state.get("request", "")
    raw_brief = state.get("creativeBrief")
    brief = Brief.model_validate(raw_brief) if raw_brief else None
    references = [ReferenceAnalysis.model_validate(r) for r in state.get("referenceAnalyses") or []]
    raw_draft = state.get("generatedContent")
    raw_layout = state.get("layoutSpec")
    image_only = _image_only(state) or not raw_draft

    subject: str | None = None
    if image_only:
        draft = None
        subject = brief.topic if brief else request_subject(request)
        count = requested_count(request) or image_count_of(state)
        layout = image_only_layout(count, subject)
        emit(Progress(agent=NAME, content=f"只生成图片：按需求规划 {count} 张「{subject}」"))
    else:
        draft = Draft.model_validate(raw_draft)
        if raw_layout:
            layout = LayoutSpec.model_validate(raw_layout)
        else:  # a layout is always planned first; keep going with a plain one if it is missing
            count = image_count_of(state)
            focus = brief.topic if brief else draft.title
            items = [filler_item(index, count, focus) for index in range(1, count + 1)]
            layout = LayoutSpec(preference=preference_of(state), items=items)
    paragraphs = draft.paragraphs() if draft else []
    topic = brief.topic if brief else subject or (draft.title if draft else request_subject(request))

    feedback = (state.get("userFeedback") or {}).get(NAME) or None
    messages = prompt("image_plan").render(
        request=request,
        brief=brief,
        draft=draft_for_prompt(draft) if draft else None,
        layout=layout,
        references=references or None,
        feedback=feedback,
        review_feedback=state.get("reviewFeedback") or None,
    )
    answer = await ctx.llm.complete_structured("image_plan", messages, ImagePlanOutput)
    planned = normalize_plans(
        answer, layout, paragraphs=paragraphs, draft=draft, topic=topic, subject=subject
    )

    threshold = ctx.options.style_similarity_threshold
    hit = await find_style(style_query_of(planned, brief, references), ctx)
    plans = apply_style(planned.plans, hit, threshold, reference_palette(references))
    if hit is not None and hit.matches(threshold):
        how = "名称命中" if hit.mentioned else f"相似度 {hit.similarity:.2f}"
        emit(
            Progress(
                agent=NAME,
                content=f"匹配到风格「{hit.style.name}」（{how}），已增强 {len(plans)} 张图的提示词",
            )
        )
    else:
        best = f"最接近的「{hit.style.name}」相似度 {hit.similarity:.2f}" if hit else "风格库没有结果"
        emit(Progress(agent=NAME, content=f"未匹配到风格（{best}，阈值 {threshold:.2f}），使用原始提示词"))

    bindings = [b.model_dump(mode="json", by_alias=True) for b in planned.bindings]
    overlays = [o.model_dump(mode="json", by_alias=True) for o in planned.overlays]
    emit(
        AlignmentMapReady(
            paragraph_image_bindings=bindings, text_overlay_plan=overlays, body_blocks=paragraphs
        )
    )
    return {
        "imagePlans": [p.model_dump(mode="json", by_alias=True) for p in plans],
        "paragraphImageBindings": bindings,
        "textOverlayPlan": overlays,
        "imagePlansComplete": True,
        "imagePlansApproved": False,
        "userFeedback": {NAME: ""},
    }
