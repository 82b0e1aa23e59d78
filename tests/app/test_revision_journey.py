"""A creator's whole revision journey over HTTP (the ASGI app, SQLite): make a post; revise the title only,
one picture, the reader — each running only the agents it needs (model and image calls counted from the
usage each revision adds); read the cover's text (OCR finds the title); paint a mask on the cover and change
that region (pixels outside unchanged); edit the text read from the card; restore version 1 (exactly its
content again); download the package (it holds what the current version holds)."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from collections.abc import AsyncIterator
from typing import Any

import httpx
import numpy as np
import pytest
from PIL import Image, ImageDraw

from app.settings import Settings
from tests.serving import asgi_client, events_of, live_events_of

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


@pytest.fixture
async def api(seeded_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(seeded_settings) as client:
        yield client


def calls(usage: dict[str, Any], before: dict[str, Any]) -> dict[str, int]:
    """Model and image calls per task that a revision added to the creative's usage."""
    added = {t: int(row.get("calls", 0)) - int(before.get(t, {}).get("calls", 0)) for t, row in usage.items()}
    return {t: n for t, n in added.items() if n}


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


async def test_make_revise_edit_restore_and_download(api: httpx.AsyncClient) -> None:
    async def usage() -> dict[str, Any]:
        detail = (await api.get(f"/api/creatives/{creative_id}")).json()
        by_task: dict[str, Any] = detail["usage"]["byTask"]
        return by_task

    async def revise(message: str, based_on: int) -> tuple[dict[str, Any], dict[str, int]]:
        before = await usage()
        response = await api.post("/api/agent/stream", json={
            "threadId": thread_id, "message": message, "basedOn": based_on, "enableHITL": False,
        })
        done = events_of(response.text)[-1]
        assert done["type"] == "workflow_complete" and done["version"] == based_on + 1, response.text[-300:]
        return done, calls(await usage(), before)

    asked = {"message": REQUEST, "imageCount": 2, "enableHITL": False}
    response = await api.post("/api/agent/stream", json=asked)
    first = events_of(response.text)[-1]
    thread_id, creative_id = first["threadId"], first["creativeId"]
    full = await usage()
    assert full["writer"]["calls"] >= 1 and full["image"]["calls"] >= 2

    # the title only: the writer and the review, no picture
    titled, spent = await revise("标题里加上「新手必看」", 1)
    assert set(spent) <= {"writer", "review"} and "新手必看" in titled["title"]
    assert titled["imageAssetIds"] == first["imageAssetIds"]
    # one picture: its plan and that picture, not the text
    recoloured, spent = await revise("第2张图换成蓝色调", 2)
    assert set(spent) <= {"image_plan", "image", "review"} and spent.get("image") == 1
    assert recoloured["imageAssetIds"][0] == first["imageAssetIds"][0] != first["imageAssetIds"][1]
    assert recoloured["title"] == titled["title"]
    # another reader: the text again, the pictures kept
    readers, spent = await revise("换成写给大学生", 3)
    assert set(spent) <= {"writer", "review"} and "大学生" in readers["body"]
    assert readers["imageAssetIds"] == recoloured["imageAssetIds"]

    # the cover's text, read by OCR, holds the title the card was drawn with
    cover = readers["imageAssetIds"][0]
    analysis = (await api.get(f"/api/assets/{cover}/analysis")).json()
    headline = next(e for e in analysis["elements"] if e["kind"] == "text" and e["label"] == "headline")
    assert "".join(headline["text"].split()) in "".join(analysis["text"].split())

    # paint a mask over the cover's top right and put a sun there: only those pixels change
    before = pixels((await api.get(f"/api/assets/{cover}")).content)
    height, width = before.shape[:2]
    box = (width * 3 // 5, 40, width - 40, height // 4)
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).rectangle(box, fill=255)
    out = io.BytesIO()
    mask.save(out, format="PNG")
    edited = live_events_of((await api.post(f"/api/assets/{cover}/edit", json={
        "instruction": "画一个黄色的太阳", "basedOn": 4,
        "mask": "data:image/png;base64," + base64.b64encode(out.getvalue()).decode(),
    })).text)
    assert edited[-1]["type"] == "workflow_complete" and edited[-1]["version"] == 5
    painted = edited[-1]["imageAssetIds"][0]
    after = pixels((await api.get(f"/api/assets/{painted}")).content)
    inside = np.asarray(mask) > 127
    assert np.array_equal(after[~inside], before[~inside])
    assert not np.array_equal(after[inside], before[inside])

    # edit the headline text read from the card: the card is drawn again with it
    line = next(r for r in analysis["textRegions"] if r["text"][:2] in headline["text"])
    retext = live_events_of((await api.post(f"/api/assets/{painted}/edit", json={
        "textEdits": [{"box": line["box"], "text": "露营小白", "original": line["text"][:2]}], "basedOn": 5,
    })).text)
    assert retext[-1]["version"] == 6
    six = (await api.get(f"/api/creatives/{creative_id}/versions/6")).json()["version"]
    assert "露营小白" in six["imagePlans"][0]["overlay"]["headline"]

    # restore version 1: exactly its content again, as version 7
    restored = await api.post(f"/api/creatives/{creative_id}/versions/1/restore", json={"basedOn": 6})
    assert restored.status_code == 200 and restored.json()["version"] == 7
    versions = f"/api/creatives/{creative_id}/versions"
    one = (await api.get(f"{versions}/1")).json()["version"]
    seven = (await api.get(f"{versions}/7")).json()["version"]
    for key in ("title", "body", "tags", "imageAssetIds", "imagePlans", "textOverlayPlan"):
        assert seven[key] == one[key], key
    detail = (await api.get(f"/api/creatives/{creative_id}")).json()
    assert (detail["title"], detail["body"]) == (first["title"], first["body"])

    # the package holds what the current version holds
    zipped = (await api.get(f"/api/creatives/{creative_id}/package.zip")).content
    archive = zipfile.ZipFile(io.BytesIO(zipped))
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["version"] == 7 and [i["assetId"] for i in manifest["images"]] == first["imageAssetIds"]
    for image in manifest["images"]:
        assert archive.read(image["file"]) == (await api.get(f"/api/assets/{image['assetId']}")).content
    post = archive.read("post.txt").decode("utf-8")
    assert post.startswith(first["title"]) and first["body"] in post
