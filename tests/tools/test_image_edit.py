"""Image editing by mask (`tools.image_edit`), the card parameters it adjusts (`text_scale`, `badge`) and the
real-model edit through the local OpenAI Images API (`tests/tools/images_api.py`). Real pixels throughout."""

from __future__ import annotations

import base64
import colorsys
from io import BytesIO
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageChops, ImageDraw

from tests.tools.images_api import EDIT_FILL, KEY, ImagesAPI, photo_png
from tools.errors import ImageEditError, ImageGenerationError
from tools.image_edit import (
    MOTIFS,
    EditResult,
    box_mask,
    crop,
    decode_mask,
    edit_with_model,
    inpaint,
    inpaint_offline,
    mask_data_url,
    parse_instruction,
    paste_through,
    pixel_box,
    provider_mask,
    replace_text_in_box,
)
from tools.images import ImageRequest, LiteLLMImageProvider
from tools.renderer import CardRenderer
from tools.typography import luminance

W, H = 1080, 1440


def request(**overrides: Any) -> ImageRequest:
    fields: dict[str, Any] = {
        "prompt": "周末城市露营，小红书风格封面",
        "role": "cover",
        "palette": ["#F6EFE3", "#2F6B4F", "#E9A23B", "#1E2A24"],
        "headline": "周末城市露营｜上班族的快乐充电站",
        "body": ["帐篷：选速开款，5分钟搭好", "天幕+折叠桌椅，遮阳又能吃饭"],
        "caption": "#城市露营 #周末去哪儿 #上班族",
        "visual_focus": "帐篷",
        "index": 1,
        "total": 3,
    }
    fields.update(overrides)
    return ImageRequest(**fields)


@pytest.fixture(scope="module")
def renderer() -> CardRenderer:
    return CardRenderer()


@pytest.fixture(scope="module")
def card(renderer: CardRenderer) -> bytes:
    return renderer.render_png(request())


def pixels(data: bytes) -> np.ndarray:
    image = Image.open(BytesIO(data))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def rect(x0: int, y0: int, x1: int, y1: int, size: tuple[int, int] = (W, H)) -> np.ndarray:
    mask = np.zeros((size[1], size[0]), dtype=bool)
    mask[y0:y1, x0:x1] = True
    return mask


def png_data_url(image: Image.Image, fmt: str = "PNG") -> str:
    out = BytesIO()
    image.save(out, format=fmt)
    mime = "image/png" if fmt == "PNG" else f"image/{fmt.lower()}"
    return f"data:{mime};base64," + base64.b64encode(out.getvalue()).decode("ascii")


def edit(card: bytes, mask: np.ndarray, instruction: str) -> tuple[EditResult, np.ndarray, np.ndarray]:
    """The edit, the card's pixels and the result's; asserts the pixels outside the mask are the card's."""
    result = inpaint_offline(card, mask, instruction, seed=3)
    before, after = pixels(card), pixels(result.data)
    assert after.shape == before.shape and (result.width, result.height) == (W, H)
    assert np.array_equal(before[~mask], after[~mask])
    return result, before, after


def hue(rgb: np.ndarray) -> float:
    r, g, b = (float(v) / 255 for v in rgb)
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


# --- masks ------------------------------------------------------------------------------------------------
def test_a_mask_is_white_where_to_change_in_any_png_mode() -> None:
    grey = Image.new("L", (40, 30), 0)
    ImageDraw.Draw(grey).rectangle((5, 5, 14, 9), fill=255)
    ImageDraw.Draw(grey).rectangle((20, 20, 29, 24), fill=100)  # below half: kept
    mask = decode_mask(png_data_url(grey), (40, 30))
    assert mask.dtype == bool and mask.shape == (30, 40)
    assert mask.sum() == 10 * 5 and mask[5:10, 5:15].all()
    assert np.array_equal(decode_mask(png_data_url(grey.convert("RGB")), (40, 30)), mask)
    rgba = Image.new("RGBA", (40, 30), (255, 255, 255, 0))  # white but transparent: kept
    ImageDraw.Draw(rgba).rectangle((5, 5, 14, 9), fill=(255, 255, 255, 255))
    assert np.array_equal(decode_mask(png_data_url(rgba), (40, 30)), mask)
    assert np.array_equal(decode_mask(mask_data_url(mask), (40, 30)), mask)
    everything = decode_mask(png_data_url(Image.new("L", (40, 30), 255)), (40, 30))
    assert everything.all()  # a mask over the whole picture is allowed


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("not a data url", "data URL"),
        ("data:image/png;base64,@@@", "base64"),
        (png_data_url(Image.new("RGB", (40, 30), "white"), "JPEG"), "PNG"),
        (png_data_url(Image.new("L", (41, 30), 255)), "尺寸"),
        (png_data_url(Image.new("L", (40, 30), 0)), "空"),
        (png_data_url(Image.new("LA", (40, 30), (255, 0))), "空"),
    ],
)
def test_a_bad_mask_is_a_clear_client_error(value: str, words: str) -> None:
    with pytest.raises(ImageEditError) as raised:
        decode_mask(value, (40, 30))
    assert raised.value.code == "INVALID_MASK" and words in raised.value.message
    assert raised.value.details["field"] == "mask"


