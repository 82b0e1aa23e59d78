"""`studio doctor`: a tiny real call per configured role and a plain report with the setting to fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    return monkeypatch


def test_offline_roles_all_work(clean_env: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("✓ 文字") and "studio/offline" in line for line in lines)
    assert any(line.startswith("✓ 配图") for line in lines)  # an offline card was drawn
    assert "未配置识图模型" in result.output and "未配置（STUDIO_WEB_SEARCH_MODEL）" in result.output
    assert "已配置的模型都可以使用" in result.output


def test_a_role_without_a_key_fails_and_names_the_setting(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("STUDIO_WEB_SEARCH_MODEL", "gpt-4o-search-preview")
    clean_env.setenv("STUDIO_IMAGE_PROVIDER", "dall-e-3")
    clean_env.setenv("STUDIO_LLM_MAX_RETRIES", "0")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "✗ 联网搜索 gpt-4o-search-preview" in output and "STUDIO_WEB_SEARCH_API_KEY" in output
    assert "✗ 配图 dall-e-3" in output and "缺少 API Key" in output and "STUDIO_IMAGE_API_KEY" in output
    assert "2 个角色不可用" in output
