"""The offline card renderer (`tools.renderer`) and its typography and colour (`tools.typography`)."""

from __future__ import annotations

import asyncio
from io import BytesIO
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

from tests.tools.images_api import photo_png
from tools.art import COVER_LAYOUTS, DETAIL_LAYOUTS, LAYOUTS, choose_layout
from tools.cardtext import clip
from tools.images import ImageRequest
from tools.overlays import card_overlays
from tools.renderer import CardRenderer
from tools.typography import FACE_NAME, NO_LINE_START, FontBook, contrast, readable_on

PALETTE = ["#F6EFE3", "#2F6B4F", "#E9A23B", "#1E2A24"]


def request(role: str = "cover", **overrides: Any) -> ImageRequest:
    fields: dict[str, Any] = {
        "prompt": "周末城市露营，小红书风格封面",
        "role": role,
        "palette": PALETTE,
        "headline": "周末城市露营｜上班族的快乐充电站 🏕️",
        "body": ["帐篷：选速开款，5分钟搭好", "天幕+折叠桌椅，遮阳又能吃饭", "✅ 防蚊喷雾、湿巾、垃圾袋"],
        "caption": "#城市露营 #周末去哪儿 #上班族",
        "visual_focus": "帐篷",
        "style_name": "露营指南",
        "index": 1,
        "total": 4,
    }
    fields.update(overrides)
    return ImageRequest(**fields)


@pytest.fixture(scope="module")
def renderer() -> CardRenderer:
    return CardRenderer()


@pytest.fixture(scope="module")
def fonts(renderer: CardRenderer) -> FontBook:
    return renderer.fonts


