"""Layout facts of the web studio at 1280 px and 390 px (issue 13's rough edges), measured in a real browser:
the timeline heading is an opaque band nothing scrolls under, status labels stay on one line, the inbox hint
points where the list really is, the checkpoint's buttons stay on screen, 重置 clears the address, the score
chart is a histogram per dimension, the title editor counts to the platform's 20 characters, headings focused
by script get no ring, and the phone preview shows the post as readers will see it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from agents.checks.textutil import char_count
from tests.serving import LiveServer
from tests.web.conftest import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    Studio,
    _studio,
    no_horizontal_overflow,
    run_workflow,
)

MARK = "程序员"  # in these two requests only (no corpus note mentions it)
SCREENS = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(params=list(SCREENS))
def screen(request: pytest.FixtureRequest, browser: Browser, web_server: LiveServer) -> Iterator[Studio]:
    """The same test at 1280×900 and at 390×844."""
    yield from _studio(request, browser, web_server, SCREENS[request.param])


@pytest.fixture(scope="module")
def runs(web_server: LiveServer) -> dict[str, Any]:
    """A finished run with two images and a run paused at its content checkpoint, with their creatives."""
    done = run_workflow(web_server, f"帮我写一篇周末城市露营的笔记，面向爱拍照的{MARK}", images=2)[-1]
    paused = run_workflow(web_server, f"帮我写一篇新手在家做手冲咖啡的笔记，面向{MARK}", hitl=True)[-1]
    assert done["type"] == "workflow_complete" and paused["type"] == "workflow_paused"
    with web_server.client() as client:
        paused_id = client.get(f"/api/agent/threads/{paused['threadId']}").json()["creativeId"]
        return {
            "done": client.get(f"/api/creatives/{done['creativeId']}").json(),
            "paused": client.get(f"/api/creatives/{paused_id}").json(),
        }


def shot(screen: Studio, label: str) -> None:
    """What is on screen now (not scrolled back to the top), into tests/web/artifacts/ (never committed)."""
    ARTIFACTS.mkdir(exist_ok=True)
    screen.page.screenshot(path=str(ARTIFACTS / f"{screen.name}-{label}.png"))


def box(locator: Locator) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None, f"{locator} has no box"
    return found


def in_view(page: Page, locator: Locator) -> None:
    """Wholly inside the viewport, below the sticky top bar, and the topmost element at its centre."""
    b = box(locator)
    topbar = box(page.locator(".topbar"))
    viewport = page.viewport_size or DESKTOP
    assert b["y"] >= topbar["y"] + topbar["height"] - 1, (b, topbar)
    assert b["y"] + b["height"] <= viewport["height"] + 1, (b, viewport)
    covered = locator.evaluate(
        "(el, p) => { const top = document.elementFromPoint(p.x, p.y);"
        " return !(el === top || el.contains(top)); }",
        {"x": b["x"] + b["width"] / 2, "y": b["y"] + b["height"] / 2},
    )
    assert not covered, "something covers it"


ONE_LINE = """el => {
  const s = getComputedStyle(el);
  const inner = el.getBoundingClientRect().height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)
    - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);
  return { inner, line: parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.6, text: el.textContent,
           clipped: el.scrollWidth > el.clientWidth + 1 };
}"""


def assert_one_line(locator: Locator) -> int:
    """Every match is one line high (not wrapped mid-word) and not clipped; returns how many were checked."""
    count = locator.count()
    for i in range(count):
        m = locator.nth(i).evaluate(ONE_LINE)
        assert m["inner"] <= m["line"] * 1.2, f"「{m['text']}」 wraps: {m}"
        assert not m["clipped"], f"「{m['text']}」 is cut off: {m}"
    return count


def test_the_timeline_heading_is_an_opaque_band_above_the_scrolled_entries(
    screen: Studio, runs: dict[str, Any]
) -> None:
    page = screen.goto(f"/?thread={runs['done']['threadId']}")
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成", timeout=60_000)
    timeline = page.locator("#timeline")
    head = page.locator(".timeline-card > .card-head")
    expect(head).to_have_text("智能体时间线")
    # scroll the list part-way so entries sit right under the heading
    scrolled = timeline.evaluate(
        "el => { el.scrollTop = Math.min(240, el.scrollHeight - el.clientHeight); return el.scrollTop; }"
    )
    assert scrolled > 0, "the timeline should be long enough to scroll"
    head.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().top - 150)")
    h, t = box(head), box(timeline)
    assert t["y"] >= h["y"] + h["height"] - 1, "the list starts below the heading, not under it"
    style = head.evaluate(
        "el => { const s = getComputedStyle(el); return [s.backgroundColor, s.borderBottomWidth, s.zIndex]; }"
    )
    assert style[0] == "rgb(255, 255, 255)", f"the heading band must be opaque: {style}"
    assert style[1] != "0px" and int(style[2]) >= 2
    # along the heading's band (text and padding), the heading is what the reader sees
    hits = head.evaluate(
        """el => { const r = el.getBoundingClientRect();
          return [0.1, 0.5, 0.9].flatMap(fx => [0.3, 0.95].map(fy => {
            const top = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
            return el === top || el.contains(top); })); }"""
    )
    assert all(hits), hits
    # the top bar is opaque too: what scrolls under it does not show through
    topbar = page.locator(".topbar").evaluate("el => getComputedStyle(el).backgroundColor")
    assert topbar == "rgb(255, 255, 255)"
    shot(screen, "timeline")


def test_status_labels_stay_on_one_line(screen: Studio, runs: dict[str, Any]) -> None:
    page = screen.goto(f"/creatives?q={MARK}")
    pills = page.locator("#creatives-body .status-pill")
    expect(pills).to_have_count(2)
    expect(page.locator("#creatives-body")).to_contain_text("待审核")
    expect(page.locator("#creatives-body")).to_contain_text("已完成")
    assert assert_one_line(pills) == 2
    assert no_horizontal_overflow(page)
    shot(screen, "status-list")
    # every page that shows a status: the detail head, the studio's run status, the inbox badges
    screen.goto(f"/creatives/{runs['paused']['id']}")
    expect(page.locator("#detail-view .status-pill")).to_have_text("待审核")
    assert_one_line(page.locator("#detail-view .status-pill, #detail-view .badge"))
    screen.goto(f"/?thread={runs['paused']['threadId']}")
    expect(page.locator(".run-status .status-pill")).to_have_text("待审核")
    assert_one_line(page.locator(".run-status .status-pill, .checkpoint .badge"))
    screen.goto("/inbox")
    expect(page.locator(".inbox-item").first).to_be_visible()
    assert assert_one_line(page.locator(".inbox-item .badge")) >= 1


def test_the_inbox_hint_points_where_the_list_is_and_the_buttons_stay_in_view(
    screen: Studio, runs: dict[str, Any]
) -> None:
    page = screen.goto("/inbox")
    item = page.locator(f".inbox-item[data-thread='{runs['paused']['threadId']}']")
    expect(item).to_be_visible()
    hint = page.locator("#review-empty")
    expect(hint).to_be_visible()
    listed, pane = box(page.locator("#inbox-list")), box(hint)
    text = hint.inner_text()
    if pane["x"] >= listed["x"] + listed["width"] - 1:  # side by side
        assert (page.viewport_size or {})["width"] == DESKTOP["width"]
        assert "左侧" in text and "上方" not in text, text
    else:  # stacked: the list is above the hint
        assert pane["y"] >= listed["y"] + listed["height"] - 1
        assert (page.viewport_size or {})["width"] == PHONE["width"]
        assert "上方" in text and "左侧" not in text, text
    shot(screen, "inbox-hint")

    item.click()
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible()
    expect(hint).to_be_hidden()
    page.wait_for_timeout(300)  # the phone layout scrolls the review into view
    for action in ("approve", "reject", "modify"):
        in_view(page, panel.locator(f".cp-actions [data-action={action}]"))
    shot(screen, "inbox-review")


def lengthen_the_draft(page: Page, paragraphs: int = 30) -> None:
    """Replay the run with a long draft at its content pause (a writer may give up to 3000 characters):
    the real events, the pause's draft body followed by more paragraphs of its own text."""

    def longer(route: Route) -> None:
        response = route.fetch()
        frames = []
        for line in response.text().split("\n"):
            if line.startswith("data: {"):
                event = json.loads(line[len("data: ") :])
                data = event.get("context", {}).get("data") if event.get("type") == "ask_user" else None
                if isinstance(data, dict) and data.get("body"):
                    first = data["body"].strip().split("\n\n")[0]
                    data["body"] += "".join(f"\n\n{i}. {first}" for i in range(1, paragraphs + 1))
                line = "data: " + json.dumps(event, ensure_ascii=False)
            frames.append(line)
        dropped = {"content-length", "transfer-encoding"}
        headers = {k: v for k, v in response.headers.items() if k.lower() not in dropped}
        route.fulfill(status=response.status, headers=headers, body="\n".join(frames))

    page.route(re.compile(r".*/api/agent/threads/[^/]+/events.*"), longer)


