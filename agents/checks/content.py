"""Checks of what a post says: places foreign to the request, sentences that drift off the topic, and advice
(medical, weight loss, financial) the topic does not call for. All three pull `infoDensity` down and go
back to the writer — or to research when the offending text came from the evidence's facts, so the redo
does not stitch the same sentences in again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache, lru_cache
from itertools import pairwise
from typing import Any

from agents.checks import Finding, Owner
from agents.checks.places import foreign_mentions, mentioned
from agents.checks.textutil import (
    LIST_ITEM,
    Scope,
    bigrams,
    cjk_len,
    is_heading,
    jaccard,
    normalise,
    paragraphs,
    sections,
    sentences,
    strip_emoji,
    theme_hits,
)
from tools.entities import ADVICE_DOMAINS, HEALTH_TOPIC, posseg_cut, readers

_DOMAIN_LABELS = {"medical": "医疗用药", "weight_loss": "减肥减脂", "financial": "理财投资"}
# One of these is advice on its own; other domain words (医院, 体重, 保险 …) count only two at a time.
# Medicines by the stems of their international names (阿苯达唑, 阿莫西林, 左氧氟沙星, 氯雷他定, 布洛芬,
# 卡托普利, 硝苯地平, 阿托伐他汀, 奥美拉唑, 缬沙坦, 美托洛尔, 西咪替丁, 二甲双胍, 奥司他韦, 头孢…): a post
# that names one is giving advice.
_DRUG_NAME = re.compile(
    # (…not after a preposition, where 他 is a pronoun: 给他定了三步护肤 is no 氯雷他定)
    r"(?:(?![一二两三四五六七八九十盒片粒颗支瓶吃买服用些点的了和或给帮让叫替对跟为向被把])[\u4e00-\u9fff]){1,4}"
    r"(?:达唑|拉唑|西林|霉素|沙星|他定|替利嗪|洛芬|氨基酚|普利|地平|他汀|沙坦|洛尔|米松|尼松|替丁|双胍|他韦|洛韦)"
)
# Medicines for people by name: advice whenever they are named.
_MEDICINES = (
    "秋水仙碱",
    "褪黑素",
    "安眠药",
    "助眠药",
    "氯雷他定",
    "西替利嗪",
    "阿莫西林",
    "头孢",
    "消炎药",
    "止痛药",
    "感冒药",
    "降压药",
)
_STRONG_ADVICE = frozenset(
    _MEDICINES
    + tuple(
        """
    退烧 布洛芬 对乙酰氨基酚 美林 泰诺林 抗生素 处方 吃药 服药 减脂 减肥 瘦身 掉秤 热量缺口 燃脂
    刷脂 减重 理财 基金 股票 收益率 年化 定投 教育金 储蓄险 年金险 分红险 理财产品
    """.split()  # noqa: SIM905 - a word list reads best as text
    )
)
# Themes whose posts may carry a domain's words without the request naming it (a workout plan talks 减脂).
# A sensitive-skin post may send the reader to a dermatologist.
_THEME_DOMAINS = {
    "fitness": {"weight_loss"},
    "pets": {"medical"},
    "parenting": {"medical"},
    "beauty": {"medical"},
}
# Medicines and doses: advice even in a theme that may mention a doctor (a zoo trip with toddlers must not
# tell parents how to dose a fever) — only a request that names the domain allows them.
_DOSING = frozenset(
    (
        "退烧",
        "布洛芬",
        "对乙酰氨基酚",
        "美林",
        "泰诺林",
        "抗生素",
        "处方",
        "吃药",
        "服药",
        "用药",
        "混悬液",
        "剂量",
        "毫克",
        *_MEDICINES,
    )
)
# A pet post may dose a deworming or a vet's prescription; medicines for people stay off it.
_HUMAN_DRUGS = frozenset(("退烧", "布洛芬", "对乙酰氨基酚", "美林", "泰诺林", "混悬液", *_MEDICINES))
# …of which a vet gives a pet the kinds too, in a post about its surgery or illness (术后止痛消炎药 on a
# spaying bill)
_VET_GIVES = frozenset(("消炎药", "止痛药"))
_PET_CARE = re.compile(r"绝育|手术|术后|生病|看病|就医|受伤|住院")
# What a training plan feeds the body with: sports nutrition, not a medicine or a supplement for an illness
_SPORTS_FOOD = re.compile(r"蛋白粉|乳清|肌酸|电解质|盐丸|能量胶|支链氨基酸|BCAA|bcaa|增肌粉")
_EXERTION = frozenset({"fitness", "outdoor"})  # themes whose readers sweat: a hike's salt and electrolytes
# A medical word next to one of these is about plants or pests (阳台的菜生了蚜虫，我一直没用药), not people.
_PLANT_CONTEXT = re.compile(r"(?<!驱)虫|农药|杀虫|叶子|叶片|植物|花盆|盆栽|浇水|种菜|菜苗|幼苗|病虫害|土壤")
_CALORIES = frozenset(("大卡", "千卡", "卡路里"))
_PATCH = re.compile(r"退(?:烧|热)贴")
_SAVING = re.compile(r"存钱|攒钱|存款|储蓄|记账|开销|开支|花销")  # (not a trip's 预算)
# …or about travel sickness on the way (容易晕车的提前吃药): a trip's own tip
_NOT_CARE = re.compile(rf"{_PLANT_CONTEXT.pattern}|晕车|晕船|晕机")
# …unless it gives the dose itself (给娃吃半片茶苯海明，剂量按体重减): that is dosing, whatever it is for
_DOSE_SAID = re.compile(r"剂量|(?:吃|服|喂)[^，,。；;]{0,3}[半一两二三\d]\s*(?:片|粒|毫克|mg|毫升|ml)")
# Sending the reader to a doctor, or saying who taught the writer (先去医院看看再练, 康复科医生教的): a
# referral, not medical advice of the post's own
_REFERRAL = re.compile(
    r"(?:去|带去|送去|上|送)(?:附近的|正规的?)?(?:宠物)?医院|看(?:一下|看)?医生|(?:问|问问|问了|咨询|请教)(?:一下)?"
    r"(?:宠物|专业的?|儿科|皮肤科|康复科)?医生|(?:宠物|康复科|儿科|皮肤科)?医生(?:教|说|建议|叮嘱|交代)"
)


def _referred(sentence: str) -> set[str]:
    """The doctor words of `sentence` that only refer the reader on (see `_REFERRAL`)."""
    if not _REFERRAL.search(sentence):
        return set()
    rest = _REFERRAL.sub("", sentence)
    return {w for w in ("医院", "医生", "就医") if w not in rest}


# Openers that announce a tangent (说到这里想起来…, 顺便安利…, 顺带说一句…, 最近还入了…, 最近在学…): a
# paragraph or a run of sentences that starts with one and names nothing of the request is off topic however
# short. Common 小红书
# digression phrasing, hand-written for this check: asides (对了, 说起来, 题外话) and the writer's news
# (最近迷上 / 在学 / 入了 something).
# A visit of the past that opens an aside (上次来杭州我还…): the opener, before the aside's 还
_PAST_VISIT_OPENER = r"(?:上次|上回|之前|以前|去年|前年)(?:来|去|到)[^，,。还]{1,8}?"
_DIGRESSION = re.compile(
    # (…after a word that only adds it: 另外最近在追一部职场剧)
    r"^(?:(?:另外|还有|而且)[，,]?)?(?:说到这(?:里|儿|个)?(?:[，,]?\s*)?(?:我)?(?:突然)?想起|顺(?:便|带)(?:说|提|聊|讲|安利|分享|种草|吐槽)|"
    r"顺带一提|题外话|跑个题|扯远了|(?:多|另外|再)(?:说|提|嘴)一句(?=[，,：:。！!\s]|$)|插(?:一|个)?(?:句|嘴)|岔开(?:一下|说)|"
    r"对了[，,]|话说|说起来|突然想到|另外(?:安利|种草|说一下)|"
    r"(?:突然|忽然)?想起(?:了)?(?:去年|前年|上次|上回|以前|之前|小时候|当年|有一次|有次)|"
    rf"{_PAST_VISIT_OPENER}我?还|"
    r"(?:最近|前阵子|前几天|这阵子|这段时间|那阵子|那段时间|那会儿)(?:我)?(?:还|又|顺手|在|正在|刚|开始)?"
    # (…or weighing one: 最近我在纠结换一部新手机)
    r"(?:纠结|想|打算|准备|考虑|犹豫)?(?:要不要)?"
    r"(?:给[^，,。]{1,4}?)?(?:入|买|入手|换|囤|迷上|入坑|学|在学|报了|追)了?|说(?:到|起)[^，,。]{1,6}[，,]"
    # …or what else one did that week (这周五下班还去看了场电影)
    r"|(?:这周|上周|周)[一二三四五六日末]?(?:下班|晚上|中午|下午)?(?:后)?我?(?:还|又|顺便)去?(?:看了|吃了|买了|逛了|追了)"
    # news of the neighbourhood (我们公司楼下新开了一家手冲咖啡馆)
    r"|[^，,。]{0,6}(?:楼下|附近|门口|隔壁|对面)(?:新)?开(?:了一?|的那|的一)家"
    # what else filled those days (那两个月我还顺便把驾照考下来了, 那几天正纠结换不换手机)
    r"|(?:那|这)(?:几|两|三|一)?(?:个月|周|天|阵子|段时间)(?:里)?我?(?:还|正|又)(?:顺便|在)?(?:纠结|把|考|去|学|忙着)"
    # …or news from elsewhere (收到房东消息，说…)
    r"|[^，,。]{0,8}?收到(?:房东|中介|物业|老板|领导|HR|hr)的?(?:消息|电话|微信|短信|通知))"
)
# A line that opens on a word adding something else (另外, 还有): no item of the heading it stands under
_ADDED = re.compile(r"^\W*(?:另外|还有|顺便|对了)")
DRIFT_MIN, DRIFT_SHARE, LOOSE_WEIGHT = 2, 0.3, 1 / 3
SURE_DRIFT = 3  # words of one other theme that make a single sentence a digression
TANGENT_MIN_CHARS = 20  # a digression this long is a tangent, not a passing remark


def fact_texts(evidence: Mapping[str, Any] | None) -> list[str]:
    if not evidence:
        return []
    facts = evidence.get("facts") or []
    return [str(f.get("text", "")) for f in facts if isinstance(f, Mapping) and f.get("text")]


def from_evidence(sentence: str, facts: Sequence[str]) -> bool:
    """Was `sentence` taken from one of the evidence's facts (contained in it, or mostly the same)?"""
    core = normalise(sentence)
    if len(core) < 6:
        return False
    grams = bigrams(sentence)
    return any(core in normalise(fact) or jaccard(grams, bigrams(fact)) >= 0.5 for fact in facts)


