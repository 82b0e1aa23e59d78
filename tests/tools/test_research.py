"""Research tools on a small fixture corpus in a real LanceDB store."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path

import pytest

from tools.errors import StudioError
from tools.knowledge import KnowledgeStore, Note
from tools.llm import LLMConfig, LLMGateway, UsageMeter
from tools.research import (
    TOOLS,
    WebSearchResult,
    _citations,
    analyze_top_tags,
    get_top_titles,
    get_trend_report,
    run_tool,
    search_notes,
    title_patterns,
    web_search,
)


def note(
    id: str,
    theme: str,
    day: date,
    title: str,
    tags: list[str],
    likes: int,
    collects: int,
    comments: int,
    desc: str = "",
) -> Note:
    return Note(
        id=id,
        title=title,
        desc=desc or title,
        tags=tags,
        likes=likes,
        collects=collects,
        comments=comments,
        author="作者",
        published_at=day,
        theme=theme,
    )


NOTES = [
    note("o1", "outdoor", date(2026, 5, 5), "露营帐篷怎么选？", ["露营", "帐篷"], 100, 50, 10),
    note("o2", "outdoor", date(2026, 5, 12), "春日野餐露营攻略", ["露营", "野餐"], 200, 100, 20),
    note("o3", "outdoor", date(2026, 5, 20), "第一次登山要带什么", ["登山"], 150, 50, 10),
    note(
        "o4", "outdoor", date(2026, 6, 3), "新手徒步露营装备清单｜10件必备🏕️", ["徒步", "露营"], 300, 200, 30
    ),
    note(
        "o5",
        "outdoor",
        date(2026, 6, 10),
        "3个轻量化徒步技巧，背包减重一半！",
        ["徒步", "轻量化"],
        500,
        300,
        50,
    ),
    note("o6", "outdoor", date(2026, 6, 17), "徒步登山到底穿什么？【避坑】", ["徒步", "登山"], 800, 400, 80),
    note(
        "o7",
        "outdoor",
        date(2026, 6, 24),
        "我的露营装备清单｜人均500搞定",
        ["露营", "露营装备"],
        1000,
        600,
        100,
    ),
    note("f1", "food", date(2026, 6, 5), "减脂早餐一周不重样", ["减脂早餐", "早餐"], 400, 300, 40),
    note("f2", "food", date(2026, 6, 30), "番茄炒蛋家常做法", ["家常菜"], 50, 10, 5),
]
ENGAGEMENT = {n.id: n.engagement for n in NOTES}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("research")

    async def build() -> None:
        async with KnowledgeStore(path) as store:
            await store.upsert_notes(NOTES)

    asyncio.run(build())
    yield path


@pytest.fixture
async def store(store_dir: Path) -> AsyncIterator[KnowledgeStore]:
    async with KnowledgeStore(store_dir) as opened:
        yield opened


def assert_json(result: object) -> None:
    dumped = result.model_dump()  # type: ignore[attr-defined]
    assert json.loads(json.dumps(dumped, ensure_ascii=False)) == dumped


async def test_search_notes(store: KnowledgeStore) -> None:
    result = await search_notes(store, "露营装备", limit=3)
    assert [hit.note.id for hit in result.hits][:2] == ["o7", "o4"]
    assert all(hit.note.theme == "outdoor" for hit in result.hits)
    assert result.hits[0].keyword_match and result.hits[0].note.published_at == "2026-06-24"
    assert result.hits[0].note.engagement == ENGAGEMENT["o7"]
    food = await search_notes(store, "减脂早餐", limit=1, theme="food")
    assert food.hits[0].note.id == "f1"
    assert_json(result)


async def test_analyze_top_tags_for_a_theme(store: KnowledgeStore) -> None:
    report = await analyze_top_tags(store, theme="outdoor", days=30)
    # the window ends at the newest note in the whole store (f2, 2026-06-30), not today
    assert report.window is not None
    assert (report.window.start, report.window.end) == ("2026-06-01", "2026-06-30")
    assert report.notes_considered == 4  # o4..o7
    assert [t.tag for t in report.tags] == ["徒步", "露营", "露营装备", "登山", "轻量化"]
    top = report.tags[0]
    assert (top.count, top.share, top.total_engagement) == (
        3,
        0.75,
        sum(ENGAGEMENT[i] for i in ("o4", "o5", "o6")),
    )
    assert report.most_frequent[:2] == ["徒步", "露营"]
    wider = await analyze_top_tags(store, theme="outdoor", days=60)
    assert wider.notes_considered == 7 and wider.tags[0].tag == "露营" and wider.tags[0].count == 4
    assert_json(report)


async def test_analyze_top_tags_for_a_query(store: KnowledgeStore) -> None:
    report = await analyze_top_tags(store, query="露营", days=60)
    assert report.notes_considered >= 3
    assert report.tags[0].tag == "露营"
    assert "家常菜" not in {t.tag for t in report.tags} and "减脂早餐" not in {t.tag for t in report.tags}
    empty = await analyze_top_tags(store, theme="outdoor", days=5)  # 06-26..06-30: no outdoor notes
    assert empty.notes_considered == 0 and empty.tags == [] and empty.message


def test_title_patterns() -> None:
    assert title_patterns("我的露营装备清单｜人均500搞定") == [
        "number",
        "list",
        "separator",
        "price",
        "personal",
    ]
    assert title_patterns("新手徒步露营装备清单｜10件必备🏕️") == [
        "number",
        "list",
        "emoji",
        "separator",
        "audience",
        "superlative",
    ]
    assert title_patterns("徒步登山到底穿什么？【避坑】") == ["question", "brackets", "pitfall"]
    assert title_patterns("3个轻量化徒步技巧，背包减重一半！") == ["number", "list", "exclamation"]
    assert title_patterns("番茄炒蛋家常做法") == []


async def test_get_top_titles(store: KnowledgeStore) -> None:
    report = await get_top_titles(store, "露营装备", limit=3, sort_by="likes")
    ids = [t.note_id for t in report.titles]
    assert ids[0] == "o7" and "o4" in ids
    assert [t.likes for t in report.titles] == sorted((t.likes for t in report.titles), reverse=True)
    assert not {"f1", "f2"} & set(ids)
    assert report.titles[0].patterns == ["number", "list", "separator", "price", "personal"]
    patterns = {p.pattern: p for p in report.patterns}
    assert patterns["separator"].count >= 2 and patterns["list"].count >= 2
    assert patterns["separator"].examples[0] == "我的露营装备清单｜人均500搞定"  # most engaging first
    assert report.avg_title_length and report.share_within_20_chars == 1.0
    recent = await get_top_titles(store, "徒步", limit=2, sort_by="recent")
    assert [t.published_at for t in recent.titles] == sorted(
        (t.published_at for t in recent.titles), reverse=True
    )
    by_comments = await get_top_titles(store, "徒步登山", sort_by="comments")
    assert [t.comments for t in by_comments.titles] == sorted(
        (t.comments for t in by_comments.titles), reverse=True
    )
    assert_json(report)


async def test_get_trend_report(store: KnowledgeStore) -> None:
    report = await get_trend_report(store, "outdoor", weeks=8)
    assert report.window is not None
    assert (report.window.start, report.window.end, report.window.days) == ("2026-05-06", "2026-06-30", 56)
    assert report.notes_considered == 6  # o1 (05-05) is outside
    assert sum(w.notes for w in report.weekly_volume) == 6
    assert report.weekly_volume[0].week_start == "2026-05-04"  # the Monday of the window's first week
    assert all(w.avg_engagement is None for w in report.weekly_volume if w.notes == 0)
    assert [(r.tag, r.recent, r.earlier) for r in report.rising_tags] == [("徒步", 3, 0), ("露营", 2, 1)]
    assert [n.id for n in report.top_notes] == ["o7", "o6", "o5", "o4", "o2"]
    assert report.engagement is not None and report.engagement.notes == 6
    in_window = [ENGAGEMENT[i] for i in ("o2", "o3", "o4", "o5", "o6", "o7")]
    assert report.engagement.avg_engagement == round(sum(in_window) / 6, 1)
    assert report.engagement_recent and report.engagement_earlier
    assert report.engagement_recent.avg_engagement > report.engagement_earlier.avg_engagement
    assert_json(report)


async def test_get_trend_report_unknown_theme(store: KnowledgeStore) -> None:
    report = await get_trend_report(store, "knitting")
    assert report.notes_considered == 0 and report.window is None
    assert report.message and "outdoor" in report.message and "food" in report.message


async def test_web_search_not_configured_is_a_result_not_an_error() -> None:
    result = await web_search("2026 露营趋势")
    assert result.status == "not_configured" and result.answer is None and result.message
    assert_json(result)


async def test_web_search_through_the_gateway() -> None:
    # the offline model stands in for a web-search model: a real call through litellm, no network
    meter = UsageMeter()
    searcher = LLMGateway(LLMConfig(model="studio/offline")).with_meter(meter)
    ok = await web_search("2026 露营趋势", searcher)
    assert ok.status == "ok" and ok.answer and ok.model == "studio/offline"
    [record] = meter.records
    assert record.task == "web_search" and record.ok and record.cost_usd == 0.0
    unknown = LLMGateway(LLMConfig(model="no-such-provider/model", max_retries=0))
    failed = await web_search("2026 露营趋势", unknown)
    assert failed.status == "error" and failed.message and "no-such-provider/model" in failed.message
    assert_json(ok)


def test_citations_from_annotations_and_citations_list() -> None:
    from tools.llm import litellm_module

    litellm = litellm_module()
    response = litellm.ModelResponse(
        choices=[
            {
                "message": {
                    "role": "assistant",
                    "content": "x",
                    "annotations": [
                        {"type": "url_citation", "url_citation": {"url": "https://a.example", "title": "A"}},
                    ],
                }
            }
        ],
    )
    response.citations = ["https://b.example", "https://a.example"]
    assert [(c.url, c.title) for c in _citations(response)] == [
        ("https://a.example", "A"),
        ("https://b.example", None),
    ]
    assert WebSearchResult(query="q", status="ok", model="m", citations=_citations(response)).model_dump()


async def test_run_tool_dispatches_and_returns_json(store: KnowledgeStore) -> None:
    calls = {
        "search_notes": {"query": "露营", "limit": 2},
        "analyze_top_tags": {"theme": "outdoor", "days": 30},
        "get_top_titles": {"query": "露营装备", "sort_by": "engagement"},
        "get_trend_report": {"theme": "outdoor"},
        "web_search": {"query": "露营"},
    }
    assert set(calls) == set(TOOLS)
    for name, arguments in calls.items():
        result = await run_tool(name, arguments, store=store)
        assert json.loads(json.dumps(result, ensure_ascii=False)) == result
    assert (await run_tool("web_search", {"query": "x"}, store=store))["status"] == "not_configured"
    with pytest.raises(StudioError):
        await run_tool("nope", {}, store=store)
    for args_model, _ in TOOLS.values():
        assert args_model.model_json_schema()["type"] == "object"
