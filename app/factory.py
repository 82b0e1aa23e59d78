"""The Starlette application factory: `create_app(settings)`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.settings import Settings


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def create_app(settings: Settings) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.settings = settings
        yield

    return Starlette(routes=[Route("/healthz", healthz)], lifespan=lifespan)