def test_the_checkpoint_actions_stay_in_view_while_the_draft_scrolls(
    screen: Studio, runs: dict[str, Any]
) -> None:
    lengthen_the_draft(screen.page)
    page = screen.goto(f"/?thread={runs['paused']['threadId']}")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    expect(panel.locator(".draft-body p").last).to_contain_text("30. ")
    approve = panel.locator("[data-action=approve]")
    viewport = (page.viewport_size or DESKTOP)["height"]
    top = box(panel)["y"] + page.evaluate("() => window.scrollY")
    height = box(panel)["height"]
    assert height > viewport, "the draft under review is longer than the screen"
    # the panel's top just under the top bar (where a new pause is scrolled to): its end is far below the
    # fold, yet the decision is on screen
    page.evaluate("y => window.scrollTo(0, y)", top - 72)
    assert box(panel)["y"] + height > viewport
    for action in ("approve", "reject", "modify"):
        in_view(page, panel.locator(f"[data-action={action}]"))
    shot(screen, "checkpoint")
    # and wherever the reader is in the draft
    for fraction in (0.25, 0.5, 0.75):
        page.evaluate("y => window.scrollTo(0, y)", max(0, top + height * fraction - viewport / 2))
        in_view(page, approve)
    shot(screen, "checkpoint-scrolled")
    # at the end of the panel the bar is back in its place, under the draft's tags
    page.evaluate("y => window.scrollTo(0, y)", top + height - viewport / 2)
    tags, bar = box(panel.locator(".cp-preview .chips")), box(panel.locator(".cp-actions"))
    assert bar["y"] >= tags["y"] + tags["height"], "the bar never covers the end of the draft"
    # the editor (title, a long body, tags) keeps its save button reachable too
    panel.locator("[data-action=modify]").click()
    page.evaluate("y => window.scrollTo(0, y)", top - 72)
    in_view(page, panel.locator("[data-action=submit-modify]"))
    shot(screen, "checkpoint-edit")


