"""Which places a post may name, and which of the places it names lie outside the request.

`tools.entities.places` finds the place names (jieba.posseg `ns` and landmark words); this module decides
whether each one is inside the request's places. Plain name containment (杭州 / 杭州市区) is not enough: a
Xiamen post rightly names 思明 or 鼓浪屿, and rightly names 福建. So names are resolved to China's division
table (`data/lexicon/regions.tsv`, province → prefecture → county), to a short list of landmarks with their
city (`data/lexicon/landmarks.tsv`) and to foreign countries and cities (`data/lexicon/world_places.txt`);
two places agree when one lies in the other or both lie in the same prefecture.

A name none of these tables knows (a street, a small scenic spot, a word jieba mis-tags) is never reported:
the critic's false fails send good posts back, and the research filter and the quality benchmark's own
gazetteer cover the long tail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from tools import segmenter
from tools.entities import (
    division_contains,
    divisions,
    landmark_cities,
    not_places,
    places,
    posseg_cut,
    word_places,
    world_rows,
)
from tools.lexfiles import LEXICON

_COMMON_SPOT = re.compile(r"(?:路|街|巷|公园|广场|大道|中心|商场|车站|机场|大学|中学|小学|医院)$")
# A place name followed by one of these names a dish, a style or a street, not where the post happens:
# 兰州拉面, 韩式, and streets named after other cities (成都的玉林路, every city's 南京路 and 中山路).
_ORIGIN_LABEL = re.compile(
    r"^(?:[东西南北中]?路|街|巷|大道|大街|小区|广场|中学|小学|站|沙滩|海滩|公园|码头|大桥|门(?![票口])|"
    r"风味|口味|特色|风格|式|风|味|菜|系|拉面|吐司|戚风|蛋糕|面包|布丁|酸奶|烤鸭|火锅|米粉|米线|凉皮|小吃|早茶|茶|面|粉|烧烤|卤味|特产|人|火腿|黑茶|岩茶|"
    # a flavour and goods named after where they come from (新疆的味道, 郫县豆瓣酱, 云南咖啡豆)
    r"的(?:味道|风味|口味)|豆瓣酱|"
    # a noodle dish named by its city with its own name between (南宁老友粉, 武汉热干面, 重庆小面) — not a
    # verb or a quantity of it (南宁吃粉, 很多粉)
    r"[^\s\d，,。！!？?、；;：:的吃嗦喝买卖去来到在有是和与很多好都也就还]{1,2}(?:粉|面|米线)|酱|醋|米酒|黄酒|咖啡(?!店|馆|厅)|山药|大米|腊肉|腊肠|香肠|真丝|丝绸|瓷器|刺绣|"
    # (新疆长绒棉, 宁夏枸杞, 云南保山的日晒豆)
    r"(?:长绒)?棉|羊绒|蜂蜜|枸杞|红枣|核桃|茶叶|的[^，,。！!？?\s]{0,3}(?:豆|茶叶?|棉|米)(?![\u4e00-\u9fff])|"
    # (…and goods of a country's farms: 新西兰的羊肉冻干, 澳洲牛排)
    r"的?[^\s\d，,。！!？?、；;：:的]{0,2}?(?:冻干|奶粉|黄油|牛排|三文鱼|车厘子|红酒|葡萄酒|橄榄油)|"
    # (…and exercises named after a country: 土耳其起立, 俄罗斯转体, 保加利亚分腿蹲, 罗马尼亚硬拉)
    r"起立|转体|分腿蹲|硬拉|"
    # (…and a kind of opera named after where it began: 四平戏, 黄梅戏, 秦腔)
    r"戏(?!院|台|楼)|腔|剧(?!院|场)|"
    # …and where a person is from (一个德国女生, 上海的同事比我高)
    r"的?(?:女生|男生|女人|男人|姑娘|小哥|大叔|阿姨|朋友|同学|同事|室友|闺蜜)|人)"
)


@dataclass(frozen=True)
class Place:
    """A resolved place: its display name and where it sits (6-digit adcodes, or a foreign key)."""

    name: str
    codes: frozenset[str]  # adcodes of every division the name may mean; "world:<name>" when foreign


def _lines(name: str) -> list[str]:
    text = (LEXICON / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _regions() -> dict[str, frozenset[str]]:
    """Name (full and short) → adcodes it may mean: 朝阳 → Beijing's district, Liaoning's city, …"""
    return divisions()


def _landmarks() -> dict[str, str]:
    return landmark_cities()


@cache
def _world() -> tuple[dict[str, str], dict[str, str]]:
    """(Chinese name → its country for places outside the division table, English alias → Chinese name)."""
    foreign: dict[str, str] = {}
    english: dict[str, str] = {}
    for name, aliases, country in world_rows():
        if name not in _regions():
            foreign[name] = country.strip() or name
        for alias in filter(None, (a.strip().lower() for a in aliases)):
            english[alias] = name
    return foreign, english


def resolve(name: str) -> Place | None:
    """What a place name refers to, or None when no table knows it."""
    regions = _regions()
    if name in regions:
        return Place(name, regions[name])
    if name in _landmarks():
        city = _landmarks()[name]
        if city in regions:
            return Place(name, regions[city])
        # (a sight of a town abroad lies in its country too: 儿岛 of 仓敷, in 日本)
        where = resolve(city) if city != name else None
        return Place(name, where.codes if where else frozenset({f"world:{city}"}))
    foreign, _ = _world()
    if name in _aliases():  # a region of divisions (潮汕, 江浙沪) or countries (东南亚) lies where they lie
        members = [
            regions[m] if m in regions else frozenset({f"world:{m}"})
            for m in _aliases()[name]
            if m in regions or m in foreign
        ]
        if members:
            return Place(name, frozenset().union(*members))
    if name in foreign:
        return Place(name, frozenset({f"world:{name}", f"world:{foreign[name]}"}))
    for prefix in (name[:4], name[:3], name[:2]):  # 洛阳龙门石窟 → 洛阳 (but every city has a 中山公园)
        rest = name[len(prefix) :]
        if len(rest) >= 3 and not _COMMON_SPOT.search(rest) and prefix in regions and _major(prefix):
            return Place(name, regions[prefix])
    return None


def reportable(name: str) -> bool:
    """Is `name` specific enough to call foreign? Provinces, prefectures, landmarks, foreign places and
    divisions written in full (顺德区). A bare county short name is often a word or a street (滨江, 中山)."""
    if name in _landmarks() or name in _world()[0] or name in _world()[1].values():
        return True
    codes = _regions().get(name)
    if codes is None:
        return resolve(name) is not None
    # A suffix inside an everyday word (郊区 "suburbs", 红旗 "red flag") does not spell out a division.
    spelled = bool(re.search(r"[区县市旗州]$", name)) and name not in word_places()
    return any(code.endswith("00") for code in codes) or spelled


def _codes_agree(a: str, b: str) -> bool:
    if a.startswith("world:") or b.startswith("world:"):
        return a == b
    if a[:4] == b[:4] and not a.endswith("0000"):  # same prefecture (or one is the prefecture) …
        # … except two counties, or a county and a district: 霞浦 is no part of a trip to 屏南 (one city's
        # districts are one place: 思明 and 集美; codes 01–20 are districts, 21 on counties and county cities)
        return a.endswith("00") or b.endswith("00") or (int(a[4:]) < 21 and int(b[4:]) < 21) or a == b
    return division_contains(a, b) or division_contains(b, a)


def agree(a: Place, b: Place) -> bool:
    """One place lies in the other, or both in one prefecture (思明 and 鼓浪屿 and 厦门 and 福建)."""
    if a.name in b.name or b.name in a.name:
        return True
    for region, other in ((a, b), (b, a)):  # a region of countries holds their towns (东南亚 and 清迈)
        if _of_countries(region.name):
            return bool(region.codes & other.codes)
    x, y = _abroad(a), _abroad(b)
    if x and y:  # two cities of one country are two places (京都, 大阪); the country holds both
        return bool(x[0] & y[0]) or a.name == y[1] or b.name == x[1]
    return any(_codes_agree(x, y) for x in a.codes for y in b.codes)


def _abroad(place: Place) -> tuple[frozenset[str], str] | None:
    """A place outside China's divisions: its own codes (not its country's, unless it is the country) and its
    country (清水寺 → {world:京都}, 日本)."""
    if not place.codes or not all(c.startswith("world:") for c in place.codes):
        return None
    foreign = _world()[0]
    city = place.name if place.name in foreign else _landmarks().get(place.name, "")
    country = foreign.get(city, "")
    return frozenset(c for c in place.codes if c != f"world:{country}" or country == place.name), country


def _holds(a: Place, b: Place) -> bool:
    """Is `b` a division inside province `a` (福建 holds 厦门 and 思明)?"""
    provinces = {c[:2] for c in a.codes if c.endswith("0000")}
    return bool(provinces) and all(c[:2] in provinces and not c.endswith("0000") for c in b.codes)


@dataclass(frozen=True)
class PlaceScope:
    """The places a request (and its brief) names; a post may name these and what lies in or around them."""

    names: tuple[str, ...]
    resolved: tuple[Place, ...]
    # …without the towns abroad the trip only sets out from (从京都过去): their sights are elsewhere
    visited: tuple[Place, ...] = ()

    @classmethod
    def of(cls, texts: Iterable[str]) -> PlaceScope:
        texts = list(texts)
        names: list[str] = []
        for text in texts:
            names.extend(_request_places(text))
        names = list(dict.fromkeys(names))
        # a name inside another is that one's (武功 of 武功山 is no 陕西 county here)
        names = [n for n in names if not any(n != other and n in other for other in names)]
        # (a name no table knows, led by a division's, is that division's: 苏州园林 is 苏州's gardens)
        resolved = [p for p in (resolve(n) or _led_by(n) for n in names) if p is not None]
        # (a town abroad the trip only sets out from is no place it is about: 从京都过去 allows 京都 itself
        # and its stations, not its 花见小路 on a 金泽 day)
        joined = "\n".join(texts)
        origins = {n for n in names if n in _world()[0] and set_out_only(joined, n)}
        visited = [p for n in names if n not in origins and (p := resolve(n) or _led_by(n)) is not None]
        return cls(tuple(names), _finest(resolved), _finest(visited or resolved))

    def allows(self, name: str) -> bool:
        if any(name in allowed or allowed in name for allowed in self.names):
            return True
        place = resolve(name)
        sight = name in _landmarks() and not _HUB.search(name)
        scope = (self.visited or self.resolved) if sight else self.resolved
        return place is None or any(agree(place, allowed) for allowed in scope)


_HUB = re.compile(r"站|机场|码头|港|客运|枢纽")


def _finest(resolved: list[Place]) -> tuple[Place, ...]:
    """A province named before its own city (云南建水) only says where the city is: the trip is the city's,
    and another city of the province (大理) lies elsewhere — the name itself stays allowed."""
    return tuple(p for p in resolved if not any(_holds(p, q) for q in resolved if q is not p))


def set_out_only(text: str, name: str) -> bool:
    """Is `name` said in the request only as where the trip sets out from (从京都过去, 从上海出发)?"""
    escaped = re.escape(name)
    said = len(re.findall(escaped, text))
    origins = len(re.findall(rf"从{escaped}{_STATION}(?:出发|过去|过来|坐|开车|自驾|飞|去)", text))
    return said > 0 and origins == said


def _led_by(name: str) -> Place | None:
    """The division a name no table knows starts with (苏州园林 → 苏州), if any."""
    return next((p for k in (3, 2) if len(name) > k and (p := resolve(name[:k])) is not None), None)


@cache
def _aliases() -> dict[str, tuple[str, ...]]:
    """Regions spanning several divisions (江浙沪, 川渝 …) → the divisions they cover."""
    return {line.split()[0]: tuple(line.split()[1:]) for line in _lines("region_aliases.txt")}


def _of_countries(word: str) -> bool:
    """Is `word` a region of countries (东南亚, 北欧)? One of China's (东北, 江南) is often a word: 东北菜."""
    place = resolve(word) if word in _aliases() else None
    return place is not None and all(code.startswith("world:") for code in place.codes)


