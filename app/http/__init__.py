"""The studio over HTTP: the Starlette app (`factory`), its guard (`auth`), routes, SSE framing, the
OpenAPI document and the web studio's pages and static files."""