def test_the_title_editor_counts_to_twenty_and_warns_past_it(screen: Studio, runs: dict[str, Any]) -> None:
    page = screen.goto(f"/?thread={runs['paused']['threadId']}")
    panel = page.locator(".checkpoint[data-kind=content]")
    expect(panel).to_be_visible(timeout=60_000)
    original = runs["paused"]["title"]
    panel.locator("[data-action=modify]").click()
    title = panel.locator("input[name=title]")
    counter = panel.locator(".title-counter")
    expect(counter).to_contain_text(f"{char_count(original)} / 20")

    long_title = "周末带上帐篷和咖啡去城市边上的草地露营真的太舒服了"  # 25 characters
    assert len(long_title) == 25
    title.fill(long_title)
    expect(counter).to_have_class(re.compile(r"\bover\b"))
    expect(counter).to_contain_text("25 / 20")
    assert char_count(long_title) == 25
    expect(counter).to_contain_text("超出 5 个字")
    expect(title).to_have_attribute("data-over", "true")
    assert counter.evaluate("el => getComputedStyle(el).color") != page.locator(".field-hint").last.evaluate(
        "el => getComputedStyle(el).color"
    ), "the warning stands out from a plain hint"
    # the phone preview follows the editor and shows the title as the platform cuts it
    preview = page.locator("#preview-card")
    expect(preview.locator(".pp-title")).to_have_text(long_title[:20] + "…")
    expect(preview.locator(".pp-note")).to_contain_text("平台只显示前 20 个字")
    shot(screen, "title-over")

    # an emoji counts as one character, as the platform (and the checks) count it
    title.fill("露营🏕️好去处")
    expect(counter).to_have_text(f"{char_count('露营🏕️好去处')} / 20")  # 6, as the checks count it
    title.fill("周末露营" * 5)
    expect(counter).to_have_text("20 / 20")
    expect(counter).not_to_have_class(re.compile(r"\bover\b"))
    expect(preview.locator(".pp-title")).to_have_text("周末露营" * 5)
    expect(preview.locator(".pp-note")).to_be_hidden()
    panel.get_by_role("button", name="取消").click()
    expect(preview.locator(".pp-title")).to_have_text(original)


