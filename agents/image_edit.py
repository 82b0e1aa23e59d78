"""Editing one picture of a creative (issue 17): a painted mask with an instruction, new parameters, or the
text inside it. Each result is a new asset and a new version of the creative (`source: image_edit`).

`ImageEdits.prepare` checks everything a client can get wrong before anything streams — the picture is in
the creative's current version, the version the client saw is still current, no run is going or paused on
it, the mask decodes to the picture's size — so those are plain 4xx answers. `ImageEdits.run` then does the
work and yields the protocol's events (`image_progress` generating → complete with the new `assetId`, a
`message` saying in Chinese what was done and what could not be, `workflow_complete` with the new
`version`); a failure while working is an `error` event.

What each part of an edit does, in this order:
- **Parameters** (palette, layout, text size, the overlay's headline and lines, badge on/off) and **text
  edits** that name text of the card's overlay: the card is drawn again from its plan with the new values,
  which the new version's plan keeps (a later revision draws it the same way) — an offline card by the
  offline renderer, a card an image model's picture became by the same card renderer on that picture as
  the model drew it (`AssetStore.picture`, kept when it was generated; no model is called). Either way a
  redraw loses what an earlier mask, text edit or crop painted over the card (`painted`), and says so. A
  model's picture made before pictures were kept has nothing to draw on: the parameters are reported as not
  applied.
- **Text edits** of other text (read by OCR, `GET /api/assets/{id}/analysis`): the text's box is inpainted
  and the new text drawn in it (`tools.image_edit.replace_text_in_box`).
- **A mask**: the offline editor inpaints the region and redraws it as the instruction says
  (`inpaint_offline`); a picture an image model drew goes back to that model with the mask
  (`edit_with_model`, the model's picture pasted back through the mask). Pixels outside stay the same.
- **Crop** last: the part of the picture in the box.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from agents.artifacts import HexColor, ImagePlan, TextOverlay
from agents.errors import RunError, ThreadBusy
from agents.events import ErrorEvent, Event, ImageProgress, Message, WorkflowComplete
from agents.image import build_request
from agents.run.recorder import stamp
from agents.run.versions import VersionConflict, Versions, current_version
from tools.art import layout_key
from tools.database import Creative, CreativeStatus, VersionSource
from tools.errors import ImageEditError, StudioError
from tools.image_edit import (
    crop,
    decode_mask,
    edit_with_model,
    image_size,
    inpaint_offline,
    replace_text_in_box,
)
from tools.images import OFFLINE_NAMES, ImageProvider, ImageRequest, OfflineImageProvider
from tools.renderer import CardRenderer

if TYPE_CHECKING:
    from tools.assets import AssetRecord, AssetStore

AGENT = "image_editor"
MAX_INSTRUCTION = 300
MAX_MASK_CHARS = 16 * 1024 * 1024  # a data URL; a two-colour PNG of a 4096² picture is far smaller
MAX_TEXT_EDITS = 20


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        """A field left out keeps its default; `null` is never a value here (the document says so)."""
        if isinstance(data, dict):
            nulls = sorted(str(k) for k, v in data.items() if v is None)
            if nulls:
                raise ValueError(f"不能为 null：{', '.join(nulls)}（不需要就不要发送这一项）")
        return data


class Box(_Wire):
    """A box as fractions of the picture's width and height; one reaching past an edge is cut at it."""

    x: float = Field(ge=0, le=0.99)
    y: float = Field(ge=0, le=0.99)
    w: float = Field(ge=0.01, le=1)  # at least 1 % of the picture's width and height
    h: float = Field(ge=0.01, le=1)

    @model_validator(mode="after")
    def _inside(self) -> Box:
        self.w, self.h = min(self.w, 1 - self.x), min(self.h, 1 - self.y)
        return self

    def astuple(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)


_Line = Annotated[str, Field(max_length=60)]


