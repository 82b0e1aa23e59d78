"""Image editing by mask: the pixel work behind "change this part of the picture".

A mask marks where to change: white (or any light, opaque pixel) changes, black or transparent keeps
(`decode_mask` reads the PNG data URL the studio's editor sends; `MaskLike` also takes a boolean array or a
PIL image). Whatever does the change, **pixels outside the mask stay byte-identical**: every result is
composited through the binary mask at the end.

- `inpaint_offline(image, mask, instruction, seed=)`: the offline editor. The masked region is filled by
  OpenCV inpainting (Telea) from what surrounds it, then redrawn as the Chinese instruction asks
  (`parse_instruction`): a colour (换成蓝色 — the marked thing is recoloured, its shading kept), a new
  element (画一个黄色的太阳 — one of `MOTIFS`, simple vector drawings fitted to the mask's box; another noun
  after 画/加 gets the card renderer's emblem with its name), text (写上「周末快乐」 — the card font, fitted
  to the box, in a colour that reads on what is behind it). An instruction with none of these removes what
  was there (the inpaint alone). `EditResult` says in Chinese what was applied and what could not be.
- Real image models repaint the whole picture: `provider_mask` is the mask in the provider's convention
  (OpenAI: transparent where to edit), `LiteLLMImageProvider.edit` (tools.images) makes the call, and
  `paste_through(original, edited, mask)` keeps only the masked pixels of the model's picture;
  `edit_with_model` does the three.
- `replace_text_in_box` rewrites a text line found by OCR on a picture (inpaint the box, draw the new text
  in the old text's colour), `crop` cuts a box out; boxes are fractions (x, y, w, h) of the image's size.

Errors are `ImageEditError` (tools.errors; an HTTP 422): `INVALID_MASK` for the mask, `INVALID_EDIT` else.
"""

from __future__ import annotations

import base64
import binascii
import colorsys
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from io import BytesIO
from typing import TYPE_CHECKING, Any, Literal, Protocol

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from tools.errors import ImageEditError, ImageInputError
from tools.png import encode_png
from tools.typography import RGB, FontBook, ensure_contrast, luminance, mix, readable_on
from tools.vision import load_rgb

if TYPE_CHECKING:
    from tools.images import GeneratedImage

Mask = np.ndarray  # bool, shape (height, width): True where to change
MaskLike = np.ndarray | Image.Image | str  # an array, an image (L / RGB / RGBA) or a PNG data URL
Box = tuple[float, float, float, float]  # fractions of the image: x, y, width, height

_PNG = b"\x89PNG\r\n\x1a\n"
_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?P<params>(?:;[^,;]*)*),(?P<data>.*)$", re.S)
_INPAINT_PIXELS = 40_000  # masks larger than this are inpainted at a reduced scale (Telea is O(area))
_SUPERSAMPLE = 4  # elements are drawn at 4× and scaled down: smooth edges


# --- masks ------------------------------------------------------------------------------------------------
def decode_mask(data_url: str, size: tuple[int, int]) -> Mask:
    """The mask of a PNG data URL (`data:image/png;base64,…`) for an image of `size` (width, height): True
    where it is white. Any PNG mode is read: an opaque pixel counts by its lightness, a transparent one keeps
    (the lightness is taken over black), the threshold is half way. Raises `ImageEditError` (`INVALID_MASK`)
    for something else than a PNG data URL, another size, or a mask with nothing marked."""
    if not isinstance(data_url, str):
        raise _mask_error("蒙版必须是 PNG 图片的 data URL（data:image/png;base64,…）")
    match = _DATA_URL.match(data_url.strip())
    if match is None:
        raise _mask_error("蒙版必须是 PNG 图片的 data URL（data:image/png;base64,…）")
    if ";base64" not in match.group("params"):
        raise _mask_error("蒙版的 data URL 必须是 base64 编码")
    try:
        raw = base64.b64decode(re.sub(r"\s+", "", match.group("data")), validate=True)
    except (binascii.Error, ValueError):
        raise _mask_error("蒙版的 base64 数据无法解码") from None
    if not raw.startswith(_PNG):
        raise _mask_error("蒙版必须是 PNG 格式", mime=match.group("mime"))
    try:
        opened = Image.open(BytesIO(raw))
        if opened.size != tuple(size):  # checked before the pixels are decoded
            raise _mask_error(
                f"蒙版尺寸 {opened.width}×{opened.height} 与图片尺寸 {size[0]}×{size[1]} 不一致",
                maskSize=list(opened.size),
                imageSize=list(size),
            )
        opened.load()
    except ImageEditError:
        raise
    except Exception:
        raise _mask_error("蒙版 PNG 已损坏，无法读取") from None
    return as_mask(opened, size)


def as_mask(mask: MaskLike, size: tuple[int, int]) -> Mask:
    """`mask` as a boolean array for an image of `size` (width, height); see `decode_mask` for how an image
    is read. An array counts where it is true (bool), ≥ 128 (integers) or ≥ 0.5 (floats)."""
    width, height = size
    if isinstance(mask, str):
        return decode_mask(mask, size)
    if isinstance(mask, Image.Image):
        if mask.size != (width, height):
            raise _mask_error(
                f"蒙版尺寸 {mask.width}×{mask.height} 与图片尺寸 {width}×{height} 不一致",
                maskSize=list(mask.size),
                imageSize=[width, height],
            )
        if mask.mode in ("RGBA", "LA", "PA") or (mask.mode == "P" and "transparency" in mask.info):
            rgba = mask.convert("RGBA")
            light = np.asarray(rgba.convert("L"), dtype=np.uint16)
            alpha = np.asarray(rgba.getchannel("A"), dtype=np.uint16)
            marked = light * alpha >= 128 * 255
        else:
            marked = np.asarray(mask.convert("L")) >= 128
    else:
        array = np.asarray(mask)
        if array.ndim == 3:  # colour array: its first channel
            array = array[..., 0]
        if array.shape != (height, width):
            raise _mask_error(
                f"蒙版尺寸 {array.shape[1] if array.ndim == 2 else '?'}×{array.shape[0]} 与图片尺寸 "
                f"{width}×{height} 不一致",
                imageSize=[width, height],
            )
        if array.dtype == bool:
            marked = array
        elif np.issubdtype(array.dtype, np.integer):
            marked = array >= 128
        else:
            marked = array >= 0.5
    if not marked.any():
        raise _mask_error("蒙版是空的：请先涂抹要修改的区域")
    return np.ascontiguousarray(marked, dtype=bool)


