"""Settings errors name the setting and what is wrong with it, never the value: a database URL or an API
key given by mistake is a secret all the same."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings


def test_a_bad_database_url_is_refused_without_echoing_its_password() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(_env_file=None, database_url="mysql://studio:s3cret-pw@db.internal/studio")  # type: ignore[call-arg]
    message = str(caught.value)
    assert "database_url" in message and "mysql://" in message  # what is wrong, and where
    assert "s3cret-pw" not in message


def test_a_postgres_url_gets_the_studios_driver() -> None:
    settings = Settings(_env_file=None, database_url="postgres://studio@db.internal:5432/studio")  # type: ignore[call-arg]
    assert settings.db_url == "postgresql+psycopg://studio@db.internal:5432/studio"
