"""A taken port is found before the server prepares anything, and the message names the way out."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from app.ports import port_taken, taken_message

ROOT = Path(__file__).resolve().parents[2]


def _listening() -> socket.socket:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server


def test_a_listening_port_is_taken_and_a_closed_one_is_free() -> None:
    server = _listening()
    port = server.getsockname()[1]
    assert port_taken("127.0.0.1", port)
    server.close()
    assert not port_taken("127.0.0.1", port)
    message = taken_message("127.0.0.1", 8000)
    assert "8000" in message and "PORT=8001" in message and "STUDIO_PORT" in message


def test_serve_on_a_taken_port_says_so_and_prepares_nothing(tmp_path: Path) -> None:
    server = _listening()
    port = server.getsockname()[1]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "app", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env={**os.environ, "COLUMNS": "200"},
        )
    finally:
        server.close()
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert f"端口 {port} 已被占用" in output and "STUDIO_PORT" in output
    assert "Traceback" not in output
    assert not (tmp_path / "data").exists()  # nothing migrated or seeded for a server that cannot start
