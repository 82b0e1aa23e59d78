"""What an audit record says about a run decision: `confirm_details` turns a confirm's payload (and the pause
it answers) into the record's action and details — the HTTP route and the CLI's `run` / `resume` share it."""

from __future__ import annotations

import json
from typing import Any

MAX_SHOWN = 200  # characters of a changed value kept in a record


def confirm_details(payload: dict[str, Any], pending: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The audit action and details of a confirm: the decision, the feedback given, and for a modify the
    fields that changed (with their new values, cut to 200 characters each)."""
    context = (pending or {}).get("context") or {}
    kind = context.get("kind") or ("clarification" if context.get("__clarification") else None)
    question = str((pending or {}).get("question") or "")
    details: dict[str, Any] = {"kind": kind, "question": question[:MAX_SHOWN]}
    if "userResponse" in payload:
        details["answer"] = payload["userResponse"]
        return "answer", details
    action = str(payload.get("action"))
    if payload.get("userFeedback"):
        details["feedback"] = payload["userFeedback"]
    if action == "modify":
        details["changes"] = _changes(context.get("data"), payload.get("modifiedData") or {})
    return action, details


def _changes(before: Any, after: dict[str, Any]) -> list[dict[str, Any]]:
    """What a modify changed: `[{"field", "before", "after"}]` over the top-level fields (and the fields
    of each image plan, as `plans[1].prompt`)."""
    def short(value: Any) -> Any:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"

    old = before if isinstance(before, dict) else {}
    changes: list[dict[str, Any]] = []
    for field in sorted(set(after)):
        was, now = old.get(field), after[field]
        if was == now:
            continue
        if isinstance(was, list) and isinstance(now, list) and all(isinstance(x, dict) for x in was + now):
            for i, (a, b) in enumerate(zip(was, now, strict=False)):
                for key in sorted(set(a) | set(b)):
                    if a.get(key) != b.get(key):
                        changes.append({"field": f"{field}[{i + 1}].{key}", "before": short(a.get(key)),
                                        "after": short(b.get(key))})
            if len(was) != len(now):
                changes.append({"field": f"{field}.length", "before": len(was), "after": len(now)})
            continue
        changes.append({"field": field, "before": short(was), "after": short(now)})
    return changes
