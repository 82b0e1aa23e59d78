"""The cards' PNG encoder (`tools.png`): lossless, standard files that other decoders read."""

from __future__ import annotations

import zlib
from io import BytesIO

import pytest
from PIL import Image, ImageChops, ImageDraw

from tests.tools.test_renderer import request
from tools.png import encode_png
from tools.renderer import CardRenderer


def picture(mode: str) -> Image.Image:
    image = Image.linear_gradient("L").resize((301, 97)).convert(mode)  # odd sizes: no row alignment luck
    draw = ImageDraw.Draw(image)
    draw.ellipse((20, 10, 120, 90), fill=(200, 40, 90, 128)[: len(mode)])
    draw.text((150, 30), "露营 camp", fill=(10, 200, 30, 255)[: len(mode)])
    return image


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("level", [0, 1, 3])
def test_round_trip_is_lossless(mode: str, level: int) -> None:
    image = picture(mode)
    data = encode_png(image, level)
    decoded = Image.open(BytesIO(data))
    decoded.verify()  # chunk CRCs and structure
    decoded = Image.open(BytesIO(data))
    assert (decoded.format, decoded.mode, decoded.size) == ("PNG", mode, image.size)
    assert ImageChops.difference(decoded, image).getbbox() is None


def test_the_data_is_standard_zlib_with_unfiltered_rows() -> None:
    image = picture("RGB")
    data = encode_png(image)
    start = data.index(b"IDAT") + 4
    length = int.from_bytes(data[start - 8 : start - 4], "big")
    raw = zlib.decompress(data[start : start + length])
    stride = 1 + image.width * 3
    assert len(raw) == stride * image.height
    assert {raw[row * stride] for row in range(image.height)} == {0}  # filter type 0 on every row


@pytest.mark.parametrize("background", ["gradient", "pattern"])
def test_cards_compress_about_as_well_as_with_pillow(background: str) -> None:
    card = CardRenderer().render_image(request("cover", background=background))
    out = BytesIO()
    card.save(out, format="PNG")
    assert len(encode_png(card)) < 1.6 * len(out.getvalue())


@pytest.mark.parametrize("mode", ["L", "P", "CMYK"])
def test_other_modes_are_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="RGB or RGBA"):
        encode_png(Image.new(mode, (4, 4)))
