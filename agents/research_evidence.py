"""The research agent: grounds the post in the notes corpus (and the web, when configured).

From the brief it builds one query (topic + keywords) and runs the research tools concurrently, each
through `call_tool` so the studio sees `tool_call` / `tool_result`:

    searchNotes      the notes closest to the query (required: without it there is no evidence)
    analyzeTopTags   engagement-weighted tags of the brief's corpus theme, else of the query's notes
    getTopTitles     the best-performing titles (by engagement) and the title patterns they use
    getTrendReport   weekly volume and rising tags of the theme (only when the brief has one)
    webSearch        only when the intent needs fresh facts and a web-search model is configured

A failing optional tool is reported and skipped. The model (task `evidence`) distils the compacted tool
outputs into an `EvidenceSummaryOutput`, which is combined with the raw references into an `EvidencePack`.
When a failed review sent the run back here, the review's reasons go into the prompt and the search is wider.

Evidence stays on the request's topic (`agents.grounding.Scope`): notes about another place or another
topic never reach the model as facts, sentences naming another place or giving advice outside the topic
are cut out of the notes it sees, and the facts and tags it returns are filtered again. When the corpus has
nothing on a place the request names, the pack says so (`gaps`), and the writer writes from the brief.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic.alias_generators import to_snake

from agents.artifacts import Brief, EvidencePack, EvidenceSummaryOutput, NoteRef
from agents.context import StudioContext
from agents.events import Progress, emit
from agents.grounding import Scope
from agents.node import agent, call_tool, prompt
from agents.review import review_feedback_text
from agents.state import StudioState
from tools.entities import READER_CONDITION
from tools.errors import StudioError
from tools.knowledge import KnowledgeStore
from tools.labels import label
from tools.research import run_tool

NAME = "research_evidence_agent"
NOTES_LIMIT = 8
WIDER_NOTES_LIMIT = 12  # when a review sent the run back for more evidence
PROMPT_NOTES = 6  # notes shown to the model
_QUOTED = re.compile(r"「([^」]{2,60})」")
NOTE_CHARS = 400  # of each note's body: the facts are in the text, past a listing's short excerpt
TAG_WINDOW_DAYS = 90
TREND_WEEKS = 12
TITLES_LIMIT = 8
MAX_TAG_CHARS = 24


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call: its JSON output, or the error that stopped it."""

    tool: str
    output: dict[str, Any] | None = None
    error: StudioError | None = None

    def section(self, compact: Any) -> Any:
        """The prompt value: the compacted output, or a note that the data is missing."""
        if self.error is not None:
            return f"（工具 {self.tool} 调用失败：{self.error.message}；这部分数据缺失）"
        return compact(self.output or {})


def research_query(brief: Brief) -> str:
    """Topic plus the keywords it does not already contain (at most four terms), not those only saying who
    the post is for (租房 of 租房的年轻人 would bring every renter's note before the living room's) — but
    a reader's skin or figure (油皮, 小个子), which is what the post is about too."""
    terms: list[str] = []
    for word in (brief.topic, *brief.keywords):
        word = word.strip().lstrip("#")
        reader = bool(terms) and word in (brief.audience or "") and not READER_CONDITION.search(word)
        if word and not any(word in kept for kept in terms) and not reader:
            terms.append(word)
    return " ".join(terms[:4])


async def run_research_tool(ctx: StudioContext, agent_name: str, tool: str, arguments: dict[str, Any]) -> Any:
    """Run a research tool by its wire name (camelCase) with `tool_call` / `tool_result` events."""
    arguments = {key: value for key, value in arguments.items() if value is not None}
    snake = {to_snake(key): value for key, value in arguments.items()}
    run = partial(
        run_tool, to_snake(tool), snake, store=ctx.knowledge, web_search_llm=ctx.llm.for_role("web_search")
    )
    return await call_tool(agent_name, tool, arguments, run)


