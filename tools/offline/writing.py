"""Offline composers for the writing tasks: the evidence summary and direct answers.

Understanding the request (intent and brief) is in `tools.offline.briefing`, the writer in
`tools.offline.drafting`."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from tools import segmenter
from tools.entities import READER_CONDITION, places, posseg_cut, readers
from tools.offline import voice
from tools.offline.context import Context, engagement, note_dicts, tag_names
from tools.offline.drafting import PERSON, SEVERAL, subject_words
from tools.offline.material import is_labelled, role_of
from tools.offline.text import (
    dedupe,
    is_concrete,
    keywords,
    overlap,
    sentences,
    shorten,
    strip_emoji,
    units,
)
from tools.offline.topic import GENERIC_WORDS, extract_topic

# --- evidence ----------------------------------------------------------------------------------------
_PATTERN_WORDS = (
    "保姆级",
    "亲测",
    "避雷",
    "闭眼",
    "天花板",
    "平价",
    "宝藏",
    "新手",
    "懒人",
    "绝绝子",
    "必看",
)


def title_patterns(titles: list[str]) -> list[str]:
    """Describe what the winning titles do, each with an example."""
    checks = (
        (lambda t: bool(re.search(r"\d+|[一二三四五六七八九十]+个", t)), "数字清单式标题"),
        (lambda t: "｜" in t or "|" in t, "竖线分隔主副标题"),
        (lambda t: bool(re.search(r"[?？]", t)), "提问式钩子"),
        (lambda t: strip_emoji(t) != t, "标题带表情符号增加亲和力"),
        (lambda t: bool(re.search(r"[!！]", t)), "感叹句制造情绪"),
    )
    patterns = []
    for check, label in checks:
        hits = [t for t in titles if check(t)]
        if hits:
            patterns.append((len(hits), f"{label}（{len(hits)}/{len(titles)}，如「{hits[0]}」）"))
    words = Counter(w for t in titles for w in _PATTERN_WORDS if w in t)
    for word, count in words.most_common(2):
        patterns.append((count, f"高频词「{word}」出现{count}次"))
    return [text for _, text in sorted(patterns, key=lambda p: -p[0])][:6]


# A sentence that tells the reader what to do is evidence too, numbers or not.
_ADVICE = re.compile(r"建议|一定|别|不要|记得|提前|最好|推荐|值得|适合|先|可以|注意|避开|优先")


def compose_evidence(ctx: Context) -> dict[str, Any]:
    brief = ctx.brief
    words = [*brief.get("keywords", []), *keywords(ctx.topic, 3)]
    notes = note_dicts([ctx.data("notes"), ctx.data("top_titles"), ctx.data("trend")])
    notes.sort(key=lambda n: (overlap(words, f"{n['title']}{n['desc']}") + 1) * engagement(n), reverse=True)
    relevant = [n for n in notes if overlap(words, f"{n['title']}{n['desc']}{n.get('tags', '')}")]
    if len(relevant) >= 2:  # search results can carry stragglers from other topics: leave them out
        notes = relevant
    # the activity itself (骑行, 露营 …) decides: notes sharing only a place or a season do not
    core = [w for w in ctx.theme.triggers if w in ctx.topic]
    on_activity = [n for n in notes if overlap(core, f"{n['title']}{n['desc']}{n.get('tags', '')}")]
    if len(on_activity) >= 2:
        notes = on_activity
    # The note most about the subject leads: its whole sequence (steps in order, its advice) is worth more
    # to a writer than the best sentence of each of five notes. The others give their best two.
    # (…a doing said only of how the request wants it, not in its topic, is no subject: 想吃想逛都兼顾)
    core = [w for w in subject_words(words) if w in ctx.topic or not _plain_doing(w)]
    # (…nor a part of any trip or plan, nor how long it lasts: a Quanzhou note need not say 每天 or 花费 to
    # lead a post asking for each day's route and spending, nor 三日游 to lead a three-day trip)
    core = [w for w in core if not _ASPECT.match(w) and not _DURATION.match(w)] or core
    # who it is for is not all it is about: a note on 职场新人 buying clothes does not lead a post on a
    # 职场新人's 周报 — the lead must say something else the subject says, and reader words weigh half
    audience = str(brief.get("audience") or "")
    other = [w for w in core if w not in audience]
    # (…nor whose it is: 妈妈 of 新手妈妈产后恢复 makes no lead of a note on a toddler's nights)
    other = [w for w in other if not PERSON.fullmatch(w)] or other
    # a post on a place within a city (鼓浪屿, 东山岛) follows no note that is not about that place
    named = places(ctx.topic)
    finer = named[1:] or named  # 苏州平江路和山塘街: a note on either street may lead, not one on 苏州 alone
    rarity = _rarity(core, notes)  # once: every note's focus weighs the same words
    focus = {id(n): _focus(core, n, rarity, audience, ctx.topic) for n in notes}
    notes.sort(key=lambda n: focus[id(n)], reverse=True)  # stable: engagement breaks ties
    # what sets this subject apart from its neighbours (午休 of 午休健身, 高铁 of 带宝宝坐高铁): a note that
    # does not say it is about a neighbour — a breakfast note is no lunch-break workout
    distinct = _distinct(other or core, notes, named) or other or core
    # (…a person it tells of sets it apart only when nothing else does: 妈妈 of 当妈妈一年 makes no lead of
    # 妈妈牌酸菜鱼)
    distinct = [w for w in distinct if not readers(w) and not PERSON.fullmatch(w)] or distinct
    # A request for several things (推荐几道快手早餐, 三款防晒) is answered by several notes, one or two items
    # each — never one note's recipe steps numbered as "4 dishes".
    several = brief.get("contentType") == "list" and bool(SEVERAL.search(f"{ctx.request} {ctx.topic}"))
    facts = _several_things(notes, distinct, core) if several else []
    if len({f["sourceId"] for f in facts}) < 2:  # too few named things: follow a note as any post does
        # the note the post follows: the one most about the subject among those saying what sets it apart
        lead = next(
            (n for n in notes if focus[id(n)] > 0 and _covers(distinct, n) and _leads(n, finer)), None
        )
        if lead is not None:
            notes.remove(lead)
            notes.insert(0, lead)
        facts = _followed(notes, lead, (other or core) if lead else distinct, words, rarity)
    titles = [n["title"] for n in notes[:12]]
    # tags of the notes about it (no #在家遛娃 on 腹肌, no #学步鞋 on a train trip)
    on_subject = [n for n in notes if focus[id(n)] > 0 and _covers(distinct, n)]
    # none about it (仓鼠 in a corpus of cats and dogs): no note's tags (#柯基), the subject's own only
    tags = _recommended_tags(words, on_subject[:10], tag_names([ctx.data("top_tags"), ctx.data("trend")]))
    desc_words = Counter(w for n in notes[:10] for w in keywords(n["desc"], 8))
    # (what the notes talk about: things, not when or how much — 猫砂, not 每天 or 至少)
    common = [w for w, _ in desc_words.most_common(12) if w not in ctx.topic and _talked_of(w)][:3]
    likes = [int(n.get("likes") or 0) for n in notes[:10]]
    if notes:
        summary = (
            f"检索到{len(notes)}篇与「{ctx.topic}」相关的笔记，"
            f"前{len(likes)}篇平均点赞约{sum(likes) // len(likes)}；"
            f"高互动内容集中在{'、'.join(common) or ctx.topic}，"
            + (f"热门标签有{'、'.join(tags[:4])}。" if tags else "没有贴合主题的热门标签。")
        )
        if not facts:  # notes of the theme, none on the subject itself: the editor is told so
            summary += f"这些笔记都没有直接讲「{ctx.topic}」，正文以通用经验为主。"
    else:
        summary = f"语料库里暂时没有与「{ctx.topic}」直接相关的笔记，建议以个人经验和通用技巧为主。"
    gaps = ctx.text("gaps")
    if gaps:  # say plainly what the corpus lacks, before anything it has
        summary = "；".join(g.split("：")[0] for g in gaps.splitlines() if g.strip()) + "。" + summary
    audience = brief.get("audience") or ctx.theme.audience
    angles = dedupe(
        [
            f"{audience}视角的{ctx.topic}入门",
            *(f"围绕「{w}」展开的实用细节" for w in common[:2]),
            f"{ctx.topic}的避坑清单",
        ]
    )
    return {
        "summary": shorten(summary, 580),
        "facts": facts[:12],
        "titlePatterns": title_patterns(titles),
        "recommendedTags": tags[:8],
        "angles": angles[:4],
    }




def _items(note: dict[str, Any], parts: list[str], distinct: list[str], core: list[str]) -> list[str]:
    """What one note gives a post listing several things: its own labelled items (燕麦杯：…), or else its
    one thing, named (鸡蛋灌饼：从开火到出锅不到5分钟) — a note whose thing has no name gives nothing."""
    labelled = [
        s for s in parts
        if is_labelled(s) and len(s) <= 80 and _a_thing(re.split(r"[：:]", s)[0])
    ]
    if labelled:
        return labelled[:3]
    name = _item_name(note, [*distinct, *core])
    usable = [s for s in parts if 10 <= len(s) <= 60 and not s.startswith(("我", "第"))]
    best = sorted(usable, key=lambda s: -(is_concrete(s) + bool(_ADVICE.search(s))))
    return [f"{name}：{best[0]}"] if name and best else []


def _fact(note: dict[str, Any], text: str) -> dict[str, Any]:
    return {"text": text, "sourceId": note.get("id"), "sourceTitle": note["title"]}


def _parts(note: dict[str, Any]) -> list[str]:
    return [s for s in units(note["desc"]) if len(s) <= 150 and not s.endswith(("…", "..."))]


def _several_things(
    notes: list[dict[str, Any]], distinct: list[str], core: list[str]
) -> list[dict[str, Any]]:
    """Several notes' things, one or a few each (see `_items`), from the notes that say the subject."""
    facts: list[dict[str, Any]] = []
    for note in notes:
        if _covers(distinct, note):
            facts += [_fact(note, s) for s in _items(note, _parts(note), distinct, core)]
        if len(facts) >= 12:
            break
    return facts[:12]


