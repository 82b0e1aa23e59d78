"""A creative's 版本记录 on its detail page in a real browser: the versions newest first with thumbnails,
one selected with its changes against the one before, 恢复此版本 with an inline confirmation, and a stale
restore (another version made behind the page's back) answered with the conflict message."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Locator, Page, Route, expect

from tests.web.conftest import PHONE, Accounts, Browsers, Studio, no_horizontal_overflow, run_as
from tests.web.test_labels import raw_on_screen

REQUEST = "帮我写一篇周末城市露营的小红书笔记，记录版本用"


def completed_creative(studio: Studio, accounts: Accounts, message: str) -> int:
    """A creative completed by a run the page's own account (an admin) started through the API."""
    assert studio.account is not None
    done = run_as(accounts, studio.account, message)[-1]
    assert done["type"] == "workflow_complete", done
    assert done["version"] == 1
    return int(done["creativeId"])


def restore(studio: Studio, accounts: Accounts, creative_id: int, number: int, based_on: int) -> int:
    """Restore version `number` through the API (behind the page's back), as the page's account."""
    assert studio.account is not None
    with accounts.client(studio.account) as api:
        response = api.post(
            f"/api/creatives/{creative_id}/versions/{number}/restore", json={"basedOn": based_on}
        )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["restoredFrom"] == number
    return int(body["version"])


def version_row(card: Locator, number: int) -> Locator:
    return card.locator(f"li.version-item[data-version='{number}']")


def select(card: Locator, number: int) -> Locator:
    """Click version `number` in the list; its view (with its changes) once it is shown."""
    version_row(card, number).locator("button.version-pick").click()
    view = card.locator(f".version-view[data-version='{number}']")
    expect(view).to_be_visible()
    return view


def current_row(card: Locator) -> Locator:
    return card.locator("li.version-item[data-current='true']")


