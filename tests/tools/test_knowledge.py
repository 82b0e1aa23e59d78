"""KnowledgeStore over a real LanceDB directory, and the import-file parsers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path

import pytest

from tools.errors import ImportRowsError, KnowledgeError
from tools.knowledge import (
    KnowledgeStore,
    Note,
    Style,
    VectorIndex,
    parse_notes_file,
    parse_styles_file,
    split_list_cell,
)


def note(id: str, theme: str, title: str, desc: str, tags: list[str], likes: int = 100, day: int = 1) -> Note:
    return Note(
        id=id,
        title=title,
        desc=desc,
        tags=tags,
        likes=likes,
        collects=likes // 2,
        comments=likes // 10,
        author="测试作者",
        published_at=date(2026, 6, day),
        theme=theme,
        url=f"https://notes.example.com/{id}",
    )


NOTES = [
    note(
        "out-1",
        "outdoor",
        "新手露营装备清单｜10件必备",
        "帐篷、睡袋、防潮垫、营地灯，第一次露营照着买不踩坑。",
        ["露营", "露营装备", "新手"],
        900,
        3,
    ),
    note(
        "out-2",
        "outdoor",
        "轻量化徒步背包怎么选",
        "背负系统、容量和重量，三天两夜徒步的装备思路。",
        ["徒步", "户外装备", "背包"],
        400,
        5,
    ),
    note(
        "out-3",
        "outdoor",
        "周末带娃营地露营，帐篷怎么搭",
        "营地选址、搭帐篷顺序和夜间保暖，亲子露营经验。",
        ["露营", "亲子露营", "帐篷"],
        300,
        7,
    ),
    note(
        "food-1",
        "food",
        "减脂早餐一周不重样",
        "燕麦杯、鸡蛋三明治、希腊酸奶碗，每份都在300千卡以内。",
        ["减脂早餐", "减脂餐", "早餐"],
        1200,
        9,
    ),
    note(
        "food-2",
        "food",
        "番茄炒蛋的家常做法",
        "先炒蛋再炒番茄，加一勺糖提鲜，下饭神器。",
        ["家常菜", "番茄炒蛋", "菜谱"],
        800,
        11,
    ),
    note(
        "food-3",
        "food",
        "红烧肉怎么做不腻",
        "五花肉焯水后小火慢炖一小时，冰糖炒色。",
        ["红烧肉", "菜谱", "家常菜"],
        700,
        13,
    ),
    note(
        "food-4",
        "food",
        "烤箱版戚风蛋糕配方",
        "蛋白打发到硬性发泡，150度烤50分钟。",
        ["烘焙", "戚风蛋糕", "甜品"],
        500,
        15,
    ),
    note(
        "fit-1",
        "fitness",
        "减脂期一日三餐怎么吃",
        "早餐高蛋白，晚餐少碳水，配合力量训练掉秤更稳。",
        ["减脂", "健身餐", "饮食"],
        1000,
        17,
    ),
    note(
        "fit-2",
        "fitness",
        "在家15分钟燃脂训练",
        "开合跳、波比跳、高抬腿，每组40秒。",
        ["燃脂", "居家健身", "HIIT"],
        600,
        19,
    ),
    note(
        "trav-1",
        "travel",
        "上海city walk半日路线",
        "武康路到安福路，老洋房和咖啡店。",
        ["citywalk", "上海", "周末去哪儿"],
        650,
        21,
    ),
    note(
        "pets-1",
        "pets",
        "猫咪驱虫时间表",
        "体内驱虫每三个月一次，体外每月一次。",
        ["养猫", "驱虫", "宠物健康"],
        450,
        23,
    ),
    note(
        "home-1",
        "home",
        "小户型客厅收纳技巧",
        "墙面搁板和多功能茶几，出租屋也能整洁。",
        ["收纳", "小户型", "家居"],
        550,
        25,
    ),
]

STYLES = [
    Style(
        name="奶油风",
        keywords=["奶油色", "温柔", "治愈"],
        prompt="soft creamy pastel tones, warm diffused light",
        palette=["#F5E6D3", "#E8D5C4", "#FFF8F0"],
        description="低饱和的奶油色调，柔和光线，温柔治愈的居家氛围",
    ),
    Style(
        name="赛博朋克",
        keywords=["霓虹", "未来感", "夜景"],
        prompt="cyberpunk neon city at night, magenta and cyan",
        palette=["#FF00A0", "#00F0FF", "#120024"],
        description="霓虹灯光与暗色城市夜景，强烈的未来科技感",
    ),
    Style(
        name="极简黑白",
        keywords=["极简", "黑白", "留白"],
        prompt="minimalist black and white, negative space",
        palette=["#000000", "#FFFFFF", "#888888"],
        description="大面积留白的黑白极简排版，克制高级",
    ),
    Style(
        name="手绘插画",
        keywords=["插画", "手绘", "可爱"],
        prompt="hand drawn illustration, cute doodles",
        palette=["#FFB5A7", "#FCD5CE", "#B5E2FA"],
        description="手绘涂鸦风插画，可爱活泼，适合教程和清单",
    ),
]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One embedded store per module (embedding is the slow part); tests open their own handle on it."""
    path = tmp_path_factory.mktemp("store")

    async def build() -> None:
        async with KnowledgeStore(path) as store:
            await store.upsert_notes(NOTES)
            await store.upsert_styles(STYLES)

    asyncio.run(build())
    yield path


