"""Revising a finished thread: a new message on a completed, failed or aborted thread runs again only the
stages its request needs, from the thread's last state (seed 000/001's multi-turn editing: "再调整一下" works
on the last result).

`scope(message)` reads what the message asks for:

- `images` — the pictures: a message about 图 / 图片 / 配图 / 封面 / 配色 / 第N张 (the image planner redoes
  the plans with the message as its feedback, then the pictures are drawn again and reviewed — only those
  it names by position, 第2张, when it names some: the others keep their plans and pictures, `redrawOnly`);
- `full` — the whole post again: 重写 / 重新写 / 重做 / 全部重来 / 换个主题 (everything from the brief);
- `text` — anything else: title, body, tags, tone, audience, length (the writer redoes the draft with the
  message as its feedback and standing instruction; the pictures stay as they are, the cover's headline
  included, unless the message asks for the pictures too: the card checks against the new draft then only
  warn, `imagesKept`).

`revision_input(values, message, scope)` is the state update that starts the run: the flags of the stages to
redo reset (and of those built on them, per the stage table, except the pictures on a text revision), the
message handed to the stage that acts on it, the run's counters reset, and `revisionFrom` set to the number
of review rounds so far — the review gate counts and delivery chooses among this revision's rounds only.
The thread's earlier requests and feedback stay in its state (`writerNotes`, `revisions`): they are the
context the agents see, bounded as the writer bounds its notes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from agents.stages import (
    BRIEF,
    CONTENT_CHECKPOINT,
    IMAGE,
    INVALIDATES,
    PLANNER,
    PLANS_CHECKPOINT,
    REVIEW,
    STAGE,
    STAGES,
    WRITER,
)

Scope = Literal["text", "images", "full"]
MAX_REVISIONS_KEPT = 10  # the revision requests kept in the state as context

_FULL = re.compile(
    r"(?:重写|重新写|重做|全部重来|从头(?:再)?来|推翻|重新创作)(?:一篇|一下|一遍|一次)?|换个主题|换一个主题"
)
_WHOLE = re.compile(r"一篇|整篇|全部|全文|文案|正文")
_IMAGES = re.compile(
    r"第\s*[一二三四五六七八九十\d]+\s*张|配图|图片|封面|插图|海报|照片|卡片|配色|色调|(?:这|那|每)张|图(?:里|上|中)"
    r"|(?:换|改|重画|重新画|重新生成)[^，。！？!?]{0,6}图"
)


def scope(message: str) -> Scope:
    """What a revision message asks to change (see the module docstring)."""
    pictures = bool(_IMAGES.search(message))
    if _FULL.search(message) and (not pictures or _WHOLE.search(message)):  # 第2张图重做 is one picture
        return "full"
    return "images" if pictures else "text"


_NAMED_PICTURE = re.compile(r"第\s*([一二三四五六七八九十\d]+)\s*张")
_NUMERALS = {c: i for i, c in enumerate("零一二三四五六七八九十")}


def pictures_named(message: str) -> list[int]:
    """The 1-based positions of the pictures a message names (第2张 / 第二张图 …), in order; [] for none."""
    found: list[int] = []
    for match in _NAMED_PICTURE.finditer(message):
        token = match.group(1)
        number = int(token) if token.isdigit() else _NUMERALS.get(token, 0) if len(token) == 1 else 0
        if number and number not in found:
            found.append(number)
    return found


def _reset(*names: str) -> dict[str, Any]:
    return {STAGE[name].done: False for name in names}


def revision_input(values: Mapping[str, Any], message: str, chosen: Scope) -> dict[str, Any]:
    """The state update that starts a revision run of `chosen` scope with `message` (see the docstring)."""
    only: list[int] = []
    if chosen == "full":
        flags = dict(INVALIDATES[BRIEF])
        rest = _FULL.sub("", message).strip(" ，,。.！!；;：:") or message  # what the new post should be
        # a new subject or reader starts at the brief, which reads every full redo of the thread in order
        # (换成秋天露营, then 写给大学生: autumn camping for students)
        earlier = [
            r for r in values.get("revisions") or [] if isinstance(r, dict) and r.get("scope") == "full"
        ]
        redos = [_FULL.sub("", r.get("message") or "").strip(" ，,。.！!；;：:") for r in earlier]
        feedback = {BRIEF: "；".join([*(r for r in redos if r), rest]), WRITER: rest, PLANNER: rest}
    elif chosen == "images":
        flags = _reset(PLANNER, PLANS_CHECKPOINT, IMAGE, REVIEW)
        feedback = {PLANNER: message}
        only = pictures_named(message)
    else:  # the draft only: the pictures, their plans and the layout stay
        flags = _reset(WRITER, CONTENT_CHECKPOINT, REVIEW)
        feedback = {WRITER: message}
    notes = list(values.get("writerNotes") or [])
    before = str((values.get("generatedContent") or {}).get("title") or "")
    asked = {"message": message, "scope": chosen, "titleBefore": before}
    revisions = [*(values.get("revisions") or []), asked]
    return {
        **flags,
        "userFeedback": feedback,
        "writerNotes": [*notes, message] if WRITER in feedback else notes,
        "revisions": revisions[-MAX_REVISIONS_KEPT:],
        "revisionFrom": len(values.get("qualityHistory") or []),
        "reviewFeedback": None,
        "draftChecks": None,
        "editorEdited": False,
        "plansEdited": False,
        "imagesKept": chosen == "text",
        "redrawOnly": only or None,
        "spanEdit": None,
        "lastError": None,
        "done": False,
        "finalRound": None,
        "iterationCount": 0,
        "agentAttempts": {stage.name: 0 for stage in STAGES},
        "pendingConfirmation": None,
    }


# One-click rewrites of the draft (issue 17): each is a text revision with the instruction the writer — any
# model's, and the offline one's feedback operations (`tools.feedback`) — acts on.
QUICK_ACTIONS: dict[str, str] = {
    "shorter": "正文短一点",
    "longer": "正文再长一点",
    "livelier": "语气更活泼一些",
    "formal": "写得更正式一些",
    "more_emoji": "多加一些emoji",
    "fewer_emoji": "少用一点emoji",
    "new_title": "换个标题",
    "audience": "换成写给{audience}",
}
QuickAction = Literal[
    "shorter", "longer", "livelier", "formal", "more_emoji", "fewer_emoji", "new_title", "audience"
]


def quick_message(action: str, audience: str | None = None) -> str:
    """The instruction of a one-click rewrite (`audience`: who the post is for now, for `audience`)."""
    return QUICK_ACTIONS[action].format(audience=audience or "")
