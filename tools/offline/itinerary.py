"""A trip's days: a travel guide asked for a span (两天一夜, 三日游, 周末, 4天3晚) is laid out day by day.

A reader who asks for "泉州两天一夜攻略" expects to be told what to do on each day and when, not five tips.
The offline writer has the points it would have listed (the evidence's lines on the place, else the
scene's general advice); when two or more of them are things to do, this module puts those into the days'
slots (上午 / 中午 / 下午 / 晚上, a line said at a time of day in its own) around the frame every trip has —
arriving and dropping the bags, an evening that is not packed, leaving time to get back — and leaves the
rest as tips. The frame lines are general, hand-written here, and name no place, price or
sight: nothing a reader could take for a reported fact about a place the corpus does not know.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from tools.bilingual import localize
from tools.entities import places
from tools.segmenter import posseg
from tools.tripframe import ARRIVE, EVENING, FIRST_EVENING, HALF_DAY_END, LEAVE, ONE_DAY_END, REST

# A span of days, said the ways requests say it: 两天一夜, 三天两晚, 4天3晚, 三日游, 5天行程, 一日游, 周末
_SPAN = re.compile(
    r"(?<![\d一二两三四五六七八九十])(?P<n>[一二两三四五六七八九\d])(?:天|日)(?:[一二两三四五六\d](?:夜|晚))?(?:游|行程|自由行|攻略|路线|玩法)?"
    r"|(?P<day>一日游|半日游|半天|一天)|(?P<weekend>周末(?:两天|游)?)"
)
_WALK = re.compile(r"citywalk|city\s*walk|城市漫步|漫步|散步|压马路|步行路线", re.IGNORECASE)
_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
MAX_DAYS = 5  # a longer trip keeps the list: a post is no day planner

# The frame of any trip's days (see the module docstring): tools/tripframe.py, which the card overlays
# read too (a summary card sums up what this trip does, not the frame every trip has)
MIN_DOINGS = 2  # fewer things to do than this and the post keeps its list: a plan of frame lines says nothing

_SLOTS = ("上午", "中午", "下午", "晚上")


def trip_days(request: str) -> int:
    """How many days the request's trip lasts: 0 when it names no span, or one longer than `MAX_DAYS`."""
    spans = list(_SPAN.finditer(localize(request)))  # ("my 3-day trip to Xi'an": 3天)
    if not spans:
        return 0
    # a count of days says more than 周末 (杭州周末一日游 is one day)
    found = next((s for s in spans if not s.group("weekend")), spans[0])
    if found.group("day"):
        return 1
    if found.group("weekend"):  # (a walk in town on a weekend is a day's walk: 周末想在上海citywalk)
        return 1 if _WALK.search(request) else 2
    n = found.group("n")
    days = int(n) if n.isdigit() else _NUMBERS.get(n, 0)
    return days if 1 <= days <= MAX_DAYS else 0


# Lines that are something to do at a time of day (去…, 逛…, 早上去…, 中午在…吃…), not advice (防晒要足…,
# 看好天气)
_DOING = re.compile(
    r"^(?:先|再|然后|一早|早上|早晨|清晨|上午|中午|下午|午后|傍晚|晚上|夜里|早点|最后)?"
    r"(?:去|逛|看(?!好)|听(?=[\u4e00-\u9fff]{2})|吃|喝|尝|走|爬|坐|拍|赶|玩|参观|体验|骑|划|泡|登|打卡|沿|到|找|回|在(?!家)"
    r"|从[^，。；]{1,10}(?:出发|走|骑|坐|开|到))"
)
# A spot's name leading its line (杨公堤：比苏堤人少…, 北山街到宝石山：沿湖走…): a place to go, not
# advice (门票：…)
_SPOT = re.compile(
    r"(?:山|湖|岛|屿|寺|庙|塔|桥|路|街|巷|堤|湾|埠|港|滩|村|镇|园|馆|宫|楼|阁|峰|洞|广场|码头|步道|古城|景区|石窟|草原|峡谷)$"
)
# …or a market, the one place to go to a list may name bare (周日夜市) that `_SPOT` does not end on
_SIGHT = re.compile(r"(?:夜市|市场|集市)$")


def is_stop(item: str) -> bool:
    """Is a listed item a place to go to (素贴山, 周日夜市, 鼓浪屿), not a thing to bring or have?"""
    return bool(places(item) or _SPOT.search(item) or _SIGHT.search(item))


