"""The analysts' explorer (`/creatives`) in a real browser: filters, sorting, charts, detail, CSV export."""

from __future__ import annotations

import csv
import io
import re

from playwright.sync_api import expect

from tests.web.conftest import Studio, no_horizontal_overflow, run_workflow

MARK = "苏州河"  # a word only this module's requests use, so other tests' creatives never match


def test_an_analyst_filters_creatives_and_downloads_the_csv(studio: Studio) -> None:
    studio.name = "creatives"
    done = [
        run_workflow(studio.server, f"帮我写一篇{MARK}边城市骑行的笔记，面向上班族")[-1],
        run_workflow(studio.server, f"帮我写一篇{MARK}畔咖啡探店的笔记")[-1],
    ]
    paused = run_workflow(studio.server, f"帮我写一篇{MARK}夜跑路线的笔记", hitl=True)[-1]
    assert [d["type"] for d in done] == ["workflow_complete", "workflow_complete"]
    assert paused["type"] == "workflow_paused"

    page = studio.goto("/creatives")
    expect(page.locator("#creatives-body tr[data-id]").first).to_be_visible()
    expect(page.locator("#stat-tiles .stat-tile")).to_have_count(4)
    for chart in ("#chart-days", "#chart-scores", "#chart-tags"):
        expect(page.locator(f"{chart} svg").first).to_be_visible()
    expect(page.locator("#chart-scores svg rect").first).to_be_attached()
    studio.shot("1-overview")

    # text filter: the three creatives of this module
    page.fill("#f-q", MARK)
    page.click("#filters button[type=submit]")
    rows = page.locator("#creatives-body tr[data-id]")
    expect(rows).to_have_count(3)
    expect(page.locator("#list-summary")).to_have_text("共 3 篇")
    assert "q=" in page.url  # filters live in the URL
    # status filter (applies on change) narrows it to the completed ones, each with a thumbnail
    page.select_option("#f-status", "completed")
    expect(rows).to_have_count(2)
    expect(rows.locator("img.thumb")).to_have_count(2)
    expect(page.locator("#stat-tiles .stat-tile").first).to_contain_text("2")
    # min score and date range keep them; a tag that is not there empties the table
    page.fill("#f-min", "0.5")
    page.fill("#f-from", "2000-01-01")
    page.fill("#f-to", "2999-12-31")
    page.click("#filters button[type=submit]")
    expect(rows).to_have_count(2)
    tag = done[0]["tags"][0]
    page.fill("#f-tag", tag)
    page.click("#filters button[type=submit]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(f"#{tag}")
    page.fill("#f-tag", "")
    page.click("#filters button[type=submit]")
    expect(rows).to_have_count(2)
    studio.shot("2-filtered")

    # sorting by title toggles direction and is reflected in the header
    header = page.locator("th[data-sort=title]")
    header.locator("button").click()
    expect(header).to_have_attribute("aria-sort", "ascending")
    titles = rows.locator(".title-cell a").all_inner_texts()
    header.locator("button").click()
    expect(header).to_have_attribute("aria-sort", "descending")
    expect(rows.locator(".title-cell a")).to_have_text(list(reversed(titles)))

    # CSV export honours the filters
    href = page.locator("#export-btn").get_attribute("href") or ""
    assert "status=completed" in href and "minScore=0.5" in href
    with page.expect_download() as info:
        page.click("#export-btn")
    download = info.value
    assert re.fullmatch(r"creatives-[\d-]+\.csv", download.suggested_filename)
    text = download.path().read_text(encoding="utf-8-sig")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == 2
    assert {row["status"] for row in table} == {"completed"}
    assert all(MARK in row["request"] for row in table)
    assert {int(row["id"]) for row in table} == {d["creativeId"] for d in done}

    # clear invalid input is explained without a request
    page.fill("#f-min", "3")
    page.click("#filters button[type=submit]")
    expect(page.locator("#list-error")).to_contain_text("0 到 1")
    page.fill("#f-min", "0.5")

    # the detail view: the post, images, brief, evidence, review rounds, timings, usage
    rows.first.locator(".title-cell a").click()
    detail = page.locator("#detail-view")
    expect(detail.locator("h1")).to_be_visible()
    assert re.search(r"/creatives/\d+$", page.url)
    for section in ("#detail-post", "#detail-images", "#detail-review", "#detail-brief", "#detail-evidence",
                    "#detail-timings", "#detail-usage", "#detail-request"):
        expect(detail.locator(section)).to_be_visible()
    expect(detail.locator("#detail-images img").first).to_be_visible()
    expect(detail.locator("#detail-review .score-bars li")).to_have_count(5)
    expect(detail.locator("#detail-timings tbody tr").first).to_be_visible()
    studio.shot("3-detail")

    # back to the list keeps the filters; reopening a finished thread shows it in the studio
    detail.locator("a[data-nav=list]").click()
    expect(rows).to_have_count(2)
    expect(page.locator("#f-q")).to_have_value(MARK)
    rows.first.locator(".title-cell a").click()
    detail.get_by_role("link", name="在工作台打开").click()
    expect(page).to_have_url(re.compile(r"/\?thread="))
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成")

    # a paused creative can be reopened for review from its detail view
    with studio.api() as client:
        paused_id = client.get(f"/api/agent/threads/{paused['threadId']}").json()["creativeId"]
    studio.goto(f"/creatives/{paused_id}")
    expect(detail.locator(".status-pill")).to_have_text("待审核")
    detail.get_by_role("link", name="去审核").click()
    expect(page.locator(".checkpoint[data-kind=content]")).to_be_visible()


def test_the_explorer_on_a_phone(phone: Studio) -> None:
    phone.name = "creatives-phone"
    run_workflow(phone.server, f"帮我写一篇{MARK}周末市集的笔记")
    page = phone.goto(f"/creatives?q={MARK}")
    expect(page.locator("#creatives-body tr[data-id]").first).to_be_visible()
    expect(page.locator("#f-q")).to_have_value(MARK)
    assert no_horizontal_overflow(page)
    phone.shot("1-list")
    page.locator("#creatives-body tr[data-id] .title-cell a").first.click()
    expect(page.locator("#detail-view h1")).to_be_visible()
    assert no_horizontal_overflow(page)
    phone.shot("2-detail")


def test_unknown_creatives_show_the_api_error(studio: Studio) -> None:
    studio.name = "creatives-404"
    studio.expect_console_error("status of 404")
    page = studio.goto("/creatives/987654")
    expect(page.locator("#detail-view .alert.error")).to_contain_text("找不到")
    page.locator("#detail-view a[data-nav=list]").click()
    expect(page).to_have_url(re.compile(r"/creatives$"))
