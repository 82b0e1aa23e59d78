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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

from tools import segmenter
from tools.entities import (
    PET_READERS,
    countries,
    divisions,
    is_province,
    landmark_cities,
    landmarks_of,
    other_readers,
    places,
    posseg_cut,
    readers,
)
from tools.feedback import Feedback, emoji_count, parse
from tools.lexfiles import generic_tags
from tools.offline import itinerary, voice
from tools.offline.context import Context
from tools.offline.details import CLOCK, Details, request_details
from tools.offline.dishes import dish_note
from tools.offline.material import Line, Material, gather, is_labelled, is_list_item
from tools.offline.scenes import COOKED, goals
from tools.offline.text import (
    DAY_LABEL,
    dedupe,
    extract_audience,
    is_concrete,
    kept_animal,
    keywords,
    only_as_time,
    overlap,
    pick,
    shorten,
    strip_emoji,
)
from tools.offline.topic import (
    CLAUSE,
    DONE_FOR,
    GENERIC_VERBS,
    GENERIC_WORDS,
    SPACE_BREAK,
    WHEN_WORD,
    asked_title,
    lies_in,
    particulars,
    things_in,
)

# A request for several things (推荐几道…, 三款…, 合集): a list of named things, one per note
SEVERAL = re.compile(
    r"几[道款种家本套双支瓶样个处件]|[\d两三四五六七八九十]+[道款种家本套双支瓶处件]|合集|盘点|好物|大全"
)
KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣")
TITLE_LIMIT = 20
_KIND_WORDS = re.compile(
    r"(?:的)?(?:旅行|旅游)?(?:攻略|合集|清单|分享|经验分享|经验|心得|推荐|测评|评测|笔记|指南|教程|"
    r"大全|盘点|总结|记录|科普|干货|安利|种草|日记体?|游记|前后对比|注意事项|碎碎念|小记|随笔|流水账)+$"
)
_EMOJI_CHAR = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]\ufe0f?")
_TRAILING_VERB = re.compile(r"(?:吃|穿|买|做|用|选|带|去|玩|看)$")
_PREDICATE = re.compile(r"值得|适合|最|不|要|可以|能|好|才|呢|吗|的|真的|还是")
# A question put to the writer (面试被问为什么离职): quoted, its question word is none of the topic's
_PUT_TO_ME = r"[^，,。]{0,6}被(?:问到?|追问)(?:为什么|为啥|什么|怎么|如何|哪)"
_ASKING = re.compile(
    r"怎么|如何|怎样|哪些|哪个|哪种|哪款|(?P<where>去哪[里儿]?|哪里|哪儿)|什么样的?|什么|吗|呢|？|\?|几点|要不要|值不值"
    r"|(?P<long>多久|多长时间)"
)
_WHICH_ONE = re.compile(r"(?<=[种养做])出?了?第?[一二两三四五六七八九十\d]{1,2}[盆棵株碗锅道](?=\S{2})")
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
        # a kind of advice, not what it is about (油烟机清洁小妙招 is about 油烟机)
        "妙招",
        "小妙招",
        "小技巧",
        "窍门",
        "小窍门",
        "办法",
        "小办法",
        "方法",
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
        # how far along the reader is, not what it is about (入门计划)
        "入门",
        "进阶",
        "基础",
        # what the post helps do, not what it is about (做好周报 is about 周报)
        "做好",
        "学会",
        "搞定",
        "提高",
        "利用",
        "准备",
        # when, not what (午休时间健身 is about 午休 and 健身)
        "时间",
        "时候",
        # how or whence, not what (慢节奏的成都游, 从杭州出发)
        "节奏",
        "出发",
    }
)


def subject_words(words: list[str]) -> list[str]:
    """The words that say what a post is about, not what kind of post or for when (新手, 方法, 秋冬)."""
    generic = _NOT_TAGS | _PLAIN
    return [
        w
        for w in dict.fromkeys(words)
        if len(w) >= 2 and w not in generic and not _ABSTRACT.search(w) and not _KIND_WORDS.fullmatch(w)
    ]


# The pots and machines a dish is cooked in (空气炸锅烤鸡翅 is about the 鸡翅)
_APPLIANCES = "烤箱|空气炸锅|电饭[煲锅]|微波炉|高压锅|砂锅|平底锅|铸铁锅|面包机"
_IN_APPLIANCE = re.compile(rf"^用?(?:{_APPLIANCES})(?:做|烤|炸|煮|蒸|焖|炖)(?=\S{{2}})")


# a dish eaten at a place (在厦门吃了三家沙茶面), and a child's age told as news (宝宝8个月了刚开始加辅食)
_EATEN_AT = re.compile(
    r"^(?P<p>[\u4e00-\u9fff]{2,4}?)[吃喝]了?(?:[一二两三四五六七八九十几\d]+[家碗份顿次个杯])?(?P<x>\S{2,})$"
)
_AGE_NEWS = re.compile(
    r"^(?P<who>宝宝|孩子|娃|儿子|女儿|闺女)(?P<age>[\d一二两三四五六七八九十]+(?:个月|岁)半?)(?:大)?了?"
    r"(?:刚开始|刚刚|刚|开始|要)(?=\S{2})"
)


def _told_as_news(subject: str) -> str:
    """A subject told as what happened, said as what it is about: the place's dish (厦门沙茶面), not a trip;
    the child with its age before it (8个月宝宝加辅食)."""
    if (ate := _EATEN_AT.match(subject)) and ate["p"] in places(ate["p"]):
        subject = ate["p"] + ate["x"]
    return _AGE_NEWS.sub(r"\g<age>\g<who>", subject)


def _shortened(subject: str) -> str:
    """A subject too long for a title without what it can spare: a pet's name and age
    (玄凤鹦鹉豆豆三岁胸口拔毛 → …胸口拔毛), then the teaching of a doing (两岁宝宝教会自己用勺子吃饭 →
    两岁宝宝用勺子吃饭), then how long it took."""
    if len(subject) > 10:
        subject = re.sub(_NAMED_AGE, "", subject)
    if len(subject) > 10:
        subject = re.sub(r"(?<=\S{2})(?:教会|教)(?:孩子|宝宝|娃|他|她)?(?:自己)?(?=\S{3})", "", subject)
    if len(subject) > 10:  # …then how many days or weeks it took (领养灵缇2周克服怕楼梯 → 领养灵缇克服怕楼梯)
        count = r"[\d一二两三四五六七八九十]"
        span = rf"(?<=\S{{2}})(?<!{count}){count}+(?:天|周)(?=[\u4e00-\u9fff]{{3}})"
        subject = re.sub(span, "", subject)
    return subject


# A time or a rhythm alone, before a question of when (每天几点…, 周末什么时候…): no subject of its own
_WHEN_ONLY = r"(?:每天|每晚|每周|每月|平时|平常|工作日|早上|晚上|周末)"


_GIVEN = re.compile(r"给(?P<what>\S{3,})")
_BEST_OF = re.compile(
    r"^(?:什么|哪个|哪种|哪家|哪里)[\u4e00-\u9fff]{0,3}的(?P<thing>[\u4e00-\u9fff]{2,4}?)(?:最|更|比较).*$"
)


