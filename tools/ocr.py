"""Text recognition (OCR) with rapidocr-onnxruntime: the PP-OCRv4 detection, direction and recognition models
that ship inside its wheel, run by onnxruntime on the CPU. Nothing is downloaded.

`read_text(data)` returns the text lines an image shows, top to bottom, each with its recognition confidence
(0..1), its box as fractions of the image (`x, y, w, h`, origin top left, like `tools.vision.Box`) and its
quadrilateral in the image's pixels (text on a slant has a slanted polygon inside an upright box).

Cost and sharing. Loading the engine takes ~0.3–0.5 s and is done once per process, on first use
(`shared_engine()`); reading one 1080×1440 card takes ~1 s of CPU on two cores (onnxruntime uses every core
for one image), so one engine serves the whole process and reads one image at a time behind a lock — a second
caller waits rather than competing for the same cores. Images larger than `MAX_SIDE` are read from a
downscaled copy (detection time grows with the pixel count; text that is legible on a phone screen stays
legible) and their boxes are scaled back. Every call blocks: from async code use `asyncio.to_thread`.

Errors: bytes that are not an image are an `ImageInputError` (`IMAGE_DECODE_FAILED`); an engine that cannot
load — OpenCV missing, or its system libraries (`libGL.so.1` for the opencv-python build rapidocr needs), or
onnxruntime — is an `OcrUnavailableError` (`OCR_UNAVAILABLE`), which the HTTP layer answers with a 503; an
engine failure on one image is an `ImageInputError` (`OCR_FAILED`).
"""

from __future__ import annotations

import logging
import threading
import time
from importlib import metadata
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ImageInputError, OcrUnavailableError
from tools.vision import Box, load_rgb

log = logging.getLogger(__name__)

MAX_SIDE = 1280  # longer sides are read from a downscaled copy
MIN_SIDE = 8  # smaller images hold no readable text: nothing is read
MIN_CONFIDENCE = 0.5  # lines recognised with less confidence are dropped (rapidocr's own default)
ENGINE_NAME = "rapidocr-onnxruntime"


class TextRegion(BaseModel):
    """One line of text the image shows."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    confidence: float = Field(ge=0, le=1, description="The recogniser's confidence in the text.")
    box: Box = Field(description="The line's upright bounding box, fractions of the image.")
    polygon: list[list[int]] = Field(
        description="The line's four corners in image pixels, clockwise from the top left."
    )


def engine_version() -> str:
    """`rapidocr-onnxruntime <version>` (what an analysis records as its engine)."""
    try:
        return f"{ENGINE_NAME} {metadata.version(ENGINE_NAME)}"
    except metadata.PackageNotFoundError:
        return ENGINE_NAME


class OcrEngine:
    """One rapidocr engine, loaded on first use, reading one image at a time. Thread-safe."""

    def __init__(self, *, max_side: int = MAX_SIDE, min_confidence: float = MIN_CONFIDENCE) -> None:
        self.max_side = max_side
        self.min_confidence = min_confidence
        self._engine: Any = None
        self._lock = threading.Lock()  # guards loading and every call (the engine keeps per-call state)

    def _load(self) -> Any:
        """The engine (caller holds the lock). Import errors name what is missing."""
        if self._engine is None:
            started = time.perf_counter()
            try:
                from rapidocr_onnxruntime import RapidOCR
            except (ImportError, OSError) as exc:  # OSError: a shared library (libGL) cannot be loaded
                log.warning("OCR unavailable: %s", exc)
                raise OcrUnavailableError(
                    "服务器无法进行文字识别：OCR 组件（OpenCV / rapidocr）未能加载，"
                    "请安装系统依赖（libGL）后重启",
                    details={"reason": str(exc)[:300]},
                ) from exc
            try:
                self._engine = RapidOCR()
            except Exception as exc:  # the models or onnxruntime failed to initialise
                log.warning("OCR engine failed to load: %s", exc)
                raise OcrUnavailableError(
                    "服务器无法进行文字识别：OCR 模型未能加载",
                    details={"reason": str(exc)[:300]},
                ) from exc
            log.info("OCR engine loaded in %.2f s", time.perf_counter() - started)
        return self._engine

    def warm_up(self) -> None:
        """Load the engine now instead of on the first read."""
        with self._lock:
            self._load()

    def read(self, data: bytes) -> list[TextRegion]:
        """The text lines of image bytes (any format Pillow reads), top to bottom, left to right."""
        return self.read_image(load_rgb(data))

    def read_image(self, image: Image.Image) -> list[TextRegion]:
        """The text lines of an RGB image."""
        width, height = image.size
        if min(width, height) < MIN_SIDE:
            return []
        scale = 1.0
        if max(width, height) > self.max_side:
            scale = self.max_side / max(width, height)
            image = image.resize(
                (max(1, round(width * scale)), max(1, round(height * scale))), Image.Resampling.LANCZOS
            )
        with self._lock:
            engine = self._load()
            try:
                found, _elapsed = engine(image)
            except Exception as exc:
                log.warning("OCR failed on a %dx%d image: %s", width, height, exc)
                raise ImageInputError("这张图片无法识别文字", code="OCR_FAILED") from exc
        regions = [_region(item, scale, width, height) for item in found or []]
        kept = [r for r in regions if r is not None and r.confidence >= self.min_confidence]
        return sorted(kept, key=lambda r: (round(r.box.y + r.box.h / 2, 2), r.box.x))


def _region(item: Any, scale: float, width: int, height: int) -> TextRegion | None:
    """One rapidocr result `[[4 points], text, score]` in the original image's coordinates."""
    try:
        points, text, score = item[0], str(item[1]).strip(), float(item[2])
        corners = [(float(x) / scale, float(y) / scale) for x, y in points]
    except (TypeError, ValueError, IndexError):
        return None
    if not text or len(corners) != 4:
        return None
    xs = [min(max(x, 0.0), width) for x, _ in corners]
    ys = [min(max(y, 0.0), height) for _, y in corners]
    left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
    if right <= left or bottom <= top:
        return None
    return TextRegion(
        text=text,
        confidence=round(min(1.0, max(0.0, score)), 4),
        box=Box(
            x=round(left / width, 4),
            y=round(top / height, 4),
            w=round(min(1.0, (right - left) / width), 4),
            h=round(min(1.0, (bottom - top) / height), 4),
        ),
        polygon=[[round(x), round(y)] for x, y in zip(xs, ys, strict=True)],
    )


_shared: OcrEngine | None = None
_shared_lock = threading.Lock()


def shared_engine() -> OcrEngine:
    """The process's one engine (created on first use; its models load on its first read)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = OcrEngine()
        return _shared


def read_text(data: bytes, engine: OcrEngine | None = None) -> list[TextRegion]:
    """The text lines of image bytes, read by `engine` or the process's shared one. Blocking."""
    return (engine or shared_engine()).read(data)
