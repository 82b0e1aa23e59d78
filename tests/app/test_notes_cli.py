"""`studio notes` (the `notes_cli` typer app) on a real LanceDB store in tmp_path, and the shipped data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app.cli.notes import SAMPLE_DATA_DIR, notes_cli, seed_sample_data
from app.settings import Settings
from tools.knowledge import KnowledgeStore

runner = CliRunner()

NOTES = [
    {
        "id": "c1",
        "title": "新手露营装备清单",
        "desc": "帐篷睡袋防潮垫",
        "tags": ["露营", "装备"],
        "likes": 900,
        "collects": 500,
        "comments": 40,
        "author": "a",
        "published_at": "2026-06-01",
        "theme": "outdoor",
        "url": "",
    },
    {
        "id": "c2",
        "title": "番茄炒蛋的家常做法",
        "desc": "先炒蛋再炒番茄",
        "tags": ["家常菜", "菜谱"],
        "likes": 300,
        "collects": 100,
        "comments": 10,
        "author": "b",
        "published_at": "2026-06-02",
        "theme": "food",
        "url": "",
    },
    {
        "id": "c3",
        "title": "减脂早餐一周不重样",
        "desc": "燕麦鸡蛋酸奶",
        "tags": ["减脂早餐"],
        "likes": 700,
        "collects": 600,
        "comments": 30,
        "author": "c",
        "published_at": "2026-06-03",
        "theme": "food",
        "url": "",
    },
]
STYLES = [
    {
        "name": "奶油风",
        "keywords": ["奶油色", "温柔"],
        "prompt": "soft creamy pastel tones",
        "palette": ["#F5E6D3", "#FFF8F0"],
        "description": "低饱和的奶油色调，温柔治愈",
    },
    {
        "name": "赛博朋克",
        "keywords": ["霓虹", "夜景"],
        "prompt": "cyberpunk neon city",
        "palette": ["#FF00A0", "#00F0FF"],
        "description": "霓虹灯光与暗色城市夜景",
    },
]


def invoke(data_dir: Path, *args: str) -> Result:
    return runner.invoke(notes_cli, [*args, "--data-dir", str(data_dir)], env={"COLUMNS": "200"})


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def store_counts(data_dir: Path) -> tuple[int, int]:
    async def count() -> tuple[int, int]:
        async with KnowledgeStore(data_dir / "lancedb") as store:
            return await store.count_notes(), await store.count_styles()

    return asyncio.run(count())


def test_import_search_styles_and_stats(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = invoke(data, "import", str(write_jsonl(tmp_path / "notes.jsonl", NOTES)))
    assert result.exit_code == 0, result.output
    assert "已导入 3 条笔记" in result.output

    result = invoke(data, "import", str(write_jsonl(tmp_path / "styles.jsonl", STYLES)), "--styles")
    assert result.exit_code == 0, result.output
    assert "已导入 2 个风格" in result.output

    result = invoke(data, "search", "露营装备", "--limit", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first_row = next(
        line for line in lines if line.strip().startswith("│ 1") or line.lstrip("│ ").startswith("1 ")
    )
    assert "新手露营装备清单" in first_row and "c1" in first_row

    result = invoke(data, "search", "减脂早餐", "--theme", "food", "--limit", "1")
    assert "减脂早餐一周不重样" in result.output and "番茄" not in result.output

    result = invoke(data, "styles", "奶油风")
    assert result.exit_code == 0, result.output
    assert "奶油风" in result.output and "✓" in result.output and "#F5E6D3" in result.output
    assert "低于阈值" in result.output  # the other style is listed but does not match

    result = invoke(data, "stats")
    assert result.exit_code == 0, result.output
    assert "美食" in result.output and "户外" in result.output and "风格库：2 个风格" in result.output
    assert "food" not in result.output and "outdoor" not in result.output  # themes by their Chinese names
    assert "2026-06-01 至 2026-06-03" in result.output
    assert "向量索引：无（精确检索；笔记达到 20000 条时导入会自动建立）" in result.output


def test_reindex_builds_the_vector_index_and_stats_shows_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = invoke(data, "reindex")
    assert result.exit_code == 1 and "不存在" in result.output and not data.exists()
    data.mkdir()
    result = invoke(data, "reindex")
    assert result.exit_code == 1 and "知识库里还没有笔记" in result.output

    invoke(data, "import", str(write_jsonl(tmp_path / "notes.jsonl", NOTES)))
    result = invoke(data, "reindex")
    assert result.exit_code == 0, result.output
    assert "已建立向量索引：IvfHnswSq，3 条笔记" in result.output

    result = invoke(data, "stats")
    assert "向量索引：IvfHnswSq，已索引 3 条，未索引 0 条" in result.output
    result = invoke(data, "search", "露营装备", "--limit", "1")  # searches go through the index now
    assert result.exit_code == 0 and "新手露营装备清单" in result.output


def test_import_csv(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(
        "id,title,desc,tags,likes,collects,comments,author,published_at,theme,url\n"
        "k1,露营灯怎么选,亮度和续航,露营|装备,10,2,1,a,2026-06-01,outdoor,\n"
        'k2,燕麦早餐,隔夜燕麦,"[""早餐"", ""减脂""]",5,1,0,b,2026-06-02,food,\n',
        encoding="utf-8",
    )
    result = invoke(tmp_path / "data", "import", str(path))
    assert result.exit_code == 0, result.output
    assert "已导入 2 条笔记" in result.output
    assert store_counts(tmp_path / "data") == (2, 0)


def test_import_with_bad_rows_lists_them_and_imports_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rows = [
        json.dumps(NOTES[0], ensure_ascii=False),
        json.dumps({**NOTES[1], "likes": "很多"}, ensure_ascii=False),
        json.dumps(NOTES[2], ensure_ascii=False),
        "{broken",
        json.dumps({**NOTES[2], "id": "c4", "theme": ""}),
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = invoke(data, "import", str(path))
    assert result.exit_code == 1
    assert "3 行无效，未导入任何内容" in result.output
    table_rows = [line for line in result.output.splitlines() if "│" in line and "行号" not in line]
    assert [line.split("│")[1].strip() for line in table_rows] == ["2", "4", "5"]
    assert "likes" in table_rows[0] and "invalid JSON" in table_rows[1] and "theme" in table_rows[2]
    assert store_counts(data) == (0, 0)


def test_import_unknown_format_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "notes.xlsx"
    path.write_text("x", encoding="utf-8")
    result = invoke(tmp_path / "data", "import", str(path))
    assert result.exit_code == 1 and "不支持的文件格式" in result.output
    result = invoke(
        tmp_path / "data", "import", str(write_jsonl(tmp_path / "n.txt", NOTES)), "--format", "jsonl"
    )
    assert result.exit_code == 0 and "已导入 3 条笔记" in result.output


def test_empty_store(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    result = invoke(tmp_path / "data", "search", "露营")
    assert result.exit_code == 0 and "studio notes seed" in result.output
    result = invoke(tmp_path / "data", "styles", "奶油风")
    assert result.exit_code == 0 and "风格库为空" in result.output
    result = invoke(tmp_path / "data", "stats")
    assert result.exit_code == 0 and "风格库：0 个风格" in result.output


def shipped_counts() -> tuple[int, int, set[str]]:
    notes = [
        line
        for path in sorted((SAMPLE_DATA_DIR / "notes").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    styles = [
        line
        for line in (SAMPLE_DATA_DIR / "styles.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    themes = {json.loads(line)["theme"] for line in notes}
    return len(notes), len(styles), themes


def test_seed_and_search_the_shipped_sample_corpus(tmp_path: Path) -> None:
    """Runs on the real data/ files; missing sample files fail this test (they are part of the product)."""
    n_notes, n_styles, themes = shipped_counts()
    assert n_notes > 0 and n_styles > 0
    data = tmp_path / "data"
    result = invoke(data, "seed")
    assert result.exit_code == 0, result.output
    assert f"已加载示例数据：{n_notes} 条笔记、{n_styles} 个风格" in result.output
    assert store_counts(data) == (n_notes, n_styles)
    again = invoke(data, "seed")
    assert again.exit_code == 0 and "跳过示例数据" in again.output

    async def check() -> None:
        async with KnowledgeStore(data / "lancedb") as store:
            assert set(await store.theme_counts()) == themes
            camping = await store.search_notes("露营装备", limit=5)
            assert camping[0].note.theme == "outdoor"
            assert sum(hit.note.theme == "outdoor" for hit in camping) >= 4
            assert all(hit.note.theme != "food" for hit in camping)
            breakfast = await store.search_notes("减脂早餐", limit=5)
            assert {hit.note.theme for hit in breakfast} <= {"food", "fitness"}
            styles = await store.search_styles("奶油风", limit=3)
            assert styles and styles[0].similarity >= 0.0

    asyncio.run(check())


async def test_seed_sample_data_logs_and_skips_when_not_empty(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    settings.ensure_dirs()
    async with KnowledgeStore(settings.store_dir) as store:
        from tools.knowledge import Note, Style

        await store.upsert_notes([Note.model_validate(NOTES[0])])
        await store.upsert_styles([Style.model_validate(STYLES[0])])
    messages: list[str] = []
    await seed_sample_data(settings, log=messages.append)
    assert messages == ["知识库已有 1 条笔记、1 个风格，跳过示例数据"]


@pytest.mark.parametrize("command", [["--help"], ["import", "--help"], ["seed", "--help"]])
def test_help(command: list[str]) -> None:
    result = runner.invoke(notes_cli, command)
    assert result.exit_code == 0


async def test_seed_sample_data_without_sample_files_logs_instead_of_failing(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    settings.ensure_dirs()
    messages: list[str] = []
    await seed_sample_data(settings, log=messages.append, data_dir=tmp_path / "nowhere")
    assert len(messages) == 1 and messages[0].startswith("未找到示例数据") and "跳过示例数据" in messages[0]


async def test_seed_sample_data_loads_a_sample_directory(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    (sample / "notes").mkdir(parents=True)
    write_jsonl(sample / "notes" / "outdoor.jsonl", NOTES[:1])
    write_jsonl(sample / "notes" / "food.jsonl", NOTES[1:])
    write_jsonl(sample / "styles.jsonl", STYLES)
    settings = Settings(data_dir=tmp_path / "data")
    settings.ensure_dirs()
    messages: list[str] = []
    await seed_sample_data(settings, log=messages.append, data_dir=sample)
    assert messages[0].startswith("已加载示例数据：3 条笔记、2 个风格（库中现有 3 条笔记、2 个风格")
    await seed_sample_data(settings, log=messages.append, data_dir=sample, force=True)
    assert messages[1].startswith("已加载示例数据：3 条笔记、2 个风格（库中现有 3 条笔记")