def region_members(text: str) -> list[str]:
    """The divisions of the regions `text` names (西北旅行 → 陕西, 甘肃, 青海 …)."""
    return [m for alias, members in _aliases().items() if alias in text for m in members]


@lru_cache(maxsize=1024)
def _request_places(text: str) -> tuple[str, ...]:
    """Places a request names, generously: jieba's places, any division, landmark or foreign name it
    contains (顺德 is not tagged `ns`), the divisions a region like 江浙沪 covers, and English names.
    Generous here only makes the check lenient. Cached: every check of a run asks it of the same brief
    (~23 times a run, ~2 ms each: docs/benchmarks.md §10)."""
    found = list(places(text))
    for alias, members in _aliases().items():
        if alias in text:
            found.extend(members)
    for table in (_regions(), _landmarks(), _world()[0]):  # not 古城 (丽江's 古城区): it names no one place
        found.extend(name for name in table if len(name) >= 2 and name in text and name not in not_places())
    lowered = text.lower()
    found.extend(
        name
        for alias, name in _world()[1].items()
        if re.search(rf"(?<![a-z]){re.escape(alias)}(?![a-z])", lowered)
    )
    return tuple(found)


def mentioned(text: str) -> list[str]:
    """The places `text` names that a table knows, in order: jieba's places, plus tokens that are
    a province or prefecture name (jieba tags 顺德 `nrt`), minus origin labels (兰州拉面, 川渝火锅).

    A name counts when at least one of its occurrences reads as the place (see `_reads_as_place`)."""
    if not text:
        return []
    found: list[str] = [p for p in places(text) if resolve(p) is not None and reportable(p)]
    towns = [*places(text), *(w for w, flag in _tagged(text) if flag in _NAME_FLAGS | {"nr"})]
    for p in towns:  # jieba reads 凤凰古城 or 蓬莱阁 as one name: the county it names
        town = _TOWN_SUFFIX.match(p)
        if town and town.group(1) not in word_places() and resolve(town.group(1)) is not None:
            found.append(town.group(1))
    regions = _regions()
    tagged = _tagged(text)
    for i, (word, flag) in enumerate(tagged):
        if word in not_places():
            continue
        # a county jieba reads as another word (平遥 'a') is a place when a town word follows (平遥古城)
        after = "".join(w for w, _ in tagged[i + 1 : i + 3])
        # 去德化看白瓷 — not a district named like a building (钟楼, 鼓楼) or an everyday word
        went = (
            i > 0
            and _went_before(tagged, i)
            and not _STRUCTURE_HEAD.search(word)
            and word not in word_places()
        )
        named = word in regions and (
            (reportable(word) and (flag in _NAME_FLAGS or _major(word)))
            or bool(_TOWN_TAIL.match(after))
            or went
        )
        if named or word in _landmarks() or word in _world()[0] or _of_countries(word):  # (外滩 and 宽窄巷子
            found.append(word)  # are nouns to jieba)
    # foreign names of three characters or more, however jieba cuts them (仙本那, 布宜诺斯艾利斯)
    found.extend(name for name in _world()[0] if len(name) >= 3 and name in text)
    tokens = _token_spans(text)
    return [
        name
        for name in dict.fromkeys(found)
        if not _a_village(text, name)
        and any(_reads_as_place(text, m.start(), name, tokens) for m in re.finditer(re.escape(name), text))
    ]


