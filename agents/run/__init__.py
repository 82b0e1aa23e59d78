"""The run core: everything about running a workflow and keeping it in the database.

    request.py   what a run is asked for (`RunRequest`, reference images)
    store.py     `RunStore`: every read and write of creatives, run events, leases and workers
    writer.py    group commit for the store's hot writes (`BatchWriter`)
    recorder.py  what each event means for the creative row; stamping events
    leases.py    `LeaseKeeper`: renewing this process's leases, cancels asked by other processes
    runner.py    `WorkflowRunner`: prepare (validate, claim, lease) and stream one run segment
    bus.py       `LogWatcher`: waking followers of runs another process runs
    manager.py   `RunManager`: runs as background tasks, followers, cancels, the sweeper, graceful stop
    versions.py  `Versions`: a creative's versions (one per completed run or restore), diffs, restores

Routes and the CLI use what this package exports, nothing below it.
"""

from agents.run.leases import HANDED_ON
from agents.run.manager import Run, RunManager, reconnect
from agents.run.recorder import ABORTED, INTERRUPTED
from agents.run.request import ReferenceImageInput, RunRequest, reference_from_path
from agents.run.runner import Resources, RunHandle, WorkflowRunner
from agents.run.store import PausedThread, RunStore, Worker
from agents.run.versions import (
    VersionConflict,
    VersionNotFound,
    Versions,
    char_diff,
    version_diff,
    version_wire,
)
from agents.run.writer import BatchWriter

__all__ = [
    "ABORTED",
    "HANDED_ON",
    "INTERRUPTED",
    "BatchWriter",
    "PausedThread",
    "ReferenceImageInput",
    "Resources",
    "Run",
    "RunHandle",
    "RunManager",
    "RunRequest",
    "RunStore",
    "VersionConflict",
    "VersionNotFound",
    "Versions",
    "Worker",
    "WorkflowRunner",
    "char_diff",
    "reconnect",
    "reference_from_path",
    "version_diff",
    "version_wire",
]