class EditParams(_Wire):
    """New parameters for the picture; each one left out stays as it is."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    palette: Annotated[list[HexColor], Field(min_length=1, max_length=8)] | SkipJsonSchema[None] = None
    layout: Annotated[str, Field(min_length=1, max_length=20)] | SkipJsonSchema[None] = None  # key or Chinese
    text_scale: Annotated[float, Field(ge=0.7, le=1.4)] | SkipJsonSchema[None] = None
    headline: Annotated[str, Field(max_length=40)] | SkipJsonSchema[None] = None  # empty removes it
    lines: Annotated[list[_Line], Field(max_length=8)] | SkipJsonSchema[None] = None
    badge: bool | SkipJsonSchema[None] = None
    crop: Box | SkipJsonSchema[None] = None

    def redraws(self) -> bool:
        """Whether the card must be drawn again (everything but a crop)."""
        return any(v is not None for k, v in self.model_dump().items() if k != "crop")


class TextEdit(_Wire):
    """New text for a text region of the picture (`box`, as OCR found it); `original` is what it read."""

    box: Box
    text: str = Field(min_length=1, max_length=60)
    original: Annotated[str, Field(max_length=200)] | SkipJsonSchema[None] = None


_MaskURL = Annotated[str, Field(max_length=MAX_MASK_CHARS, pattern=r"^data:image/png")]


class ImageEditRequest(_Wire):
    """`POST /api/assets/{id}/edit`: at least one of `mask` (with the `instruction`), `params` and
    `textEdits`."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [
        {"required": ["mask"]},
        {"required": ["params"]},
        {"required": ["textEdits"]},
    ]})

    instruction: str = Field("", max_length=MAX_INSTRUCTION)
    mask: _MaskURL | SkipJsonSchema[None] = None
    params: EditParams | SkipJsonSchema[None] = None
    text_edits: Annotated[list[TextEdit], Field(min_length=1, max_length=MAX_TEXT_EDITS)] | SkipJsonSchema[
        None
    ] = None
    based_on: Annotated[int, Field(ge=1, le=1_000_000)] | SkipJsonSchema[None] = None

    @model_validator(mode="after")
    def _something_to_do(self) -> ImageEditRequest:
        if self.mask is None and self.params is None and not self.text_edits:
            raise ValueError("请涂抹要修改的区域（mask），或给出参数（params）或文字修改（textEdits）")
        if self.params is not None and not self.params.redraws() and self.params.crop is None:
            raise ValueError("参数（params）里没有要修改的项")
        return self


class NotEditable(RunError):
    code = "NOT_EDITABLE"
    status = 409


class PictureNotFound(RunError):
    code = "NOT_FOUND"
    status = 404


@dataclass
class PreparedEdit:
    """An edit checked and ready to run."""

    creative_id: int
    thread_id: str
    based_on: int  # the current version when the edit was checked
    position: int  # 0-based, in the version's image set
    asset_ids: list[int | None]  # the version's image set
    asset: AssetRecord
    data: bytes
    plans: list[dict[str, Any]]
    plan: ImagePlan | None  # this picture's plan, when the version has one for it
    overlay: TextOverlay | None  # the overlay text drawn on it
    density: str | None
    body: ImageEditRequest
    mask: Any = None  # the decoded mask
    picture: bytes | None = None  # an image model's picture the card was drawn on, as the model drew it

    @property
    def redrawable(self) -> bool:
        """Whether the card can be drawn again from its plan: an offline card, or a model's picture kept."""
        return self.plan is not None and (self.asset.provider in OFFLINE_NAMES or self.picture is not None)


