"""Process-wide resources built from settings: database, checkpointer, knowledge store, LLM gateway,
image providers — opened once (server lifespan or a CLI command) and closed together."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from functools import cache
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agents.context import RunOptions
from agents.graph import build_graph
from agents.run import BatchWriter, Resources
from app.settings import Settings
from tools.assets import AssetStore
from tools.database import create_engine, is_postgresql, libpq_url, session_factory
from tools.images import OFFLINE_NAMES, ImageProvider, make_image_provider
from tools.knowledge import KnowledgeStore
from tools.llm import LLMConfig, LLMGateway
from tools.providers import Endpoint, ProviderKeys, resolve
from tools.renderer import CardRenderer


def run_options(settings: Settings) -> RunOptions:
    review = settings.review
    return RunOptions(
        thresholds={
            "overall": review.overall,
            "infoDensity": review.info_density,
            "textImageAlignment": review.text_image_alignment,
            "styleConsistency": review.style_consistency,
            "readability": review.readability,
            "platformFit": review.platform_fit,
        },
        max_review_rounds=settings.max_review_rounds,
        max_iterations=settings.max_iterations,
        image_concurrency=settings.image_concurrency,
        node_timeout_s=settings.node_timeout_s,
        image_max_bytes=settings.image_max_bytes,
        sequential_baseline=settings.sequential_baseline,
    )


def provider_keys(settings: Settings) -> dict[str, ProviderKeys]:
    return {
        name.lower(): ProviderKeys(api_base=p.api_base, api_key=p.api_key)
        for name, p in settings.providers.items()
    }


def text_endpoint(settings: Settings) -> Endpoint:
    return resolve(
        settings.llm_model,
        role="text",
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key,
        providers=provider_keys(settings),
    )


def role_endpoint(settings: Settings, role: str) -> Endpoint | None:
    """The endpoint of the vision, image or web-search role, or None when its model is not set."""
    model, base, key = {
        "vision": (settings.vision_model, settings.vision_api_base, settings.vision_api_key),
        "image": (settings.image_provider, settings.image_api_base, settings.image_api_key),
        "web_search": (settings.web_search_model, settings.web_search_api_base, settings.web_search_api_key),
    }[role]
    if not model or (role == "image" and model.lower() in OFFLINE_NAMES):
        return None
    return resolve(
        model,
        role=role,
        api_base=base,
        api_key=key,
        text=text_endpoint(settings),
        providers=provider_keys(settings),
    )


def llm_config(settings: Settings) -> LLMConfig:
    text = text_endpoint(settings)
    roles = {role: e for role in ("vision", "web_search") if (e := role_endpoint(settings, role)) is not None}
    return LLMConfig(
        model=text.model,
        api_base=text.api_base,
        api_key=text.api_key,
        key_setting=text.key_setting,
        roles=roles,
        providers=provider_keys(settings),
        temperature=settings.llm_temperature,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        max_reasks=settings.llm_max_reasks,
        max_cost_usd=settings.max_run_cost_usd,
        offline_latency_ms=settings.offline_latency_ms,
        offline_failure_rate=settings.offline_failure_rate,
        offline_first_token_ms=settings.offline_first_token_ms,
        offline_chars_per_s=settings.offline_chars_per_s,
    )


def image_providers(
    settings: Settings, renderer: CardRenderer | None = None
) -> Callable[[str | None], ImageProvider]:
    """A cached factory: the default provider for None, else the named one; the offline one draws with
    `renderer`."""

    @cache
    def provider(name: str | None) -> ImageProvider:
        model = name or settings.image_provider
        endpoint = (
            None
            if model.strip().lower() in OFFLINE_NAMES
            else resolve(
                model.strip(),
                role="image",
                api_base=settings.image_api_base if model == settings.image_provider else None,
                api_key=settings.image_api_key if model == settings.image_provider else None,
                text=text_endpoint(settings),
                providers=provider_keys(settings),
            )
        )
        return make_image_provider(
            model,
            api_key=endpoint.api_key if endpoint else None,
            api_base=endpoint.api_base if endpoint else None,
            key_setting=endpoint.key_setting if endpoint else None,
            timeout=settings.image_timeout_s,
            offline_latency_ms=settings.offline_image_latency_ms,
            offline_failure_rate=settings.offline_image_failure_rate,
            renderer=renderer,
        )

    return provider


def load_text_tools() -> None:
    """jieba's dictionary (~1 s) and the sentence encoder (~1.4 s), which research and the checks use."""
    from tools import segmenter
    from tools.embeddings import embed

    segmenter.jieba()
    embed(["预热"])


