"""The web studio: three pages (studio, editors' inbox, analysts' explorer) and their static files.

Plain HTML, CSS and ES modules from `app/http/static` — no build step and nothing loaded from the internet.
Pages are revalidated on every load (`no-cache`) and static files carry an ETag/Last-Modified, so a
browser never runs stale JavaScript after an upgrade but still gets cheap 304s. Mounted after the API
routes, so `/api/...` always wins; unknown paths keep the JSON 404.

The pages need a login (`app.http.auth.Guard` sends a browser without one to `/login?next=…`); each page reads
`GET /api/me` to show who is logged in and only what that role may use, and sends the session's CSRF secret
with every state-changing call (`static/js/api.js`). The static files are public.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent / "static"

# Same-origin everything, no inline script or style; images may also be data: URLs (reference previews).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class StudioStaticFiles(StaticFiles):
    """Static files that are always revalidated (ETag / Last-Modified make that a cheap 304)."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def _html(filename: str) -> Response:
    return FileResponse(STATIC_DIR / filename, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


async def studio_page(request: Request) -> Response:
    """The creators' studio: request form, live run view, checkpoints (`/?thread=<id>` reopens a run)."""
    return _html("studio.html")


async def inbox_page(request: Request) -> Response:
    """The editors' inbox: every paused run, reviewed and confirmed in place."""
    return _html("inbox.html")


async def creatives_page(request: Request) -> Response:
    """The analysts' explorer: filters, table, charts, detail view (`/creatives/{id}`), CSV export."""
    return _html("creatives.html")


routes: list[BaseRoute] = [
    Route("/", studio_page, methods=["GET", "HEAD"]),
    Route("/inbox", inbox_page, methods=["GET", "HEAD"]),
    Route("/creatives", creatives_page, methods=["GET", "HEAD"]),
    Route("/creatives/{creative_id:int}", creatives_page, methods=["GET", "HEAD"]),
    Mount("/static", app=StudioStaticFiles(directory=STATIC_DIR), name="static"),
]
