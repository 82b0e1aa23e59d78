"""The analysts' API (`/api/creatives…`, `/api/assets/{id}`) on real SQLite with real PNG assets."""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from app.settings import Settings
from tools.assets import AssetStore
from tools.database import Creative, ImageAsset, create_engine, session_factory

DIMS = ("infoDensity", "textImageAlignment", "styleConsistency", "readability", "platformFit")


def _round(number: int, overall: float, passed: bool, *values: float) -> dict[str, Any]:
    return {
        "round": number,
        "scores": dict(zip(DIMS, values, strict=True)),
        "overall": overall,
        "passed": passed,
        "failReasons": [] if passed else ["信息密度不足"],
        "suggestions": [],
    }


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=UTC)


# key → (status, title, body, request, tags, created, run seconds, score, review rounds)
CREATIVES: dict[str, dict[str, Any]] = {
    "camping": dict(
        status="completed", title="周末城市露营攻略｜上班族也能轻松出发",
        body="周五下班直接出发，帐篷租金 80 元一晚。",
        request="帮我写一篇周末城市露营的小红书笔记，面向上班族", tags=["露营", "周末", "城市露营"],
        created=_at(1, 9), seconds=90, score=0.84,
        rounds=[
            _round(1, 0.70, False, 0.5, 0.8, 0.7, 0.8, 0.7),
            _round(2, 0.84, True, 0.8, 0.9, 0.8, 0.85, 0.85),
        ],
    ),
    "tomato": dict(
        status="completed", title="番茄炒蛋的家常做法", body="先炒蛋再炒番茄，最后加一勺糖。",
        request="写一篇番茄炒蛋的菜谱", tags=["家常菜", "菜谱"], created=_at(2, 10), seconds=60, score=0.76,
        rounds=[_round(1, 0.76, True, 0.7, 0.8, 0.75, 0.8, 0.75)],
    ),
    "breakfast": dict(
        status="failed", title=None, body=None, request="减脂早餐一周不重样", tags=["减脂早餐", "早餐"],
        created=_at(2, 23, 30), seconds=30, score=None, rounds=[],
    ),
    "outfit": dict(
        status="paused", title="秋冬通勤穿搭", body="一件大衣搭三种内搭。", request="通勤穿搭笔记",
        tags=["穿搭", "通勤", "露营风"], created=_at(4, 8), seconds=None, score=0.65,
        rounds=[_round(1, 0.65, False, 0.6, 0.7, 0.6, 0.7, 0.65)],
    ),
    "gear": dict(
        status="running", title=None, body=None, request="-帮我写一篇露营装备清单", tags=[],
        created=_at(5, 8), seconds=None, score=None, rounds=[],
    ),
    "checklist": dict(
        status="completed", title="Camping_100% checklist", body="露营清单：帐篷、睡袋、防潮垫。",
        request="camping checklist in English", tags=["露营", "OOTD"], created=_at(5, 12), seconds=120,
        score=0.91,
        rounds=[
            _round(1, 0.91, False, 0.95, 0.9, 0.9, 0.9, 0.5),
            _round(2, 0.88, False, 0.9, 0.9, 0.9, 0.9, 0.8),
        ],
    ),
}


USAGE = {"calls": 2, "promptTokens": 800, "completionTokens": 200, "costUsd": 0.001}
TIMINGS = {"writer_agent": {"runs": 2, "totalMs": 1500}, "review_agent": {"runs": 2, "totalMs": 400}}
FAILURE = {"code": "LLM_ERROR", "message": "模型调用失败"}


@dataclass
class Catalog:
    ids: dict[str, int] = field(default_factory=dict)
    assets: dict[str, int] = field(default_factory=dict)
    png: bytes = b""

    def keys(self, items: list[dict[str, Any]]) -> list[str]:
        names = {v: k for k, v in self.ids.items()}
        return [names[item["id"]] for item in items]


