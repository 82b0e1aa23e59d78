"""Pixel-statistics analysis of reference images, on synthetic images with known answers."""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image, ImageDraw

from tools.errors import ImageInputError
from tools.typography import FontBook
from tools.vision import analyze_image


def encode(image: Image.Image, fmt: str = "PNG") -> bytes:
    out = BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def solid(colour: tuple[int, int, int], size: tuple[int, int] = (300, 400)) -> bytes:
    return encode(Image.new("RGB", size, colour))


def gradient(size: tuple[int, int] = (540, 720)) -> Image.Image:
    top, bottom = Image.new("RGB", size, (250, 236, 214)), Image.new("RGB", size, (233, 162, 59))
    return Image.composite(bottom, top, Image.linear_gradient("L").resize(size))


def with_text(base: Image.Image) -> Image.Image:
    image = base.copy()
    draw = ImageDraw.Draw(image)
    font = FontBook().font(22)
    for row in range(12):
        draw.text(
            (40, 180 + row * 34), "周末城市露营装备清单：帐篷、天幕、折叠椅", font=font, fill=(30, 30, 30)
        )
    return image


def test_palette_of_a_red_blue_image() -> None:
    image = Image.new("RGB", (400, 300), (255, 0, 0))
    ImageDraw.Draw(image).rectangle((200, 0, 400, 300), fill=(0, 0, 255))
    analysis = analyze_image(encode(image))
    top_two = {colour.hex: colour.share for colour in analysis.palette[:2]}
    assert set(top_two) == {"#FF0000", "#0000FF"}
    assert all(0.45 <= share <= 0.55 for share in top_two.values())
    assert sum(colour.share for colour in analysis.palette) == pytest.approx(1.0, abs=0.01)
    assert analysis.saturation > 0.9
    assert not analysis.composition.symmetric  # the halves are opposites


def test_brightness_orders_dark_below_light() -> None:
    dark, light = analyze_image(solid((20, 24, 30))), analyze_image(solid((240, 238, 230)))
    assert dark.brightness < 0.15 < 0.85 < light.brightness
    assert dark.contrast == light.contrast == 0.0


def test_warm_and_cool_tones() -> None:
    assert analyze_image(solid((240, 150, 60))).tone == "warm"
    assert analyze_image(solid((40, 120, 220))).tone == "cool"
    assert analyze_image(solid((128, 128, 128))).tone == "neutral"


def test_orientation_and_aspect_ratio() -> None:
    portrait = analyze_image(solid((1, 2, 3), (1080, 1440)))
    assert (portrait.orientation, portrait.aspect_ratio, portrait.width) == ("portrait", 0.75, 1080)
    assert analyze_image(solid((1, 2, 3), (1600, 900))).orientation == "landscape"
    assert analyze_image(solid((1, 2, 3), (500, 510))).orientation == "square"


def test_text_density_higher_with_text_than_on_a_flat_gradient() -> None:
    flat = analyze_image(encode(gradient()))
    text = analyze_image(encode(with_text(gradient())))
    assert text.text_score > flat.text_score
    assert flat.text_density == "low" and flat.text_regions == []
    assert text.text_density in ("medium", "high")
    assert text.text_regions
    # the regions sit where the lines were drawn (rows 180..~580 of 720, starting at x=40 of 540)
    assert all(0.2 <= box.y <= 0.85 for box in text.text_regions)
    assert min(box.x for box in text.text_regions) < 0.15


def test_composition_finds_an_offset_subject() -> None:
    image = Image.new("RGB", (600, 600), (245, 245, 245))
    ImageDraw.Draw(image).ellipse((40, 40, 170, 170), fill=(200, 40, 40))
    composition = analyze_image(encode(image)).composition
    assert composition.focus_cell == "top-left"
    assert composition.balance == "offset"
    assert composition.center_x < 0.35 and composition.center_y < 0.35
    assert sum(map(sum, composition.grid)) == pytest.approx(1.0, abs=0.01)


def test_composition_of_a_centred_symmetric_subject() -> None:
    image = Image.new("RGB", (600, 800), (245, 245, 245))
    ImageDraw.Draw(image).ellipse((200, 300, 400, 500), fill=(40, 90, 200))
    composition = analyze_image(encode(image)).composition
    assert composition.focus_cell == "middle-center"
    assert composition.balance == "centered" and composition.symmetric


def test_transparent_and_jpeg_images() -> None:
    rgba = Image.new("RGBA", (200, 200), (0, 0, 0, 0))
    ImageDraw.Draw(rgba).rectangle((50, 50, 150, 150), fill=(0, 0, 0, 255))
    analysis = analyze_image(encode(rgba))
    assert analysis.palette[0].hex == "#FFFFFF"  # transparency is flattened onto white
    assert analyze_image(encode(gradient(), "JPEG")).tone == "warm"


def test_summary_is_one_readable_line() -> None:
    summary = analyze_image(encode(with_text(gradient()))).summary()
    assert "暖色调" in summary and "主色" in summary and "\n" not in summary


def test_undecodable_bytes() -> None:
    with pytest.raises(ImageInputError) as caught:
        analyze_image(b"not an image")
    assert caught.value.code == "IMAGE_DECODE_FAILED"
