"""The layout planner: the approved draft → a `LayoutSpec`, one item per image to make.

The model proposes the layout; `normalize_layout` then makes it hold whatever the model wrote: exactly
`imageCount` items numbered 1..N, item 1 the cover (and the only cover), paragraph indexes that exist in
the draft, every body paragraph shown by some image when there is more than the cover, text density that
follows the creator's layout preference (or a layout reference image when the preference is the default).
The spec is announced right away (`layout_spec_ready`).
"""

from __future__ import annotations

from typing import Any, cast, get_args

from agents.artifacts import (
    Draft,
    LayoutItem,
    LayoutPreference,
    LayoutSpec,
    ReferenceAnalysis,
    TextDensity,
)
from agents.context import StudioContext
from agents.events import LayoutSpecReady, Message, emit
from agents.node import agent, prompt
from agents.state import StudioState
from tools.errors import StudioError
from tools.labels import PREFERENCE_LABELS, ROLE_LABELS, blocks_text, plain

NAME = "layout_planner_agent"
DEFAULT_IMAGE_COUNT = 4
MAX_IMAGES = 9
PREFERENCES: tuple[str, ...] = get_args(LayoutPreference)
DEFAULT_BLOCKS: dict[str, list[str]] = {
    "cover": ["headline", "subtitle"],
    "detail": ["heading", "bullets"],
    "result": ["headline", "checklist"],
}


def image_count_of(state: StudioState) -> int:
    """`imageCount` clamped to 1..9 (default 4)."""
    try:
        count = int(state.get("imageCount") or DEFAULT_IMAGE_COUNT)
    except (TypeError, ValueError):
        count = DEFAULT_IMAGE_COUNT
    return max(1, min(MAX_IMAGES, count))


def preference_of(state: StudioState) -> LayoutPreference:
    value = state.get("layoutPreference") or "balanced"
    return cast(LayoutPreference, value if value in PREFERENCES else "balanced")


def body_indexes(paragraph_count: int) -> list[int]:
    """Paragraphs an image should show: all but the hook (first) and the call to action (last) when there
    are at least three; otherwise every paragraph."""
    if paragraph_count >= 3:
        return list(range(1, paragraph_count - 1))
    return list(range(paragraph_count))


def filler_item(index: int, count: int, topic: str) -> LayoutItem:
    """A plain item for a position the model left out: cover, details, and a result page last."""
    role = "cover" if index == 1 else "result" if index == count and count >= 3 else "detail"
    return LayoutItem(
        index=index,
        role=role,
        visual_focus=topic[:40] or "主题画面",
        text_density="low" if role == "cover" else "medium",
        text_position="center" if role == "cover" else "top" if role == "detail" else "bottom",
        blocks=list(DEFAULT_BLOCKS[role]),
    )


def _density(item: LayoutItem, preference: LayoutPreference, reference: TextDensity | None) -> TextDensity:
    if preference == "visual-first":
        return "low"
    if item.role == "cover":
        return "medium" if preference == "dense" and item.text_density == "high" else item.text_density
    if preference == "dense":
        return "high"
    return reference or item.text_density


def normalize_layout(
    spec: LayoutSpec,
    *,
    paragraph_count: int,
    count: int,
    preference: LayoutPreference,
    topic: str,
    layout_reference: ReferenceAnalysis | None = None,
) -> LayoutSpec:
    """Make the model's spec valid for this draft (see the module docstring). Pure."""
    proposed = sorted(spec.items, key=lambda item: item.index)[:count]
    items = [item.model_copy(update={"index": position}) for position, item in enumerate(proposed, start=1)]
    items += [filler_item(position, count, topic) for position in range(len(items) + 1, count + 1)]
    reference_density = layout_reference.text_density if layout_reference else None

    fixed: list[LayoutItem] = []
    for item in items:
        role = "cover" if item.index == 1 else ("detail" if item.role == "cover" else item.role)
        paragraphs = sorted({p for p in item.paragraph_indexes if 0 <= p < paragraph_count})
        if role == "cover" and not paragraphs and paragraph_count:
            paragraphs = [0]
        update: dict[str, Any] = {
            "role": role,
            "paragraph_indexes": paragraphs,
            "blocks": item.blocks or list(DEFAULT_BLOCKS[role]),
        }
        fixed.append(item.model_copy(update=update))
    fixed = [
        item.model_copy(update={"text_density": _density(item, preference, reference_density)})
        for item in fixed
    ]
    _cover_body(fixed, paragraph_count)

    notes = plain(spec.notes)
    if layout_reference is not None:
        notes = f"{notes}（参照版式参考图：{layout_reference.layout}）".strip()[:400]
    return LayoutSpec(preference=preference, items=fixed, notes=notes)


