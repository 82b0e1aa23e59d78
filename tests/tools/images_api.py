"""A local stand-in for the OpenAI Images API, a real HTTP server on loopback (stdlib `ThreadingHTTPServer`).

`POST /v1/images/generations` as the API reference describes it
(https://platform.openai.com/docs/api-reference/images/create, errors:
https://platform.openai.com/docs/guides/error-codes):

- `Authorization: Bearer <key>`; any other key is 401 `invalid_api_key`.
- Parameters per model: dall-e-3 takes model, prompt, n (1 only), quality, response_format (url | b64_json),
  size (1024x1024, 1024x1792, 1792x1024), style, user; dall-e-2 the same without quality and style, sizes
  256x256 / 512x512 / 1024x1024; gpt-image-1 takes background, moderation, n, output_compression,
  output_format, quality, size (1024x1024, 1024x1536, 1536x1024, auto), user — and answers a
  `response_format` with 400 "Unknown parameter: 'response_format'." (code unknown_parameter), as it always
  answers in base64. Any unknown parameter is that 400. Prompts longer than the model's limit are 400.
- The answer is {created, data: [{b64_json | url, revised_prompt (dall-e-3)}]}; dall-e answers with a URL
  unless asked for b64_json, served at `GET /files/<id>.png` (no auth). Other models (`some-image-model`)
  answer with a URL.
- The picture is a text-free, photo-like landscape (`photo`) of the requested size.

`POST /v1/images/edits` as the reference describes it (https://platform.openai.com/docs/api-reference/images/
createEdit): a multipart form with `image` (or the array form `image[]`; several for gpt-image-1), `mask`,
`prompt`, `model`, `n`, `size` (dall-e-2: 256x256 / 512x512 / 1024x1024 and `response_format`; gpt-image-1:
1024x1024, 1536x1024, 1024x1536, auto, and background, input_fidelity, output_compression, output_format,
quality).
The mask must be a PNG with an alpha channel, of the (first) image's size, with some fully transparent pixels
(where to edit), else 400 with `param: "mask"`; dall-e-2 takes a square PNG only. The answer is like
gpt-image-1's (`data: [{b64_json}]`, with `size`, `output_format` and token `usage`; dall-e-2 a URL unless
asked for b64_json): the image at the answered size, repainted as a model does — every pixel a little lighter
(`EDIT_SHIFT`), the transparent area of the mask filled with `EDIT_FILL`. Recorded with the form's fields in
`body` and the uploads in `files` (name → list of bytes).

Faults are scripted: `api.fail(status, times=1, retry_after=None, code=None)` answers the next request(s)
with that status and the API's error body for it (`times=None`: every request until `api.clear()`): 429 with
`Retry-After`, 500 / 503 server errors, 400 with `code="content_policy_violation"` (the safety system's
refusal). Every request is recorded (`api.requests`: path, JSON body, key, arrival on the monotonic clock,
status answered).
"""

from __future__ import annotations

import base64
import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from typing import Any

from PIL import Image, ImageDraw, ImageFilter

KEY = "good-key"
PARAMS = {
    "dall-e-3": {"model", "prompt", "n", "quality", "response_format", "size", "style", "user"},
    "dall-e-2": {"model", "prompt", "n", "response_format", "size", "user"},
    "gpt-image-1": {
        "model",
        "prompt",
        "n",
        "background",
        "moderation",
        "output_compression",
        "output_format",
        "quality",
        "size",
        "user",
    },
    "some-image-model": {"model", "prompt", "n", "size", "user"},
}
SIZES = {
    "dall-e-3": {"1024x1024", "1024x1792", "1792x1024"},
    "dall-e-2": {"256x256", "512x512", "1024x1024"},
    "gpt-image-1": {"1024x1024", "1024x1536", "1536x1024", "auto"},
    "some-image-model": {"1024x1024", "1024x1536", "1536x1024"},
}
EDIT_PARAMS = {
    "gpt-image-1": {
        "model",
        "prompt",
        "n",
        "background",
        "input_fidelity",
        "output_compression",
        "output_format",
        "quality",
        "size",
        "user",
    },
    "dall-e-2": {"model", "prompt", "n", "response_format", "size", "user"},
}
EDIT_SIZES = {
    "gpt-image-1": {"1024x1024", "1536x1024", "1024x1536", "auto"},
    "dall-e-2": {"256x256", "512x512", "1024x1024"},
}
EDIT_FILL = (214, 52, 160)  # what the fake paints where the mask is transparent
EDIT_SHIFT = 6  # and how much lighter it repaints every other pixel
PROMPT_LIMITS = {"dall-e-3": 4000, "dall-e-2": 1000, "gpt-image-1": 32000, "some-image-model": 4000}
ERRORS = {
    500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    503: ("The engine is currently overloaded, please try again later", "server_error", None),
    429: ("Rate limit reached for images per minute.", "requests", "rate_limit_exceeded"),
    400: (
        "Your request was rejected as a result of our safety system. Your prompt may contain text that is "
        "not allowed by our safety system.",
        "invalid_request_error",
        "content_policy_violation",
    ),
}