def _followed(
    notes: list[dict[str, Any]],
    lead: dict[str, Any] | None,
    subject: list[str],
    words: list[str],
    rarity: dict[str, float],
) -> list[dict[str, Any]]:
    """The lead note's whole sequence, then the others' best two sentences on the subject. With no lead
    (no note says what sets the subject apart), every sentence must name the subject itself: a breakfast
    note's menu is no lunch-break workout, its line on what to eat on a workout day may be."""
    facts: list[dict[str, Any]] = []
    for note in notes:
        parts = _parts(note)
        if note is lead:
            chosen = parts[:9]
        else:
            usable = [s for s in parts if is_concrete(s) or _ADVICE.search(s)]
            # only its text names it, or no note leads: only the sentences that name it
            if lead is None or not _focus(subject, {**note, "desc": ""}, rarity):
                usable = [s for s in usable if overlap(subject, s)]
            best = sorted(usable, key=lambda s: overlap(words, s) + is_concrete(s), reverse=True)[:2]
            chosen = sorted(best, key=usable.index)  # in the note's own order: a story stays in sequence
        facts += [_fact(note, s) for s in chosen]
        if len(facts) >= 12:
            break
    return facts


# A label that says when, how or for whom, not which thing: 周一：… / 涂法：… / 化妆品清单：… / 学生党：…
_NOT_A_THING = re.compile(
    r"^(?:周[一二三四五六日末]|星期|早上|早餐|午餐|晚餐|中午|晚上|第.+[天步])"
    r"|(?:法|技巧|清单|方法|步骤|建议|心得|总结|注意|小技巧|党|族|人|新手|小白)$"
)


