"""Checks of a post's form: the title, the tags, a call to action that fits the kind of post, repeated and
cut-off sentences, and stock phrases. All go back to the writer; the word lists they rely on are data in
`data/lexicon/` (cta_families.txt, generic_tags.txt, stock_phrases.txt).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import pairwise
from typing import Any

from agents.checks import Finding, Owner
from agents.checks.content import off_topic
from agents.checks.places import foreign_mentions, mentioned, region_members
from agents.checks.restated import numbers_differ, restatement
from agents.checks.textutil import (
    LIST_ITEM,
    Scope,
    bigrams,
    char_count,
    is_heading,
    jaccard,
    lines,
    normalise,
    paragraphs,
    sections,
    sentences,
    strip_emoji,
    theme_hits,
    without_challenge,
    words,
)
from tools import segmenter
from tools.entities import HEALTH_HABITS, PET_READERS, advice_domains, posseg_cut, readers
from tools.lexfiles import LEXICON, generic_tags
from tools.offline.text import DAY_LABEL, THEMES

TITLE_MAX = 20
TAGS_MIN, TAGS_MAX = 3, 10
STOCK_LONG = 12  # a stock phrase this long fails on its own
STOCK_FAIL, STOCK_SOFT = 1.5, 0.5  # a post fails at a phrase and a soft turn, or three soft turns
SENTENCE_SIMILAR, PARAGRAPH_SIMILAR = 0.85, 0.7
_EN_SCAFFOLD = re.compile(
    r"^\s*(?:please\s+)?(?:write|create|generate|make|draft|compose)\b|\b(?:a|an|the)\s+(?:post|note|article)\s+(?:about|on)\b",
    re.I,
)
_ZH_SCAFFOLD = re.compile(r"帮我写|帮忙写|请写|写一篇|写一条|写篇|^写写|小红书笔记|[（(]\s*补充|补充[：:]")
# Words that leave a line unfinished when it ends on them (jieba's last word of the line): a connective, or
# the head of a clause that waits for its main clause (找到发力感之后, 如果…的话).
_CONNECTIVES = frozenset(
    """
    和 与 或 而 但 因为 所以 如果 但是 而且 以及 或者 比如 包括 并且 然后 还有 及其 例如 像是
    之后 之前 的时候 的话 虽然 即使 只要 要是 一旦 直到 等到 除了 不仅 不但
    """.split()  # noqa: SIM905 - a word list reads best as text
)
_OPEN_END = "，、,（(「“‘《【—"
# One-character words a sentence cannot end on: a negation, modal, preposition or adverb waits for its verb
# or object ("带够水、别"), an ordinal's 第 for its number ("约了下个月的第").
_DANGLING_WORDS = frozenset("别不没要把在被给让对从向往就也都还很最更太再才第")
# A count with its measure word and nothing after it ("、一把"): the thing counted was cut off.
_MEASURE_END = re.compile(
    r"[、，,和](?:[一二两三四五六七八九十几\d]+)(?:把|个|件|双|条|瓶|包|盒|张|只|支|套|副|顶|块)$"
    # (not a price in tens or more: 燃气灶旁装个报警器，几十块)
    r"(?<![十百千万]块)(?<!\d\d块)"
)
_PAIRS = ("（）", "()", "「」", "“”", "《》", "【】")


# --- title -----------------------------------------------------------------------------------------
def title(scope: Scope, draft: Mapping[str, Any]) -> list[Finding]:
    text = str(draft.get("title", "")).strip()
    findings = []
    count = char_count(text)
    if count > TITLE_MAX:
        findings.append(
            Finding(
                "title_length", "platformFit", "writer_agent", f"标题有 {count} 个字，超过 {TITLE_MAX} 字限制"
            )
        )
    if _pasted(text, scope.request):
        findings.append(
            Finding(
                "title_pasted", "platformFit", "writer_agent", f"标题「{text}」照搬了需求原文，没有写成标题"
            )
        )
    return findings


def _pasted(text: str, request: str) -> bool:
    """Is the title the request pasted back? The whole request is, even a bare topic phrase (「老破小出租屋
    改造」 for that request: a title says something of its own about the topic); so is the request's topic
    with what the request says around it — a writing instruction, 分享, who it is for (给新手看, ，面向…),
    a second clause."""
    if _EN_SCAFFOLD.search(text) or _ZH_SCAFFOLD.search(text):
        return True
    core = normalise(text)
    if len(core) < 4:
        return False
    # two clauses of the request, copied as they stand (武汉过早攻略，适合第一次去武汉的人) — not two phrases
    # picked out of longer ones (第一个半马，最后五公里 of …人生第一个半马，…最后五公里差点走下来)
    said = [normalise(c) for c in _CLAUSE.split(strip_emoji(text)) if c.strip()]
    clauses = [c for c in (normalise(c) for c in _CLAUSE.split(request.strip())) if c]
    if len(said) >= 2 and all(len(c) >= 4 and _most_of_a_clause(c, clauses) for c in said):
        return True
    whole = normalise(request)
    candidates = {whole, clauses[0]} if clauses else {whole}
    if core == whole and (len(core) >= 6 or _ASKING.search(request)):
        return True  # the whole request, a question asked of the studio or a bare topic ("老破小出租屋改造")
    similar = [c for c in candidates if len(c) >= 6 and (core == c or _similar(core, c))]
    if not similar:
        return False
    # The whole of a request of several clauses, or the topic with the request's own scaffolding — or the
    # question it opens with, asked of the studio and pasted back (梨形身材夏天通勤穿什么裤子 of …显瘦？预算…)
    asked = len(clauses) > 1 and clauses[0] in similar and bool(_ASKING.search(clauses[0]))
    # (…or the story it opens with, told word for word: 带我家柯基去安吉露营了两天 — not a topic phrase —, or
    # the wish: 想用电饭煲做腊味煲仔饭)
    asked = asked or (len(clauses) > 1 and core == clauses[0] and len(core) >= 8 and bool(_TOLD.search(core)))
    return (len(clauses) > 1 and whole in similar) or asked or bool(_TITLE_SCAFFOLD.search(strip_emoji(text)))


def _most_of_a_clause(phrase: str, clauses: Sequence[str]) -> bool:
    """Is `phrase` most of one of the request's clauses (three fifths of it or more)?"""
    return any(phrase in c and len(phrase) >= 0.6 * len(c) for c in clauses)