class ImageEdits:
    """Edits of creatives' pictures, on the run store's database and the asset store."""

    def __init__(
        self,
        versions: Versions,
        assets: AssetStore,
        image_provider: Callable[[str | None], ImageProvider],
        asset_url: Callable[[int], str],
    ) -> None:
        self.versions = versions
        self.assets = assets
        self.image_provider = image_provider
        self.asset_url = asset_url

    async def locate(self, asset_id: int) -> tuple[AssetRecord, Creative]:
        """The picture and its creative; `RunError` 404 when there is none, 409 when it is no creative's
        generated picture."""
        record = await self.assets.get(asset_id)
        if record is None:
            raise PictureNotFound(f"找不到图片 #{asset_id}", details={"assetId": asset_id})
        if record.creative_id is None or record.task_index is None or not record.ok:
            raise NotEditable(
                "只能编辑创作生成的图片（参考图和生成失败的图片不能编辑）", details={"assetId": asset_id}
            )
        async with self.versions.store.sessions() as session:
            creative = await session.get(Creative, record.creative_id)
        if creative is None:
            raise PictureNotFound(f"找不到图片 #{asset_id} 所属的创作", details={"assetId": asset_id})
        return record, creative

    async def prepare(self, record: AssetRecord, creative: Creative, body: ImageEditRequest) -> PreparedEdit:
        """Check the edit against the creative as it is now (see the module docstring)."""
        if creative.status in (CreativeStatus.RUNNING.value, CreativeStatus.PAUSED.value):
            raise ThreadBusy("这个创作正在运行或等待审核，结束后才能编辑图片",
                             details={"creativeId": creative.id, "status": creative.status})
        version = await current_version(self.versions.store, creative.id)
        if version is None:
            raise NotEditable("这个创作还没有完成的版本，无法编辑图片", details={"creativeId": creative.id})
        if body.based_on is not None and body.based_on != version.number:
            raise VersionConflict(
                f"当前已是第 {version.number} 版，不是第 {body.based_on} 版：请刷新后再编辑",
                details={"current": version.number, "basedOn": body.based_on},
            )
        ids = list(version.asset_ids or [])
        if record.id not in ids:
            raise NotEditable(
                f"图片 #{record.id} 不在当前版本（第 {version.number} 版）里：请编辑当前版本的图片",
                details={"assetId": record.id, "current": version.number, "imageAssetIds": ids},
            )
        found_file = await self.assets.open_path(record.id)
        if found_file is None:
            raise NotEditable(f"图片 #{record.id} 的文件不见了", details={"assetId": record.id})
        data = await asyncio.to_thread(found_file[0].read_bytes)
        plans = [dict(p) for p in version.image_plans or [] if isinstance(p, dict)]
        found = [p for p in plans if p.get("index") == record.task_index]
        plan = ImagePlan.model_validate(found[0]) if found else None
        overlays = [TextOverlay.model_validate(o) for o in version.overlay_plan or [] if isinstance(o, dict)]
        overlay = (plan.overlay if plan else None) or next(
            (o for o in overlays if o.image_index == record.task_index), None
        )
        layout = creative.layout_spec or {}
        density = next(
            (item.get("textDensity") for item in layout.get("items") or []
             if isinstance(item, dict) and item.get("index") == record.task_index),
            None,
        )
        prepared = PreparedEdit(
            creative_id=creative.id, thread_id=creative.thread_id, based_on=version.number,
            position=ids.index(record.id), asset_ids=ids, asset=record, data=data, plans=plans, plan=plan,
            overlay=overlay,
            density=density, body=body, picture=await self.assets.picture(record),
        )
        asked_layout = body.params.layout if body.params is not None else None
        if asked_layout is not None and plan is not None and layout_key(asked_layout, plan.role) is None:
            raise ImageEditError(
                f"「{asked_layout}」不是这张图可用的版式", details={"field": "params.layout"}
            )
        if body.mask is not None:  # decoded now: a bad mask is a 422 before anything streams
            prepared.mask = await asyncio.to_thread(decode_mask, body.mask, image_size(data))
        return prepared

    async def run(self, edit: PreparedEdit, *, actor: str | None) -> AsyncIterator[dict[str, Any]]:
        """Do the edit and yield its events (see the module docstring), each stored in the thread's log
        first — numbered like a run's, so a replay of the thread shows the edit too."""
        async for event in self._events(edit, actor=actor):
            stamped = stamp(edit.thread_id, event.wire())
            await self.versions.store.append([stamped], None)
            yield stamped

    async def _events(self, edit: PreparedEdit, *, actor: str | None) -> AsyncIterator[Event]:
        task_id = edit.position + 1
        thread = edit.thread_id
        yield ImageProgress(thread_id=thread, task_id=task_id, status="generating", progress=0.1)
        try:
            data, plan, applied, unapplied = await self._apply(edit)
            width, height = await asyncio.to_thread(image_size, data)
            stored = await self.assets.save(
                data, mime="image/png", width=width, height=height, role=edit.asset.role,
                provider=edit.asset.provider, prompt=edit.body.instruction or edit.asset.prompt,
                creative_id=edit.creative_id, task_index=edit.asset.task_index, history=True,
                picture=edit.picture,  # the same model picture: a later edit draws on it again
            )
            # the set the edit was checked against: the commit refuses it if another version came since
            ids = list(edit.asset_ids)
            ids[edit.position] = stored.id
            plans = [plan.model_dump(mode="json") if plan is not None and p.get("index") == plan.index else p
                     for p in edit.plans]
            number = await self.versions.edit(
                edit.creative_id, {"asset_ids": ids, "image_plans": plans}, based_on=edit.based_on,
                source=VersionSource.IMAGE_EDIT, actor=actor,
            )
        except (StudioError, RunError) as exc:
            yield ImageProgress(
                thread_id=thread, task_id=task_id, status="failed", progress=0.0, error_message=exc.message,
            )
            yield ErrorEvent(thread_id=thread, code=exc.code, message=exc.message, agent=AGENT,
                             retryable=bool(getattr(exc, "retryable", False)))
            return
        yield ImageProgress(
            thread_id=thread, task_id=task_id, status="complete", progress=1.0, url=self.asset_url(stored.id),
            asset_id=stored.id,
        )
        if applied:
            yield Message(thread_id=thread, agent=AGENT, content="已完成：" + "；".join(applied))
        if unapplied:
            yield Message(thread_id=thread, agent=AGENT, content="没能做到：" + "；".join(unapplied))
        final, _ = await self.versions.get(edit.creative_id, number)
        yield WorkflowComplete(
            thread_id=thread, title=final.title or "", body=final.body or "", tags=list(final.tags or []),
            image_asset_ids=[i for i in final.asset_ids or [] if isinstance(i, int)],
            creative_id=edit.creative_id, quality_scores=final.review, version=number,
        )

    async def _apply(self, edit: PreparedEdit) -> tuple[bytes, ImagePlan | None, list[str], list[str]]:
        """The edited picture, the plan it was drawn from (changed by the parameters) and, in Chinese, what
        was applied and what not. New parameters and overlay text draw the card again from its plan
        (`_redraw`: an offline card, or an image model's card on its kept picture); a model's card without a
        kept picture only says they were not applied. Then other text edits, the mask, and the crop."""
        body, data, plan = edit.body, edit.data, edit.plan
        applied: list[str] = []
        unapplied: list[str] = []
        params = body.params
        loose_edits = list(body.text_edits or [])
        if edit.redrawable and plan is not None:
            data, plan, loose_edits, applied, unapplied = await self._redraw(edit, plan, loose_edits)
        elif params is not None and params.redraws():
            unapplied.append("这张图由图片模型生成，没有可以重新排版的卡片计划：配色、版式、字号、叠加文字和角标没有改")
        for text_edit in loose_edits:
            data = await asyncio.to_thread(replace_text_in_box, data, text_edit.box.astuple(), text_edit.text)
            applied.append(f"把「{text_edit.original or '选中区域'}」改成「{text_edit.text}」")
        if edit.mask is not None:
            result = await self._masked(edit, data)
            data = result.data
            applied += result.applied
            unapplied += result.unapplied
        cropped = params is not None and params.crop is not None
        if plan is not None and (edit.mask is not None or loose_edits or cropped):  # not what the plan draws
            plan = plan.model_copy(update={"painted": True})
        if params is not None and params.crop is not None:
            data = await asyncio.to_thread(crop, data, params.crop.astuple())
            applied.append("裁剪了画面")
        return data, plan, applied, unapplied

    async def _redraw(
        self, edit: PreparedEdit, plan: ImagePlan, loose_edits: list[TextEdit]
    ) -> tuple[bytes, ImagePlan, list[TextEdit], list[str], list[str]]:
        """The card drawn again from its plan changed by the parameters and the text edits of its overlay:
        the picture, the plan, the text edits left for other text, what was applied and what not. Nothing to
        change: the picture and plan as they were."""
        params = edit.body.params
        overlay = edit.overlay.model_copy() if edit.overlay else TextOverlay(image_index=plan.index)
        changes, done = _plan_changes(plan, params)
        overlay, loose_edits, written = _overlay_edits(overlay, params, loose_edits)
        if not changes and not written:
            return edit.data, plan, loose_edits, [], []
        unapplied = ["卡片按计划重新绘制，之前涂抹、改字或裁剪的效果没有保留"] if plan.painted else []
        plan = plan.model_copy(update={**changes, "overlay": overlay, "painted": False})
        request = build_request(plan, None, edit.density, _total(edit.plans))  # type: ignore[arg-type]
        return await self._draw(request, edit.picture), plan, loose_edits, done + written, unapplied

    async def _draw(self, request: ImageRequest, picture: bytes | None) -> bytes:
        """The card of `request`: by the offline provider, or with its renderer on an image model's `picture`
        (the overlay drawn as the model's card first was; no model call)."""
        provider = self.image_provider("offline")
        if picture is None:
            return (await provider.generate(request)).data
        renderer = provider.renderer if isinstance(provider, OfflineImageProvider) else CardRenderer()
        return await renderer.render(request, picture)

    async def _masked(self, edit: PreparedEdit, data: bytes) -> Any:
        """The masked region edited: offline for the studio's own cards, by the image model for its own
        pictures (when the configured provider can edit)."""
        instruction = edit.body.instruction
        if edit.asset.provider not in OFFLINE_NAMES:
            provider = self.image_provider(None)
            if getattr(provider, "name", "") not in OFFLINE_NAMES and hasattr(provider, "edit"):
                return await edit_with_model(provider, data, edit.mask, instruction)  # type: ignore[arg-type]
        return await asyncio.to_thread(inpaint_offline, data, edit.mask, instruction, seed=edit.asset.id)


