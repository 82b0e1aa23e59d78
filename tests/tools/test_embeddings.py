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
    vector = embed_one("周末去哪里露营")
    batch = embed(["周末去哪里露营"] * BATCH_SIZE, threads=2)

    assert blas_threads_seen == [1, 2]
    assert vector.shape == (NDIMS,) and batch.shape == (BATCH_SIZE, NDIMS)
    # the thread count changes the arithmetic's order, never the embedding
    np.testing.assert_allclose(batch[0], vector, atol=1e-5)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_embedding_ranks_a_paraphrase_above_an_unrelated_text() -> None:
    texts = ["新手露营需要带什么装备", "第一次去露营的装备清单", "减脂早餐怎么吃"]
    query, paraphrase, unrelated = embed(texts)
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.1