def box_mask(size: tuple[int, int], box: Box) -> Mask:
    """The mask of a box given as fractions (x, y, w, h) of an image of `size` (width, height)."""
    x0, y0, x1, y1 = pixel_box(size, box)
    mask = np.zeros((size[1], size[0]), dtype=bool)
    mask[y0:y1, x0:x1] = True
    return mask


def pixel_box(size: tuple[int, int], box: Box) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) in pixels of a fraction box, at least one pixel each way; raises
    `ImageEditError` for a box that is not within the image."""
    try:
        x, y, w, h = (float(v) for v in box)
    except (TypeError, ValueError):
        raise ImageEditError(
            "区域必须是 4 个数：x, y, 宽, 高（图片尺寸的比例）", details={"box": box}
        ) from None
    eps = 1e-6
    if not all(math.isfinite(v) for v in (x, y, w, h)) or w <= 0 or h <= 0:
        raise ImageEditError("区域的宽和高必须大于 0", details={"box": [x, y, w, h]})
    if x < -eps or y < -eps or x + w > 1 + eps or y + h > 1 + eps:
        raise ImageEditError(
            "区域超出了图片范围（x、y、宽、高都是 0–1 的比例）", details={"box": [x, y, w, h]}
        )
    width, height = size
    x0, y0 = min(width - 1, max(0, round(x * width))), min(height - 1, max(0, round(y * height)))
    x1 = min(width, max(x0 + 1, round((x + w) * width)))
    y1 = min(height, max(y0 + 1, round((y + h) * height)))
    return x0, y0, x1, y1


def mask_bounds(mask: Mask) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the marked pixels (right and bottom exclusive)."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def mask_png(mask: Mask) -> bytes:
    """The mask as a black-and-white PNG (white where to change)."""
    out = BytesIO()
    Image.fromarray(mask.astype(np.uint8) * 255, "L").save(out, format="PNG")
    return out.getvalue()


def mask_data_url(mask: Mask) -> str:
    """The mask as the PNG data URL `decode_mask` reads."""
    return "data:image/png;base64," + base64.b64encode(mask_png(mask)).decode("ascii")


def provider_mask(mask: Mask, convention: Literal["openai"] = "openai") -> bytes:
    """The mask in an image provider's convention, as PNG bytes. `openai` (the Images API's edits, and
    litellm's): an RGBA image of the picture's size whose fully transparent pixels mark where to edit; kept
    pixels are opaque black."""
    if convention != "openai":
        raise ValueError(f"unknown mask convention {convention!r}")
    mask = np.asarray(mask, dtype=bool)
    rgba = np.zeros((*mask.shape, 4), dtype=np.uint8)
    rgba[..., 3] = np.where(mask, 0, 255)
    return encode_png(Image.fromarray(rgba, "RGBA"))


def _mask_error(message: str, **details: Any) -> ImageEditError:
    return ImageEditError(message, code="INVALID_MASK", details={"field": "mask", **details})


# --- images -----------------------------------------------------------------------------------------------
def open_rgb(data: bytes) -> Image.Image:
    """Image bytes (PNG, JPEG, WebP …) as an RGB image, EXIF orientation applied, transparency laid on
    white; raises `ImageEditError` when they do not decode."""
    try:
        return load_rgb(data)
    except ImageInputError:
        raise ImageEditError("图片无法解码", details={"field": "image"}) from None


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) of image bytes, as `open_rgb` would see them."""
    return open_rgb(data).size


def _png(pixels: np.ndarray) -> bytes:
    return encode_png(Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint8), "RGB"))


def _through(original: np.ndarray, edited: np.ndarray, mask: Mask) -> np.ndarray:
    """`edited` inside the mask, `original` (exactly) outside."""
    return np.where(mask[..., None], edited, original).astype(np.uint8)


def inpaint(pixels: np.ndarray, mask: Mask) -> np.ndarray:
    """The RGB array with the masked region filled from its surroundings (OpenCV Telea) — from their
    background: text or lines crossing the region's edge are not smeared into it (`_strokes`). Pixels outside
    the mask are unchanged. Only a window around the mask is worked on; a large region is filled at a reduced
    scale and scaled back (Telea's cost grows with the area); a mask over the whole image leaves nothing to
    fill from: the image's mean colour."""
    if mask.all():
        return np.broadcast_to(pixels.reshape(-1, 3).mean(axis=0).round(), pixels.shape).astype(np.uint8)
    height, width = mask.shape
    left, top, right, bottom = mask_bounds(mask)
    margin = 16
    window = (slice(max(0, top - margin), min(height, bottom + margin)),
              slice(max(0, left - margin), min(width, right + margin)))  # fmt: skip
    out = pixels.copy()
    out[window] = _inpaint_window(np.ascontiguousarray(pixels[window]), mask[window])
    return out


