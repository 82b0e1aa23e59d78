"""Research tools: what the research agent calls to ground a post in the notes corpus (and the web).

Each tool is a plain async function taking the `KnowledgeStore` first (except `web_search`) and returning a
pydantic model whose `model_dump()` is JSON-native (dates are ISO strings), since it becomes an SSE
`tool_result`. `TOOLS` maps each tool's name to its arguments model (for LLM tool schemas); `run_tool`
validates arguments and dispatches.

Definitions used throughout:
- engagement (互动量) = likes + collects + comments.
- The analysis window ends at the newest `published_at` in the whole store, not at today: the shipped
  corpus is fixed sample data, and "the last 30 days" must still mean something for it.
- "Notes matching a query" are the hybrid-search hits (up to `RELEVANT_POOL`) that are semantically close
  (cosine >= `MIN_SIMILARITY`) or keyword-matched and not far off (cosine >= `MIN_KEYWORD_SIMILARITY`).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import date, timedelta
from statistics import mean
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.errors import LLMError, StudioError
from tools.knowledge import KnowledgeStore, Note, NoteHit
from tools.llm import LLMGateway

RELEVANT_POOL = 120
MIN_SIMILARITY = 0.3
MIN_KEYWORD_SIMILARITY = 0.2
EXCERPT_CHARS = 120
SortBy = Literal["likes", "collects", "comments", "engagement", "recent"]


# ---------------------------------------------------------------------------------------------------------
# Shared output pieces
# ---------------------------------------------------------------------------------------------------------


class NoteBrief(BaseModel):
    """A note as tools report it: counts, ISO date, and the body cut to an excerpt."""

    id: str
    title: str
    excerpt: str = Field(description=f"The body's first {EXCERPT_CHARS} characters.")
    tags: list[str]
    likes: int
    collects: int
    comments: int
    engagement: int = Field(description="likes + collects + comments")
    author: str
    published_at: str = Field(description="YYYY-MM-DD")
    theme: str
    url: str

    @classmethod
    def of(cls, note: Note, excerpt_chars: int = EXCERPT_CHARS) -> NoteBrief:
        excerpt = note.desc if len(note.desc) <= excerpt_chars else note.desc[:excerpt_chars] + "…"
        return cls(
            id=note.id,
            title=note.title,
            excerpt=excerpt,
            tags=note.tags,
            likes=note.likes,
            collects=note.collects,
            comments=note.comments,
            engagement=note.engagement,
            author=note.author,
            published_at=note.published_at.isoformat(),
            theme=note.theme,
            url=note.url,
        )


class Window(BaseModel):
    """An inclusive date range; `end` is the newest note's date in the store."""

    start: str
    end: str
    days: int


def _window(newest: date, days: int) -> tuple[date, date]:
    return newest - timedelta(days=days - 1), newest


async def _newest_date(store: KnowledgeStore) -> date | None:
    bounds = await store.date_range()
    return bounds[1] if bounds else None


def _is_relevant(hit: NoteHit) -> bool:
    if hit.similarity >= MIN_SIMILARITY:
        return True
    return hit.keyword_score is not None and hit.similarity >= MIN_KEYWORD_SIMILARITY


async def relevant_notes(
    store: KnowledgeStore,
    query: str,
    theme: str | None = None,
    *,
    since: date | None = None,
    until: date | None = None,
) -> list[NoteHit]:
    """Hybrid-search hits for `query` that are actually about it (see the module docstring)."""
    hits = await store.search_notes(query, limit=RELEVANT_POOL, theme=theme, since=since, until=until)
    return [hit for hit in hits if _is_relevant(hit)]


# ---------------------------------------------------------------------------------------------------------
# search_notes
# ---------------------------------------------------------------------------------------------------------


