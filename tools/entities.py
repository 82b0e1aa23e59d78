"""The entities of a text the quality loop reasons about: the places it names and the kinds of advice
(health, medical, financial, weight loss) it gives.

Places come from `jieba.posseg` (place names are tagged `ns`), minus the words it mis-tags or that name
no particular place (`data/lexicon/not_places.txt`), plus landmark names jieba tags as other nouns but
that end in a landmark suffix (老君山, 瘦西湖, 鼓浪屿 …). A two-character `ns` word no table of the lexicon
knows (a division, a landmark, a foreign place) counts only where the text treats it as a place (去X, 在X,
X旅行): jieba's dictionary tags many everyday words `ns` (吉他, 深度, 美丽). This is the research
filter's and the critic's extractor; the quality benchmark counts places with a gazetteer of its own, so
that one extractor's blind spots cannot hide its own failures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path

from tools import segmenter

_NOT_PLACES_FILE = Path(__file__).resolve().parents[1] / "data" / "lexicon" / "not_places.txt"
_LANDMARK = re.compile(r"(?:山|湖|岛|屿|寺|塔|桥|路|街|巷|古镇|古城|公园|景区|石窟|水库|草原|峡谷|沙滩)$")
_NAMED_FLAGS = frozenset({"ns", "nr", "nrt", "nz", "nt"})
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")

# The kinds of advice a post must not give unless it is about them (issue: "health, medical and financial
# advice only when the topic is about it"). A text is in a domain when it uses one of its words.
ADVICE_DOMAINS: dict[str, tuple[str, ...]] = {
    "medical": (
        "发烧", "退烧", "高烧", "低烧", "布洛芬", "对乙酰氨基酚", "美林", "泰诺林", "抗生素", "处方", "就医",
        "挂号", "医院", "急诊", "症状", "药物", "用药", "吃药", "服药", "病毒", "感染", "疫苗", "过敏药",
        "医生", "诊所", "体温", "褪黑素", "秋水仙碱", "安眠药", "助眠药", "抗过敏", "氯雷他定", "西替利嗪",
        "阿莫西林", "头孢", "消炎药", "止痛药", "感冒药", "降压药", "激素", "剂量", "毫克", "副作用", "药店",
        "药房",
        # (…and screening: 每年做一次甲状腺和乳腺B超)
        "B超", "筛查", "结节", "甲状腺", "乳腺", "早发现早",
    ),
    "weight_loss": (
        "减脂", "减肥", "瘦身", "掉秤", "体脂", "热量缺口", "卡路里", "大卡", "千卡", "低卡", "体重", "斤肉",
        "瘦了", "减重", "燃脂", "刷脂",
    ),
    "financial": (
        "理财", "基金", "股票", "收益率", "年化", "存款利率", "贷款", "信用卡分期", "定投", "保险", "投资",
        "公积金", "房贷", "存银行", "教育金", "储蓄险", "年金险", "分红险", "理财产品", "利息",
        # (earning on the side: its tax is its own — 劳务报酬 on a translation side job)
        "外快", "接单", "劳务报酬", "个税", "报税",
    ),
}


# The habits kept for one's health, and the herbs taken for it: advice of their own, as a tag (#养生茶饮,
# #熬夜护肝, #中药材推荐) — not the care of a body or a baby (#婴儿护理) nor health at large (#健康生活).
HEALTH_HABITS = re.compile(r"养生|护肝|养肝|护肾|养胃|护胃|祛湿|排毒|食疗|中药|药材|药膳")
# A request about health: medical advice belongs in its post (when to see a doctor about altitude sickness)
# — and so is one about a health habit (熬夜护肝, 养胃, 祛湿).
HEALTH_TOPIC = re.compile(
    r"痛|病|健康|失眠|感冒|发烧|咳嗽|过敏|医|药|症|康复|体检|护理|疫苗|高反|高原反应|中暑|"
    + HEALTH_HABITS.pattern
)


# A reader's skin or figure (干皮, 敏感肌, 小个子, 梨形身材): who a beauty or fashion post is for, and much of
# what it is about — unlike a reader who is a person of some kind (应届生, 上班族, 新手爸妈)
READER_CONDITION = re.compile(r"皮|肌|小个子|高个子|微胖|梨形|苹果型|苹果形|胯宽|腿粗|肩宽|身材")


@lru_cache(maxsize=4096)
def posseg_cut(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of `text` with their part-of-speech flags."""
    return tuple(segmenter.posseg(text))


@cache
def not_places() -> frozenset[str]:
    words: set[str] = set()
    for line in _NOT_PLACES_FILE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