def _inpaint_window(pixels: np.ndarray, mask: Mask) -> np.ndarray:
    marked = mask.astype(np.uint8) * 255
    # a brush's anti-aliased rim half outside the threshold would bleed into the fill: fill from 2 px further
    grown = cv2.dilate(marked, np.ones((5, 5), np.uint8))
    if np.all(grown):
        grown = marked
    # text or a line crossing the region's edge would be smeared into it: fill from the background only
    grown = np.where(_strokes(pixels, grown), 255, grown).astype(np.uint8)
    height, width = mask.shape
    count = int(np.count_nonzero(grown))
    factor = math.sqrt(count / _INPAINT_PIXELS)
    if factor <= 1.25:
        filled = cv2.inpaint(pixels, grown, 5, cv2.INPAINT_TELEA)
    else:
        small = (max(1, round(width / factor)), max(1, round(height / factor)))
        shrunk = cv2.resize(pixels, small, interpolation=cv2.INTER_AREA)
        shrunk_mask = (cv2.resize(grown, small, interpolation=cv2.INTER_AREA) > 0).astype(np.uint8) * 255
        if np.all(shrunk_mask):
            shrunk_mask = (cv2.resize(marked, small, interpolation=cv2.INTER_AREA) > 127).astype(
                np.uint8
            ) * 255
        if np.all(shrunk_mask) or not shrunk_mask.any():
            return _through(pixels, np.broadcast_to(pixels[~mask].mean(axis=0).round(), pixels.shape), mask)
        filled = cv2.resize(
            cv2.inpaint(shrunk, shrunk_mask, 3, cv2.INPAINT_TELEA),
            (width, height),
            interpolation=cv2.INTER_LINEAR,
        )
    # Telea's gradient term can overshoot a flat surrounding by a few levels (a visible lighter patch): keep
    # the fill within the colours of the ring around the region it was filled from
    ring = cv2.dilate(grown, np.ones((9, 9), np.uint8)).astype(bool) & ~grown.astype(bool)
    if not ring.any():
        ring = ~mask
    around = pixels[ring]
    filled = np.clip(filled, around.min(axis=0), around.max(axis=0))
    return _through(pixels, filled, mask)


_STROKE_DISTANCE = 60.0  # RGB distance from the background's median that marks a stroke
_STROKE_SHARE = 0.35  # more than this of the surroundings standing out: a busy picture, not strokes


def _strokes(pixels: np.ndarray, region: np.ndarray) -> np.ndarray:
    """What stands out from the background around `region` and reaches its edge — the strokes of text or
    lines that cross into it — as a boolean array over the window: every pixel far from the median colour
    of a 6 px band around the region, in a blob that touches that band. None when the surroundings are busy
    (more than a third of them stand out): a photo, not strokes on a background."""
    outside = ~region.astype(bool)
    band = cv2.dilate(region, np.ones((13, 13), np.uint8)).astype(bool) & outside
    if np.count_nonzero(band) < 20:
        return np.zeros(region.shape, bool)
    median = np.median(pixels[band].astype(np.float32), axis=0)
    far = (np.linalg.norm(pixels.astype(np.float32) - median, axis=2) > _STROKE_DISTANCE) & outside
    _, labels = cv2.connectedComponents(far.astype(np.uint8), connectivity=8)
    touching = np.unique(labels[band & far])
    strokes = np.isin(labels, touching[touching > 0])
    if np.count_nonzero(strokes) > _STROKE_SHARE * np.count_nonzero(outside):
        return np.zeros(region.shape, bool)
    return strokes


# --- instructions -----------------------------------------------------------------------------------------
COLOURS: dict[str, RGB] = {
    "红": (222, 45, 50),
    "橙": (245, 135, 30),
    "黄": (250, 204, 30),
    "绿": (46, 160, 80),
    "青": (0, 166, 166),
    "蓝": (36, 100, 222),
    "紫": (140, 72, 196),
    "粉": (244, 140, 182),
    "白": (255, 255, 255),
    "黑": (24, 24, 24),
    "灰": (130, 130, 134),
    "棕": (128, 84, 50),
    "咖啡": (111, 78, 55),
    "金": (212, 172, 50),
    "银": (190, 192, 200),
}
_COLOUR_ALIASES = {"粉红": "粉", "橘": "橙", "褐": "棕", "紫罗兰": "紫", "天蓝": "蓝", "藏青": "蓝"}
_TONES = {"深": "深", "暗": "深", "浅": "浅", "淡": "浅", "亮": "浅"}


@dataclass(frozen=True)
class MotifSpec:
    key: str
    name: str  # the Chinese name reported back
    pattern: str  # a regex over the instruction
    aspect: float  # width / height of its drawing
    colour: RGB  # its main colour unless the instruction names one


MOTIFS: dict[str, MotifSpec] = {
    spec.key: spec
    for spec in (
        MotifSpec("sun", "太阳", r"太阳|日出|红日", 1.0, (255, 196, 30)),
        MotifSpec("moon", "月亮", r"月亮|月牙|弯月|新月", 1.0, (250, 214, 110)),
        MotifSpec("star", "星星", r"星星|五角星|星形|小星", 1.0, (255, 200, 40)),
        MotifSpec("heart", "爱心", r"爱心|心形|桃心|红心", 1.1, (230, 60, 84)),
        MotifSpec(
            "flower",
            "花",
            r"花朵|鲜花|小花|(?<=[朵个的画加成红黄粉紫白蓝 ])花(?![费钱纹样园生])",
            1.0,
            (240, 112, 150),
        ),
        MotifSpec("tree", "树", r"圣诞树|松树|大树|小树|树木|树(?![叶枝立])", 0.8, (58, 150, 72)),
        MotifSpec("cloud", "云", r"云朵|白云|云彩|乌云|云(?![南端])", 1.6, (250, 251, 253)),
        MotifSpec("mountain", "山", r"雪山|山峰|大山|山脉|(?<![下上江])山(?![东西药])", 1.5, (86, 118, 150)),
        MotifSpec("balloon", "气球", r"气球", 0.65, (232, 64, 72)),
        MotifSpec("gift", "礼物", r"礼物|礼盒|礼品", 1.0, (214, 48, 64)),
        MotifSpec("cup", "咖啡杯", r"咖啡杯|杯咖啡|咖啡(?!色)|杯子|茶杯|水杯", 1.15, (250, 248, 244)),
    )
}
_CREATE = r"画|加|添|放|换成|改成|变成|改为|换为|变为|来|生成|插入|贴"
_REMOVE = r"去掉|删除|删掉|移除|擦掉|擦除|抹掉|抹去|清除|不要|消除|去除|拿掉|抠掉|隐藏"
_QUOTED = re.compile(r"「(.+?)」|『(.+?)』|“(.+?)”|\"(.+?)\"|‘(.+?)’|《(.+?)》")
_TEXT_VERBS = re.compile(
    r"(?:写上|写着|写成|写|标上|打上|加上文字|添加文字|加文字|加上字|改成文字|换成文字|改为文字|"
    r"(?:文字|字|标题|文案|字样)(?:改成|换成|改为|换为|写成|为|是))[：:\s]*(?P<text>[^，。,!！？?；;]+)"
)
_TEXT_TAIL = re.compile(r"(?:这?几个字|的?字样|的?文字|字)$")
_UNKNOWN_ELEMENT = re.compile(
    r"(?:画上?|加上?|添加?|放上?|插入)(?:一|两|几)?(?:个|朵|颗|轮|只|棵|片|座|杯|束|些|张|条|台|辆)?"
    r"(?:[^，。,\s]{1,4}?的)?(?P<thing>[\u4e00-\u9fff]{1,6})"
)
_FILLERS = re.compile(
    r"把|将|这里|这儿|那里|这块|这个|那个|这部分|这些|这|那|区域|选区|选中的?|部分|地方|位置|内容|东西|"
    r"改成|改为|换成|换为|变成|变为|涂成|染成|修改|改|换|变|画上|画|加上|添加|添上|加|放上|放|"
    r"一个|一朵|一颗|一轮|一只|一棵|一片|一座|一杯|一束|一些|个|朵|颗|轮|只|棵|片|座|杯|束|"
    r"颜色|的|色|成|为|请|帮我|帮忙|麻烦|给|一下|吧|呀|啊|呢|上|里|用|和|并|然后|再|在|中间|里面|上面|"
    r"文字|字样|字|一点|稍微|一些|点|一"
)


