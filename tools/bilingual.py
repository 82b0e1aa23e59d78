"""English and mixed-language requests, rendered in Chinese offline: "Write a post about hiking in
Hangzhou" → "杭州徒步", so the brief's topic (and the post) is Chinese.

A small word list kept as data (`data/routing/en_zh.tsv`: content nouns, activities, audiences and places
of the ten themes) — no model, no network. `localize` replaces each run of English words in a text:

- the request scaffolding goes ("write a post about", "share my", "just a quick post:", "how to" …), and so
  does how the post is to be written (the list's kind `tone`: "warm tone, not preachy", "keep it short",
  "casual and fun", "with some emoji", "step by step", "chill vibes") and how many ("my 3 favourite …");
  the words before "post about" say how it is written or whom for ("a short beginner-friendly post about
  …" → "…，给新手"), and a later clause that instructs the writer ("…, include what to pack", "…, write a
  heartwarming post about it", "Also mention the rent.") keeps only the reader it names; in a mixed request
  a manner word goes with its degree (想要chill一点的vibe → 想要), but "加点emoji" stays as the wish it is;
- places move to the front, as a Chinese topic puts them ("coffee shops in Shanghai" → 上海咖啡店); the
  country a Chinese post is read in ("… in China", the list's kind `scope`) is said only when nothing else is;
- "for <audience>" (or "aimed at", "as a …"; "for new moms on …", the subject after "on") names the reader
  ("，给新手"), "for <thing>" becomes a modifier ("敏感肌护肤步骤"), and so does "in <a setting>" ("in a
  rental apartment" → 出租屋…, "in a Guangzhou apartment" → 广州公寓…);
- a doing names its object as Chinese says it: "choosing a sleeping bag" → 睡袋选购, "trimming a cat's
  claws at home" → 猫咪在家剪指甲 (the owner first, where before the doing), "making noodles in under 15
  minutes" → 15分钟搞定面条; what is kept some way is said with the way the list says it ("keeping a
  senior dog comfortable" → 老年犬舒适, the list's "keeping comfortable");
- what a doing is done with comes first with 用 ("how I fixed my squeaky door with a bit of soap" →
  用肥皂修好吱吱响的门; a garment worn with another is 搭配), what it is for as the list says it ("gua sha
  for a puffy face" → 消水肿的刮痧), and the first week or month of it after it ("my first week trying gua
  sha" → 刮痧第一周);
- a doing that goes on with "to" or "from" is said whole: "teaching my dog to sit" → 教狗狗坐下, "… to stop
  pulling on the leash" / "stopping my cat from scratching the sofa" → 纠正狗狗暴冲 / 纠正猫咪抓挠沙发,
  "introducing a puppy to my cat" → 小狗和猫咪的磨合, "switching from coffee to tea" → 咖啡换成茶饮;
- whom one does it with comes before the doing: 带孩子徒步, but as equals 和朋友 ("with friends"),
  和领导谈涨薪 ("negotiating a raise with your boss");
- "near <a place>" says it first: 春熙路附近的奶茶店 (a place to go to), 杭州周边徒步 (a thing to do); so does
  "by"/"along"/"next to" water or a named place: 赛里木湖边露营, 海边的咖啡馆;
- what only qualifies the subject goes ("… that isn't greasy", "… your boss will actually read",
  "without a fight"), and so do a later sentence that tells what happened ("… - we kept them apart for a
  week", "…, she was so scared"), how much ("a bit of"), leftover pronouns and a question's "?";
- what it may cost is a term said apart from the subject ("… for under 200 RMB", "on a $100 budget" →
  "…，200元以内"), an age is said as Chinese says it ("a 9-year-old dog" → 9岁狗狗, "3-month-old" → 3个月大),
  where a doing's thing comes from before it ("adopting a cat from a shelter" → 从救助站领养猫咪), "… and our
  first month (together)" after it (…的第一个月), and a list after a colon or "with" item by item
  ("…: wall hooks, a rolling cart" → …：墙面挂钩、小推车);
- a plural or an -ing form finds the list's word ("boxes" → box, "organising" → organizing), and an -ed word
  said by who did it ("how I organized my kitchen", "we potty trained …") the list's doing; an -ed word
  anywhere else may say only a state ("saved recipes") and is read as the list has it;
- a word the list does not know stays in English — honest rather than a guess — except a function word
  ("by", "include", "some", "what": never a word of the topic), an -ing word that only opens the subject
  ("using a rice cooker" → 电饭煲), and, in a mixed request, a word next to the Chinese that already names
  the thing ("Jellycat 玩偶清洗"); an English word said again in Chinese beside it ("resistance band 弹力带")
  is said once.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tools.entities import world_rows

WORDS = Path(__file__).resolve().parent.parent / "data" / "routing" / "en_zh.tsv"
# (…never a number a span has glued to Chinese: "a 3-day trip" is "a 3天 trip" by then)
_RUN = re.compile(
    r"[A-Za-z][A-Za-z0-9'’\-]*(?:[\s,:&/]+(?!\d+(?:天|晚|周|小时|分钟|个|年|岁))[A-Za-z0-9][A-Za-z0-9'’\-]*)*"
)
_SCAFFOLD = re.compile(
    r"^(?:(?:please|pls|hey|hi|just)\s+)?(?:(?:can|could|would)\s+you\s+|help\s+me\s+|i\s+(?:want|need)\s+(?:to\s+)?|"
    r"let'?s\s+)?(?:write|create|make|draft|give\s+me|share|recommend|post|compose|put\s+together|plan)?\s*"
    r"(?:me\s+)?(?:a|an|some|my|the|your|our|a\s+few|few|\d+)?\s*"
    r"(?:(?:short|quick|long|xiaohongshu|rednote|little|nice|blog|social\s+media|casual|fun|friendly|simple|"
    r"detailed|practical|cute|relaxed|lively|warm|gentle|encouraging|honest|sincere|heartfelt|funny|humorous|"
    r"playful|upbeat|engaging|catchy|inspiring|cozy|cosy|chill|thoughtful|helpful|informative|personal|"
    r"reflective|motivational|easy|light|lighthearted|emotional|touching)[\s,]+)*"
    r"(?:(?:post|note|article|caption|thread|piece|content)s?)?\s*"
    r"(?:about|on|of|regarding|with\s+(?:some\s+|a\s+few\s+)?(?:tips|advice|ideas)\s+(?:for|on|about)|[:：])?\s+",
    re.IGNORECASE,
)
_HOW_TO = re.compile(r"^(?:how\s+to|tips\s+(?:for|on)|ideas\s+for)\s+", re.IGNORECASE)
_QUESTION_OPEN = re.compile(
    r"^(?:(?:what|how|why|where|which|when|who)(?:\s+(?:should|do|does|did|can|could|is|are|to|much|many|long|"
    r"time|kind\s+of))*|is|are|can|could|should|do|does|will)(?:\s+(?:i|we|you|my|it|there))?\s+",
    re.IGNORECASE,
)
# "aimed at busy office workers", "geared towards new parents": who it is for, said as "for"
_AIMED = re.compile(
    r"\b(?:aimed|targeted|geared|tailored|written|meant|designed|made)\s+(?:at|towards?|for|to)\b",
    re.IGNORECASE,
)
# Word lists read best as text (noqa: SIM905 below).
_STOP = frozenset(
    # "share my experience adopting …": the subject is what was experienced
    """
    of i me you we it is are be been very really most any best top great good nice please total complete
    absolute real experience experiences things stuff ones way ways kind kinds type types everyone anyone
    help actually just also even ever under within less than about more perfect ultimate honest everything
    all how what need want know when whole better tell
    them him us bit lot lots little something someone somebody anything finally then now again still already
    recently lately too much many own few several often together - – —
    """.split()  # noqa: SIM905
)
# "a bit of soap", "a couple of", "a handful of": how much, which says nothing of the thing
_QUANTITY = re.compile(
    r"\b(?:a\s+)?(?:little\s+)?(?:bit|lot|lots|couple|handful|bunch|pinch|splash|dash|drop|few\s+drops|spoonful)"
    r"\s+of\s+",
    re.IGNORECASE,
)
# a later sentence that tells what happened ("… - we kept them in separate rooms first"): the story, not the
# subject
_NARRATIVE = re.compile(r"^(?:i|we|he|she|they|it)(?:['’](?:m|ve|re|s|d|ll))?\s+\S", re.IGNORECASE)
_STORY = re.compile(
    r"(?:\s+[-–—]+\s+|[.;!?]\s+|,\s+)(?=(?:i|we|he|she|they|it)(?:['’](?:m|ve|re|s|d|ll))?\s+\w)",
    re.IGNORECASE,
)
_ASKED = re.compile(r"\b(?:write|post|note|share|about|how|tips|guide|recommend)\b", re.IGNORECASE)
# a thing told with what the writer did with it, no "that" between ("the bread I baked", "the routine I've
# done"): the thing ends before the pronoun (not "how I lost 10kg", "what we packed")
_RELATIVE = re.compile(
    r"(?<=[a-z])(?<!\bhow)(?<!\bwhat)(?<!\bwhen)(?<!\bwhere)(?<!\bwhy)(?<!\bwhich)(?<!\bthat)(?<!\bbecause)"
    r"(?<!\bafter)(?<!\bbefore)(?<!\bsince)(?<!\bwhile)(?<!\bif)(?<!\band)(?<!\bbut)(?<!\bso)(?<!\bwho)"
    r"\s+(?:that\s+|which\s+)?(?=(?:i|we)(?:['’](?:ve|d))?\s+(?:(?:have|had|just|recently|finally|always)\s+)*"
    r"(?:\w+ed|done|made|tried|been|taken|run|built|bought|worn|read|kept|grown|eaten|found|seen|got|gotten"
    r"|gone|written|drawn|begun|taught|held|do|make|use|eat|wear|run|take|cook|bake|follow)\b)",
    re.IGNORECASE,
)
# "my first week trying gua sha": the time it is the first of is said after the doing (刮痧第一周)
_FRAMES = frozenset("第一周 第一个月 第一天 第一年".split())  # noqa: SIM905
# "teaching my dog to sit" → 教狗狗坐下; "getting a toddler to eat greens" → 让幼儿吃青菜
_TEACH = {
    "teaching": "教", "teach": "教", "taught": "教", "training": "训练", "train": "训练", "trained": "训练",
    "getting": "让", "get": "让", "got": "让",
}  # fmt: skip
_STOPPING = frozenset("stop stopping stopped".split())  # noqa: SIM905
# "keeping a dog warm": the list's "keeping warm" says the state ({}保暖) of the thing kept
_KEEPING = frozenset("keep keeping kept".split())  # noqa: SIM905
_INTRODUCING = frozenset("introducing introduce introduced".split())  # noqa: SIM905
_SWITCHING = frozenset("switching switch switched".split())  # noqa: SIM905
_TRYING = frozenset("trying try tried".split())  # noqa: SIM905
# a verb said bare after "to" ("to sit", "to swim", "to stop …"): what the one taught is to do
_BARE_VERBS = frozenset(
    """
    stop sleep swim sit eat read walk ride use share stay come talk speak play wear love like brush dress tidy
    clean pee poop wait listen behave go enjoy accept drink hold climb cook write draw count tie put fall
    settle calm focus make do get be
    """.split()  # noqa: SIM905
)
# 猫咪, 小狗, 原住猫 …: an animal, whose doings are corrected (纠正) and who gets used to another (磨合)
_ANIMAL = re.compile("[猫狗犬兔鼠鹦龟]")
# what ends the name of a place one goes to (奶茶店, 咖啡馆, 打卡点): "near" it is 附近的
_VENUES = frozenset("店馆厅宿园点场吧街市房所院楼站区路")
# a doing one does another by ("fixing rounded shoulders with daily stretches" → 每日拉伸改善圆肩), said bare;
# a thing it is done with takes 用 (用肥皂修好门)
_MEANS = tuple(
    """
    拉伸 按摩 刮痧 冥想 热敷 冷敷 运动 锻炼 训练 健身 跑步 快走 散步 走路 游泳 饮食 断食 泡脚 呼吸 动作
    """.split()  # noqa: SIM905
)
# "introducing a puppy to the home / the family": where a newcomer settles in
_HOMES = {
    "家居": "融入新家", "新家": "融入新家", "家": "融入新家", "房子": "融入新家",
    "家人": "融入家庭", "一家人": "融入家庭", "亲子": "融入家庭",
}  # fmt: skip
# a doing the list says object first ({}清洁) that reads verb first after 用…, 教…: 用漂白剂清洁瓷砖缝
_VERB_FIRST = frozenset("清洁 深度清洁 整理收纳 整理 除味 布置 改造 翻新 保存 浇水 吸尘 分类".split())  # noqa: SIM905
# said before a noun and saying nothing of the subject: gone before the words are looked up, so the list's
# phrases need none ("first week at a new job" is `first week at new job`)
_DETERMINERS = frozenset("a an the my your our their his her its some this these those".split())  # noqa: SIM905
_PRONOUNS = frozenset("i you we they he she it people".split())  # noqa: SIM905
_MODALS = frozenset(
    """
    will won't wont would wouldn't can can't cannot could couldn't should shouldn't don't doesn't didn't
    isn't aren't wasn't won’t don’t doesn’t isn’t aren’t can’t
    """.split()  # noqa: SIM905
)
# a clause that only qualifies the subject: "… that isn't greasy", "… who won't sleep", "without a fight"
_QUALIFIERS = frozenset(
    "that which who whose where without while because so if unless until since like when".split()  # noqa: SIM905
)
_BEFORE_AFTER = {"before": "前", "after": "后"}  # "after three years" → 三年后, "before a hike" → 徒步前
_BREAKS = frozenset((",", ":", ";"))
_PLACE_PREP = frozenset(("in", "at", "around", "near", "to", "from", "across", "through", "on", "during"))
_SETTING_PREP = frozenset(("in", "at", "on", "during"))  # "in a rental apartment": where it happens
_JOIN = {"and": "和", "&": "和", "or": "或"}
# whom one does a thing with ("hiking with kids" → 带孩子徒步), not what with ("with daily stretches")
_COMPANIONS = frozenset(
    """
    孩子 宝宝 幼儿 娃 狗狗 猫咪 宠物 小狗 小猫 一家人 家人 朋友 爸妈 老人 长辈 闺蜜 对象 情侣
    妈妈 爸爸 老公 老婆 男朋友 女朋友 另一半 室友 同事 儿子 女儿 新生儿 婴儿 领导 上司 老板 队友 邻居 同学
    客户 搭子 伴侣 团队 奶奶 爷爷 公婆
    """.split()  # noqa: SIM905
)
# one does a thing with these as equals (和朋友, 和领导谈涨薪), not takes them along (带孩子)
_PEERS = frozenset(
    """
    朋友 闺蜜 对象 情侣 老公 老婆 男朋友 女朋友 另一半 室友 同事 领导 上司 老板 队友 邻居 同学 客户 搭子 伴侣
    团队
    """.split()  # noqa: SIM905
)
_UNITS = {
    "minute": "分钟", "min": "分钟", "hour": "小时", "hr": "小时", "day": "天", "night": "晚", "week": "周",
    "weekend": "个周末", "month": "个月", "year": "年",
}  # fmt: skip
_NUMBERS = {
    "one": "一", "two": "两", "three": "三", "four": "四", "five": "五", "six": "六", "seven": "七",
    "ten": "十", "half": "半",
}  # fmt: skip
_UNIT = "(minute|min|hour|hr|day|night|weekend|week|month|year)"
_NUMBER_UNIT = re.compile(rf"^(\d+|one|two|three|four|five|six|seven|ten)-?{_UNIT}s?$", re.IGNORECASE)
_COMPLETION_LEAD = frozenset(("in", "within", "under"))
# "a 9-year-old dog" → 9岁狗狗, "a 3-month-old kitten" → 3个月大小猫: an age, not a span of time
_AGE_NUMBERS = {
    **_NUMBERS, "eight": "八", "nine": "九", "eleven": "十一", "twelve": "十二",
}  # fmt: skip
_AGE_UNITS = {"year": "岁", "month": "个月大", "week": "周大", "day": "天大"}
_AGE_NUMBER = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_AGE = re.compile(rf"^{_AGE_NUMBER}-(year|month|week|day)s?-old$", re.IGNORECASE)
# "for under 200 RMB", "on a $50 budget", "under 100 yuan a week": what it may cost, said apart from the
# subject (，200元以内), as a term the post keeps to
_LIMITS = {
    ("under",): True, ("below",): True, ("within",): True, ("less", "than"): True,
    ("no", "more", "than"): True, ("max",): True, ("at", "most"): True, ("up", "to"): True,
    ("around",): False, ("about",): False,
}  # fmt: skip
_AMOUNT = re.compile(
    r"^(?:rmb|usd|cny)?(\d[\d,]*(?:\.\d+)?)(k)?(?:-?(rmb|yuan|元|kuai|cny|usd|dollars?|bucks))?$",
    re.IGNORECASE,
)
_CURRENCY = {
    "rmb": "元", "yuan": "元", "元": "元", "kuai": "元", "cny": "元", "usd": "美元", "dollar": "美元",
    "dollars": "美元", "bucks": "美元",
}  # fmt: skip
_EACH = {"week": "每周", "month": "每月", "day": "每天", "person": "人均", "head": "人均", "night": "每晚"}


@dataclass(frozen=True)
class Lexicon:
    words: dict[str, tuple[str, str]]  # english (lower, may be several words) → (kind, chinese)
    longest: int
    # english → every way its Chinese is said ("grooming" 洗护|美容): the first renders it, any of them
    # beside it in a mixed request says it twice
    glosses: dict[str, tuple[str, ...]] = field(default_factory=dict)


@cache
def _scopes() -> frozenset[str]:
    """The Chinese of the list's kind `scope`: the country a Chinese post is read in (中国)."""
    return frozenset(chinese for kind, chinese in lexicon().words.values() if kind == "scope")


