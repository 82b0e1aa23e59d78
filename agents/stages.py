"""The stage table: every node of the workflow but the supervisor and finalize, one row each.

Everything the workflow knows about a stage is read from its row, nowhere else:

- the supervisor's routes (`ROUTES`, `Route`) and what it dispatches: the stages of the request's path (its
  intent) that are not done yet, the first of them — and those right after it that are ready too, which run
  in the same super-step (research ∥ reference);
- the graph (`agents/graph.py`): one node per row, each returning to the supervisor, or straight to its
  checkpoint when it has one;
- `workflow_progress`: each row's weight, over the weights of the request's path;
- redo invalidation: sending work back to a stage resets its flag and the flag of every stage that builds
  on it (`needs`, transitively) — not of those that only wait for it (`waits_for`);
- backflow: which stage redoes the work a review dimension failed on (`owns`);
- what a failure means (`on_error`, seed 003's errorStrategy: retry n / skip / abort).

Adding an agent is its module (an `@agent(name)` function), its prompt and one row here (plus its
Chinese name in `tools/labels.py`'s `agent` table, like every identifier the studio shows).

Error strategies. A failure the node reports as `critical` (authentication, a spending cap, a bug) always
ends the run. Otherwise a retryable failure — and not one the call's own retry layer already retried — is
rerun while the stage has runs left (`retry(n)`: n reruns), then the strategy's end applies:

- research and reference analysis `skip`: the post can be written from the brief alone, and in the
  theme's default style, so after one rerun the run goes on without them (their flags set, their
  artifacts left as they were: none on a first run, the previous ones on a redo), and says so;
- every other stage `retry(1)` then aborts (what the seed calls abort; the run ends with the failure's
  `error` event): a post without its brief, text, layout, plans, pictures or review is not a post, and the
  review gate is never skipped. This is the behaviour the studio always had.

Checkpoints and the clarification question call no model and report no failures (`abort()`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any, Literal, get_args

from agents.artifacts import DIMENSIONS, Intent

# Node names, in the seed's order.
INTENT = "intent"
CLARIFY = "clarification"
BRIEF = "brief_compiler_agent"
RESEARCH = "research_evidence_agent"
REFERENCE = "reference_intelligence_agent"
WRITER = "writer_agent"
CONTENT_CHECKPOINT = "content_checkpoint"
LAYOUT = "layout_planner_agent"
PLANNER = "image_planner_agent"
PLANS_CHECKPOINT = "plans_checkpoint"
IMAGE = "image_agent"
REVIEW = "review_agent"
ANSWER = "answer_agent"
FINALIZE = "finalize"  # not a stage: the graph's exit, which delivers the result or the error

POST: frozenset[Intent] = frozenset({"full_post"})
IMAGES: frozenset[Intent] = frozenset({"image_only"})
ANSWERS: frozenset[Intent] = frozenset({"question", "time_query"})
EVERY_PATH: frozenset[Intent] = frozenset(get_args(Intent))
DEFAULT_INTENT: Intent = "full_post"  # the path before the intent is known (and for an unknown one)


@dataclass(frozen=True)
class OnError:
    """What a stage's failure means (seed 003): `retries` reruns, then `abort` the run or `skip` the stage."""

    retries: int
    then: Literal["abort", "skip"]
    note: str = ""  # skip: what the run goes on without, told in the supervisor's reason (Chinese)

    @property
    def kind(self) -> Literal["retry", "skip", "abort"]:
        """The seed's name for it."""
        if self.then == "skip":
            return "skip"
        return "retry" if self.retries else "abort"


def retry(n: int) -> OnError:
    """Rerun a retryable failure up to `n` times, then end the run."""
    return OnError(n, "abort")


def skip(note: str, *, retries: int = 1) -> OnError:
    """Rerun a retryable failure up to `retries` times, then go on without the stage's result."""
    return OnError(retries, "skip", note)


def abort() -> OnError:
    """End the run at the stage's first failure."""
    return OnError(0, "abort")


RETRY_ONCE = retry(1)  # the default: what every stage had before the table


@dataclass(frozen=True)
class Stage:
    """One row of the table. `needs` and `waits_for` name earlier rows only (the table is in run order)."""

    name: str  # node name, as in events
    node: str  # "module:function" — imported when the graph is built (the module imports this table)
    phase: str  # what the workflow is doing while it runs (`workflow_progress.phase`, Chinese)
    reason: str  # why the supervisor sends the run here (`supervisor_decision.reason`, Chinese)
    done: str  # the state key a finished stage sets (truthy); a redo resets it
    paths: frozenset[Intent]  # the intents whose runs go through it
    needs: tuple[str, ...] = ()  # built on: they run first, and a redo of one of them redoes this stage
    waits_for: tuple[str, ...] = ()  # they run first too, but a redo of them keeps this stage's work
    weight: int = 0  # its share of the progress bar
    checkpoint: str | None = None  # the pause that follows it directly (the content / image_plans checkpoint)
    on_error: OnError = RETRY_ONCE
    owns: tuple[str, ...] = ()  # review dimensions whose failure it redoes (backflow)
    unless: Callable[[Mapping[str, Any]], bool] | None = None  # holds: not needed now (counts as done)

    def finished(self, state: Mapping[str, Any]) -> bool:
        """Done, or not needed in this state."""
        return bool(state.get(self.done)) or (self.unless is not None and self.unless(state))

    def load(self) -> Callable[..., Any]:
        """The node function (imported here, not at the top: every agent module imports this table)."""
        module, function = self.node.split(":")
        loaded: Callable[..., Any] = getattr(import_module(module), function)
        return loaded