def _similar(a: str, b: str) -> bool:
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.9


_CLAUSE = re.compile(r"[，,。.!！？?；;\n]")
_TOLD = re.compile(r"我|了|^想")
_ASKING = re.compile(r"怎么|如何|哪些|什么|为什么|吗[？?]?$|呢[？?]?$")
# What a request says around its topic that a title does not: 分享/心得分享 at the end, who it is for, a
# request for a write-up.
_TITLE_SCAFFOLD = re.compile(
    r"(?:经验|心得)?分享\s*$|^分享|(?:写给|给|面向|针对)[^，,。]{1,10}(?:看|的人|们)|[，,]\s*(?:面向|针对|适合|给)"
    r"|帮我|帮忙|请写|写一|一篇|笔记$|文案$|帖子$"
)


# --- tags ------------------------------------------------------------------------------------------
def tags(scope: Scope, draft: Mapping[str, Any], evidence: Mapping[str, Any] | None) -> list[Finding]:
    raw = [str(t).strip().lstrip("#") for t in draft.get("tags") or []]
    items = [t for t in raw if t]
    findings = []
    if not TAGS_MIN <= len(items) <= TAGS_MAX:
        findings.append(
            Finding(
                "tag_count",
                "platformFit",
                "writer_agent",
                f"标签有 {len(items)} 个，应为 {TAGS_MIN} 到 {TAGS_MAX} 个",
            )
        )
    post = "\n".join([scope.text, str(draft.get("title", "")), str(draft.get("body", ""))]).lower()
    body = str(draft.get("body", ""))
    foreign = [t for t in items if foreign_mentions(t, scope.places) and not _around_home(t, body, scope)]
    # (…and a tag of another kind of pet than the post keeps is no tag of it: #狗狗训练 on an old cat's water)
    pets = readers(post) & PET_READERS
    unrelated = [
        t for t in items
        if t not in foreign and (not _related(t, post, scope) or (pets and readers(t) & PET_READERS - pets))
    ]
    if unrelated:
        findings.append(
            Finding(
                "tag_unrelated",
                "platformFit",
                "writer_agent",
                f"标签{'、'.join(f'#{t}' for t in unrelated[:4])}和这篇笔记的内容无关",
            )
        )
    if foreign:
        suggested = {
            str(t) for key in ("recommendedTags", "topTags") for t in (evidence or {}).get(key) or []
        }
        owner: Owner = "research_evidence_agent" if suggested.intersection(foreign) else "writer_agent"
        names = "、".join(scope.places.names[:3])
        wanted = f"是别的地方，但需求是{names}" if names else "指向具体的地点，但需求没有指定地点"
        note = "（调研证据推荐了这些标签）" if owner == "research_evidence_agent" else ""
        reason = f"标签{'、'.join(f'#{t}' for t in foreign[:4])}{wanted}{note}"
        findings.append(Finding("tag_foreign_place", "platformFit", owner, reason))
    return findings


def _around_home(tag: str, body: str, scope: Scope) -> bool:
    """A tag of the country round a place the post names only as its background (#成都周边 on a day trip to
    三星堆 by a family who live in 成都): where the trip lies, not another place's post — and, of a post
    about no place, a tag of the city its writer lives in (#上海租房 by a writer renting there)."""
    # (…and what is done there: #北京周边爬山)
    around = re.fullmatch(r"(?P<p>[\u4e00-\u9fff]{2,4}?)(?:周边|附近)[\u4e00-\u9fff]{0,4}", tag)
    # (…or, of a post about no place, the writer's own city and what the post does there: #上海租房)
    home = None if scope.places.names else next((p for p in mentioned(tag) if tag.startswith(p)), None)
    place = around["p"] if around else home
    if place is None:
        return False
    return place in body and place not in foreign_mentions(body, scope.places)


def stray_tags(scope: Scope, draft: Mapping[str, Any]) -> list[str]:
    """The draft's tags the tag check would call unrelated or another place's (the writer drops them
    before anyone sees the draft when enough tags remain)."""
    items = [t for t in (str(t).strip().lstrip("#") for t in draft.get("tags") or []) if t]
    post = "\n".join([scope.text, str(draft.get("title", "")), str(draft.get("body", ""))]).lower()
    return [t for t in items if foreign_mentions(t, scope.places) or not _related(t, post, scope)]