def _cover_body(items: list[LayoutItem], paragraph_count: int) -> None:
    """Give every uncovered body paragraph to the least-loaded, nearest non-cover item, and every
    non-cover item without a paragraph the least-shown body paragraph. In place."""
    pages = [item for item in items if item.role != "cover"]
    body = body_indexes(paragraph_count)
    if not pages or not body:
        return
    shown = {p for item in items for p in item.paragraph_indexes}
    for paragraph in (p for p in body if p not in shown):
        page = min(
            pages,
            key=lambda item: (
                len(item.paragraph_indexes),
                min((abs(p - paragraph) for p in item.paragraph_indexes), default=0),
                item.index,
            ),
        )
        page.paragraph_indexes = sorted([*page.paragraph_indexes, paragraph])
    for page in pages:
        if not page.paragraph_indexes:
            uses = {p: sum(p in item.paragraph_indexes for item in items) for p in body}
            page.paragraph_indexes = [min(body, key=lambda p: (uses[p], p))]


def layout_summary(spec: LayoutSpec) -> str:
    """The layout in plain Chinese for the editor: pages, their text blocks, the text density."""
    pages = "；".join(
        f"第{item.index}张{ROLE_LABELS.get(item.role, item.role)}（{blocks_text(item.blocks)}）"
        for item in spec.items
    )
    return (
        f"版式：共{len(spec.items)}张，{pages}；文字密度「{PREFERENCE_LABELS.get(spec.preference, '均衡')}」"
    )


def draft_for_prompt(draft: Draft) -> dict[str, Any]:
    """The draft with its paragraphs numbered, so a model can cite them by index."""
    return {
        **draft.model_dump(mode="json", by_alias=True),
        "paragraphs": [{"index": i, "text": text} for i, text in enumerate(draft.paragraphs())],
    }


@agent(NAME)
async def layout_planner_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Plan the image layout for the approved draft."""
    raw_draft = state.get("generatedContent")
    if not raw_draft:
        raise StudioError("还没有可以排版的文案", code="LAYOUT_NO_DRAFT")
    draft = Draft.model_validate(raw_draft)
    count = image_count_of(state)
    preference = preference_of(state)
    references = [ReferenceAnalysis.model_validate(r) for r in state.get("referenceAnalyses") or []]
    layout_reference = next((r for r in references if r.usage == "layout"), None)
    review = state.get("reviewFeedback") or None
    brief = state.get("creativeBrief") or None
    messages = prompt("layout").render(
        brief=brief,
        draft=draft_for_prompt(draft),
        image_count=count,
        preference=preference,
        references=references or None,
        review_feedback=review if review and review.get("owner") == NAME else None,
    )
    proposed = await ctx.llm.complete_structured("layout", messages, LayoutSpec)
    spec = normalize_layout(
        proposed,
        paragraph_count=len(draft.paragraphs()),
        count=count,
        preference=preference,
        topic=str((brief or {}).get("topic") or draft.title),
        layout_reference=layout_reference,
    )
    wire = spec.model_dump(mode="json", by_alias=True)
    emit(LayoutSpecReady(layout_spec=wire))
    emit(Message(agent=NAME, content=layout_summary(spec)))
    return {"layoutSpec": wire, "layoutComplete": True}
