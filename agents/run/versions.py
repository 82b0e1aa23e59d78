"""Versions of a creative: every completed run (and every restore) leaves one, numbered from 1.

A run's version is stored by the writer in the commit of its `workflow_complete` (`agents.run.writer`:
the number comes from `creatives.current_version`, like an event's seq from `last_seq`). This module reads
them, compares one with the one before it — character by character, since Chinese has no spaces between
words — and makes new ones outside a run: a restore (a new version with an old one's content), a manual
edit of the text, an edited picture. The creative row, its current image set included, always shows the
current version. Nothing is ever deleted. Each names the version it was based on; if another version has
been made since, it is refused (409 `VERSION_CONFLICT`). A revision run starts from the current version
(`as_state`), so what was restored or edited by hand is what it revises.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from agents.artifacts import Draft
from agents.checks.text import text_findings
from agents.errors import RunError, ThreadBusy
from tools.database import Creative, CreativeStatus, CreativeVersion, VersionSource, iso

if TYPE_CHECKING:
    from agents.run.store import RunStore
    from tools.assets import AssetStore

_CONTENT = ("title", "body", "tags", "asset_ids", "image_plans", "overlay_plan", "review")


class VersionNotFound(RunError):
    code = "VERSION_NOT_FOUND"
    status = 404


class VersionConflict(RunError):
    code = "VERSION_CONFLICT"
    status = 409


def char_diff(before: str, after: str) -> list[dict[str, str]]:
    """`after` against `before` as runs of characters: `{"op": "equal" | "insert" | "delete", "text"}`
    (a replacement is a delete then an insert)."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    out: list[dict[str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "delete", "replace") and i2 > i1:
            out.append({"op": "equal" if tag == "equal" else "delete", "text": before[i1:i2]})
        if tag in ("insert", "replace") and j2 > j1:
            out.append({"op": "insert", "text": after[j1:j2]})
    return out


def version_wire(version: CreativeVersion, asset_url: Any) -> dict[str, Any]:
    """A version as the API shows it (camelCase), with the URLs of its pictures."""
    return {
        "number": version.number,
        "title": version.title,
        "body": version.body,
        "tags": list(version.tags or []),
        "imageAssetIds": list(version.asset_ids or []),
        "imageUrls": [asset_url(i) for i in version.asset_ids or [] if isinstance(i, int)],
        "imagePlans": list(version.image_plans or []),
        "textOverlayPlan": list(version.overlay_plan or []),
        "review": version.review,
        "source": version.source,
        "actor": version.actor,
        "basedOn": version.based_on,
        "restoredFrom": version.restored_from,
        "createdAt": iso(version.created_at),
    }


def version_diff(before: CreativeVersion | None, after: CreativeVersion) -> dict[str, Any]:
    """What `after` changed against `before` (the version before it; None for version 1)."""
    old_tags = list(before.tags or []) if before is not None else []
    new_tags = list(after.tags or [])
    old_images = list(before.asset_ids or []) if before is not None else []
    return {
        "against": before.number if before is not None else None,
        "title": char_diff(before.title or "" if before is not None else "", after.title or ""),
        "body": char_diff(before.body or "" if before is not None else "", after.body or ""),
        "tags": {
            "added": [t for t in new_tags if t not in old_tags],
            "removed": [t for t in old_tags if t not in new_tags],
        },
        "imagesChanged": [
            k for k in range(max(len(old_images), len(after.asset_ids or [])))
            if (old_images[k:k + 1] or [None]) != (list(after.asset_ids or [])[k:k + 1] or [None])
        ],
    }


async def current_version(store: RunStore, creative_id: int) -> CreativeVersion | None:
    """The creative's current version (None before its first run completed)."""
    async with store.sessions() as session:
        return (await session.scalars(
            select(CreativeVersion)
            .join(Creative, Creative.id == CreativeVersion.creative_id)
            .where(CreativeVersion.creative_id == creative_id,
                   CreativeVersion.number == Creative.current_version)
        )).first()