def _related(tag: str, post: str, scope: Scope) -> bool:
    """A platform/theme tag, or one whose distinctive words (not its 经验/日常/分享 part) the post uses — or,
    when the post uses none of them, a tag that names nothing of any theme or advice domain (a mood tag like
    #松弛感 fits any post) and nothing of another theme that the post does not use. #考研经验 on a hiking post
    shares only 经验 with it; #猫咪日常 names pets."""
    lowered = tag.lower()
    if lowered in post or any(lowered in generic_tags(t) for t in ("any", *scope.themes)):
        return True
    if scope.places.names and lowered in generic_tags("travel"):
        return True  # a post about a named place is a visit there too: #旅行 on 潮州's snacks
    seen = _GEOGRAPHY.findall(lowered)
    if scope.places.names and seen and all(g in post for g in seen) and _theme_words(lowered, ["travel"]):
        return True  # …and the lie of the land it tells of (#海边 on paddle-boarding at sea in 厦门)
    own = [w for w in words(lowered) if w not in _generic_parts()]
    if own and all(w in post for w in own):
        return True
    theme_tags = {t for theme in scope.themes for t in generic_tags(theme)}
    if own and all(w in theme_tags for w in own):
        return True  # a theme's tag with an any-post word (#自律生活 on a workout plan: #自律 and 生活)
    # (…or a season's: #冬季运动 on a ski trip is the 运动 of 户外运动, in winter)
    season = next((s for s in _SEASONS if lowered.startswith(s)), "")
    rest = lowered[len(season) :]
    if season and len(rest) >= 2 and any(rest in t for t in theme_tags):
        return True
    named = mentioned(tag) or [m for m in region_members(tag) if scope.places.allows(m)]
    if named and scope.places.names and all(scope.places.allows(p) for p in named):
        return True  # the request's place or the region it lies in (#新疆旅行 on a 赛里木湖 ride, #西北旅行)
    if _theme_words(lowered, scope.themes):
        return True  # #亲子阅读 on a post about reading to a child: the tag names the post's own theme
    # (…nor one a theme of no sample notes relates to: a budgeting app's #效率工具 is money's career)
    table = sections("theme_words.txt")
    # (…and a sub-theme a theme's post touches is no other theme: the money of a career post, #存钱 on a
    # diary of three months without a job)
    kin = {
        r
        for t in scope.themes
        for r in table[t].get("related", "").split()
        if t not in THEMES or r not in THEMES
    }
    others = [t for t in table if t not in scope.themes and t not in kin]
    elsewhere = {w for w in _theme_words(lowered, others) if w not in post}
    trip = {"travel", "outdoor"}.intersection(scope.themes)  # (no 罗马尼亚硬拉: an exercise, no trip)
    if (
        trip and scope.places.names and elsewhere and not named
        and elsewhere <= _theme_words(lowered, ["travel"])  # (read last: only for a place's trip post)
    ):
        return True  # a post about a named place is a trip there, however it is told (#特种兵旅行 on 泰山)
    near = any(g in post for w in elsewhere for g in bigrams(w))  # (博物馆 of a post on a 博物院)
    sight = elsewhere <= _theme_words(lowered, ["travel"])
    if scope.places.names and elsewhere and not named and near and sight:
        return True  # …and so is any post about a named sight (#博物馆 on a child's half day at 南京博物院)
    advice = _advice(lowered, scope.themes)
    if len(own) >= 2 and sum(w in post for w in own) * 2 >= len(own) and not advice:
        return True  # half its words the post's own (#时间管理 on a child's after-school timetable)
    if elsewhere and not (elsewhere <= _SPENDING and _MONEY.search(post)):
        return False
    return any(g in post for w in own for g in bigrams(w)) or not advice


def _advice(tag: str, themes: Sequence[str]) -> bool:
    """Does the tag name advice — medicine, money, weight loss or, on a post of neither food nor fitness, a
    health habit (#养生茶饮, #熬夜护肝 on an island trip; #养生汤 fits a soup)? Such a tag fits only a post
    that shares its words, never any post as a mood tag does."""
    habit = HEALTH_HABITS.search(tag) and not {"food", "fitness"}.intersection(themes)
    return bool(advice_domains(tag) or habit)


_GEOGRAPHY = re.compile(r"[海湖山岛江河]")
# What any post that counts its money is about as well: #省钱生活 on a meal-prep post that saves 两百块 a week
# (not 理财 or 基金: investing is a subject of its own).
_SPENDING = frozenset({"省钱", "预算", "开销", "花费", "消费", "账单"})
_MONEY = re.compile(r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百千万]+)\s*(?:元|块|rmb|RMB)")


def _theme_words(tag: str, themes: Sequence[str]) -> set[str]:
    """The words (and triggers) of `themes` that the tag uses, except the generic tag words (攻略, 日常 …)."""
    table = sections("theme_words.txt")
    found: set[str] = set()
    for key in themes:
        found |= theme_hits(key, tag, min_len=2)
        found |= {w for w in table[key]["triggers"].split() if len(w) >= 2 and w in tag}
    return found - _generic_parts()


_SEASONS = frozenset(
    "春季 夏季 秋季 冬季 春日 夏日 秋日 冬日 春天 夏天 秋天 冬天 春夏 秋冬 暑假 寒假 假期 周末".split()  # noqa: SIM905
)


@cache
def _generic_parts() -> frozenset[str]:
    """Words of the tags that fit any post (经验 of 经验分享, 日常): a tag sharing only these with a post is
    not related to it."""
    return frozenset(w for t in generic_tags("any") for w in (t, *words(t)))


