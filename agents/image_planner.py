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
from agents.events import AlignmentMapReady, Message, Progress, emit
from agents.layout_planner import (
    MAX_IMAGES,
    draft_for_prompt,
    filler_item,
    image_count_of,
    preference_of,
)
from agents.node import agent, call_tool, prompt
from agents.state import StudioState
from tools.art import LAYOUT_LABELS, choose_layout, is_dark, layout_key, mood_palette, scene_mood
from tools.cardtext import clip, fragment_reason
from tools.errors import StudioError
from tools.knowledge import StyleHit
from tools.labels import POSITION_LABELS, ROLE_LABELS
from tools.overlays import card_overlays, tidy_overlays

NAME = "image_planner_agent"
MAX_BINDINGS = 40

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


def _overlays_for(
    items: list[LayoutItem],
    output: ImagePlanOutput,
    paragraphs: list[str],
    draft: Draft | None,
    subject: str | None,
) -> list[TextOverlay]:
    """One overlay per item: the model's where it wrote one (held to the card rules), else planned from
    the draft; image-only cards get a short headline about the subject."""
    total = len(items)
    if draft is None:
        return [
            TextOverlay(
                image_index=item.index,
                headline=clip(subject or item.visual_focus, 16 if item.role == "cover" else 12),
                position=item.text_position,
            )
            for item in items
        ]
    wire_items = [item.model_dump(mode="json", by_alias=True) for item in items]
    planned = {o["imageIndex"]: o for o in card_overlays(wire_items, paragraphs, draft.title, draft.tags)}
    given = {o.image_index: o for o in output.overlays}
    merged = []
    for position, item in enumerate(items):
        overlay = given.get(item.index)
        if overlay is None and len(output.overlays) == total:
            overlay = output.overlays[position]
        raw = planned[item.index] if overlay is None else overlay.model_dump(mode="json", by_alias=True)
        if not raw.get("lines") and item.role != "cover":
            raw["lines"] = planned[item.index].get("lines", [])
        if not (raw.get("headline") or "").strip():
            raw["headline"] = planned[item.index].get("headline")
        merged.append({**raw, "imageIndex": item.index, "density": item.text_density})
    roles = {item.index: item.role for item in items}
    positions = {item.index: item.text_position for item in items}
    return [
        TextOverlay.model_validate({**o, "position": positions[int(o["imageIndex"])]})
        for o in tidy_overlays(merged, roles, draft.title)
    ]


def _whole_subject(plan: ImagePlan, item: LayoutItem, topic: str, sources: str) -> str:
    """The plan's subject if it is a whole phrase, else the layout's focus, else the topic."""
    for candidate in (plan.subject, item.visual_focus, topic):
        if candidate and not fragment_reason(candidate, sources):
            return candidate
    return topic


def normalize_plans(
    output: ImagePlanOutput,
    layout: LayoutSpec,
    *,
    paragraphs: list[str],
    draft: Draft | None,
    topic: str,
    subject: str | None = None,
    content_type: str = "guide",
    style: str = "",
) -> ImagePlanOutput:
    """Align the model's answer with the layout (see the module docstring). Pure."""
    items = sorted(layout.items, key=lambda item: item.index)
    total = len(items)
    by_index = {plan.index: plan for plan in output.plans}
    overlays = _overlays_for(items, output, paragraphs, draft, subject)
    sources = "\n".join([*paragraphs, draft.title if draft else "", subject or "", topic])
    key = draft.title if draft else topic

    plans: list[ImagePlan] = []
    for position, item in enumerate(items):
        plan = by_index.get(item.index)
        if plan is None and len(output.plans) == total:
            plan = output.plans[position]
        if plan is None:
            plan = _fallback_plan(item, topic)
        chosen = layout_key(plan.layout, item.role) or choose_layout(item.role, content_type, style, key)
        plans.append(
            plan.model_copy(
                update={
                    "index": item.index,
                    "role": item.role,
                    "prompt": plan.prompt or plan.base_prompt,
                    "subject": _whole_subject(plan, item, topic, sources),
                    "layout": chosen,
                    "overlay": None,  # only an editor writes a plan's own overlay
                }
            )
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


# Palettes for a colour an editor names in feedback (第2张图换成蓝色调, 封面用绿色): background, panel,
# accent, text — dark enough for the cards' light text, in the studio's card conventions. Hand-written.
_COLOURS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("蓝", ("#0E1B33", "#1B3560", "#4DA3FF", "#EAF3FF")),
    ("绿", ("#0E2419", "#1C4431", "#4CCB82", "#EAF8EF")),
    ("红", ("#2A0E10", "#4E1A1E", "#FF5A5F", "#FFEDEE")),
    ("粉", ("#2E1420", "#55253B", "#FF8FB8", "#FFF0F5")),
    ("紫", ("#1C1230", "#36235C", "#A98BFF", "#F3EEFF")),
    ("橙", ("#2B1608", "#4F2A12", "#FF9A3D", "#FFF1E4")),
    ("黄", ("#2A2208", "#4D3F12", "#FFD23F", "#FFF9E3")),
    ("灰", ("#1A1B1E", "#33353A", "#B8BCC6", "#F2F3F5")),
)
_COLOUR_NAMES = {palette[2]: f"{name}色" for name, palette in _COLOURS}
_ASKED_COLOUR = re.compile(r"(?:换成|改成|改为|用|要|变成|来点|偏)?([蓝绿红粉紫橙黄灰])色")


