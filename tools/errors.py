"""Exceptions raised by `tools`. Third-party exceptions are converted at the boundary.

    StudioError                      base; carries a stable `code` and optional `details`
    ├── LLMError                     anything that went wrong talking to a model
    │   ├── LLMTimeoutError          the call did not finish in time (retryable)
    │   ├── LLMUnavailableError      provider down, rate-limited, connection failed (retryable)
    │   ├── LLMAuthError             missing/invalid API key or unknown model
    │   └── LLMOutputError           the model's answer never validated against the output model
    ├── KnowledgeError               the knowledge store failed
    │   └── ImportRowsError          an import file had bad rows (nothing was imported)
    ├── ImageInputError              a reference image could not be accepted (bad data, too big, refused URL)
    ├── OcrUnavailableError          text recognition cannot run here (OpenCV, libGL or OCR engine missing)
    ├── ImageEditError               an image edit cannot be done as asked (INVALID_MASK, INVALID_EDIT)
    └── ImageGenerationError         an image provider failed to produce an image
"""

from __future__ import annotations

from typing import Any


class StudioError(Exception):
    """Base of every project exception. `code` is SNAKE_CASE and stable; `message` is for humans."""

    code = "STUDIO_ERROR"
    retryable = False

    def __init__(self, message: str, *, code: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


class LLMError(StudioError):
    code = "LLM_ERROR"


class LLMTimeoutError(LLMError):
    code = "LLM_TIMEOUT"
    retryable = True


class LLMUnavailableError(LLMError):
    code = "LLM_UNAVAILABLE"
    retryable = True


class LLMAuthError(LLMError):
    code = "LLM_AUTH"


class LLMOutputError(LLMError):
    code = "LLM_BAD_OUTPUT"


class KnowledgeError(StudioError):
    code = "KNOWLEDGE_ERROR"


class ImportRowsError(KnowledgeError):
    """Raised when an import file has invalid rows. `details` lists `{"line": n, "error": "..."}`."""

    code = "IMPORT_BAD_ROWS"

    def __init__(self, message: str, *, rows: list[dict[str, Any]]) -> None:
        super().__init__(message, details=rows)
        self.rows = rows


class ImageInputError(StudioError):
    code = "BAD_IMAGE_INPUT"


class OcrUnavailableError(StudioError):
    """The OCR engine cannot load in this process (OpenCV or a system library it needs, such as libGL, or the
    engine's models). Not the image's fault, and not retryable until the installation is fixed."""

    code = "OCR_UNAVAILABLE"


class ImageGenerationError(StudioError):
    code = "IMAGE_GENERATION_FAILED"
    retryable = True


class ImageEditError(StudioError):
    """An image edit that cannot be carried out as asked: a bad mask (`INVALID_MASK`: not a PNG data URL, not
    the image's size, nothing marked) or a bad edit (`INVALID_EDIT`: a box outside the image, no text, an
    image that does not decode). A client error; `details` names the field at fault."""

    code = "INVALID_EDIT"