# A village's or a spot's head after a county-level name: 龙潭村 is a village of 屏南, not 吉林's 龙潭区,
# 白水洋 a river bed, not 陕西's 白水县 — no district is called after its own village.
# (…or 龙潭瀑布, or a cave: 青龙洞 of 镇远 is no 河北's 青龙)
_VILLAGE_HEAD = re.compile(r"^(?:村|寨|屯|坳|岙|洋(?!葱|气|装|酒)|瀑布|大?峡谷|水库|溶洞|洞(?![察见悉]))")
# A town may even take a prefecture's name (东山岛's 铜陵镇 is not 安徽's 铜陵), unless the 镇 opens a place
# of its own (南京镇江一日游: 镇江 is a city).
_TOWN_HEAD = re.compile(r"^镇")


def _a_village(text: str, name: str) -> bool:
    """Does the text name a village, town or spot after a district's name (龙潭村, 白水洋, 铜陵镇)? Then it
    is what the name means there, in every mention (晚上回龙潭住 is the village too) — a village never a
    prefecture's, a town never a province's."""
    heads = [text[m.end() :] for m in re.finditer(re.escape(name), text)]
    return (not _major(name) and any(_VILLAGE_HEAD.match(h) for h in heads)) or (
        not _province(name) and any(_TOWN_HEAD.match(h) and not _opens_place(h) for h in heads)
    )


def _opens_place(text: str) -> bool:
    """Does `text` begin with a place's name (镇江…, 镇远…)?"""
    return any(text.startswith(name) for name in _regions() if len(name) >= 2 and name[0] == text[:1])


_NAME_FLAGS = frozenset({"ns", "nrt", "nz"})
# What makes even a bare county name (not reportable alone: 平遥 may be read as an adjective) a place.
# (…or an old street: 元阳老街, where jieba reads 元阳 a person's name)
_TOWN_TAIL = re.compile(r"^(?:古城|老城|古镇|县城|城墙|之旅|老街|古街)")
# A county's name with a sight's head word names that county (凤凰古城, 蓬莱阁): jieba often reads the whole
# as one name, and the county's name alone is too ambiguous to report.
_TOWN_SUFFIX = re.compile(r"^(.{2,4}?)(?:古城|老城|古镇|县城|阁|石窟|景区|风景区|大峡谷)$")
_GOING = frozenset(
    {"去", "前往", "飞", "飞往", "赶往", "直奔", "来到", "到达", "抵达", "转去", "绕去", "改去"}
)
# Words that may stand between a verb of going and where it goes (去了趟蓬莱, 又去了一趟): skipped when
# looking back from a name for the verb.
_GOING_FILLER = frozenset({"了", "过", "趟", "一趟", "一下", "了趟"})


def _went_before(tagged: tuple[tuple[str, str], ...], i: int) -> bool:
    """Is the word at `i` where a verb of going goes (去德化, 去了趟蓬莱)?"""
    j = i - 1
    while j >= 0 and tagged[j][0] in _GOING_FILLER:
        j -= 1
    if j < 0:
        return False
    word = tagged[j][0]
    # jieba glues the verb to the way one goes (顺路去, 开车去, 再去): the word ends with it
    return word in _GOING or (len(word) <= 4 and word.endswith("去") and word not in _NOT_GOING)


_NOT_GOING = frozenset({"失去", "死去", "过去", "下去", "上去", "进去", "出去", "离去", "除去", "省去"})
_VERB_FLAGS = frozenset(
    {"v", "vn", "vd", "a", "ad", "d"}
)  # jieba reads the name as a verb, adjective, adverb


# Characters before a name that leave it a name of its own: verbs of going and being somewhere, and joiners.
_PLACE_LEAD = frozenset("去到在来从回往至飞游逛住离赴抵和与及跟同或、是了比像")
# A city name ending in one of these and glued to a one-character word before it names a structure: the
# gate 应天门 is not the city 天门, 大厦门口 is not 厦门.
_STRUCTURE_HEAD = re.compile(r"[门楼桥塔寺关城]$")
# After a word jieba does not tag as a place (开封 "to unseal", 日照 "sunshine"), what makes it read as one.
_PLACE_TAIL = re.compile(
    r"^(?:市|站|人|话|[一二两三四五六七八九十\d]+[天日晚夜]|古城|老城|城墙|老街|古街|之旅|旅游|旅行|游|本地|当地|周边"
    r"|的(?:街|夜|老|景|美食|小吃|特色))"
)


def _token_spans(text: str) -> dict[int, tuple[str, set[str]]]:
    """Start offset → (word, jieba flags) for both of jieba's cuts (with and without HMM)."""
    spans: dict[int, tuple[str, set[str]]] = {}
    for cut in (_tagged(text), posseg_cut(text)):
        offset = 0
        for word, flag in cut:
            start = text.find(word, offset)
            if start < 0:
                continue
            offset = start + len(word)
            known = spans.setdefault(start, (word, set()))
            if known[0] == word:
                known[1].add(flag)
    return spans


def _reads_as_place(text: str, start: int, name: str, tokens: dict[int, tuple[str, set[str]]]) -> bool:
    """Does this occurrence of `name` mean the place? Not when a dish, style or street label follows
    (兰州拉面, 成都的玉林路, 白城沙滩), when it lies inside a longer landmark the tables know, when it is
    glued to the word before it as part of a structure's name (应天门), or when jieba reads it as an
    ordinary word (护肤品开封后, 日照充足) with nothing around it that marks a place."""
    end = start + len(name)
    # (an island's pier and beaches are the island's: 东极岛码头 is no street named after it)
    if name.endswith("岛") and re.match(r"码头|沙滩|海滩|站", text[end:]):
        return True
    # (…also after a city of the name: 云南保山的日晒豆 is a bean, 保山 its city, 云南 its province)
    if _ORIGIN_LABEL.match(text[end:]) or any(
        resolve(text[end : end + n]) is not None and _ORIGIN_LABEL.match(text[end + n :]) for n in (2, 3)
    ):
        return False
    for landmark in _landmarks():
        if len(landmark) > len(name) and name in landmark:
            at = text.find(landmark, max(0, start - len(landmark)))
            if 0 <= at <= start and at + len(landmark) >= end:
                return False
    before = text[start - 1] if start else ""
    # (…nor a city's station read across: 钟山西站, 回钟山西， are 钟山's west station, no 山西)
    station = text[end : end + 1] == "站" or not re.match(r"[\u4e00-\u9fff]", text[end : end + 1])
    if station and name[-1] in "东南西北" and before and resolve(before + name[:-1]):
        return False
    prev = next((tokens[i] for i in range(start - 1, max(-1, start - 5), -1) if i in tokens), None)
    glued = (
        bool(before)
        and "\u4e00" <= before <= "\u9fff"
        and before not in _PLACE_LEAD
        and prev is not None
        and len(prev[0]) == 1
    )
    # (…not a landmark's own name, whose 塔 or 寺 is its own: 去看崇圣寺三塔)
    if glued and _STRUCTURE_HEAD.search(name) and name not in _landmarks() and resolve(before + name) is None:
        return False
    if _split_word(text, name, end):
        return False
    token = tokens.get(start)
    if token is None or token[0] != name:  # inside a longer word: only a spelled-out name, or a town's
        town = token is not None and token[0].startswith(name) and bool(_TOWN_SUFFIX.match(token[0]))
        return name in _landmarks() or len(name) >= 3 or town
    if not text.replace(name, "").strip():  # a tag that is the name alone
        return True
    if name in word_places():
        # jieba's tag is its dictionary's, the same in every sentence (朝阳 is always `ns`): for a name
        # that is also a word only the words around it tell the place.
        return _word_place_context(text, start, end, tokens)
    if token[1] & _NAME_FLAGS or name in _landmarks() or name in _world()[0]:
        return True
    if not token[1] & _VERB_FLAGS:
        return True
    after = text[end:]
    return before in _PLACE_LEAD or bool(_PLACE_TAIL.match(after)) or _next_to_place(text, start, end)


