"""The web studio: static pages served by the same server (lands with the web studio issue)."""

from __future__ import annotations

from starlette.routing import BaseRoute

routes: list[BaseRoute] = []