def test_provider_mask_is_transparent_exactly_where_the_mask_is_white() -> None:
    mask = rect(10, 20, 50, 40, (64, 48))
    image = Image.open(BytesIO(provider_mask(mask)))
    assert image.format == "PNG" and image.mode == "RGBA" and image.size == (64, 48)
    alpha = np.asarray(image.getchannel("A"))
    assert np.array_equal(alpha == 0, mask) and np.all(alpha[~mask] == 255)


def test_boxes_are_fractions_of_the_image() -> None:
    assert pixel_box((1000, 500), (0.1, 0.2, 0.5, 0.4)) == (100, 100, 600, 300)
    for bad in ((0.5, 0.5, 0.6, 0.1), (0.1, 0.1, 0.0, 0.2), (-0.1, 0, 0.5, 0.5)):
        with pytest.raises(ImageEditError) as raised:
            pixel_box((1000, 500), bad)
        assert raised.value.code == "INVALID_EDIT"


# --- the offline editor -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("换成蓝色", {"colour_name": "蓝色"}),
        ("改成深红色的", {"colour_name": "深红色"}),
        ("画一个黄色的太阳", {"colour_name": "黄色", "element": "sun"}),
        ("把杯子换成红色", {"colour_name": "红色", "element": None}),
        ("加一朵粉色的花", {"colour_name": "粉色", "element": "flower"}),
        ("写上「周末快乐」", {"text": "周末快乐", "element": None}),
        ("标题改成夏日露营", {"text": "夏日露营"}),
        ("用浅绿色写上“你好”", {"text": "你好", "colour_name": "浅绿色"}),
        ("画一只小猫", {"emblem": "小猫"}),
        ("去掉这个人", {"remove": True}),
        ("把背景改成海边", {"leftover": "背景海边"}),
    ],
)
def test_instructions_are_read(instruction: str, expected: dict[str, Any]) -> None:
    plan = parse_instruction(instruction)
    for name, value in expected.items():
        assert getattr(plan, name) == value, (instruction, plan)


def test_a_plain_instruction_removes_what_is_marked_and_nothing_else(card: bytes) -> None:
    mask = rect(0, 0, 420, 260)  # the top-left corner: the badge
    result, before, after = edit(card, mask, "去掉这里")
    assert result.applied == ["移除选区内原有内容，并按周围画面补全"] and result.unapplied == []
    assert not np.array_equal(before[mask], after[mask])

    # the badge's accent pill is gone: the corner is the card's light background again
    def accent(region: np.ndarray) -> int:
        r, g, b = (region[:, i].astype(int) for i in range(3))
        return int(((r - b > 90) & (g < 200)).sum())

    assert accent(before[mask]) > 5000 and accent(after[mask]) < 50


def test_a_colour_recolours_the_marked_thing(card: bytes) -> None:
    mask = rect(60, 60, 480, 160)  # around the badge
    result, before, after = edit(card, mask, "把这里换成蓝色")
    assert result.applied == ["把选区改为蓝色"]
    changed = np.any(before != after, axis=2) & mask
    assert changed.sum() > 3000
    assert 200 <= hue(after[changed].mean(axis=0)) <= 240
    assert not 200 <= hue(before[changed].mean(axis=0)) <= 240


def test_text_is_written_in_the_box_in_a_readable_ink(card: bytes) -> None:
    mask = rect(60, 980, 1020, 1180)
    result, _before, after = edit(card, mask, "写上「周末快乐」")
    assert "写入文字：「周末快乐」" in result.applied
    region = after[980:1180, 60:1020].reshape(-1, 3)
    light = np.array([luminance(tuple(int(v) for v in px)) for px in region[::7]])
    background = float(np.median(light))
    ink = np.abs(light - background) > 0.4  # text pixels stand far from the background
    assert ink.mean() > 0.03


def test_an_element_is_drawn_in_the_named_colour(card: bytes) -> None:
    mask = rect(600, 160, 1000, 560)
    result, _before, after = edit(card, mask, "画一个黄色的太阳")
    assert "添加元素：黄色太阳" in result.applied
    region = after[mask].astype(int)
    yellow = (region[:, 0] > 200) & (region[:, 1] > 150) & (region[:, 2] < 110)
    assert yellow.mean() > 0.2