# A direction before an everyday noun that begins with a name's last character: 南阳台 is the south 阳台 (a
# balcony), not 南阳; 南通道 a south passage. Not a noun of geography (北海边 may well be 北海's shore).
_DIRECTION = frozenset("东南西北上下前后左右")
_GEOGRAPHY = re.compile(r"[海山湖江河城岛湾港滩岸州]")


def _split_word(text: str, name: str, end: int) -> bool:
    """Does this occurrence read as a direction and an everyday noun (南 + 阳台) rather than a name? Only
    for a two-character name that is no province or municipality (北京城 is 北京)."""
    if len(name) != 2 or name[0] not in _DIRECTION or _province(name) or _PLACE_TAIL.match(text[end:]):
        return False  # (南通话 is the city's speech: a tail that makes a place)
    return any(
        flag == "n" and not _GEOGRAPHY.search(word)
        for size in (2, 3)
        for word in [name[1] + text[end : end + size - 1]]
        if len(word) == size
        for flag in [_dictionary_flag(word)]
    )


@cache
def _dictionary_flag(word: str) -> str | None:
    """The part of speech jieba's dictionary gives `word` when it is a word of it (frequency 100 or more)."""
    pairs = segmenter.posseg(word, hmm=False)
    if len(pairs) != 1 or segmenter.jieba().get_FREQ(word, 0) < 100:
        return None
    return pairs[0][1]


# After a name that is also a word, what makes it a structure's or a position's word, not the place: 朝阳楼 (a
# gate tower), 长安街, 在朝阳下 (in the morning sun), 和平年代里.
_WORD_NOT_PLACE = re.compile(
    r"^(?:[楼阁塔寺庙桥门亭殿宫祠坊堂院]|[下里中上前后边旁]|年代|时代|饭店|酒店|大厦|大街)"
)
# A division's own suffix written after the name: 朝阳区, 城关镇, 红旗区.
_DIVISION_SUFFIX = re.compile(r"^(?:区|县|市|镇|乡|旗|州|盟)")
# Words of going or being somewhere that make the next name where one goes or is (去朝阳, 住在安宁, 到了长治).
_TO_PLACE = frozenset(
    {*_GOING, "到", "在", "来", "从", "回", "往", "至", "住", "住在", "回到", "飞到", "搬到"}
)


def _word_place_context(text: str, start: int, end: int, tokens: dict[int, tuple[str, set[str]]]) -> bool:
    """Does this occurrence of a name that is also an everyday word (朝阳 "morning sun", 和平 "peace", 郊区
    "suburbs") mean the place? Only in a place's context: its division's suffix after it (朝阳区), a verb of
    going or being somewhere before it (去朝阳, 在朝阳住了三年), a place word after it (朝阳市区, 安宁的夜市),
    or another place beside it (锦州、朝阳). A structure or position word after it (朝阳楼, 在朝阳下) makes it
    part of that word even after a verb of going: 去朝阳楼 goes to the gate tower."""
    after = text[end:]
    if _WORD_NOT_PLACE.match(after):
        return False
    if _DIVISION_SUFFIX.match(after) or _PLACE_TAIL.match(after):
        return True
    if _next_to_place(text, start, end):
        return True
    return _went_to(tokens, start)


def _went_to(tokens: dict[int, tuple[str, set[str]]], start: int) -> bool:
    """Does a word of going or being somewhere end right before `start`, fillers skipped (去了趟朝阳)?"""
    ending: dict[int, list[str]] = {}
    for at, (word, _) in tokens.items():
        ending.setdefault(at + len(word), []).append(word)
    at = start
    while ending.get(at):
        words = ending[at]
        # jieba joins a manner to the going verb (顺路去, 专门去, 开车去); not to 到, which ends perception
        # verbs (看到朝阳 sees the sunrise)
        if any(w in _TO_PLACE or w.endswith("去") for w in words):
            return True
        filler = next((w for w in words if w in _GOING_FILLER), None)
        if filler is None:
            return False
        at -= len(filler)
    return False


def _next_to_place(text: str, start: int, end: int) -> bool:
    """Is the word listed with another place (洛阳、开封 / 开封和郑州) or written right after its province?"""
    around = (text[max(0, start - 4) : start].rstrip("、和与及/ "), text[end : end + 5].lstrip("、和与及/ "))
    regions = _regions()
    left = any(around[0].endswith(n) for n in (around[0][-k:] for k in (2, 3)) if n in regions and _major(n))
    right = any(
        around[1].startswith(n) for n in (around[1][:k] for k in (2, 3)) if n in regions and _major(n)
    )
    return left or right


@lru_cache(maxsize=4096)
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    """Dictionary words with their tags (no HMM: the names looked up here are all in jieba's dictionary)."""
    return tuple(segmenter.posseg(text, hmm=False))


def _province(word: str) -> bool:
    return any(code.endswith("0000") for code in _regions().get(word, ()))


def _major(word: str) -> bool:
    """A province or prefecture-level city (codes ending 00): safe to read as a place whatever jieba says."""
    return any(code.endswith("00") for code in _regions().get(word, ()))


def foreign_mentions(text: str, scope: PlaceScope) -> list[str]:
    """The places `text` names that lie outside `scope`, except where the trip only set out from
    (从杭州开车一个半小时就到): the post says nothing about that place — nor the ring road of an island
    the post is about (花鸟岛's 环岛路 is no 厦门's)."""
    island = any(n.endswith("岛") for n in scope.names)
    return [
        name
        for name in mentioned(text)
        if not scope.allows(name)
        and not (island and name in _ISLAND_ROADS)
        and not _only_origin(text, name, scope.names)
    ]


_ISLAND_ROADS = frozenset({"环岛路"})


_SETTING_OUT = (
    # 从昆明南站出发, 从深圳北坐高铁, 从上海虹桥坐高铁
    r"(?:市区?|[东南西北]?站|[东南西北]|机场|火车站|高铁站|[\u4e00-\u9fff]{2}机场|[\u4e00-\u9fff]{2}站?(?=坐|乘|搭)"
    r"|[\u4e00-\u9fff]{2}站(?=出发)"  # (从上海虹桥站出发)
    # (从西安城南客运站坐大巴)
    r"|[\u4e00-\u9fff]{0,4}?(?:客运站|汽车站|客运中心|长途站)(?=坐|乘|搭|出发))?"
    r"(?:出发|发车|开车|开过去|开过来|自驾|坐车|打车|包车|坐高铁|坐动车|坐飞机|坐城际|坐大巴|高铁|动车|城际|飞过来|过来|过去|到|飞|落地|坐|来|去"
    # (从武汉毕业，八月到深圳报到: where the writer came from)
    r"|毕业|搬来|搬到|搬过来|搬回|搬走|调来|调过来|辞职|跳槽"
    # (从太原租了辆车: a car hired where the trip set out)
    r"|租(?:了|的)?(?:一)?(?:辆|台)?车)"
)


# (…or a station named by its city and a direction: 南京南出发, 杭州东 → 动物园)
_STATION = r"(?:市区?|[东南西北]?站|[东南西北](?=出发|坐|乘|搭|到|\s*(?:→|—|-))|机场|火车站|高铁站)?"
_TRAVEL = r"(?:坐|乘|搭|有)?(?:高铁|动车|火车|飞机|大巴|车|船)?(?:直飞|直达|飞|到|去|过去|回)"