@dataclass(frozen=True)
class EditPlan:
    """What an instruction asks of the offline editor (`parse_instruction`)."""

    colour: RGB | None = None
    colour_name: str | None = None  # 蓝色, 深红色 …
    element: str | None = None  # a `MOTIFS` key
    emblem: str | None = None  # another thing to draw (its name, shown on an emblem)
    text: str | None = None
    remove: bool = False
    leftover: str = ""  # what was not understood

    @property
    def draws(self) -> bool:
        return bool(self.element or self.emblem or self.text)


def parse_instruction(instruction: str) -> EditPlan:
    """Read a Chinese edit instruction: a colour (蓝色, 浅绿色, 换成红的), an element (`MOTIFS`, or another
    noun after 画/加: an emblem), text (quoted, or after 写上 / 文字改成 …), a removal (去掉, 删除 …)."""
    rest = re.sub(r"\s+", " ", instruction or "").strip()
    text: str | None = None
    quoted = _QUOTED.search(rest)
    if quoted:
        text = next(group for group in quoted.groups() if group is not None).strip()
        before = re.sub(
            r"(?:写上|写着|写成|写|标上|打上|加上?文字|添加文字|改成文字|换成文字)[：:\s]*$",
            "",
            rest[: quoted.start()],
        )
        rest = before + " " + re.sub(r"^(?:这?几个字|的?字样|的?文字)", "", rest[quoted.end() :])
    else:
        found = _TEXT_VERBS.search(rest)
        if found:
            text = _TEXT_TAIL.sub("", found.group("text").strip()).strip() or None
            rest = rest[: found.start()] + " " + rest[found.end() :]
    colour, colour_name, rest = _find_colour(rest)
    element, rest = _find_motif(rest)
    emblem: str | None = None
    if element is None:
        unknown = _UNKNOWN_ELEMENT.search(rest)
        thing = unknown.group("thing") if unknown else ""
        thing = re.sub(r"^(?:一|两|几)?(?:个|朵|颗|轮|只|棵|片|座|杯|束|些|张|条|台|辆)", "", thing)
        thing = re.sub(r"(?:吧|呀|啊|呢|上去|上|进去)$", "", thing)
        if unknown and len(thing) >= 1 and not re.fullmatch(r"(?:颜色|文字|字|东西|点)", thing):
            emblem = thing
            rest = rest[: unknown.start()] + " " + rest[unknown.end() :]
    remove = bool(re.search(_REMOVE, rest))
    rest = re.sub(_REMOVE, " ", rest)
    verb = re.search(_CREATE, rest)
    if verb and (colour or element or emblem or text):  # words before the verb name what is changed (把背景…)
        rest = rest[verb.start() :]
    leftover = "".join(re.findall(r"[\u4e00-\u9fffA-Za-z0-9]+", _FILLERS.sub(" ", rest)))
    return EditPlan(colour, colour_name, element, emblem, text, remove, leftover)


def _find_colour(text: str) -> tuple[RGB | None, str | None, str]:
    names = sorted([*COLOURS, *_COLOUR_ALIASES], key=len, reverse=True)
    motifs = "|".join(spec.pattern for spec in MOTIFS.values())
    colour_word = "|".join(names)
    pattern = re.compile(
        rf"(?P<tone>[深暗浅淡亮])?(?P<c>{colour_word})(?:色(?:的)?|(?=的)|(?={motifs}))"
        rf"|(?<=[成为])(?P<tone2>[深暗浅淡亮])?(?P<c2>{colour_word})(?=$|[，。,.!！\s的])"
    )
    match = pattern.search(text)
    if match is None:
        return None, None, text
    word = match.group("c") or match.group("c2")
    tone = match.group("tone") or match.group("tone2")
    base = _COLOUR_ALIASES.get(word, word)
    rgb = COLOURS[base]
    if tone and _TONES[tone] == "深":
        rgb = mix(rgb, (0, 0, 0), 0.35)
    elif tone:
        rgb = mix(rgb, (255, 255, 255), 0.45)
    name = f"{_TONES[tone] if tone else ''}{word}色"
    return rgb, name, text[: match.start()] + " " + text[match.end() :]


def _find_motif(text: str) -> tuple[str | None, str]:
    """The first motif named after a creating verb (画, 加, 换成 …), or named alone; a motif before the verb
    is the thing being changed (把杯子换成红色), not one to draw."""
    verb = re.search(_CREATE, text)
    subject = None
    for spec in MOTIFS.values():
        for match in re.finditer(spec.pattern, text):
            remainder = _FILLERS.sub("", text[: match.start()] + text[match.end() :]).strip()
            if (verb and match.start() >= verb.end()) or (not verb and not remainder):
                return spec.key, text[: match.start()] + " " + text[match.end() :]
            subject = subject or match
    if subject is not None:  # the thing being changed: understood, nothing to draw
        text = text[: subject.start()] + " " + text[subject.end() :]
    return None, text


