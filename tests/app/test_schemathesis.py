"""Schemathesis against the app in-process: every operation of the OpenAPI document (the SSE ones too), as
the local admin, with every check schemathesis has (server errors, status codes, content types, response
headers and bodies against their schemas, schema-valid data accepted, schema-invalid data refused, auth
enforced, unsupported methods refused with `Allow`). A failure of any check fails the test, except the
schema-valid requests the server refuses for what the document cannot express (`filter_failure`: `from`
after `to`, a reference image that is no image) and one known, reported server bug (`"imageCount": 9.0`).

Bounded and deterministic for CI: schemathesis' coverage cases (boundaries and the negations of each
constraint, a fixed set per operation) plus `MAX_EXAMPLES` derandomized Hypothesis examples per operation,
no shrinking. Runs it starts use the offline model and images (a `model` / `imageProvider` a generated body
names is replaced by the offline one); some thread ids it generates are swapped for real threads, so the
SSE operations also answer with streams, not only 404s.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.core.failures import Failure
from schemathesis.core.transport import Response
from schemathesis.hooks import HookContext
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.python import asgi

from app import migrate
from app.http.factory import create_app
from app.http.openapi import document
from app.http.routes.agent import THREAD_ID
from app.settings import Settings
from tests.serving import admin_token, bearer, events_of

pytestmark = pytest.mark.slow

MAX_EXAMPLES = 50
BASE_URL = "http://localhost"  # a Host the guard allows (schemathesis' own default is `testserver`)
FILTERED = ("/api/creatives", "/api/creatives/stats", "/api/creatives/export.csv")
THREAD_PATHS = (
    "/api/agent/threads/{threadId}",
    "/api/agent/threads/{threadId}/events",
    "/api/agent/threads/{threadId}/cancel",
    "/api/agent/threads/{threadId}/resume",
)
# a reference image that is no image: its `data` / `url` is a non-empty string, all the document can say
NOT_AN_IMAGE = frozenset({
    "IMAGE_SOURCE_INVALID", "IMAGE_BASE64_INVALID", "IMAGE_TYPE_UNSUPPORTED", "IMAGE_DECODE_FAILED",
    "IMAGE_EMPTY", "IMAGE_URL_REFUSED",
})

MAX_STREAM_EVENTS = 100_000  # read each stream to its end (schemathesis cuts one after 20 events by default)

UNKNOWN = "no-such-thread"

schema = schemathesis.openapi.from_dict(document())
schema.config.max_stream_events = MAX_STREAM_EVENTS


class Studio:
    """The app under test, its admin's headers and the threads generated ids are sometimes swapped for."""

    def __init__(self, app: Any, headers: dict[str, str], threads: list[str]) -> None:
        self.app, self.headers, self.threads = app, headers, threads


