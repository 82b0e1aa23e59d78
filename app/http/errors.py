"""HTTP errors in the protocol's shape: `{"error": {"code", "message", "details"}}` with a fitting 4xx.

StudioError (tools.errors)
├── RunError (agents.errors)          carries its own `status` (404 / 409 / 422 / 503 SERVER_STOPPING)
├── ImageInputError, ImageEditError   422 (a reference image, an image edit's mask / box / text)
└── ApiError                          raised by routes
    ├── BadRequest          400       malformed body (not JSON, not an object)
    ├── NotFound            404       unknown creative / asset / page
    ├── PayloadTooLarge     413       body over `STUDIO_MAX_BODY_BYTES`
    ├── ValidationFailed    422       a well-formed body that breaks the rules
    ├── Unauthenticated     401       no or a bad token / session (app.http.auth)
    ├── Forbidden           403       the role may not do this, or not to someone else's run (app.http.auth)
    └── RateLimited         429       a per-user run limit (app.http.limits; with Retry-After)

Anything else a route raises is a bug: it is logged and answered 500 with code INTERNAL_ERROR.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tools.errors import ImageEditError, ImageInputError, StudioError

log = logging.getLogger("studio.http")


class ApiError(StudioError):
    code = "BAD_REQUEST"
    status = 400


class BadRequest(ApiError):
    code = "BAD_REQUEST"
    status = 400


class NotFound(ApiError):
    code = "NOT_FOUND"
    status = 404


class PayloadTooLarge(ApiError):
    code = "PAYLOAD_TOO_LARGE"
    status = 413


class ValidationFailed(ApiError):
    code = "VALIDATION_ERROR"
    status = 422


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details}}


def error_response(
    status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


def validation_details(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic errors as `[{"field": "message", "error": "..."}]` (camelCase field paths)."""
    return [
        {"field": ".".join(str(p) for p in err["loc"]) or None, "error": err["msg"]} for err in exc.errors()
    ]


def validation_failed(exc: ValidationError, message: str = "请求参数不合法") -> ValidationFailed:
    details = validation_details(exc)
    first = details[0] if details else {}
    where = f"{first.get('field')}：" if first.get("field") else ""
    return ValidationFailed(f"{message}（{where}{first.get('error', '')}）", details=details)


async def studio_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StudioError)
    client_error = isinstance(exc, ImageInputError | ImageEditError)  # the request's image / edit: 422
    status = int(getattr(exc, "status", 0)) or (422 if client_error else 400)
    return error_response(status, exc.code, exc.message, exc.details, headers=getattr(exc, "headers", None))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}
    code = codes.get(exc.status_code, "HTTP_ERROR")
    message = {404: "找不到该资源", 405: "不支持的请求方法"}.get(exc.status_code, str(exc.detail))
    headers = dict(exc.headers or {})
    if "Allow" in headers:  # a 405 names the methods the path takes (Starlette lists a set: sort it)
        allowed = sorted({m.strip() for m in headers["Allow"].split(",") if m.strip()})
        headers["Allow"] = ", ".join(allowed)
        message = f"不支持的请求方法 {request.method}（可用：{headers['Allow']}）"
    return error_response(exc.status_code, code, message, headers=headers or None)


async def internal_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "INTERNAL_ERROR", "服务器内部错误，请稍后重试")


EXCEPTION_HANDLERS: dict[Any, Any] = {
    StudioError: studio_error,
    HTTPException: http_error,
    Exception: internal_error,
}
