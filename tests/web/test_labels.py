"""Every screen speaks Chinese: no raw enum value of the studio on a full run's screens, the web label
table agrees with the Python one, and debug numbers sit behind a collapsed "详情" toggle."""

from __future__ import annotations

import re
import typing
from typing import Any

from playwright.sync_api import Locator, Page, expect

from agents import artifacts, events
from tests.web.conftest import PHONE, Studio, no_horizontal_overflow
from tools.labels import FALLBACK, TABLES

REQUEST = "帮我写一篇周末带娃去郊野公园野餐的攻略，面向新手爸妈"


def _literals(annotation: object) -> set[str]:
    if typing.get_origin(annotation) is typing.Literal:
        return {str(v) for v in typing.get_args(annotation)}
    return {v for arg in typing.get_args(annotation) for v in _literals(arg)}


def raw_values() -> set[str]:
    """Every identifier the studio puts on the wire: the artifacts' Literal values (module aliases and
    fields), the label tables' keys (themes, blocks, tools, agents, statuses…) and the event types."""
    found: set[str] = set()
    for name in dir(artifacts):
        obj = getattr(artifacts, name)
        found |= _literals(obj)
        for field in getattr(obj, "model_fields", {}).values() if isinstance(obj, type) else ():
            found |= _literals(field.annotation)
    for model in vars(events).values():
        if isinstance(model, type) and "type" in getattr(model, "model_fields", {}):
            found |= _literals(model.model_fields["type"].annotation)
    for table in TABLES.values():
        found |= set(table)
    return found


RAW = raw_values()
ALTERNATIVES = "|".join(sorted(map(re.escape, RAW), key=len, reverse=True))
RAW_PATTERN = re.compile(rf"(?<![A-Za-z0-9_\-])({ALTERNATIVES})(?![A-Za-z0-9_\-])")


def raw_on_screen(where: Locator) -> list[str]:
    """Raw identifiers in what the user sees (`innerText` skips closed <details> and hidden nodes)."""
    return sorted(set(RAW_PATTERN.findall(where.inner_text())))


def assert_chinese(page: Page, label: str) -> None:
    found = raw_on_screen(page.locator("body"))
    assert not found, f"raw values on the {label} screen: {found}"


def test_raw_value_list_covers_the_studio() -> None:
    # the list the screens are checked against really holds the kinds of values the issue is about
    assert {"guide", "full_post", "balanced", "headline", "outdoor", "cover", "rule", "llm"} <= RAW
    assert {"style", "textImageAlignment", "searchNotes", "paused", "agent_start"} <= RAW


def test_a_full_run_shows_no_raw_values_on_any_screen(studio: Studio) -> None:
    studio.name = "labels"
    page = studio.goto("/")
    page.fill("#message", REQUEST)
    page.fill("#image-count", "2")
    page.select_option("#layout-pref", "dense")
    page.click("#start-btn")

    # the content checkpoint: draft, brief, evidence, timeline with intent and content type
    expect(page.locator(".checkpoint[data-kind=content]")).to_be_visible(timeout=60_000)
    expect(page.locator("#summary-chips")).to_contain_text("信息密集")
    timeline = page.locator("#timeline")
    expect(timeline).to_contain_text("识别意图：图文笔记")
    content_types = "|".join(TABLES["contentType"].values())
    expect(timeline.locator("[data-type=content_type_detected]")).to_contain_text(
        re.compile(f"内容类型：({content_types})")
    )
    expect(page.locator("#brief-card")).to_contain_text(re.compile(f"内容类型({content_types})"))
    expect(page.locator("#brief-card")).to_contain_text("题材亲子")
    expect(timeline.locator("details.tool summary").first).to_contain_text("检索笔记")
    # the intent's confidence is a debug number: collapsed until asked for
    intent = timeline.locator("[data-type=intent_detected]")
    toggle = intent.locator("details.tl-detail")
    expect(toggle).to_have_count(1)
    expect(toggle.locator(".tl-detail-body")).to_be_hidden()
    assert "置信度" not in intent.inner_text()  # innerText: what is rendered
    toggle.locator("summary").click()
    expect(toggle.locator(".tl-detail-body")).to_contain_text("置信度")
    expect(toggle.locator(".tl-detail-body")).to_be_visible()
    toggle.locator("summary").click()
    assert_chinese(page, "content checkpoint")
    studio.shot("1-content-checkpoint")
    page.locator(".checkpoint [data-action=approve]").click()

    # the plans checkpoint: roles in Chinese, the English style wording of the final prompt folded away
    panel = page.locator(".checkpoint[data-kind=image_plans]")
    expect(panel).to_be_visible(timeout=60_000)
    expect(panel.locator(".plan-head strong").first).to_contain_text("封面")
    expect(page.locator("#layout-card")).to_contain_text("版式偏好信息密集")
    expect(page.locator("#layout-card")).to_contain_text("文字块 大标题")
    assert_chinese(page, "plans checkpoint")
    panel.locator("[data-action=modify]").click()
    roles = panel.locator(".plan-edit select").first.locator("option")
    expect(roles).to_have_text(["封面", "内页", "总结页"])
    assert_chinese(page, "plans editor")
    studio.shot("2-plans-checkpoint")
    panel.locator("[data-action=submit-modify]").click()

    # the finished run: draft, images, scores, layout, the whole timeline
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    assert_chinese(page, "finished run")
    studio.shot("3-completed")

    # the creative's detail view and the library with its filters
    link = page.locator(".run-links a")
    href = link.get_attribute("href") or ""
    page.goto(studio.server.url + href)
    detail = page.locator("#detail-view")
    expect(detail.locator("#detail-post")).to_be_visible()
    expect(detail.locator("#detail-request")).to_contain_text("版式偏好信息密集")
    expect(detail.locator("#detail-request")).to_contain_text("内置离线模型")
    expect(detail.locator("#detail-usage")).to_contain_text("撰写文案")
    expect(detail.locator("#detail-images .image-caption").first).to_contain_text("封面")
    assert_chinese(page, "creative detail")
    studio.shot("4-detail")

    page.goto(studio.server.url + "/creatives?q=" + "郊野公园野餐")
    expect(page.locator("#creatives-body tr[data-id]").first).to_be_visible()
    page.select_option("#f-status", "completed")
    expect(page.locator("#creatives-body tr[data-id]").first).to_contain_text("已完成")
    assert_chinese(page, "library")
    options = page.locator("#f-status option").all_inner_texts()
    assert set(options) == {"全部", *TABLES["status"].values()}
    studio.shot("5-library")