def test_reset_clears_every_filter_from_the_address(screen: Studio, runs: dict[str, Any]) -> None:
    page = screen.goto(f"/creatives?q={MARK}&status=completed&tag=露营&minScore=0.1&sort=title")
    expect(page.locator("#f-q")).to_have_value(MARK)
    expect(page.locator("#f-status")).to_have_value("completed")
    page.get_by_role("button", name="重置").click()
    expect(page).to_have_url(f"{screen.server.url}/creatives")
    for field in ("#f-q", "#f-status", "#f-tag", "#f-min"):
        expect(page.locator(field)).to_have_value("")
    page.reload()
    expect(page).to_have_url(f"{screen.server.url}/creatives")
    expect(page.locator("#f-q")).to_have_value("")
    with screen.api() as client:
        total = client.get("/api/creatives").json()["total"]
    expect(page.locator("#list-summary")).to_have_text(f"共 {total} 篇")

    # a filter typed into the form, then reset: the same
    page.fill("#f-q", MARK)
    page.locator("#f-q").press("Enter")
    expect(page).to_have_url(re.compile(r"\?q="))
    expect(page.locator("#list-summary")).to_have_text("共 2 篇")
    page.get_by_role("button", name="重置").click()
    expect(page).to_have_url(f"{screen.server.url}/creatives")
    expect(page.locator("#list-summary")).to_have_text(f"共 {total} 篇")
    page.reload()
    expect(page.locator("#f-q")).to_have_value("")
    expect(page.locator("#list-summary")).to_have_text(f"共 {total} 篇")


def test_the_score_chart_is_a_histogram_per_dimension(screen: Studio, runs: dict[str, Any]) -> None:
    with screen.api() as client:
        stats = client.get("/api/creatives/stats").json()
    counts: dict[str, list[int]] = stats["scoreDistribution"]["counts"]
    page = screen.goto("/creatives")
    charts = page.locator("#chart-scores figure.histogram")
    expect(charts).to_have_count(len(counts))
    card = box(page.locator("#chart-scores"))
    per_count: list[float] = []  # bar height per creative: one scale for every dimension
    for i in range(charts.count()):
        chart = charts.nth(i)
        key = chart.get_attribute("data-dim")
        assert key in counts
        # 综合, 信息密度, …: never a raw key
        expect(chart.locator("figcaption strong")).not_to_have_text(re.compile("[A-Za-z]"))
        bars = chart.locator("rect.hist-bar")
        expect(bars).to_have_count(len(counts[key]))
        shown = [int(bars.nth(b).get_attribute("data-count") or -1) for b in range(bars.count())]
        assert shown == counts[key], key
        for b, n in enumerate(shown):
            height = box(bars.nth(b))["height"] if n else 0.0
            if n:
                per_count.append(height / n)
        # the count is written over every non-empty bar
        expect(chart.locator("text.hist-count")).to_have_text([str(n) for n in shown if n])
        b = box(chart)
        assert b["x"] >= card["x"] - 1 and b["x"] + b["width"] <= card["x"] + card["width"] + 1
    assert per_count and min(per_count) > 0
    assert max(per_count) == pytest.approx(min(per_count), rel=0.03), "bar heights follow the counts"
    expect(page.locator("#chart-scores")).to_contain_text("横轴：分数")
    assert no_horizontal_overflow(page)
    page.locator("#chart-scores").scroll_into_view_if_needed()
    shot(screen, "histograms")


def test_the_detail_title_is_focused_without_a_ring(screen: Studio, runs: dict[str, Any]) -> None:
    page = screen.goto(f"/creatives/{runs['done']['id']}")
    heading = page.locator("#detail-view h1")
    expect(heading).to_have_text(runs["done"]["title"])
    expect(heading).to_be_focused()
    ring = heading.evaluate("el => { const s = getComputedStyle(el); return [s.boxShadow, s.outlineStyle]; }")
    assert ring == ["none", "none"], ring
    assert heading.get_attribute("contenteditable") is None
    # the same for the checkpoint heading the studio focuses when a run pauses
    screen.goto(f"/?thread={runs['paused']['threadId']}")
    cp_heading = page.locator(".checkpoint .card-head h2")
    expect(cp_heading).to_be_focused(timeout=60_000)
    assert cp_heading.evaluate("el => getComputedStyle(el).boxShadow") == "none"


