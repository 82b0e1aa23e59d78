"""Smoke runs of the benchmark harness at a tiny scale: each harness runs end to end and writes results
of the documented shape. Speed is never asserted here — the numbers live in docs/benchmarks.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import auth, concurrency, critical_path, overhead, resume, retrieval, revisions, streaming
from bench.common import percentile, write_result

pytestmark = pytest.mark.slow


def written(name: str, result: dict[str, Any], out: Path) -> dict[str, Any]:
    """The result as `write_result` stores it, read back."""
    document: dict[str, Any] = json.loads(write_result(name, result, out).read_text(encoding="utf-8"))
    assert document["benchmark"] == name and document["machine"]["cores"] >= 1
    return document


def test_percentile_interpolates() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5
    assert percentile([0, 10], 95) == pytest.approx(9.5)


async def test_critical_path(tmp_path: Path, knowledge_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = await critical_path.measure(
        llm_ms=5,
        image_ms=10,
        images=2,
        references=1,
        runs=1,
        warmup=0,
        knowledge=knowledge_dir,
        workdir=tmp_path,
    )
    doc = written("critical_path", result, tmp_path / "results")
    ours, baseline = doc["ours"], doc["baseline"]
    assert ours["allCompleted"] and baseline["allCompleted"]
    assert ours["ratio"] > 0 and baseline["ratio"] > 0 and doc["speedup"] > 0
    # our supervisor decides by rule; the baseline pays a call per decision and one image at a time
    assert ours["llmCalls"]["supervisor"] == 0
    assert baseline["llmCalls"]["supervisor"] == baseline["supervisorDecisions"] > 0
    assert (ours["imageConcurrency"], baseline["imageConcurrency"]) == (4, 1)
    assert ours["criticalPathMs"] == 5 * 7 + 10  # 7 LLM calls on the path, one wave of 2 images
    assert baseline["criticalPathMs"] == 5 * (8 + baseline["supervisorDecisions"]) + 10 * 2
    assert "max(research 1, reference 1)" in ours["formula"]
    critical_path.report(result)
    assert "speed-up" in capsys.readouterr().out


async def test_overhead(tmp_path: Path, knowledge_dir: Path) -> None:
    result = await overhead.measure(
        runs=1, warmup=0, images=1, profile_runs=1, knowledge=knowledge_dir, workdir=tmp_path
    )
    doc = written("overhead", result, tmp_path / "results")
    assert doc["allCompleted"] and doc["wallMs"]["n"] == 1
    assert doc["eventsPerRun"] > 20 and doc["stepsPerRun"] > 10
    assert doc["checkpointBytesPerRun"] > doc["checkpointBytesPerStep"] > 0
    assert doc["inAgentsMs"]["p50"] > 0 and "writer_agent" in doc["agentMsP50"]
    assert "checkpoint writes" in doc["timeInComponentsMsPerRun"]
    assert doc["profile"]["topOwnTime"] and doc["profile"]["oursByCumulative"]
    overhead.report(result)


async def test_retrieval(tmp_path: Path) -> None:
    result = await retrieval.measure(
        sizes=(100, 200),
        queries_per_tier=3,
        embed_up_to=100,
        index_from=200,
        warmup_queries=1,
        workdir=tmp_path,
    )
    doc = written("retrieval", result, tmp_path / "results")
    first, second = doc["tiers"]
    assert (first["notes"], second["notes"]) == (100, 200)
    assert first["embedded"] and first["embedMsPerNote"] > 0
    assert not second["embedded"] and second["estimatedFullImportNotesPerSecond"] > 0
    for tier in doc["tiers"]:
        assert tier["hybridMs"]["n"] == 3 and tier["hybridThemeMs"]["p95"] > 0
        assert tier["vectorOnlyMs"]["p50"] > 0 and tier["fullTextOnlyMs"]["p50"] > 0
    indexed = doc["withVectorIndex"]
    assert indexed["notes"] == 200 and indexed["hybridMs"]["n"] == 3 and "IvfHnswSq" in indexed["index"]
    assert 0 < indexed["recallAt8"] <= 1
    retrieval.report(result)


async def test_concurrency_over_http(tmp_path: Path, knowledge_dir: Path) -> None:
    result = await concurrency.measure(
        clients=(2,), llm_ms=5, image_ms=10, images=1, singles=1, knowledge=knowledge_dir, workdir=tmp_path
    )
    doc = written("concurrency", result, tmp_path / "results")
    [setup] = doc["setups"]
    assert (setup["processes"], setup["database"]) == (1, "sqlite") and "recording" not in doc
    assert setup["singleRun"]["allCompleted"]
    [wave] = setup["waves"]
    assert wave["completed"] == 2 and wave["completionRate"] == 1.0, wave["failures"]
    assert wave["firstEventMs"]["n"] == 2 and wave["eventLagMs"]["n"] > 20
    assert wave["wallVsSingle"] > 0 and setup["serverRssPeakMb"] > 0
    assert len(wave["cpuSeconds"]["studioPerProcess"]) == 1 and wave["cpuSeconds"]["database"] is None
    assert set(setup["met"]) == {"completionRate", "firstEventP95Ms", "wallVsSingle"}
    concurrency.report(result)


async def test_concurrency_two_processes_remote_models(
    tmp_path: Path, knowledge_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two server processes on one database (PostgreSQL where it is installed, else SQLite), models replayed
    from a recording pass: every run completes, on both processes, and no model answer is composed."""
    from bench.pg import unavailable

    databases = ("sqlite",) if unavailable() else ("postgresql",)
    result = await concurrency.measure(
        clients=(4,), llm_ms=5, image_ms=10, images=1, singles=2, processes=(2,), databases=databases,
        models="remote", knowledge=knowledge_dir, workdir=tmp_path,
    )
    doc = written("concurrency_remote", result, tmp_path / "results")
    recording = doc["recording"]
    assert recording["completed"] == recording["runs"] == 4, recording["failures"]
    assert recording["answers"]["recorded"] > 0 and recording["answers"]["misses"] == 0
    assert [(s["processes"], s["database"]) for s in doc["setups"]] == [(2, db) for db in databases]
    for setup in doc["setups"]:
        [wave] = setup["waves"]
        assert wave["completed"] == 4, wave["failures"]
        assert len(wave["serverRssPeakMbPerProcess"]) == 2 and min(wave["serverRssPeakMbPerProcess"]) > 0
        assert all(cpu > 0 for cpu in wave["cpuSeconds"]["studioPerProcess"])  # both processes ran runs
        assert (wave["cpuSeconds"]["database"] is None) == (setup["database"] == "sqlite")
        # replayed: every model call of both processes was a recorded answer
        answers = setup["answers"]
        assert len(answers) == 2 and all(a["hits"] > 0 and a["misses"] == 0 for a in answers), answers
        assert set(setup["met"]) == {"completionRate", "firstEventP95Ms", "wallVsSingle"}
    concurrency.report(result)
    assert f"2 processes, {databases[0]}, remote models" in capsys.readouterr().out


