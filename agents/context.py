"""Run dependencies, passed to every node through LangGraph's runtime context (never in state)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tools.assets import AssetStore
from tools.images import ImageProvider
from tools.knowledge import KnowledgeStore
from tools.llm import LLMGateway

DIMENSION_KEYS = ("infoDensity", "textImageAlignment", "styleConsistency", "readability", "platformFit")


@dataclass(frozen=True)
class RunOptions:
    """The workflow knobs agents need, copied from settings by whoever builds the context."""

    thresholds: dict[str, float] = field(
        default_factory=lambda: {"overall": 0.72, **{k: 0.6 for k in DIMENSION_KEYS}}
    )
    max_review_rounds: int = 3
    max_iterations: int = 40
    image_concurrency: int = 4
    node_timeout_s: float = 300.0
    style_similarity_threshold: float = 0.45
    llm_fallback_budget: int = 3
    intent_min_confidence: float = 0.6
    image_max_bytes: int = 10 * 1024 * 1024
    # Benchmarks only: mimic the original single-chain design — one supervisor LLM call per decision,
    # research and reference one after the other, one image at a time (see docs/benchmarks.md).
    sequential_baseline: bool = False

    @property
    def effective_image_concurrency(self) -> int:
        """How many images may generate at once: 1 in the sequential baseline, else the setting."""
        return 1 if self.sequential_baseline else max(1, self.image_concurrency)


def default_asset_url(asset_id: int) -> str:
    return f"/api/assets/{asset_id}"


@dataclass(frozen=True)
class StudioContext:
    """Everything a node may call. Built per run (the LLM view carries the run's usage meter)."""

    llm: LLMGateway
    knowledge: KnowledgeStore
    images: ImageProvider
    assets: AssetStore
    sessions: async_sessionmaker[AsyncSession]
    options: RunOptions = field(default_factory=RunOptions)
    creative_id: int | None = None
    asset_url: Callable[[int], str] = default_asset_url
