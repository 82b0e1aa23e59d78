"""The offline writer: title, body and tags from the brief and the evidence — and every redo from the
editor's feedback and the critic's reasons.

The body's shape follows the content type (a guide has steps and pitfalls, a list has items and how to
choose, a story is told, not enumerated); the facts are the evidence's, whole sentences only; phrasing is
drawn from `tools.offline.voice` so posts do not share a formula. Feedback is read into operations
(`tools.feedback`) and applied: words added to the title, things deleted everywhere, a subject written
about at more length, shorter or longer, another tone or audience, more or fewer emoji, other tags.
"""

from __future__ import annotations

import re
from typing import Any

from tools.entities import places
from tools.feedback import Feedback, emoji_count, parse
from tools.offline import voice
from tools.offline.context import Context
from tools.offline.text import (
    dedupe,
    extract_audience,
    is_concrete,
    keywords,
    overlap,
    pick,
    shorten,
    strip_emoji,
)

KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣")
TITLE_LIMIT = 20
_KIND_WORDS = re.compile(
    r"(?:的)?(?:旅行|旅游)?(?:攻略|合集|清单|分享|经验分享|经验|心得|推荐|测评|评测|笔记|指南|教程|"
    r"大全|盘点|总结|记录|科普|干货|安利|种草)+$"
)
_EMOJI_CHAR = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]\ufe0f?")
_TRAILING_VERB = re.compile(r"(?:吃|穿|买|做|用|选|带|去|玩|看)$")
_PREDICATE = re.compile(r"值得|适合|最|不|要|可以|能|好|才|呢|吗|的")
_ASKING = re.compile(r"怎么|如何|怎样|哪些|哪个|什么|吗|呢|？|\?|几点|要不要|值不值")
_OPEN_END = re.compile(r"[，、：:；;（(“「《—～~]$|(?:和|与|及|或|但|而|的|了|是|在|把|被|就|还|也|都|到)$")
_NUMBERING = re.compile(
    r"^(?:第[一二三四五六七八九十\d]+(?:[天步点条]|(?=[，,、：:]))|[\d一二三四五六七八九十]+[.、）)]|首先|其次|最后)[：:，,、]?"
)
_PAIRS = (("“", "”"), ("（", "）"), ("「", "」"), ("(", ")"))
_INTRO = re.compile(r"^[^：:]{0,14}(?:要点|几点|如下|总结|建议|经验|心得|分享|步骤|做法)[^：:]{0,4}[：:]")
_INLINE_NUMBER = re.compile(r"(?<=[：:，,；;\s])\d{1,2}[.、]\s*")
_CONNECTIVE = re.compile(r"^(?:另外|此外|而且|还有|所以|因此|但是|不过|然后|同时|最后|其次|首先)[，,、]?")
_NARRATIVE = re.compile(r"^(?:我|我们|和|跟|去年|今年|以前|之前|上周|上个月|\d+月)|于是|开始了")
_META = re.compile(r"(?:总结出的经验|说下真实感受|分享(?:一下)?(?:准备过程|经验|心得)|如下|以下)$")
_SENTENCES = re.compile(r"[^。！？!?；;\n]+")
_NEGATED = re.compile(r"不买|别买|不要|没必要|先不|不用|踩雷|后悔")
_LABELLED = re.compile(r"^[^，,。：:]{2,8}[：:]\S")
# A line that announces what a note goes on to say instead of saying it (a note's hook): "这三种裙子小个子
# 要谨慎", "终于摸索出显高公式", "做足准备后体验非常好". Useless as a point of a post that does not say it.
_TEASER = re.compile(
    r"这[几一两二三四五六七八九十\d]+[种个点条件款招步样类套]|终于(?:摸索|总结|找到|学会)|踩(?:过|了)(?:不少|很多|好多)坑"
    r"|(?:公式|秘诀|心法)$|(?:方法|顺序|细节)(?:很|非常|特别)重要$|体验(?:非常|特别|超级?)?(?:好|棒)$|分享给(?:大家|你们)|看(?:这|以下)几"
)
# Words of a request that say what kind of post it is or when, not what it is about: never a tag.
_NOT_TAGS = frozenset(
    {
        "攻略",
        "合集",
        "清单",
        "分享",
        "经验",
        "心得",
        "推荐",
        "测评",
        "笔记",
        "指南",
        "教程",
        "第一次",
        "新手",
        "适合",
        "面向",
        "朋友",
        "一篇",
        "小红书",
        "文案",
        "内容",
        "整理",
        "记录",
        # what the subject is like, not what it is (好用的婴儿推车): no tag, no heading key
        "好用",
        "好看",
        "好吃",
        "好喝",
        "好玩",
        "实用",
        "简单",
        "方便",
        "便宜",
        "舒服",
        "漂亮",
    }
)


