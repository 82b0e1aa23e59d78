"""Offline composers for the writing tasks: the evidence summary and direct answers.

Understanding the request (intent and brief) is in `tools.offline.briefing`, the writer in
`tools.offline.drafting`."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tools.offline.context import Context, engagement, note_dicts, tag_names
from tools.offline.text import (
    dedupe,
    is_concrete,
    keywords,
    overlap,
    sentences,
    shorten,
    strip_emoji,
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
    facts: list[dict[str, Any]] = []
    for note in notes:
        usable = [s for s in sentences(note["desc"]) if is_concrete(s) or _ADVICE.search(s)]
        usable = [s for s in usable if len(s) <= 150 and not s.endswith(("…", "..."))]
        best = sorted(usable, key=lambda s: overlap(words, s) + (1 if is_concrete(s) else 0), reverse=True)[
            :3
        ]
        for sentence in sorted(best, key=usable.index):  # in the note's own order: a story stays in sequence
            facts.append({"text": sentence, "sourceId": note.get("id"), "sourceTitle": note["title"]})
        if len(facts) >= 12:
            break
    titles = [n["title"] for n in notes[:12]]
    tags = _recommended_tags(words, notes[:10], tag_names([ctx.data("top_tags"), ctx.data("trend")]))
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
        "facts": facts[:10],
        "titlePatterns": title_patterns(titles),
        "recommendedTags": tags[:8],
        "angles": angles[:4],
    }


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
