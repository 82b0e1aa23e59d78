"""Reference-image analysis with Pillow only: palette, light, colour temperature, composition, text density.

`analyze_image(data)` returns an `ImageAnalysis`. **Everything here is a pixel-statistics heuristic — no model
looks at the image**, so it describes how an image is built, not what it shows:

- palette: median-cut quantisation to 5 colours, with each colour's share of the pixels;
- brightness / contrast / saturation: means and spread of luminance and HSV saturation (0..1);
- warmth: mean red minus mean blue (-1..1) → warm / cool / neutral;
- composition: a "visual weight" map (edge strength plus distance from the mean colour) summarised as the
  centre of weight, the heaviest rule-of-thirds cell, centred vs offset, and a left/right mirror similarity;
- text density: text is many small, high-contrast strokes, so strong edges are counted in horizontal bands;
  bands dense with them are merged into candidate text regions (boxes as fractions of width/height).
  Busy textures (foliage, fabric, gravel) also produce dense strong edges and can read as text; large soft
  shapes and gradients never do. Treat `text_regions` as candidates, not OCR.

The work runs on downscaled copies (≤ 256 px for colour, ≤ 512 px for edges), so an analysis takes a few tens
of milliseconds. It is blocking: from async code call it through `asyncio.to_thread`.
"""

from __future__ import annotations

from io import BytesIO
from typing import Literal

from PIL import Image, ImageChops, ImageFilter, ImageOps, ImageStat, UnidentifiedImageError
from pydantic import BaseModel, Field

from tools.errors import ImageInputError

Cell = Literal[
    "top-left",
    "top-center",
    "top-right",
    "middle-left",
    "middle-center",
    "middle-right",
    "bottom-left",
    "bottom-center",
    "bottom-right",
]
_CELLS: tuple[Cell, ...] = (
    "top-left",
    "top-center",
    "top-right",
    "middle-left",
    "middle-center",
    "middle-right",
    "bottom-left",
    "bottom-center",
    "bottom-right",
)
_EDGE_THRESHOLD = 80  # FIND_EDGES response that counts as a "strong" (text-like) edge
_BAND_TEXT_DENSITY = 0.035  # share of strong-edge pixels that makes a band a text candidate
_BANDS = 48
# Calibrated on rendered cards: a cover with a headline scores ~0.03-0.06, a detail card with 6-8
# points ~0.08, a flat gradient 0.
_TEXT_MEDIUM, _TEXT_HIGH = 0.02, 0.065


class PaletteColour(BaseModel):
    hex: str = Field(description="#RRGGBB")
    share: float = Field(ge=0, le=1, description="Share of the image's pixels closest to this colour.")


class Box(BaseModel):
    """A region as fractions of the image width/height (0..1), origin at the top left."""

    x: float = Field(ge=0, le=1)
    y: float = Field(ge=0, le=1)
    w: float = Field(ge=0, le=1)
    h: float = Field(ge=0, le=1)


class Composition(BaseModel):
    center_x: float = Field(ge=0, le=1, description="Centre of visual weight, fraction of the width.")
    center_y: float = Field(ge=0, le=1, description="Centre of visual weight, fraction of the height.")
    focus_cell: Cell = Field(description="Rule-of-thirds cell holding the most visual weight.")
    grid: list[list[float]] = Field(description="Share of visual weight per thirds cell, 3 rows x 3 columns.")
    balance: Literal["centered", "offset"]
    symmetry: float = Field(ge=0, le=1, description="Left/right mirror similarity of the luminance.")
    symmetric: bool


class ImageAnalysis(BaseModel):
    width: int
    height: int
    aspect_ratio: float = Field(description="width / height")
    orientation: Literal["portrait", "landscape", "square"]
    palette: list[PaletteColour] = Field(description="Up to 5 dominant colours, largest share first.")
    brightness: float = Field(ge=0, le=1, description="Mean luminance.")
    contrast: float = Field(ge=0, le=1, description="Luminance standard deviation / 127.5, capped at 1.")
    saturation: float = Field(ge=0, le=1, description="Mean HSV saturation.")
    warmth: float = Field(ge=-1, le=1, description="(mean red - mean blue) / 255.")
    tone: Literal["warm", "cool", "neutral"]
    composition: Composition
    text_density: Literal["low", "medium", "high"]
    text_score: float = Field(
        ge=0, le=1, description="Strong-edge pixels in text-like bands per image pixel."
    )
    text_regions: list[Box] = Field(description="Candidate text regions, top to bottom (heuristic).")

    def summary(self) -> str:
        """One line for prompts, e.g. '暖色调、明亮、低饱和；主色 #F2E8DC(42%)…；视觉重心在中上；文字较多'."""
        light = "明亮" if self.brightness > 0.62 else "偏暗" if self.brightness < 0.38 else "中等亮度"
        sat = "高饱和" if self.saturation > 0.5 else "低饱和" if self.saturation < 0.22 else "中等饱和"
        tone = {"warm": "暖色调", "cool": "冷色调", "neutral": "中性色调"}[self.tone]
        colours = "、".join(f"{c.hex}({c.share:.0%})" for c in self.palette[:3])
        where = _CELL_ZH[self.composition.focus_cell]
        text = {"low": "几乎没有文字", "medium": "有少量文字", "high": "文字较多"}[self.text_density]
        balance = self.composition.balance
        layout = (
            "左右对称" if self.composition.symmetric else "居中构图" if balance == "centered" else "偏置构图"
        )
        return f"{tone}、{light}、{sat}；主色 {colours}；{layout}，视觉重心在{where}；{text}"