def visit(stop: str) -> str:
    """A day's line going to a listed stop, at the time of day it is for (晚上去周日夜市逛逛) — or, a stop
    told with its own time and doing (下午在松花江边吹风), that line said as a plan."""
    if TIME_OF.match(stop):
        return as_planned(stop)
    when = "晚上" if "夜" in stop else ""
    stroll = re.search(r"(?:市|市场|集市|街|老街|古城|古镇)$", stop)
    return f"{when}去{stop}{'逛逛' if stroll else '看看'}"


# What a trip ate, told (吃了虾籽面和小笼汤包, 尝到了三种兔): the dishes, each a meal of the days
_ATE = re.compile(
    r"(?P<verb>吃|尝|喝)(?:了|到了|遍了)(?:[一二两三四五六七八九十几\d]+[种家碗顿样个道])?[：:]?(?P<what>[^，,。；;！!？?]{2,30})"
)
_MEAL_TIMES = ("中午", "晚上", "早上")


def meals(told: str) -> list[str]:
    """A day's lines eating each dish a told clause names (吃了虾籽面和小笼汤包 → 中午去吃虾籽面, 晚上去吃
    小笼汤包); [] when it names none — only nouns are dishes (吃了不少苦 eats none)."""
    from tools.offline.topic import all_nouns

    ate = _ATE.search(told)
    if ate is None:
        return []
    dishes = [d.strip("的 ") for d in re.split(r"[和、跟与及+]|还有", ate["what"])]
    if not dishes or not all(len(d) >= 2 and all_nouns(d) for d in dishes):
        return []
    return [f"{_meal_time(dish, i)}去{ate['verb']}{dish}" for i, dish in enumerate(dishes[:6])]


def _meal_time(dish: str, i: int) -> str:
    """The time of day a dish is had: its own (早茶, 夜宵), else lunch, dinner and breakfast in turn."""
    own = re.search(r"早(?:茶|餐|点)|夜宵|宵夜|下午茶|烤串|烧烤|串", dish)
    if own is None:
        return _MEAL_TIMES[i % 3]
    return {"下午茶": "下午"}.get(own.group(0), "早上" if own.group(0).startswith("早") else "晚上")


def dish_meals(told: str) -> list[str]:
    """A day's line eating each dish a food trip lists as had (冷面、米肠、烤串都安排上了): [] unless every
    item listed is a thing (its last word a noun, no verb) and none a place to go to."""
    parts = [p.strip() for p in re.split(r"[、和]", told)] if "、" in told else []
    if parts:
        parts[-1] = re.sub(r"(?:都|也|全)[\u4e00-\u9fff]{1,5}了?$", "", parts[-1])
    dishes = [p for p in parts if 2 <= len(p) <= 5 and _a_thing(p) and not is_stop(p)]
    if len(dishes) < 2 or len(dishes) < len(parts):
        return []
    return [f"{_meal_time(d, n)}去吃{d}" for n, d in enumerate(dishes[:6])]


def _a_thing(text: str) -> bool:
    tagged = posseg(text)
    return tagged[-1][1].startswith("n") and not any(flag.startswith("v") for _, flag in tagged)


# A line of a trip's costs, by what they were for (机票：…, 玩：…, 门票：…)
_COST_LINE = re.compile(
    r"^(?:机票|车票|高铁|住宿|交通|玩|吃|门票|餐饮|购物|其他|总计|合计|花费|预算|费用)[：:]"
)
# A label that frames a line of doings (我的路线：从栈桥出发…)
_LABEL = re.compile(r"^(?P<label>[^，,。；;：:]{2,10})[：:]\s*(?P<rest>.+)$")


def is_doing(line: str) -> bool:
    """A thing to do: said with a verb of doing, or a short first clause naming a place (西街和开元寺，…) —
    not a line of what a trip cost (玩：蜈支洲岛门票加船票约150元)."""
    line = line.strip()
    if _COST_LINE.match(line):
        return False
    first = re.split(r"[，,。；;]", line)[0]
    if _DOING.match(line) or (len(first) <= 10 and bool(places(first))):
        return True
    if (timed := TIME_OF.match(line)) and len(_after_time(line, timed)) >= 4:
        return True  # said at a time of day, as a plan's lines are (中午：火车站附近吃米粉)
    labelled = _LABEL.match(line)
    if labelled is None:
        return False
    label = labelled.group("label")
    return bool(_SPOT.search(label) or places(label) or _DOING.match(labelled.group("rest")))