class SearchNotesArgs(BaseModel):
    query: str = Field(min_length=1, description="What to look for, e.g. 露营装备.")
    limit: int = Field(10, ge=1, le=50)
    theme: str | None = Field(None, description="Restrict to one theme, e.g. food.")
    excerpt_chars: int = Field(
        EXCERPT_CHARS, ge=40, le=2000, description="How much of each note's body to return."
    )


class NoteSearchHit(BaseModel):
    note: NoteBrief
    score: float = Field(description="RRF relevance, higher is better.")
    similarity: float = Field(description="Cosine similarity 0..1.")
    keyword_match: bool


class NoteSearchResult(BaseModel):
    query: str
    theme: str | None
    hits: list[NoteSearchHit]


async def search_notes(
    store: KnowledgeStore,
    query: str,
    limit: int = 10,
    theme: str | None = None,
    excerpt_chars: int = EXCERPT_CHARS,
) -> NoteSearchResult:
    """The notes most relevant to `query` (hybrid vector + keyword search), best first, each body cut to
    `excerpt_chars` (the research agent asks for more than a listing needs: the facts are in there)."""
    hits = await store.search_notes(query, limit=limit, theme=theme)
    return NoteSearchResult(
        query=query,
        theme=theme,
        hits=[
            NoteSearchHit(
                note=NoteBrief.of(hit.note, excerpt_chars),
                score=round(hit.score, 6),
                similarity=round(hit.similarity, 4),
                keyword_match=hit.keyword_score is not None,
            )
            for hit in hits
        ],
    )


# ---------------------------------------------------------------------------------------------------------
# analyze_top_tags
# ---------------------------------------------------------------------------------------------------------


class AnalyzeTopTagsArgs(BaseModel):
    theme: str | None = Field(None, description="Analyse this theme's notes.")
    query: str | None = Field(None, description="Analyse notes matching this query (combinable with theme).")
    days: int = Field(30, ge=1, le=3650, description="Window length, ending at the newest note.")
    limit: int = Field(20, ge=1, le=100)


class TagStat(BaseModel):
    tag: str
    count: int = Field(description="Notes in the window carrying the tag.")
    share: float = Field(description="count / notes in the window.")
    total_engagement: int
    avg_engagement: float
    score: float = Field(
        description="Sum over the tag's notes of ln(1 + engagement): frequency x engagement."
    )


class TagReport(BaseModel):
    theme: str | None
    query: str | None
    window: Window | None
    notes_considered: int
    tags: list[TagStat] = Field(description="Ranked by engagement-weighted score.")
    most_frequent: list[str] = Field(description="Tags ranked by plain count.")
    message: str | None = None


def _tag_stats(notes: Sequence[Note]) -> list[TagStat]:
    count: Counter[str] = Counter()
    engagement: Counter[str] = Counter()
    score: defaultdict[str, float] = defaultdict(float)
    for note in notes:
        for tag in note.tags:
            count[tag] += 1
            engagement[tag] += note.engagement
            score[tag] += math.log1p(note.engagement)
    total = len(notes) or 1
    stats = [
        TagStat(
            tag=tag,
            count=n,
            share=round(n / total, 4),
            total_engagement=engagement[tag],
            avg_engagement=round(engagement[tag] / n, 1),
            score=round(score[tag], 3),
        )
        for tag, n in count.items()
    ]
    return sorted(stats, key=lambda s: (-s.score, -s.count, s.tag))


async def _select_notes(
    store: KnowledgeStore, theme: str | None, query: str | None, since: date, until: date
) -> list[Note]:
    if query and query.strip():
        return [hit.note for hit in await relevant_notes(store, query, theme, since=since, until=until)]
    return await store.all_notes(theme, since=since, until=until)


