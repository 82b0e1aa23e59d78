"""The Starlette application factory: `create_app(settings)`.

The lifespan opens what every request shares — database, checkpointer (one per process), knowledge
store, LLM gateway, image providers (`app.resources.open_resources`) — the accounts (a first start creates
the local admin: `app.http.auth.bootstrap_local_admin`) and the run manager, which first sweeps for runs
nobody runs. Routes reach them through `app.http.request`. Every request passes `app.http.auth.Guard`
(Host, who, Origin/CSRF/content type) before its route.

`create_app(settings, tune_gc=True)` (what `studio serve` does) also tunes the garbage collector once
everything is loaded — see `tune_gc_for_serving`.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from agents.run import RunManager
from app.http import openapi, web
from app.http.auth import Guard, allowed_hosts, bootstrap_local_admin
from app.http.errors import EXCEPTION_HANDLERS
from app.http.request import NoSniff
from app.http.routes import agent, analysis, auth, creatives, edits, export, versions
from app.resources import open_resources
from app.settings import Settings
from tools.accounts import Accounts
from tools.database import is_postgresql, libpq_url


async def healthz(request: Request) -> JSONResponse:
    """Liveness: the process is up and its resources are open."""
    return JSONResponse({"status": "ok"})


def tune_gc_for_serving() -> None:
    """For a long-running server, after start-up. What start-up loaded (libraries, models, the compiled
    graph: most of the heap) is never garbage, yet every full collection walked it: one took ~300 ms,
    stopping every run at once (docs/benchmarks.md). Freeze it out of the collector's view and collect the
    youngest generation less often (every 20,000 allocations instead of 700)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def create_app(settings: Settings, *, tune_gc: bool = False) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.allowed_hosts = allowed_hosts(settings)
        async with open_resources(settings, warm=True) as resources:
            app.state.resources = resources
            accounts = Accounts(
                resources.sessions, session_ttl=timedelta(hours=settings.session_ttl_hours),
                writer=resources.writer,
            )
            app.state.accounts = accounts
            app.state.bootstrap = await bootstrap_local_admin(accounts, settings)
            manager = RunManager(
                resources,
                on_disconnect=settings.on_disconnect,
                poll_s=settings.follow_poll_s,
                max_runs=settings.max_runs_per_process,
                listen_url=libpq_url(settings.db_url) if is_postgresql(settings.db_url) else None,
            )
            await manager.open()
            app.state.runs = manager
            if tune_gc:
                tune_gc_for_serving()
            try:
                yield
            finally:
                await manager.shutdown()

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        *auth.routes,
        *agent.routes,
        *creatives.routes,
        *analysis.routes,
        *versions.routes,
        *export.routes,
        *edits.routes,
        Route("/openapi.json", openapi.openapi_json, methods=["GET"]),
        *web.routes,
    ]
    middleware = [Middleware(Guard)]
    if settings.cors_origins:  # off unless configured; outside the guard, so preflights need no login
        middleware.insert(0, Middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID", "X-CSRF-Token"],
        ))
    return Studio(
        routes=routes, lifespan=lifespan, exception_handlers=EXCEPTION_HANDLERS, middleware=middleware
    )


class Studio(Starlette):
    """The app: Starlette's, with every response wrapped by `NoSniff` (outside its error middleware, so
    even a 500 carries the header)."""

    def build_middleware_stack(self) -> ASGIApp:
        return NoSniff(super().build_middleware_stack())