async def test_resume_after_a_restart(tmp_path: Path, knowledge_dir: Path) -> None:
    result = await resume.measure(
        threads=1, llm_ms=5, image_ms=10, images=1, knowledge=knowledge_dir, workdir=tmp_path
    )
    doc = written("resume", result, tmp_path / "results")
    assert doc["paused"] == 1 and doc["restartMs"] > 0, doc["failures"]
    after = doc["afterRestart"]
    assert after["resumed"] == 1 and after["pausedAgain"] == 1 and after["coldFirstEventMs"] > 0
    assert doc["warm"]["completed"] == 1 and doc["warm"]["firstEventMs"]["n"] == 1
    resume.report(result)


async def test_streaming_draft(
    tmp_path: Path, knowledge_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = await streaming.measure(
        runs=2, concurrency=(1, 2), first_token_ms=20, chars_per_s=3000, warmup=0, knowledge=knowledge_dir,
        workdir=tmp_path,
    )
    doc = written("streaming", result, tmp_path / "results")
    assert [s["concurrent"] for s in doc["scenarios"]] == [1, 2] and isinstance(doc["met"], bool)
    for scenario in doc["scenarios"]:
        assert scenario["measured"] == 2 and not scenario["failures"] and scenario["allDeltasWithoutId"]
        timings = scenario["fromWriterCallMs"]
        assert timings["modelFirstToken"]["n"] == timings["clientFirstBodyChars"]["n"] == 2
        # the order of things, never how fast: token, title token, body token; title before body at the client
        assert timings["modelFirstToken"]["min"] <= timings["modelFirstTitleToken"]["min"]
        assert timings["modelFirstTitleToken"]["max"] < timings["modelFirstBodyToken"]["max"]
        assert timings["clientFirstTitleChars"]["max"] <= timings["clientContentUpdate"]["max"]
        assert timings["clientFirstBodyChars"]["max"] <= timings["clientContentUpdate"]["max"]
        assert scenario["deltasPerDraft"]["min"] >= 2
    streaming.report(result)
    assert "first body characters" in capsys.readouterr().out


async def test_authentication_cost(tmp_path: Path, knowledge_dir: Path) -> None:
    result = await auth.measure(requests=32, concurrency=4, knowledge=knowledge_dir, workdir=tmp_path)
    doc = written("auth", result, tmp_path / "results")
    assert set(doc["variants"]) == {"none (/healthz)", "token (/api/me)", "session (/api/me)"}
    for variant in doc["variants"].values():
        assert 0 < variant["p50Ms"] <= variant["p95Ms"] and variant["requestsPerS"] > 0
    auth.report(result)


async def test_revision_cost(tmp_path: Path, knowledge_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = await revisions.measure(posts=1, images=2, knowledge=knowledge_dir, workdir=tmp_path)
    document = written("revisions", result, tmp_path)
    means = document["means"]
    assert set(means) == {"完整创作", *(kind for kind, _ in revisions.REVISIONS)}
    assert all(m["completed"] for m in means.values())
    # a title-only revision runs the writer and the review, and draws nothing
    assert means["标题"]["pictures"] == 0 and set(means["标题"]["tasks"]) <= {"writer", "review"}
    assert means["一张图"]["pictures"] >= 1 and "writer" not in means["一张图"]["tasks"]
    assert means["完整创作"]["modelCalls"] > means["标题"]["modelCalls"]
    revisions.report(result)
    assert "Revision cost" in capsys.readouterr().out
