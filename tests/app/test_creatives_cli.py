"""`studio creatives` (list, show, stats, export) via the `studio` CLI on a migrated SQLite data dir."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app import migrate
from app.cli.main import cli
from app.settings import Settings
from tests.app.test_creatives_api import Catalog, insert_catalog

runner = CliRunner()


@pytest.fixture
def catalog(settings: Settings) -> Catalog:
    migrate.upgrade(settings.db_url)
    return asyncio.run(insert_catalog(settings))


def studio(settings: Settings, *args: str) -> Result:
    """`studio creatives ARGS --data-dir …` with a wide terminal, so table cells are not folded."""
    return runner.invoke(
        cli, ["creatives", *args, "--data-dir", str(settings.data_dir)], env={"COLUMNS": "220"}
    )


def test_list_table_and_filters(settings: Settings, catalog: Catalog) -> None:
    result = studio(settings, "list")
    assert result.exit_code == 0, result.output
    assert "周末城市露营攻略｜上班族也能轻松出发" in result.output and "番茄炒蛋的家常做法" in result.output
    assert "已完成" in result.output and "待审核" in result.output
    assert "共 6 条，显示第 1–6 条" in result.output

    result = studio(settings, "list", "--status", "completed", "--q", "露营", "--min-score", "0.8")
    assert result.exit_code == 0, result.output
    assert "周末城市露营" in result.output and "Camping_100% checklist" in result.output
    assert "番茄" not in result.output and "共 2 条" in result.output


def test_list_json_paging_and_sort(settings: Settings, catalog: Catalog) -> None:
    result = studio(settings, "list", "--json", "--sort", "-score", "--limit", "2", "--offset", "1")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["total"] == 6 and catalog.keys(body["items"]) == ["camping", "tomato"]
    result = studio(settings, "list", "--json", "-s", "running", "-s", "paused", "--from", "2026-06-04")
    assert catalog.keys(json.loads(result.stdout)["items"]) == ["gear", "outfit"]


@pytest.mark.parametrize(
    ("args", "field"),
    [(["--min-score", "abc"], "minScore"), (["--sort", "bogus"], "sort"), (["--limit", "0"], "limit"),
     (["--status", "done"], "status.0"), (["--from", "2026-02-30"], "from"),
     (["--from", "2026-06-01T00:00"], "from"), (["--to", "0"], "to"), (["--limit", "10.0"], "limit")],
)
def test_bad_options_exit_2(settings: Settings, catalog: Catalog, args: list[str], field: str) -> None:
    result = studio(settings, "list", *args)
    assert result.exit_code == 2, result.output
    assert "查询参数不合法" in result.output and field in result.output
    assert "Traceback" not in result.output


def test_empty_data_dir_is_migrated_and_empty(tmp_path: Path) -> None:
    (tmp_path / "fresh").mkdir()
    result = runner.invoke(cli, ["creatives", "list", "--data-dir", str(tmp_path / "fresh")])
    assert result.exit_code == 0, result.output
    assert "没有符合条件的创作记录" in result.output


def test_a_missing_data_dir_is_not_created(tmp_path: Path) -> None:
    result = runner.invoke(cli, ["creatives", "list", "--data-dir", str(tmp_path / "missing")])
    assert result.exit_code == 1, result.output
    assert "不存在" in result.output and "make run" in result.output
    assert not (tmp_path / "missing").exists()


def test_show_readable_and_json(settings: Settings, catalog: Catalog) -> None:
    creative_id = catalog.ids["camping"]
    result = studio(settings, "show", str(creative_id))
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"#{creative_id} 周末城市露营攻略" in out and "帐篷租金 80 元一晚" in out
    assert "审核轮次" in out and "2 ★" in out and "0.84" in out
    assert "创作专家" in out and "质量审核员" in out  # per-agent timings with the agents' names
    assert f"/api/assets/{catalog.assets['cover']}" in out and "生成超时" in out
    assert "1200 + 300 = 1500" in out

    detail = json.loads(studio(settings, "show", str(creative_id), "--json").stdout)
    assert detail["chosenRound"] == 2 and detail["tags"] == ["露营", "周末", "城市露营"]
    assert [a["role"] for a in detail["assets"]] == ["cover", "detail", "detail"]

    failed = studio(settings, "show", str(catalog.ids["breakfast"]))
    assert failed.exit_code == 0 and "模型调用失败" in failed.output and "（无标题）" in failed.output


def test_show_unknown_id_exits_1(settings: Settings, catalog: Catalog) -> None:
    result = studio(settings, "show", "424242")
    assert result.exit_code == 1 and "找不到创作 #424242" in result.output


def test_stats(settings: Settings, catalog: Catalog) -> None:
    result = studio(settings, "stats")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "共 6 条创作，其中 4 条有评分" in out and "1.5 分钟" in out  # mean run time 90 s
    assert "热门标签：露营(2)" in out and "2026-06-03" in out and "信息密度" in out

    stats = json.loads(studio(settings, "stats", "--json", "--tag", "露营").stdout)
    assert stats["total"] == 2 and stats["meanRunTimeMs"] == 105_000


def test_export_to_stdout_and_file(settings: Settings, catalog: Catalog, tmp_path: Path) -> None:
    result = studio(settings, "export", "--tag", "露营")
    assert result.exit_code == 0, result.output
    assert not result.stdout.startswith("\ufeff")  # no BOM on a pipe by default
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [int(r["id"]) for r in rows] == [catalog.ids["checklist"], catalog.ids["camping"]]
    assert rows[1]["tags"] == "露营|周末|城市露营"

    target = tmp_path / "out" / "creatives.csv"
    result = studio(settings, "export", "--status", "completed", "--sort", "created", "--output", str(target))
    assert result.exit_code == 0, result.output
    assert "已导出 3 条创作" in result.output
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # BOM for Excel
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [r["title"] for r in rows] == [
        "周末城市露营攻略｜上班族也能轻松出发", "番茄炒蛋的家常做法", "Camping_100% checklist"
    ]


def test_show_names_every_value_in_chinese(settings: Settings, catalog: Catalog) -> None:
    """Content type, theme, layout preference, image roles, model and agents: labels, not identifiers."""
    import re

    from sqlalchemy import update

    from tools.database import Creative, create_engine
    from tools.labels import TABLES

    async def describe(creative_id: int) -> None:
        engine = create_engine(settings.db_url)
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    update(Creative).where(Creative.id == creative_id).values(
                        brief={"topic": "城市露营", "contentType": "review", "theme": "outdoor"},
                        options={"imageCount": 2, "layoutPreference": "visual-first"},
                    )
                )
        finally:
            await engine.dispose()

    creative_id = catalog.ids["camping"]
    asyncio.run(describe(creative_id))
    out = studio(settings, "show", str(creative_id)).output
    assert "类型：测评" in out and "题材：户外" in out and "版式：图片优先" in out
    assert "模型：内置离线模型" in out
    assert re.search(r"│\s*封面\s*│", out) and re.search(r"│\s*内页\s*│", out)
    raw = {key for table in TABLES.values() for key in table}
    words = set(re.findall(r"[A-Za-z][A-Za-z_\-]*", out))
    assert not words & raw, words & raw