def _key(english: str) -> str:
    return " ".join(w for w in english.strip().lower().split() if w not in _DETERMINERS)


def _span_after_place(text: str) -> str:
    """'3天河内行程' → '河内3天行程': a span of days said before a place of the word list goes after it."""
    return _span_before_place().sub(r"\2\1", text)


@cache
def _span_before_place() -> re.Pattern[str]:
    """A span of days and the word list's place right after it, built once (every English request is read)."""
    names = sorted({zh for kind, zh in lexicon().words.values() if kind == "place"}, key=len, reverse=True)
    return re.compile(rf"(\d+(?:天|晚|日))({'|'.join(map(re.escape, names))})")


@cache
def lexicon() -> Lexicon:
    words: dict[str, tuple[str, str]] = {}
    glosses: dict[str, tuple[str, ...]] = {}
    for line in WORDS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, english, chinese = line.split("\t")
        said = tuple(c.strip() for c in chinese.split("|"))
        words[_key(english)] = (kind.strip(), said[0])
        glosses[_key(english)] = said
    # the places abroad the critic knows, by their English names (Porto → 波尔图), where the list has none
    for place, aliases, _ in world_rows():
        for name in aliases:
            if _key(name) not in words and _key(name) not in _COMMON_WORDS:
                words[_key(name)] = ("place", place)
                glosses[_key(name)] = (place,)
    return Lexicon(words, max(len(k.split()) for k in words), glosses)


# English place names that are more often words of their own (turkey sandwich, Jordan sneakers)
_COMMON_WORDS = frozenset({"turkey", "jordan", "pai", "georgia"})


def _possessive(token: str) -> bool:
    return bool(re.search(r"[a-z](?:['’]s|s['’])$", token, re.IGNORECASE))


def _bare(token: str) -> str:
    """The owner of a possessive: "cat's" → "cat", "kids'" → "kids"."""
    return re.sub(r"(?:['’]s|['’])$", "", token)


def _singulars(phrase: str) -> list[str]:
    """What a plural last word may be in the list as: "sauces" → "sauce", "stretches" → "stretch"."""
    if not phrase.endswith("s") or phrase.endswith("ss"):
        return []
    out = [phrase[:-1]]
    if phrase.endswith("ies"):
        out.append(phrase[:-3] + "y")
    if phrase.endswith("es"):
        out.append(phrase[:-2])
    return out


# -ed words that say a state or a kind rather than a doing ("a used bike", "limited edition"): never read
# as the doing the list has for their stem
_NOT_DONE = frozenset("used limited fried red bed need seed feed speed shed wed bled".split())  # noqa: SIM905


def _verb_forms(word: str) -> list[str]:
    """What an -ed or -ing word may be in the list as, a doing's other forms: "organized" → "organize",
    "organizing"; "stopped" → "stop", "stopping"; "tidied" → "tidy", "tidying"; "decorating" → "decorate"."""
    if word in _NOT_DONE or not word.isalpha():
        return []
    if word.endswith("ied") and len(word) > 4:
        return [word[:-3] + "y", word[:-3] + "ying"]
    if word.endswith("ed") and len(word) > 4:
        stem = word[:-2]
    elif word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
    else:
        return []
    stems = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
        stems.append(stem[:-1])  # "planned" → "plan"
    forms = [*stems, *(s[:-1] + "ing" if s.endswith("e") else s + "ing" for s in stems)]
    return [f for f in dict.fromkeys(forms) if f != word]


