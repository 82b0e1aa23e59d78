"""The writer: title, body and tags, grounded in the brief and the research evidence.

It also redoes the draft: after an editor rejected it (`userFeedback["writer_agent"]`, consumed here),
and after a failed review (`reviewFeedback`, whichever agent owned it — the writer always runs again
after research, and owns platformFit). On a redo the previous draft is in the prompt so the model can
keep what worked and change what did not.

After drafting, the writer holds the draft against the critic's text checks (`agents.checks.text`) and
records what failed in `draftChecks`: the supervisor sends a failing draft back (bounded) before the editor
ever sees it. A redo gets the failed checks as concrete instructions ("不要出现「成都」"), and the redo is
checked against the editor's feedback (`tools.feedback`): what it did not do is said in a `message`.

The draft streams: as the model's JSON grows, `DraftStream` sends what was added to the title and the body
as ephemeral `content_delta` events (coalesced, but the first characters of each go out at once), then the
final `content_update` is sent as before.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from agents.artifacts import Brief, Draft, EvidencePack, SpanRewrite
from agents.checks import Finding
from agents.checks.form import TAGS_MIN, stray_tags
from agents.checks.text import text_findings
from agents.checks.textutil import scope_of
from agents.context import StudioContext
from agents.events import ContentDelta, ContentUpdate, Event, Message, emit
from agents.grounding import Scope
from agents.node import agent, prompt
from agents.review import review_feedback_text
from agents.state import StudioState
from tools import feedback as editor_feedback
from tools.entities import ADVICE_DOMAINS

NAME = "writer_agent"
COALESCE_S = 0.04  # deltas at most this often…
COALESCE_CHARS = 64  # …unless this many characters are waiting
_REFERENCE_KEYS = ("usage", "style", "mood", "palette", "layout", "styleKeywords", "summary")


def evidence_for_prompt(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """The evidence a writer uses: summary, facts with sources, title patterns, tags, angles, top titles."""
    if not raw:
        return None
    pack = EvidencePack.model_validate(raw)
    return pack.model_dump(mode="json", by_alias=True, exclude={"notes"}, exclude_none=True)


def references_for_prompt(analyses: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """What the reference images say about style, compacted (no asset ids or pixel statistics)."""
    compact = [{k: a[k] for k in _REFERENCE_KEYS if a.get(k)} for a in analyses or [] if isinstance(a, dict)]
    return [c for c in compact if c] or None


def clean_tags(tags: list[str], fallback: list[str]) -> list[str]:
    """Tags without '#', de-duplicated; the fallback (brief keywords) when nothing is left."""
    stripped = (t.strip().lstrip("#").strip() for t in tags)
    cleaned = list(dict.fromkeys(t for t in stripped if t))
    return cleaned or list(dict.fromkeys(fallback))[:8]


_QUOTED = re.compile(r"「([^」]{2,40})」")
_FIXES = {
    "duplicate": "去掉重复的句子和段落",
    "cta_mismatch": "结尾换一句适合这类笔记的互动引导",
    "title_length": "标题不超过20个字",
    "title_pasted": "标题换个写法，不要照搬需求原文",
    "tag_count": "换一批标签，保留3到8个",
    "tag_unrelated": "换一批标签，只用和主题相关的",
    "topic_drift": "只写和主题有关的内容",
}


def check_instructions(findings: list[Mapping[str, str]], request: str, brief: Mapping | None,
                       draft: Mapping | None) -> list[str]:
    """Failed checks as instructions any model can follow — and the offline model applies."""
    if not findings or not draft:
        return []
    text = " ".join([str(draft.get("title") or ""), str(draft.get("body") or ""),
                     *map(str, draft.get("tags") or [])])
    scope = Scope.of(request, brief)
    out: list[str] = []
    for finding in findings:
        check = finding.get("check", "")
        if check in ("foreign_place", "tag_foreign_place"):
            out += [f"不要出现「{p}」" for p in scope.foreign(text)]
        elif check == "off_topic_advice":
            stray = scope.stray_advice(text)
            out += [f"不要出现「{w}」" for d in stray for w in ADVICE_DOMAINS[d] if w in text]
        elif check in ("stock_phrase", "cut_off", "topic_drift", "tag_unrelated"):
            quoted = [q.rstrip("…") for q in _QUOTED.findall(finding.get("reason", ""))]
            out += [f"不要出现「{q}」" for q in quoted if q in text and q not in request]
        if check in _FIXES:
            out.append(_FIXES[check])
    return list(dict.fromkeys(out))


_NEW_SUBJECT = re.compile(r"^(?:换个主题|主题改成|主题换成|换成|改成|改写成)[，,：:\s]*(?:写)?")
HISTORY_KEPT = 6  # the latest revision requests the writer is shown
HISTORY_CHARS = 200  # …each cut to this many characters


def revision_history(state: StudioState) -> list[dict[str, str]] | None:
    """The creator's revision requests on this thread, oldest first (the last is this one), each with the
    title before it — bounded, so a long conversation never crowds the prompt. None on a first run."""
    asked = (state.get("revisions") or [])[-HISTORY_KEPT:]
    return [
        {"request": str(r.get("message") or "")[:HISTORY_CHARS],
         "titleBefore": str(r.get("titleBefore") or "")}
        for r in asked
        if isinstance(r, dict)
    ] or None


def _redo_text(state: StudioState) -> str | None:
    """The review feedback for the prompt, with the failed checks as instructions."""
    review = state.get("reviewFeedback") or None
    text = review_feedback_text(review)
    if (review or {}).get("source") == "draft_checks":
        checks = (state.get("draftChecks") or {}).get("findings")
    else:
        checks = (state.get("qualityScores") or {}).get("checks")
    steps = check_instructions(checks or [], state.get("request", ""), state.get("creativeBrief"),
                               state.get("generatedContent")) if review else []
    if steps:
        text = (text or "") + "\n具体修改：\n" + "\n".join(f"- {s}" for s in steps)
    return text


def _report_feedback(
    feedback: str | None, draft: dict[str, Any], previous: Mapping | None, topic: str = ""
) -> None:
    """Say plainly what of the editor's feedback this redo did not do (never a silent reshuffle)."""
    if previous and all(draft.get(k) == previous.get(k) for k in ("title", "body", "tags")):
        emit(Message(agent=NAME, content="这一版和上一版完全相同：没能按意见改动，请换个说法再试"))
        return
    if not feedback:
        return
    wanted = editor_feedback.parse(feedback)
    misses = editor_feedback.unmet(wanted, draft, previous)
    # a new subject (换成秋天露营) is the brief's to act on: done when the brief's topic says it
    subjects = {c: _NEW_SUBJECT.sub("", c) if _NEW_SUBJECT.match(c) else "" for c in wanted.unparsed}
    unread = [c for c, said in subjects.items() if not (topic and said and said in topic)]
    misses += [f"没能理解「{c}」" for c in unread]
    if misses:
        emit(Message(agent=NAME, content="这些修改意见没能完全落实：" + "；".join(misses)))


