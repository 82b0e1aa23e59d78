"""Shared fixtures: isolated settings on a temporary data dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    s.ensure_dirs()
    return s
