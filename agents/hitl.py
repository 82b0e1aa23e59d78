"""Human-in-the-loop: the two checkpoints (content, image plans) and requirement clarification.

Each pause is its own small node that calls `interrupt()` with the `ask_user` payload; the runner turns
the interrupt into `ask_user` + `workflow_paused` events. A resumed node re-runs from its top, so nothing
is emitted or computed before `interrupt()` — and the agent before it never re-runs.

Resume values are validated here (`parse_confirmation`), so the API and the CLI reject a bad confirm
before resuming, and a node never has to deal with one. Strictly: JSON types are never converted (an
overlay's `firstNumber: "2"` is refused, not read as 2).
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from agents.artifacts import Draft, ImagePlan
from agents.context import StudioContext
from agents.events import AskOption, AskUser, ContentUpdate, emit
from agents.state import StudioState
from tools.art import LAYOUT_LABELS, LAYOUTS, layout_key
from tools.images import OFFLINE_NAMES, closest_size
from tools.providers import image_price_usd

HitlKind = Literal["content", "image_plans"]

THEME_OPTIONS = [
    AskOption(id="outdoor", label="户外露营", description="露营、徒步、城市周边玩法"),
    AskOption(id="food", label="美食探店", description="家常菜、减脂餐、探店"),
    AskOption(id="travel", label="旅行攻略", description="周末游、城市漫步、小众目的地"),
    AskOption(id="fashion", label="穿搭分享", description="通勤、约会、季节穿搭"),
    AskOption(id="beauty", label="美妆护肤", description="护肤步骤、底妆、好物"),
    AskOption(id="home", label="家居生活", description="收纳、改造、租房布置"),
    AskOption(id="fitness", label="健身运动", description="居家训练、减脂、跑步"),
    AskOption(id="career", label="学习成长", description="考研考公、职场、效率"),
]


class ConfirmationError(ValueError):
    """A confirm payload that cannot be applied; `code` follows the protocol's error codes."""

    def __init__(self, message: str, code: str = "INVALID_CONFIRMATION") -> None:
        super().__init__(message)
        self.code = code


class ContentEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = None
    body: str | None = None
    tags: list[str] | None = None


class PlansEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    plans: list[dict[str, Any]] = Field(min_length=1, max_length=9)


class UserResponse(BaseModel):
    """An answer to a clarification question: the chosen option ids and/or the user's own words."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, strict=True)
    selected_ids: list[str] = Field(default_factory=list)
    custom_input: str | None = Field(None, max_length=2000)


class Confirmation(BaseModel):
    """A resume value: a checkpoint decision or a clarification answer (wire names, camelCase)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)

    action: Literal["approve", "reject", "modify", "answer"]
    user_feedback: str | None = Field(None, max_length=4000)
    modified_data: dict[str, Any] | None = None
    user_response: UserResponse | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Confirmation:
        if self.action == "reject" and not (self.user_feedback or "").strip():
            raise ValueError("reject needs userFeedback: tell the agent what to change")
        if self.action == "modify" and not self.modified_data:
            raise ValueError("modify needs modifiedData")
        if self.action == "answer" and self.user_response is None:
            raise ValueError("a clarification answer needs userResponse")
        return self


