"""What a run is asked for: the body of `POST /api/agent/stream` and its reference images."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from agents.artifacts import LayoutPreference


class ReferenceImageInput(BaseModel):
    """One reference image of a request: a data URL / raw base64 in `data`, or an http(s) `url`."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        # what `_one_source` checks, stated in the JSON schema (null counts as absent)
        json_schema_extra={
            "oneOf": [
                {"required": ["data"], "properties": {"data": {"type": "string"}}},
                {"required": ["url"], "properties": {"url": {"type": "string"}}},
            ]
        },
    )

    data: str | None = Field(
        None,
        min_length=1,
        description="A data URL (data:image/png;base64,…) or raw base64 of a PNG, JPEG, WebP or GIF image; "
        "bytes that are not such an image are a 422 IMAGE_* error.",
    )
    url: str | None = Field(
        None,
        min_length=1,
        description="An http(s) URL of such an image; private, loopback and link-local addresses are "
        "refused (422 IMAGE_URL_REFUSED).",
    )
    type: Literal["style", "layout", "content"] = "style"

    @model_validator(mode="after")
    def _one_source(self) -> ReferenceImageInput:
        if (self.data is None) == (self.url is None):
            raise ValueError("each reference image needs exactly one of `data` or `url`")
        return self


class RunRequest(BaseModel):
    """The body of `POST /api/agent/stream` (camelCase on the wire). Strict: JSON types are never converted
    (`"imageCount": true` or `"4"`, `"enableHITL": "yes"` are 422s, not a 1-image run, 4 and true)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True)

    message: str = Field(
        min_length=1, max_length=4000, pattern=r"\S", description="1..4000 characters once trimmed."
    )
    thread_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    reference_images: list[ReferenceImageInput] = Field(default_factory=list, max_length=6)
    layout_preference: LayoutPreference = "balanced"
    image_count: int = Field(4, ge=1, le=9)
    enable_hitl: bool | None = Field(None, alias="enableHITL")
    image_provider: str | None = Field(None, max_length=200)
    model: str | None = Field(None, max_length=200)
    # a revision of a finished thread: the version the client saw as current (stale → 409 VERSION_CONFLICT)
    based_on: int | None = Field(None, ge=1, le=1_000_000)

    @field_validator("message", mode="before")
    @classmethod
    def _trim(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value


def reference_from_path(
    path: Path, usage: Literal["style", "layout", "content"] = "style"
) -> ReferenceImageInput:
    """A reference image from a local file (CLI use), as raw base64."""
    return ReferenceImageInput(data=base64.b64encode(path.read_bytes()).decode("ascii"), type=usage)