def subject_of(topic: str, audience: str) -> str:
    """The topic as a short noun phrase for titles and openings: 厦门三天两晚旅行攻略 → 厦门三天两晚旅行."""
    # a quoted subject (“户外婚礼新娘底妆”) without its marks — a short word quoted inside it keeps them: the
    # “不要”期 of a toddler is no 不要期
    word_quoted = re.search(r"(?<=\S)“[^“”]{1,3}”(?=\S)", topic)
    topic = topic if word_quoted else re.sub(r"[“”\"「」『』]", "", topic)
    topic = re.sub(r"^(?:最近|已经|刚刚?)?进入了?(?=“)", "", topic)  # (最近进入了“不要”期)
    # …and without what a bracket says of a word in it (老狗（12岁金毛）做关节护理 → 老狗做关节护理)
    topic = re.sub(r"(?<=\S{2})[（(][^（）()]{1,12}[）)](?=\S{2})", "", topic)
    # (a thing done for them is the subject: 给一岁宝宝断奶的经历)
    subject = re.sub(rf"^(?:适合|面向|写给|给{DONE_FOR})[^的]{{1,10}}的(?=\S{{2}})", "", topic.strip())
    subject = re.sub(r"^我们?[\u4e00-\u9fff]{1,2}(?:过|会|到)的(?=\S{2})", "", subject)  # 我学会的向上汇报
    # (…and how long I kept it up: 我坚持了两个月的护发习惯 → 护发习惯)
    kept_up = rf"^我们?(?:坚持|用|练|做|养|吃|穿|戴|跑)了?(?:{_SPAN.pattern})的(?=\S{{2}})"
    subject = re.sub(kept_up, "", subject)
    # (…said as a told streak: 坚持了100天早上6点起床跳绳 → 跳绳)
    streak = (
        rf"^(?:我们?)?坚持了?(?:{_SPAN.pattern})(?:每天|每晚|早上|晚上|早起)?(?:[\d一二三四五六七八九十]+点半?)?"
        r"(?:起床|起来)?(?=\S{2})"
    )
    subject = re.sub(streak, "", subject)
    compared = _COMPARED.fullmatch(subject) or _WHICH_OF.match(subject)
    # two things compared, or asked which of, are said whole, as the pair (凤凰古城和镇远古镇对比, iPhone 15和
    # 华为Mate 60对比, 国企和外企哪个更适合…)
    if compared and len(compared["pair"]) <= _PAIR_LIMIT:
        return compared["pair"].strip()
    stripped = _KIND_WORDS.sub("", subject)
    if stripped != subject:  # …and what qualified the kind word alone (睡上铺的小经验 → 睡上铺), and
        # what joined it to another (写周报的模板和经验 → 写周报的模板)
        stripped = re.sub(r"的?(?:小|大)?的?$", "", re.sub(r"[和与及、]+$", "", stripped))
    subject = stripped if len(stripped) >= 2 else subject
    # (a dish's recipe is the dish: 腌笃鲜菜谱 → 腌笃鲜, 番茄牛腩的做法 → 番茄牛腩; not 一周菜谱)
    subject = re.sub(r"(?<=\S{3})的?(?:家常)?(?:菜谱|食谱|做法|配方)$", "", subject)
    rest = subject[len(audience) :].lstrip("的") if audience and subject.startswith(audience) else ""
    # …unless only the theme's bare word is left (小个子穿搭 is not any 穿搭: the reader is the subject too)
    if len(rest) >= 2 and rest not in _theme_vocabulary():
        subject = rest
    subject = re.sub(_READER_FIRST, "", subject)  # 上班族如何利用午休健身: the reader is not the subject
    subject = re.sub(r"^[也都还](?=\S{3})", "", subject)  # (新手)也不会翻车的番茄炒蛋
    # a topic told as it happened says what happened, not when it at last did (宝宝两岁了终于断掉夜奶 →
    # 宝宝两岁断掉夜奶), nor whose home it lives in (我家13岁的狸花 → 13岁的狸花)
    subject = re.sub(r"(?<=\S{2})了?(?:终于|总算|居然|竟然)(?=\S{2})", "", subject)
    home = r"^(?:我们?家|家里)(?:的|里的)?(?!附近|楼下|周边|门口|小区|旁边|边上|对面)(?=\S{2})"
    subject = re.sub(home, "", subject)
    # (…nor whose team or class someone is of: 我们组老王下个月退休 → 老王下个月退休)
    team = r"^我们?(?:组|部门|科室|团队|公司|单位|班|宿舍|办公室|厂)(?:的|里的)?(?=\S{2})"
    subject = re.sub(team, "", subject)
    lead = r"^(?:如何|怎么|怎样|我的|关于|在(?![家外])|第一次|(?:周末|假期|五一|国庆)?去(?=\S{2}))"
    for _ in range(2):  # (第一次去青岛 → 青岛: one lead after another)
        subject = re.sub(lead, "", subject)
    subject = re.sub(r"^(?:利用|用好|做好|学会|搞定|坚持|打造)(?=\S{3})", "", subject)  # what it helps do
    # which one grown or made it was (种出第一盆小番茄 → 种小番茄): the thing, not its count
    subject = re.sub(_WHICH_ONE, "", subject)
    # a meal made at home is the dish: 周末在家做一顿日式咖喱 → 日式咖喱, 周末在家做了虾仁蒸蛋 → 虾仁蒸蛋,
    # 烤箱做了一次巴斯克芝士蛋糕 → 巴斯克芝士蛋糕 (the oven it was made in is no part of it)
    subject = re.sub(
        rf"^(?:周末|假期|今天|昨天|上周)?(?:在家)?(?:用?(?:{_APPLIANCES}))?"
        r"(?:[做煮烤炖蒸]|来|复刻|自制)(?:了|一[顿道份个锅碗](?!月))(?:一?[顿道份个锅碗次](?!月))?(?=\S{2})",
        "",
        subject,
    )
    subject = _told_as_news(subject)
    if why := re.match(r"^(?:为什么|为啥|为何)(?P<rest>.{2,})$", subject):  # what the why is about: the
        # thing it ends on (为什么越来越多年轻人开始养乌龟 → 乌龟, …先别买单反 → 单反)
        done = re.search(r"(?:买|养|用|学|选|吃|穿|喝|去|玩|做|喜欢)([\u4e00-\u9fff]{2,4})$", why["rest"])
        said = [t for t in things_in(why["rest"]) if why["rest"].endswith(t)]
        subject = done.group(1) if done else said[-1] if said else why["rest"]
    # (a question put to the writer is the subject, quoted: 面试被问为什么离职怎么回答 → 面试被问为什么离职)
    answering = rf"^(?P<q>{_PUT_TO_ME}[\u4e00-\u9fff]{{1,8}}?)(?:该|要)?(?:怎么|如何)(?:回答|答|接)$"
    subject = re.sub(answering, r"\g<q>", subject)
    # (a route walked, of the route: 在苏州走了一条citywalk路线 → 苏州citywalk路线)
    subject = re.sub(r"(?:走|逛|骑|跑)了一(?:条|趟|圈)(?=\S{2,}(?:路线|线路|环线))", "", subject)
    # (which of its kind is best: 什么季节的荸荠最甜, 哪家店的肠粉最好吃 → 荸荠, 肠粉 — the thing so judged)
    subject = _BEST_OF.sub(r"\g<thing>", subject)
    # a question made into a topic: 小户型哪些家具值得买 → 小户型家具
    asked = None if re.search(_PUT_TO_ME, subject) else _ASKING.search(subject)
    if asked:
        # …what one must do about it is not the subject: 猫咪打疫苗要注意什么 → 猫咪打疫苗
        before = _TRAILING_VERB.sub("", _MUST.sub("", subject[: asked.start()]))
        before = re.sub(r"(?<=\S{2})(?:后来|最后|然后|当时|之后)$", "", before)  # (酸菜鱼后来怎么解决的)
        before = re.sub(r"(?<=\S{2})(?:里|中)?(?:都|还)?有$", "", before)  # (通勤包里都有什么 → 通勤包)
        if asked.group("long"):  # how long it must take is not the subject: 猫咪换粮要过渡多久 → 猫咪换粮
            cut = re.sub(r"(?:要|需要|得|该)[\u4e00-\u9fff]{1,2}$", "", before)
            before = cut if len(cut) >= 2 else before
        after = _PREDICATE.split(subject[asked.end() :], maxsplit=1)[0]
        given = _GIVEN.match(after)
        if asked.group("where"):  # 去哪看银杏, 哪里的火锅好吃: where is asked, the thing is what it is about
            after = "".join(things_in(subject[asked.end() :]))
        # (怎么回答, 怎么穿得暖, 怎么换: how, not what — but what is grown or kept is: 种什么花能活 → 种花;
        # and a theme's own doing is a thing: 用什么防晒不闷痘 → 防晒)
        # (…and a doing at a time asked is the doing: 每天几点起床才算自律 → 每天起床, not 每天; and so is
        # what is done for whom: 冬天怎么给爬宠控温 → 冬天爬宠控温)
        elif (re.fullmatch(_WHEN_ONLY, before) and len(after) >= 2) or given:
            after = given["what"] if given else after
        elif not (
            _is_noun(after) or after in _activities() if len(after) >= 2 else re.search(r"\S[种养]$", before)
        ):  # (…but a doing it ends on is what: 几点起床晨跑最舒服 → 晨跑)
            ends = sorted((a for a in _activities() if len(a) >= 2 and after.endswith(a)), key=len)
            after = ends[-1] if ends else ""
        subject = before + after if len(before + after) >= 2 else subject
    subject = re.sub(_STORY_OF, "", subject) if len(_STORY_OF.sub("", subject)) >= 3 else subject
    subject = re.sub(_STORY_SPAN, "", subject).strip("的，, ")
    # (…nor how long it has gone on: 卫生间地漏反味快一个月了 → 卫生间地漏反味)
    subject = re.sub(rf"(?<=\S{{3}})(?:快|将近|差不多|已经|都)?(?:{_SPAN.pattern})多?了$", "", subject)
    subject = re.sub(r"(?<=\S{3})(?:以后|之后|(?<![午雨饭课产])后)$", "", subject)  # 老二出生后 → 老二出生
    # whose cooking it was and that I learnt it (我妈做的酸菜鱼终于被我学会了 → 酸菜鱼): the dish
    subject = re.sub(rf"^我?(?:{_KIN})(?:做|烧|包|煮|炖|腌|卤)的(?=\S{{2}})", "", subject)
    subject = re.sub(r"(?<=\S{2})(?:终于|总算)?被我(?:学会|做成功?|复刻成功?|搞定|做出来)了?$", "", subject)
    # …nor how many tries it took (空气炸锅烤鸡翅试了三次终于成功了 → 空气炸锅烤鸡翅)
    subject = re.sub(r"(?<=\S{3})(?:试|做|烤|练|失败|翻车)了?[一二两三四五六七八九十几\d]+次.*$", "", subject)
    # what was made of what (花了一个周末把阳台改成了小花园 → 阳台改成小花园)
    if made := _MADE_OVER.match(re.sub(r"^我们?", "", subject)):
        subject = f"{made['x']}{made['v']}成{made['y']}"
    # 我家金毛…, 我接插画单, 我们的亲子游: whose
    subject = re.sub(r"^我(?:们家|家|们)?的?(?=[\u4e00-\u9fffA-Za-z]{3})", "", subject)
    # when a told day was is no part of what it is about (橘猫今天第一次洗澡 → 橘猫第一次洗澡)
    subject = re.sub(rf"(?:{_TOLD_WHEN})(?=[\u4e00-\u9fff]{{2}})(?!.*什么)", "", subject)
    subject = re.sub(r"^当了(?=\S{2})", "当", subject)  # 当了妈妈一年 → 当妈妈一年
    # when it happened is said as when, not as what (备赛半马的时候膝盖外侧疼 → 备赛半马时膝盖外侧疼)
    subject = re.sub(r"(?<=\S{2})(?<!什么)(?<!那个)的?时候(?=\S{2})", "时", subject)
    # whom among equals it was done with (安吉竹林和两个朋友周末露营 → 安吉竹林周末露营): no part of what
    peers = r"(?:和|跟|与)(?:[两三四五六几\d]个)?(?:朋友|闺蜜|室友|同事|同学|搭子|队友|对象|男朋友|女朋友)们?"
    subject = re.sub(rf"(?<=\S{{2}}){peers}(?=\S{{2}})", "", subject)
    # where a trip sets out from is no part of it (周末从上海出发去安吉 → 安吉)
    subject = re.sub(r"^(?:周末|假期|五一|国庆)?从[\u4e00-\u9fff]{2,5}?(?:出发)?[去到](?=\S{2})", "", subject)
    # where and how long a told deed went on (我在县城开了一年奶茶店 → 县城开奶茶店): the place and the deed
    subject = re.sub(r"^在(?![家外])(?=\S{4})", "", subject)
    subject = re.sub(rf"(?<=\S{{2}})了(?:{_SPAN.pattern})(?=\S{{2}})", "", subject)
    subject = re.sub(r"(?<=\S[上到完会成])了(?=\S{2})", "", subject)  # 考上了研究生 → 考上研究生
    # 给猫做了个纸箱城堡 → 给猫做纸箱城堡 (…but 个人色彩 is one word: 做了个人色彩诊断 → 做个人色彩诊断)
    one_word = r"人(?:色彩|品牌|护理|主页|账号|简历|作品集)"
    subject = re.sub(rf"(?<=\S[做搭织缝画])了(?:个(?!{one_word}))?(?=\S{{2}})", "", subject)
    # what came after, told (裸辞三个月后我终于找到新工作了 → 裸辞后找到新工作)
    subject = re.sub(rf"(?:{_SPAN.pattern})(?=(?:以|之)?后我)", "", subject)
    subject = re.sub(_AFTER_I, "", subject)
    subject = re.sub(r"(?<=\S{4})了$", "", subject)
    # (…the verb a question ends on, not the word it ends: 重庆夏天怎么穿, 西安本地人常去的小吃)
    subject = _without_end_verb(subject, r"(?<=.{2})(?<![逛喝玩])[穿吃买]$").replace("需要", "")
    # how many ways, not what (职场新人和领导沟通的几个小技巧 → …的技巧: the title says the count)
    subject = re.sub(rf"(?<=\S{{3}})(?:几|[一二两三四五六七八九十\d]+)个小?(?={_WAYS})", "", subject)
    subject = re.sub(r"(?<=.{3})的(?:方法|做法|技巧|步骤|秘诀|窍门|诀窍|要点|关键)$", "", subject)
    subject = re.sub(r"(?<=.{2})(?:家常|在家)?做法$", "", subject)  # 番茄牛腩家常做法 → 番茄牛腩
    subject = re.sub(r"^([\u4e00-\u9fff]{2,6})的(准备|安排|规划)$", r"\1\2", subject)  # 面试的准备 → 面试准备
    before, _, after = subject.rpartition("的")
    if _RELATIVE.search(before) and len(after) >= 2:  # 通勤路上可以听的播客 → 通勤播客: the thing it is
        noun = next((w for w in _nouns(_RELATIVE.sub("", before)) if len(w) >= 2), "")
        subject = noun + after if noun and len(noun + after) <= 8 else after
    elif len(before) >= 4 and 1 <= len(after) <= 2 and not _PREDICATE.search(after) and _concrete(after):
        # 油皮夏天控油的护肤 → 油皮夏天控油护肤 (a title reads "…控油护肤后"); too long, its thing and the
        # kind (老房子卫生间不改造也能变干净的清洁 → 老房子卫生间清洁)
        joined = before + after
        subject = joined if len(joined) <= 10 else _thing_and_kind(subject, 10) or joined
    elif len(subject) > 10 and len(after) >= 3:  # 做一份不踩雷的周末亲子游 → 周末亲子游
        # …unless what follows is only what kind of post (杭州西湖边citywalk的一日路线 → 杭州西湖边citywalk)
        # (…or only how: 面试被问到期望薪资时的回答技巧 is about the question, not "answering tips")
        how = _ABSTRACT.search(after)  # 回答技巧 is only how; 全身训练计划 says what it trains
        generic = _GENERIC_HEAD.fullmatch(after) or (how and len(after) - len(how.group(0)) <= 2)
        # …where it is stays (屏南龙潭村的小众古村游记 → 屏南龙潭村小众古村游记)
        where = (before if len(before) <= 6 else "".join(places(before))) if places(before) else ""
        # …and a thing before the words that say how (硬座火车的回家路) stays with it
        own = "" if where else _thing_and_kind(subject, 10)
        # (…or only its parts, then what is said of them: 辅食添加的时间和顺序很多新手妈妈搞不清 → 辅食添加)
        parts = [w for w in re.split(r"[和与及、]", re.split(_SAID_OF, after)[0]) if w]
        only_parts = bool(parts) and all(w in GENERIC_WORDS or w in _MEASURES for w in parts)
        kept = generic or only_parts
        subject = before if kept and len(before) >= 3 else (where + after if where else own or after)
        # (午休十五分钟的拉伸动作 → 午休拉伸动作: how long is no thing — nor, of the parts alone, their span:
        # 从乙方跳到甲方这前90天的感受和技巧 → 从乙方跳到甲方)
        span = re.search(rf"(?:[这那]?[前头])?(?:{_SPAN.pattern})$", before)
        if kept and span and span.start() >= 2:
            subject = before[: span.start()] + ("" if only_parts else after)
    subject = re.sub(r"^(?:一次|一趟|这次)", "", subject)  # 一次带爸妈去成都 → 带爸妈去成都
    # (…nor that it was signed up for: 周末报了个陶艺课 → 陶艺课)
    signed_up = r"^(?:周末|最近|上周|暑假|寒假|下班后)?(?:去)?报了?(?:个|一个|一节|一期)(?=\S{2}[课班])"
    subject = re.sub(signed_up, "", subject)
    # (…nor for whom and how many it was held: 在家给她办了个恐龙主题生日会 → 在家办恐龙主题生日会)
    subject = re.sub(r"给(?:她|他|孩子|女儿|儿子|娃|宝宝)(?=办)|(?<=办)了(?:个|一个|一场)", "", subject)
    # 这个交接模板 → 交接模板, (shakshuka)就是那个北非蛋 → 北非蛋
    subject = re.sub(r"^(?:(?:也)?就是(?:那个|那种)?|[这那][个份套件双款条支瓶])(?=\S{2})", "", subject)
    # (…nor one of a thing: 一件灰色大衣 → 灰色大衣, but 一个人 is alone)
    subject = re.sub(r"^一(?:[件款只条双套本台支瓶]|个(?!人))(?=\S{2})", "", subject)
    if pair := _COMPARED.fullmatch(subject):  # 凤凰古城和镇远古镇对比 → 凤凰古城和镇远古镇: the pair says it
        subject = pair["pair"]
    subject = re.sub(r"^(?:测评|推荐|盘点|分享)(?=\S{3})", "", subject)  # 测评三款平价防晒 → 平价防晒
    # how many, not what: 成都必吃的几家火锅 → 成都火锅 (the title says the count)
    subject = re.sub(_COUNTED, "", subject)
    subject = re.sub(  # what I did after it, counted: 被裁员之后我做了这几件事 → 被裁员之后
        r"(?<=\S{3})我们?(?:做|干|学|试|改)了?(?:[这那]?(?:几|[一两二三四五六七八九十\d]+)件事)?$",
        "",
        subject,
    )
    if len(subject) > 10:  # 3天上海citywalk → 上海citywalk: the place and the thing before how long
        subject = re.sub(
            r"^[\d一二两三四五六七八九十]+[天日晚夜](?:[\d一二两三四五六七八九十]+[晚夜])?", "", subject
        )
    # 烤戚风蛋糕不塌 → 戚风蛋糕不塌: a verb of one character, not a word's first (学生党, 练习册)
    if re.match(r"^[烤做学煮蒸炖画拍练](?=\S{4})", subject) and len(segmenter.cut(subject)[0]) == 1:
        subject = subject[1:]
    subject = _shortened(subject)
    whole = subject
    # (a name in Latin letters reads as short as it is long in words: Dyson Airwrap is two)
    latin = re.fullmatch(r"[A-Za-z][A-Za-z0-9 .+-]*", subject) and len(subject) <= _PAIR_LIMIT
    subject = subject if latin else _within(subject, 10).rstrip("的和与及、")
    # (a change from one state to another is said whole: 狗狗从暴冲到随行, not 狗狗从暴冲)
    subject = subject if re.search(r"从\S{1,6}到\S{1,6}$", subject) else _tidy_end(subject)
    if subject.count("《") > subject.count("》"):  # never cut inside a work's name: all of it, or none
        closed = whole[: whole.find("》", len(subject)) + 1] if "》" in whole[len(subject) :] else ""
        subject = closed if 0 < len(closed) <= 16 else subject[: subject.rfind("《")].rstrip("的和与及、")
    # how long it was kept up, its span cut off (每天跳绳1000下坚持一个月 → 跳绳1000下): the doing
    subject = re.sub(r"(?<=\S{2})(?:坚持|连续|持续)了?$", "", subject)
    subject = re.sub(r"(?<=\S{4})[待住呆]了?$", "", subject)  # (…and how long stayed: 泰拳训练营待了两周)
    # (…nor on a first time whose doing was cut: 宝宝10个月第一次扶着沙发… → 宝宝10个月)
    subject = re.sub(r"(?<=\S{2})(?<!人生)(?:第一次|第一回|头一回|首次)$", "", subject)
    # (…nor on what the pet is called, a name left at the end: 玄凤鹦鹉豆豆 → 玄凤鹦鹉)
    subject = re.sub(rf"(?<=\S{{2}}{_ANIMAL_END})([^猫狗兔鸟鸭鹅鱼龟熊虫])\1$", "", subject)
    # (…or a name and an age: 龙猫豆包两岁 → 龙猫)
    aged = rf"(?<=\S{_ANIMAL_END})[\u4e00-\u9fff]{{1,2}}?(?:[一二两三四五六七八九十\d]+|半)(?:岁|个月)半?了?$"
    subject = re.sub(aged, "", subject)
    # (…nor on the verb of a deed whose count went: 长沙夜市暴走吃了十几家 → 长沙夜市暴走)
    return _without_end_verb(subject, r"(?<=\S{3})[吃穿买玩逛]$")


# The last character of an animal's or a breed's name (鹦鹉, 龙猫, 英短, 柯基): a pet's own name may follow it
_ANIMAL_END = "[鹉猫狗犬兔鼠龟鸭鸟熊鹅短基]"


# A person a post tells of, by their place in one's life: who, not what about
PERSON = re.compile(
    r"妈妈|爸爸|爸妈|父母|老妈|老爸|孩子|宝宝|老公|老婆|女儿|儿子|老人|长辈|家人|朋友|同事|自己"
)
_WAYS = "技巧|方法|建议|习惯|细节|误区|要点|原则|妙招"
_KIN = "妈妈|我妈|老妈|爸爸|我爸|老爸|外婆|奶奶|姥姥|婆婆|爷爷|外公"
_MADE_OVER = re.compile(
    r"^(?:[\u4e00-\u9fff]{2,4}(?:党|族|人|们|妈|爸))?(?:花了?[^把，,]{1,6}?)?把(?P<x>[\u4e00-\u9fff]{2,6}?)(?P<v>改|变|布置|打造|收拾|整理|装修|刷|改造)成了?"
    r"(?P<y>[\u4e00-\u9fff]{2,8})$"
)
_TOLD_WHEN = "[上这]个?周末|今天|昨天|昨晚|前天|上周|上个月|上月|去年|前几天|前阵子|刚刚|最近|这阵子|这段时间"
# 我 and its adverb after a time (裸辞后我终于…), not before what I did, counted (被裁员之后我做了这几件事)
_AFTER_I = re.compile(
    r"(?<=\S{2}后)我们?(?:终于|总算|也|还|才|就)?(?![做干学试改]了?[这那几一两二三四五六七八九十\d])(?=\S{2})"
)


_NAMED_AGE = re.compile(
    r"(?<=\S{2})(?:([\u4e00-\u9fff])\1)?(?:[一二两三四五六七八九十\d]+|半)(?:岁|周岁|个月大)半?(?:了|多)?(?=\S{2})"
)


def _without_end_verb(subject: str, verb: str) -> str:
    """`subject` without the one-character verb `verb` (a pattern) finds at its end — when jieba reads it
    as a word of its own there, not as the end of a word (小吃)."""
    if re.search(verb, subject) and len(segmenter.cut(subject)[-1]) == 1:
        return subject[:-1]
    return subject


# A count of the things a list holds, with its 必吃-style praise: 成都必吃的几家火锅 → 成都火锅
_COUNTED = re.compile(
    r"(?:必吃|必买|必去|必备|值得买)?的?(?:几|[两三四五六七八九十\d]+)(?:[道款种家本双支瓶样处件]|个(?![月小星人]))(?=\S{2})"
)
# What one must do before a question word (要注意什么, 需要准备哪些): not part of what it is about
_MUST = re.compile(r"(?:要|需要|该|应该|得|可以)?(?:注意|准备|带|买|选|做|了解)?$")
# A clause that describes its noun (可以听的, 值得买的, 适合新手的): the noun after 的 is the thing
_RELATIVE = re.compile(r"(?:可以|能|值得|适合|好)[\u4e00-\u9fff]?$")


def _finest(subject: str, named: list[str]) -> str:
    """The most particular place a subject names: 仙居 of 浙江仙居神仙居 (jieba tags only the province), 成都
    of 四川成都 — a post's headings name the place it is about, not its province."""
    # the first below the province or the country: 苏州 of 苏州平江路和山塘街, 成都 of 四川成都, 哈尔施塔特 of
    # 奥地利哈尔施塔特
    finer = [p for p in named if not is_province(p) and p not in countries()]
    # (…or the one spot named right after its city: 梧桐山 of 深圳梧桐山)
    if len(finer) == 2 and lies_in(finer[1], finer[0]) and f"{finer[0]}{finer[1]}" in subject:
        return finer[1]
    if finer:
        return finer[0]
    start = subject.find(named[0]) + len(named[0])
    for size in (3, 2):  # the division right after the province: 浙江|仙居, 广西|玉林
        candidate = subject[start : start + size]
        if len(candidate) == size and candidate in divisions() and not is_province(candidate):
            return candidate
    return named[0]


_NOT_A_NAME = frozenset({"m", "mq", "t", "tg", "s", "r", "p", "c", "u", "q", "f"})
_DOING = re.compile(
    r"添加|回答|选择|使用|制作|准备|注意|处理|应对|解决|开始|坚持|分享|推荐|训练|练习|问到|遇到|碰到|养护|护理|保养"
)


@cache
def _theme_vocabulary() -> frozenset[str]:
    """Every theme's trigger and ordinary words (`data/lexicon/theme_words.txt`): the words posts tag."""
    from tools.lexfiles import sections

    return frozenset(
        w
        for part in sections("theme_words.txt").values()
        for key in ("triggers", "words")
        for w in part.get(key, "").split()
        if len(w) >= 2
    )


# English words of a request no tag is made of: what it asks and how (include, step by step), not a name
_ENGLISH_LEFT = frozenset(
    """
    about after also before between by emoji emojis from include including into near only over some step steps
    that their these this those tips tone what when where which with without your guide post note write share
    """.split()  # noqa: SIM905 - a word list reads best as text
)


def _tag_word(word: str) -> bool:
    """May a word of the request be a tag: a place, a word of a theme's vocabulary (露营, 辅食), or a longer
    name holding one (刷酸流程, 日式咖喱) — never a word the request only happens to use (体力, 一般, 遇到,
    写给, 不算)."""
    if not _taggable(word):
        return False
    vocabulary = _theme_vocabulary()
    # a prefecture or a province by name (安吉's county name could be a word: 友好 is a district too)
    named = any(code.endswith("00") for code in divisions().get(word, ()))
    if places(word) or named or word in vocabulary:
        return True
    if not re.search(r"[\u4e00-\u9fff]", word):  # a name in Latin letters (MBTI, Jellycat, Excel; ootd and
        # citywalk are theme words), not an English word the Chinese reading left (by, include, rainy, pieces)
        named = word[:1].isupper() and word[1:].islower() and len(word) >= 4
        return (named and word.lower() not in _ENGLISH_LEFT) or (word.isupper() and len(word) >= 2)
    return (
        len(word) >= 3
        and any(w in word for w in vocabulary)
        and not word.startswith(("不", "没", "我"))
        and not _DANGLING.fullmatch(word[-1])  # 柯基去 (of 柯基去安吉) is no name
    )