@pytest.fixture
async def store(store_dir: Path) -> AsyncIterator[KnowledgeStore]:
    opened = await KnowledgeStore.open(store_dir)
    try:
        yield opened
    finally:
        await opened.close()


# --- search ----------------------------------------------------------------------------------------------


async def test_counts(store: KnowledgeStore) -> None:
    assert await store.count_notes() == len(NOTES)
    assert await store.count_notes("food") == 4
    assert await store.count_styles() == len(STYLES)
    counts = await store.theme_counts()
    assert counts["food"] == 4 and counts["outdoor"] == 3 and sum(counts.values()) == len(NOTES)
    assert next(iter(counts)) == "food"  # largest first


async def test_camping_query_finds_camping_notes_not_recipes(store: KnowledgeStore) -> None:
    hits = await store.search_notes("露营装备", limit=3)
    assert [hit.note.theme for hit in hits] == ["outdoor"] * 3
    assert hits[0].note.id == "out-1"
    assert hits[0].keyword_score is not None
    relevant = [
        hit for hit in await store.search_notes("露营装备", limit=len(NOTES)) if hit.similarity >= 0.3
    ]
    assert relevant and all(hit.note.theme == "outdoor" for hit in relevant)


async def test_fat_loss_breakfast_finds_food_and_fitness(store: KnowledgeStore) -> None:
    hits = await store.search_notes("减脂早餐", limit=3)
    assert hits[0].note.id == "food-1"
    assert {hit.note.theme for hit in hits} <= {"food", "fitness"}
    assert "fit-1" in {hit.note.id for hit in hits}


async def test_hits_are_ranked_and_scored(store: KnowledgeStore) -> None:
    hits = await store.search_notes("猫咪驱虫", limit=5)
    assert hits[0].note.id == "pets-1"
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert all(0.0 <= hit.similarity <= 1.0 for hit in hits)
    assert hits[0].similarity > max(hit.similarity for hit in hits[1:])


async def test_theme_filter_applies_before_ranking(store: KnowledgeStore) -> None:
    hits = await store.search_notes("减脂", limit=5, theme="fitness")
    assert {hit.note.theme for hit in hits} == {"fitness"}
    assert hits[0].note.id == "fit-1"
    assert await store.search_notes("露营", theme="no-such-theme") == []