_CELL_ZH: dict[Cell, str] = {
    "top-left": "左上",
    "top-center": "中上",
    "top-right": "右上",
    "middle-left": "左侧",
    "middle-center": "中央",
    "middle-right": "右侧",
    "bottom-left": "左下",
    "bottom-center": "中下",
    "bottom-right": "右下",
}


def analyze_image(data: bytes) -> ImageAnalysis:
    """Analyse image bytes (any format Pillow reads). Raises `ImageInputError` if they do not decode."""
    image = load_rgb(data)
    width, height = image.size
    colour = image.copy()
    colour.thumbnail((256, 256), Image.Resampling.BILINEAR)
    grey = colour.convert("L")
    lum = ImageStat.Stat(grey)
    sat = ImageStat.Stat(colour.convert("HSV").getchannel("S"))
    r_mean, _g_mean, b_mean = ImageStat.Stat(colour).mean
    warmth = max(-1.0, min(1.0, (r_mean - b_mean) / 255))
    ratio = width / height
    detail = image.copy()
    detail.thumbnail((512, 512), Image.Resampling.BILINEAR)
    score, regions = _text_regions(detail.convert("L"))
    return ImageAnalysis(
        width=width,
        height=height,
        aspect_ratio=round(ratio, 4),
        orientation="square" if abs(ratio - 1) < 0.05 else "landscape" if ratio > 1 else "portrait",
        palette=_palette(colour),
        brightness=round(lum.mean[0] / 255, 4),
        contrast=round(min(1.0, lum.stddev[0] / 127.5), 4),
        saturation=round(sat.mean[0] / 255, 4),
        warmth=round(warmth, 4),
        tone="warm" if warmth > 0.06 else "cool" if warmth < -0.06 else "neutral",
        composition=_composition(colour, grey),
        text_density="high" if score >= _TEXT_HIGH else "medium" if score >= _TEXT_MEDIUM else "low",
        text_score=round(score, 4),
        text_regions=regions,
    )


def load_rgb(data: bytes) -> Image.Image:
    """The image upright (EXIF orientation applied) as RGB, transparency laid on white; `ImageInputError`
    (IMAGE_DECODE_FAILED) when the bytes are not an image Pillow can read."""
    try:
        with Image.open(BytesIO(data)) as opened:
            image = ImageOps.exif_transpose(opened)
            image.load()
    except UnidentifiedImageError as exc:
        raise ImageInputError("内容不是可识别的图片", code="IMAGE_DECODE_FAILED") from exc
    except Exception as exc:  # Pillow raises many types on corrupt input
        raise ImageInputError("图片数据已损坏，无法分析", code="IMAGE_DECODE_FAILED") from exc
    return on_white(image)