def parse_confirmation(payload: dict[str, Any], pending: dict[str, Any] | None) -> Confirmation:
    """Validate a confirm body against the pending `ask_user`; raises ConfirmationError."""
    if "userResponse" in payload and "action" not in payload:
        payload = {**payload, "action": "answer"}
    try:
        confirmation = Confirmation.model_validate(payload, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfirmationError(f"{where + ': ' if where else ''}{first['msg']}") from exc
    context = (pending or {}).get("context") or {}
    if context.get("__clarification") and confirmation.action != "answer":
        raise ConfirmationError("this pause is a clarification question: answer it with userResponse")
    if context.get("__hitl") and confirmation.action == "answer":
        raise ConfirmationError("this pause is a checkpoint: use approve, reject or modify")
    if confirmation.action == "modify":
        kind = context.get("kind")
        data = context.get("data") or {}
        if kind == "content":
            apply_content_edit(data, confirmation.modified_data or {})
        elif kind == "image_plans":
            apply_plans_edit(confirmation.modified_data or {})
    return confirmation


def apply_content_edit(draft: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    """The draft with the editor's title/body/tags applied, validated as a Draft."""
    try:
        edit = ContentEdit.model_validate(modified, strict=True)
        merged = {**draft, **edit.model_dump(exclude_none=True)}
        merged["tags"] = [t.lstrip("#").strip() for t in merged.get("tags", []) if t.strip("# ")]
        return Draft.model_validate(merged).model_dump(mode="json", by_alias=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfirmationError(
            f"modifiedData.{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        ) from exc


def apply_plans_edit(modified: dict[str, Any]) -> list[dict[str, Any]]:
    """The editor's plans (reordered, edited or deleted), renumbered 1..N and validated. A plan may carry the
    editor's own overlay text (`overlay: {headline?, lines?, caption?}`), which the card then shows, and a
    `layout` given by key or by its Chinese name (see tools.art.LAYOUT_LABELS)."""
    try:
        edit = PlansEdit.model_validate(modified, strict=True)
        plans = []
        for position, raw in enumerate(edit.plans, start=1):
            raw = {**raw, "index": position}
            if isinstance(raw.get("overlay"), dict):
                raw["overlay"] = {**raw["overlay"], "imageIndex": position}
            plan = ImagePlan.model_validate(raw, strict=True)
            if not plan.prompt:
                plan = plan.model_copy(update={"prompt": plan.base_prompt})
            if plan.layout is not None:
                key = layout_key(plan.layout, plan.role)
                if key is None:
                    names = "、".join(LAYOUT_LABELS[k] for k in LAYOUTS[plan.role])
                    raise ConfirmationError(f"modifiedData.plans.{position - 1}.layout: 可选版式为{names}")
                plan = plan.model_copy(update={"layout": key})
            plans.append(plan.model_dump(mode="json", by_alias=True))
        return plans
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfirmationError(
            f"modifiedData.{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        ) from exc


def _ask(
    kind: HitlKind, question: str, data: dict[str, Any], warnings: list[str] | None = None
) -> dict[str, Any]:
    event = AskUser(
        question=question,
        options=[
            AskOption(id="approve", label="继续", description="确认无误，进入下一步"),
            AskOption(id="reject", label="重新生成", description="写下修改意见，让智能体重做这一步"),
            AskOption(id="modify", label="修改后继续", description="直接编辑内容后继续"),
        ],
        selection_type="single",
        allow_custom_input=True,
        context={"__hitl": True, "kind": kind, "data": data, **({"warnings": warnings} if warnings else {})},
    )
    return event.model_dump(mode="json", by_alias=True, exclude={"thread_id", "seq", "timestamp"})


async def content_checkpoint(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
    """Pause after the writer so an editor can approve, reject (redo with feedback) or modify the draft."""
    draft = state.get("generatedContent") or {}
    if not state.get("enableHITL", True):
        return {"contentApproved": True}
    # what the text checks still find after the bounded redos: the editor decides, knowing
    warnings = [str(f.get("reason")) for f in (state.get("draftChecks") or {}).get("findings") or []]
    question = "文案已生成，是否继续？" + (f"（自动检查仍有{len(warnings)}项提醒）" if warnings else "")
    answer = Confirmation.model_validate(interrupt(_ask("content", question, draft, warnings)))
    if answer.action == "approve":
        return {"contentApproved": True}
    if answer.action == "reject":
        return {
            "contentComplete": False,
            "contentApproved": False,
            "userFeedback": {"writer_agent": answer.user_feedback or ""},
            # standing instructions: a later redo (the checks', a review's) still follows them
            "writerNotes": [*(state.get("writerNotes") or []), answer.user_feedback or ""],
        }
    edited = apply_content_edit(draft, answer.modified_data or {})
    emit(ContentUpdate(title=edited["title"], body=edited["body"], tags=edited["tags"]))
    return {"generatedContent": edited, "contentApproved": True, "editorEdited": True}


def image_cost(model: str, count: int) -> dict[str, Any] | None:
    """What the planned pictures will cost with a paid image model, before any is drawn; None offline."""
    if model.strip().lower() in OFFLINE_NAMES:
        return None
    size = closest_size(model, 1080, 1440)
    each = image_price_usd(model, size)
    total = round(each * count, 4) if each is not None else None
    return {"model": model, "count": count, "size": size, "perImageUsd": each, "totalUsd": total}


def _cost_note(cost: dict[str, Any] | None) -> str:
    if not cost:
        return ""
    spend = f"预计图片费用约 ${cost['totalUsd']:.2f}" if cost["totalUsd"] is not None else "图片费用未知"
    return f"（{cost['model']} 共 {cost['count']} 张，{spend}）"


async def plans_checkpoint(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
    """Pause after the image planner so an editor can approve, reject or edit/reorder/delete plans."""
    plans = state.get("imagePlans") or []
    if not state.get("enableHITL", True):
        return {"imagePlansApproved": True}
    cost = image_cost(runtime.context.images.name, len(plans))
    data: dict[str, Any] = {"plans": plans, **({"imageCost": cost} if cost else {})}
    answer = Confirmation.model_validate(
        interrupt(_ask("image_plans", "图片规划已完成，是否开始生成？" + _cost_note(cost), data))
    )
    if answer.action == "approve":
        return {"imagePlansApproved": True}
    if answer.action == "reject":
        return {
            "imagePlansComplete": False,
            "imagePlansApproved": False,
            "userFeedback": {"image_planner_agent": answer.user_feedback or ""},
        }
    edited = apply_plans_edit(answer.modified_data or {})
    kept = {p["index"] for p in edited}
    overlays = _renumber(state.get("textOverlayPlan") or [], plans, edited, "imageIndex")
    bindings = _renumber(state.get("paragraphImageBindings") or [], plans, edited, "imageIndex")
    return {
        "imagePlans": edited,
        "imagePlansApproved": True,
        "plansEdited": True,
        "imageCount": len(kept),
        "textOverlayPlan": overlays,
        "paragraphImageBindings": bindings,
    }


def _renumber(
    items: list[dict[str, Any]], before: list[dict[str, Any]], after: list[dict[str, Any]], key: str
) -> list[dict[str, Any]]:
    """Follow plans that moved: map old image indexes to new ones by matching the base prompt or the subject
    (an editor may have changed one of them), else by position when no plan was added or removed."""
    by_prompt = {p.get("basePrompt"): p["index"] for p in after}
    by_subject = {p.get("subject"): p["index"] for p in after}
    same_count = len(before) == len(after)
    mapping = {
        p["index"]: by_prompt.get(p.get("basePrompt"))
        or by_subject.get(p.get("subject"))
        or (p["index"] if same_count else None)
        for p in before
    }
    out = []
    for item in items:
        new_index = mapping.get(item.get(key))
        if new_index is not None:
            out.append({**item, key: new_index})
    return out


def clarification_text(response: UserResponse) -> str:
    """The creator's answer as labelled lines the brief compiler reads as structured fields:
    '方向：美食探店' (the chosen options, by label) and '说明：…' (the free text)."""
    labels = {o.id: o.label for o in THEME_OPTIONS}
    chosen = "、".join(labels.get(i, i).strip() for i in response.selected_ids if labels.get(i, i).strip())
    detail = (response.custom_input or "").strip()
    return "\n".join(line for line in (chosen and f"方向：{chosen}", detail and f"说明：{detail}") if line)


async def clarification(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
    """Ask the creator what the post is about (once per key). The answer is kept apart from the request:
    the brief compiler merges it as structured fields (topic when the request had none, angle, audience,
    constraints), so it never ends up pasted into a topic or a title."""
    event = AskUser(
        question="想写哪方面的内容？选一个方向，或者直接描述你的主题和读者",
        options=THEME_OPTIONS,
        selection_type="single",
        allow_custom_input=True,
        context={"__clarification": True, "key": "topic", "request": state.get("request", "")},
    )
    raw = interrupt(event.model_dump(mode="json", by_alias=True, exclude={"thread_id", "seq", "timestamp"}))
    answer = Confirmation.model_validate(raw)
    return {
        "clarification": clarification_text(answer.user_response or UserResponse()),
        "agentClarificationKeys": ["topic"],
    }