def _a_thing(label: str) -> bool:
    """Does a label name a thing (燕麦杯, 蓝调正红), not a time, a method, a reader or a place?"""
    label = label.strip()
    return not _NOT_A_THING.search(label) and not readers(label) and not places(label)


def _item_name(note: dict[str, Any], subject: list[str]) -> str:
    """The thing a note is about, as its author tagged it and named it in the title (鸡蛋灌饼 of
    「5分钟快手早餐：鸡蛋灌饼平替版」), other than the subject itself (快手早餐) or a word about it."""
    title = str(note["title"])
    for tag in map(str, note.get("tags") or []):
        if (
            2 <= len(tag) <= 6
            and tag in title
            and not any(w in tag or tag in w for w in subject)
            and _a_thing(tag)
            and not re.search(r"[区城街路店镇村]$", tag)  # 老城区 is where, not what
        ):
            return tag
    return ""


def _text(note: dict[str, Any]) -> str:
    return f"{note['title']} {' '.join(map(str, note.get('tags') or []))} {note['desc']}"


def _leads(note: dict[str, Any], finer: list[str]) -> bool:
    """May this note lead a post on these places: does its title or tags name one of the finer places the
    subject names (no place: any note)?"""
    head = f"{note['title']} {' '.join(map(str, note.get('tags') or []))}"
    return not finer or any(place in head for place in finer)