# someone of the family (外公外婆住在苏州, 我闺蜜在北京)
_KIN = (
    r"闺蜜|姐姐|妹妹|哥哥|弟弟|表姐|表妹|表哥|表弟|亲戚|外公|外婆|爷爷|奶奶|姥姥|姥爷|婆婆|公婆|岳父|岳母"
    r"|舅舅|姨妈|姑姑|叔叔|姑妈|舅妈|小姨|大姨|姨父|姑父|伯伯|伯父|伯母|婶婶|堂姐|堂哥|堂妹|堂弟|嫂子"
)
_YEARS = r"(?:[一二两三四五六七八九十几半\d]+|好几|十几|二十多)(?:多)?年"


def _home(escaped: str) -> list[str]:
    """The post's background, not a place it is about: where the writer lives, works or grew up
    (在广州住了五年, 来杭州工作第三年, 老家在潮州), the way home and the stations a trip passes through
    (高铁回上海, 去昆明赶飞机, 长沙南坐高铁到萍乡北)."""
    return [
        # (…or doing anything there for years: 在广州吃了三年袋装螺蛳粉)
        rf"在{escaped}(?:住了|生活了|工作了|待了|呆了|[\u4e00-\u9fff]{{1,2}}了){_YEARS}",
        rf"(?:来|在){escaped}(?:工作|上班|读书|上学|读大学|上大学)?(?:的)?第?{_YEARS}",  # 来杭州(工作)第三年
        rf"在{escaped}(?:买|淘|入手|带回)(?:了|的|回来)",  # 去年在苏州买了一条方巾: where a thing came from
        # (…at a shop there: 三年前在苏州一家老丝绸店买了第一件真丝衬衫)
        rf"在{escaped}[^，,。！!？?；;\n]{{1,8}}?(?:店|铺|市场|商场|专柜|工作室)(?:里)?(?:买|淘|入手|定做|做)(?:了|的|过)",
        # where the writer rents or rented (在大理租了个小屋, 退了北京的房子)
        rf"在{escaped}租(?:了|的|房)|{escaped}的(?:房子|出租屋|公寓|住处)",
        # the way home at the end of a trip, or a hub left from (下午四点的高铁回上海, 去昆明赶飞机)
        rf"(?:高铁|动车|火车|飞机|航班|大巴)回{escaped}",
        rf"去{escaped}(?:赶|坐)(?:晚上的|早上的)?(?:飞机|航班|高铁|火车)",
        # a leg of the way from a station (长沙南坐高铁到萍乡北)
        rf"{escaped}(?:[东南西北]站?|站)(?:坐|乘|搭)(?:高铁|动车|火车|城际|城轨|轻轨|大巴|客车|汽车)",
        rf"(?:定居|定居在|老家在|老家是|老家|生活在|长在|土生土长的?|(?:我们?|我家|全家)(?:一家)?(?:都)?住在?){escaped}",
        rf"{escaped}(?:长大|土生土长)",
        rf"(?:我|{_KIN}|我爸|我妈|老公|老婆|他|她)是{escaped}人",
        # (…and visitors from there: 去年也有北京的学生来画画)
        rf"{escaped}(?:的|来的)(?:学生|游客|客人|驴友|背包客|摄影师|画家|老师|团)[^，,。！!？?；;\n]{{0,3}}?来",
        # (…or said to someone who asked: 问我从哪来，我说北京)
        rf"(?:从哪(?:儿|里)?来的?|哪里人|哪儿人)[^。！!？?\n]{{0,4}}?(?:我)?(?:说|答)(?:是|从)?{escaped}",
        # (…or said of oneself as one: 对一个重庆人来说)
        rf"(?:一个|作为|身为)(?:土生土长的)?{escaped}人",
        # (…where one's days are spent: 我想起自己在上海每天挤地铁的样子)
        rf"在{escaped}(?:每天|天天|平时|每周)",
        # (…or moved to and lived in: 搬到上海后我自己摸索了两年)
        rf"搬(?:到|来)了?{escaped}(?:后|以后|之后|的第|[一二两三四五六七八九十几\d]+年)",
        # (…a firm or a shop there, or its clients: 一家深圳跨境电商公司的远程岗位, 在一家苏州的网店买的,
        # 在杭州一家…电商公司做运营, 美国客户)
        rf"一家{escaped}的?[^，,。！!？?；;\n]{{0,10}}?(?:公司|工厂|企业|机构|团队|网店|店铺|店)",
        rf"在{escaped}一家[^，,。！!？?；;\n]{{0,12}}?(?:公司|工厂|企业|机构|单位|医院|学校|店)",
        rf"{escaped}(?:的)?(?:客户|甲方|买家|供应商)",
        # (…and the moves of a life, one after another: 后来去了杭州，再跟着老公搬到青岛)
        rf"(?:后来|之后|然后)(?:去了|搬到了?|搬去了?|调到了?){escaped}[，,][^。！!？?\n]{{0,12}}?(?:搬|调|去|回)",
        # (…and the land across a river or strait, seen: 太阳落到对岸陕西那边的山后面)
        rf"对岸(?:就是|是|的)?{escaped}",
        # (老板是甘肃过来的, 房东来自温州: where someone here comes from)
        rf"(?:是|来自){escaped}(?:人|过来的|来的)",
        # (我在苏州开一家女装小店; 在东京出差时: a work trip or a stay of study is the writer's too)
        rf"在{escaped}(?:上班|工作|读书|读大学|上大学|读研|念书|上学|生活|通勤|出差|留学|实习|开了?(?:一|家))",
        # how far it is, the way back (回广州的路上)
        rf"离{escaped}(?:不远|不算远|很近|挺近|近|[^，,。]{{0,6}}?(?:小时|公里|分钟))",
        # (…or what the place lies beside: 顺德就在广州旁边)
        rf"(?:就在|紧挨着?|挨着|靠近|位于){escaped}(?:的)?(?:旁边|附近|边上|隔壁|周边|南边|北边|东边|西边)",
        # where the next trip goes, teased in the closing paragraph (下一站想去中山吃乳鸽)
        rf"(?:下一站|下次|下回|下一次)[^，,。！!？?\n]{{0,6}}?(?:想|打算|准备|计划)?去{escaped}(?![\s\S]*\n\s*\n)",
        rf"回(?:到)?{escaped}",
        # (…a hub changed at, said bare: D1 成都中转; the next leg from where the last one ended:
        # 坐高铁到宁波，再从宁波站坐大巴; a hub's station or airport by its name: 上海虹桥坐高铁)
        rf"{escaped}(?:机场)?(?:中转|转机|转车)",
        rf"到{escaped}[，,]\s*再从{escaped}",
        rf"{escaped}(?:虹桥|浦东|首都|大兴|白云|双流|天府|宝安|萧山|禄口|长水|咸阳|高崎|新郑)(?:站|机场)?(?:坐|乘|搭|飞)",
        # (the weather at home before setting out: 出发前一周昆明一直下雨)
        rf"出发前[^，,。！!？?\n]{{0,6}}?{escaped}",
        # (a place told apart from the one meant: 不是云南迪庆那个香格里拉)
        rf"不是{escaped}[^，,。！!？?\n]{{0,4}}?那个",
        # (people from there, and a dish named after it, eaten here: 一对常德夫妻开的, 常德牛肉粉)
        rf"{escaped}(?:人开的|夫妻|老板|老乡|阿姨|大叔|师傅)",
        rf"{escaped}(?:牛肉粉|米粉|粉|拉面|小面|烤鸭|炒饭|凉皮|肉夹馍|酸辣粉|热干面|煎饼|米线|糖水|菜馆|风味|口味)",
        # where a thing was made or sent from (产地是内蒙古鄂尔多斯, 发货地写着浙江义乌)
        rf"(?:产地|产自|原产地?|发货地|原料来自|来自|产于)[：:]?\s*(?:是|写着|写的是|为|在)?(?:{_NAME})?{escaped}",
        # (之前从景德镇带回来的那套; 从昆明的苗圃发过来: goods sent from a shop there)
        rf"从{escaped}(?:的[^，,。！!？?；;\n]{{1,6}}?)?(?:带回来?|带来|带过来|买回来?|寄来|寄过来|发过来|发来|发货|运过来|运来)",
        # (…or from home there: 从成都老家掐回来的一小枝)
        rf"从{escaped}(?:老家|家里|娘家|婆家)[^，,。！!？?；;\n]{{0,3}}?(?:带|掐|摘|挖|剪|拿|寄|搬)回?来",
        rf"{escaped}的?(?:厂家|工厂|源头厂)",  # 在网上找了佛山的厂家直发
        # …made there (奶奶只认绍兴产的花雕, 日本冈山产原色牛仔), a thing named by where it is from
        # (景德镇那套), or brought back from a trip there (前年去景德镇玩，一口气背回来一整套餐具)
        rf"{escaped}(?:{_NAME})?(?:出)?产(?:的|地|区)?(?![品业生后妇假])",
        rf"{escaped}(?:的|买的|带回来的)?那(?:套|件|条|个|只|款|瓶|双|罐|包)",
        rf"{escaped}(?:原装)?进口",  # 意大利进口的真皮: goods by the country they are shipped from
        # a cosmetic or a brand by its country (日本的氨基酸洁面, 法国牌子的面霜)
        rf"{escaped}(?:的|产的|本土的?)?[\u4e00-\u9fff]{{0,4}}?(?:洁面|洗面奶|面霜|精华|乳液|防晒|口红|面膜"
        r"|护肤品|化妆品|药妆|卸妆|眼霜|香水|牌子|品牌|大牌|开架)",
        # where someone else lives (我有个朋友住天津, 同事住在东莞)
        rf"(?:朋友|同事|室友|同学|闺蜜|亲戚|家人|表姐|表哥|表妹|姐姐|哥哥|老公|老婆|{_KIN})[^，,。！!？?\n]{{0,8}}?"
        rf"住(?:在)?{escaped}",
        # a trip the writer made there before, set beside this one (之前去九寨沟时…), a plan not taken
        # (本来想去漳州的火山岛…取消了), a thing bought there once (之前在苏州买过), what is missed of home
        # (偶尔还是会想长沙的米粉), staying there (爸妈希望我留在长沙), a visit home (上次回国在杭州吃了…)
        rf"(?:之前|以前|上次|去年|前年|那年)(?:去|在)了?{escaped}(?:时|的时候)",
        # (…or lived there: 以前在深圳住城中村的时候)
        rf"(?:之前|以前|当年|那时|小时候)(?:在|住在){escaped}[^，,。！!？?\n]{{0,8}}?(?:时|的时候|那会儿|那几年)",
        # (…or a home town, anyone's: 我妈在福州老家的办法, 外婆是从潮州老家过来的)
        rf"{escaped}(?:的)?老家",
        # (…and where someone went on leaving home: 外公十几岁离开老家去了南昌)
        rf"离开(?:老家|家乡|村子|家)[^，,。！!？?；;\n]{{0,3}}?(?:去了|到了|来到|去){escaped}",
        # (…or done there before: 去年在东山岛也拍过海, 去年爬泰山 — not 上次去成都, whose sights may follow)
        rf"(?:之前|以前|上次|去年|前年|那年)(?:在{escaped}也?[\u4e00-\u9fff]{{1,2}}过|(?:爬|登)了?{escaped}[，,])",
        # (…or a place done before, said after the doing: 前年骑过青海湖)
        rf"(?:之前|以前|上次|去年|前年|那年)[\u4e00-\u9fff]{{1,2}}过{escaped}",
        # (…and what was seen there: 去年在洛阳看过龙门石窟)
        rf"(?:之前|以前|上次|去年|前年|那年)在{_NAME}也?[\u4e00-\u9fff]{{1,2}}过{escaped}",
        rf"本来(?:想|打算|计划|准备)去{escaped}",
        # (…a trip there before, set beside this one: 之前去平遥是冲着古城的热闹，碛口完全是另一种感觉)
        rf"(?:之前|以前|上次|去年|前年)(?:去|去过|在)了?{escaped}[^。！!？?\n]{{0,24}}?(?:另一种|不一样|不同|两样)",
        # (…or a place a train passes on the way: 醒来差不多到汉中，后半程就快了)
        # (not 途经 or 经过, which put the place on the route: 中途经过鹅岭二厂 in a 龙泉山 ride)
        rf"(?:差不多到|快到|刚过|过了)了?{escaped}",
        rf"在{escaped}买过",
        # (…a shop there that sent a thing: 山东烟台一家网店发的)
        rf"{escaped}(?:{_NAME})?(?:的)?一家[^，,。！!？?；;\n]{{0,4}}?(?:网店|店铺|店|淘宝店)(?:买|发|寄|邮)",
        # (…or seen far off from here: 天气好能看到密云水库, 远远望见…)
        rf"(?:远远|远处|天气好(?:的时候)?|晴天)[^，,。！!？?；;\n]{{0,3}}?(?:能|可以|能够)?"
        rf"(?:看到|看见|望到|望见|看得到|看得见|远眺|俯瞰)[^，,。！!？?；;\n]{{0,4}}?{escaped}",
        # (…what the writer had there: 我在上海也吃过几家川菜馆)
        rf"我(?:们)?在{escaped}也?[\u4e00-\u9fff]{{1,2}}过",
        rf"(?:想|想念|怀念){escaped}的",
        # (…what can be had at home too, set beside here: 在昆明也能吃到汽锅鸡，但在建水吃…)
        rf"在{escaped}也(?:能|可以)(?:吃到|买到|喝到|看到|找到)",
        # (…where the writer went before, and what they did there: 以前在北京常去奥林匹克森林公园)
        rf"(?:之前|以前|当年|那时|小时候)在(?:{_NAME}(?:常|经常|总|天天|每天|一般)?(?:去|跑|逛))?{escaped}",
        # (…a produce bought by the region it is from: 我最常买山东的烟薯25)
        rf"(?:买|选|挑)(?:的是)?{escaped}(?:的|产的|本地的)(?=[\u4e00-\u9fff])",
        rf"留在{escaped}",
        rf"回国(?:在|去|到)?{escaped}",
        # a friend's story of a trip there (室友说起大学那年在泰山夜爬)
        rf"(?:说起|讲起|聊起|提起)[^。！!？?\n]{{0,6}}?(?:那年|那次|当年|以前|之前|去年)?在?{escaped}",
        # a produce named by where it grows (云南小粒咖啡, 新疆长绒棉, 内蒙古羊绒): a kind of the thing
        rf"{escaped}(?:小粒|长绒|高山|本地)?(?:咖啡|红茶|绿茶|白茶|乌龙|普洱|棉|羊绒|羊毛|丝绸|真丝|大米|香米|小米"
        rf"|蜂蜜|枸杞|红枣|核桃|火腿|腊肉|牛肉干|奶酪|辣椒|花椒|白酒|黄酒|酱油|陈醋)",
        rf"去{escaped}(?:玩|旅游|旅行|出差)[^。！!？?\n]{{0,12}}?(?:带回|背回|买回|拎回|扛回|淘)",
        # the ticket from home (机票成都往返每人约900元)
        rf"(?:机票|高铁票?|动车票?|火车票?|航班){escaped}(?:往返|出发|直飞)|{escaped}(?:往返|直飞)",
        # a hub changed at (从广州飞曼谷，再转机到清迈; 先坐高铁到宁波再转车)
        rf"(?:飞|到|去){escaped}[，,]?(?:再|然后)?(?:转机|转车|转船|中转|换乘)|在{escaped}(?:转机|转车|中转|换乘)",
        # (…flown to, then on by another carrier: 飞吉隆坡，转亚航到日惹; 经吉隆坡转机回广州)
        rf"飞{escaped}[，,]\s*转[\u4e00-\u9fffA-Za-z]{{1,4}}?(?:到|飞|去)|经{escaped}(?:转机|中转|转车)",
        # (…or the first leg of a way that goes on: 就先飞昆明，再从昆明站坐动车到大理)
        rf"先(?:飞|坐[\u4e00-\u9fff]{{1,3}}到|到|去){escaped}[^。！!？?\n]{{0,4}}?[，,]\s*(?:再|然后)",
    ]