def _scope_label(scope: Scope) -> str:
    return "、".join(scope.places.names[:3])


def foreign_places(scope: Scope, draft: Mapping[str, Any], facts: Sequence[str]) -> list[Finding]:
    """Places in the title or body outside the request's places (and what lies in or around them)."""
    found: dict[str, list[str]] = {}  # place → where ("标题", "正文")
    for where, text in (("标题", str(draft.get("title", ""))), ("正文", str(draft.get("body", "")))):
        for place in foreign_mentions(text, scope.places):
            found.setdefault(place, []).append(where)
    if not found:
        return []
    wanted = f"需求是{_scope_label(scope)}" if scope.places.names else "需求没有指定这个地点"
    carried = [p for p in found if any(p in fact for fact in facts)]
    own = [p for p in found if p not in carried]
    findings = []
    for names, owner, note in (
        (carried, "research_evidence_agent", "（调研证据里就带着这些内容）"),
        (own, "writer_agent", ""),
    ):
        if names:
            where = "和".join(dict.fromkeys(w for p in names for w in found[p]))
            reason = f"{where}提到{'、'.join(names[:4])}，但{wanted}{note}"
            findings.append(Finding("foreign_place", "infoDensity", owner, reason))  # type: ignore[arg-type]
    return findings


def content_sentences(body: str) -> list[str]:
    """The body's sentences that carry content: not the opening hook, the closing call to action, headings
    or short fragments."""
    paras = paragraphs(body)
    middle = paras[1:-1] if len(paras) >= 3 else paras
    out: list[str] = []
    for para in middle:
        for line in para.splitlines():
            if is_heading(line):
                continue
            out.extend(s for s in sentences(line) if cjk_len(s) >= 6)
    return out