async def test_empty_query_finds_nothing(store: KnowledgeStore) -> None:
    assert await store.search_notes("   ") == []
    assert await store.search_styles("") == []


async def test_all_notes_scan_and_date_range(store: KnowledgeStore) -> None:
    assert {n.id for n in await store.all_notes("outdoor")} == {"out-1", "out-2", "out-3"}
    june = await store.all_notes(since=date(2026, 6, 10), until=date(2026, 6, 20))
    assert {n.id for n in june} == {"food-2", "food-3", "food-4", "fit-1", "fit-2"}
    assert await store.date_range() == (date(2026, 6, 3), date(2026, 6, 25))
    assert await store.date_range("pets") == (date(2026, 6, 23), date(2026, 6, 23))
    first = next(n for n in await store.all_notes() if n.id == "out-1")
    assert first == NOTES[0]


# --- styles ----------------------------------------------------------------------------------------------


async def test_style_search_by_name_and_paraphrase_passes_threshold(store: KnowledgeStore) -> None:
    exact = await store.search_styles("奶油风")
    assert exact[0].style.name == "奶油风" and exact[0].mentioned
    assert exact[0].similarity >= 0.6
    paraphrase = await store.search_styles("温柔的奶油色调")
    assert paraphrase[0].style.name == "奶油风" and not paraphrase[0].mentioned
    assert paraphrase[0].similarity >= 0.6 and paraphrase[0].matches(0.6)
    assert all(not hit.matches(0.6) for hit in paraphrase[1:])


async def test_style_search_unrelated_request_stays_under_threshold(store: KnowledgeStore) -> None:
    hits = await store.search_styles("量子力学论文", limit=4)
    assert len(hits) == 4
    assert all(hit.similarity < 0.6 and not hit.matches(0.6) for hit in hits)
    assert [hit.similarity for hit in hits] == sorted((hit.similarity for hit in hits), reverse=True)


async def test_style_named_in_a_long_request_comes_first(store: KnowledgeStore) -> None:
    hits = await store.search_styles("帮我写一篇减脂早餐的笔记，封面要赛博朋克风格", limit=1)
    assert hits[0].style.name == "赛博朋克" and hits[0].mentioned and hits[0].matches(0.6)


# --- writing ---------------------------------------------------------------------------------------------


async def test_upsert_merges_by_key_and_keeps_fts_current(tmp_path: Path) -> None:
    async with KnowledgeStore(tmp_path / "store") as store:
        assert await store.count_notes() == 0 and await store.search_notes("露营") == []
        assert await store.upsert_notes(NOTES[:2]) == 2
        changed = NOTES[0].model_copy(update={"title": "冬季露营保暖攻略", "likes": 5})
        await store.upsert_notes([changed, NOTES[4]])
        assert await store.count_notes() == 3
        hits = await store.search_notes("保暖攻略", limit=1)
        assert hits[0].note.id == "out-1" and hits[0].note.likes == 5 and hits[0].keyword_score is not None
        await store.upsert_styles(STYLES[:1])
        await store.upsert_styles([STYLES[0].model_copy(update={"prompt": "cream"}), STYLES[1]])
        assert sorted(s.name for s in await store.all_styles()) == ["奶油风", "赛博朋克"]
        assert {s.name: s.prompt for s in await store.all_styles()}["奶油风"] == "cream"
    # reopening sees the same data
    async with KnowledgeStore(tmp_path / "store") as store:
        assert await store.count_notes() == 3


def copies(count: int, start: int = 0) -> list[Note]:
    """`count` distinct notes made from NOTES (the same themes and words, new ids and titles)."""
    made = []
    for i in range(start, start + count):
        base = NOTES[i % len(NOTES)]
        made.append(base.model_copy(update={"id": f"{base.id}-{i}", "title": f"{base.title}（{i}）"}))
    return made


