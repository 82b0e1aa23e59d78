"""Offline composers that understand the request: its intent (what kind of answer it wants) and the
creative brief (topic, audience, goal, tone, constraints, keywords, call to action)."""

from __future__ import annotations

import re
import zlib
from typing import Any

from tools.bilingual import localize
from tools.entities import places
from tools.offline import itinerary
from tools.offline.context import Context
from tools.offline.details import request_details
from tools.offline.drafting import subject_of
from tools.offline.lexicon import GENERIC, Theme
from tools.offline.scenes import goals as _goals
from tools.offline.scenes import scene_of
from tools.offline.text import (
    dedupe,
    detect_theme,
    extract_audience,
    keywords,
    shorten,
    theme_by_key,
)
from tools.offline.topic import CLAUSE, STYLE, extract_topic, hollow_word, manner_clause, particulars
from tools.routing import content_type_of, route

_INTENT_REASONS = {
    "full_post": "需要一篇完整的图文笔记。",
    "image_only": "只需要生成图片。",
    "question": "是一个可以直接回答的问题。",
    "time_query": "是在询问当前的时间或日期。",
}


def content_type(text: str) -> str:
    """The content type the request's own words ask for (shared with the rule fallback); English words
    count as written ("recommend") and as read in Chinese."""
    local = localize(text)
    return content_type_of(text if local == text else f"{text} {local}")[0]


def _told_kind(request: str, topic: str, kind: str) -> str:
    """A story, for a request that tells what happened in three clauses or more and names no kind of post
    (上周六第一次带柯基去游泳馆，一开始…，后来…，结果…，帮我写成一篇笔记); else `kind`."""
    if kind != "guide" or content_type_of(localize(request))[1] > 0.5:
        return kind
    details = request_details(request, subject_of(topic, ""), topic)
    # (…not one that lists the ways it found: 我试了几招：给两个选项、提前预告 — a guide of them — nor one
    # that sets out its days: 第一天城墙 第二天兵马俑)
    planned = bool(itinerary.asked_days(localize(request)))
    return "story" if len(details.told) >= 3 and not details.items and not planned else kind


# --- intent ------------------------------------------------------------------------------------------
def compose_intent(ctx: Context) -> dict[str, Any]:
    """Route the request with the shared table (`tools.routing`), as the rule fallback does."""
    text = ctx.request
    local = localize(text)
    theme = detect_theme(local)
    decided = route(text)
    kind, kind_confidence = content_type_of(text if local == text else f"{text} {local}")
    # the model is surer than the bare rules where a marker decided, less sure on a bare topic
    confidence = min(0.95, decided.confidence + 0.08) if decided.rule != "empty" else 0.5
    return {
        "intent": decided.intent,
        "confidence": round(confidence, 2),
        "keywords": keywords(local, 6),
        "suggestedCategory": "" if theme is GENERIC else theme.key,
        "contentType": kind,
        "contentTypeConfidence": kind_confidence,
        "reasoning": f"请求围绕「{extract_topic(text)}」，属于{theme.label}类；"
        f"{_INTENT_REASONS[decided.intent]}"
        f"（依据：{decided.rule}）",
        "needsWebSearch": decided.search is not None or bool(re.search(r"最新|实时|新闻|热搜", text)),
    }


# --- brief -------------------------------------------------------------------------------------------
_VAGUE = re.compile(
    r"帮我|帮忙|给我|请|麻烦|写|一篇|一条|一个|一份|篇|点|些|东西|随便|内容|笔记|文案|帖子|小红书|什么|都行|吧|呀"
)
_CONSTRAINT = re.compile(
    r"不要|别|避免|不超过|以内|控制在|预算|\d+\s*字|必须|一定要|记得|带上|提到|少用|多用"
)
# what a thing is named for using in (通勤路上读的, 跑步时听的): its doing before 的 and the thing
_USED_IN = re.compile(
    r"(?P<use>[\u4e00-\u9fffA-Za-z]{2,12}?(?:读|看|听|用|玩|带|背|送))的(?P<thing>[\u4e00-\u9fffA-Za-z]{2,8})$"
)
_LIST_TAIL = re.compile(r"(?:推荐|清单|合集|分享|种草|盘点|大全)$")
_HITL_FIELD = re.compile(r"^(方向|说明)[:：](.*)$")