# --- call to action --------------------------------------------------------------------------------
def call_to_action(scope: Scope, draft: Mapping[str, Any]) -> list[Finding]:
    """The closing paragraph's call to action must fit the kind of post (no recipe CTA on a trip)."""
    paras = paragraphs(str(draft.get("body", "")))
    # (a post written without blank lines closes on its last line, when it asks something of the reader)
    lines = [line for line in paras[0].split("\n") if line.strip()] if len(paras) == 1 else []
    lines = lines if lines and _ASKS_READER.search(lines[-1]) else []
    if len(paras) < 2 and len(lines) < 3:
        return []
    # (words quoted are someone's, not the post's ask: 纸条上写着“陌生人让你…点链接…一律先打给儿子”)
    closing = _QUOTED.sub("", strip_emoji(lines[-1] if lines else paras[-1]))
    context = without_challenge(scope.kind_text.lower())  # 30天打卡 is no visit to a place
    for key, family in sections("cta_families.txt").items():
        # (…nor what the writer did: 以上是我下单时的价格)
        match = next((m for m in re.finditer(family["cta"], closing) if not _own_deed(closing, m)), None)
        if not match:
            continue
        fits = [w for w in family.get("fits", "").split() if w in context]
        clashes = [w for w in family.get("clashes", "").split() if w in context]
        if key == "cook" and not fits and scope.places.names:  # food had somewhere, cooked by no word: eaten
            clashes.append(f"去{scope.places.names[0]}吃")  # out there (潮州古城一天吃什么), no recipe's
        if key == "visit" and scope.recipe:  # a recipe's closing sends no one to a shop (店的地址放评论区了)
            clashes.append("菜谱")
        if not clashes:  # the post's own theme fits its closing (画眼线 is beauty) unless a word clashes
            fits += [t for t in family.get("themes", "").split() if t in scope.themes]
        placed = key == "trip" and bool(scope.places.names)
        told = key == "story" and scope.narrative  # the brief made it a story or a diary
        if len(clashes) > len(fits) or (not fits and not placed and not told):
            kind = f"「{clashes[0]}」" if clashes else "这个主题"
            reason = f"结尾的互动引导「{match.group(0)}」是{family['label']}类笔记的说法，和{kind}的内容不符"
            return [Finding("cta_mismatch", "platformFit", "writer_agent", reason)]
    teaser = _TEASER.search(closing)
    if teaser and off_topic(teaser.group(1), scope):
        topic = scope.named()
        reason = f"结尾预告的下期内容「{_clip(teaser.group(1))}」和这篇的主题「{topic}」无关"
        return [Finding("cta_mismatch", "platformFit", "writer_agent", reason)]
    return []


_ASKS_READER = re.compile(r"收藏|评论区|留言|关注|点赞|转发|私信|交作业|打卡|@")
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"")
_BY_WRITER = re.compile(r"(?:我|我们|自己)(?:已经|当时|刚|那时)?$")


def _own_deed(closing: str, match: re.Match[str]) -> bool:
    """Is the call-to-action word what the writer did (以上是我下单时的价格), or when something is done
    (下单前一定看成分), not what the reader is asked to do (我拉你进群 asks)?"""
    after = closing[match.end() :]
    # (…or only when something is done, said of anyone: 下单前一定看成分, 进厨房第一句话是…)
    if re.match(r"(?:前|之前|以前|的时候|之后|以后|第一)", after):
        return True
    done = after.startswith(("时", "的时候", "的", "了", "过"))
    return done and bool(_BY_WRITER.search(closing[: match.start()]))


# A closing that asks the reader to follow for the next post names what that post will be about (关注我，
# 下期教大家在阳台种小番茄): a teaser of another theme's subject calls readers the post did not speak to,
# whatever the words (下期/下一篇/下次 + 教/讲/聊/分享/写 …). Common 小红书 closing phrasing, hand-written
# for this check.
_TEASER = re.compile(
    r"(?:下期|下一期|下篇|下一篇|下次|下回|明天|改天|回头|下周|下个月)(?:再|会|就|还|继续)?"
    r"(?:教|讲|聊|分享|写|说|带|更新?)(?:一?下|聊|讲|讲讲|写写)?(?:大家|你们|你|姐妹们|宝子们)?"
    r"([^。！!？?\n]{2,40})"
)


# --- duplicates ------------------------------------------------------------------------------------
def duplicates(draft: Mapping[str, Any]) -> list[Finding]:
    body = str(draft.get("body", ""))
    paras = [p for p in paragraphs(body) if len(normalise(p)) >= 20]
    for i, a in enumerate(paras):
        for b in paras[i + 1 :]:
            # Shared bigrams, or the same text in the same order with small rewordings (双手搭在肩膀上 /
            # 双手搭肩): a rewritten paragraph keeps most of its characters in sequence.
            if (
                jaccard(bigrams(a), bigrams(b)) >= PARAGRAPH_SIMILAR
                or _ratio(normalise(a), normalise(b)) >= PARAGRAPH_SIMILAR
            ):
                return [_dup("段落", a, b)]
    items = [
        s for line in lines(body) if not is_heading(line) for s in sentences(line) if len(normalise(s)) >= 8
    ]
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            na, nb = normalise(a), normalise(b)
            # (a sentence told again with other numbers is the next item of a list: 每组12次 / 每边10次)
            alike = jaccard(bigrams(a), bigrams(b)) >= SENTENCE_SIMILAR or _ratio(na, nb) >= SENTENCE_SIMILAR
            if (na == nb or (alike and not numbers_differ(a, b))) and not _settings(body, a, b):
                if na == nb and _refrain(body, a):
                    continue
                return [_dup("句子", a, b)]
    # The same point in other words: too few characters in common for the measures above.
    found = restatement(body, str(draft.get("title", "")))
    # (…but not two lines of one plan with other figures: 硬拉 各10kg 4组×10次 / 硬拉 各12kg 4组×10次)
    if found and not numbers_differ(found.first, found.second):
        kind = "段落" if found.whole else "句子"
        quoted = f"「{_clip(found.first)}」和「{_clip(found.second)}」"
        reason = f"正文有换了说法重复的{kind}：{quoted}说的是同一件事"
        return [Finding("duplicate", "readability", "writer_agent", reason)]
    return []


def _refrain(body: str, sentence: str) -> bool:
    """Is a short sentence said twice a refrain: once as a paragraph of its own, then again in the closing
    paragraph (动作慢一点，比做多几个重要。… 动作慢一点，比做多几个重要。6周下来…) — said on purpose, not a
    line pasted twice?"""
    paras = [normalise(p) for p in paragraphs(body)]
    said = normalise(sentence)
    return (
        cjk_count(sentence) <= 16
        and sum(p.count(said) for p in paras) == 2
        and said in paras[:-1]
        and said in paras[-1]
        and paras[-1] != said
    )


def _settings(body: str, a: str, b: str) -> bool:
    """Two short lines of figures, each part of its own item (4组 × 12次，组间休息90秒。从空杆开始… under
    each exercise): every item of a plan may have the same one; a line of figures on its own is a line
    said twice."""

    def setting(sentence: str) -> bool:
        if len(re.findall(r"\d+(?:\.\d+)?", sentence)) < 2 or cjk_count(sentence) > 12:
            return False
        homes = [p for p in paragraphs(body) if sentence in p]
        return all(len(normalise(p)) > len(normalise(sentence)) + 8 for p in homes)

    return setting(a) and setting(b)


