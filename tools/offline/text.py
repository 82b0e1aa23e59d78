"""Small Chinese text utilities for the offline writer: seeding, keywords, topic and audience extraction."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any, TypeVar

from tools import segmenter
from tools.bilingual import localize
from tools.lexfiles import sections
from tools.offline.lexicon import GENERIC, STOPWORDS, THEMES, Theme
from tools.offline.topic import PERSON_CLAUSE

T = TypeVar("T")

# (a closing quote stays with its sentence: 他说：“好吃。”然后…)
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])(?![”’」』）)])|(?<=[。！？!?；;\n][”’」』）)])")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")
_CONCRETE = re.compile(r"\d|[一二三四五六七八九十两半]+(?:个|元|块|分钟|小时|天|次|步|件|瓶|克|斤|公里|km)")
# after 给/面向…, no reader: the writer (给我, 给自己) or a count of what is asked for (给个, 给一份, 给点)
# (nor whom a thing is done for: 给一岁宝宝断奶的经历)
_NOT_A_READER = (
    r"(?![我你自它]|个(?!子)|点|些|一[份篇个套张些点条]|[^，,。的]{1,8}?(?:断奶|刷牙|理发|洗澡|剪指甲|设置|安装))"
    r"(?![^，,。]{0,4}(?:什么|哪些|哪种|哪个|哪款))"  # (适合种什么花 asks what suits, names no reader)
)
_AUDIENCE = re.compile(
    rf"(?:面向|针对|给|写给|适合){_NOT_A_READER}(?P<who>[^，。,.！!？?\s的做买吃用去拍写画煮送换踩喂洗剪选装修搭]{{2,12}}?)"
    r"(?:的|看|群体|人群|朋友|，|。|$)"
)
# "给第一次去广东的朋友", "写给刚毕业的大学生" — a whole reader phrase at the end of a clause
_AUDIENCE_PHRASE = re.compile(
    rf"(?:^|[，,。；;\s]|(?<=笔记|攻略|帖子|文章|分享))(?:写给|送给|分享给|给|面向|针对|适合){_NOT_A_READER}"
    rf"(?P<who>[^，。,.！!？?\s]{{2,16}}?"
    r"(?:的(?:朋友|人|你|宝妈|姐妹|小伙伴|同学|家长|新手)|朋友|们|党|族|新手|小白|宝妈|爸妈|家长|同学|姐妹|人群|打工人|大学生|学生|游客|人))"
    r"(?=$|[，,。！!？?；;\s]|看|写)"
)
_AUDIENCE_CLAUSE = re.compile(
    rf"^(?:写给|送给|分享给|给|面向|针对|适合){_NOT_A_READER}(?P<who>[^，。,.！!？?\s]{{2,24}}?)"
    r"(?:看|阅读|参考|打打?气|加加?油|鼓鼓?劲|(?:一点|点)(?:鼓励|参考|信心|动力))?$"
)


def rng_for(*parts: Any) -> random.Random:
    """A deterministic RNG seeded by the inputs, so the same prompt always gets the same answer."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pick(rng: random.Random, options: Sequence[T]) -> T:
    return options[rng.randrange(len(options))]


def tokens(text: str) -> list[str]:
    """Meaningful words of `text`: jieba segmentation minus stopwords, punctuation and single characters."""
    return list(_tokens(text))


# what follows a word said as a time: 下班后, 睡前, 午休时, 下雨的时候
_AS_TIME = re.compile(r"后|前|时|以后|之后|之前|以前|的时候")


def only_as_time(word: str, text: str) -> bool:
    """Is `word` said in `text` only as a time (下班后练力量, 出门前涂防晒)? Then it says when, not what the
    text is about: a note on 下班 (after-work side jobs) is none of a post on training after work."""
    ends = [m.end() for m in re.finditer(re.escape(word), text)] if len(word) >= 2 else []
    return bool(ends) and all(_AS_TIME.match(text, end) for end in ends)


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    """Segmenting is the offline model's main cost, and the same notes are read by run after run."""
    words = (w.strip() for w in segmenter.cut(strip_emoji(text)))
    return tuple(
        w
        for w in words
        if len(w) >= 2
        and w not in STOPWORDS
        and w not in _UNITS
        and not re.fullmatch(r"[\W\d_]+", w)
        and not _COUNT.match(w)
    )


# units of measure, no subject of their own (3平米 of a bathroom)
_UNITS = frozenset("平米 平方 平方米 公里 公斤 千克 厘米 毫米 毫升 小时 分钟 千卡".split())  # noqa: SIM905


