"""The asset store: image files on disk, content-addressed, with one `image_assets` row per use.

A file lives at `<root>/<sha[:2]>/<sha>.<ext>`; the same bytes are written once however often they are saved
(every save still gets its own row, because each row records a different task, prompt or creative). Files are
written atomically (temporary file in the same directory, fsync, `os.replace`), so a reader never sees half an
image. Failed generations get a row with `status="failed"`, the error text and no file.

`open_path` only ever returns a path inside `root`: the stored relative path is resolved (symlinks included)
and must stay under the resolved root, so a tampered row cannot serve `/etc/passwd`.

A card an image model's picture became also records that picture as the model drew it, before the overlay
(`save(..., picture=)`, `picture_path`): stored the same way, content-addressed (its extension from its
bytes), so every edit of the card shares one file; `picture(record)` reads it back, under the same
containment rule, for drawing the card again with new parameters (`agents.image_edit`).

A creative's *current set* is its rows with `superseded_at` null: one per task index, plus its uploads. A row
saved for a task index (a complete image or a failure) replaces the current row of that task in the same
transaction — the older one is kept as history, stamped with the time it left the set. `set_current` makes a
whole stage's pictures (or an earlier round's, when that round is delivered) the current set.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from tools.database import ROW_ID_MAX, ImageAsset, RowWriter

T = TypeVar("T")


EXTENSIONS: dict[str, str] = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
}


class AssetRecord(BaseModel):
    """One `image_assets` row. `file_path` is relative to the store root ("" for failed rows)."""

    model_config = ConfigDict(from_attributes=True, frozen=True)

    id: int
    creative_id: int | None
    task_index: int | None
    role: str
    prompt: str | None
    provider: str
    file_path: str
    mime: str
    width: int
    height: int
    sha256: str
    status: str
    error: str | None
    created_at: datetime
    superseded_at: datetime | None = None  # None: in its creative's current set
    picture_path: str | None = None  # relative: the image model's picture before the overlay; None: none

    @property
    def ok(self) -> bool:
        return self.status == "complete"


class AssetStore:
    """Content-addressed image files under `root` plus their rows, through `sessions` — rows are written
    through `writer` (group commit with the run's events) when one is given."""

    def __init__(
        self, root: Path, sessions: async_sessionmaker[AsyncSession], writer: RowWriter | None = None
    ) -> None:
        self.root = root
        self._sessions = sessions
        self._writer = writer

    async def save(
        self,
        data: bytes,
        *,
        mime: str,
        width: int,
        height: int,
        role: str,
        provider: str,
        prompt: str | None = None,
        creative_id: int | None = None,
        task_index: int | None = None,
        history: bool = False,
        picture: bytes | None = None,
    ) -> AssetRecord:
        """Store `data` (once per content) and insert a `complete` row for it. With `history` the row starts
        outside the current set, replacing nothing: an edited picture, made current (`set_current`) only
        once its version is committed. With `picture` (an image model's picture before the card overlay was
        drawn on it) that picture is stored too, once per content, and the row records its path."""
        ext = EXTENSIONS.get(mime)
        if ext is None:
            raise ValueError(f"unsupported asset mime type: {mime!r}")
        if not data:
            raise ValueError("an asset needs at least one byte")
        sha = hashlib.sha256(data).hexdigest()
        relative = await self._store(data, sha, ext)
        picture_path = await self._store(picture, None, _extension(picture)) if picture else None
        row: dict[str, Any] = dict(
            creative_id=creative_id,
            task_index=task_index,
            role=role,
            prompt=prompt,
            provider=provider,
            file_path=relative,
            mime=mime,
            width=width,
            height=height,
            sha256=sha,
            status="complete",
            picture_path=picture_path,
        )
        if history:
            row["superseded_at"] = datetime.now(UTC)
        return await self._insert(row)

    async def record_failure(
        self,
        *,
        role: str,
        provider: str,
        error: str,
        prompt: str | None = None,
        creative_id: int | None = None,
        task_index: int | None = None,
        width: int = 0,
        height: int = 0,
    ) -> AssetRecord:
        """Insert a `failed` row (no file): the task, what was asked for and why it failed."""
        row = dict(
            creative_id=creative_id,
            task_index=task_index,
            role=role,
            prompt=prompt,
            provider=provider,
            file_path="",
            mime="",
            width=width,
            height=height,
            sha256="",
            status="failed",
            error=error,
        )
        return await self._insert(row)

    async def get(self, asset_id: int) -> AssetRecord | None:
        if not 0 < asset_id <= ROW_ID_MAX:  # names no row (and would overflow PostgreSQL's integer)
            return None
        async with self._sessions() as session:
            row = await session.get(ImageAsset, asset_id)
            return AssetRecord.model_validate(row) if row is not None else None

    async def open_path(self, asset_id: int) -> tuple[Path, str] | None:
        """`(absolute path, mime)` of a complete asset whose file exists inside the root; else None."""
        record = await self.get(asset_id)
        if record is None or not record.ok or not record.file_path:
            return None
        path = await asyncio.to_thread(self._contained, record.file_path)
        return (path, record.mime) if path is not None else None

    async def picture(self, record: AssetRecord) -> bytes | None:
        """The image model's picture `record`'s card was drawn on (`save(..., picture=)`), when the row names
        one whose file exists inside the root; else None."""
        if not record.picture_path:
            return None
        return await asyncio.to_thread(self._read_contained, record.picture_path)

    async def list_for_creative(self, creative_id: int) -> list[AssetRecord]:
        """The creative's assets (failed ones too), by task index, then insertion order."""
        query = (
            select(ImageAsset)
            .where(ImageAsset.creative_id == creative_id)
            .order_by(ImageAsset.task_index.is_(None), ImageAsset.task_index, ImageAsset.id)
        )
        async with self._sessions() as session:
            rows = (await session.scalars(query)).all()
            return [AssetRecord.model_validate(row) for row in rows]

    async def set_current(
        self, creative_id: int, asset_ids: Sequence[int | None], task_indexes: Sequence[int] | None = None
    ) -> None:
        """Make a stage's pictures the creative's current set. `asset_ids` holds one id per plan (None where
        the picture failed) and `task_indexes`, when known, the plans' task indexes in the same order.

        Per task index: a listed asset is current and every other row of its task is history; a failed slot
        keeps its newest failure current and its complete rows as history; a task index no plan has any
        more (an editor deleted a plan) is all history. Without `task_indexes`, only the tasks of the listed
        assets change. Uploads (no task index) are never touched."""
        slots = list(zip(task_indexes, asset_ids, strict=True)) if task_indexes is not None else None
        columns = (ImageAsset.id, ImageAsset.task_index, ImageAsset.status, ImageAsset.superseded_at)
        query = select(*columns).where(
            ImageAsset.creative_id == creative_id, ImageAsset.task_index.is_not(None)
        )

        async def apply(conn: AsyncConnection) -> None:
            rows = (await conn.execute(query.order_by(ImageAsset.id))).all()
            index_of = {row.id: row.task_index for row in rows}
            if slots is None:
                chosen = {index_of[i]: i for i in asset_ids if i is not None and i in index_of}
                failed: set[int] = set()
                planned: set[int] | None = None
            else:
                chosen = {k: i for k, i in slots if i is not None and index_of.get(i) == k}
                failed = {k for k, i in slots if i is None}
                planned = {k for k, _ in slots}
            newest_failure = {row.task_index: row.id for row in rows if row.status == "failed"}
            keep, drop = [], []
            for row in rows:
                k = row.task_index
                if k in chosen:
                    current = row.id == chosen[k]
                elif k in failed:
                    current = row.id == newest_failure.get(k)
                elif planned is not None:
                    current = False  # a task no plan has any more
                else:
                    continue  # not this stage's task: as it is
                if current and row.superseded_at is not None:
                    keep.append(row.id)
                elif not current and row.superseded_at is None:
                    drop.append(row.id)
            for ids, value in ((keep, None), (drop, datetime.now(UTC))):
                if ids:
                    statement = update(ImageAsset).where(ImageAsset.id.in_(ids)).values(superseded_at=value)
                    await conn.execute(statement)

        await self._write(apply)

    async def link(self, asset_ids: Iterable[int], creative_id: int) -> int:
        """Attach assets (e.g. made before the creative row existed) to a creative; returns rows changed."""
        ids = sorted(set(asset_ids))
        if not ids:
            return 0
        statement = update(ImageAsset).where(ImageAsset.id.in_(ids)).values(creative_id=creative_id)

        async def link(conn: AsyncConnection) -> int:
            return int(getattr(await conn.execute(statement), "rowcount", 0) or 0)

        return await self._write(link)

    # --- internals ----------------------------------------------------------------------------------------
    async def _store(self, data: bytes, sha: str | None, ext: str) -> str:
        """Write `data` at its content address (`sha`, computed when None); its path relative to the root."""
        sha = sha or hashlib.sha256(data).hexdigest()
        relative = f"{sha[:2]}/{sha}.{ext}"
        await asyncio.to_thread(self._write_once, self.root / relative, data)
        return relative

    async def _insert(self, row: dict[str, Any]) -> AssetRecord:
        creative_id, task_index = row.get("creative_id"), row.get("task_index")
        if creative_id is not None and task_index is not None and row.get("superseded_at") is None:
            # a task's picture: it replaces the last
            return await self._write(lambda conn: self._replace(conn, row, creative_id, task_index))
        if self._writer is not None:
            return AssetRecord.model_validate(await self._writer.insert(ImageAsset, row))
        statement = insert(ImageAsset).values(**row).returning(*ImageAsset.__table__.columns)
        async with self._sessions() as session, session.begin():
            return AssetRecord.model_validate((await session.execute(statement)).one())

    @staticmethod
    async def _replace(
        conn: AsyncConnection, row: dict[str, Any], creative_id: int, task_index: int
    ) -> AssetRecord:
        """Insert a task's row and make the task's earlier current row history, in one transaction."""
        statement = insert(ImageAsset).values(**row).returning(*ImageAsset.__table__.columns)
        stored = AssetRecord.model_validate((await conn.execute(statement)).one())
        await conn.execute(
            update(ImageAsset)
            .where(
                ImageAsset.creative_id == creative_id,
                ImageAsset.task_index == task_index,
                ImageAsset.id != stored.id,
                ImageAsset.superseded_at.is_(None),
            )
            .values(superseded_at=stored.created_at)
        )
        return stored

    async def _write(self, op: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        if self._writer is not None:
            return await self._writer.run(op)
        async with self._sessions() as session, session.begin():
            return await op(await session.connection())

    def _contained(self, relative: str) -> Path | None:
        root = self.root.resolve()
        path = (root / relative).resolve()
        if not path.is_relative_to(root) or path == root or not path.is_file():
            return None
        return path

    def _read_contained(self, relative: str) -> bytes | None:
        path = self._contained(relative)
        return path.read_bytes() if path is not None else None

    @staticmethod
    def _write_once(path: Path, data: bytes) -> None:
        """Write `data` to `path` atomically, unless a file of the same size (same sha) is already there."""
        if path.is_file() and path.stat().st_size == len(data):
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise


def _extension(data: bytes) -> str:
    """The file extension of image bytes by their signature (PNG, JPEG, WebP, GIF: what `tools.image_input`
    lets through); `ValueError` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "webp"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    raise ValueError("unsupported picture format (PNG, JPEG, WebP or GIF expected)")
