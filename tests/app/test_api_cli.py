"""`studio api` (the CLI's HTTP command) in a real process against a real `studio serve` process: the token
comes from the data dir's admin-token file, `$STUDIO_TOKEN` or `--token`; errors say what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.serving import ROOT, LiveServer

REQUEST = "帮我写一篇周末城市露营的小红书笔记，面向上班族"


def studio_api(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("STUDIO_")}
    return subprocess.run(
        [sys.executable, "-m", "app", "api", *args], cwd=ROOT, env={**clean, "COLUMNS": "200", **(env or {})},
        input=stdin, capture_output=True, text=True, timeout=120,
    )


def test_api_uses_the_data_dirs_token_streams_runs_and_prints_json(live_server: LiveServer) -> None:
    where = ["--server", live_server.url, "--data-dir", str(live_server.data_dir)]
    # the data dir says where its server listens (server.json) and holds the admin's token
    me = studio_api("/api/me", "--data-dir", str(live_server.data_dir))
    assert me.returncode == 0, me.stderr
    assert json.loads(me.stdout)["name"] == "admin"

    body = json.dumps({"message": REQUEST, "imageCount": 1, "enableHITL": False})
    run = studio_api("/api/agent/stream", "-d", "-", *where, stdin=body)
    assert run.returncode == 0, run.stderr
    frames = run.stdout.strip().splitlines()
    assert frames[-1] == "[DONE]"
    assert json.loads(frames[-2])["type"] == "workflow_complete"

    listing = studio_api("/api/creatives?status=completed", *where)
    assert json.loads(listing.stdout)["total"] == 1


def test_api_takes_a_token_from_the_environment_and_explains_refusals(
    live_server: LiveServer, tmp_path: Path
) -> None:
    made = subprocess.run(
        [sys.executable, "-m", "app", "tokens", "create", "anna", "--role", "analyst",
         "--data-dir", str(live_server.data_dir)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    token = made.stdout.strip()
    elsewhere = ["--server", live_server.url, "--data-dir", str(tmp_path / "nowhere")]
    me = studio_api("/api/me", *elsewhere, env={"STUDIO_TOKEN": token})
    assert json.loads(me.stdout)["role"] == "analyst"
    refused = studio_api("/api/agent/stream", "-d", json.dumps({"message": REQUEST}), *elsewhere,
                         env={"STUDIO_TOKEN": token})
    assert refused.returncode == 1 and "403 FORBIDDEN" in refused.stderr and "分析师" in refused.stderr
    anonymous = studio_api("/api/me", *elsewhere)
    assert anonymous.returncode == 1 and "401 UNAUTHENTICATED" in anonymous.stderr
    assert "STUDIO_TOKEN" in anonymous.stderr
    assert studio_api("/api/me", "-d", "{not json", *elsewhere).returncode == 2
    nobody = studio_api("/api/me", "--server", "http://127.0.0.1:9", "--token", token)
    assert nobody.returncode == 1 and "连不上" in nobody.stderr