_ANY_POST = ("生活方式", "日常分享", "干货分享")


def _without_stray_tags(state: StudioState, draft: Draft) -> Draft:
    """Tags about another subject or place are dropped as the tag check would name them (a model pads its
    tags from the evidence's popular ones); when fewer than three would be left, tags that fit any post
    fill in. A post with no fitting tag at all keeps its own."""
    scope = scope_of(state.get("request", ""), state.get("creativeBrief") or None)
    stray = set(stray_tags(scope, draft.model_dump(mode="json", by_alias=True)))
    kept = [t for t in draft.tags if t not in stray]
    if not stray or not kept:
        return draft
    if len(kept) < TAGS_MIN:  # #生活方式 fills in, not #通勤穿搭 on a 手账 post
        kept += [t for t in _ANY_POST if t not in kept][: TAGS_MIN - len(kept)]
    return draft.model_copy(update={"tags": kept})


def _draft_checks(state: StudioState, draft: dict[str, Any]) -> dict[str, Any]:
    """The draft against the text checks; the redo count carries over while the checks send it back."""
    findings: list[Finding] = text_findings(
        request=state.get("request", ""), brief=state.get("creativeBrief") or None, draft=draft,
        evidence=state.get("evidencePack") or None,
    )
    previous = state.get("draftChecks") or {}
    from_checks = (state.get("reviewFeedback") or {}).get("source") == "draft_checks"
    return {"findings": [f.wire() for f in findings], "redos": previous.get("redos", 0) if from_checks else 0}


