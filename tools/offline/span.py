"""The offline model's rewrite of a selected passage ("highlight-to-edit", task `span_edit`).

The writer sends the passage the creator selected, the instruction and the post around it; the answer is the
passage's new text (`{"text"}`, empty to delete it). The instruction is read with the editor-feedback parser
(`tools.feedback`), so the same words work here as in a reject: shorter / longer, livelier / more formal /
more colloquial, more / fewer / no emoji, don't mention X — plus a quoted replacement (改成「…」) and
deleting the passage (删掉这段). What it cannot read leaves the passage as it was; the writer then says so.
Only the passage changes: the rest of the post is the writer's business, not this composer's.
"""

from __future__ import annotations

import re
from typing import Any

from tools.feedback import parse
from tools.offline.context import Context
from tools.offline.text import pick, strip_emoji
from tools.offline.voice import LINE_ENDINGS

# a sentence with its end mark and the line break after it (joined back, the passage keeps its lines)
_SENTENCE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;]*\n*")
_QUOTED = re.compile(r"(?:改成|换成|改为|替换成|写成)[：:]?\s*[「『“\"](.+?)[」』”\"]")
_DELETE = re.compile(
    r"^(?:把)?(?:这段|这句|这部分|选中的?(?:文字|内容|部分)?)?(?:删掉|删除|去掉|不要了?)(?:这段|这句|吧)?$"
)
_FILLER = re.compile(r"(?:其实|真的|非常|特别|超级|简直|基本上|总的来说|可以说|说实话，?|讲真，?)")
_CHATTY = re.compile(r"(?:其实|真的|说实话，?|讲真，?|说白了，?|跟你们说哈，?|姐妹们，?)")
_COLLOQUIAL = {"超级": "非常", "巨": "很", "贼": "很", "啥": "什么", "咋": "怎么", "俺": "我", "咱": "我们"}
_PARTICLES = re.compile(r"(?:啦|呀|哦|哈|嘛|呢|吧)(?=[。！!？?，,～~]|$)")
_SOFT_END = re.compile(r"[～~]+")


def compose_span_edit(ctx: Context) -> dict[str, Any]:
    selection = ctx.text("selection")
    instruction = ctx.text("instruction")
    return {"text": rewrite(selection, instruction, emoji=tuple(ctx.theme.emoji), rng=ctx.rng)}


def rewrite(selection: str, instruction: str, *, emoji: tuple[str, ...] = ("✨",), rng: Any = None) -> str:
    """`selection` rewritten as `instruction` asks (see the module docstring); as it was when nothing in
    the instruction can be applied."""
    text = selection.strip()
    asked = instruction.strip().strip("。！!")
    quoted = _QUOTED.search(asked)
    if quoted:
        return quoted.group(1).strip()
    if _DELETE.match(asked.replace(" ", "")):
        return ""
    fb = parse(asked)
    for item in fb.avoid:  # don't mention X: the sentences naming it go, or the word when all would
        kept = [s for s in _sentences(text) if item not in s]
        text = "".join(kept) if kept else text.replace(item, "")
    if fb.length == "shorter":
        text = _shorter(text)
    if fb.tone == "formal":
        text = _formal(text)
    elif fb.tone in ("lively", "colloquial"):
        text = _livelier(text, fb.tone, emoji, rng)
    if fb.emoji in ("fewer", "none"):
        text = strip_emoji(text).replace("  ", " ").strip()
    elif fb.emoji == "more" and emoji:
        text = _with_emoji(text, emoji, rng)
    if fb.length == "longer":
        text = _longer(text, fb.expand)
    return text


def _sentences(text: str) -> list[str]:
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def _shorter(text: str) -> str:
    """Fillers out. A passage of several lines (a list) keeps every line, each cut to its first clause
    when it is long; prose keeps the first half of its sentences (at least one)."""
    text = _FILLER.sub("", text)
    if "\n" in text.strip():
        return "\n".join(_first_clause(line) for line in text.split("\n"))
    sentences = _sentences(text)
    if len(sentences) >= 2:
        keep = max(1, len(sentences) // 2)
        text = "".join(sentences[:keep]).rstrip("\n")
    return text


def _first_clause(line: str) -> str:
    """A long line cut to the first half of its clauses (rounded up), with the line's end mark."""
    core = line.rstrip("。！？!?；;")
    clauses = core.split("，")
    if len(core) <= 16 or len(clauses) < 2:
        return line
    return "，".join(clauses[: (len(clauses) + 1) // 2]) + (line[len(core):] or "。")


def _formal(text: str) -> str:
    text = _CHATTY.sub("", strip_emoji(text))
    for word, plain in _COLLOQUIAL.items():
        text = text.replace(word, plain)
    text = _PARTICLES.sub("", text)
    text = _SOFT_END.sub("。", text)
    text = text.replace("！", "。").replace("!", "。")
    return re.sub(r"。{2,}", "。", text).strip()


def _livelier(text: str, tone: str, emoji: tuple[str, ...], rng: Any) -> str:
    """Each sentence ends as the voice ends its lines, the last one with an emoji."""
    endings = LINE_ENDINGS[tone]
    sentences = _sentences(text) or [text]
    out = []
    for k, piece in enumerate(sentences):
        sentence = piece.rstrip("\n")
        core = sentence.rstrip("。！？!?；;")
        heading = sentence == core and "，" not in core  # a line with no clause and no end mark
        if core and not heading and sentence[len(core):] in ("", "。", "；", ";"):
            sentence = core + (pick(rng, endings) if rng is not None else endings[k % len(endings)])
        out.append(sentence + piece[len(piece.rstrip("\n")):])
    text = "".join(out)
    if emoji and not any(mark in text for mark in emoji):
        text += pick(rng, emoji) if rng is not None else emoji[0]
    return text


def _with_emoji(text: str, emoji: tuple[str, ...], rng: Any) -> str:
    sentences = _sentences(text) or [text]
    marks = [pick(rng, emoji) if rng is not None else emoji[k % len(emoji)] for k in range(len(sentences))]
    return "".join(
        f"{s.rstrip(chr(10))}{m}{s[len(s.rstrip(chr(10))):]}" for s, m in zip(sentences, marks, strict=True)
    )


def _longer(text: str, about: list[str]) -> str:
    """One more sentence that says what the passage is for, never a made-up fact."""
    subject = about[0] if about else ""
    tail = f"关于{subject}，" if subject else ""
    closing = "这一点我自己试过，照着做会省心很多。"
    if not text.endswith(("。", "！", "？", "!", "?", "～")):
        text += "。"
    return f"{text}{tail}{closing}"
