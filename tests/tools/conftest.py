"""Fixtures of the tools tests: the local OpenAI Images API (tests/tools/images_api.py), one server per
module, its scripted faults and recorded requests cleared for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tools.images_api import ImagesAPI


@pytest.fixture(scope="module")
def images_api() -> Iterator[ImagesAPI]:
    with ImagesAPI() as api:
        yield api


@pytest.fixture
def api(images_api: ImagesAPI) -> ImagesAPI:
    images_api.clear()
    return images_api