@lru_cache(maxsize=8192)
def _places(text: str) -> tuple[str, ...]:
    found: list[str] = []
    stop = not_places()
    # (a station's direction is its own word: 钟山西站 is 钟山's west station, no 山西)
    tokens = list(segmenter.posseg(_STATION.sub(r" \1", _EMOJI.sub(" ", text))))
    for at, (word, flag) in enumerate(tokens):
        word = word.strip()
        if at and tokens[at - 1][1] == "ns" and _INSTITUTION.fullmatch(word):
            if found and found[-1] == tokens[at - 1][0]:  # 湖南博物院 is a museum's name, not a trip to 湖南
                found[-1] += word
            continue
        if len(word) < 2 or word in stop or not re.fullmatch(r"[\u4e00-\u9fff]+", word):
            continue
        # jieba tags many everyday two-character words ns (吉他, 深度, 美丽): one no table knows is a place
        # only where the text treats it as one (去X, 在X, X旅行)
        if flag == "ns" and len(word) == 2 and not _listed(word) and not _placed(text, word):
            continue
        # (…and longer words too, that end in nothing a place's name ends in: 大哥大 of 理肤泉大哥大)
        if flag == "ns" and not _listed(word) and not _PLACE_END.search(word) and not _placed(text, word):
            continue
        # (…and a city jieba reads as a name or a noun is one: 拉萨 nrt, 大理 n)
        named = flag in _NAMED_FLAGS and len(word) >= 3 and bool(_LANDMARK.search(word))
        # (…and a county jieba reads as a name, where the text treats it as a place: 去安吉住了两晚)
        county = flag in _NAMED_FLAGS and word in divisions() and _placed(text, word, _DAYS_AFTER)
        # (…or as a noun, where the text goes there: 下个月去建水玩两天)
        county = county or (
            flag == "n" and word in divisions() and word not in word_places() and _gone_to(text, word)
        )
        if flag == "ns" or named or county or _city(word):
            found.append(word)
    # a name that only ever labels a dish by its origin (在家复刻一碗重庆小面) names no place the text is
    # about
    return tuple(
        name
        for name in dict.fromkeys(found)
        if not all(_ORIGIN_DISH.match(text, m.end()) for m in re.finditer(re.escape(name), text))
    )


# what the name of a place, a spot or a street ends in
_PLACE_END = re.compile(
    r"[省市县区镇乡村寨屯山峰岭岩洞湖海江河溪泉潭湾岛港滩街路巷道桥寺庙宫观塔楼阁园馆院城坊里堡关门站场台池林谷口岸州洲"
    r"坝坡沟峡塘渡湿地府]$|中心$|广场$|古镇$|老街$|公园$|景区$"
)
# an institution named after its place (湖南博物院, 浙江美术馆): one name
_INSTITUTION = re.compile(
    r"博物院|博物馆|美术馆|科技馆|图书馆|大剧院|植物园|动物园|海洋馆|体育馆|纪念馆|艺术馆"
)
_STATION = re.compile(r"(?<=[\u4e00-\u9fff])([东南西北]站)")
_BEFORE_PLACE = frozenset("去到在来从回游逛飞住")
_AFTER_PLACE = re.compile(r"旅行|旅游|游|之行|玩|市|县|站|机场|人|本地|的景点|的美食")
_DAYS_AFTER = re.compile(r"[一二两三四五六七\d](?:天|晚|日游)")  # (安吉两晚: a county's stay)


def _gone_to(text: str, word: str) -> bool:
    """Is `word` somewhere the text goes to stay (去建水玩两天, 到X住一晚)? (not 去大厂做运营)"""
    return any(
        m.start() > 0 and text[m.start() - 1] in "去到来飞" and _STAY_AFTER.match(text, m.end())
        for m in re.finditer(re.escape(word), text)
    )


_STAY_AFTER = re.compile(
    r"玩|住|待|逛|旅|过|研学|游|度假|避暑|出差|自驾|露营|徒步|[一二两三四五六七\d](?:天|晚|日)"
)


def _placed(text: str, word: str, after: re.Pattern[str] | None = None) -> bool:
    """Is some mention of `word` treated as a place: right after 去/在/从 …, or right before 旅行/市/站 … (or
    what `after` also allows)?"""
    return any(
        (m.start() > 0 and text[m.start() - 1] in _BEFORE_PLACE)
        or _AFTER_PLACE.match(text, m.end())
        or (after is not None and after.match(text, m.end()))
        for m in re.finditer(re.escape(word), text)
    )


@cache
def word_places() -> frozenset[str]:
    """Place names that are also everyday words (`data/lexicon/word_places.txt`: 开封, 朝阳 …)."""
    from tools.lexfiles import word_list

    return frozenset(word_list("word_places.txt"))


def _city(word: str) -> bool:
    """Is `word` a province or a prefecture by its own name (拉萨, 大理), and no everyday word that is
    also one (`word_places`)?"""
    codes = divisions().get(word, frozenset())
    return any(c.endswith("00") for c in codes) and word not in word_places()


def _listed(word: str) -> bool:
    """Is `word` a division, a landmark or a foreign place of the lexicon's tables?"""
    return word in divisions() or word in _named_places()


