"""Retrieval: hybrid search latency at 1k, 10k and 100k notes, and import throughput.

    .venv/bin/python -m bench.retrieval [--sizes 1000 10000 100000] [--queries 60] [--embed-up-to 10000]

The corpus is synthetic (`bench.corpus`): Chinese notes in ten themes. Tiers are built incrementally through
`KnowledgeStore.upsert_notes` (the import path of `studio notes import`: embed, merge by id, refresh the
full-text index) and timed; after each tier, `queries` distinct queries run as hybrid searches (vector +
BM25, RRF, limit 8), then again filtered to the query's theme (what the research agent does), and each
half on its own (exact cosine kNN with the query embedded beforehand; BM25) to show which one grows.

Embedding is the import's cost (~4–8 ms per note on 2 cores: two texts per note). Notes up to
`--embed-up-to` are embedded for real; beyond it, tiers reuse those real vectors round-robin, so the 100k
table has its full size, its own texts and a real full-text index, and search latency (exact kNN over every
row, plus BM25) is measured for real — but the 100k import time is then write + index only, and the full
import time is estimated as that plus the embedding cost per note measured on the real tiers. Pass
`--embed-up-to 100000` to embed everything (about 10 minutes on 2 cores).

The tiers are searched exactly (the store's automatic vector index is held off). When the last tier has at
least `--index-from` notes, it is measured once more with the index the store builds itself from 20,000
notes on (`KnowledgeStore.build_vector_index`: IVF-HNSW-SQ, cosine), and its recall@8 against exact kNN.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import RESULTS_DIR, print_table, run_benchmark, summary
from bench.corpus import queries, synthetic_notes
from tools.embeddings import embed
from tools.knowledge import INDEX_PARTITION_ROWS, SEARCH_EF, KnowledgeStore

SEARCH_LIMIT = 8


class TimedStore(KnowledgeStore):
    """The knowledge store with its embedding step timed — or, once `reuse` is set, replaced by vectors
    reused from the notes embedded so far (everything else is the real import path)."""

    def __init__(self, path: Path, **options: Any) -> None:
        super().__init__(path, **options)
        self.embed_seconds = 0.0
        self.reuse = False
        self._pool: list[np.ndarray] = []

    async def _centroids(self, groups: list[list[str]]) -> np.ndarray:
        if self.reuse and self._pool:
            pool = np.vstack(self._pool)
            return pool[np.arange(len(groups)) % len(pool)]
        started = time.perf_counter()
        vectors = await super()._centroids(groups)
        self.embed_seconds += time.perf_counter() - started
        self._pool.append(vectors)
        return vectors


async def _search_ms(store: KnowledgeStore, cases: Sequence[tuple[str, str]], *, themed: bool) -> list[float]:
    timings = []
    for query, theme in cases:
        started = time.perf_counter()
        hits = await store.search_notes(query, limit=SEARCH_LIMIT, theme=theme if themed else None)
        timings.append((time.perf_counter() - started) * 1000)
        assert hits, f"no hit for {query!r}"
    return timings


async def _parts_ms(
    store: KnowledgeStore, cases: Sequence[tuple[str, str]]
) -> tuple[list[float], list[float]]:
    """The two halves of a hybrid search on their own: exact cosine kNN (query embedded beforehand) and
    BM25 full-text search, each with the same limit."""
    vectors = embed([query for query, _ in cases])
    knn, fts = [], []
    table = store.notes_table
    for (query, _), vector in zip(cases, vectors, strict=True):
        started = time.perf_counter()
        knn_query = table.query().nearest_to(vector).distance_type("cosine").ef(SEARCH_EF)
        await knn_query.limit(SEARCH_LIMIT).to_arrow()
        knn.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await table.query().nearest_to_text(query, columns="text").limit(SEARCH_LIMIT).to_arrow()
        fts.append((time.perf_counter() - started) * 1000)
    return knn, fts


async def _nearest_distances(store: KnowledgeStore, vectors: np.ndarray, *, exact: bool) -> list[list[float]]:
    found = []
    for vector in vectors:
        query = store.notes_table.query().nearest_to(vector).distance_type("cosine").limit(SEARCH_LIMIT)
        query = query.bypass_vector_index() if exact else query.ef(SEARCH_EF)  # as `search_notes` does
        rows = (await query.to_arrow()).column("vector").to_numpy(zero_copy_only=False)
        found.append(sorted(1.0 - float(np.dot(row, vector)) for row in rows))  # exact cosine distances
    return found


def _recall(approximate: list[list[float]], exact: list[list[float]]) -> float:
    """Recall@k by distance: an indexed hit counts if it is as near as the exact k-th (the generated corpus
    reuses vectors, so comparing ids would count ties as misses)."""
    hits = [
        sum(distance <= kth[-1] + 1e-5 for distance in found) / len(kth)
        for found, kth in zip(approximate, exact, strict=True)
        if kth
    ]
    return float(np.mean(hits))


async def _with_vector_index(store: KnowledgeStore, cases: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Build the store's vector index, time the same searches again and measure its recall@8 (kNN)."""
    started = time.perf_counter()
    index = await store.build_vector_index()
    build_s = time.perf_counter() - started
    hybrid = await _search_ms(store, cases, themed=False)
    themed = await _search_ms(store, cases, themed=True)
    knn, _ = await _parts_ms(store, cases)
    vectors = embed([query for query, _ in cases])
    exact = await _nearest_distances(store, vectors, exact=True)
    approximate = await _nearest_distances(store, vectors, exact=False)
    return {
        "notes": index.indexed_rows,
        "index": f"{index.kind}, cosine, {index.indexed_rows // INDEX_PARTITION_ROWS or 1} partitions",
        "buildSeconds": round(build_s, 1),
        "recallAt8": round(_recall(approximate, exact), 3),
        "hybridMs": summary(hybrid),
        "hybridThemeMs": summary(themed),
        "vectorOnlyMs": summary(knn),
    }


