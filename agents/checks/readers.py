"""Advice for other readers: a post for students that tells parents what to pack for a three-year-old.

The research filter already keeps notes and sentences written for other readers out of the evidence
(`agents.grounding.Scope.other_readers`, `data/lexicon/readers.txt`); this check holds any model's draft to
the same rule. A sentence counts only when it advises (记得、建议、一定、别…) and speaks to a reader group the
request does not name and may not borrow from (kids, elders, men; women's advice in a men's post; a
couple's in a family's), and it takes two: a passing mention of one's parents, or an aside addressed to
some readers as such (家里有老人的…), is no advice to them. Precise over eager, as every check here: over
the 460 sample notes (request = the note's title) it reports none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agents.checks import Finding, Owner
from agents.checks.content import _clip, from_evidence
from agents.checks.textutil import Scope, sentences
from tools.entities import other_readers, readers

_ADVICE = re.compile(
    r"记得|建议|一定|最好|别|不要|千万|注意|要带|必带|准备|适合|可以给|给[^，。]{0,4}(?:带|穿|用|吃)"
)
# An aside addressed to some readers as such (家里有老人的…, 带娃的话…, 如果有小孩…) is a courtesy, not the
# post's advice
_ASIDE = re.compile(r"如果|的话|家里有|有娃的|带娃的|有孩子的|有老人的|万一")
# A theme whose posts are for a reader group whatever the request says (入园准备 is for parents of kids)
_THEME_READERS = {"parenting": "kids"}
# A meal its diners cook at the table (火锅, 烤肉): its review may tell them when to fish out the beef
_TABLE_COOKED = re.compile(r"火锅|涮|烤肉|烧烤|打边炉|寿喜锅|铁板烧")
_LABELS = {
    "kids": "带娃家庭", "elderly": "老人", "men": "男生", "women": "女生", "couple": "情侣",
    "cats": "养猫的人", "dogs": "养狗的人", "rabbits": "养兔子的人", "hamsters": "养仓鼠的人",
    "turtles": "养乌龟的人", "fish": "养鱼的人", "birds": "养鸟的人",
    "diners": "去店里吃的人", "cooks": "在家做饭的人",
}  # fmt: skip


def advice_for_other_readers(scope: Scope, draft: Mapping[str, Any], facts: Sequence[str]) -> list[Finding]:
    """Fails when the body advises a reader group the request is not for."""
    own = readers(scope.text) | {_THEME_READERS[t] for t in scope.themes if t in _THEME_READERS}
    if _TABLE_COOKED.search(scope.text):
        own.add("cooks")
    advised = [
        (s, groups)
        for s in sentences(str(draft.get("body", "")))
        if _ADVICE.search(s) and not _ASIDE.search(s) and (groups := other_readers(s, own))
    ]
    if len(advised) < 2:  # one line may be a passing remark; two are advice to someone else
        return []
    sentence, groups = advised[0]
    borrowed = [s for s, _ in advised if from_evidence(s, facts)]
    owner: Owner = "research_evidence_agent" if borrowed else "writer_agent"
    who = "、".join(_LABELS.get(g, g) for g in sorted(groups))
    request = _clip(scope.request, 24)
    readers_said = f"这篇是写给{scope.audience}的" if scope.audience else f"需求「{request}」不是写给他们的"
    reason = f"正文在给{who}出主意（「{_clip(sentence, 24)}」），但{readers_said}"
    return [Finding("other_readers", "infoDensity", owner, reason)]