def test_versions_are_listed_compared_and_restored_on_the_detail_page(
    studio: Studio, accounts: Accounts, browsers: Browsers
) -> None:
    studio.name = "versions"
    creative_id = completed_creative(studio, accounts, REQUEST)
    page = studio.goto(f"/creatives/{creative_id}")
    card = page.locator("#detail-versions")
    expect(card.locator(".card-head h2")).to_have_text("版本记录")

    # one version: 第 1 版, current, made by the run, with a thumbnail that loads
    rows = card.locator("li.version-item")
    expect(rows).to_have_count(1)
    first = version_row(card, 1)
    expect(first).to_contain_text("第 1 版")
    expect(first.locator(".badge")).to_have_text("当前")
    expect(first).to_contain_text("创作运行")
    assert studio.account is not None
    expect(first.locator(".version-actor")).to_have_text(studio.account.name)  # who, as a name
    thumb = first.locator(".version-thumbs img")
    expect(thumb).to_have_count(1)
    expect(thumb).to_have_attribute("loading", "lazy")
    expect(thumb).to_have_attribute("alt", "第 1 版的第 1 张图")
    thumb.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=thumb.element_handle())
    # the current version is shown: the first one, nothing to compare it with, nothing to restore
    view = card.locator(".version-view[data-version='1']")
    expect(view).to_contain_text("这是第一版，没有更早的版本可以比较。")
    expect(view.locator("ins, del")).to_have_count(0)
    expect(card.locator("[data-action=restore]")).to_have_count(0)
    expect(view).to_contain_text("这是当前版本。")
    assert not raw_on_screen(card), raw_on_screen(card)

    # a restore through the API makes 第 2 版: a restore of 第 1 版, the same content
    assert restore(studio, accounts, creative_id, 1, based_on=1) == 2
    page.reload()
    expect(rows).to_have_count(2)
    expect(rows.first).to_have_attribute("data-version", "2")  # newest first
    expect(current_row(card)).to_have_attribute("data-version", "2")
    second = select(card, 2)
    expect(version_row(card, 2).locator("button.version-pick")).to_have_attribute("aria-pressed", "true")
    expect(second.locator(".version-view-head")).to_contain_text("恢复旧版（来自第 1 版）")
    expect(version_row(card, 2)).to_contain_text("恢复旧版")
    expect(second).to_contain_text("与第 1 版相比没有变化。")
    expect(second).to_contain_text("标签没有变化")
    expect(second).to_contain_text("配图没有变化")
    assert not raw_on_screen(card), raw_on_screen(card)

    # restore 第 1 版 in the page: an inline confirmation first (no dialog), cancel, then confirm
    older = select(card, 1)
    older.locator("[data-action=restore]").click()
    confirm = card.locator(".version-confirm")
    expect(confirm).to_contain_text("确定恢复第 1 版吗？")
    expect(confirm).to_contain_text("新的第 3 版")
    expect(confirm.locator("[data-action=confirm-restore]")).to_be_focused()
    confirm.locator("[data-action=cancel-restore]").click()
    expect(confirm).to_have_count(0)
    older.locator("[data-action=restore]").click()
    studio.shot("1-confirm")
    confirm.locator("[data-action=confirm-restore]").click()

    # the page reloads the creative: 第 3 版 current and shown, the restore in the audit records
    expect(card.locator(".version-notice")).to_have_text("已恢复第 1 版，现在的当前版本是第 3 版。")
    expect(rows).to_have_count(3)
    expect(current_row(card)).to_have_attribute("data-version", "3")
    expect(current_row(card)).to_contain_text("第 3 版")
    expect(current_row(card).locator(".badge")).to_have_text("当前")
    third = card.locator(".version-view[data-version='3']")
    expect(third).to_contain_text("恢复旧版（来自第 1 版）")
    expect(third).to_contain_text("这是当前版本。")
    expect(page.locator("#detail-audit")).to_contain_text("恢复版本")
    expect(page.locator("#detail-post .draft-title")).not_to_be_empty()
    expect(page.locator("#detail-images img").first).to_be_visible()
    assert not raw_on_screen(page.locator("#detail-view")), raw_on_screen(page.locator("#detail-view"))
    studio.shot("2-restored")

    # someone else restores behind the page's back (第 4 版): the page's restore, based on 第 3 版, is refused
    assert restore(studio, accounts, creative_id, 2, based_on=3) == 4
    studio.expect_console_error("status of 409")  # the refused POST, logged by the browser
    select(card, 1).locator("[data-action=restore]").click()
    card.locator("[data-action=confirm-restore]").click()
    conflict = card.locator(".version-actions .alert.error")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("这篇作品刚刚被别人改过，没有恢复。")
    expect(conflict).to_contain_text("现在的当前版本是第 4 版")
    expect(current_row(card)).to_have_attribute("data-version", "3")  # nothing changed on the page
    expect(card.locator(".version-notice")).to_be_hidden()  # the last restore's notice went with the new try
    studio.shot("3-conflict")
    # 刷新作品 loads the creative again: 第 4 版 is current, nothing was restored twice
    conflict.locator("[data-action=reload]").click()
    expect(rows).to_have_count(4)
    expect(current_row(card)).to_have_attribute("data-version", "4")
    expect(version_row(card, 4)).to_contain_text("恢复旧版（来自第 2 版）")
    assert not studio.dialogs

    # an analyst reads the history but is not offered a restore (the server would refuse it: 403)
    analyst = browsers.login_as("analyst", path=f"/creatives/{creative_id}")
    theirs = analyst.page.locator("#detail-versions")
    expect(theirs.locator("li.version-item")).to_have_count(4)
    view = select(theirs, 1)
    expect(view).to_contain_text("你的账号不能恢复这篇作品的版本。")
    expect(theirs.locator("[data-action=restore]")).to_have_count(0)