def _subject_tag(subject: str) -> bool:
    """Is the subject itself a tag: a short name a tag may be (`_tag_word`), a compound of nouns
    (番茄肥牛汤, 戒夜奶) or one particular doing (赶海) — not a phrase (秋天的桂花糕做法)."""
    if len(subject) > 6 or "的" in subject or not _taggable(subject) or _told_clause(subject):
        return False  # (屏南住了三天 is a clause, no name)
    when = [m.start() for m in _SEASON.finditer(subject)] + [subject.find(w) for w in _PLAIN if len(w) >= 2]
    if any(at > 0 for at in when):  # a when said first names a kind (秋冬护肤, 在家健身); later, it
        return False  # only says when (梨形身材夏天, 成都周末火锅 — their words are the tags)
    named = "".join(dict.fromkeys(w for _, w in particulars(subject)))  # 番茄 + 炒蛋, 赶海
    return (
        _tag_word(subject)
        or things_in(subject) == [subject]
        or named == subject
    )


def _one_noun(word: str) -> bool:
    """Is the word one noun of the dictionary (红烧肉, 粉底液): the thing a post is about names its tag."""
    parts = posseg_cut(word)
    return len(parts) == 1 and parts[0][1] in ("n", "nz") and _taggable(word)


def _taggable(word: str) -> bool:
    """May a request word be a tag: a name or a thing (辅食, 景德镇, 日式咖喱), not when, how or what is said
    about it (周末, 一顿, 添加, 顺序, 回答)."""
    if word in _NOT_TAGS | _PLAIN or _ABSTRACT.search(word) or not _concrete(word):
        return False
    parts = posseg_cut(word)
    # a numeral (一顿), a time (周末), a place word (路上), a pronoun (在家) … — jieba's tags of single words
    # are rough (露营 and 播客 are verbs to it), so only these are refused, and the doing-words of a how-to
    return bool(parts) and parts[0][1] not in _NOT_A_NAME and not _DOING.fullmatch(word)


def _concrete(word: str) -> bool:
    """Not what is said about a subject (变化, 方法): a word a subject may end in."""
    return not _ABSTRACT.search(word)


def _is_noun(text: str) -> bool:
    """Does `text` begin with a noun (家具 of 哪些家具值得买), not a verb (回答 of 怎么回答)?"""
    if not text:
        return False
    parts = posseg_cut(text)
    return bool(parts) and parts[0][1].startswith("n")


def _nouns(text: str) -> list[str]:
    return [
        word
        for word, flag in posseg_cut(text)
        if flag.startswith("n") and word not in _NOT_TAGS | _PLAIN and not _READER_WORD.fullmatch(word)
    ]


# aspects of a thing, alone or joined (原因和处理, 好处与坏处): no key of their own
_ASPECTS = re.compile(
    r"(?:原因|处理|处理方法|解决办法|办法|方法|步骤|注意事项|区别|好处|坏处|优缺点|利弊|误区|要点|症状|预防)"
    r"(?:[和与及、](?:原因|处理|处理方法|解决办法|办法|方法|步骤|注意事项|区别|好处|坏处|误区|要点|症状|预防))*"
)


# A trip's words beyond the brief's (data/brief/goals.json trip_words: 游, 旅行, 三天 …): a route, a study
# tour, a citywalk, 3日, 几天
_MORE_TRIP_WORDS = re.compile(r"路线|研学|citywalk|\d日|几[天晚]")


def _a_trip(subject: str) -> bool:
    """Does the subject name a trip (西安亲子研学路线, 杭州一日游 — not 深圳学游泳 nor 上海桌游)?"""
    return bool(re.search(goals()["trip_words"], subject) or _MORE_TRIP_WORDS.search(subject))


# what a thing was made into (阳台改成茶室, 电视墙改成书墙的过程): the post is about what it became
_TURNED = re.compile(
    r"(?:改成|换成|改造成|变成|改为)(?P<to>[^，,。的]{2,8}?)(?:的(?:过程|经历|全过程|记录|心得))?$"
)


_HABIT = re.compile(r"(?:改掉|戒掉|改正|纠正|戒)(?P<doing>[\u4e00-\u9fff]{2,4}?)的?(?:坏)?(?:习惯|毛病)$")
_EASING = re.compile(r"(?:改善|缓解|告别|摆脱)(?P<doing>[\u4e00-\u9fff]{2,6})")
_GROWING_WORDS = frozenset("养殖 养成 养生 养老 养护 养活 种植 种类 种子 种草 种地 种田".split())  # noqa: SIM905


def _grown(subject: str) -> str:
    """The one thing a subject ends on growing or keeping (阳台种小番茄 → 小番茄, 宿舍养绿萝 → 绿萝); '' when
    its 养 or 种 is no word of its own (饲养箱布置, 这种面料, 养殖场) or what follows names no thing."""
    cut = segmenter.cut(subject)
    at = [
        i
        for i, w in enumerate(cut)
        if w in ("养", "种") or (w[:1] in ("养", "种") and len(w) >= 3 and w[:2] not in _GROWING_WORDS)
    ]
    thing = "".join(cut[at[-1] :])[1:] if at else ""
    if not 2 <= len(thing) <= 4 or not re.fullmatch(r"[\u4e00-\u9fff]+", thing) or thing[0] in "活成好出过了":
        return ""
    return thing if _particular(thing) else ""


_DONE_TO = re.compile(r"给(?P<who>猫咪?|狗狗?|宝宝|孩子|娃|兔子|仓鼠)(?P<do>[\u4e00-\u9fff]{2,4})")


def _key(subject: str, keywords: list[str] | None = None, *, trip: bool = True) -> str:
    """The one word a subject is about: its place, else the brief's first keyword in it, else its first
    content word (厦门三天两晚 → 厦门, 秋冬敏感肌护肤 → 敏感肌); two things compared are both its word
    (螺蛳粉和老友粉, 凤凰古城和镇远古镇), when they fit a heading. Not a trip's (`trip` False), a post is
    about the thing done or had at the place, when the subject names one (宜宾燃面 → 燃面, 深圳大厂做运营 →
    运营): the place is only where."""
    if (turned := _TURNED.search(subject)) and turned.start() >= 2:  # 把电视墙改成书墙 is about the 书墙
        return _key(turned["to"], keywords, trip=trip)
    if cooked := _IN_APPLIANCE.match(subject):  # (the dish, not the pot: 空气炸锅烤鸡翅 → 鸡翅)
        return _key(subject[cooked.end() :], keywords, trip=trip)
    if _PAIR.fullmatch(subject) and len(subject) <= 9 and not re.search(r"[的了]", subject):
        # (what is grown or learnt is the pair, not where: 阳台种薄荷和罗勒 → 薄荷和罗勒)
        pair = re.search(r"[养种学练](?P<pair>[^养种学练]{1,4}(?:和|与|跟)[^养种学练]{1,4})$", subject)
        return pair["pair"] if pair else subject
    if grown := _grown(subject):  # (…or the one thing: 阳台种小番茄 → 小番茄, 宿舍养绿萝 → 绿萝)
        return grown
    # a habit broken is its doing (改掉拆家习惯 → 拆家), and so is a trouble eased (改善失眠 → 失眠)
    if habit := _HABIT.search(subject) or _EASING.fullmatch(subject):
        return habit["doing"]
    if done := _DONE_TO.fullmatch(subject):  # what is done to whom, both (给猫剪指甲 → 猫剪指甲)
        return done["who"] + done["do"]
    named = places(subject)
    if named and not trip:
        rest = re.sub("|".join(map(re.escape, sorted(named, key=len, reverse=True))), "", subject)
        thing = _key(rest, [k for k in keywords or [] if k not in named]) if len(rest) >= 2 else ""
        # (…not why or how one was there: 自贡出差一周 and 重庆早餐打卡 are about the place's food)
        # (…and 晨跑打卡 is 晨跑)
        thing = re.sub(r"出差|打卡|探店|出游|旅行|旅游|游玩|出发", "", thing)
        if len(thing) >= 2 and thing in rest and not places(thing) and _particular(thing):
            return thing
    if named:
        return _finest(subject, named)
    if "的" in subject:  # 好用的婴儿推车 → 婴儿推车, 秋天的桂花糕做法 → 桂花糕, 新手化妆的步骤 → 化妆
        before, head = subject.rsplit("的", 1)
        head = _ABSTRACT.sub("", head)
        if _ASPECTS.fullmatch(head) and len(before) >= 2:  # 狗狗舔爪的原因和处理: the thing, not its aspects
            return _key(before, keywords)
        if 2 <= len(head) <= 5 and head not in _NOT_TAGS and not _SPAN.fullmatch(head) and _particular(head):
            return head
        # 用过的尾灯和反光装备: a head too long for a heading holds the thing, not the 用过 before it
        subject = head if len(head) > 5 and _particular(head) else before
    fit = [
        k
        for k in subject_words(keywords or [])
        if k in subject
        and not k.startswith(("不", "没"))
        and not re.search(rf"[不没别]{re.escape(k)}", subject)  # 跑步膝盖没受伤 is not about 受伤
        and not _DOING.fullmatch(k)  # 辅食, not 添加
        and not _SPAN.fullmatch(k)  # 护肤, not 半年 of 半年护肤
        and not (WHEN_WORD.fullmatch(k) and not _MEAL.fullmatch(k))  # 退休, not 下个月 of 老王下个月退休
        and not _adverb(k)  # 妈妈, not 刚好 of 当妈妈刚好一年
        # (萝卜糕, not a doing glued to what qualifies the thing: 做广式 of 在家做广式萝卜糕)
        and not (len(k) == 3 and k[0] in "做吃买煮蒸烤炸" and k not in _theme_vocabulary())
    ]
    fit = [k for k in fit if not PERSON.fullmatch(k)] or fit  # 电信诈骗, not 爸妈 of 教爸妈识别电信诈骗

    # what the subject keeps, grows or learns ends it, and is its word (夏天空调房养多肉 → 多肉, not 空调房)
    kept = r"(?:[养种学练用]|[养种]活|[养种练]好|学会|照顾好?)"  # (养活鲁邦种, 用史密斯机)
    done_to = [k for k in fit if re.search(rf"{kept}{re.escape(k)}$", subject)]
    if done_to:
        return done_to[0]
    if fit:
        # words that follow each other in the subject are one compound (戚风+蛋糕 → 戚风蛋糕, 干皮+护肤);
        # else the longest word, of equals the last, as a Chinese compound ends in its head (城市露营 → 露营)
        spans = sorted((subject.index(k), subject.index(k) + len(k)) for k in fit)
        merged = [list(spans[0])]
        for start, end in spans[1:]:
            if start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        # (…with the one character left at the subject's end, its head: 领养退役+犬 → 领养退役犬)
        if len(subject) - merged[-1][1] == 1 and re.match(r"[\u4e00-\u9fff]", subject[-1]):
            merged[-1][1] += 1
        compounds = [subject[a:b] for a, b in merged if b - a <= 5]  # a heading key fits a card line
        longest = max(reversed(compounds), key=len, default="")
        if len(longest) > max(map(len, fit)):
            return longest
        # a word posts of a theme use names the subject better than one the request happens to hold (考公
        # of 考公两次失败, not 失败)
        fit = [k for k in fit if k in _theme_vocabulary() or len(k) >= 3] or fit
        return max(reversed(fit), key=len) if len(fit[0]) < 3 else fit[0]
    words = [
        w
        for w in segmenter.cut(subject)
        if len(w) >= 2
        and w not in _NOT_TAGS | _PLAIN
        and not _ABSTRACT.fullmatch(w)
        and not w.startswith("一")
    ]
    named = [w for w in words if _particular(w)]  # 上铺 of 带的东西和睡上铺, not 东西
    return (named or words)[0] if words else subject[:4]


def _adverb(word: str) -> bool:
    """Is the word an adverb or a set phrase of manner (刚好, 终于, 反反复复, 一如既往): how, never what a
    post is about — nor the level of who does it (新手入门, 入门)?"""
    tagged = segmenter.posseg(word)
    manner = len(tagged) == 1 and tagged[0][1] in ("d", "l", "i")
    return manner or bool(re.fullmatch(r"(.)\1(.)\2|(.)(.)\3\4|新手入门|入门|小白|新手", word))


def _distinct(lines: list[str]) -> list[str]:
    """The lines without one that says again what an earlier one said: three particular words in common."""
    out: list[str] = []
    said: list[set[str]] = []
    for line in lines:
        words = _particular_words(line)
        if not any(len(words & before) >= 3 for before in said):
            out.append(line)
            said.append(words)
    return out


def _particular_words(text: str) -> set[str]:
    """The words of `text` that name particular things (卧铺, 剪指甲; not 东西, 小时)."""
    return {w for w in segmenter.cut(text) if len(w) >= 2 and _particular(w)}


def _particular(word: str) -> bool:
    """Does the word name a particular thing (not 小经验, 东西, 用过)?"""
    return bool(particulars(word))


# A reader named before the question (上班族如何…, 学生党怎么…): who it is for, not what it is about
_READER_WORD = re.compile(
    r"上班族|打工人|学生党|大学生|宝妈|新手妈妈|新手爸妈|职场妈妈|全职妈妈|职场新人|新手|小白|新人|职场"
)
# (…described too, before how it is done: 刚入职的新人怎么跟领导汇报 → 跟领导汇报)
_READER_FIRST = re.compile(
    rf"^(?:[\u4e00-\u9fff]{{1,8}}?的)?(?:{_READER_WORD.pattern})(?=如何|怎么|怎样)|^(?:{_READER_WORD.pattern})的"
)
# How much, how often or how long of a thing (猫咪换粮的比例和天数): its measures, no thing of their own
_MEASURES = frozenset("比例 天数 次数 用量 温度 火候 频率 时长 剂量 尺寸 分量 时机".split())  # noqa: SIM905
# What a clause says of its parts after naming them (…的时间和顺序很多人搞不清, …的步骤都不难)
_SAID_OF = re.compile(r"很多|不少|大家|总是|都|一直|老是|常常|经常|最|太|特别|真的|搞不|没人")
_GENERIC_HEAD = re.compile(
    r"(?:[一二两三四五六七八九十\d]+(?:日|天)(?:[一二两三四五六七八九十\d]+(?:晚|夜))?|半日|周末)?"
    r"(?:训练|学习|备考|复习|饮食)?(?:路线|行程|攻略|安排|玩法|清单|指南|计划)"
)
# What is said about a subject rather than the subject (做法 of 桂花糕做法, 步骤, 变化)
_ABSTRACT = re.compile(
    r"(?:做法|方法|步骤|变化|经历|感受|体验|过程|准备|安排|技巧|注意事项|事项|误区|思路|规划|计划|行程|路线|指南"
    r"|顺序|原因|回答|问题|区别|选择|动作|妙招|窍门|诀窍|搭法|穿法|吃法|玩法|用法)$"
)
_PLAIN = frozenset(
    {"在家", "周末", "一周", "一天", "秋冬", "春夏", "夏天", "冬天", "秋天", "春天", "平价", "第一次"}
    # (a style, not the thing: 日式 of 日式咖喱饭 keeps no 日式胡麻酱 line)
    | {"日式", "韩式", "法式", "中式", "西式", "泰式", "美式", "港式", "意式", "台式", "川式", "广式"}
    # (what a question asks, not what it is about: 大理和丽江到底选哪个)
    | {"到底", "哪个", "哪些", "哪家", "哪种", "什么", "怎么", "如何", "是否", "还是"}
    # (a review's aspects, not its thing: 优点 of 优点是搭得快 keeps no feeder's 优点：每天不用铲屎)
    | {"优点", "缺点", "优缺点", "测评", "评测", "性价比"}
)


# A story's span or its kind at the end of a subject: 的经历, 的那三个月, 那段日子
_STORY_SPAN = re.compile(  # (not a stay's length: 乌镇住一晚)
    r"(?<![住玩待呆睡逛])的?(?:一天|一晚|经历|记录|日常|那(?:几|[一二两三四五六七八九十\d]+)(?:天|个月|年|周)|那段(?:日子|时间)"
    r"|第一(?:个月|周|年|天))$"  # 练普拉提的第一个月 is about 普拉提
)
# The story told of a subject (金毛第一次洗澡的踩坑故事 → 金毛第一次洗澡), not a story that is one (睡前故事)
_STORY_OF = re.compile(r"(?:的(?:踩坑|翻车|搞笑|真实|暖心|心路)?|踩坑|翻车)(?:故事|经历|历程)$")
# How long, not what (半年, 一个月, 两周): never a heading's key
_SPAN = re.compile(
    r"[\d一二两三四五六七八九十半]+个?(?:天|日|周|月|年|小时|分钟)(?:[\d一二两三四五六七八九十]+[晚夜])?|半年|一阵子"
)
# A word a phrase cannot end on: it waits for what follows (了, 后, 去, 的, 给 …)
_DANGLING = re.compile(r"[了后去的在和与把被到得着过从向给对也还就才又]|去了|以后|之后")


_LEADING_WHEN = re.compile(
    r"^(?:[上这下]个?周末|周末|最近|每天|平时|假期|今年|这周|下周|上周|春天|夏天|秋天|冬天|秋冬|春夏|暑假|寒假|国庆|五一"
    r"|(?:[一二三四五六七八九十]|十[一二]|\d{1,2})月(?:份|底|初)?)?(?:想|打算|准备|计划|要)?"
    r"(?:在家|去(?=\S{4}))?"
)
# how long or how many, said before the thing (十几个小时绿皮卧铺): not part of what the thing is
_MEASURE_HEAD = re.compile(r"^(?:小时|分钟|星期|个月|公里|块钱|元|天|周|年)")