def decode(data: bytes) -> Image.Image:
    image = Image.open(BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


# --- cards ------------------------------------------------------------------------------------------------
async def test_worker_processes_draw_the_same_cards(renderer: CardRenderer) -> None:
    pooled = CardRenderer(workers=2)
    try:
        pooled.start()
        requests = [request(role, index=i + 1) for i, role in enumerate(["cover", "detail", "result"])]
        drawn = await asyncio.gather(*(pooled.render(r) for r in requests))
        assert drawn == [renderer.render_png(r) for r in requests]  # same bytes as in-process
        assert pooled._pool is not None and len(pooled._pool._processes) == 2  # really other processes
    finally:
        pooled.close()
    assert pooled._pool is None


async def test_a_dead_worker_is_replaced(renderer: CardRenderer) -> None:
    pooled = CardRenderer(workers=1)
    try:
        await pooled.render(request())
        assert pooled._pool is not None
        [worker] = pooled._pool._processes.values()
        worker.kill()  # e.g. the OOM killer
        worker.join()
        assert await pooled.render(request("detail")) == renderer.render_png(request("detail"))
    finally:
        pooled.close()


@pytest.mark.parametrize("role", ["cover", "detail", "result"])
async def test_each_role_renders_a_png_card(renderer: CardRenderer, role: str) -> None:
    image = decode(await renderer.render(request(role)))
    assert image.size == (1080, 1440)
    assert image.mode == "RGB"
    colours = image.convert("RGB").getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 50  # gradient, shapes and anti-aliased text, not a blank canvas


@pytest.mark.parametrize(
    "overrides",
    [
        {"background": "solid", "text_position": "top", "text_density": "low"},
        {"background": "split", "text_position": "bottom", "text_density": "high"},
        {"background": "pattern", "palette": ["#1B2A41"], "visual_focus": None, "caption": None},
        {"headline": None, "body": [], "style_name": None, "total": 1, "index": 1},
        {
            "headline": "很长的标题" * 20,
            "body": ["非常长的一段正文内容，" * 30] * 12,
            "caption": "#标签" * 60,
        },
        {"width": 1080, "height": 1080},
    ],
)
@pytest.mark.parametrize("role", ["cover", "detail", "result"])
def test_layout_variants_render(renderer: CardRenderer, role: str, overrides: dict[str, Any]) -> None:
    req = request(role, **overrides)
    assert decode(renderer.render_png(req)).size == (req.width, req.height)


def test_rendering_is_deterministic(renderer: CardRenderer) -> None:
    assert renderer.render_png(request("detail")) == renderer.render_png(request("detail"))
    assert renderer.render_png(request("cover", seed=7)) == CardRenderer().render_png(
        request("cover", seed=7)
    )


def test_palettes_change_the_image(renderer: CardRenderer) -> None:
    warm = decode(renderer.render_png(request("cover", seed=1)))
    cool = decode(renderer.render_png(request("cover", seed=1, palette=["#DCEBFA", "#1D4E89", "#00A6A6"])))
    difference = ImageChops.difference(warm.convert("RGB"), cool.convert("RGB")).convert("L")
    changed = sum(difference.histogram()[17:])  # pixels that changed by more than 16 levels
    assert changed > 0.5 * 1080 * 1440


def test_text_is_readable_on_dark_and_light_palettes(renderer: CardRenderer) -> None:
    for palette in (["#10141C"], ["#FFFFFF"], ["#FFD400", "#FF2E63"], ["#777777"]):
        image = decode(renderer.render_png(request("detail", palette=palette, body=[])))
        assert image.size == (1080, 1440)
    # the ink chosen for any background reaches WCAG AA against it
    for background in [(0, 0, 0), (255, 255, 255), (119, 119, 119), (255, 212, 0), (29, 78, 137)]:
        assert contrast(readable_on(background), background) >= 4.5


async def test_concurrent_renders_are_identical_to_sequential(renderer: CardRenderer) -> None:
    requests = [request(role, seed=seed) for role in ("cover", "detail", "result") for seed in (1, 2)]
    together = await asyncio.gather(*(renderer.render(req) for req in requests))
    assert list(together) == [renderer.render_png(req) for req in requests]


# --- cards on a picture (an image model's) ---------------------------------------------------------------
def said(drawn: list[tuple[str, str]]) -> dict[str, str]:
    slots: dict[str, str] = {}
    for slot, line in drawn:
        slots[slot] = slots.get(slot, "") + line
    return slots


@pytest.mark.parametrize("role", ["cover", "detail", "result"])
def test_every_layout_draws_its_overlay_on_a_picture(renderer: CardRenderer, role: str) -> None:
    """One code path: each layout draws the same text on a picture as on its own background (the motif
    aside: the picture is the subject), over a scrim only where text sits on the bare picture."""
    picture = photo_png(1024, 1536)
    for layout in LAYOUTS[role]:
        req = request(role, layout=layout, index=1 if role == "cover" else 2)
        card = renderer.draw(req, picture)
        assert card.image.size == (1080, 1440) and card.photo
        offline = {k: v for k, v in said(renderer.card_text(req)).items() if k not in ("motif", "scene")}
        assert said(card.drawn) == offline, layout
        assert card.boxes  # the page number at least sits on the picture
    square = request(role, width=1080, height=1080)
    assert renderer.render_image(square, picture).size == (1080, 1080)


async def test_a_picture_card_draws_in_the_worker_processes_too(renderer: CardRenderer) -> None:
    picture = photo_png(1024, 1792)
    pooled = CardRenderer(workers=1)
    try:
        req = request("cover", layout="frame")
        assert await pooled.render(req, picture) == renderer.render_png(req, picture)  # same bytes, off-loop
    finally:
        pooled.close()


# --- typography -------------------------------------------------------------------------------------------
def test_the_simplified_chinese_face_is_used(fonts: FontBook) -> None:
    assert fonts.font(40).getname()[0] == FACE_NAME == "Noto Sans CJK SC"


def test_chinese_glyphs_are_not_tofu(fonts: FontBook) -> None:
    def ink(text: str) -> Image.Image:
        canvas = Image.new("L", (160, 160), 0)
        ImageDraw.Draw(canvas).text((16, 16), text, font=fonts.font(96), fill=255)
        return canvas

    notdef = ink("\U0010fffd")  # a code point the font lacks: its .notdef box
    for char in "露营帐篷周末":
        drawn = ink(char)
        assert drawn.getbbox() is not None  # non-zero ink
        assert ImageChops.difference(drawn, notdef).getbbox() is not None  # and not the missing-glyph box
        assert fonts.has_glyph(char)
    assert not fonts.has_glyph("😀")


def test_clean_replaces_or_drops_what_the_font_lacks(fonts: FontBook) -> None:
    assert fonts.clean("露营🏕️好开心✨✅ 出发！") == "露营好开心✓ 出发！"
    assert fonts.clean("  a\u200db\tc  ") == "ab c"
    cleaned = fonts.clean("1️⃣ 第一步 ❤️")
    assert all(fonts.has_glyph(char) or char.isspace() for char in cleaned)


def test_wrap_respects_width_and_punctuation(fonts: FontBook) -> None:
    text = "带好垃圾袋，无痕露营。出发前再看一次天气预报，有雨就改期，安全第一！装备清单逐项打勾。" * 3
    for width in (300, 420, 555, 700):
        lines = fonts.wrap(text, 40, width)
        assert "".join(lines) == text
        for line in lines:
            assert line[0] not in NO_LINE_START
            over = fonts.width(line, 40) - width
            assert over <= 0 or (line[-1] in NO_LINE_START and over <= 20)  # only punctuation may hang


def test_display_wrap_keeps_words_whole(fonts: FontBook) -> None:
    size, lines = fonts.fit("上班族的快乐充电站", 560, 3, 140, 60)
    assert "".join(lines) == "上班族的快乐充电站"
    assert not any(line.endswith("快") for line in lines)  # "快乐" is one word
    assert all(fonts.width(line, size) <= 560 for line in lines)
    # …also where a comma may not start a line: the word before it goes down whole (清迈五天|行程，)
    for width in (760, 900, 1000):
        size, lines = fonts.fit("清迈五天行程，新手照做", width, 3, 150, 64)
        assert "".join(lines) == "清迈五天行程，新手照做"
        assert not any(line.endswith("行") or line.startswith(("程", "，")) for line in lines), lines


def test_fit_truncates_with_an_ellipsis(fonts: FontBook) -> None:
    size, lines = fonts.fit("非常长的标题" * 30, 500, 3, 120, 60)
    assert size == 60 and len(lines) == 3 and lines[-1].endswith("…")


# --- layouts, whole phrases, one page number ------------------------------------------------------------
@pytest.mark.parametrize("role", ["cover", "detail", "result"])
def test_every_layout_of_a_role_draws_a_different_card(renderer: CardRenderer, role: str) -> None:
    images = {}
    for layout in LAYOUTS[role]:
        req = request(role, layout=layout, index=1 if role == "cover" else 2)
        images[layout] = renderer.render_png(req)
        assert renderer.render_png(req) == images[layout]  # deterministic
    assert len(set(images.values())) == len(LAYOUTS[role])
    assert len(COVER_LAYOUTS) >= 4 and len(DETAIL_LAYOUTS) >= 3


def test_layouts_follow_content_type_and_vary_between_posts() -> None:
    titles = [f"第{i}篇：周末去哪儿玩" for i in range(30)]
    for content_type in ("guide", "list", "review", "story"):
        covers = [choose_layout("cover", content_type, "", t) for t in titles]
        assert covers == [choose_layout("cover", content_type, "", t) for t in titles]  # stable per creative
        assert len(set(covers)) >= 2
    every = {
        choose_layout("cover", ct, "", t) for ct in ("guide", "list", "review", "product") for t in titles
    }
    assert every == set(COVER_LAYOUTS)
    assert {choose_layout("detail", ct, "", t) for ct in ("guide", "edu") for t in titles} == set(
        DETAIL_LAYOUTS
    )


def test_one_page_number_and_a_whole_hashtag_badge(renderer: CardRenderer) -> None:
    cover = renderer.card_text(request("cover", caption="#城市露营 #周末去哪儿"))
    assert [t for slot, t in cover if slot == "badge"] == ["城市露营"]
    assert [t for slot, t in cover if slot == "page"] == ["01 / 04"]
    detail = renderer.card_text(request("detail", index=2, caption="2/4"))
    assert [t for slot, t in detail if slot == "page"] == ["02 / 04"]
    assert not [t for slot, t in detail if slot in ("badge", "caption")]  # "2/4" is not drawn again


def test_text_is_never_cut_mid_word(renderer: CardRenderer, fonts: FontBook) -> None:
    text = "周末在城市边上露营不用请假也能回血，帐篷选速开款，天幕和折叠桌椅遮阳又能吃饭，防蚊喷雾别忘带"
    lines = fonts.truncate(fonts.wrap(text, 48, 400), 2, 48, 400)
    assert lines[-1].endswith("…")
    kept = "".join(lines)[:-1]
    assert (text.startswith(kept) and text[len(kept)] in "，。") or kept.endswith(("露营", "请假", "回血"))
    long_item = ["这是一条非常非常长的要点" * 12]
    said = renderer.card_text(request("detail", index=2, body=long_item, text_density="high"))
    items = "".join(t for slot, t in said if slot == "item")
    assert items and (items == long_item[0] or items.endswith("…"))


def test_subject_prompt_and_palette_show_on_the_card(renderer: CardRenderer) -> None:
    base = request("cover", layout="classic")
    said = renderer.card_text(base)
    assert "".join(t for slot, t in said if slot == "motif") == "帐篷"
    night = request("cover", layout="classic", prompt="湖边夜晚的篝火和星空", visual_focus="星空露营")
    said = renderer.card_text(night)
    assert "".join(t for slot, t in said if slot == "motif") == "星空露营"
    assert "篝火" in "".join(t for slot, t in said if slot == "scene")
    dark = renderer.render_image(request("cover", palette=["#141B2D", "#24304F", "#F2B84B"]))
    light = renderer.render_image(base)
    assert sum(dark.resize((1, 1)).getpixel((0, 0))) < 320 < sum(light.resize((1, 1)).getpixel((0, 0)))


def test_overlays_are_whole_distinct_and_a_summary_recaps() -> None:
    paragraphs = [
        "工作日被会议塞满？周末在城市边上就能露营回血",
        "装备清单\n1. 帐篷：选3秒速开的，新手10分钟搭好\n2. 防潮垫+睡袋\n3. 营地灯和充电宝",
        "收藏起来，这个周末就去草地上躺平吧",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0], "textDensity": "low"},
        {"index": 2, "role": "detail", "paragraphIndexes": [1], "textDensity": "low"},
        {"index": 3, "role": "detail", "paragraphIndexes": [1], "textDensity": "low"},
        {"index": 4, "role": "result", "paragraphIndexes": [1, 2], "textDensity": "medium"},
    ]
    cards = card_overlays(items, paragraphs, "周末城市露营｜上班族回血指南", ["城市露营"])
    assert cards[0]["headline"] == "周末城市露营｜上班族回血指南"
    lines = [line for card in cards for line in card["lines"]]
    assert len(lines) == len(set(lines))  # no card repeats another's line
    assert cards[1]["lines"] and cards[2]["lines"]  # two cards on one paragraph split it
    # the summary names the points the detail cards made, without repeating their lines
    assert "帐篷" in cards[3]["lines"] and "装备清单" not in cards[3]["lines"]
    assert all(card["caption"] is None or card["caption"].startswith("#") for card in cards)
    assert clip("第一名烤冷面，加蛋加肠8元，酱汁是酸甜口，排队的人特别多", 16) == "第一名烤冷面，加蛋加肠8元…"


