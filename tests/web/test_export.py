"""下载发布包 in a real browser: on a creative's detail page and under a finished result in the studio, a
download link to the current version's package; the file it downloads is that version's zip."""

from __future__ import annotations

import io
import json
import zipfile

from playwright.sync_api import expect

from tests.web.conftest import ARTIFACTS, Studio, run_workflow


def test_the_package_is_downloaded_from_the_detail_page_and_the_studio(studio: Studio) -> None:
    studio.name = "export"
    done = run_workflow(studio.server, "帮我写一篇周末去公园野餐的笔记，下载发布包用", images=1)[-1]
    assert done["type"] == "workflow_complete" and done["version"] == 1
    creative_id = done["creativeId"]
    href = f"/api/creatives/{creative_id}/package.zip?version=1"

    page = studio.goto(f"/creatives/{creative_id}")
    link = page.locator(".detail-head [data-action=download-package]")
    expect(link).to_have_text("下载发布包")
    expect(link).to_have_attribute("href", href)
    expect(link).to_have_attribute("download", "")
    studio.shot("detail", full_page=False)
    with page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename.startswith(f"作品{creative_id}-第1版-")
    data = download.value.path().read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["01.png", "post.txt", "manifest.json"]
        assert archive.read("post.txt").decode().split("\n", 1)[0] == done["title"]
        assert json.loads(archive.read("manifest.json"))["images"][0]["assetId"] == done["imageAssetIds"][0]

    # the studio, reopened on the finished thread: the same link under the result
    page = studio.goto(f"/?thread={done['threadId']}")
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=60_000)
    under = page.locator(".result-download [data-action=download-package]")
    expect(under).to_be_visible()
    expect(under).to_have_attribute("href", href)
    ARTIFACTS.mkdir(exist_ok=True)  # the result's column, the link under it
    page.locator(".run-grid > .run-col").first.screenshot(path=str(ARTIFACTS / f"{studio.name}-studio.png"))