# --- the offline editor -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EditResult:
    """An edited picture (PNG, RGB, the original's size) and, in Chinese, what was done and what not."""

    data: bytes = field(repr=False)
    width: int
    height: int
    applied: list[str]
    unapplied: list[str]
    mime: str = "image/png"


def inpaint_offline(image: bytes, mask: MaskLike, instruction: str, *, seed: int = 0) -> EditResult:
    """Edit the masked region of `image` offline as `instruction` asks (see the module's docstring): inpaint
    it, then recolour, draw an element or write text there. Pixels outside the mask are unchanged; the output
    is an RGB PNG of the input's size. `seed` fixes the drawings' small random choices."""
    picture = open_rgb(image)
    marked = as_mask(mask, picture.size)
    plan = parse_instruction(instruction)
    rng = random.Random(seed)
    pixels = np.asarray(picture)
    filled = inpaint(pixels, marked)
    applied: list[str] = []
    unapplied: list[str] = []
    if plan.colour is not None and not plan.draws and not plan.remove:  # 换成蓝色: the thing recoloured
        work = recolour(pixels, filled, marked, plan.colour)
        applied.append(f"把选区改为{plan.colour_name}")
    else:  # drawing, removing, or nothing understood: what was there goes first
        work = filled
        applied.append("移除选区内原有内容，并按周围画面补全")
        if plan.colour is not None and not plan.draws:  # 去掉文字，换成白色: the filled area recoloured
            work = recolour(filled, filled, marked, plan.colour, whole=True)
            applied.append(f"把选区改为{plan.colour_name}")
    left, top, right, bottom = mask_bounds(marked)
    element_box, text_box = (left, top, right, bottom), (left, top, right, bottom)
    if plan.text and (plan.element or plan.emblem):  # both: the element above, the text below
        split = top + round((bottom - top) * 0.62)
        element_box, text_box = (left, top, right, split), (left, split, right, bottom)
    canvas = Image.fromarray(np.ascontiguousarray(work, dtype=np.uint8), "RGB")
    if plan.element:
        spec = MOTIFS[plan.element]
        if _draw_motif(canvas, element_box, spec, plan.colour or spec.colour, rng):
            applied.append(f"添加元素：{plan.colour_name or ''}{spec.name}")
        else:
            unapplied.append(f"选区太小，画不下{spec.name}")
    elif plan.emblem:
        if _draw_emblem(canvas, element_box, plan.emblem, plan.colour, seed):
            applied.append(f"添加元素：{plan.emblem}（离线模式以图标加文字表示）")
        else:
            unapplied.append(f"选区太小，画不下{plan.emblem}")
    if plan.text:
        ink = plan.colour if not (plan.element or plan.emblem) else None  # else the colour is the element's
        written, cut = write_text(canvas, text_box, plan.text, ink)
        if written:
            applied.append(f"写入文字：「{written}」" + (f"（{plan.colour_name}）" if ink else ""))
            if cut:
                unapplied.append(f"文字太长，选区内只写下了「{written}」")
        else:
            unapplied.append(f"选区太小，写不下「{plan.text}」")
    if plan.leftover and not plan.remove:
        unapplied.append(f"离线编辑无法理解或做到：{plan.leftover}（可以改颜色、画简单图形、写字或去除内容）")
    result = _through(pixels, np.asarray(canvas), marked)
    return EditResult(_png(result), picture.width, picture.height, applied, unapplied)


def recolour(
    pixels: np.ndarray, background: np.ndarray, mask: Mask, colour: RGB, *, whole: bool = False
) -> np.ndarray:
    """The masked region in `colour`, its shading kept: hue and saturation become the colour's, lightness
    moves so that its mean is the colour's. Only what stands out from `background` (the inpainted fill: the
    thing the mask was drawn around) changes, softly at its edges; all of the mask when that is almost
    nothing (a flat area) or `whole`."""
    region = pixels[mask].astype(np.float32)
    if whole:
        weight = np.ones(len(region), np.float32)
    else:
        distance = np.abs(region - background[mask].astype(np.float32)).max(axis=1)
        weight = np.clip((distance - 10.0) / 30.0, 0.0, 1.0)
        if weight.mean() < 0.04:
            weight = np.ones(len(region), np.float32)
    hls = cv2.cvtColor(region.astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_RGB2HLS_FULL).reshape(-1, 3)
    lightness = hls[:, 1].astype(np.float32)
    target_h, target_l, target_s = colorsys.rgb_to_hls(*(c / 255 for c in colour))
    mean = float((lightness * weight).sum() / max(weight.sum(), 1e-6))
    new_l = np.clip(target_l * 255 + (lightness - mean) * 0.85, 6, 250)
    new = np.empty_like(hls)
    new[:, 0] = round(target_h * 255) % 256
    new[:, 1] = new_l.round().astype(np.uint8)
    new[:, 2] = round(target_s * 255)
    rgb = cv2.cvtColor(new.reshape(-1, 1, 3), cv2.COLOR_HLS2RGB_FULL).reshape(-1, 3).astype(np.float32)
    out = pixels.copy()
    out[mask] = (region * (1 - weight[:, None]) + rgb * weight[:, None]).round().clip(0, 255).astype(np.uint8)
    return out


# --- text -----------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def fonts() -> FontBook:
    """The card font (`tools.typography`), shared by the edits of this process."""
    return FontBook()