def png_bytes(color: tuple[int, int, int], size: tuple[int, int] = (120, 160)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


async def insert_catalog(settings: Settings) -> Catalog:
    """The creatives above plus a cover, a detail image and a failed image for "camping"."""
    engine = create_engine(settings.db_url)
    sessions = session_factory(engine)
    catalog = Catalog(png=png_bytes((230, 120, 60)))
    try:
        async with sessions() as session, session.begin():
            rows = {}
            for key, c in CREATIVES.items():
                completed = c["created"] + timedelta(seconds=c["seconds"]) if c["seconds"] else None
                rows[key] = Creative(
                    thread_id=f"thread-{key}", status=c["status"], request=c["request"], title=c["title"],
                    body=c["body"], tags=c["tags"], score=c["score"], review_rounds=c["rounds"],
                    created_at=c["created"], updated_at=completed or c["created"], completed_at=completed,
                    options={"imageCount": 2}, model="studio/offline", prompt_tokens=1200,
                    completion_tokens=300, cost_usd=0.0015,
                    brief={"topic": "城市露营"} if key == "camping" else None,
                    layout_spec={"cards": 2} if key == "camping" else None,
                    timings=TIMINGS,
                    usage={"writer": USAGE},
                    error=FAILURE if c["status"] == "failed" else None,
                )
                session.add(rows[key])
            await session.flush()
            catalog.ids = {key: row.id for key, row in rows.items()}
        store = AssetStore(settings.assets_dir, sessions)
        camping = catalog.ids["camping"]
        cover = await store.save(catalog.png, mime="image/png", width=120, height=160, role="cover",
                                 provider="offline", prompt="露营封面", creative_id=camping, task_index=1)
        detail = await store.save(png_bytes((40, 90, 200)), mime="image/png", width=120, height=160,
                                  role="detail", provider="offline", creative_id=camping, task_index=2)
        failed = await store.record_failure(role="detail", provider="offline", error="生成超时",
                                            creative_id=camping, task_index=3)
        catalog.assets = {"cover": cover.id, "detail": detail.id, "failed": failed.id}
    finally:
        await engine.dispose()
    return catalog


@pytest.fixture
async def catalog(api: httpx.AsyncClient, seeded_settings: Settings) -> Catalog:
    return await insert_catalog(seeded_settings)  # `api` has migrated the database


async def _list(api: httpx.AsyncClient, catalog: Catalog, **params: Any) -> tuple[list[str], int]:
    response = await api.get("/api/creatives", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    return catalog.keys(body["items"]), body["total"]


# --- list --------------------------------------------------------------------------------------------------


async def test_list_newest_first_with_summary_fields(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get("/api/creatives")
    body = response.json()
    assert body["total"] == 6 and body["limit"] == 50 and body["offset"] == 0
    assert catalog.keys(body["items"]) == ["checklist", "gear", "outfit", "breakfast", "tomato", "camping"]
    camping = body["items"][-1]
    assert camping["title"] == "周末城市露营攻略｜上班族也能轻松出发"
    assert camping["tags"] == ["露营", "周末", "城市露营"]
    assert camping["imageCount"] == 2 and camping["coverUrl"] == f"/api/assets/{catalog.assets['cover']}"
    assert camping["createdAt"] == "2026-06-01T09:00:00+00:00"
    assert camping["durationMs"] == 90_000 and camping["score"] == 0.84
    assert "brief" not in camping and camping["excerpt"].startswith("周五下班")


FILTER_CASES: list[tuple[dict[str, str], list[str]]] = [
    ({"status": "completed"}, ["checklist", "tomato", "camping"]),
    ({"status": "failed,paused"}, ["outfit", "breakfast"]),
    ({"q": "露营"}, ["checklist", "gear", "outfit", "camping"]),  # title, request, tags (露营风), tags
    ({"q": "先炒蛋"}, ["tomato"]),  # body only
    ({"q": "露营 清单"}, ["checklist", "gear"]),  # every word must appear
    ({"q": "100%"}, ["checklist"]),  # LIKE wildcards are literal
    ({"q": "_"}, ["checklist"]),
    ({"q": "ootd"}, ["checklist"]),  # in a tag, any case
    ({"q": "ce"}, []),  # 城 and 风 are stored as \u57ce and \u98ce: the JSON text must not match
    ({"q": "5e02"}, []),
    ({"tag": "露营"}, ["checklist", "camping"]),  # exact: not 露营风 nor 城市露营 alone
    ({"tag": "ootd"}, ["checklist"]),
    ({"tag": "露"}, []),
    ({"from": "2026-06-02", "to": "2026-06-02"}, ["breakfast", "tomato"]),  # 23:30 is still that day
    ({"from": "2026-06-04"}, ["checklist", "gear", "outfit"]),
    ({"to": "2026-06-01"}, ["camping"]),
    ({"minScore": "0.8"}, ["checklist", "camping"]),
    ({"minScore": "0.76", "status": "completed", "q": "露营"}, ["checklist", "camping"]),
    ({"status": "", "q": "  "}, ["checklist", "gear", "outfit", "breakfast", "tomato", "camping"]),
]


async def test_list_filters(api: httpx.AsyncClient, catalog: Catalog) -> None:
    for params, expected in FILTER_CASES:
        keys, total = await _list(api, catalog, **params)
        assert (keys, total) == (expected, len(expected)), params


async def test_repeated_status_params(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get("/api/creatives?status=running&status=paused")
    assert catalog.keys(response.json()["items"]) == ["gear", "outfit"]


SORT_CASES: list[tuple[str, list[str]]] = [
    ("-score", ["checklist", "camping", "tomato", "outfit", "gear", "breakfast"]),  # no score: last
    ("score", ["outfit", "tomato", "camping", "checklist", "breakfast", "gear"]),
    ("created", ["camping", "tomato", "breakfast", "outfit", "gear", "checklist"]),
    ("title", ["checklist", "camping", "tomato", "outfit", "breakfast", "gear"]),  # by code point
]


async def test_sort(api: httpx.AsyncClient, catalog: Catalog) -> None:
    for sort, expected in SORT_CASES:
        keys, _ = await _list(api, catalog, sort=sort)
        assert keys == expected, sort


async def test_limit_offset_and_total(api: httpx.AsyncClient, catalog: Catalog) -> None:
    assert await _list(api, catalog, limit=2, offset=1) == (["gear", "outfit"], 6)
    assert await _list(api, catalog, limit=2, offset=4) == (["tomato", "camping"], 6)
    assert await _list(api, catalog, limit=2, offset=100) == ([], 6)
    assert await _list(api, catalog, status="completed", limit=1, sort="-score") == (["checklist"], 3)


BAD_PARAMS: list[tuple[str, str | None]] = [  # query string, the field the first error names
    ("minScore=abc", "minScore"),
    ("minScore=nan", "minScore"),
    ("minScore=1.5", "minScore"),
    ("limit=0", "limit"),
    ("limit=201", "limit"),
    ("limit=ten", "limit"),
    ("offset=-1", "offset"),
    ("offset=99999999999999999999999", "offset"),
    ("sort=bogus", "sort"),
    ("status=done", "status.0"),
    ("from=2026-13-01", "from"),
    ("to=yesterday", "to"),
    ("from=2026-06-05&to=2026-06-01", None),
    (f"q={'长' * 201}", "q"),
    # dates are exactly YYYY-MM-DD in ASCII digits, paging numbers ASCII digits: nothing else is read as one
    ("from=2026-06-01T00:00", "from"),
    ("to=2026-06-01T00:00:00Z", "to"),
    ("to=2026-06-01T00:00:00.000", "to"),
    ("from=0", "from"),
    ("from=%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96-06-01", "from"),
    ("from=2026-6-1", "from"),
    ("limit=10.0", "limit"),
    ("limit=1_0", "limit"),
    ("limit=%2B5", "limit"),
    ("offset=%C2%B2", "offset"),
    ("offset=1e3", "offset"),
]


async def test_bad_params_are_422_never_500(api: httpx.AsyncClient, catalog: Catalog) -> None:
    for query, name in BAD_PARAMS:
        for path in ("/api/creatives", "/api/creatives/stats", "/api/creatives/export.csv"):
            response = await api.get(f"{path}?{query}")
            assert response.status_code == 422, (path, query, response.text)
            error = response.json()["error"]
            assert error["code"] == "VALIDATION_ERROR" and error["message"].startswith("查询参数不合法")
            assert name is None or error["details"][0]["field"] == name, (query, error)


# --- detail ------------------------------------------------------------------------------------------------


async def test_detail_has_everything(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get(f"/api/creatives/{catalog.ids['camping']}")
    assert response.status_code == 200
    c = response.json()
    assert c["threadId"] == "thread-camping" and c["status"] == "completed"
    assert c["brief"] == {"topic": "城市露营"} and c["layoutSpec"] == {"cards": 2}
    assert [r["round"] for r in c["reviewRounds"]] == [1, 2] and c["chosenRound"] == 2
    assert c["scores"] == {**dict(zip(DIMS, (0.8, 0.9, 0.8, 0.85, 0.85), strict=True)), "overall": 0.84}
    assert c["usage"] == {
        "promptTokens": 1200,
        "completionTokens": 300,
        "totalTokens": 1500,
        "costUsd": 0.0015,
        "byTask": {"writer": USAGE},
    }
    # protocol.md promises the item fields at the top level too
    assert (c["promptTokens"], c["completionTokens"], c["costUsd"]) == (1200, 300, 0.0015)
    assert c["timings"]["writer_agent"] == {"runs": 2, "totalMs": 1500}
    assert c["durationMs"] == 90_000 and c["completedAt"] == "2026-06-01T09:01:30+00:00"
    cover, detail, failed = c["assets"]
    assert cover == {
        "id": catalog.assets["cover"], "taskIndex": 1, "role": "cover", "status": "complete",
        "mime": "image/png", "width": 120, "height": 160, "url": f"/api/assets/{catalog.assets['cover']}",
        "provider": "offline",
        "prompt": "露营封面", "error": None, "createdAt": cover["createdAt"], "supersededAt": None,
        "redrawable": False,  # an offline card, but this creative has no image plan to draw it from
    }
    assert c["assetHistory"] == []
    assert detail["taskIndex"] == 2 and detail["url"] == f"/api/assets/{catalog.assets['detail']}"
    assert failed["status"] == "failed" and failed["url"] is None and failed["error"] == "生成超时"
    assert detail["redrawable"] is False and failed["redrawable"] is False


async def test_detail_chosen_round_is_the_best_one(api: httpx.AsyncClient, catalog: Catalog) -> None:
    c = (await api.get(f"/api/creatives/{catalog.ids['checklist']}")).json()
    assert c["chosenRound"] == 1 and c["scores"]["platformFit"] == 0.5 and c["scores"]["overall"] == 0.91


async def test_detail_of_unfinished_and_failed_runs(api: httpx.AsyncClient, catalog: Catalog) -> None:
    gear = (await api.get(f"/api/creatives/{catalog.ids['gear']}")).json()
    assert gear["title"] is None and gear["scores"] is None and gear["assets"] == []
    assert gear["durationMs"] is None and gear["reviewRounds"] == []
    failed = (await api.get(f"/api/creatives/{catalog.ids['breakfast']}")).json()
    assert failed["error"] == FAILURE


async def test_unknown_ids_are_404(api: httpx.AsyncClient, catalog: Catalog) -> None:
    huge = "9" * 30
    for path in ("/api/creatives/999999", "/api/creatives/0", f"/api/creatives/{huge}", "/api/creatives/abc",
                 "/api/assets/999999", "/api/assets/0", f"/api/assets/{huge}", "/api/assets/x.png"):
        response = await api.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "NOT_FOUND"


# --- stats -------------------------------------------------------------------------------------------------


def _chosen(key: str) -> dict[str, Any] | None:
    rounds, score = CREATIVES[key]["rounds"], CREATIVES[key]["score"]
    return next((r for r in reversed(rounds) if r["overall"] == score), None)


async def test_stats_numbers(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get("/api/creatives/stats")
    assert response.status_code == 200
    s = response.json()
    assert s["total"] == 6 and s["scoredCount"] == 4
    assert s["byStatus"] == {"draft": 0, "running": 1, "paused": 1, "completed": 3, "failed": 1, "aborted": 0}
    chosen = [r for r in map(_chosen, CREATIVES) if r is not None]
    for dim in DIMS:
        expected = statistics.fmean(r["scores"][dim] for r in chosen)
        assert s["scoreAverages"][dim] == pytest.approx(expected, abs=1e-4)
    assert s["scoreAverages"]["overall"] == pytest.approx((0.84 + 0.76 + 0.65 + 0.91) / 4, abs=1e-4)
    distribution = s["scoreDistribution"]
    assert distribution["bucketEdges"] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert distribution["counts"]["overall"] == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert distribution["counts"]["platformFit"] == [0, 0, 0, 0, 0, 1, 1, 1, 1, 0]  # 0.5 .65 .75 .85
    assert all(sum(counts) == 4 for counts in distribution["counts"].values())
    assert s["topTags"][0] == {"tag": "露营", "count": 2}
    assert {t["tag"] for t in s["topTags"]} >= {"城市露营", "OOTD", "露营风", "菜谱"}
    assert s["perDay"] == [
        {"date": "2026-06-01", "count": 1, "completed": 1},
        {"date": "2026-06-02", "count": 2, "completed": 1},
        {"date": "2026-06-03", "count": 0, "completed": 0},
        {"date": "2026-06-04", "count": 1, "completed": 0},
        {"date": "2026-06-05", "count": 2, "completed": 1},
    ]
    assert s["meanRunTimeMs"] == 90_000 and s["medianRunTimeMs"] == 90_000  # 90 s, 60 s, 120 s
    assert s["usage"] == {
        "promptTokens": 7200, "completionTokens": 1800, "costUsd": 0.009, "unknownCostCount": 0
    }


async def test_stats_follow_the_filter(api: httpx.AsyncClient, catalog: Catalog) -> None:
    s = (await api.get("/api/creatives/stats", params={"tag": "露营"})).json()
    assert s["total"] == 2 and s["byStatus"]["completed"] == 2
    assert s["scoreAverages"]["overall"] == pytest.approx((0.84 + 0.91) / 2)
    assert s["meanRunTimeMs"] == 105_000
    empty = (await api.get("/api/creatives/stats", params={"q": "不存在的词"})).json()
    assert empty["total"] == 0 and empty["perDay"] == [] and empty["meanRunTimeMs"] is None
    assert empty["scoreAverages"]["overall"] is None and empty["topTags"] == []


# --- CSV ---------------------------------------------------------------------------------------------------


def parse_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def test_export_csv_matches_the_filter(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get("/api/creatives/export.csv", params={"tag": "露营"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["content-disposition"].startswith('attachment; filename="creatives-')
    assert response.content.startswith(b"\xef\xbb\xbf")  # BOM, for Excel
    text = response.content.decode("utf-8-sig")
    header = text.split("\r\n", 1)[0].split(",")
    assert header[:6] == ["id", "threadId", "status", "title", "tags", "score"] and header[6:11] == list(DIMS)
    rows = parse_csv(text)
    assert [int(r["id"]) for r in rows] == [catalog.ids["checklist"], catalog.ids["camping"]]
    camping = rows[1]
    assert camping["title"] == "周末城市露营攻略｜上班族也能轻松出发"
    assert camping["tags"] == "露营|周末|城市露营"
    assert camping["score"] == "0.84" and camping["infoDensity"] == "0.8" and camping["reviewRounds"] == "2"
    assert camping["imageCount"] == "2" and camping["durationMs"] == "90000"
    assert camping["createdAt"] == "2026-06-01T09:00:00+00:00" and camping["body"].startswith("周五下班")


async def test_export_csv_all_rows_sorted_and_formula_safe(api: httpx.AsyncClient, catalog: Catalog) -> None:
    text = (await api.get("/api/creatives/export.csv?sort=created")).content.decode("utf-8-sig")
    rows = parse_csv(text)
    assert [int(r["id"]) for r in rows] == [catalog.ids[k] for k in CREATIVES]  # no default limit of 50
    gear = rows[4]
    assert gear["request"] == "'-帮我写一篇露营装备清单" and gear["title"] == "" and gear["score"] == ""
    limited_response = await api.get("/api/creatives/export.csv?limit=2&offset=1")
    limited = parse_csv(limited_response.content.decode("utf-8-sig"))
    assert [int(r["id"]) for r in limited] == [catalog.ids["gear"], catalog.ids["outfit"]]


# --- assets ------------------------------------------------------------------------------------------------


async def test_asset_bytes_type_and_cache_headers(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get(f"/api/assets/{catalog.assets['cover']}")
    assert response.status_code == 200
    assert response.content == catalog.png
    assert response.headers["content-type"] == "image/png"
    assert "immutable" in response.headers["cache-control"]
    assert response.headers["x-content-type-options"] == "nosniff"
    etag = response.headers["etag"]
    image = Image.open(io.BytesIO(response.content))
    assert image.size == (120, 160)
    again = await api.get(f"/api/assets/{catalog.assets['cover']}", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    head = await api.head(f"/api/assets/{catalog.assets['detail']}")
    assert head.status_code == 200 and int(head.headers["content-length"]) > 0


async def test_failed_asset_is_404(api: httpx.AsyncClient, catalog: Catalog) -> None:
    response = await api.get(f"/api/assets/{catalog.assets['failed']}")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"


def plant_secret(settings: Settings) -> Path:
    """A file outside the assets dir, and a symlink to it inside."""
    secret = settings.data_dir / "secret.png"
    secret.write_bytes(b"top secret")
    link = settings.assets_dir / "ab" / "link.png"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)
    return secret


async def test_tampered_asset_paths_are_never_served(
    api: httpx.AsyncClient, catalog: Catalog, seeded_settings: Settings
) -> None:
    secret = plant_secret(seeded_settings)
    engine = create_engine(seeded_settings.db_url)
    try:
        async with session_factory(engine)() as session, session.begin():
            rows = [
                ImageAsset(role="detail", provider="x", file_path=path, mime="image/png", width=1, height=1,
                           sha256="0" * 64, status="complete")
                for path in ("../secret.png", str(secret), "ab/link.png", "ab/../../secret.png", ".", "")
            ]
            session.add_all(rows)
            await session.flush()
            ids = [row.id for row in rows]
    finally:
        await engine.dispose()
    for asset_id in ids:
        response = await api.get(f"/api/assets/{asset_id}")
        assert response.status_code == 404, (asset_id, response.content)
        assert b"secret" not in response.content