# A count or an ordinal with its measure word (几道, 三个, 第一双): says how many, not what about.
_COUNT = re.compile(r"^第?[几一二两三四五六七八九十百千\d]+[个道份篇条张种款家样步招件双句点把位只套]$")


@cache
def _compounds() -> tuple[str, ...]:
    """Theme words of three characters or more (快手菜, 一日游, 出租屋): jieba may split them (快/手菜), so
    `keywords` takes them whole from the text, longest first."""
    themes = sections("theme_words.txt").values()
    lexicon = [w for entry in themes for w in entry["triggers"].split()]
    lexicon += [w for entry in sections("generic_tags.txt").values() for w in entry["tags"].split()]
    found = {
        w
        for t in THEMES.values()
        for w in (*t.triggers, *t.tags, *lexicon)
        if len(w) >= 3 and w not in STOPWORDS
    }
    return tuple(sorted(found, key=lambda w: (-len(w), w)))


def keywords(text: str, limit: int = 6, *, extra: Iterable[str] = ()) -> list[str]:
    """Most frequent meaningful words, first-seen order breaking ties (the theme words the text holds whole
    come first); `extra` words weigh in too."""
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}
    whole = [w for w in _compounds() if w in text]
    split = [t for t in tokens(text) if not any(t in w or w in t for w in whole)]
    for position, word in enumerate([*whole, *split, *extra]):
        counts[word] += 1
        order.setdefault(word, position)
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return ranked[:limit]


_KEYCAP = re.compile("([0-9#*])\ufe0f?\u20e3")  # 1️⃣: a digit, the emoji variation selector, the keycap


def strip_emoji(text: str) -> str:
    """`text` without emoji; a keycap number (1️⃣) becomes a plain one (1.)."""
    return _EMOJI.sub("", _KEYCAP.sub(r"\1.", text))


_ENUMERATION = re.compile(r"^(?:\d{1,2}\s*[.、)）:：]|[①-⑩]|[（(]\d{1,2}[)）]|[-·•])\s*")


def sentences(text: str) -> list[str]:
    """Split Chinese prose into sentences, trimmed, without list numbering, dropping fragments."""
    parts = (_ENUMERATION.sub("", s.strip(" \n\t，,")).strip() for s in _SENTENCE_END.split(text))
    return [p for p in parts if len(p) >= 8]


def units(text: str) -> list[str]:
    """Split a note into its sentences and list parts, keeping their numbering (1. / 第一，): a writer
    needs to know which parts its author numbered. A numbered part may be short (4.需要的支持): its list
    says what it is."""
    parts = (s.strip(" \n\t，,") for s in _SENTENCE_END.split(text))
    return [p for p in parts if len(_ENUMERATION.sub("", p)) >= (4 if _ENUMERATION.match(p) else 8)]


def is_concrete(sentence: str) -> bool:
    """Does the sentence carry a number, price, duration or count — something a reader can use?"""
    return bool(_CONCRETE.search(sentence))


_POST_FRAME = re.compile(r"笔记|帖子|文案|清单|攻略|分享|推荐|合集|记录|总结|写(?:一|个|篇|成)")


# An animal as a dish: cooked a way (冷吃兔, 红烧兔, 烤鸭) or a cut of it (兔头, 鸭脖, 鸡爪)
_EATEN = re.compile(
    r"(?:冷吃|鲜锅|跳水|红烧|麻辣|香辣|干锅|干煸|手撕|椒麻|爆炒|清蒸|烤|炖|卤|炒|煎|炸)(?:兔|鸭|鸡|鹅|鱼|羊|猪)"
    r"|(?:兔|鸭|鸡|鹅)(?:头|脖|爪|腿|丁|杂)"
)


# a colour named after a food (奶茶棕染发, 焦糖色毛衣, 燕麦色开衫): no food in it
_FOOD_COLOUR = re.compile(
    r"(?:奶茶|焦糖|燕麦|抹茶|奶油|巧克力|咖啡|牛油果|蜜桃|樱桃|番茄)(?=[棕色灰白绿红粉调])"
)
# Words that hold a one-character trigger without meaning it: 包车 and 包子 are no bags, 面包 is bread
_NOT_A_BAG = re.compile(
    r"包(?:车|子|邮|括|装|场|间|饺子)|(?:面|红|打|汤|肉|菜|豆沙|小笼|书|待产|电竞|流量|礼)包"
    r"|猫眼(?:眼线|妆|线)?|猫步|熊猫|猫耳"  # (…nor a cat of a look or a walk: 猫眼眼线, 猫步)
)