def _lookup(tokens: list[str], i: int) -> tuple[int, str, str] | None:
    """The longest phrase of the word list starting at tokens[i]: (length, kind, chinese). A plural last
    word finds its singular ("boxes" → box); an -ed or -ing word that is not in the list finds the doing its
    other form is ("organized my kitchen" → organize, "potty trained" → potty training)."""
    lex = lexicon()
    for size in range(min(lex.longest, len(tokens) - i), 0, -1):
        words = [t.lower() for t in tokens[i : i + size]]
        if any(w in _BREAKS for w in words):
            continue
        words[-1] = _bare(words[-1])
        phrase = " ".join(words)
        found = lex.words.get(phrase)
        for singular in _singulars(phrase) if found is None else []:  # "writes" is no plural of a doing
            if (plural := lex.words.get(singular)) and plural[0] not in ("act", "do"):
                found = found or plural
        if found is None:
            found = _verb_form(words, ("ing",))
        if found:
            return size, found[0], found[1]
    # a Chinese place the list does not know, written in pinyin with a capital (Quanzhou, Jianshui)
    spelt = re.sub(r"[^A-Za-z]", "", tokens[i]).lower()
    place = pinyin_places().get(spelt) if tokens[i][:1].isupper() else None
    return (1, "place", place) if place else None


# Pinyin spellings that are English words too: never read as a place
_ENGLISH_PINYIN = frozenset("yuan dean lean mile guan luan boli huma ruin bin fan long".split())  # noqa: SIM905


@cache
def pinyin_places() -> dict[str, str]:
    """China's prefectures and counties by their pinyin (quanzhou → 泉州): a name several divisions share
    is the provincial capital's or the prefecture's, or nobody's when only counties (or two prefectures)
    share it; the word list's own places come first."""
    from pypinyin import lazy_pinyin

    from tools.entities import divisions

    spelt: dict[str, set[tuple[int, str]]] = {}
    for name, codes in divisions().items():
        if len(name) >= 2 and not re.search(r"(?:[市县区省盟旗]|自治州)$", name):
            # (a provincial capital before another prefecture: Fuzhou is 福州, not 抚州)
            capital = any(code.endswith("0100") for code in codes)
            rank = 2 if capital else int(any(code.endswith("00") for code in codes))
            spelt.setdefault("".join(lazy_pinyin(name)), set()).add((rank, name))
    table = {}
    for key, names in spelt.items():
        top = max(rank for rank, _ in names)
        cities = sorted(name for rank, name in names if rank == top and top > 0)
        known = key in _ENGLISH_PINYIN or key in lexicon().words
        if not known and (len(cities) == 1 or len(names) == 1):
            table[key] = cities[0] if cities else next(iter(names))[1]
    return table


def _verb_form(words: list[str], endings: tuple[str, ...] = ("ing", "ed")) -> tuple[str, str] | None:
    """The list's doing for a phrase whose first or last word is another form (ending in one of `endings`)
    of the one the list has."""
    lex = lexicon()
    places = [0] if len(words) == 1 else [0, len(words) - 1]
    for at in places:
        for form in _verb_forms(words[at]) if words[at].endswith(endings) else []:
            found = lex.words.get(" ".join([*words[:at], form, *words[at + 1 :]]))
            if found and found[0] in ("act", "do"):
                return found
    return None


_TELLERS = frozenset("i we he she they".split())  # noqa: SIM905


def _told_verbs(tokens: list[str], opens: bool) -> list[str]:
    """An -ed word said by who did it ("how I organized my kitchen", "the day we decorated …", "how I potty
    trained my son") in the form of the doing the list has (organize); an -ed word elsewhere may only say
    a state ("saved recipes", "a layered haircut") and is left as it is."""
    out = list(tokens)
    lex = lexicon()
    for p in range(len(out)):
        if not (p == 0 and opens) and (p == 0 or out[p - 1].lower() not in _TELLERS):
            continue
        for q in (p, p + 1):
            words = [t.lower() for t in out[p : q + 1]]
            if q >= len(out) or not words[-1].endswith("ed") or _lookup(out, p):
                continue
            for form in _verb_forms(words[-1]):
                for size in range(lex.longest, 0, -1):  # the doing may go on: "cleaned out" → "clean out"
                    phrase = " ".join([*words[:-1], form, *(t.lower() for t in out[q + 1 : q + size])])
                    if phrase in lex.words and lex.words[phrase][0] in ("act", "do"):
                        out[q] = form
                        break
                if out[q] == form:
                    break
            if out[q] != tokens[q]:
                break
    return out


def _duration(tokens: list[str], i: int) -> tuple[int, str, bool] | None:
    """A span of time at tokens[i]: (tokens taken, Chinese, whether it is the time it is done in) —
    "in under 15 minutes" → 15分钟 (done in), "20-minute" → 20分钟."""
    lasting = tokens[i].lower() == "for"  # "quitting sugar for a month" → 一个月戒糖
    j = i + lasting
    done = False
    while j < len(tokens) and tokens[j].lower() in (*_COMPLETION_LEAD, "less", "than", "just", "about"):
        done = done or tokens[j].lower() in _COMPLETION_LEAD
        j += 1
    if j >= len(tokens):
        return None
    number, unit, size = "", "", 0
    joined = _NUMBER_UNIT.match(tokens[j])
    if joined:
        number, unit, size = joined.group(1), joined.group(2), 1
    elif j + 1 < len(tokens) and re.fullmatch(r"\d+|" + "|".join(_NUMBERS), tokens[j].lower()):
        head = re.fullmatch(rf"{_UNIT}s?", tokens[j + 1].lower())
        if head:
            number, unit, size = tokens[j], head.group(1), 2
    elif done or lasting:  # "in a week", "for a month" (its article already gone)
        head = re.fullmatch(_UNIT, tokens[j].lower())
        if head:
            number, unit, size = "one", head.group(1), 1
    if not size or (j > i + lasting and not done):
        return None
    if j + size < len(tokens) and tokens[j + size].lower() == "old":
        return None  # "a 3 month old kitten": an age
    count = _NUMBERS.get(number.lower(), number)
    return j - i + size, count + _UNITS[unit.lower()], done


def _content(tokens: list[str]) -> bool:
    skip = _STOP | _DETERMINERS | _PRONOUNS | _QUALIFIERS | _MODALS | _BREAKS
    return any(t.lower() not in skip for t in tokens)


def _cut(tokens: list[str]) -> list[str]:
    """Without the clauses that only qualify the subject (to the next comma): "pork belly that isn't greasy",
    "a weekly report your boss will actually read" (the one whose clause it is goes too), "without a
    fight" — unless the list knows the phrase ("without the crowds" → 错峰) or nothing is said before it
    ("you can eat in Chengdu" is the subject)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        low = tokens[i].lower()
        if low in _BREAKS and _NARRATIVE.match(" ".join(tokens[i + 1 : i + 3])) and _content(out):
            break  # "…, we kept them apart for a week": what happened, told after the subject
        if low in _QUALIFIERS or low in _MODALS:
            known = _lookup([t for t in tokens[i:] if t.lower() not in _DETERMINERS], 0)
            kept = list(out)
            if low in _MODALS:  # "your boss will", "you won't": the clause's own subject goes too
                if kept and kept[-1].lower() in _PRONOUNS:
                    kept.pop()
                elif len(kept) >= 2 and kept[-2].lower() in _DETERMINERS | {"you"}:
                    del kept[-2:]
            if not (known and known[0] > 1) and _content(kept):
                out = kept
                while i < len(tokens) and tokens[i] not in _BREAKS:
                    i += 1
                continue
        out.append(tokens[i])
        i += 1
    return out


@dataclass
class _Said:
    """One run of English, read into the parts of a Chinese topic, in the order Chinese says them."""

    places: list[str] = field(default_factory=list)
    spans: list[str] = field(default_factory=list)  # 20分钟 (of a 20-minute workout)
    front: list[str] = field(default_factory=list)  # what the subject is for or where: 平价, 冬季露营, 出租屋
    settings: list[str] = field(default_factory=list)  # said before the doing: 在家, 下班后, 错峰
    done_in: list[str] = field(default_factory=list)  # 15分钟 (in under 15 minutes): 15分钟搞定
    words: list[str] = field(default_factory=list)
    audiences: list[str] = field(default_factory=list)
    doing: int | None = None  # where in `words` the first doing starts
    light: bool = False  # its verb was only "make" or "do": said as 做 after a setting, else not at all
    near: list[str] = field(default_factory=list)  # "near Chunxi Road": 春熙路附近的…
    beside: list[str] = field(default_factory=list)  # "by Sayram Lake": 赛里木湖边…
    after: list[str] = field(default_factory=list)  # "my first week trying …": …第一周
    doing_end: int = -1  # the token after the last doing and its object: "with soap" is what it is done with
    last: tuple[int, str, str] | None = None  # that doing: where in `words`, the list's Chinese, its object
    verb_first: bool = False  # a doing said as a verb and then its thing (教孩子整理玩具, not …玩具整理)
    budget: list[str] = field(default_factory=list)  # what it may cost: 200元以内, said apart from the topic

    def topic(self, *, places: bool = True) -> str:
        words = list(self.words)
        while words and words[-1] in _JOIN.values():
            words.pop()
        # (…but a doing that is itself done says so: 2周克服怕楼梯, not 2周搞定克服…)
        achieved = self.doing is not None and self.doing < len(words) and _ACHIEVED.match(words[self.doing])
        done = [span if achieved else f"{span}搞定" for span in self.done_in]
        front = list(self.front)
        # "a road trip by car": 自驾游 already says 自驾
        settings = [s for s in self.settings if not any(s in w for w in words)]
        if self.doing is not None:
            # 在家做葱油拌面; but 15分钟搞定葱油拌面: a dish made in 15 minutes is made at home
            said = done if self.light and done else [*settings, *done]
            if self.light and settings and not done:
                said.append("做")
            words[self.doing : self.doing] = said
        else:
            front += [*settings, *done]
        # 春熙路附近的奶茶店 (a place to go to), 杭州周边徒步 (a thing to do)
        venue = bool(words) and words[-1][-1:] in _VENUES
        where = "".join(dict.fromkeys(self.near)) if places else ""
        near = [f"{where}{'附近的' if venue else '周边'}"] if where else []
        # 赛里木湖边露营, 海边的咖啡馆: beside the water, as near it
        shore = "".join(dict.fromkeys(self.beside)) if places else ""
        near += [f"{shore}{'的' if venue else ''}"] if shore else []
        # a country-wide scope ("in China") is said only when nothing else is: a Chinese post is read there
        named = self.places if places else []
        rest = [*near, *self.spans, *dict.fromkeys(front), *words]
        scopes = _scopes()
        kept = [p for p in named if p not in scopes] if any(rest) or set(named) - scopes else named
        out = _glue([*_city_first(kept), *rest])
        if self.after:  # 刮痧第一周; 每天早上刮痧消水肿的第一周
            frame = "".join(dict.fromkeys(self.after))
            out += ("的" if len(_HAN.findall(out)) > 4 else "") + frame if out else frame
        return out

    def take(self, other: _Said) -> str:
        """`other`'s places and readers joined to these; the rest of it as one Chinese phrase."""
        self.places += other.places
        self.audiences += other.audiences
        self.near += other.near
        self.beside += other.beside
        self.budget += other.budget
        return other.topic(places=False)


