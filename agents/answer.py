"""The answer agent: replies directly to a question or a time query — no post, no images.

A question is grounded in the notes corpus (`searchNotes`, through `call_tool`) and the answer is
streamed (task `answer`), with `progress` events while it arrives and one final `message`. A time query
is answered locally, without any model (`agents.intent.answer_time_query`).

A direct answer always offers to turn the question into a post: `suggested_post_request` is a request
for a post on the same topic, sent as `suggestedRequest` on the run's `workflow_complete` (a protocol
extension, docs/protocol.md) so the studio can show a one-click "写成笔记".
"""

from __future__ import annotations

import re
from typing import Any

from agents.context import StudioContext
from agents.events import Message, Progress, emit
from agents.grounding import Scope
from agents.intent import answer_time_query, category_of
from agents.node import agent, prompt
from agents.research_evidence import NOTE_CHARS, compact_notes, run_research_tool
from agents.state import StudioState
from tools.bilingual import localize
from tools.errors import StudioError

NAME = "answer_agent"
NOTES_LIMIT = 5
PROGRESS_EVERY = 40  # characters between two progress events
EMPTY_ANSWER = "抱歉，这次没能生成回答，可以换个说法再问一次。"
_ASKING = re.compile(r"^(?:请问|求问|求助|想问一下|想问|问一下)[，,\s]*")
_THINGS_ASKED = re.compile(
    r"(?:需要|要|该|应该|得)?(?P<verb>准备|带|买)(?:点|些)?(?:什么|哪些|啥)(?:东西)?(?:呢|呀|啊)?$"
)
_THINGS_LIST = {"准备": "准备清单", "带": "必带清单", "买": "购物清单"}
_HEED_ASKED = re.compile(
    r"[，,\s]*(?:有)?(?:需要|要|该|应该|得)?注意(?:点|些)?(?:什么|哪些|啥)(?:事项|问题)?(?:呢|呀|啊)?$"
    r"|[，,\s]*有(?:什么|哪些|啥)(?:需要|要)?注意的(?:地方|事项)?(?:吗|呢)?$"
)
_QUESTION_TAIL = re.compile(
    r"(?:该|应该|要)?(?:怎么办|怎么处理|怎么回答|怎么做|怎么样|如何是好|是什么|是啥|有哪些|有什么|好不好|行不行|"
    r"可以吗|正常吗|合适吗|对吗|吗|呢|(?<![什怎这那多])么|嘛|呀|啊)+$"
)


def suggested_post_request(question: str) -> str | None:
    """A request for a post on the question's topic ("上班族颈椎痛怎么办？" → "写一篇上班族颈椎痛的笔记");
    None when nothing is left to write about. A question word stays whole ("…还能吃什么" is kept, never cut
    to "…吃什")."""
    core = localize(question).strip().strip("？?！!。.～~ ")
    core = _ASKING.sub("", core)
    # what to get is asked for as its list (第一次养狗需要准备什么 → 写一篇第一次养狗的准备清单)
    if (things := _THINGS_ASKED.search(core)) and len(subject := core[: things.start()].strip("，, ")) >= 2:
        return f"写一篇{subject}的{_THINGS_LIST[things.group('verb')]}"
    if (heed := _HEED_ASKED.search(core)) and len(subject := core[: heed.start()].strip("，, ")) >= 2:
        return f"写一篇{subject}的注意事项"
    core = _QUESTION_TAIL.sub("", core).strip("，,？? ")
    return f"写一篇{core}的笔记" if len(core) >= 2 else None


async def _notes_for(question: str, ctx: StudioContext) -> list[dict[str, Any]] | str | None:
    """The notes closest to the question; None when the search fails (the answer goes on without them)."""
    try:
        # (as much of each note as a post's research reads: its advice is past its opening story)
        arguments = {"query": question, "limit": NOTES_LIMIT, "excerptChars": NOTE_CHARS}
        found = await run_research_tool(ctx, NAME, "searchNotes", arguments)
    except StudioError:
        return None
    # the same grounding as a post's evidence: no other city's facts, no advice outside the question
    theme = category_of(localize(question))  # a note of another theme needs more than a word in common
    scope = Scope.of(question, {"theme": theme}).with_companions(h["note"] for h in found.get("hits", []))
    return compact_notes(found, NOTES_LIMIT, scope=scope)


async def _stream_answer(question: str, ctx: StudioContext) -> str:
    messages = prompt("answer").render(question=question, notes=await _notes_for(question, ctx))
    parts: list[str] = []
    length = reported = 0
    async for delta in ctx.llm.stream_text("answer", messages):
        parts.append(delta)
        length += len(delta)
        if length - reported >= PROGRESS_EVERY:
            reported = length
            emit(Progress(agent=NAME, content=f"正在回答…（已生成 {length} 字）"))
    return "".join(parts).strip()


@agent(NAME)
async def answer_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Answer a question from the notes corpus, or a time query from the clock."""
    intent = (state.get("intent") or {}).get("intent")
    question = state.get("request", "").strip()
    if intent == "time_query":
        text = answer_time_query(request=question)
    else:
        text = await _stream_answer(question, ctx) or EMPTY_ANSWER
    emit(Message(agent=NAME, content=text))
    return {"answer": text}
