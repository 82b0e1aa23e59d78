"""Image input normalisation: whatever a client sent becomes verified image bytes, or an `ImageInputError`.

Accepted sources (`normalize_image_input`):

- a data URL (`data:image/png;base64,...`; percent-encoded payloads too),
- raw base64 (standard or URL-safe alphabet, padding optional, whitespace ignored),
- a file path (`str` or `Path`) — only when the caller opts in with `allow_paths=True` or a `base_dir`
  (which confines paths to that directory); otherwise a bare string is never looked up on disk,
- an http(s) URL,
- raw `bytes`,
- a mapping as in the API's `referenceImages` items: `{"data": ...}` (data URL or base64; a link is fetched as
  a URL, never read as a path), `{"url": ...}` or `{"path": ...}`; its `type` is kept as `purpose`.

Every source is size-checked before it is decoded where that is possible (the base64 length, the file size,
`Content-Length`) and while it is read (a download is streamed and abandoned past `max_bytes`). The bytes are
then opened with Pillow: the format must be PNG, JPEG, WebP or GIF, the header must describe a sane pixel
count, and the image must fully decode. The mime type always comes from the bytes, never from the client.

URL fetches (SSRF rules): only `http`/`https`; the host is resolved and *every* address must be public (no
loopback, private, link-local, reserved, multicast, unspecified or other non-global address) unless
`allow_private`; the connection is then made to the checked address (the URL is pinned to the IP while `Host`
and TLS SNI keep the name), so a second DNS answer cannot redirect it. Redirects are followed by hand, at most
`MAX_REDIRECTS`, each hop re-checked. The whole fetch has one deadline. A client created here ignores proxy
environment variables (a proxy would resolve names itself and bypass the check); pass `http=` to use your own.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import ipaddress
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote_to_bytes

import httpx
from PIL import Image, UnidentifiedImageError

from tools.errors import ImageInputError

SourceKind = Literal["data_url", "base64", "path", "url", "bytes"]

ALLOWED_FORMATS: dict[str, str] = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
}
MAX_PIXELS = 40_000_000  # larger images are refused from their header, before any pixel is decoded
MAX_REDIRECTS = 3
DEFAULT_TIMEOUT_S = 20.0

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_URL_SCHEME = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.\-]*)://")
_BASE64_TEXT = re.compile(r"^[A-Za-z0-9+/_\-]+={0,2}$")
_WHITESPACE = re.compile(r"\s+")
_MAX_PATH_CHARS = 4096


@dataclass(frozen=True, slots=True)
class NormalizedImage:
    """Verified image bytes and what they are. `source` describes the origin without repeating the payload."""

    data: bytes = field(repr=False)
    mime: str  # from the bytes: image/png | image/jpeg | image/webp | image/gif
    width: int
    height: int
    kind: SourceKind
    source: str  # final URL after redirects, resolved file path, or "data URL" / "base64" / "bytes"
    purpose: str | None = None  # the `type` of an API referenceImages item ("style", "layout", …)

    @property
    def size(self) -> int:
        return len(self.data)

    def to_data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


def _error(code: str, message: str, **details: Any) -> ImageInputError:
    return ImageInputError(message, code=code, details=details or None)


def _too_large(size: int, max_bytes: int) -> ImageInputError:
    return _error(
        "IMAGE_TOO_LARGE",
        f"图片太大：{size / 1_048_576:.1f} MB，上限 {max_bytes / 1_048_576:.1f} MB",
        size=size,
        max_bytes=max_bytes,
    )


# --- public entry point ------------------------------------------------------------------------------------
async def normalize_image_input(
    source: str | bytes | Path | Mapping[str, Any],
    *,
    max_bytes: int,
    allow_private: bool = False,
    http: httpx.AsyncClient | None = None,
    base_dir: Path | None = None,
    allow_paths: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> NormalizedImage:
    """Turn `source` into a `NormalizedImage`, or raise `ImageInputError` with a specific `code`.

    File paths are refused unless `allow_paths` (any readable path: trusted callers such as the CLI) or
    `base_dir` (paths inside that directory, relative ones anchored there) is given — client input must
    never name server files. `http` is used for URL fetches (not closed here); `timeout_s` bounds a whole
    download, redirects included.
    """
    if isinstance(source, bytes | bytearray):
        return await _verified(bytes(source), max_bytes, kind="bytes", origin="bytes", purpose=None)
    # Classifying a bare string may look at the file system, so it runs off the event loop.
    paths_ok = allow_paths or base_dir is not None
    kind, text, purpose = await asyncio.to_thread(
        _split_source, source, base_dir if paths_ok else None, paths_ok
    )
    if not text:
        raise _error("IMAGE_EMPTY", "图片内容为空")
    if kind == "url":
        data, origin = await _fetch(
            text, max_bytes=max_bytes, allow_private=allow_private, http=http, deadline_s=timeout_s
        )
    elif kind == "path":
        if not paths_ok:
            raise _error("IMAGE_PATH_REFUSED", "这里不接受本地文件路径，请上传图片数据或提供链接")
        data, origin = await asyncio.to_thread(_read_file, text, base_dir, max_bytes)
    elif kind == "data_url":
        data, origin = _decode_data_url(text, max_bytes), "data URL"
    else:
        data, origin = _decode_base64(text, max_bytes), "base64"
    return await _verified(data, max_bytes, kind=kind, origin=origin, purpose=purpose)


def _split_source(
    source: object, base_dir: Path | None, paths_ok: bool
) -> tuple[SourceKind, str, str | None]:
    """`(kind, text, purpose)` of a non-bytes source."""
    if isinstance(source, Mapping):
        purpose = source.get("type")
        kind, text = _from_mapping(source)
        return kind, text, purpose if isinstance(purpose, str) else None
    if isinstance(source, Path):
        return "path", str(source), None
    if isinstance(source, str):
        kind, text = _classify(source.strip(), base_dir=base_dir, paths_ok=paths_ok)
        return kind, text, None
    raise _error("IMAGE_SOURCE_INVALID", f"不支持的图片来源类型：{type(source).__name__}")


def _from_mapping(item: Mapping[str, Any]) -> tuple[SourceKind, str]:
    for key in ("data", "url", "path"):
        value = item.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise _error("IMAGE_SOURCE_INVALID", f"图片字段 `{key}` 必须是字符串")
        text = value.strip()
        if key == "url":
            return "url", text
        if key == "path":
            return "path", text
        if text[:5].lower() == "data:":
            return "data_url", text
        if _URL_SCHEME.match(text):
            return "url", text  # a link sent as `data` is still fetched under the URL rules, never as a path
        return "base64", text
    raise _error("IMAGE_SOURCE_INVALID", "图片需要 `data`、`url` 或 `path` 字段之一")


def _classify(text: str, *, base_dir: Path | None, paths_ok: bool) -> tuple[SourceKind, str]:
    """Decide what a bare string is. Base64 may contain '/', so an existing file wins over base64."""
    if not text:
        raise _error("IMAGE_EMPTY", "图片内容为空")
    if text[:5].lower() == "data:":
        return "data_url", text
    if _URL_SCHEME.match(text):
        return "url", text  # non-http schemes are refused by `_fetch` with a clear message
    if paths_ok and len(text) <= _MAX_PATH_CHARS and _is_file(text, base_dir):
        return "path", text
    compact = _WHITESPACE.sub("", text)
    if len(compact) >= 16 and _BASE64_TEXT.match(compact):
        return "base64", compact
    if paths_ok:
        return "path", text  # reported as "not found" (or refused) by the path reader
    raise _error("IMAGE_SOURCE_INVALID", "无法识别的图片内容：需要 data URL、base64 或 http(s) 链接")


def _is_file(text: str, base_dir: Path | None) -> bool:
    try:
        path = Path(text).expanduser()
        return (base_dir / path if base_dir is not None else path).is_file()
    except (OSError, ValueError):
        return False


# --- decoders -------------------------------------------------------------------------------------------
def _decode_base64(text: str, max_bytes: int) -> bytes:
    # A cheap upper bound first, so a huge string is refused before it is copied or decoded.
    if len(text) > (max_bytes * 4 // 3) * 1.1 + 1024:
        raise _too_large(len(text) * 3 // 4, max_bytes)
    compact = _WHITESPACE.sub("", text)
    estimated = len(compact) * 3 // 4 - compact[-2:].count("=")
    if estimated > max_bytes:
        raise _too_large(estimated, max_bytes)
    if "-" in compact or "_" in compact:
        compact = compact.translate(str.maketrans("-_", "+/"))
    compact = compact.rstrip("=")
    if len(compact) % 4 == 1:
        raise _error("IMAGE_BASE64_INVALID", "base64 图片数据长度不正确（可能被截断）")
    try:
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _error("IMAGE_BASE64_INVALID", "base64 图片数据无法解码") from exc


def _decode_data_url(text: str, max_bytes: int) -> bytes:
    header, sep, payload = text.partition(",")
    if not sep:
        raise _error("IMAGE_BASE64_INVALID", "data URL 格式不正确：缺少逗号分隔的数据部分")
    params = [part.strip().lower() for part in header[5:].split(";")]
    declared = params[0]
    if declared and not declared.startswith("image/"):
        raise _error("IMAGE_TYPE_UNSUPPORTED", f"data URL 声明的类型不是图片：{declared}", declared=declared)
    if "base64" in params[1:]:
        return _decode_base64(payload, max_bytes)
    if len(payload) > max_bytes * 3:
        raise _too_large(len(payload), max_bytes)
    data = unquote_to_bytes(payload)
    if len(data) > max_bytes:
        raise _too_large(len(data), max_bytes)
    return data


def _read_file(text: str, base_dir: Path | None, max_bytes: int) -> tuple[bytes, str]:
    try:
        path = Path(text).expanduser()
        if base_dir is not None:
            root = base_dir.resolve()
            resolved = (root / path).resolve()
            if not resolved.is_relative_to(root):
                raise _error("IMAGE_PATH_REFUSED", "图片路径不在允许的目录内", path=text)
        else:
            resolved = path.resolve()
        if not resolved.is_file():
            raise _error("IMAGE_NOT_FOUND", f"找不到图片文件：{text}", path=text)
        size = resolved.stat().st_size
        if size > max_bytes:
            raise _too_large(size, max_bytes)
        with resolved.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may have grown since stat()
    except ImageInputError:
        raise
    except (OSError, ValueError) as exc:
        raise _error("IMAGE_NOT_FOUND", f"无法读取图片文件：{text}", path=text) from exc
    if len(data) > max_bytes:
        raise _too_large(len(data), max_bytes)
    return data, str(resolved)


# --- verification ---------------------------------------------------------------------------------------
async def _verified(
    data: bytes, max_bytes: int, *, kind: SourceKind, origin: str, purpose: str | None
) -> NormalizedImage:
    if not data:
        raise _error("IMAGE_EMPTY", "图片内容为空")
    if len(data) > max_bytes:
        raise _too_large(len(data), max_bytes)
    mime, width, height = await asyncio.to_thread(inspect_image, data)
    return NormalizedImage(
        data=data, mime=mime, width=width, height=height, kind=kind, source=origin, purpose=purpose
    )


def inspect_image(data: bytes) -> tuple[str, int, int]:
    """Open `data` with Pillow and fully decode it: `(mime, width, height)` or `ImageInputError`. Blocking."""
    try:
        with Image.open(BytesIO(data)) as image:
            fmt, (width, height) = image.format or "", image.size
            if fmt not in ALLOWED_FORMATS:
                raise _error(
                    "IMAGE_TYPE_UNSUPPORTED",
                    f"不支持的图片格式：{fmt or '未知'}（支持 PNG、JPEG、WebP、GIF）",
                    format=fmt,
                )
            if width < 1 or height < 1 or width * height > MAX_PIXELS:
                raise _error(
                    "IMAGE_TOO_LARGE", f"图片尺寸超出限制：{width}x{height}", width=width, height=height
                )
            image.verify()
        with Image.open(BytesIO(data)) as image:
            image.load()
    except ImageInputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _error("IMAGE_TOO_LARGE", "图片像素数超出限制") from exc
    except UnidentifiedImageError as exc:
        raise _error("IMAGE_DECODE_FAILED", "内容不是可识别的图片") from exc
    except Exception as exc:  # Pillow raises many types on corrupt input; none may escape as a traceback
        raise _error("IMAGE_DECODE_FAILED", "图片数据已损坏，无法解码", reason=type(exc).__name__) from exc
    return ALLOWED_FORMATS[fmt], width, height


# --- URL fetching ---------------------------------------------------------------------------------------
def _is_forbidden(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        not ip.is_global
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
    )


def _checked_url(raw: str | httpx.URL) -> httpx.URL:
    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise _error("IMAGE_URL_REFUSED", "图片链接格式不正确") from exc
    if url.scheme not in ("http", "https"):
        raise _error(
            "IMAGE_URL_REFUSED", f"只接受 http/https 图片链接（收到 {url.scheme or '无'}）", scheme=url.scheme
        )
    if not url.host:
        raise _error("IMAGE_URL_REFUSED", "图片链接缺少主机名")
    return url


async def resolve_public_address(url: httpx.URL, *, allow_private: bool = False) -> str:
    """Resolve the URL's host; refuse it if any address is not public. Returns the address to connect to."""
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(url.host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise _error("IMAGE_FETCH_FAILED", f"无法解析图片链接的主机：{url.host}", host=url.host) from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise _error("IMAGE_FETCH_FAILED", f"无法解析图片链接的主机：{url.host}", host=url.host)
    if not allow_private:
        for address in addresses:
            if _is_forbidden(address):
                raise _error(
                    "IMAGE_URL_REFUSED",
                    f"拒绝访问内网或保留地址的图片链接：{url.host}",
                    host=url.host,
                    address=address,
                )
    return addresses[0]


def pinned_request(client: httpx.AsyncClient, url: httpx.URL, address: str) -> httpx.Request:
    """A GET for `url` that connects to `address`, keeping the name in `Host` and in TLS SNI."""
    host_name = url.raw_host.decode("ascii")
    extensions: dict[str, Any] = {}
    if url.scheme == "https":
        extensions["sni_hostname"] = host_name
    return client.build_request(
        "GET",
        url.copy_with(host=address.split("%", 1)[0]),
        headers={"Host": url.netloc.decode("ascii"), "Accept": "image/*"},
        extensions=extensions,
    )


async def _fetch(
    raw_url: str, *, max_bytes: int, allow_private: bool, http: httpx.AsyncClient | None, deadline_s: float
) -> tuple[bytes, str]:
    url = _checked_url(raw_url)
    client = http or httpx.AsyncClient(timeout=deadline_s, trust_env=False)
    try:
        async with asyncio.timeout(deadline_s):
            return await _fetch_hops(client, url, max_bytes=max_bytes, allow_private=allow_private)
    except TimeoutError as exc:
        raise _error("IMAGE_FETCH_TIMEOUT", f"下载图片超时（{deadline_s:g} 秒）", url=str(url)) from exc
    except httpx.TimeoutException as exc:
        raise _error("IMAGE_FETCH_TIMEOUT", f"下载图片超时（{deadline_s:g} 秒）", url=str(url)) from exc
    except httpx.HTTPError as exc:
        raise _error("IMAGE_FETCH_FAILED", f"下载图片失败：{type(exc).__name__}", url=str(url)) from exc
    finally:
        if http is None:
            await client.aclose()


async def _fetch_hops(
    client: httpx.AsyncClient, url: httpx.URL, *, max_bytes: int, allow_private: bool
) -> tuple[bytes, str]:
    for _hop in range(MAX_REDIRECTS + 1):
        address = await resolve_public_address(url, allow_private=allow_private)
        request = pinned_request(client, url, address)
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            if response.status_code in _REDIRECT_STATUSES:
                location = response.headers.get("location")
                if not location:
                    raise _error("IMAGE_FETCH_FAILED", "图片链接重定向缺少目标地址", url=str(url))
                url = _checked_url(url.join(location))
                continue
            if not 200 <= response.status_code < 300:
                raise _error(
                    "IMAGE_FETCH_FAILED",
                    f"下载图片失败：HTTP {response.status_code}",
                    url=str(url),
                    status=response.status_code,
                )
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise _too_large(int(declared), max_bytes)
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    raise _too_large(len(body), max_bytes)
            return bytes(body), str(url)
        finally:
            await response.aclose()
    raise _error("IMAGE_FETCH_FAILED", f"图片链接重定向次数过多（上限 {MAX_REDIRECTS} 次）", url=str(url))
