"""Real OCR (rapidocr-onnxruntime, the models in its wheel) on a real card drawn by the offline renderer, and
the element boxes of `tools.image_analysis`: from the card's own layout when the request is known (and only
when it draws exactly the stored pixels), else recognised text blocks and a heuristic subject.

The card is read once per module (~1 s); the other analyses reuse those lines through a stub engine."""

from __future__ import annotations

import io
import sys

import pytest
from PIL import Image, ImageDraw

from tools.errors import ImageInputError, OcrUnavailableError
from tools.image_analysis import AssetAnalysis, analyze, layout_elements, subject_element, text_blocks
from tools.images import ImageRequest
from tools.ocr import OcrEngine, TextRegion, read_text
from tools.renderer import CardRenderer
from tools.vision import Box

CARD = ImageRequest(
    prompt="周末城市露营 帐篷 草地",
    role="cover",
    width=720,
    height=960,
    palette=["#F2E8DC", "#A8C3A0", "#5B7065"],
    headline="周末城市露营",
    body=["上班族也能轻松出发"],
    caption="#露营 #周末",
    visual_focus="帐篷",
    index=1,
    total=3,
)


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def card_png() -> bytes:
    return CardRenderer().render_png(CARD)


@pytest.fixture(scope="module")
def lines(card_png: bytes) -> list[TextRegion]:
    return read_text(card_png)


class Recorded(OcrEngine):
    """An engine that answers with lines read before (no second OCR of the same card)."""

    def __init__(self, lines: list[TextRegion]) -> None:
        super().__init__()
        self.lines = lines

    def read_image(self, image: Image.Image) -> list[TextRegion]:
        return list(self.lines)


def overlap(a: Box, b: Box) -> float:
    """Intersection over union of two boxes."""
    w = max(0.0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
    h = max(0.0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
    union = a.w * a.h + b.w * b.h - w * h
    return w * h / union if union else 0.0


def test_ocr_reads_the_headline_of_a_rendered_card(lines: list[TextRegion]) -> None:
    texts = [line.text for line in lines]
    assert "周末城市露营" in texts, texts
    assert "上班族也能轻松出发" in texts, texts
    headline = lines[texts.index("周末城市露营")]
    assert headline.confidence > 0.9
    assert 0 < headline.box.y < 0.5 and headline.box.w > 0.3  # a big line in the upper half
    assert len(headline.polygon) == 4
    assert all(0 <= x <= CARD.width and 0 <= y <= CARD.height for x, y in headline.polygon)
    # top to bottom
    middles = [line.box.y + line.box.h / 2 for line in lines]
    assert middles == sorted(middles)


def test_a_card_drawn_from_its_request_has_exact_element_boxes(
    card_png: bytes, lines: list[TextRegion]
) -> None:
    analysis: AssetAnalysis = analyze(card_png, [CARD], engine=Recorded(lines))
    assert analysis.layout_known and (analysis.width, analysis.height) == (720, 960)
    assert "周末城市露营" in analysis.text.splitlines()
    kinds = {(e.kind, e.label) for e in analysis.elements}
    assert {("subject", None), ("badge", "badge"), ("text", "headline"), ("text", "subtitle")} <= kinds
    assert all(e.source == "layout" for e in analysis.elements)
    badge = next(e for e in analysis.elements if e.kind == "badge")
    assert badge.text == "露营" and badge.box.y < 0.15
    headline = next(e for e in analysis.elements if e.label == "headline")
    assert headline.text == "周末城市露营"
    recognised = next(line for line in lines if line.text == "周末城市露营")
    assert overlap(headline.box, recognised.box) > 0.6  # the layout's box is where OCR found the line
    # another request does not draw these pixels: its layout is not used
    other = CARD.model_copy(update={"headline": "别的标题"})
    assert layout_elements(Image.open(io.BytesIO(card_png)).convert("RGB"), [other]) is None


def test_without_its_request_the_boxes_are_recognised_or_estimated(
    card_png: bytes, lines: list[TextRegion]
) -> None:
    analysis = analyze(card_png, engine=Recorded(lines))
    assert not analysis.layout_known
    texts = [e for e in analysis.elements if e.kind == "text"]
    assert texts and all(e.source == "ocr" and e.confidence for e in texts)
    assert any("周末城市露营" in (e.text or "") for e in texts)
    subjects = [e for e in analysis.elements if e.kind == "subject"]
    assert [s.source for s in subjects] == ["heuristic"]
    exact = next(e for e in analyze(card_png, [CARD], engine=Recorded(lines)).elements if e.kind == "subject")
    assert overlap(subjects[0].box, exact.box) > 0.4  # the estimate finds the motif
    assert not {"panel", "badge"} & {e.kind for e in analysis.elements}  # never guessed


def test_the_heuristic_subject_is_the_heavy_area_not_the_text() -> None:
    image = Image.new("RGB", (600, 800), "#F4EFE6")
    draw = ImageDraw.Draw(image)
    draw.ellipse((330, 450, 530, 650), fill="#B03A2E")  # the subject, bottom right
    draw.rectangle((40, 40, 560, 120), fill="#20242C")  # a dark title bar, masked out as text
    subject = subject_element(image, [Box(x=0.05, y=0.04, w=0.9, h=0.12)])
    assert subject is not None and subject.source == "heuristic"
    box = subject.box
    assert box.x <= 430 / 600 <= box.x + box.w and box.y <= 550 / 800 <= box.y + box.h
    assert box.y > 0.2  # not the title bar
    assert subject_element(Image.new("RGB", (300, 300), "#FFFFFF")) is None  # a blank image has none


def test_lines_under_one_another_are_one_block() -> None:
    def line(text: str, y: float, h: float = 0.04, x: float = 0.1) -> TextRegion:
        return TextRegion(text=text, confidence=0.9, box=Box(x=x, y=y, w=0.5, h=h), polygon=[[0, 0]] * 4)

    blocks = text_blocks([line("第一行", 0.2), line("第二行", 0.245), line("角落", 0.9, 0.02, 0.8)])
    assert [b.text for b in blocks] == ["第一行\n第二行", "角落"]


def test_bad_bytes_are_a_clear_error() -> None:
    with pytest.raises(ImageInputError) as caught:
        read_text(b"definitely not an image")
    assert caught.value.code == "IMAGE_DECODE_FAILED"
    with pytest.raises(ImageInputError):
        read_text(png(Image.new("RGB", (64, 64)))[:40])  # a cut-off PNG
    assert read_text(png(Image.new("RGB", (4, 4), "#FFFFFF"))) == []  # too small to hold text


def test_an_engine_that_cannot_load_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)  # as when cv2 / libGL cannot load
    with pytest.raises(OcrUnavailableError) as caught:
        OcrEngine().read(png(Image.new("RGB", (64, 64), "#FFFFFF")))
    assert caught.value.code == "OCR_UNAVAILABLE" and "libGL" in caught.value.message
