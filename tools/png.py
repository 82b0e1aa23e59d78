"""A fast PNG encoder for the offline cards: no row filters, deflate by ISA-L (`isal`).

Pillow's PNG encoder tries all five row filters on every row and keeps the best; on a 1080×1440 card that
costs ~22 ms before any compression, and with zlib the whole encode took ~34 ms, as much as drawing the
card. The cards are large flat areas, smooth gradients and anti-aliased text, which deflate compresses
about as well unfiltered: ISA-L's level 1 writes a file the size of Pillow's level 3 (~150 KB) in ~5 ms
(docs/benchmarks.md §2). The output is a plain 8-bit RGB or RGBA PNG that any decoder reads.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from isal import isal_zlib
from PIL import Image

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {"RGB": 2, "RGBA": 6}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: Image.Image, level: int = 1) -> bytes:
    """`image` (RGB or RGBA) as PNG bytes: every row with filter type 0, deflated by ISA-L at `level`
    (0–3)."""
    colour_type = _COLOUR_TYPES.get(image.mode)
    if colour_type is None:
        raise ValueError(f"encode_png takes RGB or RGBA images, not {image.mode}")
    pixels = np.asarray(image)
    rows = np.zeros((image.height, 1 + pixels.shape[1] * pixels.shape[2]), np.uint8)  # column 0: filter 0
    rows[:, 1:] = pixels.reshape(image.height, -1)
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, colour_type, 0, 0, 0)
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", isal_zlib.compress(rows, level)),
            _chunk(b"IEND", b""),
        )
    )
