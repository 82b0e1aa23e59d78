"""`GET /api/creatives/{id}/package.zip`: a version of a creative as a publishing package — its pictures in
order, `post.txt` and `manifest.json` (`app.package`).

Readable by whoever may read the creative (as `GET /api/creatives/{id}`). `?version=n` picks a version
(default: the current one); an unknown creative is a 404 `NOT_FOUND`, an unknown version — or a creative
that has none yet — a 404 `VERSION_NOT_FOUND`, a `version` that is not a number in range a 422.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from app.http.auth import require_on
from app.http.errors import NotFound, ValidationFailed
from app.http.request import resources_of
from app.http.routes.versions import MAX_VERSION
from app.package import build_package, creative_info, load_version


def _version(request: Request) -> int | None:
    """`?version=`: None when absent or empty (the current version); ASCII digits 1..MAX_VERSION, else 422.
    Given twice, the last one counts (as the creatives filters' values)."""
    given = [value.strip() for value in request.query_params.getlist("version") if value.strip()]
    if not given:
        return None
    value = given[-1]
    if not (value.isascii() and value.isdigit() and len(value) <= 7 and 1 <= int(value) <= MAX_VERSION):
        raise ValidationFailed(
            f"查询参数不合法（version：必须是 1 到 {MAX_VERSION} 之间的整数）",
            details=[{"field": "version", "error": f"必须是 1 到 {MAX_VERSION} 之间的整数（只用数字 0-9）"}],
        )
    return int(value)


async def package_endpoint(request: Request) -> Response:
    """The zip of one version (default the current one), as an attachment named after the post."""
    creative_id: int = request.path_params["id"]
    number = _version(request)
    resources = resources_of(request)
    creative = await creative_info(resources.sessions, creative_id)
    if creative is None:
        raise NotFound(f"找不到创作 #{creative_id}", details={"creativeId": creative_id})
    require_on(request, "read", creative.owner_id)
    version = await load_version(resources.sessions, creative, number)
    package = await build_package(resources.assets, creative, version)
    return Response(
        package.data,
        media_type="application/zip",
        headers={"Content-Disposition": package.content_disposition(), "Cache-Control": "no-store"},
    )


routes: list[BaseRoute] = [
    Route("/api/creatives/{id:int}/package.zip", package_endpoint, methods=["GET"]),
]