_FAMILY_ALONG = re.compile(r"带(?:着)?(?:我)?(?:爸妈|父母|爸爸|妈妈|老人|长辈|孩子|娃|宝宝|老公|老婆|家人)")


def goal_and_cta(theme_key: str, kind: str, text: str, *, topic: str, audience: str) -> tuple[str, str]:
    """The goal and call to action for a content type on a theme (data/brief/goals.json)."""
    data = _goals()
    scene = scene_of(theme_key, text)
    core = re.sub(rf"(?:的)?(?:{data['content_suffixes']})+$", "", topic) or topic
    core = re.sub(data["question_tails"], "", core) or core
    topic = core if len(core) >= 2 else topic
    table = data["goals"]
    entry = table.get(f"{scene}/{kind}") or table.get(f"{scene}/*") or table[f"*/{kind}"]
    # one of the entry's calls to action, the same for the same topic (no two posts end alike by rule)
    # (…not one that gathers friends for a trip taken with family: 带爸妈去西安)
    ctas = [c for c in entry["cta"] if not (_FAMILY_ALONG.search(text) and "朋友" in c)] or entry["cta"]
    cta = ctas[zlib.crc32(topic.encode("utf-8")) % len(ctas)]
    return (
        entry["goal"].format(topic=topic, audience=audience),
        cta.format(topic=topic, audience=audience),
    )


def parse_clarification(text: str) -> tuple[str, str]:
    """The clarification as (direction, detail):
    '方向：美食探店\n说明：写给上班族' → ('美食探店', '写给上班族').

    A free answer without the labels is all detail."""
    direction: list[str] = []
    detail: list[str] = []
    for line in text.splitlines():
        match = _HITL_FIELD.match(line.strip())
        if match:
            (direction if match.group(1) == "方向" else detail).append(match.group(2).strip())
        elif line.strip():
            detail.append(line.strip())
    return "、".join(d for d in direction if d), "；".join(d for d in detail if d)


def is_vague(request: str) -> bool:
    """Nothing to write about once the scaffolding is gone ("帮我写一篇笔记", "随便写点东西")."""
    core = _VAGUE.sub("", re.sub(r"[\s\W_]+", "", localize(request)))
    return len(core) < 2


def _audience_word(text: str, theme: Theme) -> str | None:
    """A reader named inside the topic ("学生党穷游版", "上班族带饭") — the theme's wording when it says more.
    Someone taken along ("带娃", "带爸妈") is not the reader."""
    for entry in _goals()["audiences"]:
        word, _, reader = entry.partition("=")
        at = text.find(word)
        if at >= 0 and (reader or text[max(0, at - 1) : at] != "带"):
            if reader:
                return reader
            return theme.audience if word in theme.audience and len(theme.audience) <= 8 else word
    return None


def _split_detail(detail: str, audience: str | None) -> tuple[str, list[str]]:
    """A clarification's free text as (angle, constraints): clauses naming the reader are dropped (they
    are the audience), clauses that restrict the writing are constraints, the rest is the angle."""
    angle: list[str] = []
    constraints: list[str] = []
    for clause in re.split(r"[，,。；;！!\n]", detail):
        clause = clause.strip()
        if not clause or (audience and audience in clause and len(clause) <= len(audience) + 4):
            continue
        (constraints if _CONSTRAINT.search(clause) else angle).append(clause)
    return "，".join(angle), constraints


# Words of a request that say how it is asked or what kind of post it is, never what it is about: no
# keyword (the writer would tag them and research would search for them).
_ASK_WORD = re.compile(
    r"写[成写给]?|(?:分享|送)给|面向|针对|帮我|写个|写一篇|一篇|一份|几[道款个种样家本套件双支瓶处条]|小红书|笔记|文案|帖子"
    r"|(?:经验|心得|干货|好物)?分享|经验分享|心得体会|说说|聊聊|讲讲"
)