async def test_vector_index_is_built_at_the_threshold_kept_current_and_rebuilt_when_doubled(
    tmp_path: Path,
) -> None:
    async with KnowledgeStore(tmp_path / "store", vector_index_from=100) as store:
        await store.upsert_notes(copies(80))
        assert await store.vector_index() is None  # exact search below the threshold
        await store.upsert_notes(copies(40, start=80))
        built = await store.vector_index()
        assert built is not None and built.kind == "IvfHnswSq"
        assert (built.indexed_rows, built.unindexed_rows) == (120, 0)

        await store.upsert_notes(copies(10, start=120))  # added to the index, not rebuilt
        assert await store.vector_index() == VectorIndex("IvfHnswSq", 130, 0)
        await store.upsert_notes(copies(140, start=130))  # doubles the notes: rebuilt for 270
        assert await store.vector_index() == VectorIndex("IvfHnswSq", 270, 0)

        hits = await store.search_notes("新手露营装备清单", limit=5)
        assert hits[0].note.title.startswith("新手露营装备清单")
        assert {hit.note.theme for hit in hits} == {"outdoor"}
        themed = await store.search_notes("早餐", limit=5, theme="food")
        assert themed and {hit.note.theme for hit in themed} == {"food"}


async def test_closed_store_raises_knowledge_error(tmp_path: Path) -> None:
    store = KnowledgeStore(tmp_path)
    with pytest.raises(KnowledgeError):
        await store.count_notes()


# --- import files ----------------------------------------------------------------------------------------

GOOD = {
    "id": "n1",
    "title": "标题",
    "desc": "正文",
    "tags": ["#露营", "露营", " 装备 "],
    "likes": 1,
    "collects": 2,
    "comments": 3,
    "author": "a",
    "published_at": "2026-06-01",
    "theme": "outdoor",
    "url": "https://notes.example.com/n1",
}


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_parse_jsonl_normalises_tags(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "n.jsonl", [json.dumps(GOOD, ensure_ascii=False), "", json.dumps({**GOOD, "id": "n2"})]
    )
    notes = parse_notes_file(path)
    assert [n.id for n in notes] == ["n1", "n2"]
    assert notes[0].tags == ["露营", "装备"]
    assert notes[0].engagement == 6


def test_parse_jsonl_reports_every_bad_row_with_its_line(tmp_path: Path) -> None:
    lines = [
        json.dumps(GOOD),  # 1 ok
        "",  # 2 blank, skipped
        "{not json",  # 3
        json.dumps({**GOOD, "id": "n3", "title": ""}),  # 4 empty title
        json.dumps({**GOOD, "id": "n4", "likes": -1}),  # 5 negative likes
        json.dumps({**GOOD, "id": "n5", "published_at": "昨天"}),  # 6 bad date
        json.dumps({**GOOD}),  # 7 duplicate id
        json.dumps(["a", "list"]),  # 8 not an object
        json.dumps({**GOOD, "id": "n6"}),  # 9 ok
    ]
    with pytest.raises(ImportRowsError) as info:
        parse_notes_file(write_jsonl(tmp_path / "bad.jsonl", lines))
    rows = info.value.rows
    assert [row["line"] for row in rows] == [3, 4, 5, 6, 7, 8]
    assert "invalid JSON" in rows[0]["error"]
    assert rows[1]["error"].startswith("title:")
    assert rows[2]["error"].startswith("likes:")
    assert rows[3]["error"].startswith("published_at:")
    assert "duplicate id 'n1' (first on line 1)" in rows[4]["error"]
    assert rows[5]["error"] == "not a JSON object"
    assert info.value.details == rows and info.value.code == "IMPORT_BAD_ROWS"


CSV_HEADER = "id,title,desc,tags,likes,collects,comments,author,published_at,theme,url\n"