def test_two_cards_on_one_short_paragraph_share_its_lines() -> None:
    """Three lines over two detail cards: two and one — never a continuation card with nothing on it."""
    paragraphs = [
        "第一次养猫的准备，按这个来",
        "准备清单\n1. 猫砂盆：选大一号的\n2. 猫粮先买小包装，吃惯了再囤\n3. 指甲剪和梳子",
        "收藏起来，接猫回家前对照着准备",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "detail", "paragraphIndexes": [1]},
        {"index": 4, "role": "result", "paragraphIndexes": [2]},
    ]
    cards = card_overlays(items, paragraphs, "新手养猫准备清单", ["养猫"])
    assert [len(cards[1]["lines"]), len(cards[2]["lines"])] == [2, 1]
    assert "猫砂盆" in cards[3]["lines"]  # the summary names the labelled point


def test_a_summary_of_unlabelled_steps_names_their_short_first_clauses() -> None:
    paragraphs = [
        "干皮一到秋冬就起皮，粉底也挂不住",
        "关键几步\n1. 洗脸后用保湿水湿敷，化妆棉浸透后敷3分钟\n2. 面霜选厚一点的质地，晚上多涂一层\n"
        "3. 我用的是含神经酰胺的精华，修护屏障",
        "收藏这篇，护肤少走弯路",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "result", "paragraphIndexes": [2]},
    ]
    cards = card_overlays(items, paragraphs, "秋冬干皮护肤步骤", ["干皮"])
    summary = cards[2]["lines"]
    assert "洗脸后用保湿水湿敷" in summary and "面霜选厚一点的质地" in summary
    assert not any(line.startswith("我用的是") for line in summary)  # it leans on the rest
    assert "关键几步" not in summary


