"""The asset store on a real SQLite file and a real directory."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from agents.run import BatchWriter
from tools.assets import AssetStore
from tools.database import Base, Creative, ImageAsset, create_engine, session_factory


def png(colour: tuple[int, int, int]) -> bytes:
    out = BytesIO()
    Image.new("RGB", (12, 16), colour).save(out, format="PNG")
    return out.getvalue()


RED, BLUE = png((255, 0, 0)), png((0, 0, 255))


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'studio.db'}")
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


@pytest.fixture
def store(tmp_path: Path, sessions: async_sessionmaker[AsyncSession]) -> AssetStore:
    return AssetStore(tmp_path / "assets", sessions)


async def make_creative(sessions: async_sessionmaker[AsyncSession], thread_id: str = "t1") -> int:
    async with sessions() as session, session.begin():
        creative = Creative(thread_id=thread_id, request="露营笔记")
        session.add(creative)
    return creative.id


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


async def test_save_is_content_addressed(store: AssetStore, tmp_path: Path) -> None:
    record = await store.save(
        RED,
        mime="image/png",
        width=12,
        height=16,
        role="cover",
        provider="offline",
        prompt="封面",
        task_index=1,
    )
    sha = hashlib.sha256(RED).hexdigest()
    assert record.sha256 == sha
    assert record.file_path == f"{sha[:2]}/{sha}.png"
    assert (tmp_path / "assets" / record.file_path).read_bytes() == RED
    assert (record.status, record.role, record.prompt, record.task_index, record.ok) == (
        "complete",
        "cover",
        "封面",
        1,
        True,
    )
    assert await store.get(record.id) == record


async def test_same_bytes_are_stored_once(store: AssetStore, tmp_path: Path) -> None:
    first = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    second = await store.save(RED, mime="image/png", width=12, height=16, role="detail", provider="offline")
    third = await store.save(BLUE, mime="image/png", width=12, height=16, role="detail", provider="offline")
    assert first.id != second.id  # one row per use…
    assert first.file_path == second.file_path  # …one file per content
    assert third.file_path != first.file_path
    assert len(files_under(tmp_path / "assets")) == 2  # and no temporary files left behind


async def test_jpeg_gets_its_extension(store: AssetStore) -> None:
    out = BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out, format="JPEG")
    record = await store.save(
        out.getvalue(), mime="image/jpeg", width=8, height=8, role="reference", provider="upload"
    )
    assert record.file_path.endswith(".jpg")
    with pytest.raises(ValueError):
        await store.save(b"x", mime="text/plain", width=1, height=1, role="cover", provider="offline")


async def test_a_model_card_keeps_its_bare_picture_once_per_content(
    store: AssetStore, sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    out = BytesIO()
    Image.new("RGB", (8, 12), (30, 90, 160)).save(out, format="JPEG")
    photo = out.getvalue()  # what the image model drew, as it came (a JPEG here)
    card = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="dall-e-3",
                            picture=photo)
    sha = hashlib.sha256(photo).hexdigest()
    assert card.picture_path == f"{sha[:2]}/{sha}.jpg"  # content-addressed like the card, by its own bytes
    assert await store.get(card.id) == card and await store.picture(card) == photo
    edited = await store.save(BLUE, mime="image/png", width=12, height=16, role="cover", provider="dall-e-3",
                              picture=photo, history=True)
    assert edited.picture_path == card.picture_path  # an edit of the card shares the one file
    assert len(files_under(tmp_path / "assets")) == 3
    plain = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    assert plain.picture_path is None and await store.picture(plain) is None
    with pytest.raises(ValueError):
        await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="x", picture=b"?")
    for tampered in ("../studio.db", "/etc/passwd", "."):  # read back only from inside the root
        async with sessions() as session, session.begin():
            await session.execute(
                update(ImageAsset).where(ImageAsset.id == card.id).values(picture_path=tampered)
            )
        stored = await store.get(card.id)
        assert stored is not None and await store.picture(stored) is None
    (tmp_path / "assets" / str(edited.picture_path)).unlink()
    assert await store.picture(edited) is None  # a missing file is no picture


async def test_record_failure_has_no_file(store: AssetStore, tmp_path: Path) -> None:
    record = await store.record_failure(
        role="detail", provider="dall-e-3", error="超时", task_index=2, width=1080, height=1440
    )
    assert (record.status, record.error, record.file_path, record.ok) == ("failed", "超时", "", False)
    assert await store.open_path(record.id) is None
    assert files_under(tmp_path / "assets") == []


async def test_open_path(store: AssetStore, tmp_path: Path) -> None:
    record = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    found = await store.open_path(record.id)
    assert found is not None
    path, mime = found
    assert mime == "image/png" and path.read_bytes() == RED
    assert path.is_relative_to((tmp_path / "assets").resolve())
    assert await store.open_path(9999) is None
    assert await store.get(9999) is None


@pytest.mark.parametrize("tampered", ["../studio.db", "../../../../etc/passwd", "/etc/passwd", "", "."])
async def test_open_path_never_leaves_the_root(
    store: AssetStore, sessions: async_sessionmaker[AsyncSession], tampered: str
) -> None:
    record = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    async with sessions() as session, session.begin():
        await session.execute(update(ImageAsset).where(ImageAsset.id == record.id).values(file_path=tampered))
    assert await store.open_path(record.id) is None


async def test_open_path_refuses_symlinks_out_of_the_root(
    store: AssetStore, sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    record = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    outside = tmp_path / "outside.png"
    outside.write_bytes(BLUE)
    (tmp_path / "assets" / "escape.png").symlink_to(outside)
    async with sessions() as session, session.begin():
        await session.execute(
            update(ImageAsset).where(ImageAsset.id == record.id).values(file_path="escape.png")
        )
    assert await store.open_path(record.id) is None


async def test_missing_file_is_not_found(store: AssetStore, tmp_path: Path) -> None:
    record = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    (tmp_path / "assets" / record.file_path).unlink()
    assert await store.open_path(record.id) is None
    again = await store.save(RED, mime="image/png", width=12, height=16, role="cover", provider="offline")
    assert await store.open_path(again.id) is not None  # saving the same bytes restores the file


async def test_link_and_list_for_creative(
    store: AssetStore, sessions: async_sessionmaker[AsyncSession]
) -> None:
    creative_id = await make_creative(sessions)
    other_id = await make_creative(sessions, "t2")
    second = await store.save(
        BLUE, mime="image/png", width=12, height=16, role="detail", provider="offline", task_index=2
    )
    first = await store.save(
        RED, mime="image/png", width=12, height=16, role="cover", provider="offline", task_index=1
    )
    failed = await store.record_failure(role="result", provider="offline", error="boom", task_index=3)
    elsewhere = await store.save(
        RED, mime="image/png", width=12, height=16, role="cover", provider="offline", creative_id=other_id
    )
    assert await store.list_for_creative(creative_id) == []
    assert await store.link([second.id, first.id, failed.id, first.id], creative_id) == 3
    assert await store.link([], creative_id) == 0
    listed = await store.list_for_creative(creative_id)
    assert [r.id for r in listed] == [first.id, second.id, failed.id]  # by task index
    assert all(r.creative_id == creative_id for r in listed)
    assert [r.id for r in await store.list_for_creative(other_id)] == [elsewhere.id]


async def save_task(store: AssetStore, creative_id: int, task: int, data: bytes = RED) -> int:
    record = await store.save(
        data, mime="image/png", width=12, height=16, role="cover" if task == 1 else "detail",
        provider="offline", creative_id=creative_id, task_index=task,
    )
    return record.id


async def current(store: AssetStore, creative_id: int) -> list[int]:
    return [a.id for a in await store.list_for_creative(creative_id) if a.superseded_at is None]


@pytest.mark.parametrize("batched", [False, True], ids=["sessions", "batch writer"])
async def test_a_redone_picture_replaces_its_task_and_is_kept_as_history(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], batched: bool
) -> None:
    writer = BatchWriter(sessions.kw["bind"]) if batched else None
    store = AssetStore(tmp_path / "assets", sessions, writer)
    try:
        creative_id = await make_creative(sessions)
        upload = await store.save(BLUE, mime="image/png", width=12, height=16, role="reference",
                                  provider="upload", creative_id=creative_id)
        first = [await save_task(store, creative_id, 1), await save_task(store, creative_id, 2)]
        assert await current(store, creative_id) == [first[0], first[1], upload.id]
        again = await save_task(store, creative_id, 1, BLUE)  # the redo of task 1
        failed = await store.record_failure(role="detail", provider="offline", error="超时",
                                            creative_id=creative_id, task_index=2)
        assert await current(store, creative_id) == [again, failed.id, upload.id]
        old = {a.id: a for a in await store.list_for_creative(creative_id)}
        assert old[first[0]].superseded_at == old[again].created_at  # left the set when replaced
        assert old[first[1]].superseded_at is not None and old[upload.id].superseded_at is None
        other = await make_creative(sessions, "t2")  # another creative's task 1 is its own
        assert await current(store, other) == [] and await save_task(store, other, 1)
        assert await current(store, creative_id) == [again, failed.id, upload.id]
    finally:
        if writer is not None:
            await writer.close()


async def test_set_current_restores_a_delivered_round_and_drops_deleted_tasks(
    store: AssetStore, sessions: async_sessionmaker[AsyncSession]
) -> None:
    creative_id = await make_creative(sessions)
    round1 = [await save_task(store, creative_id, k) for k in (1, 2, 3)]
    round2 = [await save_task(store, creative_id, k, BLUE) for k in (1, 2)]  # an editor deleted plan 3
    await store.set_current(creative_id, round2, [1, 2])
    assert await current(store, creative_id) == round2  # task 3 is gone from the package
    await store.set_current(creative_id, round1, [1, 2, 3])  # delivery chose round 1
    assert await current(store, creative_id) == round1
    failure = await store.record_failure(role="detail", provider="offline", error="超时",
                                         creative_id=creative_id, task_index=2)
    await store.set_current(creative_id, [round1[0], None, round1[2]], [1, 2, 3])  # task 2 failed
    assert await current(store, creative_id) == [round1[0], failure.id, round1[2]]
    await store.set_current(creative_id, [round2[1]])  # without the plans: only the listed task moves
    assert await current(store, creative_id) == [round1[0], round2[1], round1[2]]