def _real_thread(generated: Any, threads: list[str], otherwise: str | None = None) -> Any:
    """A real thread for about half the well-formed generated ids (chosen by the id, so runs repeat), the
    other half kept (or `otherwise`); a malformed id (a negative case) is kept as it is."""
    if not isinstance(generated, str) or not re.fullmatch(THREAD_ID.strip("^$"), generated):
        return generated
    pick = sum(map(ord, generated))
    return threads[pick // 2 % len(threads)] if pick % 2 == 0 else (otherwise or generated)


def _offline_and_real_threads(case: schemathesis.Case, threads: list[str]) -> None:
    """Runs use the offline models; some generated thread ids become real threads.

    Edited before the call, only ever from one valid value to another (schemathesis does not judge an
    edited case again): a `model` / `imageProvider` within its length becomes the offline one; a well-formed
    thread id may become a real thread's. Whether a confirm's body fits the pause is up to the pause (an
    answer to a clarification question, an action to a checkpoint, changes a modify can apply: else a 422
    INVALID_CONFIRMATION no document can foresee), so a confirm never goes to a thread the generated runs
    made (they may be clarification questions): an `approve` or `reject` may go to one of our checkpoints,
    any other to a thread that does not exist (404)."""
    body = case.body
    if case.path == "/api/agent/stream" and isinstance(body, dict):
        for name, offline in (("model", "studio/offline"), ("imageProvider", "offline")):
            if isinstance(body.get(name), str) and len(body[name]) <= 200:
                body[name] = offline
    if case.path == "/api/agent/confirm" and isinstance(body, dict) and "threadId" in body:
        checkpoint = body.get("action") in ("approve", "reject") and "modifiedData" not in body
        body["threadId"] = _real_thread(body["threadId"], threads if checkpoint else [UNKNOWN], UNKNOWN)
    if case.path in THREAD_PATHS and "threadId" in case.path_parameters:
        case.path_parameters["threadId"] = _real_thread(case.path_parameters["threadId"], threads)


def _error_code(response: Response) -> str | None:
    try:
        return str(json.loads(response.content)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


@schema.hook
def filter_failure(
    context: HookContext, failure: Failure, case: schemathesis.Case, response: Response
) -> bool:
    """Keep every failure but the 422s for schema-valid requests that the OpenAPI document cannot express
    (a rule across two values, what a string holds) and the one known, reported server bug."""
    if not isinstance(failure, RejectedPositiveData) or response.status_code != 422:
        return True
    code = _error_code(response)
    # `from` later than `to` on the creatives filters: each is a valid day, the pair is refused
    if case.path in FILTERED and code == "VALIDATION_ERROR":
        start, end = _day(case.query.get("from")), _day(case.query.get("to"))
        if start is not None and end is not None and start > end:
            return False
    # an edit's mask that is a string but not a PNG of the picture's size with something marked, or a layout
    # or text the picture's own plan does not take
    if case.path == "/api/assets/{id}/edit" and code in ("INVALID_MASK", "INVALID_EDIT"):
        return False
    if case.path != "/api/agent/stream" or not isinstance(case.body, dict):
        return True
    # a reference image whose data / url is a string but not an image (or a link to one)
    if code in NOT_AN_IMAGE:
        return not case.body.get("referenceImages")
    return True


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory, knowledge_dir: Path) -> Iterator[Studio]:
    """The app on its own data dir with the seeded knowledge store, the offline models whatever the
    environment says, run limits out of the way (429 is in the document, but would only cut the runs
    short), started the way schemathesis reaches it."""
    data_dir = tmp_path_factory.mktemp("schemathesis") / "data"
    studio_settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=data_dir, render_workers=0, llm_model="studio/offline",
        vision_model=None, image_provider="offline", web_search_model=None,
        max_starts_per_minute=10_000, max_concurrent_runs_per_user=1_000,
    )
    studio_settings.ensure_dirs()
    shutil.copytree(knowledge_dir, studio_settings.store_dir, dirs_exist_ok=True)
    asyncio.run(migrate.upgrade_async(studio_settings.db_url))
    app = create_app(studio_settings)
    try:
        # the client starts the app's lifespan, which stays up for every test of the module
        with asgi.get_client(app, max_stream_events=MAX_STREAM_EVENTS) as client:
            client.base_url = BASE_URL
            assert client.get("/healthz").status_code == 200
            headers = bearer(admin_token(data_dir))
            assert client.get("/openapi.json", headers=headers).json() == document()  # what is served
            threads = []
            for extra in ({}, {}, {"enableHITL": False}):  # two paused at the first checkpoint, one done
                body = {"message": "周末露营笔记", "imageCount": 1, **extra}
                response = client.post("/api/agent/stream", json=body, headers=headers)
                assert response.status_code == 200, response.text[:300]
                threads.append(events_of(response.text)[0]["threadId"])
            yield Studio(app, headers, threads)
    finally:
        # the app's shutdown, then the event loop schemathesis ran it on (what it would do at exit, where a
        # task still pending on that loop, litellm's logging worker, is reported destroyed)
        asgi.shutdown_lifespans()
        asgi._shutdown()


@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found
    suppress_health_check=list(HealthCheck),
)
@schema.parametrize()
def test_the_server_keeps_to_its_openapi_document(case: schemathesis.Case, studio: Studio) -> None:
    case.operation.schema.app = case.operation.app = studio.app  # the probes of the checks reach it too
    _offline_and_real_threads(case, studio.threads)
    case.call_and_validate(base_url=BASE_URL, headers=dict(studio.headers))


def test_every_operation_is_tested() -> None:
    operations = {(path, method) for path, item in document()["paths"].items() for method in item}
    tested = {
        (result.ok().path, result.ok().method.lower()) for result in schema.get_all_operations()
    }
    assert tested == operations