def _moved(escaped: str) -> list[str]:
    """Where the writer lived before a move (我从北京搬回了老家洛阳, 在上海住了五年后…)."""
    return [
        rf"从{escaped}(?:搬回|搬到|搬来|搬走|辞职|回到?老家|调到|调去|调来|转到)",
        rf"(?:搬到|搬来|搬去|搬回)了?{escaped}",  # (…or after it: 我以前住广州，去年搬到北京)
        rf"(?:调到|调去|调来){escaped}(?:工作|上班|的)",
        # (…or a job left there: 从上海的设计公司辞职)
        rf"从{escaped}的[^，,。！!？?；;\n]{{1,8}}?(?:辞职|离职|跳槽|毕业)",
        rf"在{escaped}(?:住了|生活了|工作了|待了|呆了){_YEARS}",
        rf"离开{escaped}",
    ]


def _whereabouts(escaped: str, listed: str) -> list[str]:
    """Of a post about no place, the writer's whereabouts, each said where it is said: where a move took
    them (从上海搬到青岛), where they, their clients or family are (我人在杭州，最大的客户在深圳;
    一年里飞了四次深圳), a city given as an example (比如在上海，落户…), where a thing is bought from
    (说从日本中古店帮你代购)."""
    return [
        rf"搬(?:到|去|来|回)了?{escaped}",
        rf"(?:人|我|我们|家|客户|公司|总部|同事|朋友|家人|爸妈|父母|对象|男朋友|女朋友|岗位|工作|职位|base|offer"
        rf"|新工作|新公司|{_KIN})(?:都|也|一直|现在)?(?:住)?在{listed}",
        # the jobs and firms a career story weighs (面了上海和深圳的几家公司, 北京的岗位薪资更高,
        # 在广州的公司待了两年)
        rf"{listed}的?[^，,。！!？?；;\n]{{0,4}}?(?:公司|岗位?|offer|工作机会|职位|团队|分公司|总部|单位)",
        rf"(?:base|坐标|工作地|工作地点)[：:]?\s*{escaped}",
        rf"飞了?[一两二三四五六七八九十几\d]+(?:趟|次){escaped}|(?:去|跑|飞)[一两二三四五六七八九十几\d]+(?:趟|次){escaped}",
        rf"(?:比如|例如|像是?)(?:在|去)?{listed}",
        # a trip the writer made, said in passing (暑假带她去了趟青岛, 出差去了一趟武汉, 在云南旅行时买的),
        # and where someone came back from (儿保医生是从上海进修回来的)
        rf"去了(?:一)?趟{escaped}|去过{escaped}|在{escaped}(?:旅行|旅游|玩|出差|度假)(?:时|的时候|期间|那几天)",
        # (…where one goes on one's days: 平时在玄武湖绕圈跑)
        rf"(?:平时|每天|天天|经常|一般|周末)(?:都|会)?在{escaped}",
        # (…or an unnamed spot it only locates: 跟着俱乐部去惠州的一条溪)
        rf"(?:去|到|在)了?{escaped}的(?:一|那)(?:条|个|家|座|片|处|间|所)",
        rf"从{escaped}[\u4e00-\u9fff]{{0,4}}?回来",
        rf"从{escaped}[\u4e00-\u9fff]{{0,4}}(?:代购|海淘|进口|直邮|寄)",
        rf"{escaped}(?:的)?(?:中古店|专柜|代购|免税店)",
        # (…someone based there, or come there to the writer: 一位在成都做独立游戏的工作室老板, 他来上海
        # 出差, 我妈来深圳看我; where the writer lived before a move: 我以前住广州，…搬到天津; an outing near
        # a city: 在杭州周边的营地租的)
        rf"(?:一位|一个|有个|有位)在{escaped}",
        # (…or to work or find work: 辞职来杭州找新媒体运营的工作)
        rf"来{escaped}(?:出差|开会|看我|找我|玩|工作|上班|发展|打拼|实习|找[^，,。！!？?；;\n]{{0,10}}?工作)",
        rf"(?:以前|之前|原来)(?:住|住在|在){escaped}[，,]",
        rf"在{escaped}(?:周边|附近|郊区|近郊)的",
        # (…the weather a thing was tried in there: 在广州35度的天气里连测了一周)
        rf"在{escaped}[^，,。！!？?；;\n]{{0,6}}?(?:天气|气温|高温|夏天|冬天|回南天|梅雨季?|桑拿天)(?:里|下|中)",
        # (…and where someone else went or is: 她前年已经离职去了成都, 他说在潮汕，送别要吃丸子)
        rf"(?:他|她|师父|师傅|领导|同事|前辈|老板|组长|主管|经理|学姐|学长|室友|朋友)们?[^，,。！!？?；;\n]{{0,6}}?"
        rf"(?:去了|回了|调去了?|搬去了?){escaped}",
        rf"(?:他|她)们?说(?:在)?{escaped}[，,]",
    ]