# What the post must not be or say (别写成鸡汤, 不要推荐具体品牌): no sign of its theme
_NOT_THIS = re.compile(
    r"(?:别|不要|不想|避免)(?:写成|写得像|弄成|搞成|像|提|推荐)[^，,。；;！!？?\n]{0,8}"
    # (…nor is writing it up tidying: 把路线整理一下, 整理成一篇 — what is tidied names its own theme)
    r"|整理(?=一下|成|出来?|一份|了一[份篇])"
)
# a stay somewhere counted in days or nights, or a drive there (去屏南住了三天, 开车去松阳)
_STAY = re.compile(
    r"(?:住|待|呆|玩|逛)了?[一二两三四五六七八九十\d]+(?:天|晚|夜|周|个?星期)|(?:开车|自驾|坐高铁|坐动车|飞)去"
)
# An animal kept (养了一年的柯尔鸭, 家里养的守宫): a pet, whatever its kind — the pets theme lists few by name
_KEPT_ANIMAL = re.compile(
    r"养(?:了[^，,。！!？?]{0,6}?的?|的)?[\u4e00-\u9fff]{0,3}?"
    r"(?:鸭|鹅|鸟|龟|鱼|兔|鼠|蛇|蜥|蛙|猫|狗|犬|雀|鹦鹉|八哥|貂|猪|羊|蜘蛛|守宫|刺猬|松鼠|龙猫)(?![肉汤血粉])"
)
# Triggers that name a kind of post more than a thing (攻略 of an A醇 攻略): half a trigger, so a thing wins
_KIND_TRIGGERS = frozenset({"攻略", "打卡"})
_NO_HEADS = _KIND_TRIGGERS | {"暑假", "寒假"}


@cache
def _others_heads(theme: str) -> tuple[str, ...]:
    """The triggers of every other theme that can head a compound: all but the kinds of post (攻略, 打卡)
    and the times of year (幼升小暑假 is still a child's summer)."""
    return tuple(
        w for t in THEMES.values() if t.key != theme for w in t.triggers if w not in _NO_HEADS
    )


def _trigger_weight(text: str, word: str, theme: str) -> float:
    """How much a trigger's occurrences in the text say its theme: half for a kind of post or a time of
    year (攻略, 暑假), and half where another theme's trigger follows it at once — a Chinese compound ends in
    its head, so 通勤妆 is make-up for commuting, 露营穿搭 clothes for a camp (the first word only says what
    for)."""
    weight = 0.5 if word in _NO_HEADS else 1.0
    return sum(
        weight / 2 if text.startswith(_others_heads(theme), found.end()) else weight
        for found in re.finditer(re.escape(word), text)
    )


_ATE_COUNTED = re.compile(r"(?:吃|尝|喝)(?:了|遍了?|过)(?:[一二两三四五六七八九十几\d]+[家碗份顿种样杯])")
# …or a dish made, named by its kind of food (在家做广式萝卜糕, 蒸了一锅红糖发糕), or a taste asked after
# (什么季节的荸荠最甜)
_MADE_DISH = re.compile(
    r"(?:做|蒸|煮|烤|炸|包|煎|炖|卤|熬)(?:了|个|一锅|一盘|一笼)?[\u4e00-\u9fff]{0,4}"
    r"(?:糕|饼|粥|饺子?|包子|糖水|羹|汤圆|丸子)(?![\u4e00-\u9fff]{0,2}(?:模具|机|锅))"
    r"|(?:最|特别|超级?)(?:甜|好吃|香|鲜|嫩|入味)(?![\u4e00-\u9fff]{0,2}(?:的(?:妆|口红|香水)))"
)
_GONE_TO = re.compile(r"(?:去了|到了|逛了|爬了|登了)(?P<p>[\u4e00-\u9fff]{2,6})")


_GETAWAY = re.compile(r"去[\u4e00-\u9fff]{2,4}?(?:避暑|避寒|度假|旅行|旅游)")


def _gone_to(text: str) -> list[str]:
    return [m["p"] for m in _GONE_TO.finditer(text)]


@cache
def _sights() -> frozenset[str]:
    """The sights of the landmark list (data/lexicon/landmarks.tsv: 太阳岛, 拙政园): a place one visits."""
    from tools.entities import landmark_cities

    return frozenset(landmark_cities())


# A child's trigger that a pet's post uses as much (挑食, 喂饭): the child's only when no pet is named
_ALSO_A_PET_S = frozenset({"挑食", "喂饭"})