def _thing_and_kind(text: str, limit: int) -> str:
    """A long phrase whose words before its last 的 say how or what happened (不改造也能变干净, 坐了十几个
    小时) as its thing and what follows the 的: 老房子卫生间不改造也能变干净的清洁 → 老房子卫生间清洁,
    一个人坐了十几个小时绿皮卧铺的慢旅行 → 绿皮卧铺慢旅行. '' for any other phrase (新人给领导交周报的模板:
    the words say what the thing is for), a bare part or story word after the 的 (…的过程), or when the two
    do not fit in `limit`."""
    before, _, after = text.rpartition("的")
    said = _HOW_SAID.search(before)
    if len(after) < 2 or not said or after in GENERIC_WORDS:
        return ""
    groups = [
        g for part in (before[: said.start()], before)
        for g in (_MEASURE_HEAD.sub("", g) for g in things_in(part)) if len(g) >= 2
    ]
    joined = groups[0] + after if groups else ""
    return joined if len(joined) <= limit else ""


# words that say how it goes or what happened, not what the thing is
_HOW_SAID = re.compile(r"不|没|也能|都能|了")


def _within(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at a word boundary (never 'citywalk' → 'city', '亲子' → '亲'), and
    never ending on a word that waits for the rest (考公两次失败后去了 → 考公两次失败); a 第一次 in the
    middle goes first (金毛第一次去狗狗公园 → 金毛去狗狗公园), then a season or 周末 in the middle."""
    if len(text) <= limit:
        return text
    if len(shorter := re.sub(r"(?<=.)第一次", "", text)) <= limit:
        return shorter
    # …then when (青岛八大关秋天拍照穿搭 → 青岛八大关拍照穿搭): the season says least of what it is
    timeless = re.sub(r"(?<=.{2})(?:春天|夏天|秋天|冬天|秋冬|春夏|周末)(?=.{2})", "", shorter)
    if len(timeless) <= limit:
        return timeless
    # …then when and what one meant to do, said first (周末想带娃去郊区摘草莓 → 带娃去郊区摘草莓,
    # 秋天去南京栖霞山看红叶 → 南京栖霞山看红叶): a phrase ends in what it is about, so its end is the last
    # thing to cut
    plain = re.sub(_LEADING_WHEN, "", timeless)
    if 2 <= len(plain) <= limit:
        return plain
    # …then how long, said last (带爸妈去桂林阳朔玩四天 → 带爸妈去桂林阳朔玩)
    plain = re.sub(rf"(?<=\S{{4}})(?:{_SPAN.pattern})$", "", plain)
    if 2 <= len(plain) <= limit:
        return plain
    # …then how often, said by a doubled word (嘴巴周围反反复复起小红疹 → 嘴巴周围起小红疹)
    plain = re.sub(r"(?<=\S{2})(\S)\1(\S)\2(?=\S{2})", "", plain)
    if 2 <= len(plain) <= limit:
        return plain
    # …then the city before a street or a spot of it (成都玉林路宠物友好餐厅 → 玉林路宠物友好餐厅)
    city = next((p for p in places(plain) if plain.startswith(p)), "")
    rest = plain[len(city) :]
    finer = _FINER_PLACE.match(rest) or any(rest.startswith(p) for p in places(rest))  # 杭州滨江…
    if city and finer and 4 <= len(rest) <= limit:
        return rest
    if found := _thing_and_kind(plain, limit):  # its thing and its kind, not a cut through the middle
        return found
    # …or what comes before a second doing joined on (宝宝出牙期流口水还咬东西 → 宝宝出牙期流口水)
    if (joined := re.search(r"(?<=\S{4})(?:还|又|而且|并且|同时)", plain)) and joined.start() <= limit:
        return plain[: joined.start()]
    # …or, after a short head of who and when, the end from a thing on (孩子刚上幼儿园分离焦虑 →
    # 幼儿园分离焦虑): never a place, a span or an owner cut off (延吉三天两晚…, 带柯基去安吉…)
    for thing in things_in(plain) if re.fullmatch(r"[\u4e00-\u9fff]+", plain) else ():
        head, tail = plain[: plain.find(thing)], plain[plain.find(thing) :]
        if len(head) > 4 or places(head) or re.search(r"[带陪跟和同给]$", head):  # (带|爸妈: whom)
            break
        if 5 <= len(tail) <= limit and not _loose(*list(segmenter.posseg(tail))[-1]):
            return tail
    # …or its first thing, when the words before it tell what happened (坐了十几个小时绿皮卧铺 → 绿皮卧铺)
    things = [(g, _MEASURE_HEAD.sub("", g)) for g in things_in(plain)]
    if things and 3 <= len(things[0][1]) <= limit and "了" in plain[: plain.find(things[0][0])]:
        return things[0][1]
    # …or the thing a deed ends on, where it was (浙江安吉竹林里看到萤火虫 → 安吉竹林萤火虫, 出租屋装了个小米
    # 智能门锁 → 小米智能门锁): a phrase's head is at its end, the last thing to cut
    last = things[-1][1] if len(things) >= 2 else ""
    before = plain[: plain.rfind(last)] if last else ""
    deed = re.search(r"(?:[\u4e00-\u9fff][了到过着]|[了到过]个)", before)
    if deed and 3 <= len(last) <= limit:
        spot = _within(things[0][1], max(limit - len(last), 0)) if len(things[0][1]) >= 4 else ""
        whole = spot + last if spot and not places(last) else last
        return whole if len(whole) <= limit else last
    return _cut_words(text, limit)


def _cut_words(text: str, limit: int) -> str:
    """`text`'s first words within `limit` characters, never ending on half an English phrase, a word that
    waits for the rest, or one character that qualifies or does to what was cut off after it (起小|红疹,
    拔秃|了)."""
    words: list[str] = []
    cut = segmenter.cut(text)
    for word in cut:
        if sum(map(len, words)) + len(word) > limit:
            break
        words.append(word)
    if len(words) < len(cut) and _LATIN.match(cut[len(words)]):
        while len(words) > 1 and _LATIN.match(words[-1]):  # never half an English phrase (通勤smart)
            words.pop()
    while len(words) > 1 and _DANGLING.fullmatch(words[-1]):
        words.pop()
    while len(words) < len(cut) and len(words) > 1 and len(words[-1]) == 1:
        if segmenter.posseg("".join(words))[-1][1] not in ("a", "m", "b", "v"):
            break
        words.pop()
    out = "".join(words)
    return out if len(out) >= 2 else text[:limit]


_LATIN = re.compile(r"^[\sA-Za-z0-9]+$")
_PAIR = re.compile(r"[^\s，,。]\S*?[^，,。]+?(?:和|与|跟|还是|vs|VS|PK)[^，,。]{2,}")
# two things compared: the pair says it (凤凰古城和镇远古镇对比 → 凤凰古城和镇远古镇)
_COMPARED = re.compile(r"(?P<pair>.{2,}(?:和|与|跟|还是|vs|VS|PK).{2,}?)的?(?:对比|比较|PK|横评|测评|区别)+")
# two things and the question which of them (帕梅拉和周六野的跟练视频哪个更适合新手 → 帕梅拉和周六野)
_WHICH_OF = re.compile(
    r"(?P<pair>[^，,。的]{2,}(?:和|与|跟|还是|vs|VS)[^，,。的]{2,}?)(?=的|到底|选|更|最|比较|哪|谁)"
    r"的?[^，,。]{0,6}?(?:哪个|哪家|哪款|哪一个|谁)"
)
_PAIR_LIMIT = 20
_FINER_PLACE = re.compile(r"[\u4e00-\u9fff]{1,4}(?:路|街|巷|区|镇|村|古城|古镇|景区|公园)")
# Words a subject cannot end on: an adverb, a pronoun, a preposition, a conjunction or a particle
# (老房子厨房水龙头一直, 不用管道疏通剂自己), a count without its noun (zone 2慢跑三个 of 三个月), a space
# or a joining mark, a copula, 必 or 时 — not a span (两天一夜, 一个月) nor a closing bracket
_LOOSE_FLAGS = frozenset({"d", "r", "p", "c", "y", "e"})
_LOOSE_WORDS = frozenset({"是", "有", "被", "把", "到", "时", "必", "要", "会", "能"})
_BARE_COUNT = re.compile(r"^[几一二两三四五六七八九十\d]+个$|^[\s，,、+/·-]+$")


def _loose(word: str, flag: str) -> bool:
    loose = flag in _LOOSE_FLAGS or flag.startswith("u") or word in _LOOSE_WORDS
    return loose or bool(_BARE_COUNT.match(word))


def _tidy_end(subject: str) -> str:
    """`subject` without the loose words a cut left at its end (see above); as it was when little is left."""
    words = list(segmenter.posseg(subject))
    # (…not a doing jieba tags an adverb: 徒步 of 重庆城市徒步)
    while len(words) > 1 and _loose(*words[-1]) and words[-1][0] not in _activities():
        words.pop()
    tidy = "".join(w for w, _ in words).strip()
    return tidy if len(tidy) >= 2 else subject


def _nominal(subject: str) -> bool:
    """Does the subject end on a thing or an activity (刷酸流程, 东极岛海边露营), so a title may say 把…安排
    明白了, 挑…, 关于… of it — not on a state or an event (长款羽绒服一穿就显矮, 玻璃胶发黑发霉)?"""
    words = list(segmenter.posseg(subject))
    if not words:
        return False
    word, flag = words[-1]
    return flag.startswith(("n", "vn", "an", "l", "j", "eng")) or word in _activities()


@cache
def _activities() -> frozenset[str]:
    """The themes' trigger words that are doings (露营, 遛狗, 刷酸): activities a title may name."""
    from tools.offline.lexicon import THEMES  # (the lexicon reads the drafting rules' words)

    return frozenset(w for theme in THEMES.values() for w in theme.triggers if len(w) >= 2)


# a route the request gives (从南锣鼓巷到什刹海, 从西湖骑到灵隐寺): where it sets out and where it ends
_ROUTE = re.compile(
    r"从(?P<a>[\u4e00-\u9fff]{2,8}?)(?:出发)?[，,]?(?:一路)?(?:骑|走|逛|开|坐)?(?:到|去|至)(?P<b>[\u4e00-\u9fff]{2,8})"
)


def _route_stops(request: str) -> list[str]:
    """A day's line of the route a request gives (从南锣鼓巷出发，一路骑到什刹海) — [] for none, or for a
    journey between cities (从上海到杭州), which is how one gets there."""
    route = _ROUTE.search(request)
    if route is None or any(is_province(p) or p in divisions() for p in places(route.group(0))):
        return []
    way = "骑" if "骑" in request else "开车" if "自驾" in request else "走"
    return [f"上午从{route['a']}出发，一路{way}到{route['b']}"]


def _doing_there(topic: str) -> list[str]:
    """What a trip's subject goes to the place to do (秋天去婺源看晒秋 → 去看晒秋), as a line of its days —
    the doing alone, not what the topic says after it (去大连看海的两天一夜攻略 → 去看海)."""
    for place in places(topic):
        if done := re.search(re.escape(place) + _DOING_THERE, topic):
            return [f"去{done['do']}"]
    return []


_DOING_THERE = r"(?P<do>[看拍赏吃逛爬泡登][\u4e00-\u9fff]{1,6}?)(?=的|[一二两三四五六七八九十\d]|$)"


def _activity_head(subject: str) -> str:
    """The thing an activity qualifies, when the subject is that thing (露营咖啡 → 咖啡: coffee made at a
    camp); '' when the rest is the activity's own (露营装备, 徒步路线) or no one thing."""
    from tools.lexfiles import sections

    for theme in sections("theme_words.txt").values():
        own = set(theme.get("words", "").split())
        acts = sorted((w for w in theme.get("triggers", "").split() if len(w) >= 2), key=len, reverse=True)
        for act in acts:
            rest = subject[len(act) :] if subject.startswith(act) else ""
            if len(rest) >= 2 and rest not in own and not _KIND_OF_THINGS.search(rest) and _one_noun(rest):
                return rest
    return ""


# Words that name a kind of things, any of which an activity has (露营美食, 徒步装备, 烘焙工具): no one thing
_KIND_OF_THINGS = re.compile(r"美食|装备|穿搭|搭配|路线|攻略|好物|工具|技巧|清单|用品|妆|菜谱|食谱|零食|必备")


def _material(ctx: Context, fb: Feedback, words: list[str], head: str = "") -> Material:
    evidence = ctx.data("evidence") or {}
    facts = [f for f in evidence.get("facts", []) if isinstance(f, dict) and f.get("text")]
    # (a word of any subject — 小时 of 十几个小时 — would keep another subject's line: 精力最好的两小时)
    # (…nor a word only of a clause that says how long the writer has been at it: 入职 of 入职三个月 would
    # keep a note's job-offer lines in a post on reporting to one's boss)
    context = {w for c in CLAUSE.split(ctx.request) if _HOW_LONG.search(c) for w in segmenter.cut(c)}
    context -= set(segmenter.cut(ctx.topic))
    specific = [
        w
        for w in (*words, *fb.expand)
        if len(w) >= 2 and w not in _PLAIN | _NOT_TAGS and _particular(w) and w not in context
    ]
    asked = voice.activities(f"{ctx.read} {ctx.topic}", asked=True)  # 看银杏: no camping lines
    # (a doing of the post's theme at a place, 三亚学冲浪: a note of the place alone is no lead of it)
    named = places(ctx.topic)
    rest = re.sub("|".join(map(re.escape, named)) or "^$", "", ctx.topic)
    doing = [t for t in ctx.theme.triggers if len(t) >= 2 and t in rest] if named else []
    if named and ctx.theme.key == "food":  # (…and the dish had there: 在厦门吃了三家沙茶面 → 沙茶面)
        doing += [t for t in things_in(rest) if t not in doing]
    follows = (*doing, *ctx.theme.triggers) if doing and ctx.theme.key != "travel" else ()
    material = gather(facts, fb.avoid, specific, list(ctx.theme.triggers), asked, head=head, follows=follows)
    if _EATING_OUT.search(ctx.request) and not _COOKING.search(ctx.request):  # (a shop's post: no recipe)
        material.lines = [ln for ln in material.lines if not _RECIPE_LINE.search(ln.text)]
    return material


# a post on a shop one eats at (探店, 这家店), not on cooking: no line of a recipe's amounts or steps
_EATING_OUT = re.compile(r"探店|这家(?:店|餐厅|馆子|咖啡馆|面馆)|餐厅|\bbrunch\b", re.IGNORECASE)
_COOKING = re.compile(r"做法|菜谱|食谱|在家做|自己做|复刻|教程")
_RECIPE_LINE = re.compile(r"\d+\s*(?:g|克|ml|毫升)(?![a-z])|做的是|压成泥|搅匀|预热|焯水|腌制?\d")


# a clause that ends on how long: 入职三个月, 养猫三年, 练了半年
_HOW_LONG = re.compile(r"[一二两三四五六七八九十几半\d]+(?:个)?(?:年|月|星期|周|天)(?:了|多)?$")


def _score(line: Line, words: list[str], fb: Feedback, kind: str) -> float:
    """Lines on what the editor asked for, on the topic, concrete; labelled points for a list."""
    return (
        4 * overlap(fb.expand, line.text)
        + overlap(words, line.text)
        + (1 if is_concrete(line.text) else 0)
        + (1.5 if is_labelled(line.text) else 0)  # "帐篷：选3秒速开的" is a list item
        + (1 if kind == "list" and is_list_item(line.text) else 0)  # 带什么
    )


@dataclass
class _Arrangement:
    points: list[str]
    tips: list[str]
    outcome: str  # what came of it: the body's last words before the call to action
    shape: str  # "told" (a story in its order), "steps", "timeline" (a day in its hours) or "points"
    # (a list of things to have is shaped "things" by `_things_list`, after the arrangement)


_ASKS_STEPS = re.compile(r"步骤|做法|教程|流程|怎么做|顺序")


def _arrange(
    material: Material, kind: str, n_points: int, n_tips: int, words: list[str], fb: Feedback, asked: str
) -> _Arrangement:
    """The post's points and tips, the outcome it ends on, and how the points go together.

    One note's sequence reads as one experience: when the lead note numbered its parts, they are the
    list, in order (steps when it said 第一步/首先 or the request asks how to do it, a timeline when they
    are hours of a day); otherwise its points lead and the other notes' best points on the subject
    follow. Advice is said as tips, a story is told in its note's order, and what came of it closes the
    body."""
    tips = [*material.of("tip", lead=True), *material.of("tip", lead=False)]
    told = material.of("story", "item", "step", "outcome", lead=True)
    steps = material.of("step", lead=True)
    kinds = [ln.sequence for ln in steps]
    if kinds.count("step") >= 2 and kinds.count("time") == 1:  # a lone 早上… before 第1分钟、第2分钟 sets
        steps = [ln for ln in steps if ln.sequence != "time"]  # the scene (早上时间紧…): it is no step
    if kind in ("story", "diary") and len(told) >= 3 and len(steps) < 2:  # told, not a list squashed
        return _Arrangement(_texts(told), _texts(tips[:n_tips]), "", "told")
    if len(steps) >= 2:
        points = steps[: max(n_points, min(len(steps), 6))]
        sequences = [ln.sequence for ln in points]
        if sequences.count("time") >= 2:
            shape = "timeline"
        elif "step" in sequences or (_ASKS_STEPS.search(asked) and not all(map(is_labelled, _texts(points)))):
            shape = "steps"
        else:
            shape = "points"
        # what the note says besides its steps (6寸活底模，150度烤50分钟) is worth a line too
        tips += [
            ln
            for ln in material.of("item", lead=True)[1:]  # its first line set the scene
            if ln not in points and (is_concrete(ln.text) or "我" not in ln.text)
        ]
    else:
        own = material.of("item", "step", lead=True)
        others = sorted(material.of("item", "step", lead=False), key=lambda ln: -_score(ln, words, fb, kind))
        points, shape = [*own, *others][:n_points], "points"
    outcome = next((ln.text for ln in material.of("outcome", lead=True)), "")
    return _Arrangement(_texts(points), _texts(tips[:n_tips]), outcome, shape)


def _texts(lines: list[Line]) -> list[str]:
    return [ln.text for ln in lines]


_PET_EMOJI = {"cats": "🐱", "dogs": "🐶🦴"}


def _emoji(ctx: Context, plain: bool) -> Any:
    """A picker of the theme's emoji ('' when the post is plain), none of another pet's (no 🐱 on a corgi,
    no 🐶 on a turtle)."""
    named = readers(f"{ctx.read} {ctx.topic}") & PET_READERS
    foreign = {m for group, marks in _PET_EMOJI.items() if named and group not in named for m in marks}
    kept = tuple(x for x in ctx.theme.emoji if x not in foreign)
    return (lambda: "") if plain else (lambda: pick(ctx.rng, kept or ctx.theme.emoji))


def _general_lines(key: str) -> set[str]:
    """Every line of general advice a post may fall back on, said of `key`."""
    said = {t.format(k=key) for tips in voice.SUBJECT_TIPS.values() for t in tips}
    return said | {t for tips in voice.GENERAL_TIPS.values() for t in tips} | voice.all_scene_tips()


def _title(
    ctx: Context,
    kind: str,
    fields: dict[str, str],
    fb: Feedback,
    patterns: str,
    avoid: set[str],
    *,
    ordered: bool = True,
    by_days: bool = False,
) -> str:
    if fb.title_set:
        return fb.title_set[:TITLE_LIMIT]
    templates = list(voice.TITLES.get(kind, voice.TITLES["guide"]))
    # the evidence's winning patterns (a question, a number) weigh in the draw; they do not decide it,
    # or every post would get the one question skeleton of its kind
    favoured = "？" if "提问" in patterns else "{n}" if "数字" in patterns else None
    weights = {t: (1.3 if favoured and favoured in t else 1.0) * ctx.rng.random() for t in templates}
    templates.sort(key=lambda t: -weights[t])
    # "…难吗？" asks of a doing, a skill or a dish made (收纳, 考研英语, 番茄牛腩), not of a thing worn or
    # owned, nor of a place (灰色大衣难吗, 小户型客厅难吗)
    skills = ("food", "fitness", "beauty", "career", "outdoor")
    if not (_a_doing(fields["s"]) or _done_word(fields["s"]) or ctx.theme.key in skills):
        templates = [t for t in templates if "难吗" not in t] or templates
    if not ordered:  # no "3步搞定", "亲测顺序" over points that are no steps (体能, 推荐路线)
        templates = [t for t in templates if not re.search(r"步|顺序", t)] or templates
    if by_days:  # …nor "5步搞定" over a trip's days, which are in order but no steps
        templates = [t for t in templates if "步" not in t] or templates
    # a template that says again what the subject says (第一次 + 猫咪第一次打疫苗) reads as a stutter
    templates = [t for t in templates if not any(w in t and w in fields["s"] for w in _STUTTER)] or templates
    # "第一次{s}" says the reader is new to something they do (第一次去泉州, 第一次养猫) — not of a thing
    # (第一次杭州不累的路线, 第一次不会翻车的番茄炒蛋), nor when the request never says it is a first time
    if not (_FIRST_TIME.search(ctx.request) and _DOES.match(fields["s"])):
        templates = [t for t in templates if not t.startswith("第一次")] or templates
    # "…怎么安排", "把…安排明白了" are said of a plan (a trip, a week, a schedule), not of a make-up look
    if not (_PLANNED.search(fields["s"]) or ctx.theme.key in ("travel", "outdoor")):
        templates = [t for t in templates if "安排" not in t] or templates
    # a subject that ends on a state or an event (玻璃胶发黑发霉) stands on its own before ｜ or ，: no
    # 把…安排明白了, 挑…, …的正确打开方式 of it
    if not _nominal(fields["s"]):
        templates = [t for t in templates if re.match(r"\{s\}[｜，]", t)] or templates
    # a subject that opens on a doing (养柯基, 去泉州) or is a clause (狗狗坐飞机托运) is no thing to choose,
    # count or keep: no 挑养柯基, 6个养柯基, 私藏的狗狗坐飞机托运
    if _a_doing(fields["s"]) or _told_clause(fields["s"]) or "第一次" in fields["s"]:
        templates = [t for t in templates if not _THING_BEFORE.search(t)] or templates
    if _told_clause(fields["s"]):  # a clause is nobody's thing (no 我的县城开奶茶店故事, 今天的坚持晨跑30天)
        templates = [t for t in templates if not re.search(r"的\{s\}|\{s\}的", t)] or templates
    # a reader said with a clause (想逃离城市的上班族) makes a title of two 的: only a short one names it
    if "的" in fields["a"] or len(fields["a"]) > 6:
        templates = [t for t in templates if "{a}" not in t] or templates
    candidates = [t.format(**fields) for t in templates]
    if question := _question(ctx.topic):  # 宝宝几个月可以开始吃辅食: asked whole, not cut to a noun
        phrased = sorted(voice.QUESTION_TITLES, key=lambda _: ctx.rng.random())
        candidates = [t.format(q=question, **fields) for t in phrased] + candidates
    if asked := asked_title(ctx.request):  # the creator's own title comes first, when it fits
        candidates.insert(0, asked)
    for add in fb.title_add:  # the editor's words go first
        candidates = [c if add in c else f"{add}｜{c}" for c in candidates]
    # (a critic's redo keeps the title the creator named; an editor asking for another title does not)
    kept = asked if asked and not fb.title_refresh else ""
    fitting = [c for c in candidates if len(c) <= TITLE_LIMIT and (c not in avoid or c == kept)]
    if fitting:
        return fitting[0]
    short = {**fields, "e": "", "a": fields["a"][:4]}
    # (a long subject stands alone rather than cut a template's words: no "…学会吹《两只老虎》，看完不踩")
    plain = ["｜".join([*fb.title_add, "{s}"])] if fb.title_add else [templates[0], "{s}"]
    fallback = next((f for f in (p.format(**short) for p in plain) if len(f) <= TITLE_LIMIT), "")
    # (cut to the limit, never on a separator left hanging: no "iPhone 15和华为Mate 60｜")
    return fallback or re.sub(r"[｜|，,：:\s]+$", "", plain[-1].format(**short)[:TITLE_LIMIT])


_PLANNED = re.compile(r"游|行程|路线|旅行|计划|安排|规划|日程|时间|周末|假期|一天|一周|备考|复习|作息|挑战")
# A question the post answers, short enough for a title to ask it whole
_QUESTION_WORD = re.compile(
    r"怎么|如何|怎样|哪些|哪个|哪里|哪儿|去哪|哪款|哪家|什么|几个月|几岁|几点|多久|要不要|该不该|为什么|值不值"
)


def _question(topic: str) -> str:
    """The topic as the question a title may ask ('' when it asks nothing or is too long to ask whole)."""
    text = re.sub(r"[？?！!。]+$", "", topic.strip())
    text = re.sub(r"(?:后来|最后|当时)(?=怎么|如何)", "", text)  # (the told 后来 of 我后来怎么解决的)
    found = _QUESTION_WORD.search(text)
    if not found or max(found.start(), len(text) - found.end()) < 2 or not 5 <= len(text) <= 14:
        return ""
    return text


# what only a thing can follow: a verb of choosing or doing, a count, a keeper
_THING_BEFORE = re.compile(r"(?:挑|选|搞定|把|实测|私藏的|\{n\}个)\{s\}")


def _done_word(subject: str) -> bool:
    """Does the subject end on a doing (早起跑步, 刷酸, 阳台改造), by jieba's tag?"""
    words = segmenter.posseg(subject)
    return bool(words) and words[-1][1] in ("v", "vn")


def _a_doing(subject: str) -> bool:
    """Does the subject open on a one-character verb of doing (养柯基, 去泉州, 做番茄牛腩)?"""
    words = segmenter.cut(subject)
    return len(words) > 1 and len(words[0]) == 1 and bool(_DOES.match(words[0]))


_DAY_LABEL = re.compile(r"^(?:D|Day|DAY)\s?\d+\b", re.ASCII)
_MEAL = re.compile(r"早午餐|早餐|午餐|晚餐|早饭|午饭|晚饭|夜宵|宵夜")  # (a meal is a thing too: 街边早餐)
_STUTTER = ("第一次", "新手", "攻略", "清单", "指南", "合集", "心得", "记录", "入门")
_FIRST_TIME = re.compile(r"第一次|首次|新手|小白|入门|零基础")
_DOES = re.compile(r"[去做养带学练考买装租种拍跑爬骑住坐搬]|给|在")  # a subject that opens on a doing


def _audience(ctx: Context, fb: Feedback) -> str:
    """Who the post is for, as people ('带爸妈' is what they do: '打算带爸妈出门的朋友')."""
    if fb.audience:
        audience = re.sub(r"^(?:面向|写给|针对|给)", "", fb.audience)
    else:
        audience = str(ctx.brief.get("audience") or extract_audience(ctx.request) or ctx.theme.audience)
    if re.match(r"^(?:带|陪|和|跟)", audience) and len(audience) <= 6:
        return f"打算{audience}出门的朋友"
    return audience[:12]


def _tags(
    ctx: Context, subject: str, key: str, fb: Feedback, previous: dict[str, Any], replace: bool
) -> list[str]:
    """The post's tags; on a redo that asks for other tags, new ones — all new when the editor asked
    (`replace`), added to the old that still fit when the critic did (too few, or some unrelated)."""
    evidence = ctx.data("evidence") or {}
    if fb.tags_set:
        base = list(fb.tags_set)
    else:
        pool = [
            # the subject and its key word when they name a thing (not 秋天的桂花糕做法, 烤戚风蛋糕不塌)
            subject if _subject_tag(subject) else "",
            key if len(key) >= 3 and (_tag_word(key) or _one_noun(key) or _subject_tag(key)) else "",
            *evidence.get("recommendedTags", []),
            # …not a place the request names only as a dish's origin (重庆 of 重庆小面)
            *(
                k
                for k in ctx.brief.get("keywords", [])
                if 2 <= len(k) <= 8
                and (_tag_word(k) or (k in subject and _one_noun(k)))  # (…or a thing the subject names: 多肉)
                and not (places(k) and not places(ctx.request))
            ),
            *ctx.theme.tags[:1],  # the theme's name tag: its other tags may not fit (家常菜 on 探店)
        ]
        if fb.tags_refresh:  # more candidates, so other tags than last time are there to pick — of the
            # theme's most used, those on the subject or fit for any post of its theme (no #独库公路 on 赶海)
            fitting = {*generic_tags("any"), *generic_tags(ctx.theme.key)}
            on_it = keywords(subject, 3)
            top = [t for t in evidence.get("topTags", []) if t.lower() in fitting or overlap(on_it, t)]
            # (a whole thing: 蛋炒饭, not 蛋炒饭粒粒 of 蛋炒饭粒粒分明 nor 幼小 of 幼小衔接)
            things = [w for w in things_in(subject) if not places(w) and (_one_noun(w) or _tag_word(w))][:2]
            own = [f"{w}{kind}" for w in things for kind in ("分享", "日常")]  # #绿植日常, not #南京日常
            pool += [*top, *own, *generic_tags(ctx.theme.key)]
        base = [t.lstrip("#").strip() for t in pool if t and t.strip("# ")]
    avoid = [*fb.avoid, *fb.tags_remove]
    base = [t for t in base if not _KIND_WORDS.fullmatch(t)]  # #经验分享 is what kind of post, not about what
    base = [_street(t, ctx.request) for t in base]
    base = [t for t in base if not _only_setting_out(t, ctx.request, ctx.topic)]
    # (…nor a kind of the theme's thing for a setting or a figure the request never names: no #职场穿搭 nor
    # #显瘦穿搭 on a night out in the snow)
    said = f"{ctx.read} {ctx.topic}"
    base = [t for t in base if not ((q := _QUALIFIED.match(t)) and q["q"] not in said)]
    # (…nor what the request refuses: no #开车 on 不开车怎么去)
    base = [t for t in base if not re.search(rf"(?:不|别|不用|不想|无需)(?:{re.escape(t)})", ctx.request)]
    whose = readers(f"{ctx.read} {ctx.topic}")  # no #养猫 on a dog's adoption
    base = [t for t in base if not other_readers(t, whose)]
    if not fb.tags_set:  # no tag of another activity of the theme (#露营 on a sunrise hike)
        base = [t for t in base if t in ctx.theme.tags[:1] or not _other_activity(ctx, t)]
        # …nor of a season the request never names (no #冬季穿搭 on a Sanya holiday)
        base = [t for t in base if not _other_season(t, f"{ctx.read} {ctx.topic}")]
        # …nor of a city's surroundings on a post about the city itself (#杭州周边 on 西湖)
        base = [t for t in base if not (t.endswith(("周边", "周边游")) and "周边" not in ctx.request)]
    tags = [t[:24] for t in dedupe([*fb.tags_add, *base]) if not any(x in t for x in avoid)]
    if fb.tags_refresh and not fb.tags_set:
        old = {str(t) for t in previous.get("tags") or []}
        fresh = [t for t in tags if t not in old]
        kept = [t for t in tags if t in old]
        if not replace:
            tags = dedupe([*fb.tags_add, *kept, *fresh])
        elif len(fresh) >= 3:
            tags = dedupe([*fb.tags_add, *fresh[:6]])
        else:  # too few new ones: the old ones fill in only up to the three a post needs
            tags = [*fresh, *kept][:3]
    if len(tags) < 3 and not fb.tags_set:  # a post needs three tags: the theme's own fill in (#穿搭分享)
        fill = [
            t
            for t in ctx.theme.tags
            if (t in ctx.theme.tags[:1] or not _other_activity(ctx, t)) and not other_readers(t, whose)
        ]
        tags = dedupe([*tags, *(t for t in fill if not any(x in t for x in avoid))])
    if len(tags) < 3 and not fb.tags_set:  # …and then the tags that fit any post of the theme, or any post
        # (…not of an activity the request does not ask for: no #露营 nor #水上运动 on a night ride)
        asked = voice.activities(f"{ctx.read} {ctx.topic}", asked=True)
        spare = [
            t
            for t in [*generic_tags(ctx.theme.key), *generic_tags("any")]
            if not _other_activity(ctx, t) and voice.activities(t) <= asked
        ]
        tags = dedupe([*tags, *(t for t in spare if not any(x in t for x in avoid))])[: max(3, len(tags))]
    return tags[:8]


# a kind of the theme's thing for a setting, a reader or a figure (职场穿搭, 约会妆, 显瘦穿搭, 海岸线徒步)
_QUALIFIED = re.compile(
    r"^(?P<q>职场|通勤|约会|校园|学生党?|显瘦|显高|小个子|微胖|梨形|大码|度假|海边|海岛|海岸线|城市|亲子)"
    r"(?:穿搭|妆容?|护肤|健身|发型|徒步|露营|骑行)$"
)
_SEASON = re.compile(r"秋冬|春夏|春季|夏季|秋季|冬季|春天|夏天|秋天|冬天|早春|初秋|初夏|寒冬|盛夏")


# where a request sets out from, or where its reader or writer lives (从上海开车去松阳, 住杭州的朋友, 回北京)
_SETTING_OUT = r"(?:从|回|离开|住在?|家在|人在){p}|{p}(?:[东南西北]?站|机场)?出发"


def _only_setting_out(tag: str, request: str, topic: str) -> bool:
    """Is the tag a place the request names only as where the trip sets out from or the writer lives — no
    place the post is about (#上海 on 从上海开车去松阳)?"""
    if places(tag) != [tag]:
        return False
    said = f"{request}\n{topic}"
    at = [m.start() for m in re.finditer(re.escape(tag), said)]
    way = re.compile(_SETTING_OUT.format(p=re.escape(tag)))
    spans = [(m.start(), m.end()) for m in way.finditer(said)]
    return bool(at) and all(any(a <= i < b for a, b in spans) for i in at)


def _other_season(tag: str, said: str) -> bool:
    """Does the tag name a season `said` never names — by any of its characters of 春夏秋冬 (秋冬 by 秋
    or by 冬)?"""
    season = _SEASON.search(tag)
    return season is not None and not any(c in said for c in season.group(0) if c in "春夏秋冬")


def _street(tag: str, request: str) -> str:
    """The whole street a tag names only the first part of (#玉林 of 玉林路 is a city in 广西: #玉林路)."""
    # (not 一日游路 of 一日游路线: a route is no street)
    street = re.search(re.escape(tag) + r"[东西南北中]?(?:路(?![线上过])|街|巷|大道)", request)
    return street.group(0) if street else tag


_ACTIVITY_THEMES = frozenset({"travel", "outdoor", "fitness"})


def _other_activity(ctx: Context, tag: str) -> bool:
    """Does the tag name one of the theme's activities (its trigger words: 露营, 骑行, 烘焙) when the request
    names another of them and not this one? A hike's evidence may carry a camping note's tags."""
    if ctx.theme.key not in _ACTIVITY_THEMES:  # a food or home theme's triggers are kinds, no activities
        return False  # (#家常菜 fits 番茄牛腩家常做法 though its 做法 is a trigger too)
    triggers = [w for w in ctx.theme.triggers if len(w) >= 2]
    asked = f"{ctx.read} {ctx.topic}".lower()
    named = [w for w in triggers if w in asked]
    in_tag = [w for w in triggers if w in tag.lower()]
    return bool(named) and bool(in_tag) and not any(w in asked for w in in_tag)


# What "write more about X" means in numbers: money is prices, time is durations, …
_FOCUS = (
    (
        re.compile(r"预算|花费|价格|多少钱|人均|费用|省钱|钱"),
        re.compile(r"[\d一二两三四五六七八九十百千万]+\s*(?:元|块)|免费|人均|花了|预算"),
    ),
    (re.compile(r"时间|路线|行程|几点|多久|时长"), re.compile(r"\d+\s*(?:分钟|小时|点|天)|路线|出发")),
    (re.compile(r"装备|清单|带什么|东西|准备"), re.compile(r"装备|带上?|清单|准备")),
    (re.compile(r"安全|注意"), re.compile(r"安全|注意|别|不要|小心")),
)


def _focus(word: str) -> re.Pattern[str] | None:
    return next((facts for asks, facts in _FOCUS if asks.search(word)), None)


KEPT_POINTS = 3  # a shortened post keeps at least this many list lines: shorter, never empty of points
KEPT_TOLD = 2  # …and a told paragraph (a story in prose) at least this many sentences
_TOLD_SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]*[”」）)]?")