def _journey(escaped: str) -> str:
    """Where a trip of the writer's went (寒假带女儿从成都飞三亚看外公外婆): in a post about no place, the
    story's way, not the post's place — and so is every later mention of it (到了三亚，他第一次踩到沙子)."""
    return rf"从{_NAME}(?:飞|坐[^，,。！!？?；;\n]{{0,4}}?到|开车到|开车去|去|回)(?:到)?{escaped}"


_NAME = r"[\u4e00-\u9fff]{2,4}"
_BETTER = r"(?:便宜|贵|好|差|少|多|近|远|快|慢|新鲜|实惠|划算|凉快|暖和|热|冷|干|湿|正宗|地道|清淡|辣|低|高)"


def _compared(escaped: str, listed: str) -> list[str]:
    """A clause that sets the post's place beside another, saying nothing of the other (比在广州、深圳吃便宜
    不少, 和河南的不一样): a comparison, not a place the post is about."""
    return [
        # (比在广州吃便宜; than a trip of the writer's there: 比去年去首尔贵一点,
        # 比我之前去过的南京城墙更完整; 比我在深圳吃过的都扎实, 比我在纽约博物馆看到的展品震撼得多)
        rf"比(?:我们?)?(?:去年|前年|之前|以前|上次|当年|那年)?(?:在|起|住|去|吃|逛|住在|去过的|吃过的|见过的|住过的)?"
        rf"{listed}[^，,。！!？?；;\n]{{0,12}}?(?:{_BETTER}|都|还|更|得多)",
        # (…and a sight of a city seen on a trip there before: 比前年去京都二年坂少太多)
        rf"比(?:我们?)?(?:去年|前年|之前|以前|上次|当年|那年)(?:去|在|去过的)?{_NAME}{listed}"
        rf"[^，,。！!？?；;\n]{{0,12}}?(?:{_BETTER}|都|还|更|得多)",
        # (之前去过曼谷，清迈节奏慢很多: the place before, the post's after)
        rf"(?:之前|以前|上次|去年|前年)(?:去过|去|在|玩过)了?{listed}[，,][^。！!？?\n]{{0,12}}?{_BETTER}"
        r"(?:很多|得多|不少|一些|一点|多了)",
        # (…or opened by the comparing: 对比去年去哈尔滨，阿尔山明显冷一截)
        rf"(?:对比|比起|相比)(?:去年|前年|之前|以前|上次)?(?:去|在|去过的)?{listed}[，,]",
        # (…said as a comparison made: 之前去过温州的雁荡山，对比下来神仙居的栈道更有冲击力)
        rf"(?:之前|以前|上次|去年|前年)(?:去过|去|在|玩过)了?(?:{_NAME}的)?{listed}[，,]\s*"
        r"(?:对比下来|相比之下|比起来|对比之下|两相比较|相比)",
        # a likeness (有点像杭州的宋城, 像重庆洪崖洞那种网红打卡, 和大理古城很像)
        rf"(?:像|类似|好比|如同)(?:是)?(?:{_NAME}的?)?{listed}(?:{_NAME})?(?:的|那种|那样|一样|[，,])",
        rf"(?:和|跟|与){escaped}(?:的|那边的?)?[^，,。！!？?；;\n]{{0,8}}?(?:很像|挺像|有点像|类似|相似)",
        rf"(?:和|跟|与){escaped}(?:的|那边的?)?[^，,。！!？?；;\n]{{0,8}}?"
        r"(?:不一样|不同|不太一样|有区别|差不多|一样|两个路子|两回事|两码事|两种风格)",
        # (和湘潭的粉比; 和附近的宏村比呢)
        rf"(?:和|跟|与)(?:(?:附近|隔壁|旁边|周边|邻近)的?)?{listed}(?:的[^，,。！!？?；;\n]{{0,6}})?(?:比|相比|比起来)",
        # (…a climb or a buy there before: 我上次爬的是泉州的清源山，…; 和我之前在金华买的火腿比; 不如周口的
        # 正宗)
        rf"(?:之前|以前|上次|去年|前年)(?:爬|去|逛|玩|走)(?:过)?的是(?:{_NAME}的)?{listed}",
        rf"(?:和|跟|与)我?(?:之前|以前|上次|去年|前年)?在{listed}(?:买|吃|喝|住)的[^，,。！!？?；;\n]{{0,6}}?(?:比|相比)",
        rf"不如{listed}(?:的|那边)",
        # (…a trip there before: 和去年去的槟城比)
        rf"(?:和|跟|与)(?:去年|前年|之前|以前|上次|那年)?(?:去|去过|住过|玩过)的{listed}(?:比|相比|比起来)",
        # (…a place passed over: 我没去京都那种热门地方排队; and one the writer did the same in years before:
        # 两年前在京都租过一次)
        rf"(?:没|没有|不)去{listed}(?:那种|那样|这种|的)",
        rf"(?:[一二两三四五六七八九十几\d]+年前|去年|前年|之前|以前|上次)在{listed}[^\W的]{{1,2}}过",
        # (…or a share of what it costs there: 房租只有上海的四分之一)
        rf"(?:只有|只要|不到|才|是|相当于|差不多是){listed}的"
        r"(?:[一二三四五六七八九十几\d]+分之[一二三四五六七八九十几\d]+|一半|[一二三四五六七八九十几\d]+成|[一二两三四五六七八九十几\d]+倍)",
    ]


