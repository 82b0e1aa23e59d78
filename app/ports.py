"""Is the port free? Asked before the server prepares anything, so a taken port costs a newcomer one clear
sentence naming the setting — not a migration, a seed and a uvicorn traceback."""

from __future__ import annotations

import errno
import socket


def port_taken(host: str, port: int) -> bool:
    """Would binding `host:port` fail because something already listens there?"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is free
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def taken_message(host: str, port: int) -> str:
    return (
        f"端口 {port} 已被占用（{host}:{port}）：可能另一个工作室已在运行。"
        f"换一个端口：make run PORT={port + 1}，或 studio serve --port {port + 1}，"
        f"或设置环境变量 STUDIO_PORT={port + 1}"
    )


def local_url(host: str, port: int) -> str:
    """How this machine reaches a server bound to `host:port`: a wildcard bind through the loopback address,
    an IPv6 address in brackets."""
    local = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    return f"http://[{local.strip('[]')}]:{port}" if ":" in local else f"http://{local}:{port}"