# A whole post redone about something else (a revision's "重写一篇，换成秋天露营"): the new subject.
_NEW_SUBJECT = re.compile(
    r"^(?:重写一篇|重新写一篇|重写|重来|推倒重来)?[，,：:\s]*"
    r"(?:换个主题|换个题目|主题改成|主题换成|换成|改成|改写成)[，,：:\s]*(?:写)?(?P<subject>[^，,。！!？?；;]{2,30})"
)
_NOT_A_SUBJECT = re.compile(r"^(?:更|得|再|一点|一些|活泼|正式|口语|简洁|长|短)")


def redo_direction(feedback: str) -> tuple[str | None, str | None]:
    """(new subject, new reader) a full redo's message asks for; either may be None. A reader is said
    with 写给 / 面向 / 给…看 (换成写给大学生); anything else after 换成 / 主题改成 is a new subject."""
    text = feedback.strip()
    reader = extract_audience(text) if text else None
    if reader is None:
        asked = re.search(r"(?:写给|面向|针对)(?P<who>[^，,。！!？?；;的]{2,12})", text)
        reader = asked.group("who") if asked else None
    subject = None
    for part in re.split(r"[；;\n]", text):  # the latest of several redo messages wins
        found = _NEW_SUBJECT.search(part.strip())
        named = found.group("subject").strip() if found else None
        if not named or (reader and reader in named) or _NOT_A_SUBJECT.match(named):
            continue
        if not re.match(r"(?:写给|面向|给|针对)", named):
            subject = named
    return subject, reader