def as_state(version: CreativeVersion) -> dict[str, Any]:
    """A version's content as the graph state holds it: a revision starts from the creative's current
    version — which a restore, a manual edit or an edited picture may have made after the thread's last
    run — not from the run's last state."""
    return {
        "generatedContent": {"title": version.title, "body": version.body, "tags": list(version.tags or [])},
        "imagePlans": list(version.image_plans or []),
        "textOverlayPlan": list(version.overlay_plan or []),
        "generatedImageAssetIds": list(version.asset_ids or []),
    }


class Versions:
    """The versions of creatives, on the run store's database (reads) and writer (restores)."""

    def __init__(self, store: RunStore, assets: AssetStore) -> None:
        self.store = store
        self.assets = assets

    async def list(self, creative_id: int) -> Sequence[CreativeVersion]:
        async with self.store.sessions() as session:
            rows = await session.scalars(
                select(CreativeVersion)
                .where(CreativeVersion.creative_id == creative_id)
                .order_by(CreativeVersion.number)
            )
            return list(rows)

    async def get(self, creative_id: int, number: int) -> tuple[CreativeVersion, CreativeVersion | None]:
        """Version `number` and the one before it (None for version 1); VersionNotFound (404)."""
        async with self.store.sessions() as session:
            rows = list(await session.scalars(
                select(CreativeVersion).where(
                    CreativeVersion.creative_id == creative_id,
                    CreativeVersion.number.in_([number - 1, number]),
                )
            ))
        found = {row.number: row for row in rows}
        if number not in found:
            raise VersionNotFound(f"创作 #{creative_id} 没有第 {number} 版", details={"version": number})
        return found[number], found.get(number - 1)

    async def restore(self, creative_id: int, number: int, *, based_on: int, actor: str | None) -> int:
        """Make version `number` current again as a new version, if the creative is still at `based_on`
        and no run is going or paused on it; the new version's number."""
        version, _ = await self.get(creative_id, number)
        content = {key: getattr(version, key) for key in _CONTENT}
        return await self.commit(
            creative_id, content, based_on=based_on, source=VersionSource.RESTORE, actor=actor,
            restored_from=number,
        )

    async def current(self, creative_id: int) -> CreativeVersion | None:
        return await current_version(self.store, creative_id)

    async def edit(
        self, creative_id: int, changes: dict[str, Any], *, based_on: int, source: VersionSource,
        actor: str | None,
    ) -> int:
        """A new version: the current one with `changes` (any of `_CONTENT`'s keys) applied — a manual edit
        of the text, or an edited picture (its new asset id in `asset_ids`, its plan in `image_plans`)."""
        content = await self._changed(creative_id, changes)
        return await self.commit(creative_id, content, based_on=based_on, source=source, actor=actor)

    async def _changed(self, creative_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        """The current version's content with `changes` applied."""
        unknown = set(changes) - set(_CONTENT)
        if unknown:
            raise ValueError(f"not version content: {sorted(unknown)}")
        version = await self.current(creative_id)
        if version is None:
            raise VersionNotFound(
                f"创作 #{creative_id} 还没有完成的版本，无法修改", details={"version": None}
            )
        return {key: getattr(version, key) for key in _CONTENT} | changes

    async def edit_text(
        self, creative_id: int, changes: dict[str, Any], *, based_on: int, actor: str | None
    ) -> tuple[int, Sequence[dict[str, Any]]]:
        """A manual edit of the title, body or tags (`changes`): the new version's number and the text checks
        the edited post fails. They are warnings, never a refusal — the critic does not override a person's
        text. The post as edited must still be a `Draft` (pydantic's `ValidationError` else, nothing
        stored); the values stored are the draft's (trimmed as it trims them)."""
        async with self.store.sessions() as session:
            row = (await session.execute(
                select(Creative.request, Creative.brief, Creative.evidence).where(Creative.id == creative_id)
            )).one()
        content = await self._changed(creative_id, changes)
        edited = Draft.model_validate(
            {"title": content["title"], "body": content["body"], "tags": list(content["tags"] or [])}
        )
        content |= {key: getattr(edited, key) for key in changes}
        number = await self.commit(
            creative_id, content, based_on=based_on, source=VersionSource.MANUAL_EDIT, actor=actor
        )
        draft = {"title": content["title"], "body": content["body"], "tags": list(content["tags"] or [])}
        findings = await asyncio.to_thread(
            text_findings, request=row.request, brief=row.brief, draft=draft, evidence=row.evidence
        )
        return number, [f.wire() for f in findings]

    async def show_current(self, creative_id: int) -> bool:
        """Show the current version on the creative row and as its current image set again — after a
        revision that failed or was cancelled part-way, whose partial draft or pictures the row had taken
        on. False when the creative has no version yet (its first run's partial work is all there is)."""
        version = await self.current(creative_id)
        if version is None:
            return False
        content = {key: getattr(version, key) for key in _CONTENT}

        async def apply(conn: AsyncConnection) -> None:
            await conn.execute(update(Creative).where(Creative.id == creative_id).values(
                title=content["title"], body=content["body"], tags=content["tags"],
                image_plans=content["image_plans"], overlay_plan=content["overlay_plan"],
                score=(content["review"] or {}).get("overall"),
            ))

        await self.store.writer.run(apply)
        await self._show_images(creative_id, content)
        return True

    async def _show_images(self, creative_id: int, content: dict[str, Any]) -> None:
        ids = [i if isinstance(i, int) else None for i in content["asset_ids"] or []]
        indexes = [p.get("index") for p in content["image_plans"] or [] if isinstance(p, dict)]
        known = [i for i in indexes if isinstance(i, int)]
        await self.assets.set_current(creative_id, ids, known if len(known) == len(ids) else None)

    async def commit(
        self, creative_id: int, content: dict[str, Any], *, based_on: int, source: VersionSource,
        actor: str | None, restored_from: int | None = None,
    ) -> int:
        """Store `content` (all of `_CONTENT`) as the creative's next version and show it on the creative
        row and as its current image set — if the creative is still at `based_on` (else 409
        `VERSION_CONFLICT`) and no run is going or paused on it (else 409 `THREAD_BUSY`), checked in the
        same transaction. The new version's number."""

        async def apply(conn: AsyncConnection) -> int:
            row = (await conn.execute(
                select(Creative.status, Creative.current_version).where(Creative.id == creative_id)
            )).one()
            if row.status in (CreativeStatus.RUNNING.value, CreativeStatus.PAUSED.value):
                raise ThreadBusy("这个创作正在运行或等待审核，结束后才能修改或恢复版本",
                                 details={"creativeId": creative_id, "status": row.status})
            if row.current_version != based_on:
                raise VersionConflict(
                    f"当前已是第 {row.current_version} 版，不是第 {based_on} 版：请刷新后再试",
                    details={"current": row.current_version, "basedOn": based_on},
                )
            new = (await conn.execute(
                update(Creative)
                .where(Creative.id == creative_id, Creative.current_version == based_on)
                .values(
                    current_version=Creative.current_version + 1, title=content["title"],
                    body=content["body"], tags=content["tags"], image_plans=content["image_plans"],
                    overlay_plan=content["overlay_plan"], score=(content["review"] or {}).get("overall"),
                    updated_at=datetime.now(UTC),
                )
                .returning(Creative.current_version)
            )).scalar_one()
            await conn.execute(insert(CreativeVersion).values(
                **content, creative_id=creative_id, number=new, source=VersionSource(source).value,
                actor=actor, based_on=based_on, restored_from=restored_from, created_at=datetime.now(UTC),
            ))
            return int(new)

        new_number: int = await self.store.writer.run(apply)
        await self._show_images(creative_id, content)
        return new_number
