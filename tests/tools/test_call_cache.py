"""The call cache (tools.call_cache): identical model calls and retrieval queries of one creative answered
again from it — bounded, keyed by the whole request, copies in and out, counted in usage — and a call the
user asked to be done again (`fresh`) never reading it. Through the real offline model and the real seeded
LanceDB store."""

from __future__ import annotations

from pathlib import Path

from agents.artifacts import Brief
from tools.call_cache import CallCache, CallCaches
from tools.knowledge import KnowledgeStore
from tools.llm import LLMConfig, LLMGateway, UsageMeter
from tools.prompting import PromptTemplate

PROMPT = PromptTemplate.from_text(
    "brief",
    "<!-- system -->\n你是创作简报助手，只返回 JSON。\n<!-- user -->\n## 用户需求 (request)\n$request\n",
)


def test_the_cache_is_bounded_keyed_by_the_whole_request_and_hands_out_copies() -> None:
    cache = CallCache(max_entries=2)
    one, two, three = (CallCache.key("task", {"request": n}) for n in ("一", "二", "三"))
    assert len({one, two, three}) == 3 and CallCache.key("task", {"request": "一"}) == one
    cache.put(one, {"tags": ["露营"]})
    found, value = cache.get(one)
    assert found and value == {"tags": ["露营"]}
    value["tags"].append("改了")  # a caller changing what it got changes nothing kept
    assert cache.get(one)[1] == {"tags": ["露营"]}
    cache.put(two, 2)
    assert cache.get(one)[0]
    cache.put(three, 3)  # past the bound: the least recently used (two; one was read since) goes
    assert cache.get(two) == (False, None) and cache.get(one)[0] and cache.get(three)[0]
    assert cache.hits == 5 and cache.misses == 1

    caches = CallCaches(max_scopes=2)
    first = caches.for_scope(1)
    assert caches.for_scope(1) is first
    caches.for_scope(2)
    caches.for_scope(3)
    assert caches.for_scope(1) is not first  # the oldest creative's cache was dropped


async def test_an_identical_model_call_is_answered_from_the_cache_unless_fresh() -> None:
    meter = UsageMeter()
    gateway = LLMGateway(LLMConfig()).with_meter(meter).with_cache(CallCache())
    ask = PROMPT.render(request="帮我写一篇周末城市露营的小红书笔记，面向上班族")
    first = await gateway.complete_structured("brief", ask, Brief)
    again = await gateway.complete_structured("brief", ask, Brief)
    assert again == first
    other = await gateway.complete_structured("brief", PROMPT.render(request="秋天去婺源看红叶的攻略"), Brief)
    assert other.topic != first.topic
    redo = await gateway.complete_structured("brief", ask, Brief, fresh=True)  # asked anew: the model answers
    assert redo == first  # (the offline model is deterministic: same prompt, same answer)
    assert [r.cached for r in meter.records] == [False, True, False, False]
    usage = meter.by_task()["brief"]
    assert usage["calls"] == 3 and usage["cacheHits"] == 1
    # streamed, a cached answer arrives whole
    partials: list[dict[str, object]] = []
    streamed = await gateway.stream_structured("brief", ask, Brief, on_partial=partials.append)
    assert streamed == first and partials[-1]["topic"] == first.topic
    # without a cache nothing is kept
    plain = LLMGateway(LLMConfig()).with_meter(UsageMeter())
    await plain.complete_structured("brief", ask, Brief)
    await plain.complete_structured("brief", ask, Brief)
    assert not any(r.cached for r in plain.meter.records)


async def test_an_identical_search_is_answered_from_the_cache(knowledge_dir: Path) -> None:
    store = await KnowledgeStore.open(knowledge_dir)
    try:
        hits: list[str] = []
        view = store.cached(CallCache(), hits.append)
        first = await view.search_notes("周末城市露营", limit=5)
        again = await view.search_notes("周末城市露营", limit=5)
        assert [h.note.id for h in again] == [h.note.id for h in first] and first
        await view.search_notes("周末城市露营", limit=3)  # another request
        styles = await view.search_styles("露营户外", limit=2)
        assert [s.style.name for s in await view.search_styles("露营户外", limit=2)] == [
            s.style.name for s in styles
        ]
        assert hits == ["search_notes", "search_styles"]
        await store.search_notes("周末城市露营", limit=5)  # the store itself caches nothing
        assert hits == ["search_notes", "search_styles"]
    finally:
        await store.close()
