"""Creatives for analysts: filter, page, inspect, count and export the `creatives` table.

`CreativeFilter` is parsed from query parameters (the HTTP API and the CLI share it, so both reject the same
bad values with the same 422 details). Everything returned is a wire dict (camelCase, ISO 8601 UTC times).

Tags are a JSON array column, matched element by element through the database's JSON table function
(`json_each` on SQLite, `json_array_elements_text` on PostgreSQL; other databases fall back to LIKE over the
JSON text). Text matching is LIKE with escaped wildcards, case-insensitive for ASCII. Dates are UTC calendar
days, both ends inclusive.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from sqlalchemy import ColumnElement, Select, Text, cast, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from agents.context import DIMENSION_KEYS, default_asset_url
from app.http.errors import validation_failed
from tools.database import ROW_ID_MAX, Creative, CreativeStatus, ImageAsset, iso
from tools.images import OFFLINE_NAMES

Sessions = async_sessionmaker[AsyncSession]
Sort = Literal["-created", "created", "-updated", "updated", "-score", "score", "title", "-title"]
FILTER_KEYS = ("status", "q", "tag", "from", "to", "minScore", "sort", "limit", "offset")
SCORE_KEYS = (*DIMENSION_KEYS, "overall")
BUCKETS = 10  # score histogram: ten buckets of 0.1 over 0..1 (the last one includes 1.0)
TOP_TAGS = 20
EXPORT_MAX = 100_000
MAX_ID = 2**63 - 1  # larger ids cannot exist (and would overflow the driver)
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # `from` / `to`: a calendar day, nothing more
DIGITS = re.compile(r"[0-9]+")  # `limit` / `offset` (their ranges are checked after)
CSV_HEADER = (
    "id", "threadId", "status", "title", "tags", "score", *DIMENSION_KEYS, "reviewRounds", "imageCount",
    "model", "promptTokens", "completionTokens", "costUsd", "createdAt", "completedAt", "durationMs",
    "request", "body",
)


class CreativeFilter(BaseModel):
    """Which creatives, in what order, which page. Query names: status (repeatable or comma-separated), q,
    tag, from, to (exactly YYYY-MM-DD, UTC, inclusive), minScore (0..1), sort, limit (1..200), offset
    (0..10^9); limit and offset in ASCII digits."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", frozen=True)

    status: list[CreativeStatus] = Field(default_factory=list)
    q: str | None = Field(None, max_length=200, description="Words that must all appear in title/body/…")
    tag: str | None = Field(None, max_length=100, description="Exact tag (case-insensitive for ASCII).")
    date_from: date | None = Field(None, alias="from")
    date_to: date | None = Field(None, alias="to")
    min_score: float | None = Field(None, alias="minScore", ge=0, le=1, allow_inf_nan=False)
    sort: Sort = "-created"
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=10**9)
    # not a query parameter: set by the server to the user's own creatives for a role that may read only those
    owner_id: int | None = Field(None, exclude=True)

    @field_validator("q", "tag", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("date_from", "date_to", mode="before")
    @classmethod
    def _iso_day(cls, value: Any) -> Any:
        """Exactly YYYY-MM-DD in ASCII digits: pydantic alone also takes a time of midnight, a Unix
        timestamp ("0") or a datetime with a zone, none of which is a calendar day."""
        if isinstance(value, str) and not DAY.fullmatch(value):
            raise ValueError("日期必须是 YYYY-MM-DD 格式（例如 2026-06-01）")
        return value

    @field_validator("limit", "offset", mode="before")
    @classmethod
    def _ascii_integer(cls, value: Any) -> Any:
        """Paging numbers from a query string: ASCII digits only (not 10.0, 1_0, +5 or ²)."""
        if isinstance(value, str) and not DIGITS.fullmatch(value):
            raise ValueError("必须是非负整数（只用数字 0-9）")
        return value

    @field_validator("status", mode="before")
    @classmethod
    def _split_status(cls, value: Any) -> Any:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            return value
        return [p.strip() for item in items for p in str(item).split(",") if p.strip()]

    @model_validator(mode="after")
    def _ordered_dates(self) -> CreativeFilter:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("from 不能晚于 to")
        return self

    @classmethod
    def from_query(cls, items: Iterable[tuple[str, str]]) -> CreativeFilter:
        """From query-string pairs: unknown names and empty values are ignored; bad values → 422."""
        data: dict[str, Any] = {}
        statuses: list[str] = []
        for key, value in items:
            if key == "status":
                statuses.append(value)
            elif key in FILTER_KEYS and value.strip():
                data[key] = value.strip()
        if any(s.strip() for s in statuses):
            data["status"] = statuses
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise validation_failed(exc, "查询参数不合法") from exc


# --- SQL ---------------------------------------------------------------------------------------------------


def _escape_like(text: str) -> str:
    """`text` with LIKE's wildcards escaped (escape character: backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _tag_matches(dialect: str, text: str, *, exact: bool) -> ColumnElement[bool]:
    """Some element of the tags array equals (`exact`) or contains `text`, ignoring ASCII case."""
    pattern = _escape_like(text) if exact else f"%{_escape_like(text)}%"
    if dialect in ("sqlite", "postgresql"):
        each_fn = func.json_each if dialect == "sqlite" else func.json_array_elements_text
        each = each_fn(Creative.tags).table_valued("value").alias("tag")
        return exists(select(1).select_from(each).where(each.c.value.ilike(pattern, escape="\\")))
    # elsewhere: LIKE over the JSON text, in both spellings (characters, or json.dumps' \u escapes)
    spellings = {text, json.dumps(text)[1:-1]}
    wrap = (lambda s: f'%"{_escape_like(s)}"%') if exact else (lambda s: f"%{_escape_like(s)}%")
    return or_(*(cast(Creative.tags, Text).ilike(wrap(s), escape="\\") for s in spellings))


def conditions(f: CreativeFilter, dialect: str = "sqlite") -> list[ColumnElement[bool]]:
    """The WHERE clauses of a filter (sort and paging aside), for the database `dialect`."""
    where: list[ColumnElement[bool]] = []
    if f.status:
        where.append(Creative.status.in_([s.value for s in f.status]))
    for word in (f.q or "").split():
        pattern = f"%{_escape_like(word)}%"
        fields = (Creative.title, Creative.body, Creative.request)
        where.append(
            or_(*(c.ilike(pattern, escape="\\") for c in fields), _tag_matches(dialect, word, exact=False))
        )
    if f.tag:
        where.append(_tag_matches(dialect, f.tag, exact=True))
    if f.date_from:
        where.append(Creative.created_at >= datetime.combine(f.date_from, datetime.min.time(), UTC))
    if f.date_to and f.date_to < date.max:
        end = datetime.combine(f.date_to + timedelta(days=1), datetime.min.time(), UTC)
        where.append(Creative.created_at < end)
    if f.min_score is not None:
        where.append(Creative.score >= f.min_score)
    if f.owner_id is not None:
        where.append(Creative.owner_id == f.owner_id)
    return where


def _dialect(sessions: Sessions) -> str:
    bind = sessions.kw.get("bind")
    return str(bind.dialect.name) if bind is not None else ""


def _ordered(query: Select[Any], sort: str) -> Select[Any]:
    descending = sort.startswith("-")
    column = {
        "created": Creative.created_at,
        "updated": Creative.updated_at,
        "score": Creative.score,
        "title": Creative.title,
    }[sort.lstrip("-")]
    ident = Creative.id.desc() if descending else Creative.id.asc()
    return query.order_by(column.is_(None), column.desc() if descending else column.asc(), ident)


# --- wire helpers ------------------------------------------------------------------------------------------


def duration_ms(created: datetime | None, completed: datetime | None) -> int | None:
    if created is None or completed is None:
        return None
    created, completed = (d if d.tzinfo else d.replace(tzinfo=UTC) for d in (created, completed))
    return max(0, round((completed - created).total_seconds() * 1000))


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def chosen_round(rounds: list[Any] | None, score: float | None) -> dict[str, Any] | None:
    """The review round the creative's score came from (the latest with that overall), else the last."""
    valid = [r for r in rounds or [] if isinstance(r, dict)]
    if not valid:
        return None
    if score is not None:
        for round_ in reversed(valid):
            overall = _number(round_.get("overall"))
            if overall is not None and abs(overall - score) < 1e-9:
                return round_
    return valid[-1]


def round_scores(round_: dict[str, Any] | None) -> dict[str, float | None]:
    """`{infoDensity…platformFit, overall}` of a round (None where missing)."""
    scores = (round_ or {}).get("scores")
    scores = scores if isinstance(scores, dict) else {}
    values = {key: _number(scores.get(key)) for key in DIMENSION_KEYS}
    values["overall"] = _number((round_ or {}).get("overall"))
    return values


def planned_indexes(plans: list[Any] | None) -> frozenset[int]:
    """The task indexes the creative's image plans are for."""
    return frozenset(
        p["index"] for p in plans or []
        if isinstance(p, dict) and isinstance(p.get("index"), int) and not isinstance(p["index"], bool)
    )


def redrawable(row: ImageAsset, planned: Collection[int]) -> bool:
    """Whether the studio can draw the picture's card again from its plan, so new parameters need no model
    (`agents.image_edit`): a complete picture of a task that has a plan, and either the studio's own offline
    card or a card an image model's picture became whose picture was kept (`picture_path`)."""
    if row.status != "complete" or row.task_index is None or row.task_index not in planned:
        return False
    return row.provider in OFFLINE_NAMES or bool(row.picture_path)


def asset_wire(
    row: ImageAsset, asset_url: Callable[[int], str], planned: Collection[int] = frozenset()
) -> dict[str, Any]:
    """An asset as the API shows it; `planned`: the task indexes the creative has image plans for."""
    complete = row.status == "complete"
    return {
        "id": row.id, "taskIndex": row.task_index, "role": row.role, "status": row.status,
        "mime": row.mime or None, "width": row.width, "height": row.height,
        "url": asset_url(row.id) if complete else None, "provider": row.provider, "prompt": row.prompt,
        "error": row.error, "createdAt": iso(row.created_at), "supersededAt": iso(row.superseded_at),
        "redrawable": redrawable(row, planned),
    }


# --- queries -----------------------------------------------------------------------------------------------


async def list_creatives(
    sessions: Sessions, f: CreativeFilter, *, asset_url: Callable[[int], str] = default_asset_url
) -> tuple[list[dict[str, Any]], int]:
    """One page of summaries (no artifacts) and the number of creatives matching the filter."""
    where = conditions(f, _dialect(sessions))
    columns = (
        Creative.id, Creative.thread_id, Creative.status, Creative.request, Creative.title,
        func.substr(Creative.body, 1, 120).label("excerpt"), Creative.tags, Creative.score, Creative.model,
        Creative.prompt_tokens, Creative.completion_tokens, Creative.cost_usd,
        Creative.created_at, Creative.updated_at, Creative.completed_at, Creative.started_by,
    )
    page = _ordered(select(*columns).where(*where), f.sort).limit(f.limit).offset(f.offset)
    async with sessions() as session:
        total = int(await session.scalar(select(func.count(Creative.id)).where(*where)) or 0)
        rows = (await session.execute(page)).all()
        ids = [row.id for row in rows]
        assets = (
            await session.execute(
                select(ImageAsset.creative_id, ImageAsset.id, ImageAsset.task_index)
                .where(
                    ImageAsset.creative_id.in_(ids),
                    ImageAsset.status == "complete",
                    ImageAsset.superseded_at.is_(None),
                )
                .order_by(ImageAsset.task_index.is_(None), ImageAsset.task_index, ImageAsset.id)
            )
            if ids
            else None
        )
    by_creative: dict[int, list[int]] = {}
    for creative_id, asset_id, _index in assets or []:
        if creative_id is not None:
            by_creative.setdefault(creative_id, []).append(asset_id)
    items = []
    for row in rows:
        images = by_creative.get(row.id, [])
        items.append({
            "id": row.id, "threadId": row.thread_id, "status": row.status, "request": row.request,
            "title": row.title, "excerpt": row.excerpt, "tags": list(row.tags or []), "score": row.score,
            "model": row.model, "imageCount": len(images),
            "coverUrl": asset_url(images[0]) if images else None, "promptTokens": row.prompt_tokens,
            "completionTokens": row.completion_tokens, "costUsd": row.cost_usd,
            "createdAt": iso(row.created_at), "updatedAt": iso(row.updated_at),
            "completedAt": iso(row.completed_at), "durationMs": duration_ms(row.created_at, row.completed_at),
            "startedBy": row.started_by,
        })
    return items, total


async def get_creative(
    sessions: Sessions, creative_id: int, *, asset_url: Callable[[int], str] = default_asset_url
) -> dict[str, Any] | None:
    """Everything about one creative (artifacts, review rounds, timings, usage, assets); None if unknown."""
    if not 0 < creative_id <= ROW_ID_MAX:  # a larger id (the API takes up to MAX_ID) names no row
        return None
    async with sessions() as session:
        row = await session.get(Creative, creative_id)
        if row is None:
            return None
        assets = (
            await session.scalars(
                select(ImageAsset)
                .where(ImageAsset.creative_id == creative_id)
                .order_by(ImageAsset.task_index.is_(None), ImageAsset.task_index, ImageAsset.id)
            )
        ).all()
    chosen = chosen_round(row.review_rounds, row.score)
    planned = planned_indexes(row.image_plans)
    return {
        "id": row.id, "threadId": row.thread_id, "status": row.status, "request": row.request,
        "options": row.options or {}, "title": row.title, "body": row.body, "tags": list(row.tags or []),
        "brief": row.brief, "evidence": row.evidence, "referenceAnalyses": row.reference_analyses or [],
        "layoutSpec": row.layout_spec, "imagePlans": row.image_plans or [], "bindings": row.bindings or [],
        "overlayPlan": row.overlay_plan or [], "reviewRounds": row.review_rounds or [],
        "chosenRound": chosen.get("round") if chosen else None, "score": row.score,
        "scores": round_scores(chosen) if chosen else None, "model": row.model,
        "promptTokens": row.prompt_tokens, "completionTokens": row.completion_tokens, "costUsd": row.cost_usd,
        "usage": {
            "promptTokens": row.prompt_tokens, "completionTokens": row.completion_tokens,
            "totalTokens": row.prompt_tokens + row.completion_tokens, "costUsd": row.cost_usd,
            "byTask": row.usage or {},
        },
        "timings": row.timings or {}, "error": row.error, "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at), "completedAt": iso(row.completed_at),
        "durationMs": duration_ms(row.created_at, row.completed_at),
        "startedBy": row.started_by, "ownerId": row.owner_id, "currentVersion": row.current_version or None,
        "assets": [asset_wire(asset, asset_url, planned) for asset in assets if asset.superseded_at is None],
        "assetHistory": [
            asset_wire(asset, asset_url, planned) for asset in assets if asset.superseded_at is not None
        ],
    }


def _histogram(values: list[float]) -> list[int]:
    counts = [0] * BUCKETS
    for value in values:
        counts[min(BUCKETS - 1, max(0, math.floor(round(value * BUCKETS, 9))))] += 1
    return counts


def _days(counts: dict[date, list[int]]) -> list[dict[str, Any]]:
    """Per-day rows from the first to the last day with data, gaps filled with zeros (chart-ready)."""
    if not counts:
        return []
    first, last = min(counts), max(counts)
    out = []
    for n in range((last - first).days + 1):
        day = first + timedelta(days=n)
        total, completed = counts.get(day, [0, 0])
        out.append({"date": day.isoformat(), "count": total, "completed": completed})
    return out


async def creative_stats(sessions: Sessions, f: CreativeFilter | None = None) -> dict[str, Any]:
    """Aggregates over the filtered creatives (sort and paging ignored); one pass over the rows."""
    f = f or CreativeFilter.model_validate({})
    query = select(
        Creative.status, Creative.tags, Creative.score, Creative.review_rounds, Creative.created_at,
        Creative.completed_at, Creative.prompt_tokens, Creative.completion_tokens, Creative.cost_usd,
    ).where(*conditions(f, _dialect(sessions)))
    by_status = {status.value: 0 for status in CreativeStatus}
    scores: dict[str, list[float]] = {key: [] for key in SCORE_KEYS}
    tags: Counter[str] = Counter()
    days: dict[date, list[int]] = {}
    run_times: list[int] = []
    total = prompt_tokens = completion_tokens = unknown_cost = 0
    cost = 0.0
    async with sessions() as session:
        result = await session.stream(query.execution_options(yield_per=500))
        async for row in result:
            total += 1
            by_status[row.status] = by_status.get(row.status, 0) + 1
            prompt_tokens += row.prompt_tokens or 0
            completion_tokens += row.completion_tokens or 0
            cost += row.cost_usd or 0.0
            unknown_cost += row.cost_usd is None
            tags.update({str(t) for t in row.tags or [] if str(t).strip()})
            day = days.setdefault(row.created_at.date(), [0, 0])
            day[0] += 1
            if row.status == CreativeStatus.COMPLETED:
                day[1] += 1
                run_time = duration_ms(row.created_at, row.completed_at)
                if run_time is not None:
                    run_times.append(run_time)
            chosen = chosen_round(row.review_rounds, row.score)
            values = round_scores(chosen)
            if values["overall"] is None and row.score is not None:
                values["overall"] = row.score
            for key, value in values.items():
                if value is not None:
                    scores[key].append(min(1.0, max(0.0, value)))
    return {
        "total": total,
        "byStatus": by_status,
        "scoredCount": len(scores["overall"]),
        "scoreAverages": {k: round(statistics.fmean(v), 4) if v else None for k, v in scores.items()},
        "scoreDistribution": {
            "bucketEdges": [round(i / BUCKETS, 1) for i in range(BUCKETS + 1)],
            "counts": {key: _histogram(values) for key, values in scores.items()},
        },
        "topTags": [{"tag": tag, "count": n} for tag, n in sorted(tags.items(), key=lambda t: (-t[1], t[0]))][
            :TOP_TAGS
        ],
        "perDay": _days(days),
        "meanRunTimeMs": round(statistics.fmean(run_times)) if run_times else None,
        "medianRunTimeMs": round(statistics.median(run_times)) if run_times else None,
        "usage": {
            "promptTokens": prompt_tokens,
            "completionTokens": completion_tokens,
            "costUsd": round(cost, 6),
            "unknownCostCount": unknown_cost,
        },
    }


# --- CSV ---------------------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


async def export_rows(sessions: Sessions, f: CreativeFilter) -> list[list[Any]]:
    """CSV rows (header first) of every creative matching the filter, in its sort order. `limit` and
    `offset` apply only when they were given explicitly; at most `EXPORT_MAX` rows."""
    explicit = f.model_fields_set
    images = (
        select(func.count(ImageAsset.id))
        .where(
            ImageAsset.creative_id == Creative.id,
            ImageAsset.status == "complete",
            ImageAsset.superseded_at.is_(None),
        )
        .scalar_subquery()
        .label("images")
    )
    columns = (
        Creative.id, Creative.thread_id, Creative.status, Creative.title, Creative.tags, Creative.score,
        Creative.review_rounds, images, Creative.model, Creative.prompt_tokens, Creative.completion_tokens,
        Creative.cost_usd, Creative.created_at, Creative.completed_at, Creative.request, Creative.body,
    )
    query = _ordered(select(*columns).where(*conditions(f, _dialect(sessions))), f.sort)
    query = query.limit(f.limit if "limit" in explicit else EXPORT_MAX).offset(f.offset)
    rows: list[list[Any]] = [list(CSV_HEADER)]
    async with sessions() as session:
        result = await session.execute(query)
    for c in result.all():
        values = round_scores(chosen_round(c.review_rounds, c.score))
        rows.append(
            [
                c.id, c.thread_id, c.status, _cell(c.title), _cell("|".join(str(t) for t in c.tags or [])),
                _cell(c.score), *(_cell(values[key]) for key in DIMENSION_KEYS), len(c.review_rounds or []),
                c.images, _cell(c.model), c.prompt_tokens, c.completion_tokens, c.cost_usd, iso(c.created_at),
                _cell(iso(c.completed_at)), _cell(duration_ms(c.created_at, c.completed_at)),
                _cell(c.request), _cell(c.body),
            ]
        )
    return rows


def to_csv(rows: list[list[Any]], *, bom: bool = True) -> str:
    """CSV text (RFC 4180 quoting, CRLF); with a UTF-8 BOM so Excel reads Chinese correctly."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return ("\ufeff" if bom else "") + buffer.getvalue()


async def export_csv(sessions: Sessions, f: CreativeFilter, *, bom: bool = True) -> str:
    return to_csv(await export_rows(sessions, f), bom=bom)
