"""`studio revise`, `studio versions` and `studio export` on real runs (the real graph, SQLite, LanceDB
with the sample corpus, the offline model and renderer): a revision of a finished thread makes version 2,
the list shows every version, the package of each version is a valid zip of its own content; errors are
one Chinese line and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from tests.app.test_run_cli import data_dir, lines, seeded, studio  # noqa: F401  (fixtures)

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


def finished_run(data_dir: Path) -> dict[str, Any]:  # noqa: F811
    result = studio(data_dir, "run", REQUEST, "--images", "2", "--no-hitl", "--json")
    assert result.exit_code == 0, result.output
    final = lines(result.stdout)[-1]
    assert final["type"] == "result" and final["status"] == "completed", final
    return final


def assert_clean_failure(result: Any, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    assert text in result.output, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_revise_makes_version_2_which_versions_lists_and_export_packages(
    data_dir: Path, tmp_path: Path  # noqa: F811
) -> None:
    first = finished_run(data_dir)
    thread_id, creative_id = first["threadId"], first["creativeId"]

    revised = studio(data_dir, "revise", thread_id, "标题里加上「新手必看」", "--based-on", "1")
    assert revised.exit_code == 0, revised.output
    assert "修订：修改文案" in revised.output and "已生成第 2 版" in revised.output
    assert f"studio export {creative_id}" in revised.output
    as_json = studio(data_dir, "revise", thread_id, "正文短一点", "--no-hitl", "--json")
    assert as_json.exit_code == 0, as_json.output
    result = lines(as_json.stdout)[-1]
    assert (result["status"], result["version"], result["creativeId"]) == ("completed", 3, creative_id)

    table = studio(data_dir, "versions", str(creative_id))
    assert table.exit_code == 0, table.output
    assert "第 3 版" in table.output and table.output.count("创作运行") == 3 and "3 ★" in table.output
    listed = json.loads(studio(data_dir, "versions", str(creative_id), "--json").stdout)
    assert listed["current"] == 3 and [v["number"] for v in listed["items"]] == [1, 2, 3]
    assert [v["sourceLabel"] for v in listed["items"]] == ["创作运行"] * 3
    titles = [v["title"] for v in listed["items"]]
    assert titles[0] == first["title"] and "新手必看" in titles[1]

    out = tmp_path / "exports"
    out.mkdir()
    written = studio(data_dir, "export", str(creative_id), "-o", str(out))
    assert written.exit_code == 0, written.output
    [current] = list(out.iterdir())
    assert current.name.startswith(f"作品{creative_id}-第3版-") and str(current.name) in written.output
    with zipfile.ZipFile(current) as archive:
        assert archive.testzip() is None
        assert archive.namelist() == ["01.png", "02.png", "post.txt", "manifest.json"]
        assert archive.read("post.txt").decode().split("\n", 1)[0] == titles[2]
        assert json.loads(archive.read("manifest.json"))["version"] == 3
    older = tmp_path / "v1.zip"
    assert studio(data_dir, "export", str(creative_id), "--version", "1", "-o", str(older)).exit_code == 0
    with zipfile.ZipFile(older) as archive:
        assert archive.read("post.txt").decode().split("\n", 1)[0] == first["title"]
        manifest = json.loads(archive.read("manifest.json"))
        assert (manifest["version"], manifest["currentVersion"]) == (1, 3)

    # a stale --based-on changes nothing
    stale = studio(data_dir, "revise", thread_id, "标题短一点", "--based-on", "1")
    assert_clean_failure(stale, 2, "当前已是第 3 版，不是第 1 版")
    assert json.loads(studio(data_dir, "versions", str(creative_id), "--json").stdout)["current"] == 3


def test_errors_are_chinese_and_exit_non_zero(data_dir: Path) -> None:  # noqa: F811
    paused = studio(data_dir, "run", REQUEST, "--images", "1", "--json")
    assert paused.exit_code == 0, paused.output
    waiting = lines(paused.stdout)[-1]
    assert waiting["status"] == "paused"
    busy = studio(data_dir, "revise", waiting["threadId"], "标题短一点")
    assert_clean_failure(busy, 2, "正在运行或等待审核")
    busy_json = studio(data_dir, "revise", waiting["threadId"], "标题短一点", "--json")
    assert busy_json.exit_code == 2 and lines(busy_json.stdout)[-1]["error"]["code"] == "THREAD_BUSY"

    unknown = studio(data_dir, "revise", "no-such-thread", "标题短一点")
    assert_clean_failure(unknown, 2, "找不到会话 no-such-thread")
    assert_clean_failure(studio(data_dir, "revise", "no such thread", "标题短一点"), 2, "找不到会话")
    assert_clean_failure(studio(data_dir, "revise", waiting["threadId"], "  "), 2, "修改意见不能为空")
    assert_clean_failure(studio(data_dir, "versions", "9999"), 1, "找不到作品 #9999")
    assert_clean_failure(studio(data_dir, "export", "9999"), 1, "找不到作品 #9999")
    assert_clean_failure(studio(data_dir, "export", "abc"), 2, "作品编号必须是正整数")
    creative = json.loads(studio(data_dir, "creatives", "list", "--json").stdout)["items"][0]["id"]
    assert_clean_failure(studio(data_dir, "export", str(creative)), 1, "还没有完成的版本")
    zero = studio(data_dir, "export", str(creative), "--version", "0")
    assert_clean_failure(zero, 2, "--version 必须是正整数")
    no_versions = studio(data_dir, "versions", str(creative))
    assert no_versions.exit_code == 0 and "还没有版本" in no_versions.output
