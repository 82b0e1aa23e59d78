"""Image input normalisation against real bytes, real files and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from tools.errors import ImageInputError
from tools.image_input import normalize_image_input, pinned_request

MB = 1024 * 1024


def encode(fmt: str, size: tuple[int, int] = (40, 30), colour: tuple[int, int, int] = (200, 80, 40)) -> bytes:
    out = BytesIO()
    Image.new("RGB", size, colour).save(out, format=fmt)
    return out.getvalue()


def noise_png(side: int) -> bytes:
    out = BytesIO()
    Image.effect_noise((side, side), 80).convert("RGB").save(out, format="PNG")
    return out.getvalue()


PNG = encode("PNG")
LARGE_PNG = noise_png(200)  # noise does not compress: ~40 KB


async def fails(code: str, source: Any, **kwargs: Any) -> ImageInputError:
    kwargs.setdefault("max_bytes", MB)
    with pytest.raises(ImageInputError) as caught:
        await normalize_image_input(source, **kwargs)
    error = caught.value
    assert error.code == code, error.to_dict()
    assert error.message and "Traceback" not in error.message
    return error


# --- a real HTTP server ------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    hits: list[str]  # set on the subclass per server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "image/png", length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _slow(self) -> None:
        time.sleep(1.5)
        self._send(200, PNG)

    def do_GET(self) -> None:
        self.hits.append(self.path)
        routes = {
            "/img.png": lambda: self._send(200, PNG),
            "/big.png": lambda: self._send(200, LARGE_PNG),
            "/stream-big": lambda: self._send(200, b"\x89PNG" + b"0" * (256 * 1024), length=False),
            "/redirect": lambda: self._redirect("/img.png"),
            "/redirect-loop": lambda: self._redirect("/redirect-loop"),
            "/redirect-file": lambda: self._redirect("file:///etc/passwd"),
            "/page.html": lambda: self._send(200, b"<html>not an image</html>", "text/html"),
            "/slow.png": self._slow,
        }
        route = routes.get(self.path)
        if route is None:
            self._send(404, b"missing", "text/plain")
        else:
            route()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:  # a client hanging up is expected
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_Handler,), {"hits": hits})
    httpd = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- data URLs, base64, bytes ------------------------------------------------------------------------------
async def test_data_url() -> None:
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    image = await normalize_image_input(url, max_bytes=MB)
    assert (image.kind, image.mime, image.width, image.height) == ("data_url", "image/png", 40, 30)
    assert image.data == PNG
    assert image.to_data_url() == url


async def test_data_url_mime_comes_from_the_bytes() -> None:
    jpeg = encode("JPEG")
    image = await normalize_image_input(
        "data:image/png;base64," + base64.b64encode(jpeg).decode(), max_bytes=MB
    )
    assert image.mime == "image/jpeg"


async def test_raw_base64_with_whitespace_urlsafe_and_missing_padding() -> None:
    text = base64.b64encode(PNG).decode()
    wrapped = "\n".join(text[i : i + 76] for i in range(0, len(text), 76))
    assert (await normalize_image_input(wrapped, max_bytes=MB)).kind == "base64"
    urlsafe = base64.urlsafe_b64encode(PNG).decode().rstrip("=")
    assert (await normalize_image_input(urlsafe, max_bytes=MB)).data == PNG


@pytest.mark.parametrize("fmt, mime", [("JPEG", "image/jpeg"), ("WEBP", "image/webp"), ("GIF", "image/gif")])
async def test_allowed_formats(fmt: str, mime: str) -> None:
    image = await normalize_image_input(encode(fmt), max_bytes=MB)
    assert (image.kind, image.mime, image.width) == ("bytes", mime, 40)


async def test_mapping_items_like_the_api() -> None:
    item = {"data": "data:image/png;base64," + base64.b64encode(PNG).decode(), "type": "style"}
    image = await normalize_image_input(item, max_bytes=MB)
    assert (image.kind, image.purpose) == ("data_url", "style")
    await fails("IMAGE_SOURCE_INVALID", {"type": "style"})
    await fails("IMAGE_SOURCE_INVALID", {"data": 42})


async def test_bad_base64() -> None:
    await fails("IMAGE_BASE64_INVALID", "data:image/png;base64,@@@not*base64@@@")
    await fails("IMAGE_BASE64_INVALID", {"data": "abc!def$ghi%jkl^mno"})
    await fails("IMAGE_SOURCE_INVALID", "definitely not an image, nor base64")


async def test_non_image_bytes() -> None:
    text = base64.b64encode(b"hello, this is plain text and not an image at all").decode()
    await fails("IMAGE_DECODE_FAILED", text)
    await fails("IMAGE_DECODE_FAILED", PNG[: len(PNG) // 2])  # truncated PNG
    await fails("IMAGE_EMPTY", b"")
    await fails("IMAGE_EMPTY", "   ")
    await fails("IMAGE_EMPTY", {"data": "data:image/png;base64,"})


async def test_unsupported_types() -> None:
    await fails("IMAGE_TYPE_UNSUPPORTED", encode("BMP"))
    await fails("IMAGE_TYPE_UNSUPPORTED", "data:text/plain;base64," + base64.b64encode(PNG).decode())


async def test_too_large_before_decoding() -> None:
    big = "data:image/png;base64," + "A" * (4 * MB)
    error = await fails("IMAGE_TOO_LARGE", big, max_bytes=MB)
    assert error.details["max_bytes"] == MB
    await fails("IMAGE_TOO_LARGE", base64.b64encode(LARGE_PNG).decode(), max_bytes=len(LARGE_PNG) - 1)
    await fails("IMAGE_TOO_LARGE", LARGE_PNG, max_bytes=100)


async def test_pixel_bomb_is_refused_from_its_header() -> None:
    out = BytesIO()
    Image.new("1", (8000, 8000)).save(out, format="PNG")  # tiny file, 64 M pixels
    await fails("IMAGE_TOO_LARGE", out.getvalue(), max_bytes=MB)


# --- files -------------------------------------------------------------------------------------------------
async def test_file_paths(tmp_path: Path) -> None:
    path = tmp_path / "ref.png"
    path.write_bytes(PNG)
    image = await normalize_image_input(str(path), max_bytes=MB, allow_paths=True)
    assert (image.kind, image.mime, image.source) == ("path", "image/png", str(path.resolve()))
    assert (await normalize_image_input(path, max_bytes=MB, allow_paths=True)).data == PNG
    relative = await normalize_image_input("ref.png", max_bytes=MB, base_dir=tmp_path)
    assert relative.kind == "path"
    assert (await normalize_image_input({"path": "ref.png"}, max_bytes=MB, base_dir=tmp_path)).width == 40


async def test_paths_are_refused_unless_allowed(tmp_path: Path) -> None:
    path = tmp_path / "ref.png"
    path.write_bytes(PNG)
    await fails("IMAGE_PATH_REFUSED", path)
    await fails("IMAGE_PATH_REFUSED", {"path": str(path)})
    # a bare string is never looked up on disk without opt-in (it is not base64 either)
    await fails("IMAGE_SOURCE_INVALID", str(path))


async def test_paths_stay_inside_base_dir(tmp_path: Path) -> None:
    inside = tmp_path / "inside"
    inside.mkdir()
    (tmp_path / "secret.png").write_bytes(PNG)
    await fails("IMAGE_PATH_REFUSED", "../secret.png", base_dir=inside)
    await fails("IMAGE_PATH_REFUSED", str(tmp_path / "secret.png"), base_dir=inside)
    (inside / "link.png").symlink_to(tmp_path / "secret.png")
    await fails("IMAGE_PATH_REFUSED", "link.png", base_dir=inside)


async def test_missing_and_too_large_files(tmp_path: Path) -> None:
    await fails("IMAGE_NOT_FOUND", str(tmp_path / "nope.png"), allow_paths=True)
    (tmp_path / "big.png").write_bytes(LARGE_PNG)
    await fails("IMAGE_TOO_LARGE", tmp_path / "big.png", max_bytes=100, allow_paths=True)


# --- URLs --------------------------------------------------------------------------------------------------
async def test_url_download(server: tuple[str, list[str]]) -> None:
    base, _hits = server
    image = await normalize_image_input(f"{base}/img.png", max_bytes=MB, allow_private=True)
    assert (image.kind, image.mime, image.width, image.source) == ("url", "image/png", 40, f"{base}/img.png")
    assert (
        await normalize_image_input({"url": f"{base}/img.png"}, max_bytes=MB, allow_private=True)
    ).data == PNG


async def test_url_with_a_caller_client(server: tuple[str, list[str]]) -> None:
    base, _hits = server
    async with httpx.AsyncClient() as client:
        image = await normalize_image_input(f"{base}/img.png", max_bytes=MB, allow_private=True, http=client)
    assert image.data == PNG


async def test_url_size_limits(server: tuple[str, list[str]]) -> None:
    base, _hits = server
    declared = await fails("IMAGE_TOO_LARGE", f"{base}/big.png", max_bytes=1000, allow_private=True)
    assert declared.details["size"] == len(LARGE_PNG)  # refused from Content-Length
    streamed = await fails("IMAGE_TOO_LARGE", f"{base}/stream-big", max_bytes=64 * 1024, allow_private=True)
    assert streamed.details["size"] <= 64 * 1024 + 65536  # stopped soon after the limit, not at the end


async def test_url_redirects(server: tuple[str, list[str]]) -> None:
    base, _hits = server
    image = await normalize_image_input(f"{base}/redirect", max_bytes=MB, allow_private=True)
    assert image.source == f"{base}/img.png"
    await fails("IMAGE_FETCH_FAILED", f"{base}/redirect-loop", allow_private=True)
    await fails("IMAGE_URL_REFUSED", f"{base}/redirect-file", allow_private=True)  # each hop is re-checked


async def test_url_errors(server: tuple[str, list[str]]) -> None:
    base, _hits = server
    missing = await fails("IMAGE_FETCH_FAILED", f"{base}/nothing-here", allow_private=True)
    assert missing.details["status"] == 404
    await fails("IMAGE_DECODE_FAILED", f"{base}/page.html", allow_private=True)
    await fails("IMAGE_FETCH_TIMEOUT", f"{base}/slow.png", allow_private=True, timeout_s=0.3)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/img.png",
        "http://localhost:{port}/img.png",
        "http://[::1]:{port}/img.png",
        "http://10.1.2.3/img.png",
        "http://192.168.0.10/img.png",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0:{port}/img.png",
        "http://[::ffff:127.0.0.1]:{port}/img.png",
        "http://2130706433:{port}/img.png",  # 127.0.0.1 as a decimal integer
    ],
)
async def test_private_addresses_are_refused(url: str, server: tuple[str, list[str]]) -> None:
    base, hits = server
    before = len(hits)
    error = await fails("IMAGE_URL_REFUSED", url.format(port=base.rsplit(":", 1)[1]))
    assert "address" in error.details
    assert len(hits) == before  # refused before any connection


@pytest.mark.parametrize("url", ["ftp://example.com/a.png", "file:///etc/passwd", "gopher://example.com/"])
async def test_non_http_schemes_are_refused(url: str) -> None:
    await fails("IMAGE_URL_REFUSED", url)
    await fails("IMAGE_URL_REFUSED", {"url": url})


def test_pinned_request_keeps_the_name_for_host_and_sni() -> None:
    client = httpx.AsyncClient()
    request = pinned_request(client, httpx.URL("https://images.example.com:8443/a.png?x=1"), "93.184.216.34")
    assert request.url.host == "93.184.216.34" and request.url.port == 8443
    assert request.headers["Host"] == "images.example.com:8443"
    assert request.extensions["sni_hostname"] == "images.example.com"
    v6 = pinned_request(client, httpx.URL("http://images.example.com/a.png"), "2606:2800:220:1::1")
    assert str(v6.url) == "http://[2606:2800:220:1::1]/a.png"
    assert v6.headers["Host"] == "images.example.com" and "sni_hostname" not in v6.extensions
