"""The text each card carries (its overlay), planned from the draft so that cards read as finished copy:
the cover's headline is the post title, a detail card shows whole lines of its own paragraph (cut only at a
phrase boundary, with "…"), no two cards show the same line, a summary card sums up instead of repeating a
detail card, and no caption repeats the page number the card already shows.

`card_overlays` plans overlays from a layout; `tidy_overlays` holds any overlays (a model's, an editor's
rejected ones) to the same rules. Pure functions over wire dicts, used by the offline planner and by the
image planner for every model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from tools.cardtext import WHEN_LABEL, clean, clip, is_page_mark, paragraph_lines
from tools.tripframe import FRAME

LINE_CHARS = 34  # a card line longer than this is cut at a phrase boundary
HEAD_CHARS = 14
LINE_LIMITS = {"low": 2, "medium": 4, "high": 6}
RESULT_HEADLINE = "划重点"


def _key(line: str) -> str:
    return "".join(ch for ch in clean(line).rstrip("…") if ch.isalnum())


def _lines(paragraphs: list[str], indexes: list[int]) -> tuple[str | None, list[str]]:
    """The card's heading and lines from its paragraphs — of the headed ones only, when it has any: a
    story told before a list (上周末去泉州，没去蟳埔村…) is no item under the list's heading (一天这样走)."""
    parts = [paragraph_lines(paragraphs[i]) for i in indexes if 0 <= i < len(paragraphs)]
    headed = [(head, body) for head, body in parts if head]
    heading = next((head for head, _ in parts if head), None)
    days = [clean(head) for head, _ in headed]
    if len(headed) > 1 and all(_DAY.fullmatch(d) for d in days):
        # (days on one card: Day1—Day4, each line with its day — no Day2's stop under Day1's heading)
        dated = [f"{day} {line}" for day, (_, body) in zip(days, headed, strict=True) for line in body]
        return f"{days[0]}—{days[-1]}", dated
    return heading, [line for _, body in (headed or parts) for line in body]