def test_a_summary_of_a_story_told_a_stage_a_line_says_each_stage_whole() -> None:
    paragraphs = [
        "女儿去理发店剪头发，折腾了好几次",
        "第一次：哭了二十分钟。\n第二次：就不怕了。",
        "具体怎么做\n1. 哭得厉害就先停一停\n2. 选人少的时段",
        "收藏起来，带娃路上少焦虑一点",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1, 2]},
        {"index": 3, "role": "result", "paragraphIndexes": [3]},
    ]
    summary = card_overlays(items, paragraphs, "女儿第一次剪头发", ["育儿"])[2]["lines"]
    assert "第二次" not in summary and "第一次" not in summary, summary  # (no bare stage, a fragment)


def test_a_split_list_counts_on_and_a_summary_is_no_call_to_action() -> None:
    """Two detail cards on a two-line list: the second card's line is 02, not 01 again; the summary card
    names the points, never the closing's 「收藏这份攻略」."""
    paragraphs = [
        "景德镇玩两天，提前做好功课就够了",
        "景德镇·我的做法\n1️⃣ 可以体验拉坯，一次大约一两百元\n2️⃣ 买的瓷器让店家用气泡膜包好，寄快递更安全",
        "以上就是我的景德镇心得，收藏这份攻略，下个假期直接出发！",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "detail", "paragraphIndexes": [1]},
        {"index": 4, "role": "result", "paragraphIndexes": [2]},
    ]
    cards = card_overlays(items, paragraphs, "景德镇玩两天，我是这样做的", ["景德镇"])
    assert [cards[1]["firstNumber"], cards[2]["firstNumber"]] == [1, 2]
    assert cards[3]["lines"] and not any("收藏" in ln or "出发" in ln for ln in cards[3]["lines"])


