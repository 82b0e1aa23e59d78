"""A version's publishing package through the ASGI app, on each backend: the zip holds exactly what the
version holds — its pictures in order with the bytes of the asset files, post.txt, the manifest — an older
version exports its own content, and unknown creatives and versions are 404s in the protocol's shape."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from app.package import package_filename, post_text
from app.settings import Settings
from tests.serving import asgi_client, bearer, stream_run

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(backend_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(backend_settings) as client:
        yield client


async def package(api: httpx.AsyncClient, creative_id: int, **params: Any) -> zipfile.ZipFile:
    response = await api.get(f"/api/creatives/{creative_id}/package.zip", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(response.content))


async def asset_file(api: httpx.AsyncClient, asset_id: int) -> tuple[bytes, str]:
    """The bytes of an asset's file on disk (through the app's own asset store) and its mime type."""
    assets = api._transport.app.state.resources.assets  # type: ignore[attr-defined]
    located = await assets.open_path(asset_id)
    assert located is not None
    return located[0].read_bytes(), located[1]


async def assert_holds(
    api: httpx.AsyncClient, archive: zipfile.ZipFile, creative_id: int, number: int
) -> None:
    """The package is exactly version `number`: its pictures in order, its post, its manifest."""
    version = (await api.get(f"/api/creatives/{creative_id}/versions/{number}")).json()["version"]
    ids = version["imageAssetIds"]
    files = [await asset_file(api, asset_id) for asset_id in ids]
    names = [f"{k:02d}.{'png' if mime == 'image/png' else 'jpg'}" for k, (_data, mime) in enumerate(files, 1)]
    assert archive.namelist() == [*names, "post.txt", "manifest.json"]
    for name, (data, _mime) in zip(names, files, strict=True):
        assert archive.read(name) == data
    tags = " ".join(f"#{tag}" for tag in version["tags"])
    assert archive.read("post.txt").decode("utf-8") == f"{version['title']}\n\n{version['body']}\n\n{tags}\n"

    manifest = json.loads(archive.read("manifest.json"))
    assert (manifest["creativeId"], manifest["version"], manifest["source"]) == (creative_id, number, "run")
    assert manifest["sourceLabel"] == "创作运行" and manifest["createdAt"] == version["createdAt"]
    assert (manifest["title"], manifest["tags"]) == (version["title"], version["tags"])
    assert manifest["missing"] == []
    plans = version["imagePlans"]
    for k, (image, asset_id, (data, mime)) in enumerate(zip(manifest["images"], ids, files, strict=True)):
        assert (image["file"], image["assetId"], image["mime"]) == (names[k], asset_id, mime)
        assert image["index"] == k + 1
        assert image["sha256"] == hashlib.sha256(data).hexdigest() and image["bytes"] == len(data)
        assert (image["width"], image["height"]) == (1080, 1440) and image["role"] == plans[k]["role"]
        assert image["plan"]["index"] == plans[k]["index"] and image["plan"]["subject"] == plans[k]["subject"]


async def test_the_package_holds_the_version_and_an_older_one_its_own(api: httpx.AsyncClient) -> None:
    first = (await stream_run(api, {"message": REQUEST, "imageCount": 2, "enableHITL": False}))[-1]
    assert first["type"] == "workflow_complete" and first["version"] == 1
    creative_id = first["creativeId"]

    response = await api.get(f"/api/creatives/{creative_id}/package.zip")
    name, ascii_name = package_filename(creative_id, 1, first["title"])
    assert name.startswith(f"作品{creative_id}-第1版-") and ascii_name == f"creative-{creative_id}-v1.zip"
    assert response.headers["content-disposition"] == (
        f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"
    )
    await assert_holds(api, await package(api, creative_id), creative_id, 1)
    # the same version is the same bytes every time
    again = await api.get(f"/api/creatives/{creative_id}/package.zip", params={"version": "1"})
    assert again.content == response.content

    # a revision of the second picture and the title: version 2; version 1 keeps its own content
    thread_id = (await api.get(f"/api/creatives/{creative_id}")).json()["threadId"]
    redrawn = (await stream_run(api, {"threadId": thread_id, "message": "第2张图换成蓝色调"}))[-1]
    assert redrawn["type"] == "workflow_complete" and redrawn["version"] == 2
    asked = {"threadId": thread_id, "message": "标题里加上「新手必看」", "basedOn": 2}
    retitled = (await stream_run(api, asked))[-1]
    assert retitled["version"] == 3 and "新手必看" in retitled["title"]

    current = await package(api, creative_id, version="")  # empty: the current one
    await assert_holds(api, current, creative_id, 3)
    await assert_holds(api, await package(api, creative_id, version=2), creative_id, 2)
    old = await package(api, creative_id, version=1)
    await assert_holds(api, old, creative_id, 1)
    assert old.read("01.png") == current.read("01.png") and old.read("02.png") != current.read("02.png")
    assert old.read("post.txt").decode().splitlines()[0] == first["title"] != retitled["title"]
    assert current.read("post.txt").decode().splitlines()[0] == retitled["title"]
    manifest = json.loads(current.read("manifest.json"))
    assert (manifest["version"], manifest["currentVersion"], manifest["basedOn"]) == (3, 3, 2)


async def test_unknown_creatives_and_versions_are_404s(api: httpx.AsyncClient) -> None:
    paused = (await stream_run(api, {"message": REQUEST, "imageCount": 1}))[-1]  # no version yet
    assert paused["type"] == "workflow_paused"
    creative_id = (await api.get(f"/api/agent/threads/{paused['threadId']}")).json()["creativeId"]
    none_yet = await api.get(f"/api/creatives/{creative_id}/package.zip")
    assert none_yet.status_code == 404 and none_yet.json()["error"]["code"] == "VERSION_NOT_FOUND"
    assert "还没有完成的版本" in none_yet.json()["error"]["message"]

    done = (await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False}))[-1]
    unknown = await api.get(f"/api/creatives/{done['creativeId']}/package.zip", params={"version": "7"})
    assert unknown.status_code == 404
    assert unknown.json()["error"] == {
        "code": "VERSION_NOT_FOUND",
        "message": f"作品 #{done['creativeId']} 没有第 7 版",
        "details": {"version": 7},
    }
    missing = await api.get("/api/creatives/999999/package.zip")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    for bad in ("0", "-1", "1.0", "abc", "２", "1000001"):
        refused = await api.get(f"/api/creatives/{done['creativeId']}/package.zip", params={"version": bad})
        assert refused.status_code == 422, bad
        assert refused.json()["error"]["details"][0]["field"] == "version"


async def test_the_package_is_read_like_the_creative(api: httpx.AsyncClient) -> None:
    done = (await stream_run(api, {"message": REQUEST, "imageCount": 1, "enableHITL": False}))[-1]
    accounts = api._transport.app.state.accounts  # type: ignore[attr-defined]
    tokens = {}
    for name, role in (("anna", "analyst"), ("alice", "creator")):
        await accounts.add_user(name, role, None, actor="test")
        tokens[name], _ = await accounts.create_token(name, actor="test")
    path = f"/api/creatives/{done['creativeId']}/package.zip"
    assert (await api.get(path, headers=bearer(tokens["anna"]))).status_code == 200  # reads all
    refused = await api.get(path, headers=bearer(tokens["alice"]))  # not hers
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
    assert (await api.get(path, headers={"Authorization": ""})).status_code == 401


def test_the_post_text_is_what_the_platform_takes() -> None:
    text = post_text("周末露营", "第一段\n\n第二段", ["露营", "#周末"])
    assert text == "周末露营\n\n第一段\n\n第二段\n\n#露营 #周末\n"
    assert post_text("只有标题", "", []) == "只有标题\n"
    assert post_text(None, None, None) == ""
    assert package_filename(3, 2, '露营/攻略: "新手"')[0] == "作品3-第2版-露营 攻略 新手.zip"