class DraftStream:
    """The partial draft of one model call as `content_delta` events (`partial` is the gateway's
    `on_partial`).

    The clients' text (`sent`) only ever grows by what the model's text added after it; when the model's
    text no longer continues what it had (a re-ask or a retry streams again from the start) the next delta
    is a `reset` with the whole text so far and `attempt` counts up. Deltas are coalesced — at most one per
    `interval_s` unless `max_chars` are waiting, a timer sending what waits when the model pauses — except
    that the first characters of the title and of the body are sent the moment they arrive.
    """

    def __init__(
        self,
        agent_name: str,
        *,
        interval_s: float = COALESCE_S,
        max_chars: int = COALESCE_CHARS,
        send: Callable[[Event], None] = emit,
    ) -> None:
        self.agent = agent_name
        self.interval_s, self.max_chars, self.send = interval_s, max_chars, send
        self.latest = ("", "")  # title and body as the model has them
        self.sent = ("", "")  # … and as the clients have them
        self.attempt = 1
        self.reset = True  # the first delta of a call replaces whatever draft a client shows
        self.sent_at = -math.inf
        self.timer: asyncio.TimerHandle | None = None
        self.deltas = 0

    def partial(self, obj: dict[str, Any]) -> None:
        title, body = (v if isinstance(v := obj.get(k), str) else "" for k in ("title", "body"))
        before = self.latest
        if not (title.startswith(before[0]) and body.startswith(before[1])):
            self.attempt += 1  # the model started over
            self.reset = True
        self.latest = (title, body)
        if self.reset or (title and not self.sent[0]) or (body and not self.sent[1]):
            self.flush()  # a new text, or its first characters: at once
            return
        waiting = len(title) - len(self.sent[0]) + len(body) - len(self.sent[1])
        due = self.sent_at + self.interval_s - time.monotonic()
        if waiting >= self.max_chars or due <= 0:
            self.flush()
        elif self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(due, self.flush)

    def flush(self) -> None:
        """Send what the clients do not have yet (nothing if they have it all)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        (title, body), (shown_title, shown_body) = self.latest, self.sent
        if self.reset:
            shown_title = shown_body = ""
        elif (title, body) == self.sent:
            return
        self.send(ContentDelta(
            agent=self.agent, attempt=self.attempt, reset=self.reset,
            title_offset=len(shown_title), title_delta=title[len(shown_title):],
            body_offset=len(shown_body), body_delta=body[len(shown_body):],
        ))
        self.sent, self.reset, self.sent_at = (title, body), False, time.monotonic()
        self.deltas += 1

    def close(self) -> None:
        """The call is over: the final `content_update` follows, so nothing waiting is sent."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


