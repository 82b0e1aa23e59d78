"""Evidence on topic, for every model: what of the retrieved notes a post about *this* request may use.

Retrieval returns the nearest notes, whatever place or topic they are about; a writer given them stitches
their sentences in (a Xiamen post citing the Chengdu panda base, a West Lake post with children's
fever-medicine advice). `Scope` is what the request is about — its places, its topic words and the kinds
of advice it asks for — and sorts every note into

    on topic     its facts, sentences, tags may be used (sentences naming another place, giving advice
                 outside the topic, speaking to other readers or about another activity than the one
                 asked for — a campsite in a post on seeing ginkgo leaves — are still cut out of it);
    elsewhere    about another place, or written for other readers (a family's beach trip for a students'
                 post, a men's routine for an oily-skin post): it may inform title patterns, never facts;
    off topic    shares nothing with the request: not used at all.

The research agent filters what the model sees with it and filters what the model returns again (a
real model may still bring a foreign fact in), so the writer only ever gets evidence about the request.

Whether a place is foreign is decided as the critic decides it (`agents.checks.places`: names resolved
to China's division table, landmarks and foreign places, so 鼓浪屿 and 福建 are fine in a Xiamen post),
and stricter for names no table knows: those are allowed only when the notes about the request's place
name them. Evidence the research filter lets through therefore never fails the critic's place check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agents.artifacts import Brief
from agents.checks.places import PlaceScope, foreign_mentions, resolve, set_out_only
from tools.entities import (
    HEALTH_TOPIC,
    advice_domains,
    foreign_places,
    not_places,
    other_readers,
    places,
    posseg_cut,
    readers,
    same_place,
)
from tools.offline.dishes import dishes_in
from tools.offline.text import only_as_time, tokens
from tools.offline.voice import activities, other_activity

NoteFit = Literal["on_topic", "elsewhere", "off_topic"]

# Words every request of a kind shares: they say what kind of post it is, not what it is about.
_GENERIC_WORDS = frozenset({
    "攻略", "分享", "笔记", "推荐", "经验", "心得", "合集", "清单", "测评", "种草", "干货", "教程",
    "指南", "入门", "新手", "小白", "技巧", "方法", "建议", "整理", "记录", "日常", "打卡", "必备",
    "好物", "一篇", "小红书", "文案", "帖子", "内容", "适合", "面向", "我们", "大家", "自己", "朋友",
    "第一次", "周末", "一周", "一天", "半天", "夏天", "冬天", "秋天", "春天", "秋冬", "春夏", "今年",
    "最近", "怎么办", "怎么", "如何", "什么", "哪些", "准备", "说说", "聊聊",
    # a verdict or a span of use: any thing's review says them (值不值得 of a robot vacuum is no iPad's)
    "值不值得", "值不值", "值得", "真实", "体验", "感受", "优缺点", "半年", "一年", "两年", "三年", "一个月",
    "三个月",
    # how any dish or plan is given: a cake's 配方 is no chicken wings' (腌料配方和温度时间都写上)
    "配方", "温度", "时间", "做法", "步骤", "用量", "配料", "次数", "时长",
    # …and the form any writing takes: an exam essay's 框架 is no year-end review's
    "框架", "模板", "模版", "格式", "话术", "结构",
    # …and where anyone works: a new hire's dress code shares 互联网 and 公司 with a weekly report
    "互联网", "公司", "老板", "行业", "单位", "职场", "工作", "上班",
    # …and how any change goes: a puppy's leash is 适应'd step by step as a cold-water swimmer is
    "适应", "循序渐进", "过程", "变化", "坚持", "习惯",
    # audiences: a note for the same readers is not about the same thing
    "上班族", "学生党", "打工人", "大学生", "宝妈", "女生", "男生", "年轻人", "职场新人", "新手妈妈",
})
# A number (a price, a time, a count) in a note that names no place describes some other town: no fact
# for a post about a named place, which keeps only such a note's general advice.
_NUMBER = re.compile(r"\d|[一二三四五六七八九十两半]+(?:元|块|个|家|分钟|小时|公里|串|碗|份)")
# … unless the sentence is advice to the reader ("每天最多安排2个景点") rather than a report of a place.
_ADVICE = re.compile(r"建议|最好|别|不要|一定|记得|提前|尽量|可以|优先|避开|注意|最多|至少")
# …and what such a note says of its own place, pointed at (这个公园, 这家店, 这里), is about where the note
# was, not the request's place, however it is advised.
_ITS_PLACE = re.compile(
    r"这(?:个|座|家|片|条|一带)?(?:公园|景区|营地|露营地|村子?|镇子?|古镇|地方|店|馆|园区|山|湖|岛|小区|商场)"
    r"|这里|那里|那边"
)
_SENTENCE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;]?")


def _named(text: str) -> list[str]:
    """Proper nouns that are divisions of the table (jieba tags the county 安吉 as a person's name)."""
    return [
        word for word, flag in posseg_cut(text)
        if flag in {"ns", "nr", "nrt", "nz"} and len(word) >= 2 and word not in not_places()
        and resolve(word) is not None
    ]


def _same_dish(named: Iterable[str], asked: Iterable[str]) -> bool:
    """Does any of `named` name one of the `asked` dishes (重庆小面 is a 小面)?"""
    return any(n in a or a in n for n in named for a in asked)


def _single_nouns(text: str) -> list[str]:
    return [word for word, flag in posseg_cut(text) if len(word) == 1 and flag == "n"]


# (a child's care and a pet's: themes whose notes share words, never a subject)
_CARED_FOR = {"parenting", "pets"}


@dataclass(frozen=True)
class Scope:
    """What a request is about: its places, topic words and the advice domains it may touch."""

    places: tuple[str, ...]
    words: tuple[str, ...]
    domains: frozenset[str]
    theme: str = ""
    place_scope: PlaceScope = field(default_factory=lambda: PlaceScope((), ()))
    # names no table knows, learnt from the notes about the request's place (胡里山 in a note titled 厦门)
    companions: tuple[str, ...] = ()
    # who the post is for (kids, elderly, men …, `tools.entities.readers`): a note or a sentence written
    # for other readers is none of its evidence (a family beach note's 儿童救生衣 in a students' trip)
    readers: frozenset[str] = frozenset()
    # the activities the request asks for (看银杏, 露营 …, `tools.offline.voice.activities`): a sentence about
    # another one only is none of its evidence (营地 and 帐篷 in a post on seeing ginkgo leaves) — unless
    # its note is itself about an asked activity (a stargazing note's tent)
    activities: frozenset[str] = frozenset()
    # the dishes the request names (腌笃鲜): a note titled on another dish (红烧肉) gives its steps to none
    dishes: tuple[str, ...] = ()
    # the places the trip only sets out from, when it goes to another (从深圳出发…去了梅州): a note about one
    # of them is none of its evidence (深圳's coastal hike in a 梅州 post), though the post may name them
    origins: tuple[str, ...] = ()

    @classmethod
    def of(cls, request: str, brief: Brief | Mapping[str, Any] | None = None) -> Scope:
        if isinstance(brief, Brief):
            topic, keywords, theme = brief.topic, list(brief.keywords), brief.theme
            audience = brief.audience or ""
        else:
            topic = str((brief or {}).get("topic") or "")
            keywords = [str(k) for k in (brief or {}).get("keywords") or []]
            theme = str((brief or {}).get("theme") or "")
            audience = str((brief or {}).get("audience") or "")
        about = " ".join([request, topic, *keywords])
        generous = PlaceScope.of([request, topic, *keywords])
        # not words that only happen to be a district's name too (古城 is 丽江's 古城区)
        names = tuple(n for n in generous.names if n not in not_places())
        place_scope = PlaceScope(names, tuple(p for p in generous.resolved if p.name in names))
        # the places the request itself names (PlaceScope also reads 江浙沪 as its provinces)
        found = [p for p in dict.fromkeys([*places(about), *place_scope.names]) if p in about]
        words = [w for w in tokens(" ".join([topic, *keywords, request])) if w not in _GENERIC_WORDS]
        words += _single_nouns(f"{topic} {request}")  # 猫, 茶, 鞋: a one-character subject is a subject
        words = [w for w in words if not any(w in p or p in w for p in found)]
        words = [w for w in words if not only_as_time(w, f"{request} {topic}")]  # 下班后练力量: when
        domains = set(advice_domains(about))
        if HEALTH_TOPIC.search(about):
            domains.add("medical")
        return cls(
            tuple(found),
            tuple(dict.fromkeys(words)),
            frozenset(domains),
            theme,
            place_scope,
            readers=frozenset(readers(f"{about} {audience}")),
            activities=activities(f"{request}，{topic}", asked=True),
            dishes=dishes_in(f"{request} {topic}"),
            origins=tuple(p for p in found if len(found) > 1 and set_out_only(request, p)),
        )

    def with_companions(self, notes: Iterable[Mapping[str, Any]]) -> Scope:
        """This scope, also allowing the unknown names in the text of notes whose title and tags name only
        the request's places: a note titled 厦门 that mentions 胡里山 says 胡里山 is part of a Xiamen trip."""
        if not self.places:
            return self
        found: list[str] = []
        for note in notes:
            head = f"{note.get('title', '')} {' '.join(str(t) for t in note.get('tags') or [])}"
            named = places(head)
            if named and not foreign_places(" ".join(named), self.places):
                found += places(str(note.get("desc") or note.get("excerpt") or ""))
        extra = [p for p in dict.fromkeys(found) if p not in self.places]
        return replace(self, companions=tuple(extra))

    # --- texts ---------------------------------------------------------------------------------------
    def foreign(self, text: str) -> list[str]:
        """Places `text` names outside this request's: those the critic would report, any division or
        landmark the tables know that is not in or around the request's places (stricter than the
        critic, which stays quiet on small names), and names no table knows unless the notes about the
        request's place use them."""
        found = dict.fromkeys([*foreign_mentions(text, self.place_scope), *places(text), *_named(text)])
        allowed = (*self.places, *self.companions)
        out = []
        for name in found:
            if any(same_place(name, a) for a in allowed):
                continue
            if resolve(name) is None or not self.place_scope.allows(name):
                out.append(name)
        return out

    def stray_advice(self, text: str) -> set[str]:
        """Advice domains `text` touches that the request is not about."""
        return advice_domains(text) - self.domains

    def other_readers(self, text: str) -> set[str]:
        """Reader groups `text` speaks to that this request's post is not for."""
        return other_readers(text, self.readers)

    def other_activity(self, text: str) -> bool:
        """`text` is about an activity the request does not ask for, and about none it asks for."""
        return other_activity(text, self.activities)

    def on_asked_activity(self, note: Mapping[str, Any]) -> bool:
        """The note's title names an activity the request asks for: its lines about others belong to it."""
        return bool(self.activities & activities(str(note.get("title") or "")))

    def sentence_fits(self, sentence: str, *, any_activity: bool = False) -> bool:
        return not (
            self.foreign(sentence)
            or self.stray_advice(sentence)
            or self.other_readers(sentence)
            or (not any_activity and self.other_activity(sentence))
        )

    def clean(self, text: str, note: Mapping[str, Any] | None = None) -> str:
        """`text` without the sentences that name another place or give advice outside the topic — nor,
        when `text` is from a `note` naming no place and the request names one, its specifics (numbers:
        prices, times, counts of some other town's places) and what it says of its own place however
        advised (这个公园的露营区需要提前预约); its general advice stays."""
        unplaced = note is not None and bool(self.places) and not self._note_places(note)
        any_activity = note is not None and self.on_asked_activity(note)
        return "".join(
            s for s in _SENTENCE.findall(text)
            if self.sentence_fits(s, any_activity=any_activity)
            and not (unplaced and ((_NUMBER.search(s) and not _ADVICE.search(s)) or _ITS_PLACE.search(s)))
        ).strip()

    @staticmethod
    def _note_places(note: Mapping[str, Any]) -> list[str]:
        head = f"{note.get('title', '')} {' '.join(str(t) for t in note.get('tags') or [])}"
        return places(head) or places(str(note.get("desc") or note.get("excerpt") or ""))

    def shares_topic(self, text: str) -> bool:
        return any(w in text for w in self.words) or any(p in text for p in self.places)

    # --- notes ---------------------------------------------------------------------------------------
    def note_fit(self, note: Mapping[str, Any]) -> NoteFit:
        """How a note (title, desc/excerpt, tags) may be used for this request."""
        head = f"{note.get('title', '')} {' '.join(str(t) for t in note.get('tags') or [])}"
        body = str(note.get("desc") or note.get("excerpt") or "")
        # a note is about the places its title and tags name, or failing those, the ones its text names
        about = places(head) or places(body)
        if about and self.foreign(" ".join(about)):
            return "elsewhere"
        if about and self.origins and all(self._at_origin(p) for p in about):
            return "elsewhere"  # (about where the trip only sets out from)
        # written for other readers: its title may inspire, its advice not (a family beach trip, students)
        other_readers = bool(self.other_readers(head))
        if self.places and about:
            return "elsewhere" if other_readers else "on_topic"  # about the request's own place
        # (…nor is a note on another dish: a 红烧肉 recipe's steps are no 腌笃鲜's)
        if self.dishes and (named := dishes_in(head)) and not _same_dish(named, self.dishes):
            return "elsewhere"
        # a word in the title or tags says more than one in the text; a note of another corpus theme
        # needs more than a word in common (带爸妈 and 新手爸妈 share a word, not a topic)
        shared = 2 * sum(w in head for w in self.words) + sum(w in body and w not in head for w in self.words)
        same_theme = not self.theme or not note.get("theme") or note.get("theme") == self.theme
        # (a child's care and a pet's share their words, never a subject: 分离焦虑, 断奶, 疫苗, 如厕训练)
        if {self.theme, note.get("theme")} == _CARED_FOR:
            return "off_topic"
        if shared < (1 if same_theme else 3):
            return "off_topic"
        return "elsewhere" if other_readers else "on_topic"

    def _at_origin(self, name: str) -> bool:
        """Does `name` lie in a place the trip only sets out from, and in none it goes to (东西冲 of 深圳 on
        a 梅州 trip from 深圳)?"""
        def within(names: Iterable[str]) -> bool:
            kept = tuple(names)
            resolved = tuple(p for p in self.place_scope.resolved if p.name in kept)
            return PlaceScope(kept, resolved).allows(name)

        known = resolve(name) is not None or any(same_place(name, o) for o in self.origins)
        return known and within(self.origins) and not within(p for p in self.places if p not in self.origins)

    def fact_fits(self, text: str, source: Mapping[str, Any] | None = None) -> bool:
        """A fact may be used: it names no other place, gives no stray advice, and its source note (when
        known) is on topic."""
        if not self.sentence_fits(text, any_activity=source is not None and self.on_asked_activity(source)):
            return False
        return source is None or (self.note_fit(source) == "on_topic" and bool(self.clean(text, source)))

    def tag_fits(self, tag: str) -> bool:
        return self.sentence_fits(tag)

    def describe_gaps(self, on_topic: Iterable[Mapping[str, Any]]) -> list[str]:
        """What the corpus has nothing on: each request place no on-topic note names."""
        text = " ".join(f"{n.get('title', '')} {n.get('desc') or n.get('excerpt') or ''} "
                        f"{' '.join(str(t) for t in n.get('tags') or [])}" for n in on_topic)
        return [
            f"笔记库里没有关于「{p}」的笔记：正文只写{p}本身和通用经验，不要借用其他城市或地点的事实"
            for p in self.places
            if p not in text
        ]