# The time of day a line says it happens at (早上去侨港吃糖水, 中午在西街吃面线糊): the slot it goes in
# (…after the day it is on, which the plan decides: 第一天中午：…)
TIME_OF = re.compile(  # (not a time named beside another: 早上和傍晚的光最柔和 is no morning's line)
    r"^(?:第[一二三四五六七八九十\d]{1,2}天)?(?P<t>早上|早晨|清晨|一早|上午|中午|下午|午后|傍晚|晚上|夜里)"
    r"(?![和或跟与、到至])"
)
# …or further on, when it opens on something else (住在洱海边的民宿，整个下午在院子里晒太阳)
_TIME_INSIDE = re.compile(r"(?P<t>早上|早晨|清晨|上午|中午|下午|午后|傍晚|晚上|夜里)")
_SLOT_OF = {
    "早上": "上午", "早晨": "上午", "清晨": "上午", "一早": "上午", "上午": "上午", "中午": "下午",
    "下午": "下午", "午后": "下午", "傍晚": "下午", "晚上": "晚上", "夜里": "晚上",
}  # fmt: skip


# The time of day a doing is had at by what it is, said at no time (看日出 is an early morning's, 逛夜市 an
# evening's): no afternoon sunrise
_IMPLIED_TIMES = (
    (re.compile(r"日出|晨雾|早市|早茶"), "早上"),
    (re.compile(r"日落|夕阳|晚霞"), "傍晚"),
    (re.compile(r"夜市|夜景|星空|夜宵|宵夜|酒吧|夜游|夜场"), "晚上"),
)


def _implied_time(line: str) -> str:
    return next((at for pattern, at in _IMPLIED_TIMES if pattern.search(line)), "")


def _after_time(line: str, said: re.Match[str]) -> str:
    """What a line said at a time of day does then (中午：在西街吃面线糊 → 在西街吃面线糊)."""
    return line[said.end() :].lstrip("，,：: ")


def _take(
    queue: list[str], when: str, *, timed: bool = False, not_at: tuple[str, ...] = ()
) -> tuple[str, str]:
    """The first queued line for the slot `when`, as (the time it is said at, what to do): a line said at
    that time of day keeps its own time word as the slot's (中午：在西街吃面线糊), a line said at no time
    takes the slot's — unless `timed`; none said at `not_at`; ("", "") when none fits."""
    slot = "下午" if when in ("中午", "傍晚") else when  # (lunch is the afternoon's: 中午 lines go with it)
    for i, line in enumerate(queue):
        said = TIME_OF.match(line)
        at = said.group("t") if said else _implied_time(line)
        if at and at in not_at:
            continue
        inside = _TIME_INSIDE.search(line) if said is None and not at else None
        if inside and (inside["t"] != "中午" if when == "中午" else _SLOT_OF[inside["t"]] != slot):
            continue  # a line that says its own time further on (…，整个下午在院子里看书) keeps to it
        if (not at and not timed) or (at == "中午" if when == "中午" else at and _SLOT_OF[at] == slot):
            queue.pop(i)
            if said is None:
                return at or when, line
            rest = _after_time(line, said)
            return (said.group("t"), rest) if len(rest) >= 4 else (when, line)
    return "", ""