def _total(plans: Sequence[dict[str, Any]]) -> int:
    return max(len(plans), max((int(p.get("index") or 1) for p in plans), default=1))


def _plan_changes(plan: ImagePlan, params: EditParams | None) -> tuple[dict[str, Any], list[str]]:
    """The plan's fields the parameters change, and what that is in Chinese."""
    if params is None:
        return {}, []
    changes: dict[str, Any] = {}
    done: list[str] = []
    palette = [c.upper() for c in params.palette or []]
    if palette and palette != [c.upper() for c in plan.palette]:
        changes["palette"] = palette
        done.append("换了配色")
    key = layout_key(params.layout, plan.role) if params.layout else None
    if key is not None and key != layout_key(plan.layout, plan.role):
        changes["layout"] = key
        done.append("换了版式")
    if params.text_scale is not None and abs(params.text_scale - plan.text_scale) > 1e-6:
        changes["text_scale"] = params.text_scale
        done.append("调大了文字" if params.text_scale > plan.text_scale else "调小了文字")
    if params.badge is not None and params.badge != plan.badge:
        changes["badge"] = params.badge
        done.append("加上了角标" if params.badge else "去掉了角标")
    return changes, done


def _overlay_edits(
    overlay: TextOverlay, params: EditParams | None, edits: list[TextEdit]
) -> tuple[TextOverlay, list[TextEdit], list[str]]:
    """The overlay with the new headline and lines, and the text edits whose original text is part of it
    (OCR reads a wrapped headline line by line, so a line found inside the headline or a body line is that
    text); the text edits that name other text are returned to be drawn over the picture."""
    written: list[str] = []
    headline, lines = overlay.headline, list(overlay.lines)
    if params is not None and params.headline is not None and params.headline != (headline or ""):
        headline = params.headline.strip() or None
        written.append("改了标题文字" if headline else "去掉了标题文字")
    if params is not None and params.lines is not None and params.lines != lines:
        lines = [line.strip() for line in params.lines if line.strip()]
        written.append("改了卡片上的文字")
    loose: list[TextEdit] = []
    for edit in edits:
        original = _squash(edit.original or "")
        if original and headline and original in _squash(headline):
            headline = _replace_squashed(headline, original, edit.text)
            written.append(f"把标题里的「{edit.original}」改成「{edit.text}」")
            continue
        at = next((k for k, line in enumerate(lines) if original and original in _squash(line)), None)
        if at is not None:
            lines[at] = _replace_squashed(lines[at], original, edit.text)
            written.append(f"把「{edit.original}」改成「{edit.text}」")
            continue
        loose.append(edit)
    if len(headline or "") > 40 or any(len(line) > 60 for line in lines):
        raise ImageEditError("改后的卡片文字太长（标题最多 40 字，每行最多 60 字）",
                             details={"field": "textEdits"})
    return overlay.model_copy(update={"headline": headline, "lines": lines}), loose, written


def _squash(text: str) -> str:
    return "".join(text.split())


def _replace_squashed(text: str, original: str, new: str) -> str:
    """`text` with `original` (compared without spaces, as OCR reads it) replaced by `new`."""
    if original in text:
        return text.replace(original, new, 1)
    squashed = _squash(text)
    return squashed.replace(original, new, 1)