# How long or when, not what: a Dalian note need not say 两天一夜 to lead a two-day Dalian post
_DURATION = re.compile(
    r"^(?:第?[\d一二两三四五六七八九十半]+个?[天日晚夜周月年](?:游)?|[一二两三四五六七八九十]天[一二两三四五六七八九十][晚夜]"
    r"|周末|假期|暑假|寒假|国庆|五一|时间|时候|每天|日常)$"
)
# A part of any trip or plan, not what sets this one apart
_ASPECT = re.compile(r"^(?:路线|花费|费用|预算|交通|住宿|行程|每天|天气|门票|装备|注意事项)$")
_DIGITS = str.maketrans("一二两三四五六七八九", "1223456789")
_ASKED = re.compile(r"怎么|如何|什么|哪些|准备|需要|利用|选择")  # how it is asked, not what about


def _plain_doing(word: str) -> bool:
    """A verb, adverb or adjective of everyday speech (兼顾, 搞定, 方便), not a theme's word (露营, 刷酸)."""
    from tools.offline.drafting import _theme_vocabulary

    tagged = posseg_cut(word)
    return (
        len(tagged) == 1
        and tagged[0][1] in ("v", "vd", "d", "a", "ad")
        and word not in _theme_vocabulary()
    )


def _distinct(words: list[str], notes: list[dict[str, Any]], named: list[str]) -> list[str]:
    """The words of the subject that set it apart among the found notes: not a place (the place rule of
    `_leads` decides those), not a duration, and said by at most half of the notes (健身 in a fitness
    search is the neighbourhood, 午休 is the subject) — by some note at least when the subject names a
    place, which then tells the notes apart."""
    texts = [_text(n) for n in notes]
    said = {w: sum(w in t or (len(w) >= 4 and w[:2] in t) for t in texts) for w in words}
    return [
        w
        for w in words
        if not any(w in p or p in w for p in named)
        and not _DURATION.match(w)
        and said[w] <= len(texts) / 2
        # with a place to go by, a word no note says (漫游) tells the notes apart no more
        and not (named and said[w] == 0)
        and not _ASKED.fullmatch(w)
    ]


def _covers(distinct: list[str], note: dict[str, Any]) -> bool:
    """Does a note say at least half of the subject's distinguishing words — in its title or tags, or twice
    in its text (a long compound's first two characters count: 快手 of 快手早餐)?"""
    tags = [str(t) for t in note.get("tags") or []]
    head = f"{note['title']} {' '.join(tags)}"
    desc = str(note["desc"])

    def says(w: str) -> bool:
        if len(w) == 1:  # 书 is in 书面 and 证书: a one-character subject is a word of the title or tags
            return w in segmenter.cut(head) or any(t.startswith(w) for t in tags)
        # a long compound's first word says part of it (快手 of 快手早餐); 徒步 says nothing of 徒步鞋
        stems = {w, w[:2], w.translate(_DIGITS)} if len(w) >= 4 else {w, w.translate(_DIGITS)}
        return any(s in head or desc.count(s) >= 2 for s in stems)

    return sum(map(says, distinct)) * 2 >= len(distinct) > 0


def _rarity(words: list[str], notes: list[dict[str, Any]]) -> dict[str, float]:
    """How much each word singles a note out among the found notes: a word every note says (护肤 in a beauty
    search) weighs little, one few say (干皮) much — an inverse document frequency, floored at 0.1."""
    texts = [_text(n) for n in notes]
    return {
        w: max(math.log((len(notes) + 1) / (sum(w in text for text in texts) + 0.5)), 0.1) for w in words
    }