def day_plan(
    days: int, points: list[str], rng: random.Random, spare: Sequence[str] = (), *, half: bool = False
) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[str]] | None:
    """The days (each a label and its slots: (time of day, what to do)) and the points left over, or None
    when the points and the `spare` lines hold fewer than `MIN_DOINGS` things to do.

    The points that are things to do fill the free slots in their order; a slot none of them fits takes
    the first `spare` line that fits it (the doings of the trip's scenes, data/lexicon/scene_tips.txt; a
    spare line left over is dropped, never made a tip). The frame lines take the slots a trip always has
    (arriving, the first evening, leaving). A slot with nothing to say is left out, days with none (the
    middle of a long trip) are said together as free days, and the last day ends with leaving. A half
    day (`half`: 半日游) is its morning and lunch."""
    queue = [p for p in points if is_doing(p)]
    left = [p for p in points if p not in queue]
    extra = [s for s in spare if s not in queue]
    if len(queue) + len(extra) < MIN_DOINGS:
        return None

    def say(pool: tuple[str, ...]) -> str:
        return pool[rng.randrange(len(pool))]

    def take(when: str, *, timed: bool = False, not_at: tuple[str, ...] = ()) -> tuple[str, str]:
        """The slot's line: the evidence's first, else a spare one (a spare line left over is dropped)."""
        taken = _take(queue, when, timed=timed, not_at=not_at)
        return taken if taken[1] else _take(extra, when, timed=timed, not_at=not_at)

    if days == 1:
        hours: list[tuple[str, str]] = []
        # (one lunch: an afternoon after a 中午 line takes no other)
        for when in ("上午", "中午") if half else ("上午", "中午", "下午"):
            if (taken := take(when, timed=when == "中午", not_at=_not_at(hours, last=False)))[1]:
                hours.append(taken)
        end = ("下午", say(HALF_DAY_END)) if half else ("傍晚", say(ONE_DAY_END))
        # (…or the evening a line of its own plans: 晚上在西街吃一碗面线糊)
        evening = ("", "") if half else _take(queue, "晚上", timed=True)
        return [("", [*hours, evening if evening[1] else end])], [*queue, *left]
    plan: list[tuple[str, list[tuple[str, str]]]] = []
    for day in range(1, days + 1):
        slots: list[tuple[str, str]] = []
        for when in _SLOTS:
            if day == days and when == "晚上":  # the last day ends with the way home
                slots.append(("傍晚", say(LEAVE)))
                break
            if day == 1 and when == "上午":
                slots.append((when, say(ARRIVE)))
            elif when == "晚上":  # (each frame line once: a post says nothing twice)
                frame = say(FIRST_EVENING) if day == 1 else say(EVENING) if day == 2 else ""
                taken = take(when, timed=True)
                if taken[1] or frame:
                    slots.append(taken if taken[1] else (when, frame))
            # (lunch only when a line says so; the last afternoon no 傍晚 line: the way home is at 傍晚)
            # (…and one lunch a day: an afternoon after a 中午 line takes no other)
            elif (taken := take(when, timed=when == "中午", not_at=_not_at(slots, last=day == days)))[1]:
                slots.append(taken)
        plan.append((f"Day{day}", slots))
    return _rest_days(plan), [*queue, *left]


def _not_at(slots: list[tuple[str, str]], *, last: bool) -> tuple[str, ...]:
    """The times of day a day's next slot takes no line of: a second lunch, or the last day's evening."""
    return (*(("中午",) if any(when == "中午" for when, _ in slots) else ()), *(("傍晚",) if last else ()))


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
    """A slot's line as a sentence: ended with 。 unless it ends already; a line led by a spot's name said
    as going there (杨公堤：比苏堤人少… → 去杨公堤，比苏堤人少…), one led by a frame's label without it
    (我的路线：从栈桥出发… → 从栈桥出发…): a slot has a time before its colon already."""
    line = line.strip()
    labelled = _LABEL.match(line)
    if labelled and not _DOING.match(line):
        label, rest = labelled.group("label"), labelled.group("rest")
        if _SPOT.search(label) or places(label):
            line = f"{'' if re.match(r'[去到逛从]|.+到', label) else '去'}{label}，{rest}"
        elif _DOING.match(rest):
            line = rest
    # (a day another note told, said as the plan it now is: 去古城吃了一碗饵丝，逛了一下午 →
    # 去古城吃一碗饵丝，逛一下午)
    if len(_DEEDS_DONE.findall(line)) >= 2:
        line = _DEEDS_DONE.sub(lambda m: m.group(1), line)
    return line if re.search(r"[。！？!?…~～）)」”]$", line) else line.rstrip("，,；;、") + "。"


def as_planned(line: str) -> str:
    """A day the request told, said as the plan it is now (上午走了洛阳桥 → 上午走洛阳桥,
    晚上在西街吃了碗面线糊 → 晚上在西街吃一碗面线糊)."""
    line = re.sub(r"(吃|喝)了(?=[碗杯份盘])", r"\1一", re.sub(r"(?<=去)了(?=\S)", "", line))
    return _DEEDS_DONE.sub(lambda m: m.group(1), line)