def subject_of(topic: str, audience: str) -> str:
    """The topic as a short noun phrase for titles and openings: 厦门三天两晚旅行攻略 → 厦门三天两晚旅行."""
    subject = re.sub(r"^(?:适合|面向|写给|给)[^的]{1,10}的", "", topic.strip())
    stripped = _KIND_WORDS.sub("", subject)
    subject = stripped if len(stripped) >= 2 else subject
    if audience and subject.startswith(audience) and len(subject) - len(audience) >= 2:
        subject = subject[len(audience) :].lstrip("的")
    subject = re.sub(
        r"^(?:如何|怎么|怎样|我的|关于|在(?![家外])|第一次|(?:周末|假期|五一|国庆)?去(?=\S{2}))", "", subject
    )
    asked = _ASKING.search(subject)  # a question made into a topic: 小户型哪些家具值得买 → 小户型家具
    if asked:
        before = _TRAILING_VERB.sub("", subject[: asked.start()])
        after = _PREDICATE.split(subject[asked.end() :], maxsplit=1)[0]
        subject = before + after if len(before + after) >= 2 else subject
    subject = re.sub(r"的(?:一天|一晚|经历|记录|日常)$", "", subject).strip("的，, ")
    subject = re.sub(r"需要|(?<=.{2})[穿吃买]$", "", subject)
    before, _, after = subject.rpartition("的")
    if len(subject) > 10 and len(after) >= 3:  # 做一份不踩雷的周末亲子游 → 周末亲子游
        # …unless what follows is only what kind of post (杭州西湖边citywalk的一日路线 → 杭州西湖边citywalk)
        subject = before if _GENERIC_HEAD.fullmatch(after) and len(before) >= 3 else after
    return _within(subject, 10).rstrip("的")


def _key(subject: str, keywords: list[str] | None = None) -> str:
    """The one word a subject is about: its place, else the brief's first keyword in it, else its first
    content word (厦门三天两晚 → 厦门, 秋冬敏感肌护肤 → 敏感肌)."""
    named = places(subject)
    if named:
        return named[0]
    if "的" in subject:  # 好用的婴儿推车 → 婴儿推车, 秋天的桂花糕做法 → 桂花糕, 新手化妆的步骤 → 化妆
        before, head = subject.rsplit("的", 1)
        head = _ABSTRACT.sub("", head)
        if 2 <= len(head) <= 5 and head not in _NOT_TAGS:
            return head
        subject = before
    fit = [k for k in keywords or [] if len(k) >= 2 and k in subject and k not in _NOT_TAGS | _PLAIN]
    if fit:  # the longest; of equals the last, as a Chinese compound ends in its head (城市露营 → 露营)
        return max(reversed(fit), key=len) if len(fit[0]) < 3 else fit[0]
    words = [
        w
        for w in _jieba_words(subject)
        if len(w) >= 2
        and w not in _NOT_TAGS | _PLAIN
        and not _ABSTRACT.fullmatch(w)
        and not w.startswith("一")
    ]
    return words[0] if words else subject[:4]


_GENERIC_HEAD = re.compile(r"(?:一日|半日|两日|一天|周末)?(?:路线|行程|攻略|安排|玩法|清单|指南|计划)")
# What is said about a subject rather than the subject (做法 of 桂花糕做法, 步骤, 变化)
_ABSTRACT = re.compile(
    r"(?:做法|方法|步骤|变化|经历|感受|体验|过程|准备|安排|技巧|注意事项|事项|误区|思路|规划|计划|行程|路线|指南)$"
)
_PLAIN = frozenset(
    {"在家", "周末", "一周", "一天", "秋冬", "春夏", "夏天", "冬天", "秋天", "春天", "平价", "第一次"}
)