@pytest.mark.parametrize("layout", ["list", "steps", "tiles"])
def test_a_continued_list_counts_on_without_moving_its_lines(renderer: CardRenderer, layout: str) -> None:
    """A card continuing a list numbers its lines 4, 5 … and draws them where a first card would: only
    the numbers change (a numbering offset once dropped the gap between points, so they overlapped)."""
    body = ["别强行抱它，给它一个纸箱或者高处躲着，慢慢用零食建立信任", "6个月以上安排绝育"]
    first = decode(renderer.render_png(request("detail", index=3, body=body, layout=layout)))
    later = decode(renderer.render_png(request("detail", index=3, body=body, layout=layout, first_number=4)))
    box = ImageChops.difference(first.convert("RGB"), later.convert("RGB")).getbbox()
    assert box is not None  # the numbers differ …
    assert box[2] < first.width * 0.3  # … and nothing right of the number column does


def test_a_two_line_heading_breaks_after_the_subject_it_names(renderer: CardRenderer) -> None:
    said = renderer.card_text(request("detail", index=3, headline="两岁宝宝·我的选择（续）", layout="list"))
    heading = [t for slot, t in said if slot == "headline"]
    assert heading == ["两岁宝宝·", "我的选择（续）"]


def test_a_summary_tidied_twice_keeps_its_points() -> None:
    """The image planner tidies the planned overlays again: the summary's point names (鸡蛋灌饼, short as
    a section label) must survive the second pass."""
    from tools.overlays import tidy_overlays

    paragraphs = [
        "给新手的快手早餐清单来了",
        "快手早餐·我的选择\n1️⃣ 鸡蛋灌饼：平底锅不放油，放入冷冻手抓饼皮中火加热\n"
        "2️⃣ 燕麦杯：即食燕麦40g加牛奶200ml\n"
        "3️⃣ 杂粮饭团：糙米饭包肉松和海苔",
        "快手早餐·选之前看看\n· 前一晚把能备的先备好，早上只做最后一步",
        "快手早餐就先聊到这，收藏起来，照着清单安排这周的饭～",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "detail", "paragraphIndexes": [2]},
        {"index": 4, "role": "result", "paragraphIndexes": []},
    ]
    once = card_overlays(items, paragraphs, "快手早餐清单", ["快手早餐"])
    roles = {int(i["index"]): str(i["role"]) for i in items}
    twice = tidy_overlays([{**o, "density": "medium"} for o in once], roles, "快手早餐清单")
    assert once[3]["lines"][:3] == ["鸡蛋灌饼", "燕麦杯", "杂粮饭团"]
    assert twice[3]["lines"][:3] == ["鸡蛋灌饼", "燕麦杯", "杂粮饭团"]