async def analyze_top_tags(
    store: KnowledgeStore, theme: str | None = None, query: str | None = None, days: int = 30, limit: int = 20
) -> TagReport:
    """Tag counts and an engagement-weighted tag ranking over a theme's notes or a query's matching notes,
    within the `days` ending at the newest note in the store."""
    newest = await _newest_date(store)
    if newest is None:
        return TagReport(
            theme=theme,
            query=query,
            window=None,
            notes_considered=0,
            tags=[],
            most_frequent=[],
            message="知识库为空",
        )
    start, end = _window(newest, days)
    notes = await _select_notes(store, theme, query, start, end)
    stats = _tag_stats(notes)
    by_count = sorted(stats, key=lambda s: (-s.count, -s.score, s.tag))
    return TagReport(
        theme=theme,
        query=query,
        window=Window(start=start.isoformat(), end=end.isoformat(), days=days),
        notes_considered=len(notes),
        tags=stats[:limit],
        most_frequent=[s.tag for s in by_count[:limit]],
        message=None if notes else "窗口内没有符合条件的笔记，可加大 days 或换个查询",
    )


# ---------------------------------------------------------------------------------------------------------
# get_top_titles
# ---------------------------------------------------------------------------------------------------------

_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u3030\u303d\u3297\u3299\ufe0f]")
_NUM = r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百千万]+)"
TITLE_PATTERNS: dict[str, tuple[str, re.Pattern[str]]] = {
    "number": (
        "数字",
        re.compile(r"\d|[一二两三四五六七八九十百千万]+[个款种招步天周件家次条样道套分斤元块岁年]"),
    ),
    "list": (
        "清单/盘点",
        re.compile(_NUM + r"\s*[个款种招步件家条样道套]|合集|清单|盘点|大全|汇总|TOP\s*\d", re.I),
    ),
    "question": ("疑问钩子", re.compile(r"[?？]|吗|怎么|如何|为什么|为啥|什么|哪[里儿个些]|多少|到底")),
    "exclamation": ("感叹", re.compile(r"[!！]")),
    "emoji": ("表情符号", _EMOJI),
    "separator": ("分隔结构「｜」", re.compile(r"[|｜丨]")),
    "brackets": ("括号强调", re.compile(r"[【】「」『』\[\]]")),
    "audience": (
        "人群定位",
        re.compile(r"新手|小白|入门|打工人|学生党|上班族|宝妈|懒人|手残|零基础|i人|e人|姐妹|宝宝们|社恐"),
    ),
    "price": ("价格/省钱", re.compile(_NUM + r"\s*[元块]|人均|平价|省钱|便宜|百元|千元|预算|免费|性价比")),
    "time": ("时间/效率", re.compile(_NUM + r"\s*(?:分钟|小时|天|周|个月)|一周|快手|速成|懒人|一次")),
    "pitfall": ("避坑/警示", re.compile(r"避坑|避雷|踩坑|踩雷|千万别|不要|别再|后悔|劝退|智商税")),
    "superlative": (
        "强钩子词",
        re.compile(r"必看|必备|必买|绝了|绝绝子|天花板|封神|yyds|宝藏|私藏|神仙|答应我|爆", re.I),
    ),
    "personal": ("亲历视角", re.compile(r"我|亲测|实测|自用|真实|经验|分享")),
    "comparison": ("对比/平替", re.compile(r"\bvs\b|对比|平替|还是|区别|PK", re.I)),
}


def title_patterns(title: str) -> list[str]:
    """The keys of `TITLE_PATTERNS` that `title` shows."""
    return [key for key, (_, pattern) in TITLE_PATTERNS.items() if pattern.search(title)]


class GetTopTitlesArgs(BaseModel):
    query: str = Field(min_length=1)
    limit: int = Field(10, ge=1, le=50)
    sort_by: SortBy = "likes"
    theme: str | None = None


class TitleEntry(BaseModel):
    title: str
    note_id: str
    likes: int
    collects: int
    comments: int
    engagement: int
    published_at: str
    length: int
    patterns: list[str]


class PatternStat(BaseModel):
    pattern: str
    label: str
    count: int
    share: float = Field(description="Share of the relevant notes' titles showing the pattern.")
    avg_engagement: float
    lift: float | None = Field(description="avg engagement with the pattern / without it; None if undefined.")
    examples: list[str]