def _shorten_body(body: str, limit: int, keep: str = "") -> str:
    """Drop list lines from the end of the longest lists (never the opening, the closing, nor a section
    holding `keep` — what the editor asked for more of) until the body is within `limit` characters, and
    never below `KEPT_POINTS` list lines (a redo of a shortened draft asks for shorter again: the floor keeps
    the post's substance); then the last sentences of a told paragraph, down to `KEPT_TOLD`."""
    paragraphs = body.split("\n\n")
    while len("\n\n".join(paragraphs)) > limit:
        middle = [
            i
            for i in range(1, len(paragraphs) - 1)
            if "\n" in paragraphs[i] and not (keep and keep in paragraphs[i])
        ]
        points = sum(p.count("\n") for p in paragraphs[1:-1] if "\n" in p)
        if not middle or points <= KEPT_POINTS:
            told = [
                (i, said)
                for i in range(1, len(paragraphs) - 1)
                if "\n" not in paragraphs[i] and not (keep and keep in paragraphs[i])
                and len(said := _TOLD_SENTENCE.findall(paragraphs[i])) > KEPT_TOLD
            ]
            if not told:
                break
            i, said = max(told, key=lambda t: len(paragraphs[t[0]]))
            paragraphs[i] = "".join(said[:-1])
            continue
        i = max(middle, key=lambda k: paragraphs[k].count("\n"))
        lines = paragraphs[i].split("\n")
        paragraphs[i] = "\n".join(lines[:-1])
        if len(lines) <= 2:  # a heading with one line left: drop the paragraph
            del paragraphs[i]
    return "\n\n".join(paragraphs)


