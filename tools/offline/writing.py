"""Offline composers for the writing tasks: the evidence summary and direct answers.

Understanding the request (intent and brief) is in `tools.offline.briefing`, the writer in
`tools.offline.drafting`."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from tools.entities import places
from tools.offline.context import Context, engagement, note_dicts, tag_names
from tools.offline.drafting import subject_words
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
    core = subject_words(words)
    # who it is for is not all it is about: a note on 职场新人 buying clothes does not lead a post on a
    # 职场新人's 周报 — the lead must say something else the subject says, and reader words weigh half
    audience = str(brief.get("audience") or "")
    other = [w for w in core if w not in audience]
    # a post on a place within a city (鼓浪屿, 东山岛) follows no note that is not about that place
    named = places(ctx.topic)
    finest = named[-1] if named else ""
    rarity = _rarity(core, notes)  # once: every note's focus weighs the same words
    focus = {id(n): _focus(core, n, rarity, audience) for n in notes}
    notes.sort(key=lambda n: focus[id(n)], reverse=True)  # stable: engagement breaks ties
    facts: list[dict[str, Any]] = []
    for rank, note in enumerate(notes):
        parts = [s for s in units(note["desc"]) if len(s) <= 150 and not s.endswith(("…", "..."))]
        leads = overlap(other or core, _text(note)) and _leads(note, finest)
        if rank == 0 and focus[id(note)] > 0 and leads:
            chosen = parts[:9]
        else:
            usable = [s for s in parts if is_concrete(s) or _ADVICE.search(s)]
            if not _focus(other or core, {**note, "desc": ""}, rarity):  # only its text names it: only there
                usable = [s for s in usable if overlap(other or core, s)]
            best = sorted(usable, key=lambda s: overlap(words, s) + is_concrete(s), reverse=True)[:2]
            chosen = sorted(best, key=usable.index)  # in the note's own order: a story stays in sequence
        facts += [{"text": s, "sourceId": note.get("id"), "sourceTitle": note["title"]} for s in chosen]
        if len(facts) >= 12:
            break
    titles = [n["title"] for n in notes[:12]]
    on_subject = [n for n in notes if focus[id(n)] > 0]  # tags of the notes about it (no #在家遛娃 on 腹肌)
    tagged = on_subject if len(on_subject) >= 2 else notes
    tags = _recommended_tags(words, tagged[:10], tag_names([ctx.data("top_tags"), ctx.data("trend")]))
    desc_words = Counter(w for n in notes[:10] for w in keywords(n["desc"], 8))
    common = [w for w, _ in desc_words.most_common(6) if w not in ctx.topic][:3]
    likes = [int(n.get("likes") or 0) for n in notes[:10]]
    if notes:
        summary = (
            f"检索到{len(notes)}篇与「{ctx.topic}」相关的笔记，"
            f"前{len(likes)}篇平均点赞约{sum(likes) // len(likes)}；"
            f"高互动内容集中在{'、'.join(common) or ctx.topic}，"
            f"热门标签有{'、'.join(tags[:4]) or '暂无'}。"
        )
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


def _text(note: dict[str, Any]) -> str:
    return f"{note['title']} {' '.join(map(str, note.get('tags') or []))} {note['desc']}"


def _leads(note: dict[str, Any], place: str) -> bool:
    """May this note lead a post on `place`: does its title or tags name it (no place: any note)?"""
    return not place or place in f"{note['title']} {' '.join(map(str, note.get('tags') or []))}"


def _rarity(words: list[str], notes: list[dict[str, Any]]) -> dict[str, float]:
    """How much each word singles a note out among the found notes: a word every note says (护肤 in a beauty
    search) weighs little, one few say (干皮) much — an inverse document frequency, floored at 0.1."""
    texts = [_text(n) for n in notes]
    return {
        w: max(math.log((len(notes) + 1) / (sum(w in text for text in texts) + 0.5)), 0.1) for w in words
    }


def _focus(core: list[str], note: dict[str, Any], rarity: dict[str, float], audience: str = "") -> float:
    """How much a note is about the subject: its words in the title count most, then in the tags, then
    how often the text says them (a party note that mentions a 戚风 once is not a chiffon note), each word
    weighed by its `rarity`, the reader's words (职场新人) half. 0 when it only shares the theme."""
    title, tags, desc = str(note["title"]), " ".join(map(str, note.get("tags") or [])), str(note["desc"])
    total = 0.0
    for w in core:
        weight = rarity[w] * (0.5 if w in audience else 1)
        hits: float = 3 * (w in title) + 2 * (w in tags) + min(desc.count(w), 3)
        if not hits and len(w) >= 3:  # a compound's first word says part of it: 快手 of 快手菜 (快手早餐)
            hits = 0.5 * (3 * (w[:2] in title) + 2 * (w[:2] in tags))
        total += weight * hits
    return total


def _recommended_tags(words: list[str], notes: list[dict[str, Any]], theme_tags: list[str]) -> list[str]:
    """Tags of the notes on this very topic first; the theme's trending tags only where they share a
    word with the topic or were used by those notes (a cycling post gets no camping tags)."""
    own = Counter(tag_names(notes))
    ranked = [t for t, _ in own.most_common(12)]
    related = [t for t in theme_tags if t in own or overlap(words, t)]
    return dedupe([*ranked, *related])[:10]


# --- direct answer (text) ----------------------------------------------------------------------------
def compose_answer(ctx: Context) -> str:
    """A direct answer to a question, grounded in whatever notes the prompt carries."""
    question = ctx.text("question") or ctx.request
    notes = note_dicts(ctx.sections)
    topic = ctx.topic
    if not notes:
        return (
            f"关于「{shorten(question, 30)}」：离线模式下我只能根据本地笔记库回答，"
            f"目前库里没有直接相关的内容。可以换个说法，或者让我直接帮你写一篇{topic}相关的笔记。"
        )
    lines = [f"关于「{shorten(question, 30)}」，我翻了本地笔记库里{len(notes)}篇相关笔记，要点如下："]
    for i, note in enumerate(notes[:4], start=1):
        best = next((s for s in sentences(note["desc"]) if is_concrete(s)), None) or shorten(note["desc"], 60)
        lines.append(f"{i}. {shorten(best, 80)}（来自《{note['title']}》）")
    lines.append("需要的话，我可以把这些整理成一篇完整的笔记。")
    return "\n".join(lines)