@cache
def photo(width: int, height: int) -> Image.Image:
    """A photo-like scene with no text: a sky with a sun's glow, three ridges, a lake, a tent on grass."""
    rng = random.Random(7)
    sky = Image.linear_gradient("L").resize((width, height))
    horizon = Image.new("RGB", (width, height), (252, 214, 170))
    image = Image.composite(horizon, Image.new("RGB", (width, height), (96, 150, 214)), sky)
    glow = Image.new("L", (width, height), 0)
    cx, cy, r = width * 0.68, height * 0.36, width * 0.32
    ImageDraw.Draw(glow).ellipse((cx - r, cy - r, cx + r, cy + r), fill=200)
    image.paste((255, 244, 214), (0, 0), glow.filter(ImageFilter.GaussianBlur(r / 2.5)))
    draw = ImageDraw.Draw(image)
    ridges = [((122, 136, 170), 0.5), ((70, 96, 110), 0.58), ((40, 70, 60), 0.66)]
    for layer, (colour, base) in enumerate(ridges):
        points, x = [(0.0, float(height))], 0.0
        while x <= width:
            points.append((x, height * (base - rng.uniform(0.0, 0.09 - layer * 0.02))))
            x += width * rng.uniform(0.04, 0.12)
        points += [(float(width), height * base), (float(width), float(height))]
        draw.polygon(points, fill=colour)
    draw.rectangle((0, height * 0.7, width, height * 0.8), fill=(120, 160, 190))
    for _ in range(60):  # ripples on the lake
        y, x = rng.uniform(0.7, 0.8) * height, rng.uniform(0, width)
        draw.line((x, y, x + rng.uniform(20, 90), y), fill=(220, 230, 235), width=2)
    draw.rectangle((0, height * 0.8, width, height), fill=(58, 96, 44))
    for _ in range(1500):  # grass
        x, y = rng.uniform(0, width), rng.uniform(0.8, 1.0) * height
        blade = (rng.randint(40, 110), rng.randint(100, 160), 50)
        draw.line((x, y, x + rng.uniform(-6, 6), y - rng.uniform(8, 30)), fill=blade, width=2)
    tx, ty, tw = width * 0.3, height * 0.86, width * 0.22
    draw.polygon([(tx, ty), (tx + tw, ty), (tx + tw / 2, ty - tw * 0.7)], fill=(236, 120, 40))
    door = [(tx + tw * 0.42, ty), (tx + tw * 0.58, ty), (tx + tw / 2, ty - tw * 0.3)]
    draw.polygon(door, fill=(60, 30, 20))
    return image


@cache
def photo_png(width: int, height: int) -> bytes:
    out = BytesIO()
    photo(width, height).save(out, format="PNG", compress_level=1)
    return out.getvalue()


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    key: str
    at: float  # time.monotonic() on arrival
    status: int = 0
    files: dict[str, list[bytes]] = field(default_factory=dict)  # multipart uploads (edits)