async def _settle(task: asyncio.Task[Any]) -> None:
    """Wait for a warm-up at shutdown; it failing is not shutdown's business (the first call will say)."""
    with contextlib.suppress(Exception):
        await task


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """LangGraph's checkpointer: in the database when it is PostgreSQL (langgraph-checkpoint-postgres on a
    psycopg pool; `studio db upgrade` creates its tables), else in the SQLite file `checkpoint_db`."""
    if is_postgresql(settings.db_url):
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection
        from psycopg.rows import DictRow, dict_row
        from psycopg_pool import AsyncConnectionPool

        # the connections the saver's own `from_conn_string` makes
        connection = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
        async with AsyncConnectionPool(
            libpq_url(settings.db_url),
            connection_class=AsyncConnection[DictRow],
            kwargs=connection,
            min_size=1,
            max_size=10,
            open=False,
        ) as pool:
            await pool.wait()  # a database out of reach fails the start, not the first run
            yield AsyncPostgresSaver(pool)
        return
    async with AsyncSqliteSaver.from_conn_string(str(settings.checkpoint_db)) as saver:
        await saver.conn.execute("PRAGMA journal_mode=WAL")
        await saver.conn.execute("PRAGMA busy_timeout=10000")
        # WAL + NORMAL syncs at WAL checkpoints instead of every commit (one commit per graph step: ~7% of a
        # zero-latency run, docs/benchmarks.md); a power cut may lose the last steps, never corrupt the file.
        await saver.conn.execute("PRAGMA synchronous=NORMAL")
        yield saver


@asynccontextmanager
async def open_resources(settings: Settings, *, warm: bool = False) -> AsyncIterator[Resources]:
    """Everything a run needs, opened in order and closed in reverse. `warm` (the server) starts the card
    renderer's worker processes now rather than when the first card is due."""
    settings.ensure_dirs()
    async with AsyncExitStack() as stack:
        engine = create_engine(settings.db_url)
        stack.push_async_callback(engine.dispose)
        sessions = session_factory(engine)
        writer = BatchWriter(engine)
        stack.push_async_callback(writer.close)  # before the engine is disposed
        saver = await stack.enter_async_context(open_checkpointer(settings))
        knowledge = await KnowledgeStore.open(settings.store_dir)
        stack.push_async_callback(knowledge.close)
        renderer = CardRenderer(workers=settings.render_workers)
        stack.callback(renderer.close)
        if warm and settings.image_provider.lower() in OFFLINE_NAMES:
            renderer.start()  # they warm up (~1 s) while the first runs write
        llm = LLMGateway(llm_config(settings))
        if warm:  # what every first run needs, loaded in threads after start-up: the first page does not wait
            for load in (llm.litellm, load_text_tools):  # litellm's import is ~7 s of CPU
                stack.push_async_callback(_settle, asyncio.create_task(asyncio.to_thread(load)))
        yield Resources(
            graph=build_graph(saver),
            sessions=sessions,
            knowledge=knowledge,
            assets=AssetStore(settings.assets_dir, sessions, writer),
            llm=llm,
            image_provider=image_providers(settings, renderer),
            writer=writer,
            options=run_options(settings),
            hitl_default=settings.hitl_default,
            lease_s=settings.run_lease_s,
            tick_s=settings.run_tick_s,
            image_max_bytes=settings.image_max_bytes,
            allow_private_image_urls=settings.allow_private_image_urls,
        )