@pytest.mark.parametrize("key", sorted(MOTIFS))
def test_every_element_draws_something(card: bytes, key: str) -> None:
    spec = MOTIFS[key]
    mask = rect(100, 900, 500, 1300)
    result, _before, after = edit(card, mask, f"画一个{spec.name}")
    assert f"添加元素：{spec.name}" in result.applied
    filled = pixels(inpaint_offline(card, mask, "去掉", seed=3).data)
    drawn = np.any(np.abs(after.astype(int) - filled.astype(int)) > 40, axis=2) & mask
    assert drawn.sum() > 0.08 * mask.sum(), key


def test_what_cannot_be_done_offline_is_reported(card: bytes) -> None:
    result, _before, _after = edit(card, rect(0, 600, 1080, 900), "把背景改成海边")
    assert result.unapplied and "海边" in result.unapplied[0]
    result, _before, _after = edit(card, rect(0, 600, 1080, 900), "画一只小猫")
    assert any("小猫" in line for line in result.applied)


def test_a_mask_over_everything_is_edited(card: bytes) -> None:
    result = inpaint_offline(card, np.ones((H, W), dtype=bool), "写上「你好」", seed=1)
    assert "写入文字：「你好」" in result.applied and pixels(result.data).shape == (H, W, 3)


def test_replacing_a_text_line_keeps_its_colour_and_everything_else() -> None:
    image = Image.new("RGB", (600, 300), (240, 236, 228))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 200, 600, 300), fill=(40, 90, 60))
    from tools.image_edit import fonts

    draw.text((60, 60), "旧的标题文字", font=fonts().font(64), fill=(180, 30, 40))
    out = BytesIO()
    image.save(out, format="PNG")
    box = (0.05, 0.15, 0.9, 0.4)
    data = replace_text_in_box(out.getvalue(), box, "新标题")
    before, after = np.asarray(image), pixels(data)
    mask = box_mask((600, 300), box)
    assert np.array_equal(before[~mask], after[~mask])
    inside = after[mask].astype(int)
    reddish = (inside[:, 0] > 120) & (inside[:, 1] < 90) & (inside[:, 2] < 90)
    assert reddish.sum() > 500  # the new text, in the old text's red
    with pytest.raises(ImageEditError):
        replace_text_in_box(out.getvalue(), box, "  ")


def test_crop_cuts_the_box(card: bytes) -> None:
    part = Image.open(BytesIO(crop(card, (0.1, 0.2, 0.5, 0.25))))
    assert part.size == (540, 360)
    assert np.array_equal(np.asarray(part.convert("RGB")), pixels(card)[288:648, 108:648])


def test_paste_through_keeps_only_the_masked_pixels_of_a_repainted_picture(card: bytes) -> None:
    repainted = photo_png(1024, 1536)  # another size: scaled to the card's
    mask = rect(200, 300, 700, 800)
    data = paste_through(card, repainted, mask)
    before, after = pixels(card), pixels(data)
    assert np.array_equal(before[~mask], after[~mask])
    scaled = np.asarray(
        Image.open(BytesIO(repainted)).convert("RGB").resize((W, H), Image.Resampling.LANCZOS)
    )
    core = rect(204, 304, 696, 796)  # past the 2 px feather
    assert np.array_equal(after[core], scaled[core])
    edge = after[300, 200:700].astype(int)  # the mask's first row: a blend of the two
    assert not np.array_equal(edge, scaled[300, 200:700]) and not np.array_equal(edge, before[300, 200:700])


# --- card parameters --------------------------------------------------------------------------------------
def test_default_parameters_leave_the_card_unchanged(renderer: CardRenderer, card: bytes) -> None:
    assert renderer.render_png(request(text_scale=1.0, badge=True)) == card
    with pytest.raises(ValueError):
        request(text_scale=1.6)


@pytest.mark.parametrize("role", ["cover", "detail", "result"])
def test_text_scale_changes_the_text_and_still_fits_it(renderer: CardRenderer, role: str) -> None:
    default = renderer.draw(request(role=role, text_density="high"))
    for scale in (0.7, 1.4):
        scaled = renderer.draw(request(role=role, text_density="high", text_scale=scale))
        assert ImageChops.difference(default.image, scaled.image).getbbox() is not None
        headline = "".join(line for slot, line in scaled.drawn if slot == "headline")
        assert "…" not in headline
        assert [s for s, _ in default.drawn if s == "item"] != [] or role == "cover"
    short = {"role": role, "text_density": "low", "visual_focus": None, "headline": "露营清单"}
    big = renderer.draw(request(**short, text_scale=1.4))
    ink_big = np.asarray(big.image.convert("L")) < 80  # dark text on the light palette
    ink_default = np.asarray(renderer.draw(request(**short)).image.convert("L")) < 80
    assert ink_big.sum() > ink_default.sum() * 1.2


