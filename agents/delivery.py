"""The finalize node: deliver the result (`workflow_complete`) or the failure (`error`), exactly once.

When no review round passed, the best-scoring round's package is delivered and the creator is told so.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agents.answer import suggested_post_request
from agents.context import StudioContext
from agents.events import ErrorEvent, Message, WorkflowComplete, emit
from agents.state import StudioState

FRIENDLY = {
    "LLM_AUTH": "模型认证失败，请检查 API Key 或模型名称配置",
    "LLM_TIMEOUT": "模型响应超时，请稍后重试",
    "LLM_UNAVAILABLE": "模型服务暂时不可用，请稍后重试",
    "LLM_BAD_OUTPUT": "模型输出格式异常，已重试仍未成功，请稍后重试或更换模型",
    "LLM_OUTPUT_TRUNCATED": "模型的回答超出长度上限被截断，请稍后重试或更换模型",
    "LLM_CONTENT_FILTERED": "模型服务商的内容审核拦截了这次请求，请调整需求的措辞",
    "LLM_BAD_REQUEST": "模型拒绝了请求参数，请检查模型名称与接口配置",
    "BUDGET_EXCEEDED": "本次运行的模型费用将超出上限，已停止",
    "IMAGE_GENERATION_FAILED": "图片生成失败，请稍后重试或更换图片服务",
    "AGENT_TIMEOUT": "处理超时，请稍后重试",
    "MAX_ITERATIONS": "流程调度次数超过上限，已停止以避免死循环",
    "INTERNAL_ERROR": "工作流内部错误，请联系管理员",  # e.g. a route the stage table does not know
}


def friendly_message(error: dict[str, Any]) -> str:
    """Seed 000's error handler: a message a creator can act on, never a stack trace."""
    code = str(error.get("code"))
    base = FRIENDLY.get(code, "处理过程中出现问题，请稍后重试")
    detail = error.get("message")
    if detail and code.startswith(("LLM_", "IMAGE_", "BUDGET_")):
        return str(detail)  # the model and image gateways already say what happened and what to fix
    return f"{base}（{detail}）" if detail and detail not in base else base


async def finalize(state: StudioState, runtime: Runtime[StudioContext]) -> dict[str, Any]:
    ctx = runtime.context
    error = state.get("lastError")
    history = (state.get("qualityHistory") or [])[state.get("revisionFrom", 0):]  # this revision's rounds
    intent = (state.get("intent") or {}).get("intent")

    if error:
        emit(
            ErrorEvent(
                code=str(error.get("code", "AGENT_FAILED")),
                message=friendly_message(error),
                agent=error.get("agent"),
                retryable=bool(error.get("retryable")),
            )
        )
        return {"done": True}

    if intent in ("question", "time_query"):
        request = state.get("request", "")
        emit(
            WorkflowComplete(
                title=request[:40],
                body=state.get("answer") or "",
                tags=[],
                image_asset_ids=[],
                creative_id=ctx.creative_id,
                quality_scores=None,
                suggested_request=suggested_post_request(request) if intent == "question" else None,
            )
        )
        return {"done": True}

    if not history:
        emit(
            ErrorEvent(
                code="MAX_ITERATIONS", message=FRIENDLY["MAX_ITERATIONS"], agent="supervisor", retryable=False
            )
        )
        return {"done": True}

    last = history[-1]
    chosen = last if last.get("passed") else max(history, key=lambda r: r.get("overall", 0.0))
    update: dict[str, Any] = {"done": True, "finalRound": chosen["round"]}
    package = chosen.get("package") or {}
    if chosen is not last:
        emit(
            Message(
                agent="supervisor",
                content=f"审核{len(history)}轮均未完全达标，交付得分最高的第{chosen['round']}轮"
                f"（综合 {chosen.get('overall', 0):.2f}）",
            )
        )
        update.update(
            {
                "generatedContent": {k: package.get(k) for k in ("title", "body", "tags")},
                "generatedImageAssetIds": package.get("imageAssetIds", []),
                "imagePlans": package.get("imagePlans", []),
                "qualityScores": {k: v for k, v in chosen.items() if k != "package"},
            }
        )
    draft = package if package.get("title") is not None else (state.get("generatedContent") or {})
    asset_ids = [i for i in (package.get("imageAssetIds") or state.get("generatedImageAssetIds") or []) if i]
    scores = {k: v for k, v in chosen.items() if k != "package"}
    emit(
        WorkflowComplete(
            title=draft.get("title") or str(state.get("request") or "")[:40],  # image-only: the request
            body=draft.get("body") or "",
            tags=list(draft.get("tags") or []),
            image_asset_ids=asset_ids,
            creative_id=ctx.creative_id,
            quality_scores=scores,
        )
    )
    return update
