"""The draft streams: `DraftStream` turns the gateway's partial objects into `content_delta` events
(coalesced, first characters at once, a re-ask resets), the writer node sends them before its final
`content_update`, the runner passes them on unstored and unnumbered, and the offline model spreads its
simulated latency over the chunks of a streamed answer."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from sqlalchemy import select

from agents.artifacts import Draft
from agents.context import StudioContext
from agents.events import EPHEMERAL_TYPES, EVENT_TYPES, ContentDelta, Event, parse_event
from agents.run import Resources, RunRequest, WorkflowRunner
from agents.writer import DraftStream, writer_agent
from app.resources import open_resources
from app.settings import Settings
from tests.agents.harness import run_node
from tests.agents.test_text_agents import prepared
from tests.fakes import register_provider
from tools.database import RunEvent
from tools.llm import LLMConfig, LLMGateway, litellm_module
from tools.offline import OfflineLLM, register_offline_provider
from tools.offline.provider import _make_handler

DRAFT = {"title": "周末城市露营清单", "body": "上班族的周末露营：\n\n1. 提前订营位\n2. 带一件外套",
         "tags": ["露营"]}


def apply(deltas: list[dict[str, Any]]) -> tuple[str, str]:
    """What a client following every delta shows, checking each delta fits where the text has got to."""
    title = body = ""
    for delta in deltas:
        if delta["reset"]:
            title, body = "", ""
        assert (delta["titleOffset"], delta["bodyOffset"]) == (len(title), len(body)), delta
        title += delta["titleDelta"]
        body += delta["bodyDelta"]
    return title, body


def growing(text: str, step: int) -> list[dict[str, Any]]:
    """The partial objects a gateway reports as `text` (a JSON object) arrives `step` characters at a time."""
    from tools.llm import partial_json

    seen: list[dict[str, Any]] = []
    for end in range(step, len(text) + step, step):
        value = partial_json(text[:end])
        if value and (not seen or value != seen[-1]):
            seen.append(value)
    return seen


def stream_of(sent: list[Event], **options: Any) -> DraftStream:
    return DraftStream("writer_agent", send=sent.append, **options)


# --- DraftStream -----------------------------------------------------------------------------------------
async def test_first_title_and_body_characters_go_out_at_once_the_rest_is_coalesced() -> None:
    sent: list[Event] = []
    stream = stream_of(sent, interval_s=60.0, max_chars=10_000)  # nothing is due by time or size
    partials = growing(json.dumps(DRAFT, ensure_ascii=False), 2)
    for partial in partials:
        stream.partial(partial)
    stream.close()

    deltas = [e.wire() for e in sent]
    assert all(isinstance(e, ContentDelta) for e in sent)
    # the first title characters (a reset: a new draft), then the first body characters — nothing else
    assert len(deltas) == 2 < len(partials)
    first, body = deltas
    assert first["reset"] and first["titleDelta"] and DRAFT["title"].startswith(first["titleDelta"])
    assert first["bodyDelta"] == "" and not body["reset"]
    assert body["bodyDelta"] and DRAFT["body"].startswith(body["bodyDelta"])
    assert first["titleDelta"] + body["titleDelta"] == DRAFT["title"]  # the title so far goes with it
    assert stream.timer is None  # closed: whatever waits is left to the final content_update


async def test_a_burst_of_tiny_chunks_becomes_a_few_deltas_that_add_up_to_the_text() -> None:
    sent: list[Event] = []
    stream = stream_of(sent, interval_s=60.0, max_chars=12)
    draft = {**DRAFT, "body": "露营" * 60}
    for partial in growing(json.dumps(draft, ensure_ascii=False), 1):
        stream.partial(partial)
    stream.flush()

    deltas = [e.wire() for e in sent]
    assert 5 < len(deltas) < 20  # ~120 body characters in pieces of at least 12, not one per character
    small = [d for d in deltas if len(d["titleDelta"]) + len(d["bodyDelta"]) < 12]
    # the new (still empty) draft, the first title and body characters, and the last flush
    assert len(small) <= 4
    assert apply(deltas) == (draft["title"], draft["body"])


async def test_what_waits_is_sent_when_the_model_pauses() -> None:
    sent: list[Event] = []
    stream = stream_of(sent, interval_s=0.03, max_chars=10_000)
    stream.partial({"title": "周末"})
    stream.partial({"title": "周末露营"})  # within the interval: waits
    assert len(sent) == 1
    await asyncio.sleep(0.1)  # the model says nothing more for a while: the timer sends what waits
    assert [e.wire()["titleDelta"] for e in sent] == ["周末", "露营"]
    stream.close()


async def test_inside_a_graph_node_the_timer_sends_to_the_run_s_stream() -> None:
    """The pause timer fires outside the node's own code, yet its delta reaches the node's stream."""

    async def node(state: Any, runtime: Any) -> dict[str, Any]:
        stream = DraftStream("writer_agent", interval_s=0.02)
        stream.partial({"title": "周末"})
        stream.partial({"title": "周末露营"})  # waits for the timer
        await asyncio.sleep(0.1)
        stream.close()
        return {}

    node.__name__ = "writer_agent"
    run = await run_node(node, {}, None)  # type: ignore[arg-type]
    assert [(d["reset"], d["titleDelta"]) for d in run.deltas] == [(True, "周末"), (False, "露营")]


async def test_a_model_that_starts_over_resets_the_text() -> None:
    sent: list[Event] = []
    stream = stream_of(sent, interval_s=0.0)
    for partial in growing(json.dumps({"title": "第一版", "body": "太短了"}, ensure_ascii=False), 3):
        stream.partial(partial)
    for partial in growing(json.dumps(DRAFT, ensure_ascii=False), 3):  # a re-ask streams from the start
        stream.partial(partial)
    stream.flush()

    deltas = [e.wire() for e in sent]
    resets = [d for d in deltas if d["reset"]]
    assert [d["attempt"] for d in resets] == [1, 2]
    second = resets[1]
    assert (second["titleOffset"], second["bodyOffset"]) == (0, 0)
    assert second["titleDelta"] and DRAFT["title"].startswith(second["titleDelta"])
    assert apply(deltas) == (DRAFT["title"], DRAFT["body"])
    assert {d["attempt"] for d in deltas[deltas.index(second):]} == {2}


# --- through the gateway ---------------------------------------------------------------------------------
class Reasked:
    """A streaming provider whose first writer answer breaks the schema (too short a body), so the gateway
    re-asks, and whose second answer is `DRAFT`."""

    def __init__(self) -> None:
        short = {"title": "第一版标题", "body": "太短", "tags": ["露营"]}
        self.answers = [json.dumps(short, ensure_ascii=False), json.dumps(DRAFT, ensure_ascii=False)]
        self.calls = 0

    def install(self) -> Reasked:
        owner = self

        class Handler(litellm_module().CustomLLM):  # type: ignore[misc,name-defined]
            async def astreaming(self, *args: Any, **kwargs: Any) -> Any:
                content = owner.answers[min(owner.calls, 1)]
                owner.calls += 1
                for start in range(0, len(content), 4):
                    yield {"text": content[start : start + 4], "is_finished": False, "finish_reason": "",
                           "usage": None, "index": 0, "tool_use": None}
                yield {"text": "", "is_finished": True, "finish_reason": "stop", "usage": None, "index": 0,
                       "tool_use": None}

        register_provider("reasked", Handler())
        return self


async def test_a_reask_through_the_gateway_restarts_the_streamed_draft() -> None:
    provider = Reasked().install()
    gateway = LLMGateway(LLMConfig(model="reasked/offline", max_reasks=1))
    sent: list[Event] = []
    stream = stream_of(sent, interval_s=0.0)
    messages = [{"role": "user", "content": "写一篇周末城市露营的笔记"}]
    draft = await gateway.stream_structured("writer", messages, Draft, on_partial=stream.partial)
    stream.close()

    assert provider.calls == 2 and draft.title == DRAFT["title"]
    deltas = [e.wire() for e in sent]
    assert apply([d for d in deltas if d["attempt"] == 1])[0] == "第一版标题"
    restart = next(d for d in deltas if d["attempt"] == 2)
    assert restart["reset"] and restart["titleOffset"] == 0 and restart["bodyOffset"] == 0
    assert apply(deltas) == (DRAFT["title"], DRAFT["body"])


# --- the writer node -------------------------------------------------------------------------------------
@pytest.fixture
def paced() -> Any:
    """The offline model streaming at a pace (first token after 20 ms, then 4000 characters a second)."""
    register_offline_provider(first_token_ms=20, chars_per_s=4000)
    yield
    register_offline_provider(first_token_ms=None, chars_per_s=None)


async def test_the_writer_streams_its_draft_before_the_final_content_update(
    ctx: StudioContext, paced: None
) -> None:
    state = await prepared(ctx)
    run = await run_node(writer_agent, state, ctx)
    events = run.sent

    draft = Draft.model_validate(run.update["generatedContent"])
    deltas = [e for e in events if e["type"] == "content_delta"]
    update = next(i for i, e in enumerate(events) if e["type"] == "content_update")
    assert len(deltas) >= 3 and all(events.index(d) < update for d in deltas)
    for delta in deltas:
        parse_event(delta)
        assert "seq" not in delta and delta["agent"] == "writer_agent"
    assert deltas[0]["reset"] and deltas[0]["attempt"] == 1
    title, body = apply(deltas)  # what waited at the end is not sent: the content_update has it all
    assert body and draft.title.startswith(title.strip()) and draft.body.startswith(body.strip())
    assert run.deltas == deltas and "content_delta" not in [e["type"] for e in run.events]


# --- the runner: unstored, unnumbered, only for who asks ---------------------------------------------------
async def test_the_runner_passes_deltas_on_only_when_asked_and_never_stores_them(
    seeded_settings: Settings, paced: None
) -> None:
    from app import migrate

    settings = seeded_settings.model_copy(update={"hitl_default": False})
    await migrate.upgrade_async(settings.db_url)
    async with open_resources(settings) as resources:
        runner = WorkflowRunner(resources)
        live = [e async for e in runner.stream(await runner.prepare_start(request()), ephemeral=True)]
        plain = [e async for e in runner.stream(await runner.prepare_start(request()))]
        stored = await stored_types(resources, live[0]["threadId"])

    deltas = [e for e in live if e["type"] in EPHEMERAL_TYPES]
    numbered = [e for e in live if e["type"] not in EPHEMERAL_TYPES]
    assert deltas and all("seq" not in d and d["threadId"] == live[0]["threadId"] for d in deltas)
    assert [e["seq"] for e in numbered] == list(range(1, len(numbered) + 1))  # deltas take no seq
    assert stored == [e["type"] for e in numbered] and "content_delta" not in stored
    assert not any(e["type"] in EPHEMERAL_TYPES for e in plain)
    assert {e["type"] for e in plain} <= EVENT_TYPES and "content_delta" not in EVENT_TYPES


def request() -> RunRequest:
    return RunRequest.model_validate(
        {"message": "帮我写一篇周末城市露营的小红书笔记，面向上班族", "imageCount": 1, "enableHITL": False}
    )


async def stored_types(resources: Resources, thread_id: str) -> list[str]:
    await resources.writer.flush()
    async with resources.sessions() as session:
        rows = await session.scalars(
            select(RunEvent.type).where(RunEvent.thread_id == thread_id).order_by(RunEvent.seq)
        )
        return list(rows.all())


# --- the offline model's pace ------------------------------------------------------------------------------
def test_the_offline_schedule_spreads_the_latency_over_the_chunks() -> None:
    content = "好" * 300
    spread = list(OfflineLLM(latency_ms=1000).schedule(0.0, content))
    assert len(spread) == 100 + 1 and spread[-1][1] == ""  # 3 characters a chunk, then the end
    assert spread[-1][0] == pytest.approx(1.0)
    assert spread[0][0] == pytest.approx(0.2)  # first token: a fifth of the latency by default
    assert [due for due, _ in spread] == sorted(due for due, _ in spread)
    assert spread[-2][0] == pytest.approx(0.2 + 0.8 * 297 / 300)  # the last chunk just before the end

    paced = list(OfflineLLM(latency_ms=100, first_token_ms=50, chars_per_s=300).schedule(0.0, content))
    assert paced[0][0] == pytest.approx(0.05) and paced[-1][0] == pytest.approx(0.05 + 1.0)  # rate wins
    floor = list(OfflineLLM(latency_ms=5000, first_token_ms=50, chars_per_s=300).schedule(0.0, content))
    assert floor[-1][0] == pytest.approx(5.0)  # the latency stays the whole call's floor


async def test_a_streamed_offline_answer_arrives_after_the_first_token_not_after_the_whole_latency() -> None:
    latency_s, first_s = 0.6, 0.05
    register_provider("paced", _make_handler(OfflineLLM(latency_ms=latency_s * 1000, first_token_ms=50)))
    gateway = LLMGateway(LLMConfig(model="paced/offline"))
    messages = [{"role": "user", "content": "## 问题 (question)\n露营要带什么？"}]
    started = time.perf_counter()
    arrivals: list[float] = []
    pieces: list[str] = []
    async for piece in gateway.stream_text("answer", messages):
        arrivals.append(time.perf_counter() - started)
        pieces.append(piece)
    total = time.perf_counter() - started

    assert len(pieces) >= 10  # many chunks, not one
    assert arrivals[0] >= first_s and total >= latency_s
    # spread over the call, not a burst at its end: the first chunk came well before the last
    assert arrivals[-1] - arrivals[0] >= (latency_s - first_s) / 2
