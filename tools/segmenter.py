"""The one jieba every part of the studio segments Chinese with: its dictionary plus the platform's own
words (`data/lexicon/platform_words.txt`: 底妆, 持妆, 柯基, 掉毛 … which it would otherwise glue to a
neighbour), the landmarks the critic knows (`data/lexicon/landmarks.tsv`: 小七孔, 篁岭 — one place
name, tagged `ns`, not 小/七/孔) and the dishes the writer knows (`data/lexicon/dish_notes.tsv`: 面线糊,
腌笃鲜 — one noun each). Its dictionary loads on first use, about a second once per process."""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from tools.lexfiles import LEXICON, landmark_rows

_WORDS = LEXICON / "platform_words.txt"
_WORLD = LEXICON / "world_places.txt"
_DISHES = LEXICON / "dish_notes.tsv"


@cache
def jieba() -> Any:
    """The jieba module, initialised, with the platform words added (`jieba.posseg` shares its dictionary)."""
    import jieba as module
    import jieba.posseg

    module.setLogLevel(logging.WARNING)
    module.initialize()
    for line in _WORDS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            word, freq, flag = line.split()
            module.add_word(word, int(freq), flag)
    for name in landmark_rows():
        module.add_word(name, 100, "ns")
    for line in _WORLD.read_text(encoding="utf-8").splitlines():  # places abroad are places (清迈 is no
        if line.strip() and not line.startswith("#"):  # adjective), as often words as they were
            name = line.split("\t")[0]
            module.add_word(name, module.dt.FREQ.get(name) or 100, "ns")
    for line in _DISHES.read_text(encoding="utf-8").splitlines():  # a dish is one thing (面线|糊, 腌|笃|鲜)
        name = line.split("\t")[0]
        if line.strip() and not line.startswith("#") and not module.dt.FREQ.get(name):
            module.add_word(name, 500, "n")
    return module


def cut(text: str) -> list[str]:
    return list(jieba().lcut(text))


def posseg(text: str, *, hmm: bool = True) -> list[tuple[str, str]]:
    """The words of `text` with their part-of-speech flags (ns place, n noun, v verb …); `hmm=False` keeps
    to the dictionary's words (no new words guessed from unknown characters)."""
    return [(pair.word, pair.flag) for pair in jieba().posseg.lcut(text, HMM=hmm)]