def kept_animal(text: str) -> bool:
    """Does the text keep an animal (养了一年的柯尔鸭)? Any pet's general advice is of it too."""
    return bool(_KEPT_ANIMAL.search(text))


def detect_theme(text: str) -> Theme:
    """The corpus theme whose trigger words the text mentions most. A tie goes to the theme more of whose
    ordinary words the text uses (通勤时间读书: 通勤 is a fashion trigger, 读书 a career one, and 通勤, 读书
    and 书 are all career words). With no trigger, the theme of most scenes the text names (卧铺火车 is a
    train trip), then of most of its words (运营 is work); the generic theme when none."""
    # (冷吃兔 is a dish, not a pet rabbit; 别写成鸡汤 asks for no soup)
    lowered = _FOOD_COLOUR.sub("", _EATEN.sub("菜", _NOT_THIS.sub("", text.lower())))
    if _of_no_corpus_theme(lowered):  # a phone's 攻略 is a guide to it, no trip (给爸妈设置手机的攻略)
        lowered = re.sub(r"攻略|打卡", "", lowered)
    unbagged = _NOT_A_BAG.sub("", lowered)  # a one-character trigger inside another word (包 of 包车)
    best, best_hits = GENERIC, (0.0, 0)
    # (a pet's picky eating is a pet's: 英短挑食 is no child's)
    pet = kept_animal(lowered) or any(w in lowered for w in theme_by_key("pets").triggers if len(w) > 1)
    for theme in THEMES.values():
        triggers = sum(
            _trigger_weight(lowered if len(word) > 1 else unbagged, word, theme.key)
            for word in theme.triggers
            if not (pet and theme.key == "parenting" and word in _ALSO_A_PET_S)
        )
        if theme.key == "travel":  # a stay of days, a drive there: a trip, whatever it ate (咖啡馆)
            triggers += len(_STAY.findall(lowered))
            # (…and a sight gone to: 坐索道过松花江去了太阳岛 is a trip, whatever it wore — more than a word)
            triggers += 2 * sum(1 for p in _gone_to(lowered) if any(p.startswith(s) for s in _sights()))
            # (…and a going there to get away: 7月去哈尔滨避暑 is a trip, whatever coat its nights want)
            triggers += 2 * len(_GETAWAY.findall(lowered))
        elif theme.key == "pets":
            triggers += len(_KEPT_ANIMAL.findall(lowered))
        elif theme.key == "food":  # (…and what was eaten, counted: 在厦门吃了三家沙茶面 tastes the dish)
            triggers += len(_ATE_COUNTED.findall(lowered)) + len(_MADE_DISH.findall(lowered))
        words = sections("theme_words.txt").get(theme.key, {}).get("words", "").split()
        hits = (triggers, sum(1 for word in words if word in lowered) if triggers else 0)
        if hits > best_hits:
            best, best_hits = theme, hits
    if best is GENERIC and _of_no_corpus_theme(lowered):
        return GENERIC  # a phone, a budget, a car of no corpus theme: not the theme that uses its word (平板)
    if best is GENERIC:  # no trigger: the scenes the text names (卧铺火车, 夜骑), then the themes' words
        from tools.offline.voice import scene_themes

        lowered = _POST_FRAME.sub(" ", lowered)  # 写篇笔记 asks for a post: no study notes
        scenes = Counter(scene_themes(lowered))
        for theme in THEMES.values():
            words = sections("theme_words.txt").get(theme.key, {}).get("words", "").split()
            hits = (scenes[theme.key], sum(1 for word in words if len(word) >= 2 and word in lowered))
            if hits > best_hits:
                best, best_hits = theme, hits
    return best


def _of_no_corpus_theme(lowered: str) -> bool:
    """Does the text name a trigger of a section of theme_words.txt that is no corpus theme (digital, money,
    cars, elders)?"""
    return any(w in lowered for w in _no_corpus_triggers())


@cache
def _no_corpus_triggers() -> tuple[str, ...]:
    extra = (s for key, s in sections("theme_words.txt").items() if key not in THEMES)
    return tuple(w for s in extra for w in s.get("triggers", "").split() if len(w) >= 2)


def theme_by_key(key: str | None) -> Theme:
    return THEMES.get(key or "", GENERIC)


# The label a row of a plan opens on — a weekday, a numbered day or week (周四 …, Day2：…, 第3周：…): the
# writer keeps a week's rows as the request gave them, the critic reads a schedule's rows as whole
DAY_LABEL = r"(?:周[一二三四五六日天]|星期[一二三四五六日天]|[Dd]ay\s*\d+|第[一二三四五六七八九十\d]+[天周])"