def _other_half(ctx: Context, subject: str, said: list[str]) -> list[tuple[str, list[str]]]:
    """A subject of two things (柯基掉毛和减肥) whose second the list never mentions: that thing's scene
    advice, as a section of its own — the owner named before the first (柯基) is the second's owner too."""
    first, joined, second = subject.partition("和")
    if not joined or len(second) < 2 or places(second) or any(second in line for line in said):
        return []
    owner = next((w for w, flag in posseg_cut(first) if flag.startswith("n") and len(w) >= 2), "")
    tips = voice.scene_tips(ctx.theme.key, owner + second, f"{ctx.read} {owner}{second}")
    fresh = [t for t in tips if t not in said]
    return [(second, fresh[:3])] if fresh else []


# a thing with its amount (鲜虾半斤, 青蟹两只, 八个鸡翅): what a recipe takes
_AMOUNT = (
    r"(?:半|[一两二三四五六七八九十几]+|\d+(?:\.\d+)?)\s*"
    r"(?:斤|两|克|g|kg|千克|只|个|根|块|片|杯|勺|把|小把|颗|粒|条|碗|盒|袋|包|罐|瓶|毫升|ml|升)"
)
_AMOUNT_TAKEN = re.compile(rf"[\u4e00-\u9fffA-Za-z]{{1,8}}?{_AMOUNT}|{_AMOUNT}[\u4e00-\u9fffA-Za-z]{{1,8}}")


def _amounts_taken(details: Details, cooking: bool) -> Details:
    """A dish's listed things with their amounts, cooked, are what it takes, told with the writer's own story
    (周末在家做了砂锅虾蟹粥，用了鲜虾半斤、青蟹两只和珍珠米一杯), not the steps of its list."""
    if not cooking or sum(map(bool, map(_AMOUNT_TAKEN.fullmatch, details.items))) < 2:
        return details
    *first, last = details.items
    details.items, details.terms = [], [*details.terms, f"用了{'、'.join(first)}和{last}"]
    return details


def _own_points(
    details: Details, points: list[str], tips: list[str], known: list[str], n_points: int, n_tips: int
) -> tuple[list[str], list[str]]:
    """The list when the request made it: the things it lists, each said by a short line of the evidence
    that opens on it or else by its name alone (纸箱城堡, 影子剧场, 冰块寻宝 — a corpus that knows none of
    them does not replace them with general advice), the evidence's points then said as advice after them;
    or what it says to do (先查潮汐表, 带小铲子、盐和网兜), first, in its order."""
    if details.items:
        used: set[str] = set()
        named = dedupe([_item_said(item, known, used) for item in details.items])
        rest = [p for p in [*points, *tips] if p not in named and p not in used]
        return named, rest[: n_tips + 1]
    if details.steps:
        # (rows of the clock listed as one: 14:00磁器口、19:30洪崖洞 are two)
        rows = [row for step in details.steps for row in re.split(rf"、(?={CLOCK})", step)]
        steps = [_step_said(step, known) for step in rows]
        return dedupe([*steps, *points])[: max(n_points, len(steps))], tips
    return points, tips


# a step that says its doing (去…, 沿…)
_GOES = re.compile(r"(?:先|再|然后)?(?:去|逛|看|吃|走|爬|坐|拍|玩|骑|到|沿|在|从)")


def _step_said(step: str, known: list[str]) -> str:
    """A step of the request's route said as a doing: a bare stop (武康路→安福路那段) by the evidence's line
    that goes there, else as a visit to it (去安福路逛逛); any other step as the request said it."""
    stop = re.sub(r"(?:那|这)(?:段|条|边|一段)$", "", step)
    if clock := _CLOCK_ROW.match(stop):  # (…and a row of the clock, its time set apart: 9:00 鹅岭二厂)
        return f"{clock.group(0)} {stop[clock.end():].strip()}"
    if not itinerary.is_stop(stop) or _GOES.match(stop) or itinerary.TIME_OF.match(stop):
        return step  # (…a step at its own time is its own doing: 晚上在西街附近吃姜母鸭)
    return next((ln for ln in known if stop in ln and itinerary.is_doing(ln)), itinerary.visit(stop))


def _item_said(item: str, known: list[str], used: set[str]) -> str:
    """A listed item as a line of the list: the evidence's or the advice's short line that opens on it, else
    the item with a short line about it after it (老火锅：a note's line on 火锅; 防诈骗设置：the scene's line
    on 反诈), else its name alone. A line said for one item is `used`: no other says it. An item that
    carries its own label (周一：西装马甲+直筒裤) is said as it is."""
    if re.match(r"[^：:]{1,6}[：:]\S", item):
        return item
    opening = next((ln for ln in known if _says(ln, item) and ln not in used), None)
    if opening:
        used.add(opening)
        return opening
    words = _particular_words(item) - GENERIC_VERBS
    # (a line about the thing the item ends on, not about the word that qualifies it: 项目 of 项目现状 is
    # no line on the project's state)
    ending = [w for w in words if item.endswith(w)]
    words = set(ending) if ending and len(words) > 1 else words
    heads = {w[-2:] for w in words if len(w) >= 3} | words  # (老火锅 is any 火锅)
    about = next(
        (ln for ln in known if len(ln) <= 50 and ln not in used and any(w in ln for w in heads)), None
    )
    if about is None:  # (…or a dish by what it is: 冰粉：手搓的冰粉淋红糖水…)
        return f"{item}：{note}" if (note := dish_note(item)) else item
    used.add(about)
    return f"{item}：{about}"


def _is_item_line(line: str, items: list[str]) -> bool:
    """Is `line` one of the request's items, alone or with what `_item_said` says of it (锅盔：…)?"""
    return any(line == item or line.startswith(f"{item}：") for item in items)


def _says(line: str, item: str) -> bool:
    """Is `line` a short line that opens on the item (交接文档写清楚…), so it can stand for it in a list?"""
    return line.startswith(item) and len(line) <= 40


_CLOCK_ROW = re.compile(CLOCK)
_GOING_TO = re.compile(r"[去逛看吃喝走爬坐拍玩骑划泡登到找回在从]")


def _told_with_route(details: Details) -> str:
    """What the request told, then the route of the stops it lists (two or more), if any."""
    stops = [w for w in details.wants if itinerary.is_stop(w) and len(w) <= 8 and not _GOING_TO.match(w)]
    if len(stops) < 2:
        return details.said()
    told = details.said() or ("，".join([*details.told, *details.terms]) + "。" if details.told else "")
    return f"{told}\n路线：{' → '.join(stops)}".strip()