def test_a_heading_marked_like_a_list_item_stays_a_heading() -> None:
    """✅应届生·我的做法 over 1️⃣ 2️⃣ items is the list's heading, not its first item; a checklist of ✅ items
    keeps them all."""
    paragraphs = [
        "应届生第一次谈薪资，提前做好功课就够了",
        "✅应届生·我的做法\n1️⃣ 先问清楚薪资结构\n2️⃣ 报一个区间，下限是你能接受的数",
        "✅ 带上简历\n✅ 带上作品集\n✅ 提前十分钟到",
        "收藏起来，用得上的时候照着做",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1]},
        {"index": 3, "role": "detail", "paragraphIndexes": [2]},
    ]
    cards = card_overlays(items, paragraphs, "应届生第一次谈薪资", ["应届生"])
    assert cards[1]["headline"] == "应届生·我的做法"
    assert cards[1]["lines"][0].startswith("先问清楚")
    assert len(cards[2]["lines"]) == 3 and "带上简历" in cards[2]["lines"][0]


def test_a_passing_evening_in_the_body_makes_no_night_scene() -> None:
    """A cat toy that keeps it quiet 晚上 is no night picture; a night word in the subject is, and so is a
    body that keeps to the night."""
    from tools.art import scene_mood

    calm = scene_mood("新手养猫必备", "逗猫棒：每天陪它玩十几分钟，精力耗掉了晚上不闹")
    assert calm is None or calm.key != "night"
    assert (mood := scene_mood("夜市小吃", "")) is not None and mood.key == "night"
    evening = scene_mood("散步路线", "晚上沿着江边走，夜里的灯火很好看")
    assert evening is not None and evening.key == "night"


def test_a_day_plan_s_evening_slots_make_no_night_scene() -> None:
    from tools.art import scene_mood

    plan = "Day1\n上午：去湖边走走。\n晚上：早点回住处。\n\nDay2\n早上：看雪山。\n晚上：吃顿热汤面。"
    mood = scene_mood("拉萨三天两晚", plan)
    assert mood is None or mood.key != "night"


def test_a_story_told_before_a_plan_is_no_line_of_the_plan_s_card() -> None:
    paragraphs = [
        "讲真，泉州一日游我来回走了两次。",
        "上周末去泉州，没去蟳埔村，人太多了。",
        "🚄泉州·一天这样走\n上午：走洛阳桥。\n下午：爬清源山看老君岩。\n晚上：在西街吃一碗面线糊。",
    ]
    items = [
        {"index": 1, "role": "cover", "paragraphIndexes": [0]},
        {"index": 2, "role": "detail", "paragraphIndexes": [1, 2]},
    ]
    card = card_overlays(items, paragraphs, "泉州一日游", ["泉州"])[1]
    assert not any("蟳埔村" in line for line in card["lines"]), card["lines"]
    assert any("洛阳桥" in line for line in card["lines"])
