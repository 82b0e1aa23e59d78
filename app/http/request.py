"""Small helpers every route uses: reach the app's resources, read a JSON body safely; and `NoSniff`, the
ASGI wrapper that gives every response `X-Content-Type-Options: nosniff`."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.run import Resources
from app.http.errors import BadRequest, PayloadTooLarge, validation_failed
from app.settings import Settings

M = TypeVar("M", bound=BaseModel)


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def resources_of(request: Request) -> Resources:
    resources: Resources = request.app.state.resources
    return resources


def json_number(text: str) -> int | float:
    """A JSON number written with a fraction or exponent: an integer when its fraction is zero (`4.0`, `1e2`),
    as JSON Schema reads it — JSON itself has one number type — so an integer field takes it; else a float
    (`4.5`, which an integer field refuses). Strings and booleans are never numbers."""
    value = float(text)
    return int(value) if value.is_integer() else value


async def read_json(request: Request) -> dict[str, Any]:
    """The body as a JSON object; 413 past the size limit, 400 when it is not a JSON object."""
    limit = settings_of(request).max_body_bytes
    declared = request.headers.get("content-length", "")
    # ASCII digits only (`isdigit` alone also takes ² or ３, which `int` refuses), and never a huge `int`
    too_large = declared.isascii() and declared.isdigit() and (len(declared) > 19 or int(declared) > limit)
    if too_large:
        raise PayloadTooLarge(f"请求体过大（上限 {limit // (1024 * 1024)} MB）", details={"limit": limit})
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"请求体过大（上限 {limit // (1024 * 1024)} MB）", details={"limit": limit})
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise BadRequest("请求体为空，需要一个 JSON 对象")
    try:
        body = json.loads(raw, parse_float=json_number)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(f"请求体不是合法的 JSON：{exc}") from exc
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象")
    return body


async def read_model(request: Request, model: type[M]) -> M:
    """Read and validate a body; 422 with field details when it breaks the rules."""
    body = await read_json(request)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise validation_failed(exc) from exc


class NoSniff:
    """Every HTTP response carries `X-Content-Type-Options: nosniff` — JSON, CSV, SSE, pages, static files
    and errors, the 500s of Starlette's outermost middleware included (wrap the whole stack with it) — once:
    a response that sets it itself keeps its own."""

    HEADER = b"x-content-type-options"

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                if not any(name.lower() == self.HEADER for name, _ in headers):
                    message = {**message, "headers": [*headers, (self.HEADER, b"nosniff")]}
            await send(message)

        await self.app(scope, receive, send_nosniff)