class TitleReport(BaseModel):
    query: str
    sort_by: SortBy
    notes_considered: int
    titles: list[TitleEntry]
    patterns: list[PatternStat] = Field(
        description="Patterns seen in the relevant notes' titles, most common first."
    )
    avg_title_length: float | None
    share_within_20_chars: float | None = Field(description="Share of titles fitting the 20-character limit.")


def _sort_key(sort_by: SortBy) -> Callable[[Note], Any]:
    if sort_by == "recent":
        return lambda note: (note.published_at, note.engagement)
    if sort_by == "engagement":
        return lambda note: note.engagement
    return lambda note: (getattr(note, sort_by), note.engagement)


def _pattern_stats(notes: Sequence[Note]) -> list[PatternStat]:
    tagged = [(note, set(title_patterns(note.title))) for note in notes]
    stats = []
    for key, (label, _) in TITLE_PATTERNS.items():
        with_p = [note for note, keys in tagged if key in keys]
        if not with_p:
            continue
        without = [note.engagement for note, keys in tagged if key not in keys]
        avg_with = mean(note.engagement for note in with_p)
        avg_without = mean(without) if without else 0.0
        stats.append(
            PatternStat(
                pattern=key,
                label=label,
                count=len(with_p),
                share=round(len(with_p) / len(notes), 4),
                avg_engagement=round(avg_with, 1),
                lift=round(avg_with / avg_without, 3) if without and avg_without > 0 else None,
                examples=[note.title for note in sorted(with_p, key=lambda n: -n.engagement)[:3]],
            )
        )
    return sorted(stats, key=lambda s: (-s.count, -s.avg_engagement))


async def get_top_titles(
    store: KnowledgeStore, query: str, limit: int = 10, sort_by: SortBy = "likes", theme: str | None = None
) -> TitleReport:
    """The best-performing titles among notes matching `query`, and the title patterns they use."""
    notes = [hit.note for hit in await relevant_notes(store, query, theme)]
    top = sorted(notes, key=_sort_key(sort_by), reverse=True)[:limit]
    lengths = [len(note.title) for note in notes]
    return TitleReport(
        query=query,
        sort_by=sort_by,
        notes_considered=len(notes),
        titles=[
            TitleEntry(
                title=note.title,
                note_id=note.id,
                likes=note.likes,
                collects=note.collects,
                comments=note.comments,
                engagement=note.engagement,
                published_at=note.published_at.isoformat(),
                length=len(note.title),
                patterns=title_patterns(note.title),
            )
            for note in top
        ],
        patterns=_pattern_stats(notes),
        avg_title_length=round(mean(lengths), 1) if lengths else None,
        share_within_20_chars=round(sum(n <= 20 for n in lengths) / len(lengths), 4) if lengths else None,
    )


# ---------------------------------------------------------------------------------------------------------
# get_trend_report
# ---------------------------------------------------------------------------------------------------------


class GetTrendReportArgs(BaseModel):
    theme: str = Field(min_length=1)
    weeks: int = Field(12, ge=2, le=104, description="Window length in weeks, ending at the newest note.")


class WeekVolume(BaseModel):
    week_start: str = Field(description="Monday of the ISO week, YYYY-MM-DD.")
    notes: int
    avg_engagement: float | None


class RisingTag(BaseModel):
    tag: str
    recent: int = Field(description="Notes with the tag in the recent half of the window.")
    earlier: int = Field(description="Notes with the tag in the earlier half.")
    growth: float = Field(description="(recent + 1) / (earlier + 1)")


class EngagementSummary(BaseModel):
    notes: int
    avg_likes: float
    avg_collects: float
    avg_comments: float
    avg_engagement: float