def test_badge_off_removes_only_the_badge(renderer: CardRenderer) -> None:
    with_badge = renderer.draw(request())
    without = renderer.draw(request(badge=False))
    assert ("badge", "城市露营") in with_badge.drawn
    assert not any(slot == "badge" for slot, _ in without.drawn)
    changed = ImageChops.difference(with_badge.image, without.image).getbbox()
    assert changed is not None
    left, top, right, bottom = changed
    assert top >= 60 and bottom <= 150 and left >= 60 and right < W / 2  # the badge's corner only


# --- a real model's edit, through the local OpenAI Images API ---------------------------------------------
async def test_a_model_edits_the_masked_region_only(api: ImagesAPI, card: bytes) -> None:
    provider = LiteLLMImageProvider("gpt-image-1", api_key=KEY, api_base=api.base, timeout_s=30)
    mask = rect(100, 200, 600, 700)
    result = await edit_with_model(provider, card, mask, "画一个太阳")
    (call,) = api.requests
    assert call.path == "/v1/images/edits" and call.status == 200
    assert call.body["model"] == "gpt-image-1" and call.body["size"] == "1024x1536"
    assert "画一个太阳" in call.body["prompt"]
    sent_mask = Image.open(BytesIO(call.files["mask"][0]))
    assert sent_mask.size == (W, H) and np.array_equal(np.asarray(sent_mask.getchannel("A")) == 0, mask)
    before, after = pixels(card), pixels(result.data)
    assert np.array_equal(before[~mask], after[~mask])  # the model lightened everything: only the mask kept
    inside = after[rect(110, 210, 590, 690)].astype(int)
    assert np.abs(inside - np.array(EDIT_FILL)).max() <= 8
    assert result.applied and result.unapplied == []


async def test_a_model_edit_answers_the_picture_as_it_came(api: ImagesAPI) -> None:
    provider = LiteLLMImageProvider("dall-e-2", api_key=KEY, api_base=api.base, timeout_s=30)
    picture = photo_png(512, 512)
    made = await provider.edit(picture, provider_mask(rect(0, 0, 100, 100, (512, 512))), "加一朵花")
    assert (made.width, made.height, made.mime) == (1024, 1024, "image/png")
    assert api.requests[-1].body["response_format"] == "b64_json"
    assert provider.edit_arguments(picture, b"", "x", size="256x256")["size"] == "256x256"


async def test_a_model_edit_fails_like_a_generation(api: ImagesAPI, card: bytes) -> None:
    provider = LiteLLMImageProvider("gpt-image-1", api_key=KEY, api_base=api.base, timeout_s=30)
    opaque = BytesIO()
    Image.new("RGBA", (W, H), (0, 0, 0, 255)).save(opaque, format="PNG")  # nothing transparent to edit
    with pytest.raises(ImageGenerationError) as raised:
        await provider.edit(card, opaque.getvalue(), "画一个太阳")
    assert raised.value.code == "IMAGE_BAD_REQUEST" and not raised.value.retryable
    assert "transparent" in raised.value.details["providerMessage"]
    api.fail(429, retry_after=2)
    with pytest.raises(ImageGenerationError) as raised:
        await provider.edit(card, provider_mask(rect(0, 0, 10, 10)), "画一个太阳")
    assert raised.value.code == "IMAGE_PROVIDER_UNAVAILABLE" and raised.value.retryable
    wrong_key = LiteLLMImageProvider("gpt-image-1", api_key="bad", api_base=api.base, timeout_s=30)
    with pytest.raises(ImageGenerationError) as raised:
        await wrong_key.edit(card, provider_mask(rect(0, 0, 10, 10)), "画一个太阳")
    assert raised.value.code == "IMAGE_PROVIDER_AUTH"


def test_text_crossing_the_edge_of_the_mask_is_not_smeared_into_it() -> None:
    """A dark line of text runs out of the painted region: the fill is the background's, not streaks of the
    text pulled in from the edge, and everything outside the mask stays as it was."""
    pixels = np.full((120, 200, 3), (240, 232, 220), np.uint8)
    pixels[50:62, 20:180] = (30, 30, 30)  # a line of text crossing the whole mask
    mask = np.zeros((120, 200), bool)
    mask[30:90, 60:140] = True
    out = inpaint(pixels, mask)
    inside = out[mask].astype(int)
    background = np.array((240, 232, 220))
    assert np.abs(inside - background).max() <= 12, "the text's ink was pulled into the fill"
    assert np.array_equal(out[~mask], pixels[~mask])