def _stance(sentence: str, scope: Scope) -> str:
    """The sentence is "on" (shares a topic word, a theme word or a requested place), "off" (no link, and
    words of another theme: a 简历 line in a recipe) or "loose" (no link, no sign of another topic: a line
    of narrative)."""
    lowered = sentence.lower()
    who = _who(scope)
    # the readers named (爸妈, 学生党) say who the post is for, not what it is about: a line that links to
    # the request only by them is about whatever else it says (给爸妈换了一台老人机 in a hiking-pole post)
    own = _own_hits(sentence, scope)
    shared = {w for w in scope.topic_words if w in lowered}
    subject = shared - who
    if any(place in sentence for place in scope.places.names) or any(
        scope.places.allows(p) for p in mentioned(sentence)
    ):
        # …and the request's place named in passing keeps no line thick with another theme on the topic
        # (厦门太阳大 in a line on repotting succulents, in a diary of running in 厦门)
        things = _things(sentence) - set(scope.places.names)
        # (…not the head of a word, like 肉 of 多肉)
        elsewhere = not _own_hits(sentence, scope, 2) and not subject & things and _thick(sentence, scope)
        return "off" if elsewhere else "on"
    split = _split_doing(lowered, scope)
    if subject or any(b in lowered for b in _subject_bigrams(scope)) or split:
        # One topic word, none of its themes' words, a word of another theme: 番茄 in a 番茄工作法 line.
        # A name of three characters or more (十八盘, 番茄炒蛋) is the topic itself, whatever else it says,
        # and so is a doing of the request said apart (梳…毛).
        named = any(len(w) >= 3 for w in subject) or split
        if len(subject) <= 1 and not named and scope.themes and not own and _other_theme(sentence, scope):
            return "off"
        return "on"
    if shared and not _other_theme(sentence, scope):
        return "on"  # a line about the readers themselves (带父母出门，节奏要留白)
    if "pets" in scope.themes and "它" in sentence and not _thick(sentence, scope):
        return "on"  # a pet post calls its animal 它: 别让它猛跑, 闻闻味道对它很重要 are about the dog
    if own:
        return "on"
    return "off" if _other_theme(sentence, scope) else "loose"


# Words that name a kind of reader, not a subject: whom a trip, a list or a recipe is for. Not children (a
# 遛娃 or 辅食 post is about them) nor pets, nor a reader named by the subject (小个子, 油皮, 新手).
_READER_WORD = re.compile(
    r"上班族|打工人|学生党|大学生|研究生|宝妈|宝爸|新手爸妈|新手妈妈|新手爸爸|家长|情侣|职场新人|考研人|一家人|长辈|"
    r"爸妈|父母|老人|老年人|中老年|退休|子女|年轻人|女生|男生|姐妹|闺蜜"
)


@lru_cache(maxsize=256)  # (a run's checks ask it of one scope many times; a server sees many scopes)
def _who(scope: Scope) -> frozenset[str]:
    """The request's words that only say who the post is for: reader words (学生党, 退休, 爸妈) and words
    of the audience the rest of the request does not use (想带父母旅行的子女)."""
    return frozenset(
        w
        for w in scope.topic_words
        if _READER_WORD.fullmatch(w)
        or (w in scope.audience and w not in scope.kind_text and not readers(w) - _GROWN_UPS)
    )


_GROWN_UPS = frozenset({"elderly", "men", "women", "couple"})  # reader groups that are no post's subject


def _own_hits(sentence: str, scope: Scope, min_len: int = 1) -> bool:
    """Does the sentence use a word of the post's themes (or those near them), other than who it is for?"""
    who = _who(scope)
    return any(
        w not in who and not _READER_WORD.fullmatch(w)
        for t in scope.near
        for w in theme_hits(t, sentence, min_len=min_len)
    )


@lru_cache(maxsize=256)
def _split_doings(scope: Scope) -> tuple[str, ...]:
    """The request's two-character doings of a verb and its thing (梳毛, 洗澡, 遛狗), which a sentence may say
    apart (先顺着毛的方向…往尾巴梳, 洗了个澡)."""
    who = _who(scope)
    return tuple(
        w
        for w in scope.topic_words - who
        if re.fullmatch(r"[\u4e00-\u9fff]{2}", w)
        and _char_flag(w[0]) == "v"
        and _char_flag(w[1]).startswith("n")
    )


@cache
def _char_flag(char: str) -> str:
    return posseg_cut(char)[0][1] if char else ""


def _split_doing(sentence: str, scope: Scope) -> bool:
    """Does the sentence say one of the request's doings with its verb and its thing apart (梳…毛)?"""
    return any(w[0] in sentence and w[1] in sentence for w in _split_doings(scope))


@lru_cache(maxsize=256)
def _subject_bigrams(scope: Scope) -> frozenset[str]:
    """The character bigrams of the request's words other than who the post is for."""
    who = _who(scope)
    return frozenset(b for b in scope.topic_bigrams if any(b in w for w in scope.topic_words - who))


def _thick(sentence: str, scope: Scope) -> bool:
    """Is the sentence thick with another theme's words (科目二、倒车入库、方向盘 in a renovation story)?"""
    return any(len(theme_hits(t, sentence, min_len=2)) >= SURE_DRIFT for t in _others(scope))


def _thickest(sentence: str, scope: Scope) -> bool:
    """Is the sentence thicker still with another theme's words than a digression needs (four or more)?"""
    return any(len(theme_hits(t, sentence, min_len=2)) > SURE_DRIFT for t in _others(scope))


def off_topic(text: str, scope: Scope) -> bool:
    """Does `text` show another topic: nothing of the request's topic, places or themes, and words of a theme
    the request is not in (the call to action's check reads a teased next post with it)?"""
    return _stance(text, scope) == "off"


