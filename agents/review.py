"""The review agent: the quality gate. Scores the whole package on five dimensions plus overall.

The model (task `review`) scores; pass/fail is decided here, by the thresholds in the run options
(`judge`): the package passes when the overall score and every dimension reach their thresholds. A
dimension under its threshold always gets a fail reason, so the agent it is routed back to knows why.
Each round is appended to `qualityHistory` with the package it judged, so the best round can be
delivered when none passes.

The model's scores are combined with the deterministic checks of `agents.checks` (foreign places, topic
drift, stray advice, a call to action that contradicts the content type, title, tags, duplicates, cut
phrases, stock phrases; card text against its overlay plan), which run whatever the model: a failed check
pulls its dimension below threshold with its concrete reason, and the round records which checks failed.
Text an editor wrote or modified is never sent back: its failed checks become warnings for the editor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from agents.artifacts import (
    DIMENSIONS,
    IMAGE_DIMENSIONS,
    Dimension,
    EvidencePack,
    QualityReport,
    ReviewOutput,
)
from agents.checks import Finding
from agents.checks.cards import card_findings
from agents.checks.text import text_findings
from agents.context import StudioContext
from agents.events import Message, QualityScore, emit
from agents.node import agent, prompt
from agents.state import StudioState

NAME = "review_agent"
MAX_REASONS = 10
DIMENSION_LABELS: dict[str, str] = {
    "infoDensity": "信息密度",
    "textImageAlignment": "图文一致性",
    "styleConsistency": "风格一致性",
    "readability": "可读性",
    "platformFit": "平台适配度",
}
# Words by which a model's fail reason shows which dimension it is about.
_HINTS: dict[Dimension, tuple[str, ...]] = {
    "infoDensity": ("信息", "干货", "具体"),
    "textImageAlignment": ("图文", "配图", "对应"),
    "styleConsistency": ("风格", "配色"),
    "readability": ("阅读", "可读", "段落", "分点"),
    "platformFit": ("平台", "标题", "标签", "互动"),
}


def review_feedback_text(feedback: Mapping[str, Any] | None) -> str | None:
    """A failed review (state `reviewFeedback`), as text a model — and the offline model — can act on."""
    if not feedback:
        return None
    dimension = str(feedback.get("dimension") or "")
    label = DIMENSION_LABELS.get(dimension, dimension or "未知")
    score = feedback.get("score")
    head = f"第{feedback.get('round', '?')}轮质量审核未通过，最需要改进的维度：{label}（{dimension}）"
    lines = [head + (f"，得分 {score:.2f}" if isinstance(score, int | float) else "")]
    reasons = [str(r) for r in feedback.get("reasons") or []]
    suggestions = [str(s) for s in feedback.get("suggestions") or []]
    if reasons:
        lines.append("问题：\n" + "\n".join(f"- {r}" for r in reasons))
    if suggestions:
        lines.append("建议：\n" + "\n".join(f"- {s}" for s in suggestions))
    return "\n".join(lines)


def _mentions(reason: str, dimension: Dimension) -> bool:
    return dimension.lower() in reason.lower() or any(
        word in reason for word in (DIMENSION_LABELS[dimension], *_HINTS[dimension])
    )


CHECK_MARGIN = 0.1  # a failed check puts its dimension this far under the threshold


def apply_findings(
    output: ReviewOutput, findings: list[Finding], thresholds: Mapping[str, float]
) -> ReviewOutput:
    """The model's scores with each failed check's dimension pulled below its threshold, the overall
    lowered by what the dimensions lost, and the checks' reasons first among the fail reasons."""
    if not findings:
        return output
    scores: dict[str, float] = output.scores.model_dump(by_alias=True)
    lost = 0.0
    for dimension in dict.fromkeys(f.dimension for f in findings):
        capped = round(max(0.0, min(scores[dimension], thresholds.get(dimension, 0.6) - CHECK_MARGIN)), 2)
        lost += scores[dimension] - capped
        scores[dimension] = capped
    return output.model_copy(update={
        "scores": output.scores.model_validate(scores),
        "overall": round(max(0.0, output.overall - lost / len(DIMENSIONS)), 2),
        "fail_reasons": list(dict.fromkeys([*(f.reason for f in findings), *output.fail_reasons])),
    })