def _within(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at a word boundary (never 'citywalk' → 'city', '亲子' → '亲')."""
    if len(text) <= limit:
        return text
    out = ""
    for word in _jieba_words(text):
        if len(out) + len(word) > limit:
            break
        out += word
    return out if len(out) >= 2 else text[:limit]


def _jieba_words(text: str) -> list[str]:
    import jieba

    return list(jieba.lcut(text))


def _line(text: str, limit: int = 60) -> str | None:
    """A fact as one list line: a whole sentence, or its leading whole clauses; None when it would have to
    be cut mid-phrase, is only a heading ('总结出的经验'), or carries no usable information."""
    text = strip_emoji(text).strip().rstrip("。；;，,！!")
    if text.endswith(("…", "...")):  # an excerpt: keep its whole clauses only
        text = re.split(r"[，,；;]", text[:-1].rstrip("."))[0] if "，" in text else ""
    text = _NUMBERING.sub("", _INTRO.sub("", text).lstrip()).lstrip()
    text = _CONNECTIVE.sub("", _INLINE_NUMBER.sub("", text))
    if len(text) > limit:
        cut = max(text.rfind(mark, 0, limit) for mark in "，；,;")
        text = text[:cut] if cut >= 12 else ""
    if len(text) < 8 or _OPEN_END.search(text) or _META.search(text) or _TEASER.search(text):
        return None
    if any(text.count(a) != text.count(b) for a, b in _PAIRS):
        return None
    return text


def _facts(ctx: Context, fb: Feedback, words: list[str], kind: str) -> list[str]:
    evidence = ctx.data("evidence") or {}
    raw = [f for f in evidence.get("facts", []) if isinstance(f, dict) and f.get("text")]
    lines: list[str] = []
    source_of: dict[str, str] = {}
    for fact in raw:  # a fact may hold several sentences: each is a candidate line
        for s in _SENTENCES.findall(str(fact["text"])):
            if line := _line(s):
                lines.append(line)
                source_of.setdefault(line, str(fact.get("sourceId") or ""))
    lines = [ln for ln in dedupe(lines) if not any(x in ln for x in fb.avoid)]
    # A note on the topic still says things about other matters (a trip note's 老人作息 line in a post on
    # getting up early): lines that name the subject go first, then lines in the subject's theme; the
    # rest only when those run short.
    specific = [w for w in (*words, *fb.expand) if len(w) >= 2 and w not in _PLAIN | _NOT_TAGS]
    named = [ln for ln in lines if overlap(specific, ln)]
    themed = [ln for ln in lines if ln not in named and overlap(ctx.theme.triggers, ln)]
    if len(named) >= 3:
        lines = named
    elif len(named) + len(themed) >= 3:
        lines = [*named, *themed]

    told = kind in ("story", "diary")

    def score(line: str) -> float:
        """Lines on what the editor asked for, on the topic, concrete; instructions for a guide or a list,
        first-person narration for a story."""
        narrative = bool(_NARRATIVE.search(line))
        return (
            4 * overlap(fb.expand, line)
            + overlap(words, line)
            + (1 if is_concrete(line) else 0)
            + (1.5 if narrative == told else 0)
            + (1.5 if not told and _LABELLED.match(line) else 0)  # "帐篷：选3秒速开的" is a list item
            + (1 if kind == "list" and line.count("、") >= 2 and not _NEGATED.search(line) else 0)  # 带什么
        )

    ranked = sorted(lines, key=score, reverse=True)
    if fb.expand:
        return ranked
    # One author's lines, in their order, read as one experience; lines picked from five notes by score
    # read as a pile. The note whose lines score best leads (when it gives two or more); the rest follow.
    by_note: dict[str, list[str]] = {}
    for line in lines:
        if source_of.get(line):
            by_note.setdefault(source_of[line], []).append(line)
    lead = max(by_note.values(), key=lambda ls: sum(map(score, ls)), default=[])
    lead = lead if len(lead) >= 2 else []
    return [*lead, *(ln for ln in ranked if ln not in lead)]


def _emoji(ctx: Context, plain: bool) -> Any:
    """A picker of the theme's emoji ('' when the post is plain)."""
    return (lambda: "") if plain else (lambda: pick(ctx.rng, ctx.theme.emoji))


def _title(ctx: Context, kind: str, fields: dict[str, str], fb: Feedback, patterns: str, avoid: str) -> str:
    if fb.title_set:
        return fb.title_set[:TITLE_LIMIT]
    templates = list(voice.TITLES.get(kind, voice.TITLES["guide"]))
    # the evidence's winning patterns (a question, a number) weigh in the draw; they do not decide it,
    # or every post would get the one question skeleton of its kind
    favoured = "？" if "提问" in patterns else "{n}" if "数字" in patterns else None
    weights = {t: (1.3 if favoured and favoured in t else 1.0) * ctx.rng.random() for t in templates}
    templates.sort(key=lambda t: -weights[t])
    candidates = [t.format(**fields) for t in templates]
    for add in fb.title_add:  # the editor's words go first
        candidates = [c if add in c else f"{add}｜{c}" for c in candidates]
    fitting = [c for c in candidates if len(c) <= TITLE_LIMIT and c != avoid]
    if fitting:
        return fitting[0]
    short = {**fields, "e": "", "a": fields["a"][:4]}
    fallback = ("｜".join([*fb.title_add, "{s}"]) if fb.title_add else templates[0]).format(**short)
    return fallback[:TITLE_LIMIT]


def _audience(ctx: Context, fb: Feedback) -> str:
    """Who the post is for, as people ('带爸妈' is what they do: '打算带爸妈出门的朋友')."""
    if fb.audience:
        audience = re.sub(r"^(?:面向|写给|针对|给)", "", fb.audience)
    else:
        audience = str(ctx.brief.get("audience") or extract_audience(ctx.request) or ctx.theme.audience)
    if re.match(r"^(?:带|陪|和|跟)", audience) and len(audience) <= 6:
        return f"打算{audience}出门的朋友"
    return audience[:12]


def _tags(ctx: Context, subject: str, fb: Feedback, previous: dict[str, Any]) -> list[str]:
    evidence = ctx.data("evidence") or {}
    if fb.tags_set:
        base = list(fb.tags_set)
    else:
        pool = [
            subject if len(subject) <= 8 and "的" not in subject else "",  # not 秋天的桂花糕做法
            *evidence.get("recommendedTags", []),
            *(k for k in ctx.brief.get("keywords", []) if 2 <= len(k) <= 8 and k not in _NOT_TAGS),
            *ctx.theme.tags[:1],  # the theme's name tag: its other tags may not fit (家常菜 on 探店)
        ]
        if fb.tags_refresh:  # more candidates, so other tags than last time are there to pick
            pool += [*evidence.get("topTags", []), *(f"{w}分享" for w in keywords(subject, 2))]
        base = [t.lstrip("#").strip() for t in pool if t and t.strip("# ")]
    avoid = [*fb.avoid, *fb.tags_remove]
    tags = [t[:24] for t in dedupe([*fb.tags_add, *base]) if not any(x in t for x in avoid)]
    if fb.tags_refresh and not fb.tags_set:
        old = {str(t) for t in previous.get("tags") or []}
        fresh = [t for t in tags if t not in old]
        kept = [t for t in tags if t in old]
        tags = dedupe([*fb.tags_add, *fresh[:6]]) if len(fresh) >= 3 else [*fresh, *kept]
    return tags[:8]


# What "write more about X" means in numbers: money is prices, time is durations, …
_FOCUS = (
    (re.compile(r"预算|花费|价格|多少钱|人均|费用|省钱|钱"), re.compile(r"\d+\s*(?:元|块)|人均|花了|预算")),
    (re.compile(r"时间|路线|行程|几点|多久|时长"), re.compile(r"\d+\s*(?:分钟|小时|点|天)|路线|出发")),
    (re.compile(r"装备|清单|带什么|东西|准备"), re.compile(r"装备|带上?|清单|准备")),
    (re.compile(r"安全|注意"), re.compile(r"安全|注意|别|不要|小心")),
)


def _focus(word: str) -> re.Pattern[str] | None:
    return next((facts for asks, facts in _FOCUS if asks.search(word)), None)


def _shorten_body(body: str, limit: int, keep: str = "") -> str:
    """Drop list lines from the end of the longest lists (never the opening, the closing, nor a section
    holding `keep` — what the editor asked for more of) until the body is within `limit` characters."""
    paragraphs = body.split("\n\n")
    while len("\n\n".join(paragraphs)) > limit:
        middle = [
            i
            for i in range(1, len(paragraphs) - 1)
            if "\n" in paragraphs[i] and not (keep and keep in paragraphs[i])
        ]
        if not middle:
            break
        i = max(middle, key=lambda k: paragraphs[k].count("\n"))
        lines = paragraphs[i].split("\n")
        paragraphs[i] = "\n".join(lines[:-1])
        if len(lines) <= 2:  # a heading with one line left: drop the paragraph
            del paragraphs[i]
    return "\n\n".join(paragraphs)


def compose_draft(ctx: Context) -> dict[str, Any]:
    brief = ctx.brief
    fb = parse(ctx.text("feedback"))
    critic = parse(ctx.text("review_feedback"))
    fb.avoid += critic.avoid
    fb.tags_refresh = fb.tags_refresh or critic.tags_refresh
    previous = ctx.data("previous") or {}
    kind = str(brief.get("contentType") or "guide")
    kind = kind if kind in voice.TITLES else "guide"
    asked_formal = re.search(r"正式|严谨|书面", f"{ctx.request} {brief.get('tone', '')}")
    tone = fb.tone or ("formal" if asked_formal else None)
    plain = fb.emoji == "none" or tone == "formal"
    e = _emoji(ctx, plain)
    audience = _audience(ctx, fb)
    subject = subject_of(str(brief.get("topic") or ctx.topic), audience)
    angle = shorten(str(brief.get("angle") or ""), 24).strip("，。 ")
    angle_words = keywords(angle, 4) if angle else []
    # the angle an editor's clarification chose weighs twice: its facts go first
    words = [*brief.get("keywords", []), *keywords(subject, 3), *fb.expand, *angle_words, *angle_words]
    facts = _facts(ctx, fb, words, kind)

    length = fb.length or ("shorter" if re.search(r"精简|简短|短一", ctx.text("review_feedback")) else None)
    n_points = {"shorter": 3, "longer": 6}.get(length or "", 4)
    n_tips = {"shorter": 1, "longer": 3}.get(length or "", 2)
    extra_on: list[tuple[str, list[str]]] = []  # what the editor asked to hear more about, with its facts
    reserved: set[str] = set()
    groups: dict[str, list[str]] = {}  # words asking about the same thing share a section (预算和价格)
    for subject_word in fb.expand:
        focus = _focus(subject_word)
        groups.setdefault(focus.pattern if focus else subject_word, []).append(subject_word)
    for asked in groups.values():
        focus = _focus(asked[0])
        on_it = [
            f
            for f in facts
            if (any(w in f for w in asked) or (focus and focus.search(f))) and f not in reserved
        ]
        extra_on.append(("和".join(asked), on_it[:3]))
        reserved.update(on_it[:3])
    facts = [f for f in facts if f not in reserved]  # each fact once: in its own section
    points = facts[:n_points]
    tips = [*facts[n_points : n_points + n_tips]]
    # Tips come from the evidence: a stock tip true of any subject is filler every post would share. Only
    # when the corpus had little on this, or the editor asks for more than the evidence holds, is general
    # advice said as advice.
    # the theme's own general advice first ("出发前查好开放时间" for a trip), then advice of the kind of post
    general: list[str] = []
    for pool in (voice.THEME_TIPS.get(ctx.theme.key, ()), voice.GENERAL_TIPS.get(kind, ())):
        usable = [t for t in pool if not any(x in t for x in fb.avoid)]
        ctx.rng.shuffle(usable)
        general += usable
    thin = len(points) < 2
    if thin:
        points += general[: 3 - len(points)]
        general = general[3:]
    if thin or length == "longer":
        tips += general[: max(0, n_tips - len(tips))]

    fields = {"s": subject, "a": audience, "n": str(max(len(points), 2)), "e": e(), "g": ctx.theme.benefit}
    hook_pool = voice.FORMAL_HOOKS if tone == "formal" else voice.HOOKS.get(kind, voice.HOOKS["guide"])
    if fb.audience or (audience and audience in ctx.request):  # a reader asked for is named in the opening
        hook_pool = tuple(h for h in hook_pool if "{a}" in h) or hook_pool
    hook = pick(ctx.rng, hook_pool).format(**{**fields, "e": e()})
    if angle and angle not in hook:  # the opening says which way the post takes the subject
        ends_bare = re.match(r"[\w\u4e00-\u9fff]", hook.rstrip()[-1:])  # not on 。！ nor an emoji
        hook = hook.rstrip() + ("。" if ends_bare else "") + f"这次的重点：{angle}。"
    if tone in voice.ASIDES:
        hook = pick(ctx.rng, voice.ASIDES[tone]) + hook.rstrip("。") + ("！" if tone == "lively" else "～")
        endings = voice.LINE_ENDINGS[tone]
        points = [p + endings[i % len(endings)] for i, p in enumerate(points)]  # the voice in every line
    if fb.emoji == "more":
        hook = f"{e()}{hook}{e()}{e()}"

    paragraphs = [hook]
    marker = (lambda i: f"{i + 1}.") if plain else (lambda i: KEYCAPS[i])
    key = _key(subject, [str(k) for k in brief.get("keywords", [])])  # headings name it: 厦门·具体安排
    heading = pick(ctx.rng, voice.POINT_HEADINGS.get(kind, voice.POINT_HEADINGS["guide"]))
    heading = heading.format(e=f"{e()}{key}·")
    if kind in ("story", "diary"):  # told, not enumerated: the facts as the steps of what happened
        steps = pick(ctx.rng, voice.STORY_STEPS)
        n_told = 2 if length == "shorter" else 3
        told = [f"{step}{p}" for step, p in zip(steps, points[:n_told], strict=False)]
        paragraphs.append("。".join(told) + "。")
        tips = [*points[n_told:], *tips][:n_tips]  # what the story did not tell, said as what it taught
    else:
        bullet_e = (lambda: f" {e()}") if fb.emoji == "more" else (lambda: "")
        paragraphs.append(
            heading.strip() + "\n" + "\n".join(f"{marker(i)} {p}{bullet_e()}" for i, p in enumerate(points))
        )
    if tips and length != "shorter":
        tip_heading = pick(ctx.rng, voice.TIP_HEADINGS.get(kind, voice.TIP_HEADINGS["guide"]))
        tip_heading = tip_heading.format(e=f"{e()}{key}")
        paragraphs.append(tip_heading.strip() + "\n" + "\n".join(f"· {t}" for t in tips))
    for subject_word, on_it in extra_on:
        lines = on_it or [f"{subject_word}这部分值得多花心思：提前了解清楚，按自己的情况取舍"]
        paragraphs.append(f"{e()}再多说说{subject_word}：\n" + "\n".join(f"· {ln}" for ln in lines))
    if length == "longer" and len(facts) > n_points + n_tips:
        extra = facts[n_points + n_tips : n_points + n_tips + 2]
        paragraphs.append("再补充几句：" + "；".join(extra) + "。")
    closing = "" if fb.closing_refresh or critic.closing_refresh else str(brief.get("callToAction") or "")
    if not closing:
        before = str(previous.get("body") or "").rsplit("\n\n", 1)[-1]
        choices = [c for c in voice.CLOSINGS.get(kind, ("",)) if c.format(e="") not in before]
        closing = pick(ctx.rng, choices or voice.CLOSINGS.get(kind, ("",)))
    closing = closing.format(e=e()) if "{e}" in closing else closing
    if key not in closing:  # the last words name the subject too
        closing = pick(ctx.rng, voice.SIGN_OFFS).format(k=key) + closing
    paragraphs.append(closing)
    body = "\n\n".join(p for p in paragraphs if p.strip())
    if plain:
        body = strip_emoji(body)
    elif fb.emoji == "fewer":  # one emoji left at most, in the opening
        emoji_before = emoji_count(str(previous.get("body") or "") + str(previous.get("title") or ""))
        first = _EMOJI_CHAR.search(body)
        body = strip_emoji(body)
        if first and emoji_before > 1:
            body = first.group(0) + body
    for x in fb.avoid:  # whatever template or fact still said it
        body = "\n".join(ln for ln in body.split("\n") if x not in ln)
    if length == "shorter" and previous.get("body"):
        body = _shorten_body(body, int(0.75 * len(str(previous["body"]))), keep="再多说说")

    evidence = ctx.data("evidence") or {}
    patterns = " ".join(evidence.get("titlePatterns", []))
    title = _title(ctx, kind, fields, fb, patterns, avoid=str(previous.get("title") or ""))
    if plain or fb.emoji == "fewer":
        title = strip_emoji(title).strip()
    return {"title": title, "body": body, "tags": _tags(ctx, subject, fb, previous)}
