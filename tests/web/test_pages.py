"""The pages and static files themselves: served with the right headers, nothing from the internet, every
page clean at desktop and phone widths, and the streaming SSE parser checked inside the browser."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.serving import LiveServer
from tests.web.conftest import PHONE, Studio, no_horizontal_overflow

PAGES = {"/": "创作需求", "/inbox": "审核收件箱", "/creatives": "作品库"}
SHOT_NAMES = {"/": "page-studio", "/inbox": "page-inbox", "/creatives": "page-creatives"}


def test_pages_and_static_files_are_served_with_sensible_headers(web_server: LiveServer) -> None:
    with web_server.client() as client:
        for path in [*PAGES, "/creatives/1"]:
            response = client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"] == "text/html; charset=utf-8"
            assert response.headers["cache-control"] == "no-cache"
            assert "default-src 'self'" in response.headers["content-security-policy"]
            assert '<html lang="zh-CN">' in response.text
        script = client.get("/static/js/sse.js")
        assert script.status_code == 200
        assert script.headers["content-type"].startswith("text/javascript")
        assert script.headers["cache-control"] == "no-cache"
        etag = script.headers["etag"]
        assert client.get("/static/js/sse.js", headers={"If-None-Match": etag}).status_code == 304
        assert client.get("/static/css/app.css").headers["content-type"].startswith("text/css")
        missing = client.get("/static/nope.js")
        assert missing.status_code == 404
        unknown = client.get("/no-such-page")
        assert unknown.status_code == 404
        assert unknown.json()["error"]["code"]
        # the API keeps winning over the pages
        assert client.get("/api/agent/inbox").headers["content-type"].startswith("application/json")


def test_no_page_loads_anything_from_outside_the_server(web_server: LiveServer) -> None:
    # every <script>, <link> and <img> in the HTML is same-origin (the browser tests enforce it at runtime)
    with web_server.client() as client:
        for path in PAGES:
            html = client.get(path).text
            assert "http://" not in html and "https://" not in html and "//cdn" not in html, path


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_renders_cleanly_on_desktop_and_phone(studio: Studio, path: str) -> None:
    studio.name = SHOT_NAMES[path]
    page = studio.goto(path)
    expect(page.locator("h1").first).to_have_text(PAGES[path])
    expect(page.locator("nav a[aria-current=page]")).to_have_count(1)
    page.wait_for_load_state("networkidle")
    assert no_horizontal_overflow(page)
    studio.shot("desktop")
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.reload()
    expect(page.locator("h1").first).to_have_text(PAGES[path])
    page.wait_for_load_state("networkidle")
    assert no_horizontal_overflow(page)
    studio.shot("phone")


def test_the_sse_parser_handles_frames_split_anywhere(studio: Studio) -> None:
    studio.goto("/")
    result = studio.page.evaluate(
        """async () => {
          const { SSEParser } = await import('/static/js/sse.js');
          const text = ': keep-alive\\r\\n\\r\\nid: 1\\r\\ndata: {"seq": 1, "t": "一"}\\r\\n\\r\\n' +
            'id: 2\\ndata: {"seq": 2,\\ndata:  "t": "二"}\\n\\n: keep-alive\\n\\n' +
            'id: 3\\rdata: {"seq": 3}\\r\\r' +
            'data: [DONE]\\n\\n' + 'id: 4\\ndata: {"seq": 4';
          const outcomes = new Set();
          for (let cut = 0; cut <= text.length; cut += 1) {
            for (let cut2 = cut; cut2 <= text.length; cut2 += 7) {
              const frames = [];
              let comments = 0;
              const parser = new SSEParser((f) => frames.push(f), () => { comments += 1; });
              parser.push(text.slice(0, cut));
              parser.push(text.slice(cut, cut2));
              parser.push(text.slice(cut2));
              parser.end();
              outcomes.add(JSON.stringify({ frames, comments }));
            }
          }
          return [...outcomes];
        }"""
    )
    assert len(result) == 1, result[:3]
    outcome = json.loads(result[0])
    assert outcome["comments"] == 2
    assert [(f["id"], f["data"]) for f in outcome["frames"]] == [
        ("1", '{"seq": 1, "t": "一"}'),
        ("2", '{"seq": 2,\n "t": "二"}'),
        ("3", '{"seq": 3}'),
        (None, "[DONE]"),
    ]


def test_dom_helpers_never_turn_data_into_markup(studio: Studio) -> None:
    studio.goto("/")
    result = studio.page.evaluate(
        """async () => {
          const { h, safeUrl } = await import('/static/js/dom.js');
          const node = h('div', { title: '"><img src=x onerror=alert(1)>' }, '<b>bold</b>', ['<i>x</i>']);
          let refused = false;
          try { h('div', { innerHTML: '<b>x</b>' }); } catch { refused = true; }
          let handler = false;
          try { h('div', { onclick: 'alert(1)' }); } catch { handler = true; }
          return { children: node.children.length, text: node.textContent, refused, handler,
            urls: ['javascript:alert(1)', '//evil.example/x.png', '/api/assets/1', 'data:text/html,<b>',
                   'data:image/png;base64,AAAA'].map(safeUrl) };
        }"""
    )
    assert result == {
        "children": 0,
        "text": "<b>bold</b><i>x</i>",
        "refused": True,
        "handler": True,
        "urls": [None, None, "/api/assets/1", None, "data:image/png;base64,AAAA"],
    }