def _only_origin(text: str, name: str, asked: tuple[str, ...] = ()) -> bool:
    """Is every occurrence of `name` the start of the journey or of a move (从X出发, 从X开车, 从X毕业, X出发,
    离开X) or the far end of the way to a requested place (昆明南站坐动车到建水, 北京—崇礼)?"""
    total = text.count(name)
    escaped = re.escape(name)
    # (a requested 建水古城 is reached as 建水)
    towns = [m.group(1) for a in asked if (m := _TOWN_SUFFIX.match(a))]
    to_asked = "|".join(re.escape(a) for a in dict.fromkeys([*asked, *towns]) if a)
    listed = rf"(?:{_NAME}[、和或跟])*{escaped}(?:[、和或跟]{_NAME})*"  # 从南昌、长沙过来
    set_out = [rf"从{listed}{_SETTING_OUT}", rf"{escaped}{_STATION}出发"]
    patterns = [*set_out, rf"离开{escaped}", *_home(escaped), *_compared(escaped, listed)]
    if any(re.search(p, text) for p in set_out):  # the trip's start starts its legs too (Day1 成都到日隆镇)
        patterns.append(rf"{escaped}{_STATION}\s*(?:—|-|→|到|开到|开车到|开过去|坐车到|飞到)")
    # a likeness, not a place (被叫作“金色布达拉宫”, 号称小桂林)
    patterns.append(rf"(?:叫作|叫做|称为|称作|誉为|号称|人称|被叫|堪称|有如|好比)[“\"「『]?[^”\"」』，,。]{{0,6}}?{escaped}")
    # where else is near, for another post (武功山附近还有明月山和羊狮慕大峡谷，下一篇想看我写哪一个？)
    patterns.append(rf"(?:附近|周边|旁边|隔壁)(?:还有|也有)(?:{_NAME}[、和或跟])*{escaped}")
    if not asked and any(re.search(p, text) for p in [*_moved(escaped), _journey(escaped)]):
        return True  # a post about no place, by a writer who moved from there or went there: its background
    if not asked:  # …and where its writer is and goes, where it is said
        patterns += _whereabouts(escaped, listed)
        if re.search(r"[山峰岭]$", name):  # (…the mountains a gear was taken up: 半年里走了武功山、四姑娘山)
            patterns.append(rf"(?:走|爬|登)(?:了|过)(?:{_NAME}[、和])*{escaped}")
        if _world()[0].get(name) == name:  # (…and a thing by its country: 一套日本的食物图鉴, 德国的辅食机)
            patterns.append(rf"{escaped}(?:的|产的|原版的?|进口的)(?=[\u4e00-\u9fff])")
    if to_asked:
        # a part of the requested place, named after it (成都玉林: Chengdu's 玉林, not the city in 广西)
        patterns.append(rf"(?:{to_asked})的?{escaped}")
        patterns.append(rf"{escaped}{_STATION}[^，,。！!？?；;\n]{{0,4}}?{_TRAVEL}(?:{to_asked})")
        patterns.append(rf"{escaped}\s*(?:—|-|→|到)\s*(?:{to_asked})")
    # (where the name stands in each match: 高铁回上海 ends on it)
    starts = {text.find(name, m.start(), m.end()) for p in patterns for m in re.finditer(p, text)}
    # a place set beside the post's stays the comparison in the rest of its paragraph (Q：和附近的宏村比呢？
    # A：宏村是徽派水墨…)
    for m in (m for p in _compared(escaped, listed) for m in re.finditer(p, text)):
        first = max(text.rfind("\n\n", 0, m.start()), 0)
        last = text.find("\n\n", m.end()) % (len(text) + 1)  # (-1, no paragraph after: the end of the text)
        starts.update(first + k.start() for k in re.finditer(escaped, text[first:last]))
    # (only where the name reads as the place: 新疆的味道 is a flavour, not a second mention)
    tokens = _token_spans(text)
    places_at = [
        m.start() for m in re.finditer(escaped, text) if _reads_as_place(text, m.start(), name, tokens)
    ]
    origins = sum(1 for at in places_at if any(abs(at - s) <= 2 for s in starts))
    return total > 0 and origins >= len(places_at)