class TrendReport(BaseModel):
    theme: str
    window: Window | None
    notes_considered: int
    weekly_volume: list[WeekVolume]
    rising_tags: list[RisingTag]
    top_notes: list[NoteBrief]
    engagement: EngagementSummary | None
    engagement_recent: EngagementSummary | None
    engagement_earlier: EngagementSummary | None
    message: str | None = None


def _engagement(notes: Sequence[Note]) -> EngagementSummary | None:
    if not notes:
        return None
    return EngagementSummary(
        notes=len(notes),
        avg_likes=round(mean(n.likes for n in notes), 1),
        avg_collects=round(mean(n.collects for n in notes), 1),
        avg_comments=round(mean(n.comments for n in notes), 1),
        avg_engagement=round(mean(n.engagement for n in notes), 1),
    )


def _weekly(notes: Iterable[Note], start: date, end: date) -> list[WeekVolume]:
    by_week: defaultdict[date, list[int]] = defaultdict(list)
    for note in notes:
        by_week[note.published_at - timedelta(days=note.published_at.weekday())].append(note.engagement)
    week = start - timedelta(days=start.weekday())
    volumes = []
    while week <= end:
        values = by_week.get(week, [])
        volumes.append(
            WeekVolume(
                week_start=week.isoformat(),
                notes=len(values),
                avg_engagement=round(mean(values), 1) if values else None,
            )
        )
        week += timedelta(days=7)
    return volumes


def _rising(recent: Sequence[Note], earlier: Sequence[Note], limit: int = 10) -> list[RisingTag]:
    now = Counter(tag for note in recent for tag in note.tags)
    before = Counter(tag for note in earlier for tag in note.tags)
    rising = [
        RisingTag(tag=tag, recent=n, earlier=before[tag], growth=round((n + 1) / (before[tag] + 1), 3))
        for tag, n in now.items()
        if n >= 2 and n > before[tag]
    ]
    return sorted(rising, key=lambda r: (-r.growth, -r.recent, r.tag))[:limit]


