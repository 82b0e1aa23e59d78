"""A smoke run of the quality benchmark on a few rows of each set: the real studio, offline model and
critic run end to end and every measure is computed for both splits. Whether the targets are met is the
benchmark's business (docs/benchmarks.md), never asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import quality
from bench.common import write_result

pytestmark = pytest.mark.slow

MEASURES = {
    "routingAccuracy",
    "onTopicRate",
    "foreignPlaceShare",
    "topTitleTemplateShare",
    "meanReviewRounds",
    "detectionRate",
    "falseFailRate",
    "feedbackCompliance",
    "redosDiffer",
}


async def test_quality_on_a_few_rows(
    tmp_path: Path, knowledge_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = await quality.measure(
        requests=3, drafts=6, feedback=2, knowledge=knowledge_dir, workdir=tmp_path
    )
    path = write_result("quality", result, tmp_path / "results")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["config"] == {**doc["config"], "requests": 3, "drafts": 6, "feedback": 2}
    assert set(doc["targets"]) <= MEASURES
    assert set(doc["splits"]) == {"tune", "holdout", "all"}
    for split in doc["splits"].values():
        assert set(split["headline"]) == MEASURES and set(split["met"]) == set(doc["targets"])

    # routing: every request ran and was routed; the posts were measured
    requests = doc["rows"]["requests"]
    assert len(requests) == 3 and all(r["detected"] for r in requests)
    routing = doc["splits"]["all"]["requests"]["routing"]
    assert routing["n"] == 3 and 0 <= routing["accuracy"] <= 1
    assert sum(n for row in routing["confusion"].values() for n in row.values()) == 3
    posts = [r for r in requests if "title" in r]
    assert posts, "no request produced a post"
    for post in posts:
        assert post["skeleton"] and isinstance(post["foreignPlaces"], list) and post["reviewRounds"] >= 1
        assert 0 <= post["topicParagraphShare"] <= 1
    headline = doc["splits"]["all"]["headline"]
    assert 0 <= headline["onTopicRate"] <= 1 and 0 <= headline["foreignPlaceShare"] <= 1
    assert 0 < headline["topTitleTemplateShare"] <= 1 and headline["meanReviewRounds"] >= 1

    # feedback: each case reached the checkpoint, was rejected, and its redo was checked (or had no subject)
    feedback = doc["rows"]["feedback"]
    assert len(feedback) == 2
    assert {r["status"] for r in feedback} <= {"checked", "not_applicable"}
    for case in feedback:
        if case["status"] == "checked":
            assert isinstance(case["complied"], bool) and isinstance(case["differs"], bool)
            assert case["feedback"] and "{X}" not in case["feedback"]

    # review: the critic's text checks over the drafts, once they are in the checkout
    if quality.text_checks_available():
        review = doc["splits"]["all"]["review"]
        assert review["flawed"] + review["good"] == 6 and review["byFlaw"]
        assert 0 <= headline["detectionRate"] <= 1 and 0 <= headline["falseFailRate"] <= 1
    else:
        assert "review" in doc["skipped"] and headline["detectionRate"] is None

    quality.report(result)
    out = capsys.readouterr().out
    assert "routing accuracy" in out and "holdout" in out


def test_review_summary_counts_detection_and_false_fails() -> None:
    records = [
        {"split": "tune", "flaws": ["wrong_place"], "flagged": True},
        {"split": "tune", "flaws": ["wrong_place", "long_title"], "flagged": False},
        {"split": "tune", "flaws": ["cut_phrase"], "flagged": True},
        {"split": "tune", "flaws": [], "flagged": False},
        {"split": "tune", "flaws": [], "flagged": True},
    ]
    summary = quality.summarize_review(records)
    assert (summary["detected"], summary["flawed"], summary["detectionRate"]) == (2, 3, 0.667)
    assert (summary["falseFails"], summary["good"], summary["falseFailRate"]) == (1, 2, 0.5)
    assert summary["byFlaw"]["wrong_place"] == {"n": 2, "detected": 1, "rate": 0.5}
    assert summary["byFlaw"]["long_title"]["rate"] == 0.0


def test_targets_are_judged_in_their_direction() -> None:
    met = quality.met({"routingAccuracy": 0.98, "foreignPlaceShare": 0.02, "falseFailRate": 0.05})
    assert met["routingAccuracy"] is True and met["foreignPlaceShare"] is False
    assert met["falseFailRate"] is True and met["detectionRate"] is None


def test_the_request_summary() -> None:
    records = [
        {
            "expected": "full_post",
            "detected": "full_post",
            "title": "a",
            "onTopic": True,
            "foreignPlaces": [],
            "skeleton": "X｜#个要点",
            "reviewRounds": 1,
        },
        {
            "expected": "full_post",
            "detected": "full_post",
            "title": "b",
            "onTopic": False,
            "foreignPlaces": ["成都"],
            "skeleton": "X｜#个要点",
            "reviewRounds": 2,
        },
        {
            "expected": "full_post",
            "detected": "full_post",
            "title": "c",
            "onTopic": True,
            "foreignPlaces": [],
            "skeleton": "X的#天",
            "reviewRounds": 3,
        },
        {"expected": "full_post", "detected": "time_query"},
    ]
    summary = quality.summarize_requests(records)
    assert summary["routing"]["accuracy"] == 0.75
    assert summary["routing"]["confusion"] == {"full_post": {"full_post": 3, "time_query": 1}}
    posts = summary["posts"]
    assert (posts["expected"], posts["completed"]) == (4, 3)
    assert posts["onTopicRate"] == 0.667 and posts["foreignPlaceShare"] == 0.333
    assert posts["topTitleTemplateShare"] == 0.667 and posts["meanReviewRounds"] == 2.0
