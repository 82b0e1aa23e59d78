"""A throwaway PostgreSQL for the tests, no Docker: `bench.pg.PostgresCluster` (the machine's `initdb` and
`pg_ctl` start a cluster in a temporary directory, on a free port of 127.0.0.1 with trust authentication
and no durability; run as the unprivileged `postgres` user when we are root; a watchdog stops and removes
it should the tests end without doing so). The benchmarks start the same cluster, so it lives in `bench/`.
Each test gets an empty database of its own (`create_database`, a few tens of milliseconds); the end of the
session stops the cluster and removes it.

The fixtures are in tests/conftest.py: `postgres` (the session's cluster) and `postgres_url` (a new database).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bench.pg import INITDB, OS_USER, SETTINGS, SUPERUSER, PostgresCluster, find_bindir, unavailable

__all__ = [
    "INITDB",
    "OS_USER",
    "SETTINGS",
    "SUPERUSER",
    "PostgresCluster",
    "find_bindir",
    "throwaway_cluster",
    "unavailable",
]


@contextmanager
def throwaway_cluster() -> Iterator[PostgresCluster]:
    """A started cluster, stopped and removed at the end. Where PostgreSQL is missing the test is skipped,
    with the reason — or fails under CI=true, where `make test` has installed it."""
    reason = unavailable()
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"{reason}; CI runs the PostgreSQL tests", pytrace=False)
        pytest.skip(reason)
    bindir = find_bindir()
    assert bindir is not None
    cluster = PostgresCluster(bindir)
    try:
        yield cluster.start()
    finally:
        cluster.stop()
