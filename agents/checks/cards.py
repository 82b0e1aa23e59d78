"""The critic's deterministic checks of the cards' text against the overlay plan.

What a card shows is decided by its image plan and overlay (`agents.image.build_request`): the badge is the
cover's first hashtag, the motif label is the plan's subject, the headline and lines are the overlay's, and
the page number is drawn by the card itself. These checks fail a package whose cards would show keyword
fragments, lines cut mid-phrase without "…", a page number twice, a card repeating another, overlay text
that does not belong to its card, or a cover headline that is neither the post title nor the editor's own.
Every failure goes back to the image planner, with a concrete Chinese reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agents.checks import Finding
from tools.cardtext import clean, cut_reason, fragment_reason, is_page_mark

OWNER = "image_planner_agent"
_HASHTAG = re.compile(r"#([^\s#]+)")


def _key(text: str) -> str:
    return "".join(ch for ch in clean(text).rstrip("…") if ch.isalnum())


def _get(d: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in d and d[name] is not None:
            return d[name]
    return None


def _finding(check: str, dimension: str, reason: str) -> Finding:
    return Finding(check=check, dimension=dimension, owner=OWNER, reason=reason)  # type: ignore[arg-type]


def _paragraphs(draft: Mapping[str, Any] | None) -> list[str]:
    body = str((draft or {}).get("body") or "")
    return [p.strip() for p in body.split("\n\n") if p.strip()]


def _tokens(text: str) -> set[str]:
    from tools.offline.text import tokens

    return set(tokens(text))


def _labels(plan: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(what, text) of the short labels a card shows: the badge and the motif label."""
    out = []
    if str(plan.get("role")) == "cover":
        tags = _HASHTAG.findall(str(overlay.get("caption") or ""))
        if tags:
            out.append(("标签", tags[0]))
    subject = str(plan.get("subject") or "").strip()
    if subject:
        out.append(("主体标签", subject))
    return out


def card_findings(
    *,
    draft: Mapping[str, Any] | None,
    plans: list[Mapping[str, Any]],
    overlays: list[Mapping[str, Any]],
    layout: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """Every card-text problem of the package (see the module docstring); [] when the cards are clean."""
    findings: list[Finding] = []
    paragraphs = _paragraphs(draft)
    title = clean(str((draft or {}).get("title") or ""))
    by_index = {int(_get(o, "imageIndex", "image_index") or 0): o for o in overlays}
    sources = "\n".join([title, *paragraphs, *(str(t) for t in (draft or {}).get("tags") or [])])
    items = {int(i.get("index", 0)): i for i in (layout or {}).get("items") or []}
    seen: dict[str, int] = {}
    shown_lines: dict[int, set[str]] = {}

    for plan in sorted(plans, key=lambda p: int(p.get("index", 0))):
        index, role = int(plan.get("index", 0)), str(plan.get("role", "detail"))
        editor = plan.get("overlay") if isinstance(plan.get("overlay"), Mapping) else None
        overlay: Mapping[str, Any] = editor or by_index.get(index) or {}
        lines = [str(line) for line in overlay.get("lines") or []]
        card_sources = "\n".join([sources, *lines, str(overlay.get("headline") or "")])

        for what, label in _labels(plan, overlay):
            why = fragment_reason(label, card_sources)
            if why:
                findings.append(
                    _finding("card_fragment", "readability", f"第{index}张图的{what}「{label}」{why}")
                )
        for line in [str(overlay.get("headline") or ""), *lines]:
            why = cut_reason(clean(line), sources) if line.strip() else None
            if why:
                findings.append(
                    _finding("card_cut_text", "readability", f"第{index}张图的文字「{line}」{why}")
                )
        if is_page_mark(overlay.get("caption")):
            findings.append(
                _finding(
                    "card_page_twice",
                    "readability",
                    f"第{index}张图的说明文字「{overlay.get('caption')}」又写了一遍页码，卡片上已经有页码",
                )
            )

        headline = clean(str(overlay.get("headline") or ""))
        # the cover says the post's title: all of it, or its main part (before 「｜」, a clip of it)
        main = _key(headline)
        if role == "cover" and title and not editor and not (len(main) >= 4 and main in _key(title)):
            findings.append(
                _finding(
                    "cover_headline",
                    "textImageAlignment",
                    f"封面标题「{headline or '（空）'}」不是笔记标题「{title}」",
                )
            )
        if draft is not None and index not in by_index and not editor:
            findings.append(
                _finding("card_overlay_missing", "textImageAlignment", f"第{index}张图没有对应的文字规划")
            )

        # text that belongs to another card: lines must come from this card's own paragraphs
        item = items.get(index)
        own = [paragraphs[p] for p in (item or {}).get("paragraphIndexes") or [] if 0 <= p < len(paragraphs)]
        if role == "detail" and own and not editor:
            own_tokens = _tokens("\n".join(own))
            for line in lines:
                words = _tokens(line)
                if words and len(words & own_tokens) < max(1, len(words) // 2):
                    findings.append(
                        _finding(
                            "card_overlay_mismatch",
                            "textImageAlignment",
                            f"第{index}张图的文字「{line}」不是它对应段落里的内容",
                        )
                    )

        keys = {_key(line) for line in lines if len(_key(line)) >= 4}
        shown_lines[index] = keys
        for line in lines:
            key = _key(line)
            if len(key) < 4:
                continue
            if key in seen and seen[key] != index:
                findings.append(
                    _finding(
                        "card_duplicate",
                        "textImageAlignment",
                        f"第{index}张图重复了第{seen[key]}张图的「{clean(line)}」",
                    )
                )
            seen.setdefault(key, index)
    indexes = set(int(p.get("index", 0)) for p in plans)
    for index in sorted(by_index):
        if index not in indexes:
            findings.append(
                _finding(
                    "card_overlay_orphan", "textImageAlignment", f"第{index}张图的文字规划没有对应的图片"
                )
            )
    return findings