async def edit_span(state: StudioState, ctx: StudioContext, span: Mapping[str, Any]) -> dict[str, Any]:
    """Highlight-to-edit: rewrite only the passage of the body the creator selected, as they asked; the
    title, the tags and the rest of the body stay as they are. The result is the person's choice, so the
    text checks on it warn (`editorEdited`) instead of sending the whole post back for a rewrite."""
    previous = dict(state.get("generatedContent") or {})
    body = str(previous.get("body") or "")
    start, end = int(span["start"]), int(span["end"])
    selected = body[start:end]
    instruction = str(span.get("instruction") or "")
    messages = prompt("span_edit").render(
        request=state.get("request", ""), post=body, selection=selected, instruction=instruction
    )
    answer = await ctx.llm.complete_structured("span_edit", messages, SpanRewrite, fresh=True)  # asked for
    lead = selected[: len(selected) - len(selected.lstrip())]
    trail = selected[len(selected.rstrip()):]
    new_text = answer.text.strip()
    spliced = body[:start] + (lead + new_text + trail if new_text else "") + body[end:]
    new_body = re.sub(r"\n{3,}", "\n\n", spliced)
    done = {"spanEdit": None, "userFeedback": {NAME: ""}}
    if new_text == selected.strip() or len(new_body.strip()) < 20:
        reason = "改完正文就太短了" if new_text != selected.strip() else "选中的文字没有变化"
        emit(Message(agent=NAME, content=f"{reason}：没能按「{instruction}」改写，请换个说法再试"))
        return {**done, "contentComplete": True, "contentApproved": False, "editorEdited": True}
    draft = Draft.model_validate({**previous, "body": new_body.strip()})
    wire = draft.model_dump(mode="json", by_alias=True)
    shown = f"「{new_text}」" if new_text else "（删去）"
    emit(Message(agent=NAME, content=f"按「{instruction}」改写了选中的文字：{shown}"))
    emit(ContentUpdate(title=draft.title, body=draft.body, tags=draft.tags))
    checks = await asyncio.to_thread(_draft_checks, state, wire)
    if checks["findings"]:
        reasons = [str(f["reason"]) for f in checks["findings"]]
        emit(Message(agent=NAME, content="自动检查提示（不会自动重写）：" + "；".join(reasons)))
    return {
        **done, "generatedContent": wire, "contentComplete": True, "contentApproved": False,
        "editorEdited": True, "draftChecks": checks,
    }


@agent(NAME)
async def writer_agent(state: StudioState, ctx: StudioContext) -> dict[str, Any]:
    """Write (or rewrite) the post from the brief, the evidence and any feedback."""
    span = state.get("spanEdit")
    if span and state.get("generatedContent"):
        return await edit_span(state, ctx, span)
    raw_brief = state.get("creativeBrief")
    brief = Brief.model_validate(raw_brief) if raw_brief else None
    feedback = (state.get("userFeedback") or {}).get(NAME) or None
    notes = [n for n in state.get("writerNotes") or [] if n]
    previous = state.get("generatedContent") or None
    messages = prompt("writer").render(
        request=state.get("request", ""),
        brief=brief,
        evidence=evidence_for_prompt(state.get("evidencePack")),
        references=references_for_prompt(state.get("referenceAnalyses")),
        feedback="\n".join(notes) or feedback,
        review_feedback=_redo_text(state),
        previous={k: previous.get(k) for k in ("title", "body", "tags")} if previous else None,
        history=revision_history(state),
    )
    stream = DraftStream(NAME)
    try:
        # a rewrite (feedback, a review's redo, a revision) wants a new draft, never the cached one
        draft = await ctx.llm.stream_structured(
            "writer", messages, Draft, on_partial=stream.partial, fresh=previous is not None
        )
    finally:
        stream.close()
    draft = draft.model_copy(update={"tags": clean_tags(draft.tags, brief.keywords if brief else [])})
    draft = _without_stray_tags(state, draft)
    wire = draft.model_dump(mode="json", by_alias=True)
    emit(Message(agent=NAME, content=f"标题：{draft.title}\n\n正文：{draft.body}"))
    emit(ContentUpdate(title=draft.title, body=draft.body, tags=draft.tags))
    _report_feedback(feedback, wire, previous, str((state.get("creativeBrief") or {}).get("topic") or ""))
    checks = await asyncio.to_thread(_draft_checks, state, wire)  # they embed sentences: off the loop
    if checks["findings"]:
        reasons = [str(f["reason"]) for f in checks["findings"]]
        emit(Message(agent=NAME, content="自动检查发现：" + "；".join(reasons)))
    return {
        "generatedContent": wire,
        "contentComplete": True,
        "contentApproved": False,
        "editorEdited": False,
        "draftChecks": checks,
        "userFeedback": {NAME: ""},  # consumed
    }