def _focus(
    core: list[str], note: dict[str, Any], rarity: dict[str, float], audience: str = "", topic: str = ""
) -> float:
    """How much a note is about the subject: its words in the title count most, then in the tags, then
    how often the text says them (a party note that mentions a 戚风 once is not a chiffon note), each word
    weighed by its `rarity`, the reader's words (职场新人, 应届生) a fifth: who a note is for is not what it
    is about, however rarely the other notes name them — a reader's skin or figure (干皮, 小个子) half, as it
    is much of what a skincare or outfit note is about. A note whose tags name only a kind of the subject
    the `topic` does not (公务员面试 and never 面试) is about that kind: its words count half. 0 when it
    only shares the theme."""
    title, tags, desc = str(note["title"]), " ".join(map(str, note.get("tags") or [])), str(note["desc"])
    named = [str(t) for t in note.get("tags") or []]
    total = 0.0
    for w in core:
        weight = rarity[w] * ((0.5 if READER_CONDITION.search(w) else 0.2) if w in audience else 1)
        hits: float = 3 * (w in title) + 2 * (w in tags) + min(desc.count(w), 3)
        if not hits and len(w) >= 3:  # a compound's first word says part of it: 快手 of 快手菜 (快手早餐)
            hits = 0.5 * (3 * (w[:2] in title) + 2 * (w[:2] in tags))
        kinds = [t for t in named if t.endswith(w) and t != w and t not in topic]
        if topic and kinds and w not in named:
            hits /= 2
        total += weight * hits
    return total


def _recommended_tags(words: list[str], notes: list[dict[str, Any]], theme_tags: list[str]) -> list[str]:
    """Tags of the notes on this very topic first; the theme's trending tags only where they share a
    word with the topic or were used by those notes (a cycling post gets no camping tags)."""
    own = Counter(tag_names(notes))
    # a tag one note alone used (#球鞋收纳 on a kitchen post, #流浪猫 on a vaccine post) is that note's
    # matter, unless it names the subject
    ranked = [t for t, n in own.most_common(12) if n >= 2 or overlap(words, t)]
    related = [t for t in theme_tags if t in own or overlap(words, t)]
    return dedupe([*ranked, *related])[:10]


# --- direct answer (text) ----------------------------------------------------------------------------
def compose_answer(ctx: Context) -> str:
    """A direct answer to a question, grounded in whatever notes the prompt carries."""
    question = ctx.text("question") or ctx.request
    notes = note_dicts(ctx.sections)
    # the question's own subject: the prompt's whole text (its section headers) is no topic
    topic = str(ctx.brief.get("topic") or "") or extract_topic(question)
    # a note that shares no word of the question's own subject with it is no answer (晒后修复 for 婺源晒秋,
    # a first-solids note for a toddler's first flight); who it is for (宝宝) is no subject
    core = _question_core(f"{topic}，{question}")
    notes = [n for n in notes if any(w in _text(n) for w in core)]
    points = [(_answer_point(note, core), note["title"]) for note in notes[:4]]
    # what to have is answered by the scene's list, whole, before the notes (a dog's coat, its leash):
    # each tells of one thing, the list of what a start needs
    if general := _general_answer(ctx, question, topic, points[:2]):
        return general
    if not notes:
        return (
            f"关于「{shorten(question, 30)}」：离线模式下我只能根据本地笔记库回答，"
            "目前库里没有直接相关的内容。可以换个说法，"
            f"或者让我直接帮你写一篇关于「{shorten(topic, 16)}」的笔记。"
        )
    lines = [f"关于「{shorten(question, 30)}」，我翻了本地笔记库里{len(notes)}篇相关笔记，要点如下："]
    lines += [f"{i}. {point}（来自《{title}》）" for i, (point, title) in enumerate(points, start=1)]
    lines.append("需要的话，我可以把这些整理成一篇完整的笔记。")
    return "\n".join(lines)