async def _attempt(ctx: StudioContext, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
    try:
        return ToolOutcome(tool, output=await run_research_tool(ctx, NAME, tool, arguments))
    except StudioError as exc:
        return ToolOutcome(tool, error=exc)


async def _corpus_theme(theme: str, store: KnowledgeStore) -> str | None:
    """The brief's theme if the corpus has notes of it (a theme with no notes would filter everything out)."""
    if not theme:
        return None
    try:
        return theme if await store.count_notes(theme) else None
    except (StudioError, OSError, RuntimeError, ValueError):
        return theme  # let the tools themselves report the problem


# --- compaction: what the model sees of each tool's output -------------------------------------------
def compact_notes(
    search: dict[str, Any], limit: int = PROMPT_NOTES, scope: Scope | None = None
) -> list[dict[str, Any]] | str:
    """The top notes with what a writer needs: id, title, body excerpt, tags and counts. With a `scope`,
    only the notes on the request's topic, without their sentences about other places or stray advice."""
    notes = []
    for note in (hit["note"] for hit in search.get("hits", [])):
        if scope is not None and scope.note_fit(note) != "on_topic":
            continue
        excerpt = scope.clean(note["excerpt"], note) if scope else note["excerpt"]
        if not excerpt:
            continue
        notes.append({
            "id": note["id"],
            "title": note["title"],
            "desc": excerpt,
            "tags": [t for t in note["tags"] if scope is None or scope.tag_fits(t)],
            "likes": note["likes"],
            "collects": note["collects"],
            "comments": note["comments"],
        })
        if len(notes) >= limit:
            break
    return notes or "（笔记库里没有找到与需求相符的笔记）"


def _compact_tags(report: dict[str, Any], scope: Scope | None = None) -> dict[str, Any] | str:
    tags = [
        {"tag": t["tag"], "count": t["count"], "avgEngagement": t["avg_engagement"]}
        for t in report.get("tags", [])
        if scope is None or scope.tag_fits(t["tag"])
    ][:12]
    if not tags:
        return f"（没有可统计的标签：{report.get('message') or '相关笔记太少'}）"
    window = report.get("window") or {}
    return {
        "notesConsidered": report.get("notes_considered", 0),
        "window": f"{window.get('start')} ~ {window.get('end')}" if window else None,
        "tags": tags,
    }


def _compact_titles(report: dict[str, Any]) -> dict[str, Any] | str:
    titles = report.get("titles", [])
    if not titles:
        return "（没有找到相关的高互动标题）"
    labels = {p["pattern"]: p["label"] for p in report.get("patterns", [])}
    return {
        "titles": [
            {
                "title": t["title"], "likes": t["likes"], "collects": t["collects"],
                "engagement": t["engagement"], "patterns": [labels.get(key, key) for key in t["patterns"]],
            }
            for t in titles
        ],
        "patterns": [
            {"label": p["label"], "share": p["share"], "lift": p["lift"], "examples": p["examples"][:2]}
            for p in report.get("patterns", [])[:6]
        ],
        "avgTitleLength": report.get("avg_title_length"),
        "shareWithin20Chars": report.get("share_within_20_chars"),
    }


def _compact_trend(report: dict[str, Any], scope: Scope | None = None) -> dict[str, Any] | str:
    if not report.get("notes_considered"):
        return f"（没有趋势数据：{report.get('message') or '窗口内没有笔记'}）"
    window = report.get("window") or {}
    return {
        "theme": report.get("theme"),
        "window": f"{window.get('start')} ~ {window.get('end')}",
        "notesConsidered": report["notes_considered"],
        "risingTags": [
            {"tag": r["tag"], "recent": r["recent"], "earlier": r["earlier"], "growth": r["growth"]}
            for r in report.get("rising_tags", [])
            if scope is None or scope.tag_fits(r["tag"])
        ][:8],
        "engagementRecent": report.get("engagement_recent"),
        "engagementEarlier": report.get("engagement_earlier"),
        "topNotes": [
            {"title": n["title"], "likes": n["likes"], "engagement": n["engagement"]}
            for n in report.get("top_notes", [])[:5]
        ],
    }


def _web_text(result: dict[str, Any]) -> str | None:
    """The web answer with its sources, or None when the search produced nothing usable."""
    if result.get("status") != "ok" or not result.get("answer"):
        return None
    sources = "；".join(c["url"] for c in result.get("citations", [])[:5])
    return str(result["answer"])[:1500] + (f"\n来源：{sources}" if sources else "")


def _coverage(total: int, on_topic: int, elsewhere: list[str], gaps: list[str]) -> str:
    """The research agent's account of what the corpus had for this request."""
    text = f"检索到{total}篇笔记，{on_topic}篇与需求的地点和主题相符，作为事实依据"
    if elsewhere:
        text += f"；{len(elsewhere)}篇写的是其他地方（如《{elsewhere[0]}》），只参考标题写法"
    if gaps:
        text += "；" + "；".join(g.split("：")[0] for g in gaps)
    return text


def _tag(value: str) -> str | None:
    tag = value.strip().lstrip("#").strip()
    return tag if tag and len(tag) <= MAX_TAG_CHARS else None


@agent(NAME)
async def research_evidence_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Collect evidence for the brief from the research tools and summarise it into an EvidencePack."""
    brief = Brief.model_validate(state.get("creativeBrief") or {})
    query = research_query(brief)
    review = state.get("reviewFeedback") or {}
    redo = review.get("owner") == NAME
    theme = await _corpus_theme(brief.theme, ctx.knowledge)

    calls: dict[str, dict[str, Any]] = {
        "searchNotes": {
            "query": query, "limit": WIDER_NOTES_LIMIT if redo else NOTES_LIMIT, "excerptChars": NOTE_CHARS
        },
        "analyzeTopTags": (
            {"theme": theme, "days": TAG_WINDOW_DAYS} if theme else {"query": query, "days": TAG_WINDOW_DAYS}
        ),
        "getTopTitles": {"query": query, "sortBy": "engagement", "limit": TITLES_LIMIT, "theme": theme},
    }
    if theme:
        calls["getTrendReport"] = {"theme": theme, "weeks": TREND_WEEKS}
    if (state.get("intent") or {}).get("needsWebSearch") and ctx.llm.for_role("web_search"):
        calls["webSearch"] = {"query": query}
    outcomes = {
        o.tool: o for o in await asyncio.gather(*(_attempt(ctx, tool, args) for tool, args in calls.items()))
    }
    search = outcomes["searchNotes"]
    if search.error is not None:
        raise search.error  # no evidence without the notes
    failed = [o for o in outcomes.values() if o.error is not None]
    if failed:
        skipped_tools = "；".join(f"{label('tool', o.tool)}（{o.error.message}）" for o in failed if o.error)
        emit(Progress(agent=NAME, content=f"部分调研工具暂不可用，已跳过：{skipped_tools}"))

    hits = (search.output or {}).get("hits", [])
    scope = Scope.of(state.get("request", ""), brief).with_companions(h["note"] for h in hits)
    fits = {h["note"]["id"]: scope.note_fit(h["note"]) for h in hits}
    on_topic = [h["note"] for h in hits if fits[h["note"]["id"]] == "on_topic"]
    elsewhere = [h["note"]["title"] for h in hits if fits[h["note"]["id"]] == "elsewhere"]
    gaps = scope.describe_gaps(on_topic)
    emit(Progress(agent=NAME, content=_coverage(len(hits), len(on_topic), elsewhere, gaps)))

    skipped = "（本次未调用）"
    web = outcomes.get("webSearch")
    web_findings = _web_text(web.output or {}) if web and web.output else None
    messages = prompt("evidence").render(
        request=state.get("request", ""),
        brief=brief,
        notes=search.section(partial(compact_notes, scope=scope)),
        gaps="\n".join(gaps) or None,
        top_tags=outcomes["analyzeTopTags"].section(partial(_compact_tags, scope=scope)),
        top_titles=outcomes["getTopTitles"].section(_compact_titles),
        trend=outcomes["getTrendReport"].section(partial(_compact_trend, scope=scope))
        if "getTrendReport" in outcomes
        else skipped,
        web=web_findings or (web.section(lambda r: f"（联网搜索没有结果：{r.get('message') or '无'}）")
                             if web else None),
        review_feedback=review_feedback_text(review) if redo else None,
    )
    summary = await ctx.llm.complete_structured("evidence", messages, EvidenceSummaryOutput)

    tags_report = outcomes["analyzeTopTags"].output or {}
    titles_report = outcomes["getTopTitles"].output or {}
    sources = {h["note"]["id"]: h["note"] for h in hits}
    # a failed check that blamed the evidence quotes what it found: those facts do not come back
    blamed = [q.rstrip("…") for r in (review.get("reasons") or []) if redo for q in _QUOTED.findall(str(r))]
    facts = [
        f for f in summary.facts
        if scope.fact_fits(f.text, sources.get(f.source_id or "") if f.source_id in sources else None)
        and not any(len(q) >= 6 and q in f.text for q in blamed)
    ]
    if len(facts) < len(summary.facts):
        dropped = len(summary.facts) - len(facts)
        emit(Progress(agent=NAME, content=f"剔除了{dropped}条与需求的地点或主题不符的事实"))
    pack = EvidencePack.model_validate({
        **summary.model_dump(by_alias=True),
        "summary": scope.clean(summary.summary) or summary.summary,
        "facts": [f.model_dump(by_alias=True) for f in facts],
        "recommendedTags": [
            t for t in dict.fromkeys(map(_tag, summary.recommended_tags)) if t and scope.tag_fits(t)
        ],
        "topTags": [
            t for t in dict.fromkeys(_tag(s["tag"]) for s in tags_report.get("tags", []))
            if t and scope.tag_fits(t)
        ][:20],
        "topTitles": [t["title"] for t in titles_report.get("titles", [])][:10],
        "notes": [
            NoteRef(id=n["id"], title=n["title"], likes=n["likes"], collects=n["collects"])
            for n in on_topic[:20]
        ],
        "webFindings": web_findings,
        "gaps": gaps,
    })
    return {"evidencePack": pack.model_dump(mode="json", by_alias=True), "evidenceComplete": True}