@cache
def _named_places() -> frozenset[str]:
    """The first column of the landmark, foreign-place and word-place tables, read once."""
    from tools.lexfiles import LEXICON

    return frozenset(
        line.split("\t")[0].split()[0]
        for name in ("landmarks.tsv", "world_places.txt", "word_places.txt")
        for line in (LEXICON / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    )


@cache
def landmark_cities() -> dict[str, str]:
    """Landmark → the city (or province) it lies in, as data/lexicon/landmarks.tsv lists them, read once
    (with an old village's plain name: 诺邓村 of 诺邓古村)."""
    from tools.lexfiles import landmark_rows

    return landmark_rows()


@cache
def _landmark_table() -> dict[str, tuple[str, ...]]:
    """City (or province) → its landmarks, in the table's order."""
    table: dict[str, list[str]] = {}
    for name, city in landmark_cities().items():
        table.setdefault(city, []).append(name)
    return {city: tuple(names) for city, names in table.items()}


def landmarks_of(place: str) -> tuple[str, ...]:
    """The landmarks the table places in `place` itself (苏州 → 拙政园, 平江路 …); () for a place it knows
    none of."""
    return _landmark_table().get(place, ())


# Dishes named after where they come from, made and eaten everywhere (重庆小面, 兰州拉面, 柳州螺蛳粉)
_ORIGIN_DISH = re.compile(
    r"(?:小面|拉面|牛肉面|热干面|米粉|螺蛳粉|凉皮|肉夹馍|烤鸭|臭豆腐|酸菜鱼|麻辣烫|冒菜|煎饼|酸辣粉|炸酱面|烩面|"
    r"担担面|口水鸡|辣子鸡|锅包肉|大盘鸡)"
)


def places(text: str) -> list[str]:
    """The place names `text` mentions, in order of first mention: '厦门三天两晚' → ['厦门']."""
    return list(_places(text))


def same_place(a: str, b: str) -> bool:
    """One name contains the other: 杭州 and 杭州市区, 西湖 and 西湖边."""
    return a in b or b in a


def foreign_places(text: str, allowed: Iterable[str]) -> list[str]:
    """The places in `text` that are none of `allowed` (nor contain or are contained in one of them)."""
    allowed = list(allowed)
    return [p for p in places(text) if not any(same_place(p, a) for a in allowed)]


@cache
def _reader_groups() -> dict[str, tuple[re.Pattern[str], bool, frozenset[str]]]:
    from tools.lexfiles import sections

    return {
        name: (
            re.compile(fields["pattern"]),
            fields.get("general", "no") == "yes",
            frozenset(fields.get("clashes", "").split()),
        )
        for name, fields in sections("readers.txt").items()
    }


@cache
def divisions() -> dict[str, frozenset[str]]:
    """China's divisions by name, full and short (`data/lexicon/regions.tsv`): name → the adcodes it may
    mean (朝阳 is a Beijing district and a Liaoning city). A province's code ends in 0000."""
    from tools.lexfiles import LEXICON

    table: dict[str, set[str]] = {}
    for line in (LEXICON / "regions.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, full, short = line.split("\t")
            for name in {full, short}:
                table.setdefault(name, set()).add(code)
    return {name: frozenset(codes) for name, codes in table.items()}


def division_contains(outer: str, inner: str) -> bool:
    """Does division `outer` contain `inner` (6-digit adcodes)? A province ends in 0000, a prefecture in 00;
    any other division contains only itself."""
    if outer.endswith("0000"):
        return inner[:2] == outer[:2]
    if outer.endswith("00"):
        return inner[:4] == outer[:4]
    return inner == outer


def is_province(name: str) -> bool:
    codes = divisions().get(name)
    return bool(codes) and all(code.endswith("0000") for code in codes or ())


@cache
def world_rows() -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The rows of `data/lexicon/world_places.txt`, read once: (its Chinese name, its English names, the
    country a city lies in — '' for a country or a place listed alone)."""
    from tools.lexfiles import LEXICON

    lines = (LEXICON / "world_places.txt").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
    return tuple(
        (row[0], tuple(row[1].split("|")) if len(row) >= 2 else (), row[2] if len(row) >= 3 else "")
        for row in rows
    )


@cache
def countries() -> frozenset[str]:
    """The countries of `data/lexicon/world_places.txt`: its places listed with no country of their own."""
    holders = {country for _, _, country in world_rows() if country}
    return frozenset(name for name, _, _ in world_rows() if name in holders)


# The reader groups of a pet (data/lexicon/readers.txt): whose animal a text keeps
PET_READERS = frozenset({"cats", "dogs", "rabbits", "hamsters", "turtles", "fish", "birds"})


def readers(text: str) -> set[str]:
    """The reader groups `text` is written for or speaks of (kids, elderly, men, women, couple; see
    `data/lexicon/readers.txt`)."""
    return {name for name, (pattern, _, _) in _reader_groups().items() if pattern.search(text)}


def other_readers(text: str, own: Iterable[str]) -> set[str]:
    """The reader groups of `text` that a post for the `own` groups may not borrow from: a group the
    request does not name, unless it is a general one (women's notes for a request naming no reader), and
    never one that clashes with the request's (women's advice in a men's post, a couple's in a family's)."""
    own = set(own)
    groups = _reader_groups()
    return {
        name for name in readers(text) - own if not groups[name][1] or groups[name][2] & own
    }


def advice_domains(text: str) -> set[str]:
    """The advice domains `text` touches (see ADVICE_DOMAINS)."""
    return {name for name, words in ADVICE_DOMAINS.items() if any(w in text for w in words)}
