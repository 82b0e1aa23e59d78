"""Embeddings: the real USE model; BLAS threads per call (one for a query, `threads` for a batch)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from tools import embeddings
from tools.embeddings import BATCH_SIZE, NDIMS, embed, embed_one


@pytest.fixture
def blas_threads_seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The BLAS thread count in force during each call of the model's `encode`."""
    seen: list[int] = []
    encoder = embeddings.get_encoder()
    encode = encoder.encode

    def recording(texts: Sequence[str]) -> np.ndarray:
        seen.append(min(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"))
        return np.asarray(encode(texts))

    monkeypatch.setattr(encoder, "encode", recording)
    yield seen


def test_a_query_uses_one_blas_thread_and_a_batch_uses_threads(blas_threads_seen: list[int]) -> None:
    embeddings._cache.clear()
    vector = embed_one("周末去哪里露营")
    embeddings._cache.clear()  # encode the query again, in the batch
    batch = embed(["周末去哪里露营", *(f"周末去哪里露营，第{i}站" for i in range(1, BATCH_SIZE))], threads=2)

    assert blas_threads_seen == [1, 2]
    assert vector.shape == (NDIMS,) and batch.shape == (BATCH_SIZE, NDIMS)
    # the thread count changes the arithmetic's order, never the embedding
    np.testing.assert_allclose(batch[0], vector, atol=1e-5)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_a_text_embedded_again_is_not_encoded_again(blas_threads_seen: list[int]) -> None:
    embeddings._cache.clear()
    first = embed(["秋天去哪里看红叶", "减脂早餐怎么吃"])
    again = embed(["减脂早餐怎么吃", "新手露营需要带什么装备", "减脂早餐怎么吃"])

    assert len(blas_threads_seen) == 2  # the second call encoded only the one new text
    np.testing.assert_array_equal(again[0], first[1])
    np.testing.assert_array_equal(again[2], first[1])
    assert again.shape == (3, NDIMS)
    # a call of an import's size neither reads nor fills the cache
    many = [f"笔记{i}" for i in range(embeddings.CACHE_CALL_TEXTS + 1)]
    embed(many)
    assert "笔记0" not in embeddings._cache and len(blas_threads_seen) == 2 + -(-len(many) // BATCH_SIZE)


def test_embedding_ranks_a_paraphrase_above_an_unrelated_text() -> None:
    texts = ["新手露营需要带什么装备", "第一次去露营的装备清单", "减脂早餐怎么吃"]
    query, paraphrase, unrelated = embed(texts)
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.1