def check_preview(page: Page, preview: Locator, creative: dict[str, Any], images: int) -> None:
    """The phone preview holds the post as stored: cover first, title, body, tags as #话题."""
    expect(preview).to_be_visible()
    expect(preview.locator(".card-head h2")).to_have_text("手机预览")
    # a phone's screen, 375 CSS px wide at any window width (so the text wraps where a phone wraps it):
    # at full size on a wide screen, scaled down whole (not reflowed) where the column is narrower
    phone = box(preview.locator(".phone"))
    viewport = page.viewport_size or DESKTOP
    assert phone["x"] >= 0 and phone["x"] + phone["width"] <= viewport["width"]
    screen_width = preview.locator(".phone-screen").evaluate("el => parseFloat(getComputedStyle(el).width)")
    assert screen_width == pytest.approx(375, abs=3)
    if viewport["width"] == DESKTOP["width"]:
        assert phone["width"] == pytest.approx(391, abs=1)  # 375 + the frame
    else:
        assert 0.8 * 391 <= phone["width"] < 391
    expect(preview.locator(".pp-title")).to_have_text(creative["title"])
    first_paragraph = creative["body"].strip().split("\n\n")[0].strip()
    expect(preview.locator(".pp-body p").first).to_have_text(first_paragraph)
    expect(preview.locator(".pp-tag")).to_have_text([f"#{t}" for t in creative["tags"]])
    slides = preview.locator(".pp-media img")
    expect(slides).to_have_count(images)
    if images:
        cover = next(a for a in creative["assets"] if a["role"] != "reference" and a["status"] == "complete")
        expect(slides.first).to_have_attribute("src", cover["url"])
        expect(preview.locator(".pp-index")).to_have_text(f"1/{images}")
        slides.first.scroll_into_view_if_needed()
        page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=slides.first.element_handle())
        ratio = box(slides.first)["height"] / box(slides.first)["width"]
        assert ratio == pytest.approx(4 / 3, rel=0.02)  # a 3:4 note image, full width
    else:
        expect(preview.locator(".pp-cover-placeholder")).to_contain_text(creative["title"])
    text = preview.inner_text()
    assert not re.search(r"\b(?:cover|detail|title|body|tags?|undefined|null)\b", text), text


def test_the_phone_preview_in_the_studio_and_on_the_detail_page(screen: Studio, runs: dict[str, Any]) -> None:
    done = runs["done"]
    images = len([a for a in done["assets"] if a["role"] != "reference" and a["status"] == "complete"])
    assert images == 2
    page = screen.goto(f"/?thread={done['threadId']}")
    expect(page.locator(".run-status .status-pill")).to_have_text("已完成", timeout=60_000)
    preview = page.locator("#preview-card")
    check_preview(page, preview, done, images)
    draft, brief = box(page.locator("#draft-card")), box(page.locator("#brief-card"))
    p = box(preview)
    if (page.viewport_size or DESKTOP)["width"] == DESKTOP["width"]:
        assert p["x"] >= draft["x"] + draft["width"], "beside the draft on a wide screen"
    else:
        assert draft["y"] < p["y"] < brief["y"], "after the post, before the brief on a phone"
    assert no_horizontal_overflow(page)
    preview.scroll_into_view_if_needed()
    shot(screen, "preview-studio")

    # a paused run: the draft under review, with a text cover until images exist
    screen.goto(f"/?thread={runs['paused']['threadId']}")
    expect(page.locator(".checkpoint[data-kind=content]")).to_be_visible(timeout=60_000)
    check_preview(page, page.locator("#preview-card"), runs["paused"], 0)

    # the detail page: right after the post on a phone, in the side column on a wide screen
    screen.goto(f"/creatives/{done['id']}")
    detail_preview = page.locator("#detail-preview")
    check_preview(page, detail_preview, done, images)
    post, request = box(page.locator("#detail-post")), box(page.locator("#detail-request"))
    p = box(detail_preview)
    if (page.viewport_size or DESKTOP)["width"] == DESKTOP["width"]:
        assert p["x"] >= post["x"] + post["width"] and p["y"] < request["y"]
    else:
        assert post["y"] < p["y"] < box(page.locator("#detail-images"))["y"]
    assert no_horizontal_overflow(page)
    detail_preview.scroll_into_view_if_needed()
    shot(screen, "preview-detail")