def _other_theme(sentence: str, scope: Scope) -> bool:
    """Does the sentence use words of a theme the request is not in? One is enough when the request's
    themes are known; without them, two of one theme (a lone 下班 in a diary line says little)."""
    # (a story or a diary tells a day in everyday words: 下班 or 工作 in a dog's adoption story is no topic)
    need = 1 if scope.themes and not scope.narrative else 2
    table = sections("theme_words.txt")
    return any(len(theme_hits(t, sentence, min_len=2)) >= need for t in table if t not in scope.near)


def topic_drift(scope: Scope, draft: Mapping[str, Any], facts: Sequence[str]) -> list[Finding]:
    """Fails when a real share of the content sentences drift. A sentence that shows another topic counts
    fully; one that merely shares nothing counts a third, and not at all in a story or a diary, or when the
    request has no known theme (a narrative is mostly lines of what happened)."""
    body = str(draft.get("body", ""))
    content = content_sentences(body)
    listed = _subject_items(body, scope)

    # a sentence thick with another theme's words is a digression on its own, however short the aside
    def thick(sentence: str) -> bool:
        return _thick(sentence, scope)

    # …and otherwise a line of an on-topic run of steps keeps to the topic as a list item does
    threaded = {s for para in _thread(body, scope) for s in sentences(para)}
    known: dict[str, str] = {}  # each sentence's own stance, read once here and by `_anchored`

    def stance(sentence: str) -> str:
        if sentence not in known:
            known[sentence] = _stance(sentence, scope)
        return known[sentence]

    # a line of figures or one that opens a list (第1-2天：旧粮75%，新粮25%; 七天比例可以这样来：) says
    # nothing of its own, and the lines under a work's name (📖《晚安，月亮》) tell that work
    neutral = {s for s in content if _figures(s) or s.rstrip().endswith(("：", ":"))} | _works(body)
    answered = _answers_of_the_topic(body)
    neutral |= answered
    # (a listed line that itself shows another topic is not kept on it by its heading when the body's own
    # lines show other topics more than its own: a robot vacuum's 拖地 and 厨房油渍 under "iPad·真实体验")
    disowned = any(stance(s) == "off" for s in content if s in listed)
    own = [stance(s) for s in content] if disowned else []
    vouched = not disowned or own.count("off") <= own.count("on")
    stances = [
        (s, "on" if (s in listed and (vouched or stance(s) != "off")) or s in neutral
         or (s in threaded and not thick(s)) else stance(s))
        for s in content
    ]
    off = [s for s, stance in stances if stance == "off"]
    # a line of narrative in a paragraph that says something on the topic goes on with it (读到最后一页，
    # 我们俩总会抱一下 after a picture book for two-year-olds): only loose lines of paragraphs with none count
    anchored = _anchored(body, stance)
    loose = [s for s, stance in stances if stance == "loose" and s not in anchored]
    counted = bool(scope.themes) and not scope.narrative
    # (…unless it goes on with an on-topic item under a heading: 🍳 吃饭相关： 卡式炉和气罐… 我们煮了火锅)
    thick_off = [s for s in off if thick(s)]
    # (…but not a line that says it adds something else: 另外换季了，家里有小朋友的话… under 【缺点】)
    headed = _headed_items(body, stance) - {s for s in thick_off if _ADDED.match(s)} if thick_off else set()
    sure = [s for s in thick_off if s not in headed]
    # …and a line thicker still digresses whatever topic word it passes by, under any heading (周五发完周报
    # 我就去楼下健身房…练背…硬拉 in an intern's weekly-report tips)
    sure += [s for s in content if s not in sure and s not in neutral and _thickest(s, scope)]
    weight = len(off) + (LOOSE_WEIGHT * len(loose) if counted else 0.0)
    found = [
        *_tangents(body, scope), *_stray_paragraphs(body, scope), *_elsewhere_paragraphs(body, scope), *sure
    ]
    tangents = [s for s in dict.fromkeys(found) if s not in answered]
    if tangents:
        drifting = tangents
    elif weight < DRIFT_MIN or weight < DRIFT_SHARE * len(content):
        return []
    else:
        drifting = off + (loose if counted else [])
    borrowed = [s for s in drifting if from_evidence(s, facts)]
    owner: Owner = "research_evidence_agent" if len(borrowed) * 2 >= len(drifting) else "writer_agent"
    example = (borrowed if owner == "research_evidence_agent" else drifting)[0]
    topic = scope.named()
    note = "（这些句子来自调研证据）" if owner == "research_evidence_agent" else ""
    reason = f"正文有 {len(drifting)} 句和主题「{topic}」无关{note}，例如「{_clip(example)}」"
    return [Finding("topic_drift", "infoDensity", owner, reason)]


def _headed_items(body: str, stance: Callable[[str], str]) -> set[str]:
    """The sentences of paragraphs that open on a heading and say something on the topic under it. Not a
    day's or an hour's heading (Day 25): a diary's day holds whatever happened, on the topic or not."""
    out: set[str] = set()
    for para in paragraphs(body):
        first, *rest = para.splitlines()
        said = [x for line in rest for x in sentences(line)]
        told = any(stance(x) == "on" for x in said if cjk_len(x) >= 6)
        if is_heading(first) and not _STEP.match(first) and told:
            out.update(said)
    return out


def _figures(sentence: str) -> bool:
    """A short line of figures: a label and its numbers (第1-2天：旧粮75%，新粮25%)."""
    return len(re.findall(r"\d+(?:\.\d+)?", sentence)) >= 2 and cjk_len(sentence) <= 12