def _object_end(tokens: list[str], i: int) -> int:
    """Where the object of a doing at tokens[i:] ends: at a comma, a preposition, a span of time or a
    phrase of the list that says where or how ("at home"); a phrase of the list across a preposition
    ("first week at a new job") is the object's."""
    j = i
    while j < len(tokens):
        low = tokens[j].lower()
        found = _lookup(tokens, j)
        if low in _BREAKS or _duration(tokens, j):
            break
        if low in _JOIN and (frame := _lookup(tokens, j + 1)) and frame[2] in _FRAMES:
            break  # "adopting a dog and our first month together": the time it is the first of
        # "a rental kitchen": a one-word modifier before a thing of the list is the object's
        before_thing = found and found[:2] == (1, "mod") and (_lookup(tokens, j + 1) or ("", ""))[1] == "word"
        if found and not before_thing and (
            found[1] in ("setting", "mod", "tone") or (found[1] == "act" and low == "for")
        ):
            break  # "for puffy face" (消水肿) is what the doing is for, not its object
        if (low in _PLACE_PREP or low in ("for", "as", "with") or low in _BEFORE_AFTER) and not (
            found and found[0] > 1
        ):
            break
        if low == "used" and j + 1 < len(tokens) and tokens[j + 1].lower() == "to":
            break  # "getting my cat used to the carrier"
        if low == "into" and j > i:
            break  # "transforming my balcony into a reading nook"
        j += found[0] if found else 1
    return j


def _segment_end(tokens: list[str], i: int, stops: frozenset[str] = frozenset()) -> int:
    j = i
    while j < len(tokens) and tokens[j] not in _BREAKS and tokens[j].lower() not in stops:
        j += 1
    return j


def _render(
    tokens: list[str],
    drop_unknown: bool = False,
    top: bool = False,
    asked: bool = False,
    verb_first: bool = False,
) -> _Said:
    """Tokens → a topic's parts in Chinese; unknown words kept as they were written (or dropped). `top`: the
    tokens open the subject (an unknown -ing word there only opens it); `asked`: they follow "how to", so
    an unknown first word is the verb of the question ("how to stop a puppy biting"). Each construction
    is a rule (`_RULES`, tried in order) that takes the tokens from `i` and says where it stopped; a token
    no rule takes is a word of the subject."""
    said = _Said(verb_first=verb_first)
    i = 0
    while i < len(tokens):
        for rule in _RULES:
            end = rule(said, tokens, i, drop_unknown)
            if end is not None:
                i = end
                break
        else:
            i = _word(said, tokens, i, drop_unknown, top, asked)
    return said


def _following(tokens: list[str], i: int) -> str:
    return tokens[i + 1] if i + 1 < len(tokens) else ""