def on_white(image: Image.Image) -> Image.Image:
    """`image` as RGB, whatever transparency it has (an alpha channel, a transparent palette entry or
    colour) laid on white."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        flattened = Image.new("RGB", rgba.size, (255, 255, 255))
        flattened.paste(rgba, mask=rgba.getchannel("A"))
        return flattened
    return image.convert("RGB")


def _palette(image: Image.Image) -> list[PaletteColour]:
    quantized = image.quantize(colors=5, method=Image.Quantize.MEDIANCUT)
    flat = quantized.getpalette() or []
    counts = quantized.getcolors() or []
    total = sum(count for count, _ in counts) or 1
    shares: dict[str, int] = {}
    for count, index in counts:
        if not isinstance(index, int):  # a "P" image reports palette indexes
            continue
        r, g, b = flat[index * 3 : index * 3 + 3]
        key = f"#{r:02X}{g:02X}{b:02X}"
        shares[key] = shares.get(key, 0) + count
    ranked = sorted(shares.items(), key=lambda item: item[1], reverse=True)
    return [PaletteColour(hex=key, share=round(count / total, 4)) for key, count in ranked[:5]]


def _composition(colour: Image.Image, grey: Image.Image) -> Composition:
    weight = visual_weight(colour, grey)
    cells = list(weight.resize((30, 30), Image.Resampling.BOX).tobytes())  # "L": one byte per pixel
    total = float(sum(cells)) or 1.0
    cx = sum((i % 30 + 0.5) * v for i, v in enumerate(cells)) / total / 30
    cy = sum((i // 30 + 0.5) * v for i, v in enumerate(cells)) / total / 30
    grid = [[0.0] * 3 for _ in range(3)]
    for i, value in enumerate(cells):
        grid[(i // 30) // 10][(i % 30) // 10] += value / total
    best = max(range(9), key=lambda k: (round(grid[k // 3][k % 3], 3), k == 4))  # ties go to the centre
    if not sum(cells):  # a flat image has no weight anywhere: call it centred
        cx = cy = 0.5
        grid = [[1 / 9] * 3 for _ in range(3)]
        best = 4
    symmetry = _mirror_similarity(grey)
    return Composition(
        center_x=round(cx, 4),
        center_y=round(cy, 4),
        focus_cell=_CELLS[best],
        grid=[[round(v, 4) for v in row] for row in grid],
        balance="centered" if abs(cx - 0.5) < 0.1 and abs(cy - 0.5) < 0.1 else "offset",
        symmetry=round(symmetry, 4),
        symmetric=symmetry >= 0.8,
    )


def visual_weight(colour: Image.Image, grey: Image.Image | None = None) -> Image.Image:
    """The visual-weight map ("L", the size of `colour`): edge strength plus half of how far each pixel's
    colour is from the image's mean colour. `grey` is `colour` in luminance, when the caller has it."""
    grey = grey if grey is not None else colour.convert("L")
    edges = _strip_border(grey.filter(ImageFilter.FIND_EDGES))
    mean = tuple(round(v) for v in ImageStat.Stat(colour).mean)
    distinct = ImageChops.difference(colour, Image.new("RGB", colour.size, mean)).convert("L")
    return ImageChops.add(edges, distinct.point(lambda v: v // 2))


def _mirror_similarity(grey: Image.Image) -> float:
    """1 - (difference from the mirror image) / (twice the mean deviation): 1 for a mirror-symmetric image,
    about 0.3 for noise, near 0 for an image whose halves are opposites. Scale-free, so low-contrast images
    are not symmetric just because every difference is small."""
    small = grey.resize((64, max(1, round(64 * grey.height / grey.width))), Image.Resampling.BOX)
    difference = ImageStat.Stat(ImageChops.difference(small, ImageOps.mirror(small))).mean[0]
    mean = round(ImageStat.Stat(small).mean[0])
    spread = ImageStat.Stat(ImageChops.difference(small, Image.new("L", small.size, mean))).mean[0]
    if spread < 1:
        return 1.0
    return max(0.0, 1 - difference / (2 * spread))


def _strip_border(edges: Image.Image) -> Image.Image:
    """FIND_EDGES answers on the outermost pixels too; blank them so frames do not count."""
    inner = Image.new("L", edges.size, 0)
    inner.paste(edges.crop((1, 1, edges.width - 1, edges.height - 1)), (1, 1))
    return inner


def _text_regions(grey: Image.Image) -> tuple[float, list[Box]]:
    """(strong-edge pixels inside text-like bands per image pixel, candidate regions). Small text scores
    higher than the same area of big text: it has more stroke outline per area."""
    width, height = grey.size
    strong = _strip_border(grey.filter(ImageFilter.FIND_EDGES)).point(
        lambda v: 255 if v >= _EDGE_THRESHOLD else 0
    )
    band_h = max(1, height // _BANDS)
    dense: list[tuple[int, int]] = []  # (top, bottom) pixel rows of consecutive dense bands
    for top in range(0, height, band_h):
        bottom = min(height, top + band_h)
        density = ImageStat.Stat(strong.crop((0, top, width, bottom))).mean[0] / 255
        if density >= _BAND_TEXT_DENSITY:
            if dense and dense[-1][1] == top:
                dense[-1] = (dense[-1][0], bottom)
            else:
                dense.append((top, bottom))
    regions: list[Box] = []
    edge_pixels = 0.0
    for top, bottom in dense:
        band = strong.crop((0, top, width, bottom))
        columns = list(band.resize((width, 1), Image.Resampling.BOX).tobytes())
        active = [x for x, value in enumerate(columns) if value >= 255 * _BAND_TEXT_DENSITY]
        if not active:
            continue
        left, right = active[0], active[-1] + 1
        if right - left < width * 0.05:
            continue
        edge_pixels += ImageStat.Stat(band).sum[0] / 255
        regions.append(
            Box(x=left / width, y=top / height, w=(right - left) / width, h=(bottom - top) / height)
        )
    return min(1.0, edge_pixels / (width * height)), regions[:16]
