"""What a run's events mean for its creative row, and how an event is stamped for the wire and the log.

`CreativeRecorder` keeps what one creative row should hold as its run goes on; `stamp` gives an event its
thread id and timestamp (its `seq` is allocated by the database when it is stored, `agents.run.writer`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agents.events import WorkflowProgress, now_ms, parse_event
from tools.database import Creative, CreativeStatus, VersionSource
from tools.llm import UsageMeter, add_costs

FINISHED = {CreativeStatus.COMPLETED, CreativeStatus.FAILED, CreativeStatus.ABORTED}
INTERRUPTED = "INTERRUPTED"  # error code of a run cut off by a process exit; resumable
ABORTED = "ABORTED"  # error code that ends a run cancelled by a user (creative `aborted`)


def accepted() -> WorkflowProgress:
    """The first event of every new thread, stored with its creative row and sent before the graph starts:
    a client learns the thread id (to reconnect with) at once, however busy the server is."""
    return WorkflowProgress(phase="启动工作流", progress=0.0, current_agent="supervisor")


_REVISING = {"text": "修改文案", "images": "重做配图", "full": "整篇重做"}


def revising(scope: str) -> WorkflowProgress:
    """The first event of a revision run: what it redoes."""
    phase = f"修订：{_REVISING.get(scope, '修改')}"
    return WorkflowProgress(phase=phase, progress=0.0, current_agent="supervisor")


def stamp(thread_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """The event as it goes on the wire: the thread id, a timestamp, the contract's shape. A stored event's
    `seq` is filled in when it is committed; an ephemeral one never has one."""
    stamped = {**event, "threadId": thread_id}
    stamped.setdefault("timestamp", now_ms())
    return parse_event(stamped).wire()


def log_row(stamped: dict[str, Any]) -> dict[str, Any]:
    """The `run_events` row of a stamped event (the writer numbers it)."""
    return {"thread_id": stamped["threadId"], "type": stamped["type"], "payload": stamped}


# State keys → creative columns.
_COLUMNS = {
    "creativeBrief": "brief",
    "evidencePack": "evidence",
    "referenceAnalyses": "reference_analyses",
    "layoutSpec": "layout_spec",
    "imagePlans": "image_plans",
    "paragraphImageBindings": "bindings",
    "textOverlayPlan": "overlay_plan",
}


def status_values(event: dict[str, Any]) -> dict[str, Any]:
    """The creative columns a final or pausing event sets (none for other events)."""
    kind = event["type"]
    if kind == "workflow_complete":
        scores = event.get("qualityScores") or {}
        return {
            "status": CreativeStatus.COMPLETED.value,
            "title": event["title"] or None,
            "body": event["body"] or None,
            "tags": event["tags"],
            "score": scores.get("overall"),
            "completed_at": datetime.now(UTC),
            "error": None,
        }
    if kind == "workflow_paused":
        return {"status": CreativeStatus.PAUSED.value}
    if kind == "error":
        cancelled = event.get("code") == ABORTED
        return {
            "status": (CreativeStatus.ABORTED if cancelled else CreativeStatus.FAILED).value,
            "error": {k: event.get(k) for k in ("code", "message", "agent", "retryable")},
            "completed_at": datetime.now(UTC),
        }
    return {}


class CreativeRecorder:
    """What one creative row should hold as its run goes on: the column values each state update, event
    and usage record implies. The row is read once; the run's own writes keep the copy current (one run
    at a time per thread), so no update needs a read first. The caller writes the values — together with
    the event they belong to, in one group commit."""

    def __init__(self, creative: Creative) -> None:
        self.creative_id = creative.id
        # a revision says what made its version and who asked (`WorkflowRunner.prepare_revise`); a run's
        # first segments, that it was a run, by whoever started it
        revision = (creative.options or {}).get("revision") or {}
        self._source = revision.get("source") or VersionSource.RUN.value
        self._timings: dict[str, Any] = dict(creative.timings or {})
        self._rounds: list[dict[str, Any]] = list(creative.review_rounds or [])
        self._usage: dict[str, dict[str, Any]] = {t: dict(row) for t, row in (creative.usage or {}).items()}
        self._tokens = (creative.prompt_tokens, creative.completion_tokens, creative.cost_usd)
        self._plans: list[Any] = list(creative.image_plans or [])
        self._overlay: list[Any] = list(creative.overlay_plan or [])
        self._actor = revision.get("actor") or creative.started_by

    def plan_indexes(self, update_: dict[str, Any]) -> list[int] | None:
        """The task indexes of the image plans in force with this update (its own, else the latest), in
        plan order; None when a plan has none."""
        plans = update_.get("imagePlans", self._plans) or []
        indexes = [p.get("index") if isinstance(p, dict) else None for p in plans]
        known = [i for i in indexes if isinstance(i, int)]
        return known if len(known) == len(indexes) else None

    def update_values(self, update_: dict[str, Any]) -> dict[str, Any]:
        values = {column: update_[key] for key, column in _COLUMNS.items() if key in update_}
        if "imagePlans" in update_:
            self._plans = list(update_["imagePlans"] or [])
        if "textOverlayPlan" in update_:
            self._overlay = list(update_["textOverlayPlan"] or [])
        draft = update_.get("generatedContent")
        if isinstance(draft, dict):
            values.update(title=draft.get("title"), body=draft.get("body"), tags=draft.get("tags") or [])
        rounds = update_.get("qualityHistory")
        if rounds:
            kept = [{k: v for k, v in r.items() if k != "package"} for r in rounds]
            self._rounds = [*self._rounds, *kept]
            values["review_rounds"] = self._rounds
            values["score"] = kept[-1].get("overall")
        return values

    def event_values(self, event: dict[str, Any]) -> dict[str, Any]:
        if event["type"] == "agent_end":
            row = dict(self._timings.get(event["agent"], {"runs": 0, "totalMs": 0}))
            row["runs"] += 1
            row["totalMs"] += int(event["durationMs"])
            self._timings = {**self._timings, event["agent"]: row}
            return {"timings": self._timings}
        return status_values(event)

    def version_values(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The version a completed run leaves (None for any other event): the post, its image set, the
        plans in force and the scores it ended with; the run's starter made it."""
        if event["type"] != "workflow_complete":
            return None
        return {
            "title": event["title"] or None,
            "body": event["body"] or None,
            "tags": list(event["tags"]),
            "asset_ids": list(event.get("imageAssetIds") or []),
            "image_plans": self._plans,
            "overlay_plan": self._overlay,
            "review": event.get("qualityScores"),
            "source": self._source,
            "actor": self._actor,
            "created_at": datetime.now(UTC),
        }

    def usage_values(self, meter: UsageMeter, model: str) -> dict[str, Any]:
        if not meter.records:
            return {}
        usage = {task: dict(row) for task, row in self._usage.items()}
        for task, row in meter.by_task().items():
            into = usage.setdefault(task, {k: 0 for k in row})
            for key, value in row.items():
                if key == "costUsd":  # unknown (None) stays unknown
                    into[key] = add_costs(into.get(key, 0.0), value)
                else:
                    into[key] = round(into.get(key, 0) + value, 6)
        prompt, completion, cost = self._tokens
        self._usage = usage
        self._tokens = (
            prompt + meter.prompt_tokens,
            completion + meter.completion_tokens,
            add_costs(cost, meter.cost_usd),
        )
        return {
            "usage": usage,
            "model": model,
            "prompt_tokens": self._tokens[0],
            "completion_tokens": self._tokens[1],
            "cost_usd": self._tokens[2],
        }
