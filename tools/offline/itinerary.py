"""A trip's days: a travel guide asked for a span (两天一夜, 三日游, 周末, 4天3晚) is laid out day by day.

A reader who asks for "大连两天一夜攻略" expects to be told what to do on each day and when, not three tips.
The offline writer has the points it would have listed (the evidence's lines on the place, else the
scene's general advice); this module puts them into the days' slots (上午 / 下午 / 晚上) around the frame
every trip has — arriving and dropping the bags, an evening that is not packed, leaving time to get back
— and leaves the rest as tips. The frame lines are general, hand-written here, and name no place, price or
sight: nothing a reader could take for a reported fact about a place the corpus does not know.
"""

from __future__ import annotations

import re

# A span of days, said the ways requests say it: 两天一夜, 三天两晚, 4天3晚, 三日游, 5天行程, 一日游, 周末
_SPAN = re.compile(
    r"(?<![\d一二两三四五六七八九十])(?P<n>[一二两三四五六七八九\d])(?:天|日)(?:[一二两三四五六\d](?:夜|晚))?(?:游|行程|自由行|攻略|路线|玩法)?"
    r"|(?P<day>一日游|半日游|半天|一天)|(?P<weekend>周末(?:两天|游)?)"
)
_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
MAX_DAYS = 5  # a longer trip keeps the list: a post is no day planner

# The frame of any trip's days (see the module docstring)
ARRIVE = "到了先去住处放下行李，在附近走走，熟悉一下周边"
FIRST_EVENING = "第一天别排太满，晚上早点回住处休息，第二天才有体力"
EVENING = "晚上找一家本地人多的馆子吃饭，吃完沿街散散步"
EARLY = "早点出门，热门的地方赶在人多之前去"
LEAVE = "留出返程的时间，提前一个多小时往车站或机场走"
REST = "不排固定行程，想逛就逛，累了就在住处附近歇着，给后面留点体力"
ONE_DAY_END = "傍晚前把想去的地方走完，回程别赶最后一班车"

_SLOTS = ("上午", "下午", "晚上")
_ONE_DAY_SLOTS = ("上午", "中午", "下午", "傍晚")


def trip_days(request: str) -> int:
    """How many days the request's trip lasts: 0 when it names no span, or one longer than `MAX_DAYS`."""
    found = _SPAN.search(request)
    if not found:
        return 0
    if found.group("day"):
        return 1
    if found.group("weekend"):
        return 2
    n = found.group("n")
    days = int(n) if n.isdigit() else _NUMBERS.get(n, 0)
    return days if 1 <= days <= MAX_DAYS else 0


# Lines that are something to do at a time of day (去…, 逛…, 看…, 赶海…), not advice (防晒要足…)
_DOING = re.compile(
    r"^(?:先|再|然后|早上|上午|下午|傍晚|晚上|早点|最后)?(?:去|逛|看(?!好)|吃|走|爬|坐|拍|赶|玩|参观|骑|划|泡|登|打卡|沿|到|找)"
)
# Free slots with nothing of the post's own to fill them, each said once
FILLERS = (
    "挑一处最想去的地方慢慢逛，不赶场",
    "找一条老街随便走走，看到想进的店就进去坐坐",
)


def is_doing(line: str) -> bool:
    return bool(_DOING.match(line.strip()))


def day_plan(days: int, points: list[str]) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[str]]:
    """The days (each a label and its slots: (time of day, what to do)) and the points left over.

    The points that are things to do fill the free slots in their order; the frame lines take the slots
    a trip always has (arriving, the first evening, leaving), and a free slot with nothing left takes a
    filler once. A slot with nothing to say is left out; the last day ends with leaving."""
    queue = [p for p in points if is_doing(p)]
    left = [p for p in points if p not in queue]
    fillers = list(FILLERS)

    def free() -> str:
        return queue.pop(0) if queue else fillers.pop(0) if fillers else ""

    plan: list[tuple[str, list[tuple[str, str]]]] = []
    slots: list[tuple[str, str]]
    if days == 1:
        slots = [("上午", queue.pop(0) if queue else EARLY)]
        slots += [(when, free()) for when in ("中午", "下午")]
        slots.append(("傍晚", ONE_DAY_END))
        return [("", [(w, ln) for w, ln in slots if ln])], [*queue, *left]
    for day in range(1, days + 1):
        slots = []
        for when in _SLOTS:
            if day == days and when == "晚上":
                break  # (the last day ends with the way home)
            if day == 1 and when == "上午":
                line = ARRIVE
            elif day == days and when == "下午":
                line = LEAVE
            elif when == "晚上":  # (each frame line once: a post says nothing twice)
                line = FIRST_EVENING if day == 1 else EVENING if day == 2 else free()
            elif when == "上午" and day == 2 and not queue:
                line = EARLY
            else:
                line = free()
            if line:
                slots.append((when, line))
        plan.append((f"Day{day}", slots))
    return _rest_days(plan), [*queue, *left]


def _rest_days(plan: list[tuple[str, list[tuple[str, str]]]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Days with nothing planned (the middle of a long trip the post has little on) said once, together:
    Day3—Day4 are left free, not printed empty."""
    out: list[tuple[str, list[tuple[str, str]]]] = []
    empty: list[str] = []
    for label, slots in [*plan, ("", [("", "")])]:
        if not slots:
            empty.append(label)
            continue
        if empty:
            out.append((empty[0] if len(empty) == 1 else f"{empty[0]}—{empty[-1]}", [("全天", REST)]))
            empty = []
        if label:
            out.append((label, slots))
    return out


def sentence(line: str) -> str:
    """A slot's line as a sentence: ended with 。 unless it ends already."""
    line = line.strip()
    return line if re.search(r"[。！？!?…~～）)」”]$", line) else line.rstrip("，,；;、") + "。"