# deeds of a day out, done: 吃了, 逛了, 骑了 …
_DEEDS_DONE = re.compile(r"(吃|逛|骑|租|住|玩|买|看|走|坐|爬|拍|喝|泡|待)了(?![，,。]|$)")


# The days a request plans itself (第一天城墙+回民街 第二天兵马俑 …, Day1 …, D2 …): each day's marker, and
# what that day does up to the next marker or the end of what it says
_DAY_MARK = re.compile(
    r"第(?P<n>[一二两三四五六七八九\d])天[：:，,\s]*|(?:[Dd]ay|D)\s*(?P<d>[1-9])[：:，,\s]*"
)
_DAY_ENDS = re.compile(r"[。！!？?；;\n]|[，,\s]*(?:帮我|帮忙|请|麻烦|写|给|想写|整理|出一篇)")
_DAY_PARTS = re.compile(r"\s*(?:[+＋、，,]|\s)\s*")


def asked_days(request: str) -> list[str]:
    """What each day of a plan the request sets out does, in its order (['城墙永宁门+回民街', '兵马俑', …]);
    [] when it sets out fewer than two days, or not from the first on."""
    return _set_out(request)[0]


def day_spans(request: str) -> list[tuple[int, int]]:
    """Where in the request the days of `asked_days` are said: from the first marker to the last day's
    end."""
    days, span = _set_out(request)
    return [span] if days else []


def _set_out(request: str) -> tuple[list[str], tuple[int, int]]:
    """The days a plan of the request sets out (see `asked_days`) and where they are said; ([], (0, 0)) when
    it sets out none."""
    marks = list(_DAY_MARK.finditer(request))
    numbers = [
        int(n) if (n := m["n"] or m["d"]).isdigit() else _NUMBERS.get(n, 0) for m in marks
    ]
    if len(marks) < 2 or numbers != list(range(1, len(marks) + 1)):
        return [], (0, 0)
    days, end = [], 0
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(request)
        if stop := _DAY_ENDS.search(request, mark.end(), end):
            end = stop.start()
        days.append(request[mark.end() : end].strip(" ，,、"))
    # (each day said in Chinese: an English request's "Day 1 Old Quarter" is read by its translation)
    if not all(re.search(r"[\u4e00-\u9fff]", d) for d in days):
        return [], (0, 0)
    return days, (marks[0].start(), end)


def planned_days(
    asked: list[str], days: int, rng: random.Random, *, request: str = ""
) -> list[tuple[str, list[tuple[str, str]]]]:
    """The days the request planned, each its stops in their order at the times of day (上午, 下午, 晚上; a
    stop said at a time of day keeps it), the last day of the trip ending with the way home; each day
    labelled as the `request` marks its days (第一天 …, else Day1 …)."""
    chinese = bool((mark := _DAY_MARK.search(request)) and mark["n"]) and len(asked) <= 10
    plan: list[tuple[str, list[tuple[str, str]]]] = []
    for day, said in enumerate(asked, 1):
        stops = [s for s in _DAY_PARTS.split(said) if len(s) >= 2]
        # (more stops than times of day: the last time holds the rest)
        times = ("全天",) if len(stops) == 1 else ("上午", "下午", "晚上")[: len(stops)]
        slots: list[tuple[str, str]] = []
        for k, when in enumerate(times):
            held = stops[k:] if k == len(times) - 1 else [stops[k]]
            line = "，再".join(_go_or_do(s) for s in held)
            own = TIME_OF.match(line)
            slots.append((own.group("t"), _after_time(line, own)) if own else (when, line))
        if day == days:
            slots.append(("傍晚", LEAVE[rng.randrange(len(LEAVE))]))
        plan.append((f"第{'一二三四五六七八九十'[day - 1]}天" if chinese else f"Day{day}", slots))
    return plan


def _go_or_do(said: str) -> str:
    """A planned day's stop as its line: a place gone to (去兵马俑看看), a doing as it is said."""
    noted = re.fullmatch(r"(?P<stop>.+?)(?P<note>[（(][^）)]*[）)])", said)
    stop, note = (noted["stop"], noted["note"]) if noted else (said, "")
    flags = [flag[:1] for _, flag in posseg(stop)]
    if TIME_OF.match(said) or flags[0] == "v":
        return said
    if "v" in flags[1:]:  # (a stop and what is done there: 人民公园喝茶 → 去人民公园喝茶)
        return f"去{said}"
    return visit(stop) + note
