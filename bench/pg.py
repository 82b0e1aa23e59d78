"""A throwaway PostgreSQL, no Docker: the machine's `initdb` and `pg_ctl` (Debian's `postgresql`, which
`make dev` installs) start a cluster in a temporary directory, on a free port of 127.0.0.1 with trust
authentication and no durability (fsync off: it is thrown away). `create_database` makes an empty database
(a few tens of milliseconds); `stop` stops the cluster and removes it.

PostgreSQL refuses to run as root, which developers and CI are: a root process runs the cluster as the
unprivileged `postgres` user (`runuser -u postgres`) in a directory that user owns. Should the process that
started it end without stopping it (killed, a `timeout`), a watchdog stops it and removes it.

The tests (tests/pg.py, their fixtures in tests/conftest.py) and the benchmarks (`bench.concurrency
--database postgresql`) share it; the tests add only how a missing PostgreSQL skips or fails them.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg

from bench.server import free_port

Finished = subprocess.CompletedProcess[str]
OS_USER = "postgres"  # who runs the cluster when we run as root
SUPERUSER = "postgres"  # the cluster's own superuser, whom clients connect as
INITDB = ("--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync", "--username", SUPERUSER)
SETTINGS = """
listen_addresses = '127.0.0.1'
unix_socket_directories = '{root}'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
"""


def find_bindir() -> Path | None:
    """Where `initdb` and `pg_ctl` are: on PATH, else in Debian's /usr/lib/postgresql/VERSION/bin."""
    if initdb := shutil.which("initdb"):
        return Path(initdb).parent
    found = [path.parent for path in Path("/usr/lib/postgresql").glob("*/bin/initdb")]
    return max(found, key=lambda bindir: int(bindir.parent.name), default=None)


def unavailable() -> str | None:
    """Why no cluster can be started here, or None."""
    if find_bindir() is None:
        return "PostgreSQL is not installed: no initdb (`make dev` installs Debian's postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OS_USER)
        except KeyError:
            return f"running as root, and there is no `{OS_USER}` user to run PostgreSQL as"
    return None


class PostgresCluster:
    """One cluster in a temporary directory: `start()`, `create_database()`, `stop()` (which removes it)."""

    def __init__(self, bindir: Path, *, prefix: str = "studio-pg-") -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self._numbers = itertools.count(1)

    def start(self) -> PostgresCluster:
        if os.geteuid() == 0:
            shutil.chown(self.root, OS_USER, OS_USER)
        self._run("initdb", "-D", self.data, *INITDB)
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(SETTINGS.format(root=self.root))
        for _ in range(3):  # another process may take the free port before the server binds it
            self.port = free_port()
            started = self._pg_ctl("start", "--log", self.log, "--options", f"-p {self.port}", check=False)
            if started.returncode == 0:
                self._watch()
                return self
        raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n{self.server_log()}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "studio_test") -> str:
        """A new, empty database: its `postgresql://` URL."""
        name = f"{prefix}_{next(self._numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def server_pids(self) -> list[int]:
        """The postmaster and its children (backends, background workers): whose CPU is the database's."""
        try:
            postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields and int(fields[1]) == postmaster:
                children.append(int(stat.parent.name))
        return [postmaster, *children]

    def stop(self) -> None:
        """Stop the server (ending its connections) and remove the cluster."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._pg_ctl("stop", "--mode", "fast")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def server_log(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _watch(self) -> None:
        """A watchdog, in the background of a session of its own (a kill of our process group spares it):
        once this process is gone, it stops the server if it still runs and removes the cluster."""
        stop = shlex.join(self._command("pg_ctl", "stop", "-D", self.data, "--mode", "immediate"))
        remove = shlex.join(["rm", "-rf", str(self.root)])
        script = f"(while kill -0 {os.getpid()}; do sleep 1; done; {stop}; {remove}) &"
        quiet = subprocess.DEVNULL
        subprocess.run(["sh", "-c", script], cwd="/", start_new_session=True, stdin=quiet, stdout=quiet,
                       stderr=quiet, check=True)

    def _pg_ctl(self, action: str, *args: str | Path, check: bool = True) -> Finished:
        return self._run("pg_ctl", action, "-D", self.data, "--wait", "--timeout=60", *args, check=check)

    def _run(self, program: str, *args: str | Path, check: bool = True) -> Finished:
        command = self._command(program, *args)
        return subprocess.run(command, cwd=self.root, check=check, capture_output=True, text=True, timeout=90)

    def _command(self, program: str, *args: str | Path) -> list[str]:
        """One of PostgreSQL's programs, as the unprivileged user when we are root."""
        command = [str(self.bindir / program), *map(str, args)]
        return ["runuser", "-u", OS_USER, "--", *command] if os.geteuid() == 0 else command
