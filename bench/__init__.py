"""Benchmark harness: critical path vs a sequential baseline, zero-latency overhead, HTTP concurrency,
resume latency after a restart, and retrieval at scale. `python -m bench` runs them all; numbers and
method are in docs/benchmarks.md."""

import os

# The retrieval benchmark reuses real vectors to fill its largest tier, so LanceDB's k-means warns about
# duplicate vectors when it builds a vector index there; keep its Rust log to errors (read at import).
os.environ.setdefault("LANCE_LOG", "error")