# --- predicates the rows use --------------------------------------------------------------------------
_VAGUE_SCAFFOLD = re.compile(
    r"帮我|帮忙|请|麻烦|给我|写|来|一篇|一条|一份|一个|篇|条|个|点|些|小红书|笔记|文案|帖子|内容|东西|随便|什么|吧|的|了|呢|啊"
)


def needs_clarification(request: str) -> bool:
    """Too vague to write about: nothing left once the request scaffolding is removed."""
    core = _VAGUE_SCAFFOLD.sub("", re.sub(r"[\s\W_]+", "", request))
    return len(core) < 2


def _clear_enough(state: Mapping[str, Any]) -> bool:
    """The clarification question is for a vague request before its brief, and asked at most once."""
    return bool(state.get("briefComplete")) or not needs_clarification(state.get("request", ""))


# --- the table ----------------------------------------------------------------------------------------
STAGES: tuple[Stage, ...] = (
    Stage(INTENT, "agents.intake:intent", "理解需求", "先识别用户意图", "intent", EVERY_PATH),
    Stage(
        CLARIFY, "agents.hitl:clarification", "澄清需求", "需求过于模糊，先向用户澄清主题",
        "agentClarificationKeys", POST, needs=(INTENT,), on_error=abort(), unless=_clear_enough,
    ),
    Stage(
        BRIEF, "agents.brief_compiler:brief_compiler_agent", "梳理创作简报", "梳理创作简报",
        "briefComplete", POST, needs=(CLARIFY,), weight=1,
    ),
    Stage(
        RESEARCH, "agents.research_evidence:research_evidence_agent", "调研素材", "简报已就绪，调研素材",
        "evidenceComplete", POST, needs=(BRIEF,), weight=1, owns=("infoDensity",),
        on_error=skip("不用调研素材，按简报直接写作"),
    ),
    Stage(
        REFERENCE, "agents.reference_intelligence:reference_intelligence_agent", "解析参考图",
        "简报已就绪，解析参考图", "referenceIntelligenceComplete", POST, needs=(BRIEF,), weight=1,
        owns=("styleConsistency",), on_error=skip("不用参考图，按主题默认风格处理"),
    ),
    Stage(
        WRITER, "agents.writer:writer_agent", "撰写文案", "素材齐备，开始撰写文案", "contentComplete", POST,
        needs=(RESEARCH,), waits_for=(REFERENCE,), weight=2, checkpoint=CONTENT_CHECKPOINT,
        owns=("platformFit",),
    ),
    Stage(
        CONTENT_CHECKPOINT, "agents.hitl:content_checkpoint", "确认文案", "文案待确认", "contentApproved",
        POST, needs=(WRITER,), on_error=abort(),
    ),
    Stage(
        LAYOUT, "agents.layout_planner:layout_planner_agent", "规划版式", "文案已确认，规划版式",
        "layoutComplete", POST, needs=(CONTENT_CHECKPOINT,), weight=1, owns=("textImageAlignment",),
    ),
    Stage(
        PLANNER, "agents.image_planner:image_planner_agent", "规划配图", "规划配图", "imagePlansComplete",
        POST | IMAGES, needs=(LAYOUT, REFERENCE), weight=1, checkpoint=PLANS_CHECKPOINT,
        owns=("readability",),
    ),
    Stage(
        PLANS_CHECKPOINT, "agents.hitl:plans_checkpoint", "确认配图规划", "图片规划待确认",
        "imagePlansApproved", POST | IMAGES, needs=(PLANNER,), on_error=abort(),
    ),
    Stage(
        IMAGE, "agents.image:image_agent", "生成图片", "图片规划已确认，开始生成图片", "imagesComplete",
        POST | IMAGES, needs=(PLANS_CHECKPOINT,), weight=2,
    ),
    Stage(
        REVIEW, "agents.review:review_agent", "质量审核", "进入质量审核（不可跳过）", "reviewComplete",
        POST | IMAGES, needs=(IMAGE,), weight=1,
    ),
    Stage(ANSWER, "agents.answer:answer_agent", "直接回答", "问答类请求，直接回答", "answer", ANSWERS,
          needs=(INTENT,), weight=1),
)