async def measure(
    *,
    sizes: Sequence[int] = (1000, 10_000, 100_000),
    queries_per_tier: int = 60,
    embed_up_to: int = 10_000,
    index_from: int = 50_000,
    warmup_queries: int = 5,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Build each tier on top of the last, time its import, then time hybrid searches against it."""
    cases = queries(queries_per_tier + warmup_queries)
    warm, cases = cases[:warmup_queries], cases[warmup_queries:]
    query_embed_ms = []
    embed(["预热"])
    for query, _ in cases:
        started = time.perf_counter()
        embed([query])
        query_embed_ms.append((time.perf_counter() - started) * 1000)
    tiers: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-", dir=workdir) as scratch:
        # exact search on every tier; the index is measured once, at the end
        store = TimedStore(Path(scratch) / "lancedb", vector_index_from=max(sizes) + 1)
        async with store:
            have = 0
            for size in sorted(sizes):
                added = size - have
                notes = list(synthetic_notes(added, start=have))
                store.reuse = have >= embed_up_to
                store.embed_seconds = 0.0
                started = time.perf_counter()
                written = await store.upsert_notes(notes)
                seconds = time.perf_counter() - started
                have = size
                count = await store.count_notes()
                await _search_ms(store, warm, themed=False)
                hybrid = await _search_ms(store, cases, themed=False)
                themed = await _search_ms(store, cases, themed=True)
                knn, fts = await _parts_ms(store, cases)
                embedded = not store.reuse
                write_s = seconds - store.embed_seconds
                tiers.append(
                    {
                        "notes": count,
                        "added": written,
                        "embedded": embedded,
                        "importSeconds": round(seconds, 2),
                        "importNotesPerSecond": round(written / seconds, 1),
                        "embedMsPerNote": (
                            round(store.embed_seconds * 1000 / written, 2) if embedded else None
                        ),
                        "writeIndexMsPerNote": round(write_s * 1000 / written, 3),
                        "hybridMs": summary(hybrid),
                        "hybridThemeMs": summary(themed),
                        "vectorOnlyMs": summary(knn),
                        "fullTextOnlyMs": summary(fts),
                    }
                )
            indexed = await _with_vector_index(store, cases) if have >= index_from else None
    real = [tier for tier in tiers if tier["embedded"]]
    embed_ms = real[-1]["embedMsPerNote"] if real else None
    for tier in tiers:
        if not tier["embedded"] and embed_ms is not None:
            per_note = embed_ms + tier["writeIndexMsPerNote"]
            tier["estimatedFullImportNotesPerSecond"] = round(1000 / per_note, 1)
    return {
        "config": {
            "sizes": list(sizes),
            "queriesPerTier": len(cases),
            "searchLimit": SEARCH_LIMIT,
            "embeddedUpTo": embed_up_to,
            "search": "hybrid: cosine kNN (exact, no ANN index) + BM25 (ICU tokenizer), RRF k=60",
        },
        "queryEmbedMs": summary(query_embed_ms),
        "tiers": tiers,
        "withVectorIndex": indexed,
    }


def report(result: dict[str, Any]) -> None:
    rows = []
    for tier in result["tiers"]:
        rows.append(
            [
                tier["notes"],
                f"{tier['hybridMs']['p50']} / {tier['hybridMs']['p95']}",
                f"{tier['hybridThemeMs']['p50']} / {tier['hybridThemeMs']['p95']}",
                f"{tier['vectorOnlyMs']['p50']} / {tier['fullTextOnlyMs']['p50']}",
                tier["added"],
                tier["importSeconds"],
                tier["importNotesPerSecond"]
                if tier["embedded"]
                else f"{tier['importNotesPerSecond']} (no embed)",
                tier["embedMsPerNote"] if tier["embedded"] else "reused",
                tier["writeIndexMsPerNote"],
            ]
        )
    print_table(
        "Retrieval: hybrid search latency (ms) and import throughput",
        [
            "notes",
            "hybrid p50/p95",
            "+theme p50/p95",
            "kNN / BM25 p50",
            "added",
            "import s",
            "notes/s",
            "embed ms/note",
            "write+index ms/note",
        ],
        rows,
    )
    q = result["queryEmbedMs"]
    print(f"  query embedding alone: p50 {q['p50']} ms, p95 {q['p95']} ms")
    indexed = result.get("withVectorIndex")
    if indexed:
        print(
            f"  {indexed['notes']} notes with a vector index ({indexed['index']}, built in"
            f" {indexed['buildSeconds']} s, recall@8 {indexed['recallAt8']}):"
            f" hybrid p50/p95 {indexed['hybridMs']['p50']} /"
            f" {indexed['hybridMs']['p95']} ms, +theme {indexed['hybridThemeMs']['p50']} /"
            f" {indexed['hybridThemeMs']['p95']} ms, kNN p50 {indexed['vectorOnlyMs']['p50']} ms"
        )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=60, help="queries per tier (and again with a theme)")
    parser.add_argument("--embed-up-to", type=int, default=10_000, help="embed notes for real up to here")
    parser.add_argument("--index-from", type=int, default=50_000, help="also time the last tier indexed")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    return run_benchmark(
        "retrieval",
        measure,
        report,
        args.out,
        sizes=args.sizes,
        queries_per_tier=args.queries,
        embed_up_to=args.embed_up_to,
        index_from=args.index_from,
    )


if __name__ == "__main__":
    main()
