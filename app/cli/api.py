"""`studio api PATH`: call a running studio's HTTP API with a token — the CLI's one HTTP command, for
scripts and for trying the API (like `gh api`).

The token comes from `--token`, else `$STUDIO_TOKEN`, else the local admin's token file that the server's
first start wrote (`<data dir>/admin-token`). The server is `--server`, else `$STUDIO_SERVER`, else the one
serving the data dir (`studio serve` notes its URL in `<data dir>/server.json` while it runs), else the
configured host and port. JSON answers are printed indented; an SSE stream is printed frame by frame as it
arrives (until `[DONE]`); an error answer prints its code and message on stderr. Exit codes: 0 for a 2xx, 1
for an error answer or no connection, 2 for bad input.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.datadir import DataDirOption, settings_for
from app.ports import local_url

METHODS = ("GET", "POST")


def _err() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def token_for(token: str | None, data_dir: Path | None) -> str | None:
    """`--token`, else `$STUDIO_TOKEN`, else the data dir's `admin-token` file, else None."""
    from app.http.auth import read_token_file, token_path

    return token or os.environ.get("STUDIO_TOKEN") or read_token_file(token_path(settings_for(data_dir)))


def server_for(server: str | None, data_dir: Path | None) -> str:
    """`--server`, else `$STUDIO_SERVER`, else where the data dir's running server listens (`server.json`),
    else the configured host and port."""
    if server or os.environ.get("STUDIO_SERVER"):
        return (server or os.environ["STUDIO_SERVER"]).rstrip("/")
    settings = settings_for(data_dir)
    running = running_server(settings.data_dir)
    if running:
        return running
    return local_url(settings.host, settings.port)


SERVER_FILE = "server.json"


def write_server_file(data_dir: Path, url: str) -> None:
    """Note where this process serves the data dir, for `studio api` (removed again when it stops)."""
    (data_dir / SERVER_FILE).write_text(json.dumps({"url": url, "pid": os.getpid()}), encoding="utf-8")


def remove_server_file(data_dir: Path) -> None:
    path = data_dir / SERVER_FILE
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def running_server(data_dir: Path) -> str | None:
    """The URL in the data dir's `server.json` while the process that wrote it is alive."""
    try:
        noted = json.loads((data_dir / SERVER_FILE).read_text(encoding="utf-8"))
        os.kill(int(noted["pid"]), 0)
        return str(noted["url"]).rstrip("/")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _body(data: str | None) -> Any:
    """`-d` as JSON: the text itself, `@file`, or `-` for standard input."""
    if data is None:
        return None
    if data == "-":
        text = sys.stdin.read()
    elif data.startswith("@"):
        try:
            text = Path(data[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            _err().print(f"[red]读不了 {escape(data[1:])}：{escape(exc.strerror or str(exc))}[/red]")
            raise typer.Exit(2) from exc
    else:
        text = data
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        _err().print(f"[red]-d 不是合法的 JSON：{escape(str(exc))}[/red]")
        raise typer.Exit(2) from exc


def api(
    path: Annotated[str, typer.Argument(metavar="路径", help="如 /api/me、/api/creatives?status=completed")],
    method: Annotated[
        str | None, typer.Option("--method", "-X", metavar="方法", help="GET 或 POST（有 -d 时默认 POST）")
    ] = None,
    data: Annotated[
        str | None,
        typer.Option("--data", "-d", metavar="JSON", help="请求体 JSON；@文件 或 - 读标准输入"),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option("--server", metavar="地址", help="服务地址（默认 $STUDIO_SERVER 或本机设置）"),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token", metavar="令牌", help="API 令牌（默认 $STUDIO_TOKEN 或数据目录里的 admin-token）"
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """调用正在运行的服务的 HTTP API（自动带上令牌）：打印 JSON，或逐帧打印事件流。"""
    import httpx

    verb = (method or ("POST" if data is not None else "GET")).upper()
    if verb not in METHODS:
        _err().print(f"[red]不支持的方法 {escape(verb)}（可用：GET、POST）[/red]")
        raise typer.Exit(2)
    if not path.startswith("/"):
        path = "/" + path
    body = _body(data)
    secret = token_for(token, data_dir)
    base = server_for(server, data_dir)
    headers = {"Accept": "application/json, text/event-stream"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    out = Console(highlight=False, soft_wrap=True)
    try:
        with (
            httpx.Client(base_url=base, timeout=httpx.Timeout(600, connect=10), headers=headers) as client,
            client.stream(verb, path, json=body if verb == "POST" else None) as response,
        ):
            ok = response.is_success
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        out.print(line[6:], markup=False)
                if not ok:
                    raise typer.Exit(1)
                return
            response.read()
            _show(out, response, secret is not None)
            if not ok:
                raise typer.Exit(1)
    except httpx.TransportError as exc:
        _err().print(f"[red]连不上 {escape(base)}：{escape(str(exc) or type(exc).__name__)}。服务在运行吗？"
                     "（make run；别的地址用 --server）[/red]")
        raise typer.Exit(1) from exc


def _show(out: Console, response: Any, had_token: bool) -> None:
    try:
        payload = response.json()
    except ValueError:
        out.print(response.text, markup=False)
        return
    if response.is_success:
        out.print(json.dumps(payload, ensure_ascii=False, indent=2), markup=False)
        return
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        _err().print(json.dumps(payload, ensure_ascii=False), markup=False)
        return
    code, message = escape(str(error.get("code"))), escape(str(error.get("message")))
    _err().print(f"[red]{response.status_code} {code}：{message}[/red]")
    if response.status_code == 401 and not had_token:
        _err().print(
            "没有令牌：设置 STUDIO_TOKEN（studio tokens create 名字 --role 角色），或在服务的数据目录里运行"
        )