def _fake_diff(creative_id: int, real: dict[str, Any]) -> dict[str, Any]:
    """Version 1 of the creative as 第 2 版 with a changed title, body, tags and picture (a real creative's
    versions differ only after a second run, which the studio does not offer yet)."""
    version = {**real["version"], "number": 2, "source": "run", "sourceLabel": "创作运行"}
    return {
        "creativeId": creative_id,
        "current": 2,
        "version": version,
        "diff": {
            "against": 1,
            "title": [{"op": "delete", "text": "周末"}, {"op": "insert", "text": "冬季"},
                      {"op": "equal", "text": "城市露营"}],
            "body": [{"op": "equal", "text": "第一段不变\n"}, {"op": "delete", "text": "删掉的一行\n"},
                     {"op": "equal", "text": "中间一行\n"}, {"op": "insert", "text": "新加的一行"}],
            "tags": {"added": ["冬季露营"], "removed": ["秋冬露营"]},
            "imagesChanged": [1],
        },
    }


def test_a_versions_changes_are_marked_inserted_and_deleted(studio: Studio, accounts: Accounts) -> None:
    studio.name = "versions-diff"
    creative_id = completed_creative(studio, accounts, "帮我写一篇冬季城市露营的笔记，看版本差异")
    with studio.api() as api:
        real = api.get(f"/api/creatives/{creative_id}/versions/1").json()
    fake = _fake_diff(creative_id, real)

    listed = {
        "creativeId": creative_id,
        "current": 1,
        "items": [real["version"], {**fake["version"], "createdAt": real["version"]["createdAt"]}],
    }

    def answer(payload: dict[str, Any]) -> Any:
        def fulfill(route: Route) -> None:
            body = json.dumps(payload, ensure_ascii=False)
            route.fulfill(status=200, content_type="application/json", body=body)

        return fulfill

    page: Page = studio.page
    page.route(f"**/api/creatives/{creative_id}/versions", answer(listed))
    page.route(f"**/api/creatives/{creative_id}/versions/2", answer(fake))
    studio.goto(f"/creatives/{creative_id}")
    card = page.locator("#detail-versions")
    view = select(card, 2)
    expect(view).to_contain_text("与第 1 版相比：新增的文字标为绿色，删除的标为红色并划线。")
    title = view.locator(".version-title")
    expect(title.locator("del")).to_have_text("周末")
    expect(title.locator("ins")).to_have_text("冬季")
    expect(title).to_have_text("周末冬季城市露营")
    body = view.locator(".version-body")
    expect(body.locator("del")).to_have_text("删掉的一行\n")
    expect(body.locator("ins")).to_have_text("新加的一行")
    # the body keeps its line breaks: four lines on screen
    assert body.inner_text().strip().split("\n") == ["第一段不变", "删掉的一行", "中间一行", "新加的一行"]
    assert body.evaluate("el => getComputedStyle(el).whiteSpace") == "pre-wrap"
    expect(view.locator(".version-tags .chip-added")).to_have_text("+ #冬季露营")
    expect(view.locator(".version-tags .chip-removed")).to_have_text("− #秋冬露营")
    expect(view.locator(".version-images")).to_contain_text("第2张图有变化")
    # inserted and deleted text look different from the rest and from each other
    colours = body.evaluate(
        """el => ['ins', 'del'].map(t => {
            const s = getComputedStyle(el.querySelector(t));
            return [s.backgroundColor, s.textDecorationLine];
        })"""
    )
    assert colours[0][0] != colours[1][0] and "line-through" in colours[1][1], colours
    # not the current version (the list says 第 1 版 is): it may be restored
    expect(view.locator("[data-action=restore]")).to_have_text("恢复此版本")
    assert not raw_on_screen(card), raw_on_screen(card)
    studio.shot("1-diff")
    # on a phone the card fits the screen (long lines wrap, the fields stack)
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    expect(view.locator(".version-body")).to_be_visible()
    assert no_horizontal_overflow(page)
    studio.shot("2-phone")