STAGE: dict[str, Stage] = {s.name: s for s in STAGES}
ROUTES: tuple[str, ...] = (*STAGE, FINALIZE)  # every node the supervisor may send the run to
Route: Any = Literal[ROUTES]  # the same, as a type for validators (derived: never out of step)
GATE = REVIEW  # the stage whose report the supervisor's quality gate judges at the end of a path


class UnknownRoute(LookupError):
    """The supervisor was asked to send the run to a node the table does not know."""


# --- what the table implies -----------------------------------------------------------------------------
def path_of(state: Mapping[str, Any]) -> tuple[Stage, ...]:
    """The stages a run of this intent goes through, in run order."""
    intent = (state.get("intent") or {}).get("intent")
    chosen = intent if intent in EVERY_PATH else DEFAULT_INTENT
    return tuple(s for s in STAGES if chosen in s.paths)


@cache
def upstream(name: str) -> tuple[Stage, ...]:
    """Every stage `name` needs or waits for, directly or not."""
    stage = STAGE[name]
    direct = (*stage.needs, *stage.waits_for)
    found = {n for d in direct for n in (d, *(s.name for s in upstream(d)))}
    return tuple(s for s in STAGES if s.name in found)


def ready(stage: Stage, state: Mapping[str, Any], path: tuple[Stage, ...]) -> bool:
    """Everything before it is finished (a stage off the path counts as finished). Transitively: a stage
    that is not needed (the clarification of a clear request) does not make the ones after it ready."""
    on_path = {s.name for s in path}
    return all(s.finished(state) for s in upstream(stage.name) if s.name in on_path)


def due(state: Mapping[str, Any]) -> tuple[Stage, ...]:
    """What the supervisor dispatches: the first unfinished stage of the path and those right after it that
    are ready too (they run in the same super-step). Empty when the path is done."""
    path = path_of(state)
    batch: list[Stage] = []
    for stage in (s for s in path if not s.finished(state)):
        if not ready(stage, state, path):
            break
        batch.append(stage)
    return tuple(batch)


@cache
def builds_on(name: str) -> tuple[Stage, ...]:
    """The stages built on `name`'s output, directly or not, in run order."""
    found: set[str] = set()
    for stage in STAGES:
        if name in stage.needs or found.intersection(stage.needs):
            found.add(stage.name)
    return tuple(s for s in STAGES if s.name in found)


def invalidation(name: str) -> dict[str, Any]:
    """What sending the run back to `name` resets: its own flag and the flags of everything built on it."""
    return {s.done: False for s in (STAGE[name], *builds_on(name))}


INVALIDATES: dict[str, dict[str, Any]] = {s.name: invalidation(s.name) for s in STAGES}
DIMENSION_OWNER: dict[str, str] = {d: s.name for s in STAGES for d in s.owns}


def owner_on_path(name: str, path: tuple[Stage, ...]) -> str | None:
    """Who redoes `name`'s work on this path: the stage itself, else the first stage on the path built on it
    (an image-only run has no layout planner: the image planner acts on its feedback)."""
    on_path = {s.name for s in path}
    return next((s.name for s in (STAGE[name], *builds_on(name)) if s.name in on_path), None)


def progress_of(state: Mapping[str, Any]) -> float:
    """Share of the request's path done, by the stages' weights (0..1)."""
    path = path_of(state)
    total = sum(s.weight for s in path)
    done = sum(s.weight for s in path if s.finished(state))
    return round(done / total, 3) if total else 0.0


def check_table(stages: tuple[Stage, ...]) -> None:
    """Raise ValueError where the table contradicts itself; checked when this module is imported."""
    earlier: dict[str, Stage] = {}
    for stage in stages:
        where = f"stage table, {stage.name}"
        if stage.name in earlier or stage.name in (FINALIZE, "supervisor"):
            raise ValueError(f"{where}: the name is taken")
        if unknown := [n for n in (*stage.needs, *stage.waits_for) if n not in earlier]:
            raise ValueError(f"{where}: needs or waits for {unknown}, which are not earlier rows")
        if not stage.paths <= EVERY_PATH or stage.weight < 0 or stage.on_error.retries < 0:
            raise ValueError(f"{where}: paths must be intents, weights and retries at least 0")
        earlier[stage.name] = stage
    for stage in stages:
        pause = earlier.get(stage.checkpoint) if stage.checkpoint else None
        if stage.checkpoint and (pause is None or stage.name not in pause.needs):
            raise ValueError(f"stage table, {stage.name}: its checkpoint must be a row that needs it")
    owners = sorted(d for s in stages for d in s.owns)
    if owners != sorted(DIMENSIONS):
        raise ValueError(f"stage table: every review dimension needs exactly one owner, not {owners}")


check_table(STAGES)