def compose_draft(ctx: Context) -> dict[str, Any]:
    """The writer's draft: what to say (the evidence arranged, asked-for extras, the scene's advice), then
    how (the opening, the list, the tips, the closing in the post's voice), then the title and tags. Every
    stage draws from `ctx.rng` in this order, so a draft is the same for the same prompt."""
    brief = ctx.brief
    fb = parse(ctx.text("feedback"))
    critic = parse(ctx.text("review_feedback"))
    # what the request says to leave out and how to sound (不要提城市, 接地气), its spaces parting clauses
    asked = parse(re.sub(SPACE_BREAK, "，", ctx.request))
    fb.avoid += [*critic.avoid, *(a for a in asked.avoid if a not in fb.avoid)]
    replace_tags = fb.tags_refresh  # the editor's own ask; the critic's adds to the tags that fit
    fb.tags_refresh = fb.tags_refresh or critic.tags_refresh
    previous = ctx.data("previous") or {}
    kind = str(brief.get("contentType") or "guide")
    kind = kind if kind in voice.TITLES else "guide"
    asked_formal = re.search(r"正式|严谨|书面", f"{ctx.request} {brief.get('tone', '')}")
    tone = fb.tone or asked.tone or ("formal" if asked_formal else None)
    plain = fb.emoji == "none" or tone == "formal"
    e = _emoji(ctx, plain)
    audience = _audience(ctx, fb)
    subject = subject_of(str(brief.get("topic") or ctx.topic), audience)
    angle = shorten(str(brief.get("angle") or ""), 24).strip("，。 ")
    angle_words = keywords(angle, 4) if angle else []
    # the angle an editor's clarification chose weighs twice: its facts go first
    words = [*brief.get("keywords", []), *keywords(subject, 3), *fb.expand, *angle_words, *angle_words]
    words = [w for w in words if not only_as_time(w, f"{ctx.request} {subject}")]  # 下班后练力量: when
    material = _material(ctx, fb, words, _activity_head(subject))

    length = fb.length or ("shorter" if re.search(r"精简|简短|短一", ctx.text("review_feedback")) else None)
    n_points = {"shorter": 3, "longer": 6}.get(length or "", 4)
    n_tips = {"shorter": 1, "longer": 4}.get(length or "", 2)
    if _WEEK_ASKED.search(ctx.request) and length != "shorter":  # 一周不重样: every day the notes give
        weekdays = {m.group(0) for ln in material.lines if (m := _WEEKDAY.match(ln.text))}
        n_points = max(n_points, min(len(weekdays), 7))
    extra_on, reserved = _asked_more(material, words, fb, kind)
    scene = material.scene()
    material.lines = [ln for ln in material.lines if ln.text not in {*reserved, scene}]  # each line once
    arranged = _arrange(material, kind, n_points, n_tips, words, fb, f"{ctx.request} {subject}")
    # headings name it: 厦门·要点 of a trip (a family's 西安亲子研学路线 too), 燃面·要点 of a dish
    # (…not a run's route: 杭州晨跑路线 is headed 晨跑)
    trip = ctx.theme.key in ("travel", "outdoor") or (_a_trip(subject) and ctx.theme.key != "fitness")
    key = _key(subject, [str(k) for k in brief.get("keywords", [])], trip=trip)
    cooking = ctx.theme.key == "food" and bool(COOKED.search(ctx.request))
    details = _amounts_taken(request_details(ctx.request, subject, ctx.topic), cooking)
    general, theme_tips = _general_advice(ctx, subject, key, kind, fb, length, told=len(details.told))
    things = _things_asked(ctx, subject, fb) if arranged.shape != "told" else voice.SceneTips()
    days = itinerary.trip_days(ctx.request) if ctx.theme.key == "travel" and kind == "guide" else 0
    if things.things and not days:  # what to have is the list; the scene's advice and notes beside it
        points, tips, shape = _things_list(ctx, things, arranged, (n_points, n_tips), length)
    else:
        points, tips, shape = _with_advice(
            arranged, general, theme_tips, subject, brief, (n_points, n_tips), length
        )
    outcome = arranged.outcome

    if shape != "told":  # the things the request lists, or what it says to do, lead the list
        known = [*points, *tips, *(ln.text for ln in material.lines)]
        points, tips = _own_points(details, points, tips, known, n_points, n_tips)
        # (names alone, nothing said of them — not a trip's stops, which its days plan)
        if details.items and shape == "points" and not days and set(details.items) >= set(points):
            shape = "named"
    # a scene's advice and a note's line may say one thing twice (穿速干衣…防水袋 / 建议穿速干衣…防水袋)
    kept = _distinct([*points, *tips])
    points, tips = [p for p in points if p in kept], [t for t in tips if t in kept and t not in points]
    # (no tip under a label an item of the list has: a note's 周一：浅蓝衬衫… beside the request's 周一：…)
    labels = {m.group(0) for p in points if (m := _ROW_LABEL.match(p))}
    tips = [t for t in tips if not ((m := _ROW_LABEL.match(t)) and m.group(0) in labels)]

    if not (days and shape in ("points", "timeline")):  # a line of another trip's days (D9 到布尔津，去
        # 喀纳斯) says nothing on its own, outside a plan by days
        points = [p for p in points if not _DAY_LABEL.match(p)]
        tips = [t for t in tips if not _DAY_LABEL.match(t)]
    if not points:  # (never a heading over nothing: what the tips say leads instead)
        points, tips = tips[: max(len(tips) - 1, 1)], tips[max(len(tips) - 1, 1) :]
    kind = kind if points or days else _told_kind(kind)
    fields = {"s": subject, "a": audience, "n": str(max(len(points), 2)), "e": e(), "g": ctx.theme.benefit}
    # a list of no things, only the general advice on choosing them (a corpus that knows no novels),
    # promises no count nor favourites: it opens and is titled as a guide to choosing
    choosing = kind == "list" and bool(points) and all(p in _general_lines(key) for p in points)
    hook = _opening(ctx, "guide" if choosing else kind, tone, fb, fields, shape, scene, angle, e)
    if tone in voice.ASIDES:
        endings = voice.LINE_ENDINGS[tone]
        # the voice in every other line: a particle on each reads as a tic
        points = [p + endings[i // 2 % len(endings)] if i % 2 == 0 else p for i, p in enumerate(points)]

    # (a trip of so many days is told day by day, when its points or its hours hold enough to do — not a
    # day the request gave by the clock, 9:00鹅岭二厂 11:30李子坝…: its rows are the list, as given)
    clocked = sum(bool(_CLOCK_ROW.match(s)) for s in details.steps) >= 2
    planned = days and shape in ("points", "timeline") and not clocked
    # …and the dishes it tells it ate are meals of its days (吃了虾籽面和小笼汤包), not a line of its story
    eating = bool(re.search(r"吃|美食|小吃", ctx.request))  # (…and so are the dishes a food trip lists)

    def meals(told: str) -> list[str]:
        return itinerary.meals(told) or (itinerary.dish_meals(told) if eating else [])

    # a day the request tells hour by hour (上午走了洛阳桥，下午爬清源山看了老君岩，晚上…) is the plan's day,
    # said as a plan, not told again in the story
    hours = [t for t in details.told if itinerary.TIME_OF.match(t)] if planned else []
    hours = hours if len(hours) >= 2 else []
    details.told = [t for t in details.told if t not in hours]
    # …and so is a spot told with what was done there (李子坝看轻轨穿楼人多到离谱 → 去李子坝看轻轨穿楼，
    # 人多到离谱)
    visits = _told_visits(details) if planned else {}
    details.told = [t for t in details.told if t not in visits]
    if not planned and ctx.theme.key == "travel":  # (…and, told with no days, a guide's points)
        points = _with_spot_remarks(details, points)
    eaten = [m for t in details.told for m in meals(t)] if planned else []
    if eaten:
        details.told = [t for t in details.told if not meals(t)]
    # (…as are the dishes a food trip lists, 吃货路线：张飞牛肉、保宁醋、锅盔: meals, not tips)
    listed_dishes = itinerary.dish_meals("、".join(details.items)) if planned and eating else []
    if listed_dishes:
        eaten += listed_dishes
        # (…the item with a line on it too: 锅盔：面饼贴在炉壁烤…)
        points = [p for p in points if not _is_item_line(p, details.items)]
        tips = [t for t in tips if not _is_item_line(t, details.items)]
    # (…but not a clause of what the post is asked to leave out: 蟳埔村簪花排了一个半小时, 但这篇不写簪花)
    details.told = [t for t in details.told if not any(x in t for x in fb.avoid)]
    # the writer's own story and terms, as the request told them — with the stops of a trip too long for a
    # plan by days, in their order (我这次走了8天 赛里木湖 那拉提 伊宁 → …路线：赛里木湖 → 那拉提 → 伊宁)
    routed = not planned and ctx.theme.key == "travel"
    paragraphs = [hook, _told_with_route(details) if routed else details.said()]
    missed = _missed_stops(details)  # (where the trip did not go: no stop, tip or tag)
    if planned:
        # (…none the plan goes to already: 去李子坝看轻轨穿楼 is 李子坝's visit)
        gone = [p for line in visits.values() for p in places(line)]
        spare = [
            s
            for s in _spare_doings(ctx, fb, [*points, *tips, *details.wants])
            if not _in_any(s, missed, inside=True) and not _in_any(s, gone, inside=True)
        ]
        # the request's own doings first, unless a line of the evidence does them (看高山草甸 of a note's
        # climb through the meadows, with its hours)
        # (…and the places it lists bare are places to go to: 五天行程：古城寺庙、周日夜市、素贴山)
        # (…a place named bare too, 八大关, which reads as a doing for its name alone)
        stops = [
            i
            for i in details.items
            if itinerary.is_stop(i) and (not itinerary.is_doing(i) or places(i) == [i])
        ]
        points, tips = [p for p in points if p not in stops], [t for t in tips if t not in stops]
        said = _particular_words("".join(points)) - set(places(ctx.request))
        wants = [
            w
            for w in [
                *map(itinerary.as_planned, hours),
                *filter(None, visits.values()),
                *_route_stops(ctx.request),
                *details.wants,
                *map(itinerary.visit, [p for p in [*_told_stops(details), *stops] if not _in_any(p, hours)]),
                *eaten,
                *_doing_there(ctx.topic),
            ]
            if itinerary.is_doing(w)
            and not (_particular_words(w) - set(places(w)) - GENERIC_VERBS - _VISITING) & said
        ]
        tips = [t for t in tips if not _in_any(t, missed, inside=True)]
        points = [p for p in points if not _in_any(p, missed, inside=True)]
        by_day = _day_paragraphs(ctx, days, [*wants, *points], tips, key, length, e, spare)
    else:
        by_day = []
    listed_as = "guide" if choosing else kind  # (headed 要点, not 我的选择, when it chose no things)
    sections, points, tips = _parts_said(details.parts, material, subject, (points, tips), e, by_day or shape)
    paragraphs += sections
    paragraphs += by_day or _list_paragraphs(ctx, listed_as, shape, points, tips, key, plain, fb, length, e)
    if things.things and shape != "things" and length != "shorter":
        # a trip asked for its days and its gear (路线和装备攻略): the days, then what to bring for them
        # (none the post already names: 防晒霜、帽子和墨镜 after a tip on them)
        said_text = "\n".join(paragraphs)
        extra = [t for t in things.things if not any(n in said_text for n in voice.thing_names([t]))]
        if extra:
            heading = pick(ctx.rng, voice.THINGS_HEADINGS).format(e=f"{e()}{key}·").strip()
            paragraphs.append(heading + "\n" + "\n".join(f"· {t}" for t in extra[:4]))
    if not fb.expand and length != "shorter":  # the subject's second half gets its own say (柯基掉毛和减肥)
        extra_on += _other_half(ctx, subject, [*points, *tips])
    for subject_word, on_it in extra_on:
        lines = on_it or [f"{subject_word}这部分值得多花心思：提前了解清楚，按自己的情况取舍"]
        paragraphs.append(f"{e()}再多说说{subject_word}：\n" + "\n".join(f"· {ln}" for ln in lines))
    said = {*points, *tips, outcome}
    unsaid = [ln.text for ln in material.lines if ln.text not in said and ln.role != "story"]
    if length == "longer" and unsaid:
        paragraphs.append("再补充几句：" + "；".join(unsaid[:2]) + "。")
    if outcome and length != "shorter":  # what came of it, before the call to action
        paragraphs.append(outcome + "。")
    paragraphs.append(_closing(ctx, kind, key, fb, critic, previous, e))
    body = _finished(paragraphs, plain, fb, previous, length)

    evidence = ctx.data("evidence") or {}
    patterns = " ".join(evidence.get("titlePatterns", []))
    # a list of things has "{n}个…" titles; a trip to a place listed as tips does not (3个秋天去婺源看红叶)
    several = SEVERAL.search(f"{ctx.request} {subject}")
    title_kind = "guide" if kind == "list" and places(subject) and not several else kind
    title_kind = "things" if shape == "things" else title_kind  # 西藏旅行必带物品: what to bring, wherever
    title_kind = "choosing" if choosing and title_kind == "list" else title_kind  # 小说怎么挑, not 3个都值得
    # a new title is not the last one, nor one the creator already revised away (the revision history)
    used = {str(h.get("titleBefore") or "") for h in ctx.data("history") or [] if isinstance(h, dict)}
    avoid = {str(previous.get("title") or ""), *used} - {""}
    ordered = shape in ("steps", "timeline") or bool(by_day)  # (a title counts steps only of steps)
    title = _title(ctx, title_kind, fields, fb, patterns, avoid=avoid, ordered=ordered, by_days=bool(by_day))
    if plain or fb.emoji == "fewer":
        title = strip_emoji(title).strip()
    tags = _tags(ctx, subject, key, fb, previous, replace_tags)
    return {"title": title, "body": body, "tags": [t for t in tags if not _in_any(t, missed, inside=True)]}


def _asked_more(
    material: Material, words: list[str], fb: Feedback, kind: str
) -> tuple[list[tuple[str, list[str]]], set[str]]:
    """What the editor asked to hear more about, each with its best lines (words asking about the same
    thing share a section: 预算和价格), and the lines so reserved for those sections."""
    extra_on: list[tuple[str, list[str]]] = []
    reserved: set[str] = set()
    groups: dict[str, list[str]] = {}
    for subject_word in fb.expand:
        focus = _focus(subject_word)
        groups.setdefault(focus.pattern if focus else subject_word, []).append(subject_word)
    ranked = sorted(material.lines, key=lambda ln: -_score(ln, words, fb, kind))
    for asked in groups.values():
        focus = _focus(asked[0])
        on_it = [
            ln.text
            for ln in ranked
            if (any(w in ln.text for w in asked) or (focus and focus.search(ln.text)))
            and ln.text not in reserved
        ]
        extra_on.append(("和".join(asked), on_it[:3]))
        reserved.update(on_it[:3])
    return extra_on, reserved


def _general_advice(
    ctx: Context, subject: str, key: str, kind: str, fb: Feedback, length: str | None, *, told: int
) -> tuple[list[str], voice.SceneTips]:
    """General advice, said only when the evidence is thin or the editor asks for more (a stock tip true
    of any subject is filler every post would share): the advice of the post's own scene when there is
    one (辅食 tips for a 辅食 post, not outing tips) — enough on its own, no product-review tip on a noodle
    shop — else the theme's ("出发前查好开放时间" for a trip), then the kind of post's. Also the scene's."""
    general: list[str] = []
    theme_tips = voice.scene_tips(ctx.theme.key, subject, f"{ctx.read} {ctx.topic}")
    broad = (voice.THEME_TIPS.get(ctx.theme.key, ()), voice.GENERAL_TIPS.get(kind, ()))
    named = _particular_words(subject)
    # no theme of the corpus, or a subject the theme's advice never speaks of (苔藓微景观 is no storage
    # job, 狗狗坐飞机托运 no new pet's first week): advice said of the thing asked
    # (a place is no such subject: a trip to 西江千户苗寨 takes a trip's advice)
    # (…nor a dish: every dish is cooked, and the cooking advice is of any — 酸菜鱼 takes it)
    # (…nor a person, nor the theme's own word: 40岁妈妈的日常穿搭 takes a wardrobe's advice)
    unplaced = {w for w in named if not places(w) and not PERSON.fullmatch(w) and w not in ctx.theme.triggers}
    foreign = unplaced and not any(w in t for t in voice.THEME_TIPS.get(ctx.theme.key, ()) for w in unplaced)
    # (…nor an animal kept: 柯尔鸭 takes any pet's advice)
    kept = ctx.theme.key == "pets" and kept_animal(ctx.request)
    foreign = foreign and ctx.theme.key != "food" and not kept
    # (said of the subject's word, never of a place: no "买三亚前想想用在什么场合" — a place's post keeps its
    # theme's advice)
    place_key = bool(places(key))
    if not voice.THEME_TIPS.get(ctx.theme.key) or (foreign and not theme_tips and not place_key):
        own_tips = () if place_key else voice.SUBJECT_TIPS.get(kind, voice.SUBJECT_TIPS["guide"])
        said = tuple(t.format(k=key) for t in own_tips)
        broad = (said, voice.GENERAL_TIPS.get(kind, ()))
        # a request that told its own story (遗体整容师第三年…, 第一次熬猪油…) has its post in it: advice true
        # of anything would only pad it
        if told >= 2:
            broad = ((), ())
    own = readers(f"{ctx.read} {ctx.topic}")  # no dog's groomer in a post on keeping turtles
    # (asked for a longer post, the theme's general advice follows the scene's)
    pools = ((theme_tips, *broad) if length == "longer" else (theme_tips,)) if theme_tips else broad
    for pool in pools:
        usable = [t for t in pool if not any(x in t for x in fb.avoid) and not other_readers(t, own)]
        if not getattr(pool, "ordered", False):  # steps stay in the order they are done
            ctx.rng.shuffle(usable)
            # …and of a scene's advice, what names the subject first (剪指甲 of a grooming scene's 洗澡 tips)
            usable.sort(key=lambda t: not any(w in t for w in named))
        general += usable
    return general, theme_tips


def _with_advice(
    arranged: _Arrangement,
    general: list[str],
    theme_tips: voice.SceneTips,
    subject: str,
    brief: dict[str, Any],
    counts: tuple[int, int],
    length: str | None,
) -> tuple[list[str], list[str], str]:
    """The post's list and tips, and the list's shape, once the general advice has filled what the
    evidence left thin."""
    n_points, n_tips = counts
    points, tips, shape = arranged.points, arranged.tips, arranged.shape
    thin = len(points) < 2
    if theme_tips.dish and shape != "told":
        # the dish's own steps are the list; of the evidence, what names the dish is said beside them (a
        # beginner's six dishes are no steps of 番茄炒蛋)
        dish = _key(subject, [str(k) for k in brief.get("keywords", [])])
        beside = [t for t in [*points, *tips] if dish in t]
        points, general, tips, shape = list(theme_tips), [], beside[:n_tips], "steps"
    elif thin and theme_tips.ordered:  # the scene's steps are the list, all of them (a
        # lone line of the evidence is advice beside them, not a step before the first)
        points, general, tips, shape = general, [], [*points, *tips], "steps"
    elif thin:
        points += general[: 3 - len(points)]
        general = general[3:]
    # a short post (two points, no advice) gets its scene's advice: true of any such post, not filler
    short = len(points) + len(tips) < n_points + n_tips - 1 and length != "shorter"
    # …and a story told with no advice beside it gets its scene's (油皮 told of 精简护肤: 油皮's own advice)
    bare = shape == "told" and not tips and length != "shorter"
    if thin or short or bare or length == "longer":
        # a longer post whose list came out short says more advice instead
        room = n_tips + (max(0, n_points - len(points)) if length == "longer" else 0)
        tips += general[: max(0, room - len(tips))]
    return points, tips, shape


_ROW_LABEL = re.compile(rf"{DAY_LABEL}[：:]")


def _told_kind(kind: str) -> str:
    """The kind of a post with nothing to list but the request's own story: it opens, is titled and ends as
    one (a diary stays a diary)."""
    return kind if kind in ("story", "diary") else "story"


def _things_asked(ctx: Context, subject: str, fb: Feedback) -> voice.SceneTips:
    """The scene of what to have (data/lexicon/scene_tips.txt `things:`) when the request asks for things,
    with none of its things or advice the editor said to leave out; () when it does not ask, or its scene
    lists none."""
    scene = voice.things_asked(ctx.theme.key, subject, f"{ctx.read} {ctx.topic}")
    kept = [t for t in scene if not any(x in t for x in fb.avoid)]
    return voice.SceneTips(kept, things=tuple(t for t in scene.things if not any(x in t for x in fb.avoid)))


def _things_list(
    ctx: Context,
    scene: voice.SceneTips,
    arranged: _Arrangement,
    counts: tuple[int, int],
    length: str | None,
) -> tuple[list[str], list[str], str]:
    """A list of things to have: the scene's essentials first (the first three, as the data orders them),
    then others of its list in the order the post's seed draws — six in all, four in a shorter post, every
    one in a longer. Beside it, the scene's advice, then the evidence's lines; neither names a thing the
    list holds (随身带水、零食、湿巾 below 湿巾和纸巾)."""
    n_points, n_tips = counts
    things = scene.things
    rest = list(things[3:])
    ctx.rng.shuffle(rest)
    n = {"shorter": 4, "longer": len(things)}.get(length or "", n_points + 2)
    points = [*things[:3], *rest][:n]
    advice = list(scene)
    ctx.rng.shuffle(advice)
    # the scene's advice first: a note's lines may be another list's items (番茄炒蛋 beside a kitchen's pans)
    beside = voice.untold([*advice, *arranged.points, *arranged.tips], points)
    return points, beside[:n_tips], "things"


_WEEK_ASKED = re.compile(r"一周|七天|7天|工作日|周一到周[五日天]")
_WEEKDAY = re.compile(r"^(?:周|星期)[一二三四五六日天]")


def _told_clause(subject: str) -> bool:
    """Is the subject a clause — a verb with what follows it (宝宝坐高铁回老家, 县城开奶茶店), not a thing
    or a doing named as one (应届生第一次面试, 大宝吃醋的小故事)?"""
    tagged = segmenter.posseg(subject)
    return any(
        flag == "v" and k < len(tagged) - 1 and tagged[k + 1][0] != "的" for k, (_, flag) in enumerate(tagged)
    )


def _opening(
    ctx: Context,
    kind: str,
    tone: str | None,
    fb: Feedback,
    fields: dict[str, str],
    shape: str,
    scene: str,
    angle: str,
    e: Callable[[], str],
) -> str:
    """The first paragraph: a hook of the post's kind (or formal), the reader's situation before it, the
    angle after it, in the voice asked for."""
    audience = fields["a"]
    hook_pool = voice.FORMAL_HOOKS if tone == "formal" else voice.HOOKS.get(kind, voice.HOOKS["guide"])
    if tone != "formal" and kind == "review" and _PAIR.search(fields["s"]):  # two things, side by side
        hook_pool = voice.HOOKS["comparison"]
    # no "我的宝宝坐高铁回老家里", "我的戚风蛋糕总是塌里": a clause or a state is nobody's thing (nor
    # asked about without how: 问过我跟领导汇报工作)
    if _told_clause(fields["s"]) or not _nominal(fields["s"]):
        unfit = re.compile(r"我的\{s\}|\{s\}的?要点|问过?我\{s\}")
        hook_pool = tuple(h for h in hook_pool if not unfit.search(h)) or hook_pool
    if fb.audience or (audience and audience in ctx.request):  # a reader asked for is named in the opening
        hook_pool = tuple(h for h in hook_pool if "{a}" in h) or hook_pool
    if not (_FIRST_TIME.search(ctx.request) and _DOES.match(fields["s"])):  # as for titles (see _title)
        hook_pool = tuple(h for h in hook_pool if not h.startswith("第一次")) or hook_pool
    if not (_PLANNED.search(fields["s"]) or ctx.theme.key in ("travel", "outdoor")):  # as for titles
        hook_pool = tuple(h for h in hook_pool if "安排" not in h) or hook_pool
    if shape not in ("steps", "timeline"):  # no "把顺序排对" before a list that has no order
        hook_pool = tuple(h for h in hook_pool if not re.search(r"顺序|几步", h)) or hook_pool
    hook = pick(ctx.rng, hook_pool).format(**{**fields, "e": e()})
    if scene and tone != "formal":  # the reader's situation first, then what the post does about it
        hook = f"{scene}。{hook}"
    if angle and angle not in hook:  # the opening says which way the post takes the subject
        ends_bare = re.match(r"[\w\u4e00-\u9fff]", hook.rstrip()[-1:])  # not on 。！ nor an emoji
        hook = hook.rstrip() + ("。" if ends_bare else "") + f"这次的重点：{angle}。"
    if tone in voice.ASIDES:
        hook = pick(ctx.rng, voice.ASIDES[tone]) + hook.rstrip("。") + ("！" if tone == "lively" else "～")
    if fb.emoji == "more":
        hook = f"{e()}{hook}{e()}{e()}"
    return hook


def _parts_said(
    parts: list[str],
    material: Material,
    subject: str,
    listed: tuple[list[str], list[str]],
    e: Callable[[], str],
    laid_out: object,
) -> tuple[list[str], list[str], list[str]]:
    """The sections of the parts the request asks the post to speak of (`_part_sections`), and the points
    and tips left — none for a post laid out by days or told, listing things or steps (`laid_out`: the
    days' paragraphs, else the list's shape)."""
    points, tips = listed
    if laid_out in ("told", "things", "steps") or isinstance(laid_out, list):
        return [], points, tips
    known = [*points, *tips, *(ln.text for ln in material.lines if ln.role != "story")]
    sections, used = _part_sections(parts, known, e, _particular_words(subject))
    return sections, [p for p in points if p not in used], [t for t in tips if t not in used]


def _part_sections(
    parts: list[str], known: list[str], e: Callable[[], str], subject_words: set[str]
) -> tuple[list[str], set[str]]:
    """A section for each part the request asks the post to speak of (网速, 孤独感, 收入), under its name,
    with the lines of the post's material that speak of it — by the part's own words, not the subject's
    every line names (安全 of 一个人夜钓的安全) — none for a part nothing speaks of (never its name over
    nothing), and the lines so used, each said once."""
    sections: list[str] = []
    used: set[str] = set()
    for part in parts:
        words = _particular_words(part) - GENERIC_VERBS - subject_words or {part}
        on_it = [ln for ln in dict.fromkeys(known) if ln not in used and any(w in ln for w in words)][:3]
        # (…or, when nothing of the post's does, the advice of the scene the part names: 高反 → a plateau's)
        on_it = on_it or [t for t in voice.scene_tips("", part, part) if t not in used][:3]
        if on_it:
            used.update(on_it)
            sections.append(f"{e()}{part}\n" + "\n".join(f"· {ln}" for ln in on_it))
    return sections, used


def _list_paragraphs(
    ctx: Context,
    kind: str,
    shape: str,
    points: list[str],
    tips: list[str],
    key: str,
    plain: bool,
    fb: Feedback,
    length: str | None,
    e: Callable[[], str],
) -> list[str]:
    """The list under its heading (numbered, or told in its note's order) and the tips under theirs."""
    marker = (lambda i: f"{i + 1}.") if plain else (lambda i: KEYCAPS[i])
    headings = {
        "steps": voice.STEP_HEADINGS,
        "timeline": voice.TIMELINE_HEADINGS,
        "things": voice.THINGS_HEADINGS,
        "named": voice.NAMED_HEADINGS,
    }.get(shape, voice.POINT_HEADINGS.get(kind) or voice.POINT_HEADINGS["guide"])
    heading = pick(ctx.rng, headings).format(e=f"{e()}{key}·")
    paragraphs = []
    if points and shape == "told":  # told in its note's order, not enumerated
        n_told = 3 if length == "shorter" else 5
        paragraphs.append("。".join(points[:n_told]) + "。")
    elif points:  # (no heading over nothing)
        bullet_e = (lambda: f" {e()}") if fb.emoji == "more" else (lambda: "")
        paragraphs.append(
            heading.strip() + "\n" + "\n".join(f"{marker(i)} {p}{bullet_e()}" for i, p in enumerate(points))
        )
    if tips and length != "shorter":
        paragraphs.append(_tips_paragraph(ctx, kind, tips, key, e, things=shape == "things"))
    return paragraphs


def _tips_paragraph(
    ctx: Context, kind: str, tips: list[str], key: str, e: Callable[[], str], *, things: bool = False
) -> str:
    pool = voice.THINGS_TIP_HEADINGS if things else voice.TIP_HEADINGS.get(kind, voice.TIP_HEADINGS["guide"])
    tip_heading = pick(ctx.rng, pool)
    tip_heading = tip_heading.format(e=f"{e()}{key}·")
    return tip_heading.strip() + "\n" + "\n".join(f"· {t}" for t in tips)


def _spare_doings(ctx: Context, fb: Feedback, said: list[str]) -> list[str]:
    """What a trip's days may be filled with when the evidence says too little: the doings of the scenes
    the request names, then a town's (`voice.trip_doings`), each pool in an order drawn from `ctx.rng` —
    none the editor refuses, none the post says already (赶海 at low tide once, as a tip or as a doing)."""
    spare: list[str] = []
    said_words = [_particular_words(t) for t in said]
    text = f"{ctx.read} {ctx.topic}"
    sought = voice.sought_doings(text)  # (what the trip goes to do, before its landmarks: 看油菜花)
    others = [d for d in voice.trip_doings(text) if d not in sought]
    # (a landmark the trip is named after goes first: 承德避暑山庄两天; a day at one spends no time on the
    # city's others — 北京爨底下村一日游 goes to no 八达岭)
    own = sorted((n for n in landmark_cities() if n in ctx.topic), key=ctx.topic.find)
    landmarks = () if voice.outing(text) else _landmark_visits(ctx, fb, said)
    if own and _ONE_DAY.search(text):
        landmarks = ()
    first = [(itinerary.visit(own[0]),)] if own and not _in_any(own[0], said) else []
    for pool in [*first, *sought, landmarks, *others]:
        usable = [
            d
            for d in pool
            if d not in spare
            and not any(x in d for x in fb.avoid)
            # (…by two of its words, or by the one a short line has: 看日出 and 早起去海边看日出, 吃海鲜 and
            # 去海鲜排档吃饭)
            and not any(w and len(_particular_words(d) & w) >= min(2, len(w)) for w in said_words)
            and not any(len(t) <= 4 and t[-2:] in d for t in said)
        ]
        ctx.rng.shuffle(usable)
        spare += usable
    return spare


_ONE_DAY = re.compile(r"一日游|半日游?|一天|半天")
# the words a visit is said with (去老门东看看): no doing of its own another line may have done already
_VISITING = frozenset({"看看", "逛逛", "走走", "玩玩", "转转"})


_VISIT_DOINGS = frozenset("看 拍照 拍 吃 逛 爬 坐 泡 骑 划 喝 听 打卡 买 看到 徒步".split())  # noqa: SIM905
# what a told doing goes on with that is no part of it: how it was (人多到离谱, 很出片, 真的…)
_COMMENT = re.compile(r"^(?:人|很|太|超|真|特别|非常|好多|都|也|就|还|一定|建议|记得|不)")
_COMMENT_FLAGS = ("d", "a", "ad", "m", "r", "c", "u", "y")
# a clause of another trip than this one (去年去过成都, 下次想去…): no line of this one's plan
_ANOTHER_TRIP = re.compile(r"去过|去年|前年|以前|之前|上次|下次")
_DONE_AT = re.compile(r"^(?:坐|骑|爬|逛|泡|划|游)了?(?P<rest>\S{2,})")
_TIMED_DOING = re.compile(r"[看吃逛拍爬泡坐骑划喝听]|打卡|徒步")
# …and what is told right after it of it: advice, or what it cost (一条折合人民币30左右)
_ADVICE_AFTER = re.compile(
    r"^(?:建议|记得|最好|一定要|千万)|^(?:一[条份碗个只串杯张]|人均|门票)[^，,]{0,8}\d"
)


def _a_comment(word: str, flag: str) -> bool:
    """Does the word open a comment on a doing (很出片, 人多到离谱), not the doing's own words?"""
    return bool(_COMMENT.match(word)) or flag.startswith(_COMMENT_FLAGS)


def _told_visits(details: Details) -> dict[str, str]:
    """Told clause → the plan's line, for each clause that opens on a spot (a place jieba or the landmark
    table knows) and says what was done there (鹅岭拍照很出片 → 去鹅岭拍照，很出片), or that says what was
    done at a time of day (早上五点半起床看布施). Not a spot the trip did not go to, nor one gone to
    before (去年去过成都)."""
    missed = set(_missed_stops(details))
    out: dict[str, str] = {}
    for clause in details.told:
        if itinerary.TIME_OF.match(clause) and _TIMED_DOING.search(clause):  # 早上五点半起床看布施
            out[clause] = itinerary.as_planned(clause)
            continue
        # (…or a doing of a spot, the doing first: 坐了遇龙河竹筏 → 坐遇龙河竹筏)
        if (done := _DONE_AT.match(clause)) and any(done["rest"].startswith(p) for p in places(done["rest"])):
            if not _ANOTHER_TRIP.search(clause):
                out[clause] = itinerary.as_planned(clause)
            continue
        bare = re.sub(r"^(?:在|去了?|到了?)", "", clause)
        tagged = segmenter.posseg(bare, hmm=False)
        known = next((p for p in places(bare) if bare.startswith(p)), "")
        name = known or (tagged[0][0] if tagged and tagged[0][1] == "ns" else "")
        if not name or name in missed or _ANOTHER_TRIP.search(clause):
            continue
        rest = re.sub(r"^(?:边|旁边|附近|里|上)", "", bare[len(name) :])
        said = segmenter.posseg(rest, hmm=False)
        if not said or said[0][0] not in _VISIT_DOINGS:
            continue
        cut = next((i for i, (w, f) in enumerate(said) if i and _a_comment(w, f)), 0)
        doing = "".join(w for w, _ in said[: cut or len(said)])
        comment = "".join(w for w, _ in said[cut:]) if cut else ""
        where = bare[: len(bare) - len(rest)]
        lead = "在" if clause.startswith("在") else "去"
        out[clause] = f"{lead}{where}{doing}" + (f"，{comment}" if comment else "")
    # (…with what is told right after it: 李子坝看轻轨穿楼人多到离谱，建议早上八点前去)
    for clause, after in pairwise(details.told):
        if clause in out and after not in out and _ADVICE_AFTER.match(after) and len(after) <= 14:
            out[after] = ""
            out[clause] += f"，{after}"
    return out


def _with_spot_remarks(details: Details, points: list[str]) -> list[str]:
    """A trip told with no days: each spot with what it told of it is a point of the guide, before the
    others, and no longer a clause of the story (兵马俑请了讲解 → 兵马俑：请了讲解) — when it tells of two."""
    remarks = _spot_remarks(details)
    if len(remarks) < 2:
        return points
    details.told = [t for t in details.told if t not in remarks]
    return dedupe([*remarks.values(), *points])


def _spot_remarks(details: Details) -> dict[str, str]:
    """Told clause → a guide's point, for each clause that opens on a landmark and says something of it
    (兵马俑请了讲解 → 兵马俑：请了讲解, 回民街人太多了 → 回民街：人太多了) — not a spot the trip did not go
    to, nor one of another trip."""
    known = landmark_cities()
    missed = set(_missed_stops(details))
    out: dict[str, str] = {}
    for clause in details.told:
        bare = re.sub(r"^(?:在|去了?|到了?)", "", clause)
        spot = next((p for p in places(bare) if bare.startswith(p) and p in known), "")
        rest = re.sub(r"^(?:的|边|旁边|附近|里|上|那边)", "", bare[len(spot) :]).strip("，, ")
        if spot and spot not in missed and len(rest) >= 2 and not _ANOTHER_TRIP.search(clause):
            out[clause] = f"{spot}：{rest}"
    return out


def _told_stops(details: Details) -> list[str]:
    """The landmarks a trip the request tells went to, in the order told (上周末去苏州拙政园和平江路逛了一天 →
    拙政园, 平江路): the day's plan goes where the writer went, before any other landmark of the town."""
    told = "，".join(details.told)
    known = landmark_cities()
    missed = set(_missed_stops(details))
    return sorted({p for p in places(told) if p in known and p not in missed}, key=told.find)


def _in_any(word: str, lines: list[str], *, inside: bool = False) -> bool:
    """Is `word` in any of `lines` (or, `inside`, any of `lines` in `word`)?"""
    return any((line in word) if inside else (word in line) for line in lines)


def _missed_stops(details: Details) -> list[str]:
    """The places a told trip did not go to (没去蟳埔村，人太多了), says not to (磁器口不建议去) or went to
    on another trip (去年去过成都): no stop of its plan, no tip or tag of its own."""
    told = "，".join(details.told)
    # (…or one it says not to go to: 磁器口真的不建议去, 洪崖洞别去)
    missed = r"(?:没有?|没能|没来得及|不)去成?{0}|错过了?{0}|{0}[^，,。]{{0,4}}?(?:不建议|不推荐|不值得|别)去"
    # (…or went to on another trip, named only as that: 去年去过成都，这次去的重庆)
    before = r"(?:去年|前年|之前|以前|上次|上回)(?:去过|去了|来过|玩过)了?{0}"
    return [
        p
        for p in places(told)
        if re.search(missed.format(re.escape(p)), told)
        or (told.count(p) == 1 and re.search(before.format(re.escape(p)), told))
    ]


def _landmark_visits(ctx: Context, fb: Feedback, said: list[str]) -> tuple[str, ...]:
    """Visits to the landmarks of the place the trip goes to (the gazetteer's, data/lexicon/landmarks.tsv:
    拙政园, 平江路 of 苏州), a few, for a trip whose evidence names too few stops — only their names, never a
    price or an hour. Of the kind the request asks for when it names one the landmarks have (苏州园林 → its
    园s); none already said, none the editor refuses."""
    # (where the trip goes, not where it sets out: 从福州开车去屏南 is a 屏南 trip)
    setting_out = {m["p"] for m in _SETTING_OUT_FROM.finditer(ctx.request)}
    # (…the county the topic opens on first, which jieba may not read as a place: 泰顺小众廊桥, not 温州's)
    opens_on = [ctx.topic[:k] for k in (3, 2) if ctx.topic[:k] in divisions() and not places(ctx.topic)][:1]
    where = next((p for p in [*opens_on, *places(f"{ctx.topic} {ctx.request}")] if p not in setting_out), "")
    # (…of the city a place's name starts with: 苏州园林 is 苏州's)
    city = where if landmarks_of(where) else next((where[:k] for k in (2, 3) if where[:k] in divisions()), "")
    names = [n for n in landmarks_of(city) if not any(n in t for t in said)]
    names = [n for n in names if not any(x in n for x in fb.avoid)]
    kind = next((k for k in _LANDMARK_KINDS if k in where and sum(n.endswith(k) for n in names) >= 2), "")
    names = [n for n in names if n.endswith(kind)] if kind else names
    return tuple(itinerary.visit(n) for n in names[:6])


_SETTING_OUT_FROM = re.compile(r"从(?P<p>[\u4e00-\u9fff]{2,4}?)(?:出发|开车|坐|飞|到|去)")
# kinds of landmark a trip may ask for by name (苏州园林, 杭州的寺庙, 江南古镇)
_LANDMARK_KINDS = ("园", "寺", "古镇", "湖", "山", "街", "博物馆")


_ROUTE_TOTAL = re.compile(r"^(?:全程|总共|一共|整条路线?)(?:大?约|大概)?[\d一二两三四五六七八九十半]")


def _day_paragraphs(
    ctx: Context,
    days: int,
    points: list[str],
    tips: list[str],
    key: str,
    length: str | None,
    e: Callable[[], str],
    spare: list[str],
) -> list[str]:
    """A trip's days, slot by slot (`tools.offline.itinerary`), then what did not fit them as tips (as
    many as the length asked for allows); [] when the points and the `spare` doings hold too few things to
    do for a plan."""
    # (a tip said at a time of day is a thing to do then: 中午：火车站附近吃米粉 goes in a day's noon)
    timed = [t for t in tips if itinerary.TIME_OF.match(t) and t not in points]
    half = bool(re.search(r"半日|半天", ctx.request))
    if asked := itinerary.asked_days(ctx.request):  # the days the request planned itself, as it planned them
        plan = itinerary.planned_days(asked, days, ctx.rng, request=ctx.request)
        left = [p for p in points if not itinerary.is_doing(p)]
    elif laid_out := itinerary.day_plan(days, [*points, *timed], ctx.rng, spare, half=half):
        plan, left = laid_out
    else:
        return []
    tips = [t for t in tips if t not in timed]
    paragraphs = []
    for label, slots in plan:
        lines = [f"{when}：{itinerary.sentence(line)}" for when, line in slots]
        head = f"{e()}{label}" if label else f"{e()}{key}·{'半天' if half else '一天'}这样走"
        paragraphs.append(head + "\n" + "\n".join(lines))
    # (…not a note's total for its route, once the route's stops are spread over the days: 全程约5公里)
    rest = [line for line in [*left, *tips] if not _ROUTE_TOTAL.match(line)]
    room = {"shorter": 1, "longer": 6}.get(length or "", 3)
    if rest:
        paragraphs.append(_tips_paragraph(ctx, "guide", rest[:room], key, e))
    return paragraphs


def _closing(
    ctx: Context,
    kind: str,
    key: str,
    fb: Feedback,
    critic: Feedback,
    previous: dict[str, Any],
    e: Callable[[], str],
) -> str:
    """The call to action (the brief's, unless feedback asked for a new one; never the one the previous
    draft ended on), with the subject named in the last words."""
    closing = "" if fb.closing_refresh or critic.closing_refresh else str(ctx.brief.get("callToAction") or "")
    if not closing:
        before = str(previous.get("body") or "").rsplit("\n\n", 1)[-1]
        choices = [c for c in voice.CLOSINGS.get(kind, ("",)) if c.format(e="") not in before]
        closing = pick(ctx.rng, choices or voice.CLOSINGS.get(kind, ("",)))
    closing = closing.format(e=e()) if "{e}" in closing else closing
    if key not in closing:  # the last words name the subject too
        # (…as what happened, in a story: no 我的退休心得 of a colleague's retirement)
        offs = [s for s in voice.SIGN_OFFS if kind not in ("story", "diary") or "心得" not in s]
        closing = pick(ctx.rng, offs).format(k=key) + closing
    return closing


def _finished(
    paragraphs: list[str], plain: bool, fb: Feedback, previous: dict[str, Any], length: str | None
) -> str:
    """The body from its paragraphs, with the emoji, the avoided words and the length the feedback asked."""
    body = "\n\n".join(p for p in paragraphs if p.strip())
    if plain:
        body = strip_emoji(body)
    elif fb.emoji == "fewer":  # one emoji left at most, in the opening
        emoji_before = emoji_count(str(previous.get("body") or "") + str(previous.get("title") or ""))
        first = _EMOJI_CHAR.search(body)
        body = strip_emoji(body)
        if first and emoji_before > 1:
            body = first.group(0) + body
    for x in fb.avoid:  # whatever template or fact still said it (no paragraph left empty)
        body = "\n".join(ln for ln in body.split("\n") if x not in ln)
    body = re.sub(r"\n{3,}", "\n\n", body).strip("\n")
    if length == "shorter" and previous.get("body"):  # a quarter off (never below KEPT_POINTS list lines)
        body = _shorten_body(body, int(0.75 * len(str(previous["body"]))), keep="再多说说")
    return body