def _break(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    return i + 1 if tokens[i].lower() in _BREAKS else None


def _lasting(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """A duration ("for three days", "three years in")."""
    span = _duration(tokens, i)
    if not span:
        return None
    size, chinese, done = span
    (said.done_in if done else said.spans).append(chinese)
    return i + size


def _age(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"9-year-old", "3 month old", "2 years old": an age (9岁, 3个月大), said where it stands."""
    for size in (1, 2, 3):
        if i + size > len(tokens) or any(t in _BREAKS for t in tokens[i : i + size]):
            return None
        age = _AGE.match("-".join(tokens[i : i + size]))
        if age:
            number, unit = age.group(1).lower(), age.group(2).lower()
            said.words.append(_AGE_NUMBERS.get(number, number) + _AGE_UNITS[unit])
            return i + size
    return None


def _money(tokens: list[str], i: int) -> tuple[int, str, bool] | None:
    """An amount of money at tokens[i]: (tokens taken, Chinese, whether it is what it may cost at most) —
    "under 200 RMB" → 200元以内, "$50 budget" → 50美元以内, "100 yuan a week" → 每周100元."""
    low = [t.lower() for t in tokens]
    j = i
    lead = low[j] if j < len(low) and low[j] in ("for", "on", "with", "at") else ""
    j += bool(lead)
    limit = False
    for words, limiting in _LIMITS.items():
        if tuple(low[j : j + len(words)]) == words:
            j, limit = j + len(words), limiting
            break
    if j < len(low) and low[j] == "budget" and j + 1 < len(low) and low[j + 1] == "of":
        j, limit = j + 2, True  # "on a budget of 300 yuan"
    amount = _AMOUNT.match(low[j]) if j < len(low) else None
    if not amount:
        return None
    number = amount.group(1).replace(",", "")
    if amount.group(2):
        number = str(int(float(number) * 1000))
    currency = amount.group(3) or (low[j].startswith(("rmb", "cny")) and "rmb") or ""
    j += 1
    if not currency and j < len(low) and low[j] in _CURRENCY:
        currency = low[j]
        j += 1
    if j < len(low) and low[j] == "budget":
        j, limit = j + 1, True
    if not currency and not (limit and lead):  # "under 5 kids" is no money; "a 300 budget" is
        return None
    each = ""
    if j + 1 < len(low) and low[j] in ("per", "each", "a") and low[j + 1] in _EACH:
        each, j = _EACH[low[j + 1]], j + 2
    elif j < len(low) and low[j] in _EACH and (j + 1 == len(low) or low[j + 1] in _BREAKS):
        each, j = _EACH[low[j]], j + 1
    said = f"{each}{number}{_CURRENCY.get(currency, '元')}"
    if limit:
        return j - i, f"{said}以内", True
    return j - i, (f"预算{said}" if lead else said), bool(lead)


def _budget(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """What it may cost ("for under 200 RMB", "on a 3000 RMB budget"): a term said apart from the topic;
    an amount that is part of the subject ("saved 10000 yuan") is said where it stands (10000元)."""
    money = _money(tokens, i)
    if not money:
        return None
    size, chinese, term = money
    (said.budget if term else said.words).append(chinese)
    return i + size


def _source(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"adopting a dog from a shelter" → 从救助站领养…: where a doing's thing comes from, said before it."""
    if tokens[i].lower() != "from" or said.doing is None or said.doing_end != i:
        return None
    end = _segment_end(tokens, i + 1, frozenset(("for", "with", "as", "and", "or", "to", *_SETTING_PREP)))
    rest = _render(tokens[i + 1 : end], drop)
    where = rest.topic(places=False)
    if not where or rest.places or rest.audiences or re.search(r"[A-Za-z]", where):
        return None
    said.settings.append(f"从{where}")
    return end


def _known(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """A word or phrase the lexicon knows: a doing, a frame ("first week trying …"), a place, a reader, a
    setting, a modifier or a word of the subject."""
    found = _lookup(tokens, i)
    if not found or (found[0] == 1 and tokens[i].lower() in ("for", "with", "as")):
        return None
    size, kind, chinese = found
    if kind in ("act", "do"):
        said.doing_end = _doing(said, tokens, i, size, kind, chinese, drop)
        return said.doing_end
    if chinese in _FRAMES | {"第一次"} and _opens_doing(tokens, i + size):
        # "first week trying gua sha" → 刮痧第一周; "first time trying surfing" → 第一次冲浪
        (said.after if chinese in _FRAMES else said.settings).append(chinese)
        return i + size + (tokens[i + size].lower() == "of")
    joined = said.doing is not None and said.words[-1:] == ["和"]
    if chinese in _FRAMES and joined and _ends(tokens, i + size):
        # "adopting a dog and our first month (together)" → 领养狗狗的第一个月
        said.words.pop()
        said.after.append(chinese)
        return i + size + (_following(tokens, i + size - 1).lower() == "together")
    parts = {"place": said.places, "scope": said.places, "audience": said.audiences, "setting": said.settings}
    parts.get(kind, said.front if kind == "mod" else said.words).append(chinese)
    return i + size


def _city_first(places: list[str]) -> list[str]:
    """The places, a city before a landmark of it ("Wukang Road in Shanghai" → 上海武康路)."""
    from tools.entities import landmark_cities

    cities = landmark_cities()
    return sorted(places, key=lambda p: any(cities.get(p) == q for q in places))


def _ends(tokens: list[str], i: int) -> bool:
    """Does the part end at tokens[i] (perhaps after "together")?"""
    i += i < len(tokens) and tokens[i].lower() == "together"
    return i >= len(tokens) or tokens[i] in _BREAKS


def _for_as(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"for beginners" names the reader; "for sensitive skin" qualifies the topic."""
    low = tokens[i].lower()
    if low not in ("for", "as"):
        return None
    end = _segment_end(tokens, i + 1, frozenset(("with", "as")))
    on = next((k for k in range(i + 2, end) if tokens[k].lower() in ("on", "about", "regarding")), end)
    if low == "for" and on < end and (_lookup(tokens, on) or ("", ""))[1] not in ("setting", "mod"):
        who = _render(tokens[i + 1 : on], drop)
        if who.audiences and not who.topic(places=False):  # "for new moms on …": the reader, then the subject
            said.audiences += who.audiences
            return on + 1
    rest = _render(tokens[i + 1 : end], drop)
    said.near += rest.near
    said.beside += rest.beside
    if low == "for" and rest.audiences and not rest.topic(places=False):
        said.places += rest.places
        said.audiences += rest.audiences
    else:  # "for winter camping" → 冬季露营…; "as a beginner", "as a remote worker": whose it is
        said.places += rest.places
        if modifier := _glue([*rest.audiences, rest.topic(places=False)]):
            said.front.append(modifier)
    return end


def _near(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"near Chunxi Road" → 春熙路附近的…"""
    if tokens[i].lower() != "near" or _following(tokens, i) in ("", *_BREAKS):
        return None
    end = _segment_end(tokens, i + 1, frozenset(("for", "with", "as", *_SETTING_PREP)))
    rest = _render(tokens[i + 1 : end], drop)
    said.audiences += rest.audiences
    if where := _glue([*rest.places, *dict.fromkeys(rest.near), rest.topic(places=False)]):
        said.near.append(where)
    return end


# water, shores and what stands by them: "by Sayram Lake", "by the river", "along the coast" say where
_SHORES = re.compile("(?:[湖河江海溪潭泉池岸滩湾边畔]|窗户?)$")
_BESIDE = frozenset("by beside along alongside".split())  # noqa: SIM905


def _alongside(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"camping by Sayram Lake" → 赛里木湖边露营, "a cafe by the sea" → 海边的咖啡馆: beside water (or a named
    place) is said first, as near it is; "by" before anything else is no place ("by bike" is the list's).
    Near water is beside it too ("a picnic near the lake" → 湖边野餐); near a named place is `_near`'s."""
    low = tokens[i].lower()
    start = i + 2 if low == "next" and _following(tokens, i).lower() == "to" else i + 1
    if (low not in _BESIDE | {"near"} and start == i + 1) or start >= len(tokens) or tokens[start] in _BREAKS:
        return None
    end = _segment_end(tokens, start, frozenset(("for", "with", "as", *_PLACE_PREP)))
    rest = _render(tokens[start:end], drop)
    thing = rest.topic(places=False)
    where = _glue([*rest.places, thing])
    named = all(t[:1].isupper() and not _lookup(tokens, k) for k, t in enumerate(tokens[start:end], start))
    if not where or rest.audiences or not (_SHORES.search(where) or (rest.places and not thing) or named):
        return None
    if low == "near" and (rest.places or named):
        return None
    said.beside.append(where if re.search("[边畔岸]$", where) else f"{where}边")
    return end


def _means(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"fixed a door with soap" → 用肥皂修好门: the means of the doing just said."""
    if tokens[i].lower() not in ("with", "using") or said.doing_end != i:
        return None
    end = _segment_end(tokens, i + 1, frozenset(("for", "as")))
    end, listed = _list_end(tokens, end)
    rest = _render(tokens[i + 1 : end], drop)
    taken = _items(tokens[i + 1 : end], _Said(), drop) if listed else rest.topic(places=False)
    if not taken or rest.audiences or _COMPANIONS & set(rest.words) or taken.endswith(_MEANS):
        return None
    said.places += rest.places
    said.near += rest.near
    said.beside += rest.beside
    at, template, what = said.last or (0, "", "")
    if template.endswith("穿搭") and what:  # "styling jeans with sneakers" → 牛仔裤搭配运动鞋
        said.words[at] = f"{what}搭配{taken}"
    else:
        said.settings.append(f"用{taken}")
        if template[2:] in _VERB_FIRST and what:
            said.words[at] = template[2:] + what
    return end


def _list_end(tokens: list[str], end: int) -> tuple[int, bool]:
    """Where a list of things that goes on past a comma ends ("with hooks, baskets and a caddy"): the end of
    its last item (and whether there was more than one), if each further item is a short run of words the
    list knows as things and the last is joined by "and"/"or" or ends the run."""
    j, listed = end, False
    while j < len(tokens) and tokens[j] == ",":
        stop = _segment_end(tokens, j + 1)
        item = tokens[j + 1 : stop]
        known = [_lookup(item, k) for k in range(len(item))]
        if not item or len(item) > 5 or any(f and f[1] not in ("word", "mod") for f in known):
            break
        if not any(known) or _NARRATIVE.match(" ".join(item[:2])):
            break
        joined = any(t.lower() in ("and", "or") for t in item)
        if not joined and stop < len(tokens) and not (stop + 1 < len(tokens) and tokens[stop] == ","):
            break
        j, listed = stop, True
        if joined:
            break
    return (j, True) if listed else (end, False)


def _with(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"with …": the reader ("people with oily skin"), a companion ("hiking with kids"), or how."""
    if tokens[i].lower() != "with":
        return None
    # "with grandparents in winter": 冬季带老人; "with my boyfriend for the first time": 第一次和男朋友
    end = _segment_end(tokens, i + 1, frozenset((*_SETTING_PREP, "for")))
    # (how many of them is said as a count: "with two friends" → 和两个朋友)
    counted = i + 1 < end and tokens[i + 1].lower() in _NUMBERS
    count = _NUMBERS[tokens[i + 1].lower()] + "个" if counted else ""
    rest = _render(tokens[i + 1 + counted : end], drop)
    said.places += rest.places
    said.near += rest.near
    said.beside += rest.beside
    taken = _glue([*rest.audiences, rest.topic(places=False)])
    taken = count + taken if taken else ""
    if said.words and said.words[-1] == "人":  # "people with oily skin": the reader, not a companion
        said.words.pop()
        said.audiences.append(f"{taken}人群" if taken else "")
    elif taken and set(rest.words + rest.audiences) & _COMPANIONS:
        # hiking with kids: 带孩子徒步, before the doing; with friends, as equals: 和朋友
        said.settings.append(f"{'和' if set(rest.words + rest.audiences) <= _PEERS else '带'}{taken}")
    elif taken:
        said.front.append(taken)  # "with daily stretches": 每日拉伸改善圆肩
    return end


def _before_after(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"after three years" → 三年后; with nothing known after it, nothing."""
    low = tokens[i].lower()
    if low not in _BEFORE_AFTER:
        return None
    end = _segment_end(tokens, i + 1, frozenset(("for", "with", "as")))
    when = said.take(_render(tokens[i + 1 : end], drop_unknown=True))
    if when:
        said.settings.append(when + _BEFORE_AFTER[low])
    return end


def _english_place(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"in Perth", "near Peking University": a place the lexicon does not know, in English."""
    following = _following(tokens, i)
    if tokens[i].lower() not in _PLACE_PREP or not following[:1].isupper() or _lookup(tokens, i + 1):
        return None
    end = i + 2
    while end < len(tokens) and tokens[end][:1].isupper() and not _lookup(tokens, end):
        end += 1
    said.places.append(" ".join(tokens[i + 1 : end]))
    return end


def _setting(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """"in a rental apartment", "in summer": where or when, said before the subject."""
    following = _following(tokens, i)
    if tokens[i].lower() not in _SETTING_PREP or following in ("", *_BREAKS):
        return None
    ahead = _lookup(tokens, i + 1)
    end = _segment_end(tokens, i + 1, frozenset((*_SETTING_PREP, "for", "with", "as")))
    # "in Hangzhou", "in China" (a place, said as one); but "in a Guangzhou flat" (a setting)
    if ahead and ahead[1] in ("place", "scope") and i + 1 + ahead[0] >= end:
        return None
    said.front.append(said.take(_render(tokens[i + 1 : end], drop)))
    return end


def _function_word(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """Words that carry no topic (the, can, really …), and "and"/"or" between words of it."""
    low = tokens[i].lower()
    if low in _STOP or low in _PLACE_PREP or low in _DETERMINERS or low in _MODALS or low in _QUALIFIERS:
        return i + 1
    if re.fullmatch(r"\d{1,2}", low) and _following(tokens, i) not in ("", *_BREAKS):
        return i + 1  # "my 3 favourite …": how many, which Chinese counts with a measure word
    if low in _JOIN:
        if said.words:
            said.words.append(_JOIN[low])
        return i + 1
    return None


# how the post is to be written, not what it is about ("warm tone, not preachy", "keep it short", "casual and
# fun"): the list's kind `tone`, with what leads to it ("not too", "in a") and follows it ("tone", "voice")
_MANNER_LEAD = frozenset(
    "not no never too very so overly super quite less more and but yet or in with".split()  # noqa: SIM905
)
_MANNER_TAIL = frozenset("tone voice vibe vibes feel please pls".split())  # noqa: SIM905
_MANNER_JOIN = frozenset("and but yet or".split())  # noqa: SIM905


def _manner_end(tokens: list[str], i: int) -> int | None:
    """Where a word of manner at tokens[i] ends: a `tone` word of the list, whatever follows "keep it" or
    "make it" ("keep it short"), or a word before "tone" ("warm tone") — else None."""
    j = i
    whole = _lookup(tokens, i)  # "no brand ads", "no hashtags": the list's phrase, its lead and all
    if whole and whole[1] == "tone" and whole[0] > 1:
        end = i + whole[0]
        while end < len(tokens) and tokens[end].lower() in _MANNER_TAIL:
            end += 1
        return end
    while j < len(tokens) and tokens[j].lower() in _MANNER_LEAD:
        j += 1
    kept = j + 2 < len(tokens) and tokens[j].lower() in ("keep", "make") and tokens[j + 1].lower() == "it"
    j += 2 * kept
    if j >= len(tokens) or tokens[j] in _BREAKS:
        return None
    found = _lookup(tokens, j)
    size = found[0] if found else 1
    if (found and found[1] == "tone") or kept:
        end = j + size
    elif j + 1 < len(tokens) and tokens[j + 1].lower() in ("tone", "voice") and size == 1:
        end = j + 1
    else:
        return None
    while end < len(tokens) and tokens[end].lower() in _MANNER_TAIL:
        end += 1
    return end


def _manner(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """How to write it ("warm tone, not preachy", "keep it short"), said as nothing; so is a word joined to
    it where the part ends ("gentle and warm", "warm and relatable")."""

    def closes(k: int) -> bool:  # the part ends there, or the subject follows ("… voice about …")
        return k >= len(tokens) or tokens[k] in _BREAKS or tokens[k].lower() in ("about", "on")

    end = _manner_end(tokens, i)
    if end is None:
        found = _lookup(tokens, i)
        if (found and found[0] > 1) or _following(tokens, i).lower() not in _MANNER_JOIN:
            return None
        end = _manner_end(tokens, i + 2)
        if end is None or not closes(end):
            return None
    while end + 1 < len(tokens) and tokens[end].lower() in _MANNER_JOIN:
        more = _manner_end(tokens, end + 1)
        if more is None and closes(end + 2) and (_lookup(tokens, end + 1) or (1,))[0] == 1:
            more = end + 2  # "gentle and warm"
        if more is None:
            break
        end = more
    return end


# a later clause that tells the writer what to put in ("…, include what to pack", "…, write a heartwarming
# post about it", "Also mention the price"): an instruction, not the subject; only the reader it names stays
_INSTRUCTING = frozenset(
    """
    include includes including add mention mentioning cover covering list share tell explain give write
    remember
    """.split()  # noqa: SIM905
)
_INSTRUCTION_LEAD = frozenset("also and plus please pls then maybe".split())  # noqa: SIM905
_REMINDING = frozenset(("make sure", "be sure", "don't forget", "don’t forget", "do not", "remember to"))
_ASKING_WORDS = frozenset("what how which why where when".split())  # noqa: SIM905


def _instruction_at(tokens: list[str], i: int) -> int | None:
    """Where the instruction of a clause at tokens[i] is ("also include …", "make sure to …"), else None."""
    j = i
    while j < len(tokens) and tokens[j].lower() in _INSTRUCTION_LEAD:
        j += 1
    if " ".join(t.lower() for t in tokens[j : j + 2]) in _REMINDING:
        return j
    return j if j < len(tokens) and tokens[j].lower() in _INSTRUCTING else None


def _instruction(said: _Said, tokens: list[str], i: int, drop: bool) -> int | None:
    """An instruction after a break ("…, include what to pack, what to wear"): said as nothing, to its end
    and the questions that go on from it; the reader or the budget it names are kept ("add tips for
    beginners" → ，给新手)."""
    if i == 0 or tokens[i - 1] not in _BREAKS or _instruction_at(tokens, i) is None:
        return None
    end = _segment_end(tokens, i + 1)
    while end + 1 < len(tokens) and tokens[end] in _BREAKS and tokens[end + 1].lower() in _ASKING_WORDS:
        end = _segment_end(tokens, end + 2)
    rest = _render(tokens[i + 1 : end], drop_unknown=True)
    said.audiences += rest.audiences
    said.budget += rest.budget
    return end


_RULES = (
    _break, _age, _budget, _lasting, _manner, _instruction, _known, _for_as, _alongside, _near, _means, _with,
    _source, _before_after, _english_place, _setting, _function_word,
)


# English words that name nothing: never kept as a word of the topic (a tag of "by" or "include" says
# nothing), whether or not a rule read the phrase around them
_FUNCTION_WORDS = frozenset(
    """
    by with without to for from into onto of off per via than as at in on about over under up down out
    along beside besides between among across through toward towards upon within around near
    and or but nor so yet if then also plus do does did doing done be being been am was were has have had
    having get gets got include includes including add adds adding mention mentions mentioning write writes
    step please pls thanks what which how why where when who whom whose some any each every this that
    these those such only just
    """.split()  # noqa: SIM905
)


def _word(said: _Said, tokens: list[str], i: int, drop: bool, top: bool, asked: bool) -> int:
    """A word no rule knows: kept as written — unless it is dropped, a function word (by, include, some),
    or an -ing word (or the verb after "how to") that only opens a subject a known word names ("using a rice
    cooker")."""
    token = tokens[i]
    low = token.lower()
    if low in _FUNCTION_WORDS:
        return i + 1
    opening = top and not (said.words or said.front)
    known_later = opening and any(_lookup(tokens, k) for k in range(i + 1, len(tokens)))
    verb = (low.endswith("ing") and len(low) > 4) or (asked and i == 0 and low.isalpha())
    if not (drop or (verb and known_later)):
        said.words.append(_bare(token) if _possessive(token) else token)
    return i + 1


def _opens_doing(tokens: list[str], i: int) -> bool:
    """Does a doing start at tokens[i] (or after "of": "first week of potty training"), or a thing of the
    list after "of" the time is the first of ("first month of paternity leave" → 陪产假第一个月)?"""
    of = i < len(tokens) and tokens[i].lower() == "of"
    i += of
    if i >= len(tokens):
        return False
    found = _lookup(tokens, i)
    low = tokens[i].lower()
    kinds = ("act", "do", "word") if of else ("act", "do")
    return bool(found and found[1] in kinds) or (low.endswith("ing") and len(low) > 4 and not found)


def _animate(chinese: str) -> bool:
    """An animal or a person (狗狗, 原住猫, 孩子): one whose habits are corrected, not a thing."""
    return bool(_ANIMAL.search(chinese)) or any(chinese.startswith(c) for c in _COMPANIONS)


def _pair(verb: str, taken: list[str]) -> str | None:
    """The list's Chinese for a doing together with its thing ("trimming claws" → 剪指甲)."""
    if not taken:
        return None
    phrase = f"{verb} {' '.join(_bare(t).lower() for t in taken if t.lower() not in _STOP)}"
    for key in (phrase, *_singulars(phrase)):
        if key in lexicon().words:
            return lexicon().words[key][1]
    return None


def _doing(said: _Said, tokens: list[str], i: int, size: int, kind: str, chinese: str, drop: bool) -> int:
    """A doing and its object, as Chinese says them: "trimming a nervous cat's claws" → 胆小的猫咪剪指甲 (the
    owner first, then the doing to the thing — the list's pair "trimming claws" if it has it), "choosing a
    sleeping bag" → 睡袋选购 (`{}选购`), "making noodles" → 面条 (a light verb). Returns where it ends."""
    end = _object_end(tokens, i + size)
    taken = tokens[i + size : end]
    owner_at = max((k for k, t in enumerate(taken) if _possessive(t)), default=-1)
    owner = ""
    if 0 <= owner_at < len(taken) - 1:
        owner = said.take(_render([*taken[:owner_at], _bare(taken[owner_at])], drop))
        taken = taken[owner_at + 1 :]
    verb = " ".join(t.lower() for t in tokens[i : i + size])
    # "keeping a senior dog comfortable (through the winter)" → 老年犬舒适(过冬): the state it is kept in
    words = lexicon().words
    states = [(k, words.get(f"{verb} {t.lower()}")) for k, t in enumerate(taken) if verb in _KEEPING]
    kept = next(((k, found[1]) for k, found in states if k and found and found[0] == "act"), None)
    if kept:
        end, taken, chinese = i + size + kept[0] + 1, taken[: kept[0]], kept[1]
    thing = _render(taken, drop)
    if thing.words or thing.doing is not None:
        what = said.take(_Said(**{**thing.__dict__, "spans": [], "front": [], "done_in": []}))
    else:  # "visiting the Forbidden City", "teaching kids": the place or the people are what it is done to
        what = "".join(thing.places) or "".join(thing.audiences)
    said.spans += thing.spans
    said.front += thing.front
    said.done_in += thing.done_in
    if owner:
        said.words.append(owner)
    pair = _pair(verb, taken)
    if verb in _TRYING and (said.after or "第一次" in said.settings):
        chinese = "{}"  # 刮痧第一周, 第一次冲浪: the first week or time already says it is tried
    told = _told(said, tokens, end, verb, what, pair or ("" if verb in _INTRODUCING else chinese), drop)
    if told:
        end, phrase = told
    elif verb in _STOPPING and _animate(what):
        phrase = f"纠正{what}"  # "stop a puppy biting" → 纠正小狗咬人
    elif verb.startswith("for ") and said.doing is None and said.words and not what:
        said.words.insert(0, f"{chinese}的")  # "gua sha for puffy face" → 消水肿的刮痧
        return end
    elif kind == "do" and what in _COMPANIONS:
        phrase = f"带{what}"  # "taking a baby on a flight": 带宝宝
    elif kind == "do":
        phrase = what or chinese.strip("-")
    elif pair:
        phrase = pair
    elif said.verb_first and chinese[2:] in _VERB_FIRST and what:
        phrase = chinese[2:] + what
    elif "{}" in chinese:
        phrase = chinese.replace("{}", what)
    else:
        phrase = chinese + what
    if phrase:
        if said.doing is None:
            said.doing = len(said.words)
            said.light = kind == "do" and bool(what)
        said.last = (len(said.words), chinese, what)
        said.words.append(phrase)
    return end


def _told(
    said: _Said, tokens: list[str], end: int, verb: str, what: str, pair: str | None, drop: bool
) -> tuple[int, str] | None:
    """A doing that goes on after its object with "to" or "from": "teaching my dog to sit" → 教狗狗坐下,
    "… to stop pulling on the leash" → 纠正狗狗暴冲, "introducing a second cat to my resident cat" →
    第二只猫和原住猫的磨合, "stopping my cat from scratching the sofa" → 纠正猫咪抓挠沙发.
    Returns where it ends and the phrase."""
    follow = tokens[end].lower() if end < len(tokens) else ""
    if follow == "used" and end + 1 < len(tokens) and tokens[end + 1].lower() == "to":
        follow, end = "used to", end + 1  # "getting my cat used to the carrier" → 让猫咪适应航空箱
    introducing = verb.split()[0] in _INTRODUCING
    stop = _segment_end(tokens, end + 1, frozenset(("for", "with", "as")))
    rest = tokens[end + 1 : stop]
    if verb in _SWITCHING and follow == "from" and "to" in (low := [t.lower() for t in rest]):
        k = low.index("to")  # "switching from coffee to green tea" → 咖啡换成绿茶
        old, new = said.take(_render(rest[:k], drop)), said.take(_render(rest[k + 1 :], drop))
        return (stop, f"{old}换成{new}") if old and new else None
    if follow == "into" and what and rest and "改造" in (pair or ""):
        made = said.take(_render(rest, drop))  # "transforming my balcony into a reading nook"
        return (stop, f"{what}改造成{made}") if made else None
    if not (what or (introducing and pair)) or follow not in ("to", "from", "used to") or not rest:
        return None
    first = rest[0].lower()
    found = _lookup(rest, 0)
    if follow == "used to" and verb in _TEACH:
        return stop, f"让{what}适应{said.take(_render(rest, drop))}"
    if follow == "to" and verb == "use":  # "use a rice cooker to make cake" → 用电饭煲做蛋糕
        made = said.take(_render(rest, drop, verb_first=True))
        return stop, f"用{what}{'做' if first in ('make', 'cook', 'bake') else ''}{made}"
    if follow == "to" and verb in _TEACH and (first in _BARE_VERBS or (found and found[1] in ("act", "do"))):
        if first in _STOPPING:  # "to stop pulling on the leash": the habit, corrected
            return stop, f"纠正{what}{said.take(_render(rest[1:], drop, verb_first=True))}"
        return stop, f"{_TEACH[verb]}{what}{said.take(_render(rest, drop, verb_first=True))}"
    if follow == "from" and verb in _STOPPING:
        habit = said.take(_render(rest, drop))
        return stop, f"{'纠正' if _animate(what) else '防止'}{what}{habit}"
    if follow == "to" and introducing:
        other = said.take(_render(rest, drop))
        if not other:
            return None
        if pair:  # "introducing solids to my baby" → 宝宝添加辅食
            return stop, f"{other}{pair}"
        if other in _HOMES:  # "introducing a second cat to the home" → 第二只猫融入新家
            return stop, f"{what}{_HOMES[other]}"
        if _animate(what) and _animate(other):
            if _ANIMAL.search(what + other):  # two animals, or an animal and a person: used to each other
                return stop, f"{what}和{other}的磨合"
            return stop, f"带{what}见{other}"  # "introducing my boyfriend to my parents" → 带男朋友见爸妈
        if _animate(what) != _animate(other):  # "introducing my kids to hiking" → 带孩子入门徒步
            who, thing = (what, other) if _animate(what) else (other, what)
            return stop, f"带{who}{'认识' if _ANIMAL.search(who) else '入门'}{thing}"
        return stop, f"{what}和{other}"
    return None


def _glue(parts: list[str]) -> str:
    """Chinese words run together; two English words keep a space between them."""
    out = ""
    for part in parts:
        if out and out[-1].isascii() and out[-1].isalnum() and part[:1].isascii() and part[:1].isalnum():
            out += " "
        out += part
    return out


def _tokens(text: str) -> list[str]:
    return re.findall(r"[,:;]|[^\s,:;/]+", text)


# "a short beginner-friendly post about …", "a heartwarming Xiaohongshu note on …": the words before "post"
# say how it is written (tone, length) or whom for (an audience) — never its subject
_HOW_POST = re.compile(
    r"^(?P<how>(?:[A-Za-z][\w'’-]*[\s,]+){1,4}?)(?:(?:xiaohongshu|rednote|blog|social\s+media)\s+)?"
    r"(?:post|note|article|caption|piece|thread|write-?up)s?\s+(?:about|on|regarding)\s+",
    re.IGNORECASE,
)
_ACHIEVED = re.compile(r"克服|学会|戒掉|改掉|适应|养成|练会|搞定")
_AIMED_FIRST = re.compile(r"^for\s+(?P<who>[^:：,]{2,60}?)\s*[:：]\s*(?P<what>.+)$", re.IGNORECASE)
_LENGTHS = frozenset("short long quick brief little detailed in-depth mini new simple".split())  # noqa: SIM905


def _post_readers(text: str) -> tuple[str, list[str]]:
    """`text` without how the post is to be written before "post about" (see `_HOW_POST`), and the readers
    those words named ("beginner-friendly" → 新手); `text` as it was if they say anything else."""
    how = _HOW_POST.match(text)
    if not how:
        return text, []
    tokens = [t for t in _tokens(how.group("how")) if t not in _BREAKS]
    for k, token in enumerate(tokens):
        found = _lookup(tokens, k)
        if token.lower() not in _LENGTHS | _DETERMINERS and found and found[1] not in ("tone", "audience"):
            return text, []  # "a Chengdu food post about …": what the post is of
    return text[how.end() :], _render(tokens, drop_unknown=True).audiences


def render_english(run: str, *, drop_unknown: bool = False, later: bool = False) -> str:
    """One run of English words in Chinese, e.g. "Write a post about hiking in Hangzhou" → "杭州徒步";
    `drop_unknown` leaves out the words the list does not know; `later`: the run follows other words of the
    request (a later sentence, or English after Chinese), so an instruction opening it ("Include …") is
    one."""
    text = _SCAFFOLD.sub("", _QUANTITY.sub("", run.strip()) + " ", count=1).strip()
    if not text:  # the run was only the ask ("Write a" before a Chinese or numeric part): nothing to keep
        return ""
    text, readers = _post_readers(text)
    # "for first-time dog owners: how our greyhound …": the reader named first, the subject after the colon
    if (aimed := _AIMED_FIRST.match(text)) and _content(_tokens(aimed["what"])):
        text = f"{aimed['what']} for {aimed['who']}"
    how = _HOW_TO.sub("", text + " ", count=1).strip() or text
    asked = _QUESTION_OPEN.sub("", how.rstrip("?？ ") + " ", count=1).strip()
    if asked != how.rstrip("?？ ") and re.match(r"with\s", asked, re.IGNORECASE):
        asked = "dealing " + asked  # "what to do with a picky eater": how to deal with it
    how_to = how != text and text.lower().startswith("how")
    tokens = _cut(_tokens(_AIMED.sub("for", asked or how)))
    tokens = _told_verbs([t for t in tokens if t.lower() not in _DETERMINERS], asked != how.rstrip("?？ "))
    if later and _instruction_at(tokens, 0) is not None:  # "Include a packing list.": as after a comma
        tokens = [",", *tokens]
    listed = _listed(tokens)
    said = _render(tokens[:listed], drop_unknown, top=True, asked=how_to)
    said.audiences += readers
    topic = said.topic()
    asks = listed + 1 < len(tokens) and tokens[listed + 1].lower() in ("what", "how", "why", "which")
    if listed < len(tokens) and not asks:  # "…: wall hooks, a rolling cart, stackable boxes" → …：墙面挂钩、…
        items = _items(tokens[listed + 1 :], said, drop_unknown)
        topic = f"{topic}：{items}" if topic and items else topic or items
    budget = "、".join(dict.fromkeys(said.budget))
    if budget:  # what it may cost: a term of the post, not its subject
        topic = f"{topic}，{budget}" if topic else budget
    audiences = [a for a in dict.fromkeys(said.audiences) if a]
    if audiences:
        return f"{topic}，给{'、'.join(audiences)}" if topic else "、".join(audiences)
    return topic


def _listed(tokens: list[str]) -> int:
    """Where a list of things after a colon starts ("… kitchen: wall hooks, a rolling cart, stackable
    boxes"), or the questions the post answers ("…: what to buy, what to skip"): the colon's index, or
    len(tokens) when no subject comes before it or no list after it."""
    colon = next((k for k, t in enumerate(tokens) if t == ":"), len(tokens))
    rest = tokens[colon + 1 :]
    if colon == len(tokens) or not _content(tokens[:colon]):
        return len(tokens)
    joins = sum(t == "," or t.lower() in _JOIN for t in rest)
    if rest and rest[0].lower() in ("what", "how", "why", "which"):  # "…: what to buy, what to skip"
        return colon  # the questions the post answers, not things: said as nothing
    known = any(_lookup(rest, k) for k in range(len(rest)))
    return colon if joins and known and len(rest) <= 4 * (joins + 1) else len(tokens)


def _items(tokens: list[str], said: _Said, drop: bool) -> str:
    """The things of a list, each in Chinese, joined by 、."""
    items: list[str] = []
    part: list[str] = []
    for token in [*tokens, ","]:
        if token in _BREAKS or token.lower() in _JOIN:
            if part:
                item = _render(part, drop)
                said.budget += item.budget
                said.audiences += item.audiences
                if thing := _glue([*item.places, item.topic(places=False)]):
                    items.append(thing)
            part = []
        else:
            part.append(token)
    return "、".join(dict.fromkeys(items))


def named_places(text: str) -> list[str]:
    """The places an English text names anywhere — in a story `localize` leaves out too ("We saw the
    Terracotta Warriors and walked the city wall" → 兵马俑, 城墙) — in Chinese, in the order named."""
    matches = ((pattern.search(text), chinese) for pattern, chinese in _place_patterns())
    found = [(m.start(), m.end(), chinese) for m, chinese in matches if m]
    kept = [f for f in found if not any(o != f and o[0] <= f[0] and f[1] <= o[1] for o in found)]
    return list(dict.fromkeys(chinese for _, _, chinese in sorted(kept)))


@cache
def _place_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each place word of the lexicon as a pattern of the whole word, with its Chinese; compiled once."""
    return tuple(
        (re.compile(rf"(?<![a-z]){re.escape(key)}(?![a-z])", re.IGNORECASE), chinese)
        for key, (kind, chinese) in lexicon().words.items()
        if kind == "place"
    )


def has_english(text: str) -> bool:
    return _RUN.search(text) is not None and any(len(m.group(0)) >= 3 for m in _RUN.finditer(text))


# "3 days", "two nights": a duration reads as 3天 / 两晚 (a word list would leave "3 days" as it is); "in 3
# days" is the time a thing is done in, read with the run it belongs to (3天搞定)
_DURATION = re.compile(
    r"(?P<lead>\b(?:in|within|under|than)\s+)?"
    r"\b(\d+|one|two|three|four|five|six|seven)[\s-]*(day|night|week|hour|month)s?\b(?![\s-]*old\b)",
    re.IGNORECASE,
)


def _first_span(match: re.Match[str]) -> str:
    return f"前{match.group(1)}{ {'day': '天', 'week': '周', 'month': '个月'}[match.group(2).lower()]}"


def _span(match: re.Match[str]) -> str:
    if match.group("lead"):
        return match.group(0)
    number = match.group(2).lower()
    return _NUMBERS.get(number, number) + _UNITS[match.group(3).lower()]


_HAN = re.compile(r"[\u4e00-\u9fff]")
# Chinese words that name no particular thing: a request's frame and its themes' broad words
_BROAD = frozenset(
    """
    笔记 攻略 清单 文案 帖子 教程 技巧 经验 分享 推荐 合集 指南 心得 内容 图文 小红书 篇 东西 方法 做法
    摄影 旅行 旅游 穿搭 护肤 美食 健身 美妆 家居 职场 宠物 育儿 户外 运动 生活 日常 入门 新手
    """.split()  # noqa: SIM905 - a word list reads best as text
)


def _names_a_thing(chinese: str) -> bool:
    """Does this Chinese (beside an English word) name a particular thing — 酸种面包, 玩偶 — rather than
    only the post (笔记) or a theme (摄影)?"""
    from tools.segmenter import posseg

    return any(
        flag.startswith("n") and flag != "ns" and len(word) >= 2 and word not in _BROAD
        for word, flag in posseg(chinese)
    )


def _beside(text: str, start: int, end: int) -> tuple[str, str]:
    """The Chinese just before and just after text[start:end], to the nearest break or English word."""
    before = re.split(r"[，,。！!？?；;：:\n\sA-Za-z]", text[:start].rstrip())[-1]
    after = re.split(r"[，,。！!？?；;：:\n\sA-Za-z]", text[end:].lstrip())[0]
    return before, after


# How the post is to be delivered, not what it is about: the parts asked for ("title, text, tags and
# pictures", "标题 + body + hashtags"), "a full post", "write it up for me", "post idea:", texting's "u"
_PART = r"(?:titles?|text|body|tags|hashtags|captions?|pictures?|photos?|images?|标题|正文|标签|配图)"
_DELIVERY = re.compile(
    rf"(?:\b(?:with|and|including|plus)\s+)?(?:a\s+)?{_PART}(?:\s*(?:,|\+|&|and|、|和)\s*(?:and\s+)?{_PART})+"
    r"(?:\s+(?:please|pls|too))?"
    r"|\bwrite\s+it\s+up(?:\s+for\s+me)?(?:\s+as\s+a\s+(?:full\s+)?post)?|^\s*post\s+idea\s*[:：]"
    r"|\b(?:full|complete|whole)\s+(?=post\b|note\b)|\b(?:hashtags|tags)\b(?=\s*$)",
    re.IGNORECASE,
)


def _unframe(text: str) -> str:
    """`text` without the words of how the post is delivered (see `_DELIVERY`); "u" read as "you"."""
    text = _DELIVERY.sub(" ", text)
    text = re.sub(r"\bu\b", "you", text, flags=re.IGNORECASE)
    return re.sub(r"\s*[:：]\s*(?=[.。]?\s*$)|\s{2,}", " ", text).strip(" ,，")


_GONE = "\x00"  # where a word of manner in a mixed request was, till what only qualified it goes too


def _relative(match: re.Match[str]) -> str:
    """The break before a relative clause, with where it happened kept on the thing ("the trail we hiked in
    Yunnan" → "the trail in Yunnan, we hiked …")."""
    clause = re.split(r"[.,:;!?]", match.string[match.end() :], maxsplit=1)[0]
    where = re.search(r"\b(?:in|at|around|near)\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*", clause)
    return f" {where.group(0)}, " if where else ", "


_TURNING = re.compile(r"\bturn(?:ing|ed|s)?\s+(\d{1,3})\b(?!\s*(?:pages?|times?|degrees?|%|km|miles?))")


def _unaccented(match: re.Match[str]) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", match.group(0)) if not unicodedata.combining(c))


_FROM_ZERO = re.compile(
    r"(?:\b(?:went|go|going|gone|got|get|getting)\s+)?\b(?:from\s+(?:zero|scratch|nothing|the\s+couch)|couch)\s+to\s+"
    r"(?:(?:a|an)\s+)?(?:running\s+(?:a\s+)?)?(?P<km>\d+(?:\.\d+)?)\s?(?:k|km)\b(?:\s+run)?"
    r"(?:\s+in\s+(?P<weeks>\d+)\s+weeks?)?",
    re.IGNORECASE,
)


def _from_zero(m: re.Match[str]) -> str:
    return f"零基础跑步{m['km']}公里" + (f"，用了{m['weeks']}周" if m["weeks"] else "")


def localize(text: str) -> str:
    """`text` with each run of English words rendered in Chinese; Chinese text is returned unchanged."""
    if not has_english(text):
        return text
    text = _unframe(re.sub(r"[À-ÿ]", _unaccented, text))  # (cafés is cafes)
    # (an age reached: "my senior cat turning 15" is a cat of 15)
    text = _TURNING.sub(r"\1-year-old", text)
    # a run built up from nothing ("how I went from zero to a 10K in 12 weeks", "couch to 5K"): 零基础跑步…
    text = _FROM_ZERO.sub(_from_zero, text)
    # (a review's sides, labelled before what Chinese says of them: "pros:拖地真干净 cons:老卡在沙发底下" →
    # 优点是拖地真干净，缺点是老卡在沙发底下)
    text = re.sub(r"\s*\bpros?\s*[:：]\s*(?=[\u4e00-\u9fff])", "，优点是", text, flags=re.IGNORECASE)
    text = re.sub(r"\s*\bcons?\s*[:：]\s*(?=[\u4e00-\u9fff])", "，缺点是", text, flags=re.IGNORECASE)
    # (a word count is how long to write, nothing to say: "Friendly, under 500 words.")
    text = re.sub(
        r"[,，]?\s*\b(?:(?:under|below|within|about|around|max|less\s+than|no\s+more\s+than)\s+)?\d+\s*words?\b\.?",
        "",
        text,
        flags=re.IGNORECASE,
    )
    # (…and the tries it took: "after 3 failed tries" → 失败3次以后)
    text = re.sub(
        r"\bafter\s+(\d+)\s+failed\s+(?:tries|attempts)\b", r"，失败\1次以后", text, flags=re.IGNORECASE
    )
    # (…and how often: "3 runs a week" → 每周跑3次, "w/ walking breaks" → 跑走结合)
    text = re.sub(r"\b(\d+)\s+runs?\s+(?:a|per)\s+week\b", r"每周跑\1次", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:w/|with)\s+walk(?:ing)?\s+breaks\b", "跑走结合", text, flags=re.IGNORECASE)
    # a time taken, not a time of day: "finished in 2:05" → 2小时05分 (its colon parts no clause)
    text = re.sub(r"(?<=\bin )(\d{1,2}):([0-5]\d)(?![:\d])", r"\1小时\2分", text)
    # "都过了 每天下班学两个半小时 不要鸡汤": a space between Chinese words, as written, parts clauses as it
    # does in an all-Chinese request, and stays a break when the English beside it is rendered and glued on
    # (…and so does one before a letter or two, or a word in small letters, that start a Chinese word:
    # 素纱襌衣 T形帛画, 肉夹馍 biangbiang面)
    text = re.sub(
        r"(?<=[\u4e00-\u9fff])[ \t\u3000]+"
        r"(?=[\u4e00-\u9fff]|[A-Za-z]{1,2}[\u4e00-\u9fff]|[a-z]{3,}[\u4e00-\u9fff])",
        "，",
        text,
    )
    # (…and one before a count of things, which lists them: 2件大衣 3件毛衣 4条裤子)
    text = re.sub(r"(?<=[\u4e00-\u9fff])[ \t\u3000]+(?=\d+\s*[件条双个只瓶支套款本台顶副])", "，", text)
    # (…and one after a number, before Chinese that is no unit of it: 我的区间是128到140 每周4次)
    text = re.sub(
        r"(?<=\d)(?<!:\d\d)[ \t\u3000]+(?=[\u4e00-\u9fff])(?![天晚夜个次年月周元块岁公小分斤克件张层人家])",
        "，",
        text,
    )
    # (…and a space after English, before Chinese that opens a clause of its own: 关于我的desk setup
    # 用了一个升降桌)
    text = re.sub(
        r"(?<=[A-Za-z])[ \t\u3000]+(?=(?:我|用了|买了|去了|做了|试了|换了|花了|预算|每天|最近|之前|后来|现在"
        r"|因为|但是|不过|所以|还有|总共|一共|主要|重点|想|希望|不要|别|一开始|刚开始|开始|结果|然后|没想到|本来|每次|平时"
        r"|每周|每月|最后|帮我|可以|最好|分享|一只|一个))",
        "，",
        text,
    )
    english = not _HAN.search(text)
    if english:  # "the kettlebell routine I've done 3x a week": the thing, then the story of it
        text = _RELATIVE.sub(_relative, text, count=1)
    story = _STORY.search(text) if english else None
    if story and _ASKED.search(text[: story.start()]):  # "… - we kept them in separate rooms first"
        # (…keeping a list the story names after a colon: "…I've done for two months: swings, halos and …")
        listed = re.search(r":\s*([^.:;!?]+?(?:,|\band\b)[^.:;!?]+)", text[story.start() :])
        # (…without what they are done with: "… with a 16kg bell")
        items = re.sub(r"\s+(?:with|using)\s+.*$", "", listed.group(1)) if listed else ""
        text = text[: story.start()] + (f": {items}" if items else "")
    text = re.sub(r"(?<=[A-Za-z0-9'’)])\s*[?？]+\s*$", "", text)  # "…for students?": the asking goes
    if english:  # "$50", "¥200": the amount and its currency in words, read with the run around it
        text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # "2,000": one number
        text = re.sub(r"[$＄]\s?(\d[\d,]*(?:\.\d+)?k?)\b", r"\1 dollars", text)
        text = re.sub(r"[¥￥]\s?(\d[\d,]*(?:\.\d+)?k?)\b", r"\1 yuan", text)
    # ("the first 90 days": the span from the start, 前90天 — not 第一次 and a span)
    text = re.sub(r"\bfirst\s+(\d+)[\s-]*(day|week|month)s?\b", _first_span, text, flags=re.IGNORECASE)
    text = _DURATION.sub(_span, text)
    if not english:  # "写一篇 200 RMB 改造出租屋的笔记": the amount in Chinese, as the text around it
        text = re.sub(r"(?<=\d)\s*(?:rmb|yuan|cny)\b", "元", text, flags=re.IGNORECASE)
    mixed = bool(_HAN.search(text))
    lex = lexicon()

    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) < 3 and run.isupper():  # "AI", "T恤"-style abbreviations stay as written
            return run
        chinese = render_english(run, later=bool(text[: match.start()].strip()))
        if not mixed:
            return chinese
        manner = lex.words.get(_key(run))
        if not chinese and manner and manner[0] == "tone":  # how to write it, in a Chinese clause
            if re.match(r"\s*[感风]", text[match.end() :]):
                return run  # "要有vibe感": a Chinese word made of it, as "ins风"
            return manner[1].strip("-") or _GONE  # "加点emoji" stays (the list says emoji), "chill一点" goes
        before, after = _beside(text, match.start(), match.end())
        said = {chinese, *lex.glosses.get(_key(run), ())} - {""}
        if len(run) >= 3 and any(after.startswith(s) or before.endswith(s) for s in said):
            return ""  # "resistance band 弹力带": said once, in Chinese
        spaced = text[match.end() : match.end() + 1].isspace()  # not "ins风": an English word glued on
        if len(run) >= 3 and spaced and re.search(r"[A-Za-z]", chinese) and _names_a_thing(after):
            return render_english(run, drop_unknown=True)  # "Jellycat 玩偶清洗": the Chinese names it
        return chinese

    out = _RUN.sub(replace, text)
    # "chill一点的咖啡探店", "heartwarming 的领养故事": the degree and the 的 of a manner said as nothing go
    # with it
    out = re.sub(rf"{_GONE}\s*(?:(?:一点儿?|一些|点)的?|的)?", "", out)
    if english:  # "cafes in Hangzhou - with kids" → …，…
        out = re.sub(r"(?:\s*[-–—;])+\s*$", "", out)
        out = re.sub(r"\s+[-–—]+\s+", "，", out)
    out = re.sub(r"(?<=[\u4e00-\u9fff])\s+|\s+(?=[\u4e00-\u9fff])", "", out)
    if english:  # "a 3-day Hanoi itinerary": the place before how long, as Chinese says it (河内3天行程)
        out = _span_after_place(out)
    # "…, aimed at office workers." ends in Chinese, and "…walking breaks. For office workers" goes on after
    out = re.sub(r"(?<=[\u4e00-\u9fff])\.(?![A-Za-z0-9_])", "。", out)
    if english:  # a later sentence only of how to write it ("Warm tone, please."): said as nothing
        out = re.sub(r"(?<=[。.!！])(?:\s*[.。!！])+", "", out)
    out = re.sub(r"，\s*，", "，", out).strip(" ，")
    return re.sub(r"\s*[?？]+$", "", out) if english else out  # "…? casual and fun": the asking goes too