def compose_brief(ctx: Context) -> dict[str, Any]:
    """The brief from the request; a clarification fills structured fields (topic only when the request
    had none, angle, audience, constraints) and is never pasted into the topic. A revision's feedback may
    name a new subject or reader (`redo_direction`): the brief is then of the new subject, for the reader
    named — or the request's own reader when it named one."""
    request = ctx.request
    subject_asked, reader_asked = redo_direction(ctx.text("feedback"))
    if subject_asked:
        reader_before = extract_audience(request)
        kept = reader_before and not reader_asked
        request = f"{subject_asked}，面向{reader_before}" if kept else subject_asked
    direction, detail = parse_clarification(ctx.text("clarification"))
    vague = is_vague(request)
    local = localize(request)
    topic = extract_topic(request)
    # the subject first ("健身房新手第一周攻略" is fitness): without 攻略/打卡, which every theme uses
    theme = detect_theme(re.sub(r"攻略|打卡", "", topic)) if not vague else GENERIC
    # …and of the topic, the thing itself first: 通勤路上听的播客 is about 播客, not 通勤 clothes
    # (unless the subject still says the topic's own theme: 延吉三天两晚美食 stays a trip)
    subject = subject_of(topic, "")
    named = detect_theme(subject) if not vague else GENERIC
    if named is not GENERIC and not any(w in subject for w in theme.triggers):
        theme = named
    # …and a thing of no theme, named with what it is used for (适合通勤路上读的小说, 跑步时听的歌单), is of
    # no theme: 通勤 says when it is read, and a post on novels borrows no commuter's clothes
    used_in = _USED_IN.search(topic) if not vague else None
    if used_in and re.fullmatch(f"(?:{_goals()['content_suffixes']})+", used_in["thing"]):
        used_in = None  # 练背的经验 is a post on the use itself, no thing named by it
    thing = _LIST_TAIL.sub("", used_in["thing"]) if used_in else ""
    of_thing = detect_theme(thing) if len(thing) >= 2 else GENERIC
    no_theme = bool(used_in and of_thing is GENERIC and any(w in used_in["use"] for w in theme.triggers))
    theme = of_thing if of_thing is not GENERIC and not any(w in thing for w in theme.triggers) else theme
    theme = GENERIC if no_theme else theme
    trip_words = _goals()["trip_words"]
    gone_to = "|".join(re.escape(p) for p in places(topic))
    # …or a going there whose span of days another clause says (第一次去西安，5天4晚，预算3000以内)
    trip = bool(gone_to) and bool(
        re.search(trip_words, topic)
        or (re.search(rf"(?:去|到|来)(?:{gone_to})", topic) and re.search(trip_words, local))
    )
    if trip:
        theme = theme_by_key("travel")  # a trip to a named place is travel, whoever goes ("三亚亲子游")
    if not no_theme and (theme is GENERIC or not (trip or any(w in topic.lower() for w in theme.triggers))):
        # a topic that says its theme by ordinary words only (饮食 of 笼子、垫料和饮食) gives way to the
        # request's own trigger (养仓鼠)
        asked = detect_theme(f"{local} {direction} {detail}")
        theme = asked if asked is not GENERIC else theme
    if theme is GENERIC and not no_theme and places(f"{local} {detail}"):
        theme = theme_by_key("travel")  # a trip somewhere named, with no other theme word
    scene = scene_of("" if theme is GENERIC else theme.key, f"{local} {direction} {detail}")
    explicit = (extract_audience(detail) if detail else None) or reader_asked
    audience = (
        explicit
        or extract_audience(local)
        or _audience_word(f"{local} {detail}", theme)
        or _goals()["scene_audience"].get(scene)
        or theme.audience
    )
    if not explicit and re.search(r"男生|男士|男孩子|男人|男的|直男", f"{local} {detail}"):
        audience = audience.replace("女生", "男生")  # (a theme's readers are women only by default)
    angle, extra = _split_detail(detail, explicit)
    if vague:  # no subject in the request: the clarification's first clause is the topic, the rest the angle
        clauses = angle.split("，") if angle else []
        topic = extract_topic(clauses[0]) if clauses else (direction or theme.label)
        angle = "，".join(clauses[1:])
    else:
        angle = "，".join(p for p in (direction, angle) if p)
    full = f"{local} {detail}".strip()
    kind = _told_kind(request, topic, content_type(f"{request} {detail}"))
    constraints = ["标题不超过20个字", "正文分段清晰，每段不超过4行", "信息真实具体，避免夸大和绝对化用语"]
    length = re.search(r"(\d{2,4})\s*字", full)
    if length and not any("字" in c for c in extra):
        constraints.append(f"正文控制在{length.group(1)}字左右")
    constraints += [shorten(c, 60) for c in extra][:3]
    tone = theme.tone
    if re.search(r"专业|正式|严谨", full):
        tone = "专业、严谨"
    elif re.search(r"搞笑|幽默|有趣|沙雕", full):
        tone = "幽默、有梗"
    # the scene comes from what the post is about, not from a clarification option's label (美食探店 covers
    # home cooking too)
    goal, cta = goal_and_cta(
        "" if theme is GENERIC else theme.key, kind, f"{full} {topic}", topic=topic, audience=audience
    )
    # the request's words, not its style direction (用小红书的风格 is no keyword)
    said = "，".join(c for c in CLAUSE.split(STYLE.sub("", f"{full} {angle}")) if not manner_clause(c))
    words = dedupe([*keywords(topic, 3), *keywords(said, 6)])  # (口语一点 says how, not what about)
    # (…nor when it happened or that it began: 上个月, 第一周, 开始; a product's Latin name is one: A醇)
    latin = [w for _, w in particulars(topic) if re.search(r"[A-Za-z]", w)]
    words = [w for w in dedupe([*latin, *words]) if not _ASK_WORD.fullmatch(w) and not hollow_word(w)]
    # (…nor an English word the reading left untranslated, Oyster: a name in the topic, HIIT or iPad, stays)
    words = [w for w in words if not (re.fullmatch(r"[A-Z]?[a-z]{3,}", w) and w not in topic)]
    return {
        "topic": topic,
        "angle": shorten(angle, 60),
        "audience": audience,
        "goal": goal,
        "tone": tone,
        "constraints": constraints,
        "keywords": words[:8] or [topic],
        "callToAction": cta,
        "theme": "" if theme is GENERIC else theme.key,
        "contentType": kind,
        "platform": "xiaohongshu",
    }