def card_overlays(
    items: list[dict[str, Any]], paragraphs: list[str], title: str, tags: list[str]
) -> list[dict[str, Any]]:
    """One overlay per layout item (wire dicts, items as in `LayoutSpec` wire form)."""
    overlays: list[dict[str, Any]] = []
    headings: list[str] = []
    ordered = sorted(items, key=lambda i: int(i.get("index", 1)))
    # detail cards that share a paragraph split its lines evenly (3 lines over two cards: 2 and 1), so the
    # second is never left empty by the first taking all it may hold
    sharing: dict[tuple[int, ...], list[int]] = {}
    for item in ordered:
        if str(item.get("role", "detail")) == "detail":
            key = tuple(p for p in item.get("paragraphIndexes") or [] if isinstance(p, int))
            sharing.setdefault(key, []).append(int(item.get("index", 1)))
    for item in ordered:
        index, role = int(item.get("index", 1)), str(item.get("role", "detail"))
        indexes = [p for p in item.get("paragraphIndexes") or [] if isinstance(p, int)]
        heading, lines = _lines(paragraphs, indexes)
        sharers = sharing.get(tuple(indexes), []) if role == "detail" else []
        start = 0
        if len(sharers) > 1 and len(lines) >= len(sharers):
            size = -(-len(lines) // len(sharers))
            start = sharers.index(index) * size
            lines = lines[start : start + size]
        focus = clean(str(item.get("visualFocus") or ""))
        overlay: dict[str, Any] = {"imageIndex": index, "position": item.get("textPosition", "center")}
        if role == "cover":
            overlay |= {
                "headline": clean(title)[:40],
                "lines": [clip(lines[0], LINE_CHARS)] if lines else [],
                "caption": " ".join(f"#{t.lstrip('#')}" for t in tags[:3]) or None,
            }
        elif role == "result":
            overlay |= {"headline": RESULT_HEADLINE, "lines": lines, "caption": None}
        else:
            headline = clip(heading or focus or "要点", HEAD_CHARS)
            headings.append(headline)
            overlay |= {"headline": headline, "lines": lines, "caption": None, "firstNumber": start + 1}
        overlay["density"] = str(item.get("textDensity") or "medium")
        overlays.append(overlay)
    return tidy_overlays(overlays, {int(i.get("index", 1)): str(i.get("role")) for i in items}, title)


def tidy_overlays(
    overlays: list[dict[str, Any]], roles: Mapping[int, str], title: str, *, keep_headline: bool = False
) -> list[dict[str, Any]]:
    """Hold overlays to the card rules (see the module docstring). `roles` maps image index → role. The
    cover headline becomes the title unless `keep_headline` (an editor wrote it)."""
    shown: set[str] = set()
    shown_lines: list[str] = []
    headlines: set[str] = set()
    detail_heads = [
        clean(str(o.get("headline") or "")) for o in overlays if roles.get(int(o["imageIndex"])) == "detail"
    ]
    out: list[dict[str, Any]] = []
    for overlay in sorted(overlays, key=lambda o: roles.get(int(o["imageIndex"])) == "result"):
        index = int(overlay["imageIndex"])
        role = roles.get(index, "detail")
        limit = LINE_LIMITS.get(str(overlay.pop("density", "medium")), 4)
        if role == "cover":
            limit = 1
        lines: list[str] = []
        for line in overlay.get("lines") or []:
            text = clip(clean(str(line)), LINE_CHARS)
            key = _key(text)
            if len(key) >= 2 and key not in shown and len(lines) < limit:
                shown.add(key)
                lines.append(text)
                if role == "detail":
                    shown_lines.append(text)
        if role == "result":
            # a summary names the points the detail cards made (their labels: 九分直筒裤, 长度) rather than
            # repeating their lines or a section heading; the detail cards' headings only when the lines
            # have no short label and the card has little else
            # (…not a trip's frame, said of every trip: 落地先办入住 is no point of this one)
            named = [p for p in dict.fromkeys(_point_name(t) for t in shown_lines if not _framed(t)) if p]
            # (…nor, when the plan has two points of its own, a doing any trip of its scene has: 就在附近找家
            # 小店 is what a plan says when the notes have nothing for that hour)
            own_points = [p for p in named if not _scene_doing(p)]
            named = own_points if len(own_points) >= 2 else named
            own = [ln for ln in lines if not _is_label(ln) and not _CALL.search(ln)]
            # in the detail cards' order; a point name it already shows (tidied a second time: 鸡蛋灌饼)
            # stays, though it is as short as a section label
            points = [p for p in named if _key(p) not in shown or p in lines]
            if points:
                rest = [ln for ln in own if ln not in points]
                lines = [*points[:3], *rest][: max(limit, 3)]  # never the closing's call to the reader
            elif len(lines) < 2 or any(_CALL.search(ln) for ln in lines):
                lines = [ln for ln in lines if not _CALL.search(ln)]
                heads = (h.removesuffix("（续）") for h in detail_heads)  # a continued card is one section
                # (…a day's label, Day1 or 第二天, is no point to sum up)
                recap = [h for h in dict.fromkeys(heads) if h and _key(h) not in shown]
                recap = [h for h in recap if not _DAY.fullmatch(h)]
                lines = [*recap[: max(0, 3 - len(lines))], *lines]
        headline = clean(str(overlay.get("headline") or ""))
        if role == "cover" and not keep_headline:
            headline = clean(title)
        elif role == "detail" and headline and headline in headlines:  # a paragraph split over two cards
            headline = f"{headline}（续）"
        headlines.add(headline)
        caption = overlay.get("caption")
        if is_page_mark(caption):  # the card shows its page number already
            caption = None
        out.append(
            {**overlay, "headline": headline[:40] or None, "lines": lines[:8], "caption": caption or None}
        )
    return sorted(out, key=lambda o: int(o["imageIndex"]))


def _framed(line: str) -> bool:
    """Is a card line one of the frame lines every trip's days have (arriving, the first evening, leaving:
    `tools.tripframe`), after its time of day?"""
    said = line.rstrip("…").strip().partition("：")[2] or line
    return any(said.startswith(frame[:8]) for frame in FRAME)


@cache
def _doings() -> tuple[str, ...]:
    """Every scene's doings (data/lexicon/scene_tips.txt), without the time of day they open on."""
    from tools.offline.itinerary import TIME_OF
    from tools.offline.voice import all_doings

    return tuple(TIME_OF.sub("", d) for d in all_doings())


def _scene_doing(point: str) -> bool:
    """Is a point the start of a doing the writer fills a trip's free hours with, said of no place?"""
    return len(point) >= 4 and any(d.startswith(point) for d in _doings())


_FRAME_LABEL = re.compile(r"(?:我的)?(?:时间线|时间表|流程|步骤|做法|方法|顺序|安排|总结|建议|提醒|经验)")


def _point_name(line: str) -> str:
    """What a detail line is about, in a few words: its label ("九分直筒裤：露出脚踝…" → 九分直筒裤), the
    line itself when it is a short item ("防潮垫+睡袋"), or its first clause when that is a short whole
    instruction ("面霜选厚一点的质地，晚上…" → 面霜选厚一点的质地); '' otherwise."""
    text = line.rstrip("…").strip()
    label, sep, rest = text.partition("：")
    if sep and _STAGE_LABEL.fullmatch(label):  # a stage of a story (第二次：就不怕了) is said whole, if short
        said = label + rest.rstrip("。")
        return said if len(said) <= 12 else _point_name(rest)
    if sep and 2 <= len(label) <= 8:  # 平日 or 下午 says when, not what: what is done then is the point
        # (…nor 时间线 or 做法, which say how what follows is told)
        return _point_name(rest) if WHEN_LABEL.match(label) or _FRAME_LABEL.fullmatch(label) else label
    if len(text) <= 12 and not re.search(r"[，,。；;]", text):
        return text
    first = re.split(r"[，,。；;]", text, maxsplit=1)[0]
    whole = 4 <= len(first) <= 12 and not _OPEN_CLAUSE.search(first)
    return first if whole and len(first) < len(text) else ""


# A stage of a story told a stage a line (第二次, 第一周, Day2): when, not what
_STAGE_LABEL = re.compile(r"第[一二两三四五六七八九十\d]{1,3}(?:次|天|周|个月|年)|[Dd]ay\s?\d{1,2}")
# A closing's call to the reader (收藏这份攻略, 下个假期直接出发！, 评论区聊聊): no point to sum up
_CALL = re.compile(
    r"收藏|关注|评论|点赞|转发|留言|私信|以上就是|就先聊到|就写到这|分享到这|直接出发|试试吧|一起[^，。]{0,4}吧|吧[～~!！]*$"
    r"|[～~]$|^(?:照着|对照着|下次|这周|周末就)"
)
# A first clause that leans on what follows or before it: no point of its own (我用的是…, 但…, …的)
_OPEN_CLAUSE = re.compile(
    r"^(?:我|你|这|那|但|而|所以|因为|如果|其实|另外|比如)|(?:的|了|和|在|是|就|也|都|把)$"
)


_DAY = re.compile(r"\W*(?:[Dd]ay\s?\d+(?:—[Dd]ay\s?\d+)?|第[一二三四五六七\d]+天)\W*")


def _is_label(line: str) -> bool:
    """A section heading shown as a line ("装备清单", "避坑提醒"): short, no sentence of its own."""
    return len(_key(line)) <= 8 and not re.search(r"[，。！？!?,：:]", line.rstrip("：:"))