def _ratio(a: str, b: str) -> float:
    if min(len(a), len(b)) < 0.7 * max(len(a), len(b)):
        return 0.0
    return difflib.SequenceMatcher(None, a, b).ratio()


def _dup(kind: str, a: str, b: str) -> Finding:
    same = "重复" if normalise(a) == normalise(b) else "几乎一样"
    return Finding(
        "duplicate", "readability", "writer_agent", f"正文有{same}的{kind}：「{_clip(a)}」和「{_clip(b)}」"
    )


def _clip(text: str, limit: int = 24) -> str:
    text = " ".join(strip_emoji(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- cut-off phrases -------------------------------------------------------------------------------
def cut_off(draft: Mapping[str, Any]) -> list[Finding]:
    """A line that stops mid-phrase: on a comma or an opening bracket, on a connective, with a bracket or
    quote left open, or on a colon with nothing after it."""
    title_text = str(draft.get("title", ""))
    body = str(draft.get("body", ""))
    body_lines = lines(body)
    broken = _broken_lines(body)
    candidates = [("标题", title_text, False, False)] + [
        (f"第 {i + 1} 行", line, i == len(body_lines) - 1, line in broken)
        for i, line in enumerate(body_lines)
    ]
    table = _table_labels(body_lines)
    for where, line, last, goes_on in candidates:
        # (a line that ends on a dash leads into the next one, as a colon does: 先说原则—— / 能带走的才买。)
        leads_in = line.rstrip().endswith("——") and not last
        # (…and a row of a table the post keeps, its label on three lines or more, is a cell, not a sentence:
        # 状态：刺痛少了，起皮还在)
        whole = goes_on or leads_in or _label(line) in table or _formula(line)
        why = "" if whole else _unfinished(line, last, where == "标题")
        if why:
            return [Finding("cut_off", "readability", "writer_agent", f"{where}「{_clip(line)}」{why}")]
    for line in [title_text, *body_lines]:
        if clause := _placed_nowhere(line):
            shown = clause if len(clause) <= 12 else "…" + clause[-11:]
            reason = f"「{shown}」后面少了放到哪里，话没说完"
            return [Finding("cut_off", "readability", "writer_agent", reason)]
    if glued_label := _glued_label(body_lines):
        reason = f"「{glued_label}」中间断了：前一句停在半句，直接接上了下一段的小标题"
        return [Finding("cut_off", "readability", "writer_agent", reason)]
    for line in body_lines:
        if glued := _COVERB_CUT.search(strip_emoji(line)):
            reason = f"「{glued.group(0)}」中间断了：前一句停在半句，直接接上了下一句"
            return [Finding("cut_off", "readability", "writer_agent", reason)]
        for sentence in _stopped_inside(line):
            shown = sentence if len(sentence) <= 12 else "…" + sentence[-11:]
            reason = f"句子「{shown}」停在半句就句号结束了，后面的内容被截断了"
            return [Finding("cut_off", "readability", "writer_agent", reason)]
    bare = _bare_lists(body)
    # (rows of a schedule, three or more, each opened by its day: 周四 3km带几段加速，周日比赛 — ending on a
    # thing or a doing, not on a word that waits for one: 先喂它、先)
    rows = [line for line in body_lines if _SCHEDULE_ROW.match(strip_emoji(line).strip())]
    whole_rows = {line.strip() for line in rows if (tagged := posseg_cut(strip_emoji(line).strip()))
                  and tagged[-1][1][:1] in ("n", "v", "m", "q") and not _SENTENCE_INSIDE.search(line)}
    bare |= whole_rows if len(rows) >= 3 else set()
    prose = [(i, line) for i, line in enumerate(body_lines) if _is_prose(line)]
    ended = [line for _, line in prose if _END.search(line)]
    for i, line in prose:
        # A paragraph of sentences that stops on a bare word, in a body whose other paragraphs all end
        # their sentences: cut mid-sentence (错题拍照存进). Not the closing line, which may end bare.
        # (a line that ends on a colon introduces the next: 我做了三件事：)
        opens = line.rstrip().endswith(("：", ":"))
        chosen = bool(_TIME_CHOSEN.search(strip_emoji(line).strip()))  # 避开周末中午的时候 is whole
        chosen = chosen or bool(_AMOUNTS.match(strip_emoji(line).strip()))
        chosen = chosen or _formula(line)
        ends = bool(_END.search(line)) or opens or chosen or line in broken
        # (…and not one that ends on its object, a noun, in a plan's labelled line: 第7周：…拌进米粉)
        # (…a row or a labelled line that ends sentences before its bare end was cut all the same:
        # 07:00回农家院吃早饭，小米粥加馒头鸡)
        whole = _labelled_whole(line) and not _SENTENCE_INSIDE.search(line)
        cut = i < len(body_lines) - 1 and not ends and not whole and line.strip() not in bare
        if cut and len(ended) >= max(2, len(prose) - 1):
            tail = strip_emoji(line).strip()
            tail = tail if len(tail) <= 16 else "…" + tail[-15:]
            reason = f"第 {i + 1} 行停在「{tail}」，没有句末标点，句子被截断了"
            return [Finding("cut_off", "readability", "writer_agent", reason)]
    for line in _cut_items(body):
        tail = strip_emoji(line).strip()
        tail = tail if len(tail) <= 16 else "…" + tail[-15:]
        reason = f"列表项「{tail}」停在半句，其他项都说完了，句子被截断了"
        return [Finding("cut_off", "readability", "writer_agent", reason)]
    return []


# Words no sentence ends on, even with its full stop (椭圆机在中等阻力下只有。): a preposition or a connective
# waits for what the cut took, a coverb of a way for the way (海鸥会贴着。), a bound 不超 for its 过 — not
# 给, 对, 把 or 跟, which end sentences as verbs or nouns (再给, 车把), nor 对着 or 跟着 (和兴教寺正对着,
# 水声一路跟着)
_NEVER_LAST = frozenset(
    "只有 被 从 向 往 为了 因为 所以 如果 但是 而且 比如 例如 包括 关于 以及"  # noqa: SIM905
    " 沿着 朝着 顺着 向着 贴着 不超".split()
)


# A word that leads its object (对着, 沿着, 按照 …) run straight into a word that opens a sentence (还有,
# 但是, 所以 …): the object was cut and the next sentence glued on (后来对着还有别每天练)
_COVERB_CUT = re.compile(
    r"[\u4e00-\u9fff]{0,6}(?:对着|朝着|冲着|跟着|顺着|沿着|按照|按着|照着|向着|通过|根据|对于|关于|为了"
    r"|除了|趁着)(?:还有|但是|所以|然后|而且|因为|如果|其实|另外|最后|不过|可是|于是)"
    # …or a numbered line glued on where the line before it stopped (一步一步交替收4. 臀桥：…)
    r"|[\u4e00-\u9fff]{2,6}(?<![第约共])(?:[1-9]|1\d)[.．]\s*[\u4e00-\u9fff]{2,}"
)


_OPENING_LABEL = re.compile(r"^([^，,。；;！!？?：:\s]{2,10})[：:]")
_LABEL_INSIDE = re.compile(r"(?<=[\u4e00-\u9fff])([\u4e00-\u9fff\d]{2,8})[：:]")


def _glued_label(body_lines: list[str]) -> str:
    """A line with another section's label run into it where a sentence stopped (…这种邮件里常用的睡前10分钟：
    对着手机录…, in a body whose sections open 通勤20分钟： / 午休10分钟：): the words around the join, or ''.
    The label inside ends as two opening labels of the body do (…10分钟, …20分钟), so it is one of theirs."""
    labels = [m.group(1) for line in body_lines if (m := _OPENING_LABEL.match(strip_emoji(line).strip()))]
    for line in body_lines:
        text = strip_emoji(line).strip()
        opening = _OPENING_LABEL.match(text)
        for m in _LABEL_INSIDE.finditer(text):
            inside = m.group(1)
            if opening and m.end() == opening.end():
                continue  # (the line's own label, read from inside it)
            alike = [k for k in labels if k != inside and len(k) >= 3 and inside[-2:] == k[-2:]]
            if m.start() > 0 and len(alike) >= 2 and inside not in labels:
                return text[max(0, m.start() - 6) : m.end()]
    return ""


# A verb that puts something somewhere, or makes it into something, with the 进/入/到/在/给/成 that wants the
# place or the result after it (当地人会把整只土鸡放进；, 切成 then a full stop): a clause cannot end on it
_PLACING = re.compile(
    r"(?:[放倒装塞扔丢泡浸拌撒挂摆贴码铺堆寄交搬移挪夹插灌淋浇抹涂洒滴藏埋][进入到在给]"
    r"|[送传留][进入在给]|[切剪揉搓捏折卷叠拼煮熬炸][成])$"
)


def _placed_nowhere(line: str) -> str:
    """The first clause of a line that ends on a putting verb with nothing after its 进/到/在 … (see
    `_PLACING`); '' when none. Not a heading, which names a step (倒入)."""
    if is_heading(line):
        return ""
    for clause in re.split(r"[，,。；;！!？?、：:\n…~～]", strip_emoji(line)):
        clause = clause.strip(" 　\"'“”）)")
        if len(clause) >= 4 and _PLACING.search(clause):
            return clause
    return ""


def _stopped_inside(line: str) -> list[str]:
    """The sentences of a line, before its last, that end their full stop on a word no sentence ends on."""
    parts = re.findall(r"[^。！？!?]+[。！？!?]", strip_emoji(line))
    out = []
    for part in parts[:-1] if not re.search(r"[。！？!?]\s*$", line) else parts:
        words_ = [w for w in segmenter.cut(part.rstrip("。！？!?")) if w.strip()]
        if len(words_) >= 3 and words_[-1] in _NEVER_LAST:
            out.append(part)
    return out


def _bare_lists(body: str) -> set[str]:
    """The items of lists whose items mostly end bare (□ 水杯两个 / □ 湿巾、干纸巾各一包), and the labelled
    lines of records that mostly do (刺激：很少 / 适合：…): an item that tells a sentence or two ends its last
    one bare as well, in the list's own style."""
    by_mark: dict[str, list[str]] = {}  # (a list under several headings is one list by its mark)
    for line in (line.strip() for line in body.splitlines()):
        if (mark := LIST_ITEM.match(line)) is not None:
            by_mark.setdefault(re.sub(r"\d+", "1", mark.group(0).strip()), []).append(line)
        elif _LABEL.match(strip_emoji(line).strip()):  # records of labelled lines (上脸：… / 刺激：…) too
            by_mark.setdefault("：", []).append(line)
    out: set[str] = set()
    for items in by_mark.values():
        if len(items) >= 3 and sum(not _END.search(item) for item in items) * 2 > len(items):
            out.update(items)
    return out


def _cut_items(body: str) -> list[str]:
    """List items of several clauses that stop bare on a verb in a list whose other items (two or more) all
    end their sentences (…再放牛腩、土豆，倒入 among steps ending on 。): the item was cut before its object.
    Not a line of amounts, a chosen time or a formula, which is whole without an end."""
    out: list[str] = []
    for para in paragraphs(body):
        lines_ = [line.strip() for line in para.splitlines()]
        # (a timetable's lines are its items: 8:30 双林寺，…)
        clock = [line for line in lines_ if _CLOCK_LED.match(line)]
        items = clock if len(clock) >= 3 else [
            line for line in lines_ if LIST_ITEM.match(line) and not is_heading(line)
        ]
        ended = [bool(_END.search(item)) for item in items]
        for item, done in zip(items, ended, strict=True):
            text = strip_emoji(item).strip()
            whole = _TIME_CHOSEN.search(text) or _AMOUNTS.match(text) or _formula(item)
            # (a copula is read by `_unfinished`: 你是不是也是 asks, 关键是 announces)
            verb = bool(text) and posseg_cut(text)[-1][1] == "v" and posseg_cut(text)[-1][0] not in "是有在"
            # (…or on the thing a clause was about to say something of: 殿里的彩塑, then the next hour)
            subject = len(text.split("，")) >= 3 and bool(_SUBJECT_LEFT.search(text))
            alone = not done and sum(ended) >= 2 and sum(ended) == len(items) - 1
            if alone and (verb or subject) and "，" in text and not whole:
                out.append(item)
    return out


# a line of a timetable (8:30 双林寺，…): an item of its list
_CLOCK_LED = re.compile(r"^\d{1,2}[:：]\d{2}")
# a last clause of only what it is about, whose saying was cut (，殿里的彩塑)
_SUBJECT_LEFT = re.compile(r"[，,][\u4e00-\u9fff]{1,6}的[\u4e00-\u9fff]{1,4}$")


# a line's label: 洁面：… or, in a template, 【本周结果】… (a bracketed label is a colon's label)
_LABEL = re.compile(r"^(?:[^，,。：:]{1,8}[：:]|【[^】，,。]{1,8}】)")


_SCHEDULE_ROW = re.compile(rf"{DAY_LABEL}[\s：:]")
_SENTENCE_INSIDE = re.compile(r"[。！？!?](?=.*[\u4e00-\u9fff])")  # a sentence ended, more told after it


def _labelled_whole(line: str) -> bool:
    """A labelled line (第7周：…, 洁面：…) whose last clause ends on a noun: an item of its list, told whole
    without an end mark as its neighbours are."""
    text = strip_emoji(line).strip()
    tagged = posseg_cut(text)
    return bool(_LABEL.match(text)) and bool(tagged) and tagged[-1][1].startswith("n")


def _label(line: str) -> str:
    """The short label a line opens on, before its colon (状态：…), or ''."""
    found = re.match(r"^\s*([\u4e00-\u9fffA-Za-z]{1,6})[：:]", strip_emoji(line))
    return found.group(1) if found else ""


def _table_labels(body_lines: Sequence[str]) -> set[str]:
    """The labels three or more lines of the body open on (状态：… on every day of a diary): a table's."""
    counts = Counter(label for line in body_lines if (label := _label(line)))
    return {label for label, n in counts.items() if n >= 3}


def _formula(line: str) -> bool:
    """A formula of parts (事实（简短）+ 我想要的 + 这个岗位正好能给): no sentence to finish."""
    return len(re.findall(r"[+＋]", line)) >= 2


def _broken_lines(body: str) -> set[str]:
    """Lines a post breaks after a comma, one clause a line, with the sentence going on in the next line of
    its paragraph (这套动作我在工位上练了三个月，/ 同事从笑我，到跟着我一起做。) — not a list item or heading,
    nor followed by one or by a blank line, where a comma is where the text was cut."""
    raw = [line.strip() for line in body.splitlines()]
    return {
        line
        for line, after in pairwise(raw)
        if line.endswith(("，", ",", "、"))
        and after
        and not is_heading(line)
        and not LIST_ITEM.match(line)
        and not is_heading(after)
        and not LIST_ITEM.match(after)
    }


# A line ends its sentence: end punctuation or a semicolon, a closing bracket or quote (a straight one
# after the sentence's own end: 现在周会是我主持。"), an emoji or a tilde.
_END = re.compile(
    r"(?:[。！？!?…~～」』”’）)\]】.；;]|[。！？!?…][\"']|[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f])\s*$"
)
# A line that only lists amounts (牛腩500克，番茄3个，…，盐少许): an ingredient or packing list, whole
_AMOUNT = (
    r"(?:(?:\d+(?:\.\d+)?|[一二两三四五六七八九十半几]+)\s*(?:小|大|满)?"
    r"(?:克|g|千克|kg|毫升|ml|勺|匙|颗|个|片|根|块|瓣|杯|碗|斤|把|滴|袋|包|盒|瓶|张|件|双|条)|少许|适量|若干)"
)
# …ending on a thing's amount (花椒1小把): whole, though 把 may also open a clause
_AMOUNT_END = re.compile(rf"[\u4e00-\u9fff]\s*{_AMOUNT}$")  # (花椒 1小把 too)
_AMOUNTS = re.compile(rf"^(?:[^，,、。；;]{{1,10}}?{_AMOUNT}[，,、]\s*)+[^，,、。；;]{{1,10}}?{_AMOUNT}$")


def _is_prose(line: str) -> bool:
    """A paragraph line of running text: several clauses, not a heading, nor a list item unless it tells
    whole sentences (an item with a sentence ended inside it ends its last one too)."""
    return (
        not is_heading(line)
        and (not LIST_ITEM.match(line) or bool(_ENDED_INSIDE.search(line)))
        and cjk_count(line) >= 12
        and bool(re.search(r"[，,。；;]", line))
    )


_ENDED_INSIDE = re.compile(r"[。！？!?](?=.*[\u4e00-\u9fff]{4})")


def cjk_count(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff]", text))


_WHEN = frozenset(("之后", "以后", "之前", "的时候"))


def _unfinished(line: str, last: bool, title: bool = False) -> str:
    text = strip_emoji(line).strip()
    if not text or text.endswith(("…", "...")):
        return ""
    for pair in _PAIRS:
        if text.count(pair[0]) > text.count(pair[1]):
            return f"的「{pair[0]}」没有闭合，句子被截断了"
    if text[-1] in _OPEN_END:
        return f"以「{text[-1]}」结尾，话没说完"
    if text[-1] in "：:" and last:
        return "以冒号结尾，后面没有内容"
    tail = [w for w in segmenter.cut(text) if w.strip()]
    ending = next((c for c in _CONNECTIVES if len(c) > 1 and text.endswith(c)), tail[-1] if tail else "")
    # (a title or a labelled line may be a time clause: 第一次汇报搞砸之后, 适合：屏障受损的时候)
    labelled = (label := _LABEL.match(text)) is not None and not re.search(r"[，,。；;]", text[label.end() :])
    when = ending in _WHEN and (title or labelled) and cjk_count(text) >= 5
    if ending in _CONNECTIVES and not is_heading(line) and not _TIME_CHOSEN.search(text) and not when:
        return f"停在「{ending}」上，话没说完"
    if _MEASURE_END.search(text) and not is_heading(line):
        return f"停在「{text[-4:]}」，量词后面没有东西"
    waits = (ending in _DANGLING_WORDS and not _AMOUNT_END.search(text)) or _copula_waits(text)
    waits = waits or _attribute_waits(text)
    waits = waits or bool(_WAITING.search(text))
    if waits and not is_heading(line):
        shown = text if len(text) <= 10 else "…" + text[-9:]
        return f"停在「{shown}」，话没说完"
    return ""


# a time that is the object of a choice is a whole clause: 建议选早上人少的时候, 趁天凉之前, 放到饭后之后
_TIME_CHOSEN = re.compile(
    r"(?:选|挑|趁|赶在|避开|错开|等到|留到|放到|定在)[^，,。；;]{0,12}(?:的时候|之前|之后)$"
)


# a line that stops on an adverb of manner, a 别…着, a modal or a 怎么 that waits for its verb (用筷子快速,
# 别慌着, 下雨只能, 看看路上的人怎么)
_WAITING = re.compile(
    r"(?:快速|迅速|慢慢|轻轻|稍微|尽量|赶紧|立刻|马上|反复|均匀地?|别[\u4e00-\u9fff]{1,2}着"
    r"|只能|只好|必须|一定要|记得|不得不|总得|怎么"
    # (…or on a modal and who is to do it, the doing left out: 行李要自己)
    r"|(?:要|得|需要|应该|只能)(?:自己|先|再|提前))$"
)


def _attribute_waits(text: str) -> bool:
    """Does the last clause stop on a verb's result + 的 that waits for its noun (牛腩选带点筋的，炖出来的)?
    With a 是 in the clause it is a whole 是…的 statement (这是手机拍出来的)."""
    clause = re.split(r"[，,。！？!?；;]", text)[-1]
    return bool(re.search(r"(?:出来|起来|下来|过来|上去|下去)的$", clause)) and "是" not in clause


def _copula_waits(text: str) -> bool:
    """Does the line end on a 是 that announces what follows (还有一个小技巧是, 最重要的是)? Its subject is a
    noun or a 的-phrase; a 是 after an adverb or a pronoun ends a reply (我也是, 就是) and is left alone."""
    if not text.endswith("是") or text.endswith(("就是", "也是", "都是", "还是", "正是", "真是", "总是")):
        return False
    tagged = [(w, f) for w, f in posseg_cut(text[-12:]) if w.strip()]
    if len(tagged) < 2 or tagged[-1][0] != "是":
        return False
    word, flag = tagged[-2]
    return word == "的" or flag.startswith("n") or flag in {"vn", "an"}


# --- stock phrases ---------------------------------------------------------------------------------
@cache
def _stock() -> tuple[tuple[re.Pattern[str], float, bool], ...]:
    """The stock phrases as (pattern, weight, may fail alone): a plain line matches itself and a "re: " line
    is a regular expression, each weighing 1 and failing alone when long; a "tpl: " line is a structural
    template (相信…一定会) weighing 1 that never fails alone; a "soft: " line a turn a person may also write
    (此外, 总的来说, 既…又…) weighing a half — a good post may use one such turn, a template-written one
    strings them together."""
    text = (LEXICON / "stock_phrases.txt").read_text(encoding="utf-8")
    items = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    out = []
    for item in items:
        kind, _, rest = item.partition(":")
        if kind in ("re", "tpl", "soft") and rest.startswith(" "):
            weight = STOCK_SOFT if kind == "soft" else 1.0
            out.append((re.compile(rest.strip(), re.I), weight, kind == "re"))
        else:
            out.append((re.compile(re.escape(item), re.I), 1.0, True))
    return tuple(out)


def stock_hits(text: str) -> dict[str, tuple[float, bool]]:
    """The stock phrases `text` uses: each hit with its weight and whether it may fail alone."""
    return {m.group(0): (weight, alone) for p, weight, alone in _stock() if (m := p.search(text))}


def stock_phrases(draft: Mapping[str, Any]) -> list[Finding]:
    found = stock_hits(f"{draft.get('title', '')}\n{draft.get('body', '')}")
    weight = sum(w for w, _ in found.values())
    if weight >= STOCK_FAIL or any(alone and len(p) >= STOCK_LONG for p, (_, alone) in found.items()):
        hits = sorted(found, key=lambda p: -found[p][0])  # the surest first
        quoted = "".join(f"「{_clip(p)}」" for p in hits[:3])
        return [Finding("stock_phrase", "platformFit", "writer_agent", f"出现套话{quoted}，读起来像模板")]
    return []


def all_form(scope: Scope, draft: Mapping[str, Any], evidence: Mapping[str, Any] | None) -> Sequence[Finding]:
    return [
        *title(scope, draft),
        *tags(scope, draft, evidence),
        *call_to_action(scope, draft),
        *duplicates(draft),
        *cut_off(draft),
        *stock_phrases(draft),
    ]