# (…numbered too: 1. 《我爸爸》)
_WORK_HEADING = re.compile(r"^\W*(?:\d{1,2}\s*[.、)）]\s*)?《[^》]{1,20}》[^，。！？!?,]{0,8}$")
_QUESTION_LINE = re.compile(r"^\W*(?:Q\d*|问)\s*[：:.、]\s*(?P<q>.+)$", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^\W*(?:A\d*|答)\s*[：:.、]", re.IGNORECASE)
_QUESTION_WORDS = frozenset("什么 怎么 怎么办 多少 多久 几点 哪里 哪些 哪个 吗 呢 要 该 能 可以".split())  # noqa: SIM905


def _answers_of_the_topic(body: str) -> set[str]:
    """In a post of questions and answers (three Q： lines or more), the sentences answering a question
    that names no thing of its own (Q：穿什么？ of a group-interview post): the question is asked of the
    post's topic, so is its answer. A question that names its own thing (Q：最近在追什么剧？) is not."""
    lines = [strip_emoji(x).strip() for x in body.splitlines() if x.strip()]
    if sum(bool(_QUESTION_LINE.match(x)) for x in lines) < 3:
        return set()
    out: set[str] = set()
    for asked, answer in pairwise(lines):
        question = _QUESTION_LINE.match(asked)
        if question and _ANSWER_LINE.match(answer):
            words = [f for w, f in posseg_cut(question["q"]) if w not in _QUESTION_WORDS and w.strip("？?")]
            if not any(f.startswith(("n", "vn")) for f in words):
                out.update(sentences(answer))
    return out


def _works(body: str) -> set[str]:
    """Sentences of paragraphs headed by a work's name (📖《猜猜我有多爱你》 over what the book is like): a
    list of books or films describes each one in its own words (兔子, 月亮), which are not another topic."""
    out: set[str] = set()
    for para in paragraphs(body):
        first, *rest = para.splitlines()
        if _WORK_HEADING.match(strip_emoji(first).strip()):
            out.update(s for line in rest for s in sentences(line))
    return out


def _anchored(body: str, stance: Callable[[str], str]) -> set[str]:
    """The sentences of paragraphs that have a sentence on the topic (`stance`: `_stance` of the scope)."""
    out: set[str] = set()
    for para in paragraphs(body):
        said = sentences(para)
        if any(stance(s) == "on" for s in said if cjk_len(s) >= 6):
            out.update(said)
    return out


_BOXED = re.compile(r"^\s*[□☐☑✅]")


def _subject_items(body: str, scope: Scope) -> set[str]:
    """Sentences of list items under a heading that names the subject (「两岁宝宝·逐个说说」 over 纸尿裤3片、
    湿巾一包 …): an item of a list of the subject's things need not repeat the topic's words — the heading
    says what they are for — and may name a thing another theme also has (a spare 外套, a 驱蚊 patch). Not
    when two items of the list share another theme (简历 and 面试 among skin-care steps): another subject
    has moved in. A heading covers the list items after it, up to the next heading or a line of prose; an
    aside or a paragraph of another theme is still read by the tangent and paragraph checks."""
    specific = {w for w in scope.topic_words if w not in _PLAIN_TOPIC_WORDS and not _KIND_WORD.fullmatch(w)}
    bigrams = {b for w in specific for b in scope.topic_bigrams if b in w and not _KIND_WORD.fullmatch(b)}
    # (a checklist — four or more boxed lines — is the subject's list under whatever headings it has:
    # □ 鞋子擦干净 under 👔 穿着： in a post on the night before an interview)
    checklist = sum(bool(_BOXED.match(line)) for line in body.splitlines()) >= 4
    groups: list[list[str]] = [[]]
    for para in paragraphs(body):
        under = False
        for line in para.splitlines():
            if is_heading(line):
                lowered = line.lower()
                under = (
                    any(w in lowered for w in specific)
                    or any(b in lowered for b in bigrams)
                    or any(place in line for place in scope.places.names)
                )
                groups.append([])
            elif (checklist and _BOXED.match(line)) or (under and LIST_ITEM.match(line)):
                groups[-1].extend(sentences(line))
            else:
                under = False
    out: set[str] = set()
    for items in groups:
        elsewhere = {s: _other_themes(s, scope) for s in items}
        counts = Counter(t for themes in elsewhere.values() for t in themes)
        out.update(s for s, themes in elsewhere.items() if all(counts[t] < 2 for t in themes))
    return out


def _others(scope: Scope) -> list[str]:
    """The themes a post of this request is not in, nor near."""
    return [t for t in sections("theme_words.txt") if t not in scope.near]


def _other_themes(sentence: str, scope: Scope) -> set[str]:
    """The themes the request is not in whose words (two characters or more) the sentence uses."""
    table = sections("theme_words.txt")
    return {t for t in table if t not in scope.near and theme_hits(t, sentence, min_len=2)}


# Topic words that say what kind of post it is, not what it is about: a heading 「做法步骤」 names the
# recipe's form, and does not make whatever is listed under it part of the recipe.
_KIND_WORD = re.compile(
    r"做法|步骤|教程|方法|技巧|攻略|清单|合集|心得|经验|分享|推荐|测评|指南|总结|记录|要点|注意|准备|事项"
)


def _tangents(body: str, scope: Scope) -> list[str]:
    """Runs of sentences after the opening paragraph that start with a digression opener and share no word
    with the request: the opener's sentence and those after it in its paragraph, up to one that comes back to
    the topic (下午本来想歇一会儿。最近我在学游泳，…。后来还是去了博物馆…)."""
    out: list[str] = []
    for k, para in enumerate(paragraphs(body)):
        said = [s for s in sentences(para) if cjk_len(s) >= 6]
        # (the opening paragraph sets the scene as it likes: only a sentence that says it leaves, 对了/话说,
        # opens an aside there — and not its first; its lines after the first are the post's own, a list
        # written without blank lines)
        lead = len([s for s in sentences(para.split("\n")[0]) if cjk_len(s) >= 6]) if k == 0 else 0
        start = next(
            (
                i
                for i, s in enumerate(said)
                if (_opens_aside(s) if i >= lead else _LEAVES.match(s)) and (k or i) and not _SUMMING.match(s)
            ),
            None,
        )
        if start is None:
            continue
        run: list[str] = []
        for i, sentence in enumerate(said[start:]):
            # the topic as the day it happened links nothing (接猫那天我还换了一套新床品), nor the topic
            # the aside leaves from (说到早八，我最近还在做隔夜燕麦)
            text = _WHEN_ANCHOR.sub("", sentence)
            if i == 0:
                text = _PAST_VISIT.sub("", _BRIDGE.sub("", text, count=1), count=1)
                # (…nor the topic the aside's first clause passes by, when the rest goes elsewhere: 顺便说
                # 下，我每天地铁通勤40分钟，最近在听一档播客，一集半小时，… in a post on commuting clothes)
                clauses = [c for c in re.split(r"[，,]", text) if cjk_len(c) >= 2 and not _LEAVES.match(c)]
                if len(clauses) >= 4 and sum(_linked(c, scope) for c in clauses) * 3 < len(clauses):
                    run.append(sentence)
                    continue
            if _linked(text, scope) or _BACK_REFERENCE.search(text):
                break
            run.append(sentence)
        if sum(cjk_len(s) for s in run) >= TANGENT_MIN_CHARS:
            out.extend(run)
    return out


# the post's own routine or way, pointed back to (顺便说一句，冬天回哈尔滨，同样这一套会卡粉): an aside on it
_BACK_REFERENCE = re.compile(r"这(?:一)?(?:套|个方法|些方法|几步|几招|个办法|个流程|个顺序)")
_LEAVES = re.compile(r"^\W*(?:对了[，,]|话说|顺(?:便|带)(?:说|提)|顺带一提|题外话|扯远了|插(?:一|个)?句)")
# the opening that names a topic only to leave it (说到早八，/ 说起学生党，)
_BRIDGE = re.compile(r"^\W*说(?:到|起)(?!来)[^，,。]{1,6}[，,]")  # (说起来 tells)
# …or the request's place as the scene of another visit (上次来杭州我还陪我妈去了趟良渚博物院)
_PAST_VISIT = re.compile(rf"^\W*{_PAST_VISIT_OPENER}(?=我?还)")
_WHEN_ANCHOR = re.compile(r"[^，,。！!？?；;]{1,8}?(?:那天|那周|那晚|的时候|当天)")


# A sentence that sums the post up (说到底，练得对、睡得够、饭吃够 in a post on protein powder): no aside,
# however few of the request's words it uses — a platitude said so is the stock-phrase check's
_SUMMING = re.compile(r"^\W*(?:说到底|归根到底|归根结底|总之)[，,]")


def _opens_aside(sentence: str) -> bool:
    """Does the sentence open an aside, at its start or after a first clause (那天收拾完东西，话说最近…)?"""
    clauses = re.split(r"[，,]", sentence)
    return bool(_DIGRESSION.search(sentence)) or any(_DIGRESSION.search(c.strip()) for c in clauses[1:2])


_COUNT = re.compile(r"[一二两三四五六七八九十几\d]+[次天个只件套款趟周年月晚遍集日]")
_WHEN_WORDS = frozenset(
    "午休 中午 早上 晚上 上午 下午 傍晚 周末 每天 平时 个月 小时 分钟 星期 下个 上个".split()  # noqa: SIM905
)


def _linked(text: str, scope: Scope) -> bool:
    """Does the text name a topic word (or a bigram of one) or a requested place? Who the post is for
    links only with a word of its own theme (学生党记得带学生证，景点能打折, not 很适合学生党当新爱好)."""
    lowered = text.lower()
    who = _who(scope)
    # (a count the request gave, 用了三次, is no topic: 凶手猜了三次 says nothing of a tent; nor is when,
    # 午休, nor a span's half, 个月 of 一个月)
    if any(w in lowered for w in scope.topic_words - who if not _COUNT.fullmatch(w) and w not in _WHEN_WORDS):
        return True
    if any(b in lowered for b in _subject_bigrams(scope) if not (_COUNT.fullmatch(b) or b in _WHEN_WORDS)):
        return True
    if any(place in text for place in scope.places.names):
        return True
    return any(w in lowered for w in who) and any(
        w not in who and not _READER_WORD.fullmatch(w) for t in scope.themes for w in theme_hits(t, text)
    )


def _stray_paragraphs(body: str, scope: Scope) -> list[str]:
    """Sentences of a middle paragraph that is about another subject: not one sentence touches the request
    (no topic word beyond a season or a "新手", no requested place, no word of the request's own theme — a
    related theme is not enough) and it uses two words of another theme (a 防晒 and 护肤 paragraph in a
    skirt post, a 手机 and 续航 paragraph in a rabbit post)."""
    if not scope.themes:
        return []  # a diary or an essay wanders by design
    out: list[str] = []
    thread = _thread(body, scope)
    touching = {para: _touches(para, scope) for para in paragraphs(body)}
    topical = "\n".join(para for para, touches in touching.items() if touches)
    topical_names = _trigrams(topical)  # (once: every middle paragraph is read against the same)
    for para in paragraphs(body)[1:-1]:
        said = [s for s in sentences(para) if cjk_len(s) >= 6]
        # (of a theme not near the request's: a trip's clothes are outdoor gear, its meals food)
        elsewhere = any(len(theme_hits(t, para, min_len=2)) >= 2 for t in _others(scope))
        # …and names no two things the paragraphs on the topic name (湖边 and 步道 in a tips list of a
        # lakeside run): a paragraph about something else shares no things with the post
        # (…or one and a name jieba splits: 台阶 and 如意桥 of a hike's route in its body-care tips)
        shared = [w for w in _things(para) if w in topical]
        named = any(not any(w in g or g in w for w in shared) for g in _trigrams(para) & topical_names)
        cohesive = len(shared) + named >= 2
        # (…one long sentence of several clauses is as much a paragraph: 上个月公司团建去爬山，…)
        told = len(said) >= 2 or (said and cjk_len(said[0]) >= 40 and said[0].count("，") >= 3)
        if told and elsewhere and not touching[para] and para not in thread and not cohesive:
            out.extend(said)
    return out


_FUNCTION_CHARS = frozenset("的了是在我你他她它们也都就和与很还要会能把被给让这那有个一不没")


def _trigrams(text: str) -> set[str]:
    """Runs of three Chinese characters with no function character (如意桥, not 的时候): a name or a thing's
    word, shared with another paragraph only when both speak of it."""
    return {
        run[i : i + 3]
        for run in re.findall(r"[\u4e00-\u9fff]{3,}", text)
        for i in range(len(run) - 2)
        if not _FUNCTION_CHARS.intersection(run[i : i + 3])
    }


def _things(text: str) -> set[str]:
    """The nouns of two characters or more the text names (not times: 夏天, 晚上; nor nouns of anything:
    问题, 东西)."""
    plain = _PLAIN_TOPIC_WORDS | _ANY_THING
    return {w for w, flag in posseg_cut(text) if len(w) >= 2 and flag in _THING_FLAGS and w not in plain}


_ANY_THING = frozenset("问题 事情 东西 时间 地方 情况 时候 方面 部分 结果 感觉 样子 过程".split())  # noqa: SIM905


_THING_FLAGS = frozenset({"n", "nz", "nr", "ns", "nt", "vn", "s"})


def _touches(para: str, scope: Scope) -> bool:
    """Does the paragraph touch the request: a specific topic word, a requested place, a word of its theme?"""
    specific = {w for w in scope.topic_words if w not in _PLAIN_TOPIC_WORDS}
    bigrams = {b for w in specific for b in scope.topic_bigrams if b in w}
    lowered = para.lower()
    return (
        any(w in lowered for w in specific)
        or any(b in lowered for b in bigrams)
        or any(place in para for place in scope.places.names)
        or any(theme_hits(t, para) for t in scope.themes)
    )


def _thread(body: str, scope: Scope) -> set[str]:
    """The middle paragraphs that are steps of a run of three or more, most of which keep to the topic: a
    step, day or hour of it is the same thread (第三步，慢慢拉开距离 between the steps of moving a child to
    its own bed; 19:30 关电视和平板 in a bedtime routine)."""
    steps = [p for p in paragraphs(body)[1:-1] if _STEP.match(p)]
    on = [p for p in steps if _touches(p, scope) or any(_stance(x, scope) == "on" for x in sentences(p))]
    return set(steps) if len(steps) >= 3 and len(on) * 2 >= len(steps) else set()


# a step, a day or an hour of a timetable (✅ 19:30 关电视), after a bullet or an emoji if any
_STEP = re.compile(
    r"^\s*[^\w\s]{0,3}\s*(?:第[一二三四五六七八九十\d]+(?:\s*[-~～至到]\s*[一二三四五六七八九十\d]+)?(?:步|天|周|阶段|站)"
    r"|(?:Day|D|Step)\s*\d|\d+[.、)）]"
    r"|\d{1,2}[:：]\d{2})",
    re.I,
)


# Topic words that say when or for whom, not what about: a paragraph sharing only these has left the topic.
_PLAIN_TOPIC_WORDS = frozenset(
    "春天 夏天 秋天 冬天 夏季 冬季 春夏 秋冬 周末 假期 平时 每天 新手 第一次 分享 经验 日常".split()  # noqa: SIM905
)


def _clip(text: str, limit: int = 28) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def advice_outside_topic(scope: Scope, draft: Mapping[str, Any], facts: Sequence[str]) -> list[Finding]:
    """Medical, weight-loss or financial advice in a post whose request is about none of it."""
    asked = {d for d, ws in ADVICE_DOMAINS.items() if any(w in scope.text for w in ws)}
    if _SAVING.search(scope.text):  # how to save money may say where the savings sit (货币基金)
        asked.add("financial")
    if HEALTH_TOPIC.search(scope.text):  # 防高反 may say when to see a doctor, a cat's spaying its 消炎药
        asked.add("medical")
    by_theme = {d for theme in scope.themes for d in _THEME_DOMAINS.get(theme, set())} - asked
    text = "\n".join(
        [str(draft.get("title", "")), str(draft.get("body", "")), " ".join(draft.get("tags") or [])]
    )
    findings = []
    for domain, domain_words in ADVICE_DOMAINS.items():
        if domain in asked and not (domain == "medical" and "pets" in scope.themes):
            continue
        if domain in asked:  # a pet's health asked of: a dose for its owner is no part of it (顺便提醒铲屎官
            # 自己：人要是中暑了，吃几粒藿香正气胶囊)
            owners = [s for s in sentences(text) if _OWNER_ADDRESSED.search(s) and not _PET.search(s)]
            shaped = _shaped_advice(domain, owners, scope, allowed=False)
            if shaped:
                findings.append(_advice_finding(scope, domain, shaped, text, facts))
            continue
        said = [
            _PATCH.sub("", s) if domain == "medical" else s  # (a cooling patch is no drug: 退烧贴)
            for s in sentences(text)
            if not (domain == "medical" and _NOT_CARE.search(s) and not _DOSE_SAID.search(s))
        ]
        used = [w for w in domain_words if any(w in s for s in said if w not in _referred(s))]
        if domain == "medical":
            used += [m.group(0) for s in said for m in _DRUG_NAME.finditer(s) if m.group(0) not in used]
        if domain in by_theme:  # the theme may name a doctor or a vet, not medicines and doses
            vet = _VET_GIVES if _PET_CARE.search(scope.text) else frozenset()
            doses = _HUMAN_DRUGS - vet if "pets" in scope.themes else _DOSING
            used = [w for w in used if w in doses or (_DRUG_NAME.fullmatch(w) and "pets" not in scope.themes)]
        named_drug = any(_DRUG_NAME.fullmatch(w) for w in used)
        shaped = _shaped_advice(domain, said, scope, allowed=domain in by_theme)
        if domain == "weight_loss" and "food" in scope.themes and set(used) <= _CALORIES:
            shaped = []  # a dish's calories (一碗大约550大卡) are what it is, not a diet
        if domain == "medical" and _EXERTION.intersection(scope.themes):  # 练完补一勺蛋白粉, a night climb's
            # 电解质冲剂: what a workout or a hike takes in, no drug — and what it does for the body is the
            # workout's own (快走对心血管好)
            claim = dict(_advice_patterns().get("medical", ())).get("claim")
            shaped = [w for w in shaped if not _SPORTS_FOOD.search(w) and not (claim and claim.fullmatch(w))]
        used += [w for w in shaped if w not in used]
        if not used or (
            len(used) < 2 and not _STRONG_ADVICE.intersection(used) and not named_drug and not shaped
        ):
            continue
        findings.append(_advice_finding(scope, domain, used, text, facts))
    return findings


def _advice_finding(
    scope: Scope, domain: str, used: Sequence[str], text: str, facts: Sequence[str]
) -> Finding:
    """The finding of `domain`'s advice `used` in the post: the writer's, or research's when the evidence
    carried it."""
    carriers = [s for s in sentences(text) if any(w in s for w in used)]
    borrowed = [s for s in carriers if from_evidence(s, facts)]
    owner: Owner = "research_evidence_agent" if borrowed else "writer_agent"
    note = "（来自调研证据）" if borrowed else ""
    topic = scope.request if len(scope.request) <= 24 else scope.request[:23] + "…"
    reason = (
        f"正文出现{_DOMAIN_LABELS[domain]}方面的建议（{'、'.join(used[:3])}）{note}，"
        f"但需求「{topic}」与此无关"
    )
    return Finding("off_topic_advice", "infoDensity", owner, reason)


@cache
def _advice_patterns() -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """Domain → (kind, pattern) of advice recognised by its form (data/lexicon/advice_patterns.txt)."""
    return {
        domain: tuple((kind, re.compile(pattern)) for kind, pattern in entry.items())
        for domain, entry in sections("advice_patterns.txt").items()
    }


# A sentence about the writer or the owner, not the pet (我自己也天天失眠，医生给开了…; 铲屎官自己肠胃
# 不舒服…): a pet post may dose its pet.
_WRITER = re.compile(r"我自己|自己也|我也|(?:铲屎官|主人|大人|你)自己")
_PET = re.compile(r"猫|狗|宠|它|主子|毛孩子|喵|汪")
# …but a person's medicine fed to the pet is advice all the same (再冲半袋家里大人吃的蒙脱石散，用针管喂)
_HUMAN_MEDICINE = re.compile(
    r"(?:大人|人|我们|我|自己)(?:吃|用|喝)的[^，,。；;]{0,6}?(?:药|散|片|胶囊|冲剂|颗粒|软膏|药膏)"
    r"|人用的?[^，,。；;]{0,4}?(?:药|散|片|胶囊)"
)
# a sentence said to the owner of the pet, or of people at large (顺便提醒铲屎官自己, 人要是中暑了)
_OWNER_ADDRESSED = re.compile(r"(?:铲屎官|主人|大人|你|我)自己|人(?:要是|如果|一旦)")
_FED = re.compile(r"喂|给(?:它|他|她|猫|狗|主子)|拌进|混进|掺进|抹在它|涂在它")


def _shaped_advice(domain: str, said: Sequence[str], scope: Scope, *, allowed: bool) -> list[str]:
    """The advice of `domain` the sentences give by its form: a dose, a medicine's form, a calorie count, a
    rate of return (see advice_patterns.txt). A theme that may talk about the domain (a workout and its
    calories) allows its weight-loss numbers; a pet post allows doses for the pet, not for its owner."""
    if allowed and domain != "medical":
        return []
    found: list[str] = []
    for sentence in said:
        owners = bool(_WRITER.search(sentence)) and not _PET.search(sentence)
        if allowed and "pets" in scope.themes and not owners:
            found.extend(m.group(0) for m in _HUMAN_MEDICINE.finditer(sentence) if _FED.search(sentence))
            continue
        for _, pattern in _advice_patterns().get(domain, ()):
            found.extend(m.group(0) for m in pattern.finditer(sentence))
    return list(dict.fromkeys(found))


# A paragraph reads as a post of another theme: it is nearer that theme's centroid (the sample corpus's notes
# of the theme, embedded with the studio's encoder) than the post's own theme's by `THEME_MARGIN`, and it
# reads unlike the rest of the post (cosine under `REST_SIMILAR`). Set on the quality benchmark's drafts and
# tests/agents/data/adversarial_drafts.jsonl's tune rows: the good posts' paragraphs stay under a margin of
# 0.27 (a winter-clothes paragraph in a Harbin trip), a cat's surgery in an interview post is 0.40.
THEME_MARGIN, REST_SIMILAR = 0.3, 0.3


def _elsewhere_paragraphs(body: str, scope: Scope) -> list[str]:
    """Sentences of a middle paragraph about another theme's subject (a cat's surgery in an interview post):
    words a list would have to hold are read by the encoder instead. Only themes unrelated to the post's own
    count — a trip may talk food, a dress may talk sunscreen."""
    if not scope.themes:
        return []
    paras = paragraphs(body)
    middle = [i for i in range(1, len(paras) - 1) if cjk_len(paras[i]) >= 20]
    if not middle:
        return []
    from tools.embeddings import embed  # the encoder loads on first use, not when the critic is imported

    names, centroids = _theme_centroids()
    if not set(scope.themes) & set(names):  # a theme of no sample notes (money, digital) has no centroid
        return []
    vectors = embed([paras[i] for i in middle])
    out: list[str] = []
    for k, i in enumerate(middle):
        by_theme = dict(zip(names, (centroids @ vectors[k]).tolist(), strict=True))
        own = max(by_theme.get(t, -1.0) for t in scope.themes)
        other = max((v for t, v in by_theme.items() if t not in scope.near), default=-1.0)
        if other - own < THEME_MARGIN:
            continue
        # only now the rest of the post (long, so the dearest text to embed)
        rest = embed(["\n".join(p for j, p in enumerate(paras) if j != i)])[0]
        if float(vectors[k] @ rest) < REST_SIMILAR:
            out.extend(s for s in sentences(paras[i]) if cjk_len(s) >= 6)
    return out


def _theme_centroids() -> tuple[tuple[str, ...], Any]:
    """(theme names, their unit centroids): the mean embedding of the sample corpus's notes of each theme,
    shipped with the sample vectors (`tools.vector_cache.theme_centroids`)."""
    from tools.vector_cache import theme_centroids

    return theme_centroids()