def judge(
    output: ReviewOutput,
    thresholds: Mapping[str, float],
    round_: int,
    dimensions: tuple[Dimension, ...] = DIMENSIONS,
    findings: list[Finding] | None = None,
    warnings: list[str] | None = None,
) -> QualityReport:
    """Pass/fail by the thresholds; every failing dimension (and a low overall) gets a reason.

    Only `dimensions` count: an image-only package is judged on `IMAGE_DIMENSIONS`, its overall the mean
    of those, and the model's reasons about the absent text are dropped. Failed checks (`findings`) are
    applied first (`apply_findings`): a package with one never passes.
    """
    findings = [f for f in findings or [] if f.dimension in dimensions]
    output = apply_findings(output, findings, thresholds)
    scores: dict[str, float] = output.scores.model_dump(by_alias=True)
    if dimensions != DIMENSIONS:
        ignored = [d for d in DIMENSIONS if d not in dimensions]
        overall = round(sum(scores[d] for d in dimensions) / len(dimensions), 2)
        output = output.model_copy(
            update={
                "overall": overall,
                "fail_reasons": [
                    r for r in output.fail_reasons if not any(_mentions(r, d) for d in ignored)
                ],
            }
        )
    below = [d for d in dimensions if scores[d] < thresholds.get(d, 0.0)]
    overall_min = thresholds.get("overall", 0.0)
    passed = output.overall >= overall_min and not below and not findings
    if passed:  # the model's misgivings stay as suggestions; a passed package has no fail reasons
        reasons: list[str] = []
        suggestions = [*output.suggestions, *(f"可改进：{r}" for r in output.fail_reasons)]
    else:
        added = [
            f"{DIMENSION_LABELS[d]}得分 {scores[d]:.2f}，低于阈值 {thresholds.get(d, 0.0):.2f}"
            for d in below
            if not any(_mentions(r, d) for r in output.fail_reasons)
        ]
        if output.overall < overall_min:
            added.append(f"综合得分 {output.overall:.2f}，低于阈值 {overall_min:.2f}")
        reasons = [*list(dict.fromkeys(output.fail_reasons))[: max(0, MAX_REASONS - len(added))], *added]
        suggestions = list(output.suggestions)
    return QualityReport(
        scores=output.scores,
        overall=output.overall,
        fail_reasons=reasons[:MAX_REASONS],
        suggestions=list(dict.fromkeys(suggestions))[:MAX_REASONS],
        round=round_,
        passed=passed,
        checks=[f.wire() for f in findings],
        warnings=list(warnings or []),
    )


def image_results(plans: list[dict[str, Any]], asset_ids: list[int | None]) -> list[dict[str, Any]]:
    """Per plan: did its image get generated, and which asset holds it."""
    results = []
    for position, plan in enumerate(plans):
        asset_id = asset_ids[position] if position < len(asset_ids) else None
        results.append({
            "index": plan.get("index", position + 1),
            "role": plan.get("role"),
            "status": "complete" if asset_id is not None else "failed",
            "assetId": asset_id,
        })
    return results