def test_phone_screens_show_chinese_labels_without_overflow(phone: Studio) -> None:
    phone.name = "labels-phone"
    page = phone.goto("/")
    page.fill("#message", "做一张咖啡店新品海报，只要图片")
    page.fill("#image-count", "1")
    page.locator("label.switch").click()
    page.click("#start-btn")
    expect(page.locator(".status-pill").first).to_have_text("已完成", timeout=90_000)
    expect(page.locator("#timeline")).to_contain_text("识别意图：只要图片")
    # no post text to show or copy; scored on the image dimensions only
    expect(page.locator("#draft-card")).to_be_hidden()
    bars = page.locator("#scores-card .score-bars .bar-label")
    expect(bars).to_have_text(["图文一致", "风格统一", "可读性"])
    assert_chinese(page, "image-only run")
    assert no_horizontal_overflow(page)
    phone.shot("1-image-only")
    assert page.viewport_size == PHONE


def test_the_web_label_table_matches_the_python_one(studio: Studio) -> None:
    page = studio.goto("/")
    tables: dict[str, Any] = page.evaluate(
        """async () => {
          const m = await import('/static/js/labels.js');
          return {
            tables: m.TABLES, fallback: m.FALLBACK,
            unknown: m.label('contentType', 'made_up_type'), chinese: m.label('theme', '美食'),
            empty: m.label('intent', null), missingTable: m.label('nope', 'x'),
            blocks: m.labels('block', ['headline', 'subtitle', 'sparkles']),
            agents: m.agentLabel('research_evidence_agent+reference_intelligence_agent'),
          };
        }"""
    )
    assert tables["tables"] == TABLES
    assert tables["fallback"] == FALLBACK
    assert tables["unknown"] == FALLBACK["contentType"]
    assert tables["chinese"] == "美食" and tables["empty"] == "" and tables["missingTable"] == "其他"
    assert tables["blocks"] == "大标题 / 副标题 / 其他模块"
    assert tables["agents"] == "研究员 + 视觉分析师"


def test_a_messages_detail_sits_behind_a_collapsed_toggle(studio: Studio) -> None:
    """The timeline as the run view drives it, fed the events a run sends (with and without `detail`)."""
    page = studio.goto("/")
    agent = "image_planner_agent"
    sent: list[dict[str, Any]] = [
        {"type": "agent_start", "agent": agent, "content": "图片策划 开始工作..."},
        {"type": "message", "agent": agent, "content": "风格库没有足够接近的风格，按主题默认风格处理",
         "detail": "相似度 0.41，阈值 0.45"},
        {"type": "message", "agent": agent, "content": "已规划 3 张图"},
        {"type": "progress", "agent": agent, "content": "生成中", "detail": ""},
        {"type": "tool_call", "agent": agent, "tool": "futureTool", "toolCallId": "x1", "toolInput": {}},
        {"type": "content_type_detected", "contentType": "poem", "confidence": 0.5, "reasoning": ""},
        {"type": "error", "code": "LLM_TIMEOUT", "message": "模型响应超时", "agent": "writer_agent"},
    ]
    page.evaluate(
        """async (sent) => {
          const { Timeline } = await import('/static/js/timeline.js');
          const root = document.createElement('div');
          root.id = 'probe';
          document.querySelector('main').prepend(root);
          const timeline = new Timeline(root);
          sent.forEach((event, i) => timeline.add({ ...event, seq: i + 1, timestamp: Date.now() }));
        }""",
        sent,
    )
    probe = page.locator("#probe")
    expect(probe).to_contain_text("风格库没有足够接近的风格")
    toggles = probe.locator(".tl-msg + details.tl-detail")
    expect(toggles).to_have_count(1)  # only the message that has a detail gets a toggle
    toggle = toggles.first
    expect(toggle.locator("summary")).to_have_text("详情")
    expect(toggle).not_to_have_attribute("open", "")
    expect(toggle.locator(".tl-detail-body")).to_be_hidden()
    assert "相似度" not in probe.inner_text()
    toggle.locator("summary").click()
    expect(toggle.locator(".tl-detail-body")).to_be_visible()
    expect(toggle.locator(".tl-detail-body")).to_have_text("相似度 0.41，阈值 0.45")
    toggle.locator("summary").click()
    expect(toggle.locator(".tl-detail-body")).to_be_hidden()
    # unknown values (a tool or content type this UI does not know yet) render in neutral Chinese;
    # an error's code waits behind the toggle too
    expect(probe.locator("details.tool summary .tool-name")).to_have_text("工具调用")
    expect(probe.locator("[data-type=content_type_detected]")).to_contain_text("内容类型：其他类型")
    expect(probe.locator("[data-type=error]")).to_contain_text("创作专家出错")
    assert "LLM_TIMEOUT" not in probe.locator("[data-type=error]").inner_text()
    assert not raw_on_screen(probe)
    assert "futureTool" not in probe.inner_text() and "poem" not in probe.inner_text()