# The parts of a post a request may give instructions about (结尾给同龄人一点建议, 标题要短)
POST_PARTS = "结尾|开头|开篇|正文|标题"
_PART_CLAUSE = re.compile(rf"(?:^|(?<=[，,。！!？?；;\n]))\s*(?:{POST_PARTS})[^，,。！!？?；;\n]*")


def extract_audience(text: str) -> str | None:
    """The reader the request names: '…，给第一次去广东的朋友' → '第一次去广东的朋友',
    '面向上班族' → '上班族'.

    English words are read in Chinese first ("for beginners" → 新手)."""
    # (not the readers of a part of the post: 结尾给同龄人一点建议 says what the ending gives)
    text = _PART_CLAUSE.sub("", localize(text))
    clauses = [c.strip() for c in re.split(r"[，,。！!？?；;\n]", text) if c.strip()]
    for position, clause in enumerate(clauses):  # a clause that is only the reader: all of it ("给" opens
        whole = _AUDIENCE_CLAUSE.match(clause)  # a topic too — "给狗狗做蛋糕" — so not in the first clause)
        if whole and len(clauses) > 1 and (position or not clause.startswith("给")):
            return whole.group("who")
    match = _AUDIENCE_PHRASE.search(text)
    if match:
        return match.group("who")
    # (…else the person who asks how, first: 职场妈妈怎么平衡工作和带娃)
    if asker := _ASKER.match(text):
        return asker["who"]
    # (…else a clause of only a person, described: 刚入职一个月的新人，怎么跟领导汇报…)
    described = (m for c in clauses if len(clauses) > 1 and (m := PERSON_CLAUSE.match(c)))
    if person := next(described, None):
        return person["who"]
    match = _AUDIENCE.search(text)
    who = match.group("who") if match else ""
    # (…and the person it qualifies: 给刚入坑的朋友推荐…, 写给刚毕业的大学生的… → 刚毕业的大学生)
    person = _PERSON_AFTER.match(text, match.end("who")) if match else None
    who = f"{who}的{person['p']}" if person and len(who) + len(person["p"]) <= 12 else who
    # (a reader's use of it is not the reader: 学生党 of 适合学生党带的午饭 — but when or where a thing is
    # used names no reader: 适合通勤路上读的小说, 适合晚上看的电影, 适合露营带的零食)
    used = _USED.search(who)
    if used and _A_PERSON.search(who[: used.start()]):
        return who[: used.start()]
    # (适合什么家庭 asks who it suits: the post says, no reader is named)
    asked = re.match(r"什么样?的?|哪些|哪种|哪类|谁", who)
    return who if who and not used and not asked and not _WHEN_OR_WHERE.search(who) else None


_USED = re.compile(r"[读听看玩带穿背戴睡躺吃喝用住]$")  # (…or a pet's: 给猫睡)
_ASKER = re.compile(
    r"^(?P<who>(?:[\u4e00-\u9fff]{1,6}?的)?(?:职场妈妈|全职妈妈|新手妈妈|新手爸妈|宝妈|上班族|打工人|学生党|大学生|职场新人))"
    r"(?=如何|怎么|怎样)"
)
_PERSON_AFTER = re.compile(
    r"的(?P<p>[\u4e00-\u9fff]{0,3}?(?:朋友|姐妹|宝子|同学|新手|小白|大学生|学生|女生|男生|妈妈|爸爸|宝妈|家长|上班族|打工人))"
    r"(?=[的看，,。！!？?\s推写分]|$)"
)
_WHEN_OR_WHERE = re.compile(r"(?:路上|时|时候|期间|晚上|早上|睡前|饭后|[里中上])$")
_A_PERSON = re.compile(r"(?:党|族|人|们|宝宝|孩子|娃|妈妈|爸爸|宝妈|新手|小白|女生|男生|学生|老人|爸妈)$")


def shorten(text: str, limit: int) -> str:
    """Cut to `limit` characters at a natural break when possible."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for mark in "，。；！？、 ":
        pos = cut.rfind(mark)
        if pos >= limit * 0.6:
            return cut[:pos]
    return cut


def dedupe(items: Iterable[T]) -> list[T]:
    seen: set[T] = set()
    out: list[T] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def overlap(a: Iterable[str], b: str) -> int:
    """How many of the words `a` occur in the text `b`."""
    return sum(1 for word in a if word and word in b)