def _evidence_for_prompt(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the facts in the draft can be checked against: the summary and the sourced facts."""
    if not raw:
        return None
    pack = EvidencePack.model_validate(raw)
    return pack.model_dump(mode="json", by_alias=True, include={"summary", "facts"}, exclude_none=True)


def _references_for_prompt(analyses: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    keys = ("usage", "style", "mood", "palette", "styleKeywords", "summary")
    compact = [{k: a[k] for k in keys if a.get(k)} for a in analyses or [] if isinstance(a, dict)]
    return [c for c in compact if c] or None


def _plans_for_prompt(plans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plans without the planner's raw prompt, the final prompt shortened."""
    return [
        {**{k: v for k, v in p.items() if k != "basePrompt"}, "prompt": str(p.get("prompt") or "")[:300]}
        for p in plans
    ]


def package_findings(state: StudioState) -> tuple[list[Finding], list[str]]:
    """The deterministic checks of the package: failures, and warnings on text an editor wrote."""
    draft = state.get("generatedContent") or None
    image_only = (state.get("intent") or {}).get("intent") == "image_only"
    findings: list[Finding] = []
    warnings: list[str] = []
    if draft and not image_only:
        text = text_findings(
            request=state.get("request", ""), brief=state.get("creativeBrief") or None, draft=draft,
            evidence=state.get("evidencePack") or None,
        )
        if state.get("editorEdited"):
            warnings = [f.reason for f in text]
        else:
            findings.extend(text)
    plans: list[Mapping[str, Any]] = [*(state.get("imagePlans") or [])]
    overlays: list[Mapping[str, Any]] = [*(state.get("textOverlayPlan") or [])]
    layout = state.get("layoutSpec") or None
    cards = card_findings(draft=draft, plans=plans, overlays=overlays, layout=layout)
    only = state.get("redrawOnly") or []
    if state.get("plansEdited") or state.get("imagesKept"):  # the editor's cards, or kept by a revision
        warnings.extend(f.reason for f in cards)
    elif only:  # a revision of some pictures: the cards it keeps as they were only warn
        redrawn = [p for k, p in enumerate(plans) if k + 1 in only]
        indexes = {p.get("index") for p in redrawn}
        theirs = [o for o in overlays if (o.get("imageIndex") or o.get("image_index")) in indexes]
        failing = card_findings(draft=draft, plans=redrawn, overlays=theirs, layout=layout)
        reasons = {f.reason for f in failing}
        findings.extend(failing)
        warnings.extend(f.reason for f in cards if f.reason not in reasons)
    else:
        findings.extend(cards)
    return findings, warnings


@agent(NAME)
async def review_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Score the package, decide pass/fail by the thresholds, and record the round."""
    round_ = len(state.get("qualityHistory") or []) + 1
    draft = state.get("generatedContent") or None
    image_only = (state.get("intent") or {}).get("intent") == "image_only"
    plans = state.get("imagePlans") or []
    asset_ids = list(state.get("generatedImageAssetIds") or [])
    images = image_results(plans, asset_ids)
    messages = prompt("review").render(
        round=round_,
        mode="仅图片（没有正文，只评 textImageAlignment、styleConsistency、readability）"
        if image_only
        else "图文笔记",
        request=state.get("request") if image_only else None,
        brief=state.get("creativeBrief") or None,
        draft={k: draft.get(k) for k in ("title", "body", "tags")} if draft else None,
        evidence=_evidence_for_prompt(state.get("evidencePack")),
        layout=state.get("layoutSpec") or None,
        plans=_plans_for_prompt(plans) or None,
        bindings=state.get("paragraphImageBindings") or None,
        overlays=state.get("textOverlayPlan") or None,
        images=images or None,
        references=_references_for_prompt(state.get("referenceAnalyses")),
    )
    output = await ctx.llm.complete_structured("review", messages, ReviewOutput)
    # the checks embed the post's sentences (`agents/checks/restated.py`): CPU work, off the event loop
    findings, warnings = await asyncio.to_thread(package_findings, state)
    report = judge(
        output, ctx.options.thresholds, round_, IMAGE_DIMENSIONS if image_only else DIMENSIONS,
        findings=findings, warnings=warnings,
    )
    wire = report.model_dump(mode="json", by_alias=True)
    emit(QualityScore(
        scores=wire["scores"], overall=report.overall, passed=report.passed,
        fail_reasons=report.fail_reasons, round=round_, checks=report.checks,
    ))
    if warnings:
        edited = state.get("editorEdited") or state.get("plansEdited")
        why = "编辑修改过的内容" if edited else "这次修改保留了原来的配图，图文"
        emit(Message(agent=NAME, content=f"{why}有几处没通过自动检查，仅作提醒、不会重做：\n"
                     + "\n".join(f"- {w}" for w in warnings)))
    verdict = "通过" if report.passed else "未通过"
    detail = "；".join(report.fail_reasons[:3]) if not report.passed else "各项均达到阈值"
    emit(Message(agent=NAME, content=f"第{round_}轮审核{verdict}（综合 {report.overall:.2f}）：{detail}"))
    package = {
        "title": (draft or {}).get("title"),
        "body": (draft or {}).get("body"),
        "tags": list((draft or {}).get("tags") or []),
        "imageAssetIds": asset_ids,
        "imagePlans": plans,
    }
    return {
        "qualityScores": wire,
        "qualityHistory": [{**wire, "package": package}],
        "reviewComplete": True,
    }