class ImagesAPI:
    """The fake, started on entering (`with ImagesAPI() as api`); `api.base` is its `…/v1` API base."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.files: dict[str, bytes] = {}
        self._faults: list[tuple[int, float | None, str | None]] = []
        self._always: tuple[int, float | None, str | None] | None = None
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                name = self.path.rsplit("/", 1)[-1].removesuffix(".png")
                data = api.files.get(name)
                self.send_response(200 if data else 404)
                self.send_header("Content-Type", "image/png" if data else "text/plain")
                self.send_header("Content-Length", str(len(data or b"")))
                self.end_headers()
                self.wfile.write(data or b"")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                kind = self.headers.get("Content-Type", "")
                body, files = (
                    multipart(kind, raw) if kind.startswith("multipart/") else (json.loads(raw or b"{}"), {})
                )
                auth = self.headers.get("Authorization", "")
                record = Recorded(
                    self.path, body, auth.removeprefix("Bearer "), time.monotonic(), files=files
                )
                with api._lock:
                    api.requests.append(record)
                status, payload, headers = api.answer(record)
                record.status = status
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.base = f"{self.origin}/v1"

    def __enter__(self) -> ImagesAPI:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- scripting --------------------------------------------------------------------------------------
    def fail(
        self, status: int, *, times: int | None = 1, retry_after: float | None = None, code: str | None = None
    ) -> None:
        with self._lock:
            if times is None:
                self._always = (status, retry_after, code)
            else:
                self._faults += [(status, retry_after, code)] * times

    def clear(self) -> None:
        with self._lock:
            self._faults, self._always = [], None
            self.requests.clear()

    # --- answers ------------------------------------------------------------------------------------------
    def answer(self, record: Recorded) -> tuple[int, dict[str, Any], dict[str, str]]:
        if record.key != KEY:
            return _error(401, f"Incorrect API key provided: {record.key[:8]}***.", code="invalid_api_key")
        with self._lock:
            fault = self._faults.pop(0) if self._faults else self._always
        if fault is not None:
            status, retry_after, code = fault
            message, kind, default_code = ERRORS[status]
            status, payload, headers = _error(status, message, kind=kind, code=code or default_code)
            if retry_after is not None:
                headers["Retry-After"] = f"{retry_after:g}"
            return status, payload, headers
        if record.path.rstrip("/").endswith("/images/edits"):
            return self.answer_edit(record)
        body = record.body
        model = str(body.get("model"))
        if model not in PARAMS:
            return _error(404, f"The model `{model}` does not exist or you do not have access to it.")
        for name in body:
            if name not in PARAMS[model]:
                return _error(400, f"Unknown parameter: '{name}'.", param=name, code="unknown_parameter")
        prompt = str(body.get("prompt") or "")
        if not prompt or len(prompt) > PROMPT_LIMITS[model]:
            return _error(400, "Invalid 'prompt': empty or too long.", param="prompt", code="invalid_value")
        size = str(body.get("size") or "1024x1024")
        if size not in SIZES[model] or (model == "dall-e-3" and body.get("n", 1) != 1):
            return _error(400, f"Invalid value: '{size}'.", param="size", code="invalid_value")
        width, height = (1024, 1024) if size == "auto" else (int(v) for v in size.split("x"))
        picture = photo_png(width, height)
        item: dict[str, Any] = {}
        if model == "gpt-image-1" or body.get("response_format") == "b64_json":
            item["b64_json"] = base64.b64encode(picture).decode("ascii")
        else:
            name = uuid.uuid4().hex
            self.files[name] = picture
            item["url"] = f"{self.origin}/files/{name}.png"
        if model == "dall-e-3":
            item["revised_prompt"] = prompt
        return 200, {"created": int(time.time()), "data": [item]}, {}

    def answer_edit(self, record: Recorded) -> tuple[int, dict[str, Any], dict[str, str]]:
        body, files = record.body, record.files
        model = str(body.get("model"))
        if model not in EDIT_PARAMS:
            return _error(404, f"The model `{model}` does not exist or you do not have access to it.")
        for name in body:
            if name not in EDIT_PARAMS[model]:
                return _error(400, f"Unknown parameter: '{name}'.", param=name, code="unknown_parameter")
        uploads = files.get("image", []) + files.get("image[]", [])  # `image[]`: the array form
        if model == "dall-e-2" and len(uploads) > 1:
            return _error(400, "dall-e-2 edits take one image.", param="image", code="invalid_value")
        if not uploads:
            return _error(
                400, "Missing required parameter: 'image'.", param="image", code="missing_required_parameter"
            )
        prompt = str(body.get("prompt") or "")
        if not prompt or len(prompt) > PROMPT_LIMITS[model]:
            return _error(400, "Invalid 'prompt': empty or too long.", param="prompt", code="invalid_value")
        size = str(body.get("size") or "1024x1024")
        if size not in EDIT_SIZES[model]:
            return _error(400, f"Invalid value: '{size}'.", param="size", code="invalid_value")
        try:
            image = Image.open(BytesIO(uploads[0]))
            image.load()
        except Exception:
            return _error(
                400, "Invalid image file or mode for image 1, please check your image file.", param="image"
            )
        if model == "dall-e-2" and (image.format != "PNG" or image.width != image.height):
            return _error(400, "Invalid input image - image must be a square PNG.", param="image")
        mask = None
        if files.get("mask"):
            data = files["mask"][0]
            try:
                mask = Image.open(BytesIO(data))
                mask.load()
            except Exception:
                return _error(400, "Invalid mask image - must be a valid PNG file.", param="mask")
            if mask.format != "PNG":
                return _error(400, "Invalid mask image - must be a valid PNG file.", param="mask")
            if mask.mode not in ("RGBA", "LA"):
                return _error(
                    400,
                    f"Invalid mask image - format must be in ['RGBA', 'LA'], got {mask.mode}.",
                    param="mask",
                )
            if mask.size != image.size:
                return _error(
                    400,
                    "Invalid mask image - the mask and the image must have the same dimensions.",
                    param="mask",
                )
            if mask.getchannel("A").getextrema()[0] != 0:
                return _error(
                    400, "Invalid mask image - it has no fully transparent area to edit.", param="mask"
                )
        width, height = image.size if size == "auto" else (int(v) for v in size.split("x"))
        picture = image.convert("RGB").resize((width, height), Image.Resampling.BILINEAR)
        picture = picture.point(lambda v: min(255, v + EDIT_SHIFT))
        if mask is not None:
            where = (
                mask.getchannel("A")
                .resize((width, height), Image.Resampling.NEAREST)
                .point(lambda a: 255 if a == 0 else 0)
            )
            picture.paste(EDIT_FILL, (0, 0), where)
        out = BytesIO()
        picture.save(out, format="PNG", compress_level=1)
        item: dict[str, Any] = {}
        if model == "gpt-image-1" or body.get("response_format") == "b64_json":
            item["b64_json"] = base64.b64encode(out.getvalue()).decode("ascii")
        else:
            name = uuid.uuid4().hex
            self.files[name] = out.getvalue()
            item["url"] = f"{self.origin}/files/{name}.png"
        answer: dict[str, Any] = {"created": int(time.time()), "data": [item]}
        if model == "gpt-image-1":
            answer |= {
                "size": f"{width}x{height}",
                "output_format": "png",
                "quality": "high",
                "usage": {
                    "input_tokens": 350,
                    "input_tokens_details": {"image_tokens": 323, "text_tokens": 27},
                    "output_tokens": 4160,
                    "total_tokens": 4510,
                },
            }
        return 200, answer, {}


def multipart(content_type: str, raw: bytes) -> tuple[dict[str, Any], dict[str, list[bytes]]]:
    """A multipart/form-data body as (text fields, uploads: name → the files' bytes)."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    fields: dict[str, Any] = {}
    files: dict[str, list[bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        decoded = part.get_payload(decode=True)
        payload = decoded if isinstance(decoded, bytes) else b""
        if part.get_filename() is not None:
            files.setdefault(str(name), []).append(payload)
        else:
            text = payload.decode("utf-8")
            fields[str(name)] = int(text) if name == "n" and text.isdigit() else text
    return fields, files


def _error(
    status: int,
    message: str,
    *,
    kind: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    return status, {"error": {"message": message, "type": kind, "param": param, "code": code}}, {}