async def get_trend_report(store: KnowledgeStore, theme: str, weeks: int = 12) -> TrendReport:
    """Weekly volume, rising tags (recent vs earlier half of the window), top notes and average engagement
    of a theme over the `weeks` ending at the newest note in the store."""
    newest = await _newest_date(store)
    if newest is None or not await store.count_notes(theme):
        themes = list(await store.theme_counts())
        return TrendReport(
            theme=theme,
            window=None,
            notes_considered=0,
            weekly_volume=[],
            rising_tags=[],
            top_notes=[],
            engagement=None,
            engagement_recent=None,
            engagement_earlier=None,
            message=f"主题 {theme!r} 没有笔记；现有主题：{', '.join(themes) or '无'}",
        )
    days = weeks * 7
    start, end = _window(newest, days)
    middle = start + timedelta(days=days // 2)
    in_window = await store.all_notes(theme, since=start, until=end)
    recent = [note for note in in_window if note.published_at >= middle]
    earlier = [note for note in in_window if note.published_at < middle]
    return TrendReport(
        theme=theme,
        window=Window(start=start.isoformat(), end=end.isoformat(), days=days),
        notes_considered=len(in_window),
        weekly_volume=_weekly(in_window, start, end),
        rising_tags=_rising(recent, earlier),
        top_notes=[NoteBrief.of(n) for n in sorted(in_window, key=lambda n: -n.engagement)[:5]],
        engagement=_engagement(in_window),
        engagement_recent=_engagement(recent),
        engagement_earlier=_engagement(earlier),
        message=None if in_window else "窗口内没有该主题的笔记，可加大 weeks",
    )


# ---------------------------------------------------------------------------------------------------------
# web_search
# ---------------------------------------------------------------------------------------------------------


class WebSearchArgs(BaseModel):
    query: str = Field(min_length=1)


class Citation(BaseModel):
    url: str
    title: str | None = None


class WebSearchResult(BaseModel):
    query: str
    status: Literal["ok", "not_configured", "error"]
    model: str | None
    answer: str | None = None
    citations: list[Citation] = Field(default_factory=list)
    message: str | None = None


def _citations(response: Any) -> list[Citation]:
    """URL citations from an OpenAI-style `message.annotations` or a Perplexity-style `citations` list."""
    found: dict[str, Citation] = {}
    message = response.choices[0].message
    for annotation in getattr(message, "annotations", None) or []:
        data = annotation if isinstance(annotation, dict) else getattr(annotation, "__dict__", {})
        cite = data.get("url_citation") or {}
        if isinstance(cite, dict) and cite.get("url"):
            found.setdefault(cite["url"], Citation(url=cite["url"], title=cite.get("title")))
    for url in getattr(response, "citations", None) or []:
        if isinstance(url, str):
            found.setdefault(url, Citation(url=url))
    return list(found.values())


async def web_search(
    query: str,
    gateway: LLMGateway | None = None,
    *,
    search_context_size: Literal["low", "medium", "high"] = "medium",
) -> WebSearchResult:
    """Ask the web-search role's model (`gateway`, from `LLMGateway.for_role("web_search")`) about `query`.

    Without one, returns `status="not_configured"`; a failed call returns `status="error"` with the reason —
    neither raises, so the research agent carries on with the corpus alone. The call goes through the
    gateway: its endpoint and key, one retry layer, usage and cost on the run's meter.
    """
    if gateway is None:
        return WebSearchResult(
            query=query,
            status="not_configured",
            model=None,
            message="未配置联网搜索模型（STUDIO_WEB_SEARCH_MODEL），仅使用本地笔记库",
        )
    try:
        response = await gateway.complete_raw(
            "web_search",
            [{"role": "user", "content": query}],
            web_search_options={"search_context_size": search_context_size},
        )
    except LLMError as exc:  # any provider failure is reported, not raised (see docstring)
        return WebSearchResult(
            query=query, status="error", model=gateway.model, message=f"联网搜索失败：{exc.message}"
        )
    return WebSearchResult(
        query=query,
        status="ok",
        model=gateway.model,
        answer=response.choices[0].message.content or "",
        citations=_citations(response),
    )


# ---------------------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------------------

ToolFn = Callable[..., Awaitable[BaseModel]]
TOOLS: dict[str, tuple[type[BaseModel], str]] = {
    "search_notes": (SearchNotesArgs, "检索与查询最相关的笔记（向量+关键词混合检索）"),
    "analyze_top_tags": (AnalyzeTopTagsArgs, "统计某主题或查询相关笔记在时间窗口内的热门标签（按互动加权）"),
    "get_top_titles": (GetTopTitlesArgs, "相关笔记中表现最好的标题及其标题套路"),
    "get_trend_report": (GetTrendReportArgs, "主题趋势：每周发布量、上升标签、热门笔记、平均互动"),
    "web_search": (WebSearchArgs, "联网搜索（未配置模型时返回未配置）"),
}
"""Tool name -> (arguments model, one-line description for the model)."""


async def run_tool(
    name: str, arguments: dict[str, Any], *, store: KnowledgeStore, web_search_llm: LLMGateway | None = None
) -> dict[str, Any]:
    """Validate `arguments` against the tool's model, run it and return its JSON-native result."""
    if name not in TOOLS:
        raise StudioError(
            f"unknown research tool {name!r}", code="UNKNOWN_TOOL", details={"tools": list(TOOLS)}
        )
    args = TOOLS[name][0].model_validate(arguments).model_dump()
    result: BaseModel
    if name == "web_search":
        result = await web_search(args["query"], web_search_llm)
    else:
        functions: dict[str, ToolFn] = {
            "search_notes": search_notes,
            "analyze_top_tags": analyze_top_tags,
            "get_top_titles": get_top_titles,
            "get_trend_report": get_trend_report,
        }
        fn = functions[name]
        result = await fn(store, **args)
    return result.model_dump()