def _answer_point(note: dict[str, Any], core: list[str]) -> str:
    """What a note says to the question, in one sentence: its advice on the subject first, then its other
    advice (a note on it names the subject once), then the rest — what to do, not the author's story
    (我是典型的梨形身材…, 试了一个冬天总结出几个方法), and a list's items, not the words leading into it
    (几个显瘦技巧：1. 外套选H型… → 外套选H型…)."""
    said = [_LEAD_IN.sub("", s) for s in sentences(note["desc"])]
    roles = {s: role_of(s, s.rstrip("；。")) for s in said}
    good = [s for s in said if roles[s] not in ("story", "outcome") and not _TOLD.search(s)]
    advice = [s for s in good if roles[s] in ("tip", "step") or _ADVICE.search(s)]
    named = [s for s in said if any(w in s for w in core)]
    on_it = [s for s in advice if s in named] or [s for s in good if s in named] or advice or good or named
    on_it = on_it or said
    first = on_it[0] if on_it else note["desc"]
    best = next((s for s in on_it if is_concrete(s)), None) or shorten(first, 60)
    return re.sub(r"[；;，,]$", "。", shorten(best, 80))


# what the author went through (买了不下二十条之后，终于找到…; 试了一个冬天总结出…): a story, no answer
_TOLD = re.compile(r"我|终于|(?:之|以)后[，,]|后来|总结出|试了")
_LEAD_IN = re.compile(
    r"^[^：:，,。]{2,12}[：:]\s*(?=(?:\d{1,2}\s*[.、)）]|第[一二三四五六七八九十]|[①-⑩]))(?:\d{1,2}\s*[.、)）]\s*)?"
)


def _general_answer(
    ctx: Context, question: str, topic: str, points: list[tuple[str, str]] | None = None
) -> str:
    """A question about what to have is answered from its scene's list of things
    (data/lexicon/scene_tips.txt), said as what is usually needed, not as anyone's report, then what the
    notes on it say (`points`: a sentence and its note's title); '' when the question asks for no things
    or its scene lists none."""
    scene = voice.things_asked(ctx.theme.key, topic, question)
    things = scene.things[:6]
    if not things:
        return ""
    where = "一般" if points else "本地笔记库里没有直接相关的笔记，一般"
    lines = [f"关于「{shorten(question, 30)}」，{where}要准备的是这些："]
    lines += [f"{i}. {t}" for i, t in enumerate(things, start=1)]
    # (advice that says again what the list says is no more: 防晒衣 twice)
    if more := next(iter(voice.untold(scene, things)), ""):
        lines.append(f"另外，{more}。")
    if points:
        lines.append("本地笔记里还提到：")
        lines += [f"· {point}（来自《{title}》）" for point, title in points]
    lines.append("需要的话，我可以把这些写成一篇完整的笔记。")
    return "\n".join(lines)


# What a question asks besides its subject: how, what, whether one must (怎么, 什么, 需要, 注意)
_ASKED_WORDS = frozenset(
    [
        *("怎么", "怎么办", "什么", "哪些", "如何", "为什么", "需要", "准备", "注意", "安排", "可以", "应该"),
        *("装备", "东西", "物品", "用品", "必备", "清单"),  # what kind of answer, not what it is about
    ]
)


def _question_core(text: str) -> list[str]:
    """The words a question is about: its nouns, verbs and adjectives of two characters or more, without
    who it is for (宝宝, 上班族), how much or when (三天, 两岁, 第一周) and what it asks (怎么, 需要) — unless
    who it is for is all it names (养仓鼠需要买什么: the hamster is the subject)."""
    words = [
        (word, bool(readers(word)))
        for word, flag in posseg_cut(text)
        if len(word) >= 2
        and flag[:1] in ("n", "v", "a")
        and word not in _ASKED_WORDS
        and not re.match(r"^(?:第|[一二两三四五六七八九十\d])", word)
    ]
    return [w for w, reader in words if not reader] or [w for w, _ in words]


def _talked_of(word: str) -> bool:
    """Is the word a thing or an activity a note talks about (猫砂, 换粮), not when, how often or how much
    (每天, 至少)?"""
    parts = posseg_cut(word)
    named = len(parts) == 1 and parts[0][1] in ("n", "nz", "vn", "nr", "ns")
    return named and len(word) >= 2 and word not in GENERIC_WORDS  # (not 时候, 建议)