def fit_text(
    text: str, width: float, height: float, book: FontBook | None = None
) -> tuple[int, list[str], bool]:
    """(size, lines, cut): the largest size at which `text` fits `width` × `height` (line height 1.25), in
    as many lines as that takes (display wrapping: Chinese words whole); when it never fits, the most that
    does at a small size, cut at a phrase boundary with "…" (`cut`)."""
    book = book or fonts()
    best: tuple[int, list[str]] | None = None
    smallest = 10
    for count in range(1, 7):
        largest = min(height / (1.25 * count - 0.25), height * 0.8)
        if largest < smallest:
            break
        size, lines = book.fit(text, width, count, largest, smallest)
        if (
            lines
            and not (lines[-1].endswith("…") and not text.endswith("…"))
            and (best is None or size > best[0])
        ):
            best = (size, lines)
    if best is not None:
        return best[0], best[1], False
    count = max(1, int((height + 0.25 * smallest) // (1.25 * smallest)))
    lines = book.truncate(book.wrap(text, smallest, width, words=True), count, smallest, width)
    return smallest, lines, True


def write_text(
    canvas: Image.Image, box: tuple[int, int, int, int], text: str, colour: RGB | None = None
) -> tuple[str, bool]:
    """Draw `text` centred in `box` (pixels) on `canvas`, fitted (`fit_text`); in `colour` made readable on
    what is behind it, or the readable ink there. Returns (the text drawn, whether it was cut); ("", False)
    when the box is too small for any."""
    book = fonts()
    text = book.clean(text)
    left, top, right, bottom = box
    pad_x, pad_y = (right - left) * 0.06, (bottom - top) * 0.08
    width, height = right - left - 2 * pad_x, bottom - top - 2 * pad_y
    if not text or width < 10 or height < 10:
        return "", False
    size, lines, cut = fit_text(text, width, height, book)
    region = np.asarray(canvas.crop(box)).reshape(-1, 3).mean(axis=0)
    behind: RGB = (round(region[0]), round(region[1]), round(region[2]))
    ink = ensure_contrast(colour, behind, 3.0) if colour else readable_on(behind)
    draw = ImageDraw.Draw(canvas)
    font = book.font(size)
    stroke = max(1, round(size / 44)) if size >= 28 else 0
    line_height = size * 1.25
    block = (len(lines) - 1) * line_height + size
    y = top + pad_y + (height - block) / 2
    for i, line in enumerate(lines):
        x = left + pad_x + (width - book.width(line, size)) / 2
        draw.text(
            (x, y + size * 0.88 + i * line_height),
            line,
            font=font,
            fill=ink,
            anchor="ls",
            stroke_width=stroke,
            stroke_fill=ink,
        )
    return "".join(lines) if not _is_latin(text) else " ".join(lines), cut


def _is_latin(text: str) -> bool:
    return not re.search(r"[\u3000-\u9fff\uff00-\uffef]", text)


def replace_text_in_box(image: bytes, box: Box, text: str) -> bytes:
    """`image` with the text in `box` (fractions x, y, w, h; e.g. a line found by OCR) replaced by `text`:
    the box is inpainted and `text` drawn in it, fitted, in the old text's colour (its strokes: the pixels
    that differ most from the background) made readable on the new background. Outside the box nothing
    changes. Raises `ImageEditError` for an empty text or a box outside the image."""
    if not (text or "").strip():
        raise ImageEditError("要写入的文字不能为空", details={"field": "text"})
    picture = open_rgb(image)
    pixels = np.asarray(picture)
    marked = box_mask(picture.size, box)
    filled = inpaint(pixels, marked)
    ink = _old_ink(pixels, filled, marked)
    canvas = Image.fromarray(filled, "RGB")
    x0, y0, x1, y1 = pixel_box(picture.size, box)
    written, _cut = write_text(canvas, (x0, y0, x1, y1), text, ink)
    if not written:
        raise ImageEditError("区域太小，写不下文字", details={"field": "box", "box": list(box)})
    return _png(_through(pixels, np.asarray(canvas), marked))


def _old_ink(pixels: np.ndarray, filled: np.ndarray, mask: Mask) -> RGB | None:
    """The colour of the strokes in the masked region: the mean of the pixels nearly as far from the
    inpainted background as the farthest, if they stand out at all."""
    region = pixels[mask].astype(np.float32)
    distance = np.abs(region - filled[mask].astype(np.float32)).sum(axis=1)
    if distance.size == 0 or distance.max() < 60:
        return None
    strokes = region[distance >= distance.max() * 0.75]  # the strokes' cores, not their anti-aliased rims
    r, g, b = strokes.mean(axis=0)
    return round(float(r)), round(float(g)), round(float(b))


# --- elements -------------------------------------------------------------------------------------------
Drawer = Callable[[ImageDraw.ImageDraw, float, float, RGB, random.Random], None]


def _draw_motif(
    canvas: Image.Image, box: tuple[int, int, int, int], spec: MotifSpec, colour: RGB, rng: random.Random
) -> bool:
    """Draw `spec` in `colour`, as large as fits `box` (its aspect kept, a small margin), with a soft
    shadow so it shows on any background. False when the box is too small."""
    left, top, right, bottom = box
    room_w, room_h = (right - left) * 0.88, (bottom - top) * 0.88
    height = min(room_h, room_w / spec.aspect)
    width = height * spec.aspect
    if width < 8 or height < 8:
        return False
    k = _SUPERSAMPLE
    layer = Image.new("RGBA", (max(1, round(width * k)), max(1, round(height * k))), (0, 0, 0, 0))
    _DRAWERS[spec.key](ImageDraw.Draw(layer), layer.width, layer.height, colour, rng)
    layer = layer.resize((max(1, round(width)), max(1, round(height))), Image.Resampling.LANCZOS)
    x = round(left + (right - left - layer.width) / 2)
    y = round(top + (bottom - top - layer.height) / 2)
    alpha = layer.getchannel("A")
    blur = max(1.0, height * 0.025)
    shadow = alpha.point(lambda v: v * 70 // 255).filter(ImageFilter.GaussianBlur(blur))
    offset = max(1, round(height * 0.02))
    canvas.paste((20, 24, 32), (x + offset, y + offset), shadow)
    canvas.paste(layer.convert("RGB"), (x, y), alpha)
    return True


def _sun(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    cx, cy, s = w / 2, h / 2, min(w, h) / 2
    r = s * 0.52
    rays = mix(colour, (255, 120, 0), 0.3)
    turn = rng.uniform(0, math.pi / 12)
    for i in range(12):
        a = turn + i * math.pi / 6
        half = math.pi / 28
        d.polygon(
            [
                (cx + r * 1.18 * math.cos(a - half * 1.6), cy + r * 1.18 * math.sin(a - half * 1.6)),
                (cx + s * 0.98 * math.cos(a), cy + s * 0.98 * math.sin(a)),
                (cx + r * 1.18 * math.cos(a + half * 1.6), cy + r * 1.18 * math.sin(a + half * 1.6)),
            ],
            fill=rays,
        )
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    glow = r * 0.62
    d.ellipse(
        (cx - glow - r * 0.15, cy - glow - r * 0.15, cx + glow - r * 0.15, cy + glow - r * 0.15),
        fill=(*mix(colour, (255, 255, 255), 0.25), 255),
    )


def _moon(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    cx, cy, r = w / 2, h / 2, min(w, h) * 0.46
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
    bite = r * 0.86
    bx, by = cx + r * 0.48, cy - r * 0.3
    d.ellipse((bx - bite, by - bite, bx + bite, by + bite), fill=(0, 0, 0, 0))


def _star_points(
    cx: float, cy: float, outer: float, inner: float, turn: float = 0.0
) -> list[tuple[float, float]]:
    points = []
    for i in range(10):
        radius = outer if i % 2 == 0 else inner
        a = -math.pi / 2 + turn + i * math.pi / 5
        points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return points


def _star(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    cx, cy, r = w / 2, h * 0.53, min(w, h) * 0.5
    d.polygon(_star_points(cx, cy, r, r * 0.42), fill=colour)
    d.polygon(_star_points(cx, cy, r * 0.55, r * 0.23), fill=mix(colour, (255, 255, 255), 0.22))


def _heart(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    points = []
    for i in range(120):
        t = 2 * math.pi * i / 120
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        points.append((w / 2 + x / 34 * w, h * 0.46 - y / 31 * h))
    d.polygon(points, fill=colour)
    shine = min(w, h) * 0.09
    sx, sy = w * 0.3, h * 0.3
    d.ellipse((sx - shine, sy - shine * 0.7, sx + shine, sy + shine * 0.7), fill=(255, 255, 255, 150))


def _flower(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    cx, cy, s = w / 2, h / 2, min(w, h) / 2
    petals = 6
    turn = rng.uniform(0, math.pi / petals)
    length, width = s * 0.5, s * 0.3
    for i in range(petals):
        a = turn + i * 2 * math.pi / petals
        px, py = cx + math.cos(a) * s * 0.48, cy + math.sin(a) * s * 0.48
        outline = []
        for j in range(36):
            t = 2 * math.pi * j / 36
            ex, ey = length * math.cos(t), width * math.sin(t)
            outline.append(
                (px + ex * math.cos(a) - ey * math.sin(a), py + ex * math.sin(a) + ey * math.cos(a))
            )
        d.polygon(outline, fill=colour if i % 2 == 0 else mix(colour, (255, 255, 255), 0.15))
    centre = s * 0.26
    heart = (250, 200, 40) if abs(luminance(colour) - luminance((250, 200, 40))) > 0.1 else (150, 80, 30)
    d.ellipse((cx - centre, cy - centre, cx + centre, cy + centre), fill=heart)


def _tree(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    trunk = (120, 78, 44)
    d.rounded_rectangle((w * 0.43, h * 0.6, w * 0.57, h), radius=w * 0.04, fill=trunk)
    dark = mix(colour, (0, 0, 0), 0.18)
    for fx, fy, fr, fill in (
        (0.5, 0.3, 0.3, colour),
        (0.3, 0.5, 0.24, dark),
        (0.7, 0.5, 0.24, dark),
        (0.5, 0.52, 0.26, colour),
    ):
        r = fr * w
        d.ellipse((fx * w - r, fy * h - r, fx * w + r, fy * h + r), fill=fill)


def _cloud(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    rim = mix(colour, (120, 130, 150), 0.35)
    for grow, fill in ((h * 0.035, rim), (0.0, colour)):
        for fx, fy, fr in ((0.3, 0.6, 0.26), (0.5, 0.42, 0.34), (0.72, 0.58, 0.26)):
            r = fr * h + grow
            d.ellipse((fx * w - r, fy * h - r, fx * w + r, fy * h + r), fill=fill)
        d.rounded_rectangle(
            (w * 0.12 - grow, h * 0.55 - grow, w * 0.88 + grow, h * 0.9 + grow),
            radius=h * 0.17 + grow,
            fill=fill,
        )


def _mountain(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    back = mix(colour, (255, 255, 255), 0.3)
    d.polygon([(w * 0.38, h), (w * 0.7, h * 0.12), (w, h)], fill=back)
    d.polygon([(0, h), (w * 0.36, 0), (w * 0.74, h)], fill=colour)
    snow = (250, 252, 255)
    d.polygon(
        [
            (w * 0.36, 0),
            (w * 0.255, h * 0.29),
            (w * 0.32, h * 0.25),
            (w * 0.37, h * 0.31),
            (w * 0.42, h * 0.24),
            (w * 0.465, h * 0.29),
        ],
        fill=snow,
    )


def _balloon(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    d.ellipse((0, 0, w, h * 0.72), fill=colour)
    d.polygon(
        [(w * 0.44, h * 0.75), (w * 0.5, h * 0.7), (w * 0.56, h * 0.75)], fill=mix(colour, (0, 0, 0), 0.2)
    )
    string = [(w * 0.5 + math.sin(t / 5) * w * 0.06, h * 0.75 + t / 20 * h * 0.25) for t in range(21)]
    d.line(string, fill=(110, 110, 120), width=max(2, round(w * 0.025)))
    d.ellipse((w * 0.2, h * 0.1, w * 0.36, h * 0.24), fill=(255, 255, 255, 140))


def _gift(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    ribbon = (246, 206, 70) if luminance(colour) < 0.45 else (200, 40, 60)
    d.rectangle((w * 0.08, h * 0.42, w * 0.92, h), fill=colour)
    d.rectangle((0, h * 0.3, w, h * 0.46), fill=mix(colour, (0, 0, 0), 0.12))
    d.rectangle((w * 0.43, h * 0.3, w * 0.57, h), fill=ribbon)
    d.rectangle((0, h * 0.34, w, h * 0.42), fill=ribbon)
    for sign in (-1, 1):
        cx = w * 0.5 + sign * w * 0.16
        d.ellipse(
            (cx - w * 0.15, h * 0.04, cx + w * 0.15, h * 0.3), outline=ribbon, width=max(3, round(w * 0.06))
        )


def _cup(d: ImageDraw.ImageDraw, w: float, h: float, colour: RGB, rng: random.Random) -> None:
    line = max(3, round(w * 0.035))
    rim = mix(colour, (90, 60, 40), 0.55) if luminance(colour) > 0.5 else mix(colour, (255, 255, 255), 0.4)
    d.ellipse(
        (w * 0.02, h * 0.84, w * 0.9, h * 0.99), fill=mix(colour, (0, 0, 0), 0.1), outline=rim, width=line
    )
    d.ellipse((w * 0.6, h * 0.45, w * 0.98, h * 0.8), outline=rim, width=line * 2)
    d.rounded_rectangle(
        (w * 0.12, h * 0.36, w * 0.76, h * 0.9), radius=w * 0.12, fill=colour, outline=rim, width=line
    )
    d.ellipse((w * 0.12, h * 0.3, w * 0.76, h * 0.44), fill=colour, outline=rim, width=line)
    d.ellipse((w * 0.17, h * 0.325, w * 0.71, h * 0.42), fill=(111, 70, 40))
    steam = (170, 170, 178, 200)
    for fx in (0.3, 0.44, 0.58):
        path = [(w * fx + math.sin(t / 3) * w * 0.03, h * (0.24 - t / 10 * 0.22)) for t in range(11)]
        d.line(path, fill=steam, width=line)


_DRAWERS: dict[str, Drawer] = {
    "sun": _sun,
    "moon": _moon,
    "star": _star,
    "heart": _heart,
    "flower": _flower,
    "tree": _tree,
    "cloud": _cloud,
    "mountain": _mountain,
    "balloon": _balloon,
    "gift": _gift,
    "cup": _cup,
}


def _draw_emblem(
    canvas: Image.Image, box: tuple[int, int, int, int], label: str, colour: RGB | None, seed: int
) -> bool:
    """Another thing to draw, as the card renderer shows a visual focus (`tools.canvas.motif`): an emblem
    with its name, fitted to `box`. False when the box (or the picture) is too small for it."""
    from tools.canvas import Canvas, motif
    from tools.images import ImageRequest

    left, top, right, bottom = box
    r = min((right - left) / 2.85, (bottom - top) / 2.7)
    if r < 28 or not 256 <= canvas.width <= 4096 or not 256 <= canvas.height <= 4096:
        return False
    region = np.asarray(canvas.crop(box)).reshape(-1, 3).mean(axis=0)
    behind = "#{:02X}{:02X}{:02X}".format(*(round(v) for v in region))
    accent = "#{:02X}{:02X}{:02X}".format(*(colour or (233, 162, 59)))
    request = ImageRequest(
        prompt=label,
        role="detail",
        width=canvas.width,
        height=canvas.height,
        palette=[behind, accent],
        visual_focus=label,
        seed=seed,
    )
    board = Canvas(request, fonts(), photo=canvas)
    cx = left + (right - left) / 2 + 0.075 * r
    motif(board, cx, top + (bottom - top) / 2, r, fonts().clean(label) or label)
    canvas.paste(board.image)
    return True


# --- real models ----------------------------------------------------------------------------------------
def paste_through(original: bytes, edited: bytes, mask: MaskLike, *, feather: int = 2) -> bytes:
    """The original picture with the masked region taken from `edited` (a model's repainted picture, scaled to
    the original's size when it differs). `feather` px inside the mask's edge blend the two, so no seam shows;
    outside the mask the original's pixels stay exactly. Returns an RGB PNG."""
    picture = open_rgb(original)
    marked = as_mask(mask, picture.size)
    other = open_rgb(edited)
    if other.size != picture.size:
        other = other.resize(picture.size, Image.Resampling.LANCZOS)
    base, new = np.asarray(picture), np.asarray(other)
    if feather > 0:
        inside = cv2.distanceTransform(marked.astype(np.uint8), cv2.DIST_L2, 3)
        alpha = np.clip(inside / (feather + 1), 0.0, 1.0)[..., None]
        blended = (base * (1 - alpha) + new * alpha).round().clip(0, 255).astype(np.uint8)
    else:
        blended = new
    return _png(_through(base, blended, marked))


def crop(image: bytes, box: Box) -> bytes:
    """The part of `image` in `box` (fractions x, y, w, h), as an RGB PNG."""
    picture = open_rgb(image)
    return encode_png(picture.crop(pixel_box(picture.size, box)))


def edit_prompt(instruction: str) -> str:
    """What an image model is asked when it edits the masked area as `instruction` says."""
    return (
        f"{instruction.strip()}\n\nEdit only the transparent (masked) area of the image as asked above; keep "
        "everything else exactly as it is, in the same style, lighting and perspective. "
        "只修改蒙版（透明）区域，其余部分保持不变。"
    )


class ImageEditor(Protocol):
    name: str

    async def edit(
        self, image: bytes, mask_png: bytes, prompt: str, *, size: str | None = None
    ) -> GeneratedImage: ...


async def edit_with_model(editor: ImageEditor, image: bytes, mask: MaskLike, instruction: str) -> EditResult:
    """Edit with a real image model (`LiteLLMImageProvider.edit`): the mask in OpenAI's convention, the
    model's picture pasted back through the mask (`paste_through`), so only the masked region changes. Raises
    the provider's `ImageGenerationError`s."""
    import asyncio

    picture = open_rgb(image)
    marked = as_mask(mask, picture.size)
    source = _png(np.asarray(picture))
    made = await editor.edit(source, provider_mask(marked), edit_prompt(instruction))
    data = await asyncio.to_thread(paste_through, source, made.data, marked)
    return EditResult(data, picture.width, picture.height, [f"图片模型（{editor.name}）按指令重绘了选区"], [])