def test_parse_csv_with_every_tag_syntax(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(
        "\ufeff"
        + CSV_HEADER
        + 'c1,露营清单,"多行\n正文",露营|装备,10,5,1,a,2026-06-01,outdoor,\n'
        + 'c2,早餐,,"减脂,早餐",,,,,2026-06-02,food,\n'
        + 'c3,猫,驱虫,"[""养猫"", ""驱虫""]",3,0,0,b,2026-06-03,pets,https://x.example/c3\n',
        encoding="utf-8",
    )
    notes = parse_notes_file(path)
    assert [n.tags for n in notes] == [["露营", "装备"], ["减脂", "早餐"], ["养猫", "驱虫"]]
    assert notes[0].desc == "多行\n正文"
    assert (notes[1].likes, notes[1].desc, notes[1].url) == (0, "", "")
    assert split_list_cell("a，b | c") == ["a", "b ", " c"]


def test_parse_csv_bad_rows_use_physical_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(
        CSV_HEADER
        + 'c1,好,"跨\n两行",a,1,1,1,a,2026-06-01,outdoor,\n'  # lines 2-3 ok
        + "c2,,正文,a,1,1,1,a,2026-06-01,outdoor,\n"  # line 4: empty title -> missing
        + "c3,标题,正文,a,many,1,1,a,2026-06-01,outdoor,\n"  # line 5: likes not an int
        + 'c4,标题,正文,"[1, 2]",1,1,1,a,2026-06-01,outdoor,\n'  # line 6: tags not strings
        + "c5,标题,正文,a,1,1,1,a,2026-06-01,outdoor,,extra\n",  # line 7: too many cells
        encoding="utf-8",
    )
    with pytest.raises(ImportRowsError) as info:
        parse_notes_file(path)
    assert [(row["line"], row["error"].split(":")[0]) for row in info.value.rows] == [
        (4, "title"),
        (5, "likes"),
        (6, "tags"),
        (7, "more cells than header columns"),
    ]


def test_parse_rejects_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(KnowledgeError) as info:
        parse_notes_file(path)
    assert info.value.code == "IMPORT_BAD_FORMAT"
    assert parse_notes_file(write_jsonl(tmp_path / "n.txt", [json.dumps(GOOD)]), fmt="jsonl")[0].id == "n1"


def test_parse_styles_jsonl_and_csv(tmp_path: Path) -> None:
    style = {
        "name": "奶油风",
        "keywords": ["奶油"],
        "prompt": "cream",
        "palette": ["#FFFFFF"],
        "description": "d",
    }
    lines = [json.dumps(style, ensure_ascii=False), json.dumps({**style, "name": "x", "palette": ["white"]})]
    with pytest.raises(ImportRowsError) as info:
        parse_styles_file(write_jsonl(tmp_path / "s.jsonl", lines))
    assert info.value.rows[0]["line"] == 2 and info.value.rows[0]["error"].startswith("palette.0:")
    csv_path = tmp_path / "s.csv"
    csv_path.write_text(
        "name,keywords,prompt,palette,description\n奶油风,奶油|温柔,cream,#F5E6D3|#FFF8F0,柔和\n",
        encoding="utf-8",
    )
    [parsed] = parse_styles_file(csv_path)
    assert parsed.keywords == ["奶油", "温柔"] and parsed.palette == ["#F5E6D3", "#FFF8F0"]


def test_parse_jsonl_keeps_unicode_line_separators_and_crlf(tmp_path: Path) -> None:
    row = {**GOOD, "desc": "第一段\u2028第二段\x85第三段"}
    path = tmp_path / "n.jsonl"
    path.write_bytes((json.dumps(row, ensure_ascii=False) + "\r\n" + "{bad\r\n").encode())
    with pytest.raises(ImportRowsError) as info:
        parse_notes_file(path)
    assert [r["line"] for r in info.value.rows] == [2]
    path.write_bytes((json.dumps(row, ensure_ascii=False) + "\r\n").encode())
    assert parse_notes_file(path)[0].desc == "第一段\u2028第二段\x85第三段"