def asked_palette(feedback: str) -> list[str] | None:
    """The palette of the colour a feedback names (蓝色调, 改成绿色), or None."""
    match = _ASKED_COLOUR.search(feedback)
    if match is None:
        return None
    return next((list(p) for name, p in _COLOURS if name == match.group(1)), None)


def fit_mood(
    plans: list[ImagePlan], head: str, body: str, key: str, ref_palette: list[str], *, styled: bool
) -> list[ImagePlan]:
    """Palettes that follow the scene's mood and time of day: a night scene is always dark; another mood
    (cosy → warm, fresh → light…) sets the palette when no style library entry gave one. A style/layout
    reference image's palette wins over both."""
    mood = scene_mood(head, body)
    if ref_palette or mood is None or (styled and mood.key != "night"):
        return plans
    palette = mood_palette(mood, key)
    return [plan.model_copy(update={"palette": palette}) for plan in plans]


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


def look_summary(plans: list[ImagePlan]) -> str:
    """What the cards will look like, in plain Chinese: count, layouts per role, colours."""
    layouts = []
    for role in ("cover", "detail", "result"):
        names = dict.fromkeys(LAYOUT_LABELS.get(p.layout or "", "") for p in plans if p.role == role)
        label = "、".join(n for n in names if n)
        if label:
            layouts.append(f"{ROLE_LABELS[role]}用「{label}」")
    tone = "深色" if plans and is_dark(list(plans[0].palette)) else "浅色"
    return f"已规划 {len(plans)} 张图：" + "，".join(layouts) + f"，{tone}配色"


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
    # plans made again (feedback, a review's redo, a revision) are asked anew, never from the cache
    redo = bool(state.get("imagePlans"))
    answer = await ctx.llm.complete_structured("image_plan", messages, ImagePlanOutput, fresh=redo)
    content_type = brief.content_type if brief else "guide"
    style_words = " ".join(w for r in references for w in r.style_keywords[:2])
    planned = normalize_plans(
        answer,
        layout,
        paragraphs=paragraphs,
        draft=draft,
        topic=topic,
        subject=subject,
        content_type=content_type,
        style=style_words,
    )

    threshold = ctx.options.style_similarity_threshold
    hit = await find_style(style_query_of(planned, brief, references), ctx)
    ref_palette = reference_palette(references)
    plans = apply_style(planned.plans, hit, threshold, ref_palette)
    head = " ".join([topic, draft.title if draft else "", *(f"{p.subject} {p.base_prompt}" for p in plans)])
    styled = hit is not None and hit.matches(threshold)
    key = draft.title if draft else topic
    plans = fit_mood(plans, head, "\n".join(paragraphs), key, ref_palette, styled=styled)
    # the editor named a colour — now, or in the revision this run makes (whose message is consumed by the
    # first plan, while the review may send the plans back for more rounds): it wins
    revising = str((state.get("revisions") or [{}])[-1].get("message") or "")
    asked = (asked_palette(feedback) if feedback else None) or (asked_palette(revising) if revising else None)
    if asked:
        only = state.get("redrawOnly") or []
        plans = [p.model_copy(update={"palette": asked}) if not only or k + 1 in only else p
                 for k, p in enumerate(plans)]
        emit(Message(agent=NAME, content=f"按修改意见换成{_COLOUR_NAMES[asked[2]]}配色"))
    if hit is not None and hit.matches(threshold):
        how = "名称命中" if hit.mentioned else f"相似度 {hit.similarity:.2f}，阈值 {threshold:.2f}"
        emit(
            Message(
                agent=NAME,
                content=f"匹配到风格「{hit.style.name}」，已增强 {len(plans)} 张图的提示词",
                detail=f"风格库检索：{how}",
            )
        )
    else:
        best = f"最接近的「{hit.style.name}」相似度 {hit.similarity:.2f}" if hit else "风格库没有结果"
        emit(
            Message(
                agent=NAME,
                content="风格库里没有足够接近的风格，使用规划时的提示词",
                detail=f"风格库检索：{best}，阈值 {threshold:.2f}",
            )
        )
    emit(Message(agent=NAME, content=look_summary(plans)))

    bindings = [b.model_dump(mode="json", by_alias=True) for b in planned.bindings]
    overlays = [o.model_dump(mode="json", by_alias=True) for o in planned.overlays]
    wired = [p.model_dump(mode="json", by_alias=True) for p in plans]
    previous = list(state.get("imagePlans") or [])
    only = state.get("redrawOnly") or []
    if only and len(previous) == len(wired):  # a revision of some pictures: the others keep their plans
        pairs = enumerate(zip(wired, previous, strict=True))
        wired = [new if k + 1 in only else old for k, (new, old) in pairs]
        # the redrawn pictures' overlays follow the post as it is now (its title may have changed since)
        indexes = {p["index"] for k, p in enumerate(wired) if k + 1 not in only}
        kept = [o for o in state.get("textOverlayPlan") or [] if o.get("imageIndex") in indexes]
        overlays = [*kept, *(o for o in overlays if o.get("imageIndex") not in indexes)]
        overlays.sort(key=lambda o: o.get("imageIndex") or 0)
    emit(
        AlignmentMapReady(
            paragraph_image_bindings=bindings, text_overlay_plan=overlays, body_blocks=paragraphs
        )
    )
    return {
        "imagePlans": wired,
        "paragraphImageBindings": bindings,
        "textOverlayPlan": overlays,
        "imagePlansComplete": True,
        "imagePlansApproved": False,
        "userFeedback": {NAME: ""},
    }
