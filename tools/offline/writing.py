"""Offline composers for the writing tasks: evidence summary, writer and direct answers.

Understanding the request (intent and brief) is in `tools.offline.briefing`."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tools.offline.context import Context, engagement, note_dicts, tag_names
from tools.offline.text import (
    dedupe,
    extract_audience,
    is_concrete,
    keywords,
    overlap,
    pick,
    sentences,
    shorten,
    strip_emoji,
)

KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣")


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
        (lambda t: strip_emoji(t) != t, "标题带 emoji 增加亲和力"),
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
        concrete = [s for s in sentences(note["desc"]) if is_concrete(s)]
        concrete.sort(key=lambda s: overlap(words, s), reverse=True)
        for sentence in concrete[:2]:
            facts.append(
                {"text": shorten(sentence, 120), "sourceId": note.get("id"), "sourceTitle": note["title"]}
            )
        if len(facts) >= 10:
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


# --- writer ------------------------------------------------------------------------------------------
_FEEDBACK_FOCUS = (
    (re.compile(r"预算|价格|便宜|省钱|花费|多少钱"), re.compile(r"\d+\s*(?:元|块)")),
    (re.compile(r"时间|路线|行程|几点|多久"), re.compile(r"\d+\s*(?:分钟|小时|点|天)")),
    (re.compile(r"装备|清单|带什么|东西"), re.compile(r"装备|带|清单|准备")),
)


def _rank_facts(facts: list[str], words: list[str], feedback: str) -> list[str]:
    focus = [fact_re for ask, fact_re in _FEEDBACK_FOCUS if ask.search(feedback)]
    fb_words = keywords(feedback, 5) if feedback else []

    def score(fact: str) -> float:
        return (
            overlap(words, fact)
            + 3 * overlap(fb_words, fact)
            + sum(4 for r in focus if r.search(fact))
            + (1 if is_concrete(fact) else 0)
        )

    return sorted(dedupe(facts), key=score, reverse=True)


def _clause(text: str, limit: int) -> str | None:
    """`text` as a list line of at most `limit` chars, cut at a clause boundary; None when it has none
    early enough (a line cut mid-phrase reads badly)."""
    text = text.strip().rstrip("。；;，,")
    truncated = text.endswith(("…", "..."))  # an excerpt: keep its whole clauses only
    if len(text) <= limit and not truncated:
        return text or None
    cut = max(text.rfind(mark, 0, min(limit, len(text))) for mark in "，；,;：:")
    return text[:cut].rstrip("：:") if cut >= 12 else None


def _title(ctx: Context, audience: str, topic: str, count: int, patterns: str, avoid: str | None) -> str:
    theme = ctx.theme
    emoji = pick(ctx.rng, theme.emoji)
    short_audience = audience[:6]
    candidates = [
        f"{short_audience}的{topic}｜{count}个要点亲测有用{emoji}",
        f"{topic}保姆级攻略｜{short_audience}直接抄",
        f"{count}个{topic}小技巧，{theme.benefit}！",
        f"{short_audience}怎么{topic}？看这篇就够了",
        f"谁懂啊！{topic}原来可以这么{pick(ctx.rng, ('简单', '松弛', '省心', '好玩'))}{emoji}",
        f"{topic}｜{theme.benefit}的{count}个细节",
    ]
    if "提问" in patterns:
        candidates.insert(0, candidates.pop(3))
    elif "数字" in patterns:
        candidates.insert(0, candidates.pop(2))
    ctx.rng.shuffle(candidates[1:])
    fitting = [c for c in candidates if len(c) <= 20 and c != avoid]
    if fitting:
        return fitting[0]
    return shorten(f"{topic}｜{count}个要点{emoji}", 20)


def compose_draft(ctx: Context) -> dict[str, Any]:
    brief = ctx.brief
    theme = ctx.theme
    topic = ctx.topic
    audience = str(brief.get("audience") or extract_audience(ctx.request) or theme.audience)
    feedback = ctx.feedback
    evidence = ctx.data("evidence") or {}
    words = [*brief.get("keywords", []), *keywords(topic, 3)]
    facts = [f["text"] for f in evidence.get("facts", []) if isinstance(f, dict) and f.get("text")]
    facts = _rank_facts(facts, words, feedback)

    shorter = bool(re.search(r"短|精简|简洁|太长|啰嗦", feedback))
    longer = bool(re.search(r"长一|详细|丰富|展开|太短|多写", feedback))
    plain = bool(re.search(r"正式|专业|少用表情|不要表情|emoji太多", feedback))
    n_points = 3 if shorter else 6 if longer else 4
    n_tips = 1 if shorter else 3 if longer else 2

    generic = [
        f"先想清楚这次{topic}最想得到什么，再按需准备，别一次追求完美",
        f"从最容易上手的一步开始，第一次{topic}不求多、只求顺",
        "提前把时间和预算写下来，执行的时候心里有底",
        "每次结束后记两三条心得，下次会顺手很多",
        "和朋友一起会更有动力，也能分摊成本",
    ]
    lines = [c for c in (_clause(strip_emoji(f), 64) for f in facts) if c]
    points = (lines or generic)[:n_points]
    tips = [t for t in [*lines[n_points:], *generic] if t not in points][:n_tips]

    e = (lambda s: "") if plain else (lambda s: s)
    hooks = [
        f"{e(pick(ctx.rng, theme.emoji))}{audience}看过来！{topic}其实没有想象中那么难，"
        f"我把自己踩过的坑和社区里的高赞经验整理成了{len(points)}个要点，{theme.benefit}～",
        f"作为{audience}，平时忙到没空好好安排，这次认真研究了{topic}，"
        f"发现只要抓住几个关键点就能{theme.benefit}{e(pick(ctx.rng, theme.emoji))}",
        f"被问了很多次{topic}怎么安排，今天一次说清楚！适合{audience}，照着做基本不会出错{e('👇')}",
    ]
    if brief.get("tone", "").startswith("专业"):
        hooks = [
            f"关于{topic}，很多{audience}常见的疑问其实有章可循。下面按重要程度整理{len(points)}个要点。"
        ]
    paragraphs = [pick(ctx.rng, hooks)]
    keycaps = KEYCAPS if not plain else tuple(f"{i}." for i in range(1, 10))
    paragraphs.append(
        (theme.points_heading if not plain else strip_emoji(theme.points_heading).strip())
        + "\n"
        + "\n".join(f"{keycaps[i]} {p}" for i, p in enumerate(points))
    )
    paragraphs.append(
        (theme.tips_heading if not plain else strip_emoji(theme.tips_heading).strip())
        + "\n"
        + "\n".join(f"· {t}" for t in tips)
    )
    summary = evidence.get("summary")
    if summary and not shorter and facts:
        tags_hint = "、".join(evidence.get("recommendedTags", [])[:3])
        paragraphs.append(
            f"{e('📊 ')}做功课的时候看了不少高赞笔记，大家最常聊的是{tags_hint or topic}，"
            "这篇把最实用的部分挑出来了，照着做就行。"
        )
    paragraphs.append(str(brief.get("callToAction") or theme.cta))

    previous = ctx.data("previous") or {}
    patterns = " ".join(evidence.get("titlePatterns", []))
    title = _title(ctx, audience, topic, len(points), patterns, avoid=previous.get("title"))
    tags = dedupe(
        t.lstrip("#").strip()[:24]
        for t in [
            topic if len(topic) <= 8 else "",
            *evidence.get("recommendedTags", []),
            *theme.tags,
            *(k for k in brief.get("keywords", []) if len(k) >= 3),
        ]
        if t and t.strip("#").strip()
    )
    return {"title": title, "body": "\n\n".join(paragraphs), "tags": tags[:8]}


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
