"""Exceptions raised by `agents` when a run cannot be started or resumed.

StudioError (tools.errors)
└── RunError                  a run-level request that cannot be honoured
    ├── ThreadNotFound        no run with that thread id (404)
    ├── ThreadBusy            the thread is running or finished; it cannot start again (409)
    ├── NotPaused             confirm on a thread that is not waiting for anyone (409)
    ├── StaleInterrupt        confirm names an interrupt that is no longer pending (409)
    ├── InvalidConfirmation   the confirm body does not fit the pending question (422)
    └── Stopping              a run asked for while this process stops (503; retry on a peer or later)
"""

from __future__ import annotations

from tools.errors import StudioError


class RunError(StudioError):
    code = "RUN_ERROR"
    status = 400


class ThreadNotFound(RunError):
    code = "THREAD_NOT_FOUND"
    status = 404


class ThreadBusy(RunError):
    code = "THREAD_BUSY"
    status = 409


class NotPaused(RunError):
    code = "THREAD_NOT_PAUSED"
    status = 409


class StaleInterrupt(RunError):
    code = "STALE_INTERRUPT"
    status = 409


class InvalidConfirmation(RunError):
    code = "INVALID_CONFIRMATION"
    status = 422


class Stopping(RunError):
    code = "SERVER_STOPPING"
    status = 503
