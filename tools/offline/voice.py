"""How the offline writer talks: title skeletons, openings, headings, tips and closings per content type.

Only phrasing lives here — every fact comes from the evidence and every subject from the brief. Pools
are large enough that no skeleton dominates (the quality benchmark counts title skeletons), and each
template reads grammatically with any subject: `{s}` is a short noun phrase ("厦门三天两晚", "顺德早茶"),
`{a}` an audience ("大学生", "带爸妈出游的人"), `{n}` a count, `{e}` an emoji (empty when plain).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from tools.entities import other_readers, readers
from tools.lexfiles import sections
from tools.offline.dishes import dish_names, dish_steps
from tools.offline.scenes import BROUGHT, COOKED, scene_of
from tools.offline.topic import CLAUSE

# --- titles: by content type; the writer keeps the ones ≤ 20 characters -------------------------------
# Titles for a subject that is a question the post answers (宝宝几个月可以开始吃辅食, 租房时要检查哪些地方):
# the question whole, then what the post gives
QUESTION_TITLES: tuple[str, ...] = (
    "{q}？一次讲明白",
    "{q}？看这篇就够了",
    "{q}？我的答案{e}",
    "{q}？说说我的经验",
    "{q}？{n}个要点{e}",
    "{q}｜答案在这{e}",
)
TITLES: dict[str, tuple[str, ...]] = {
    "guide": (
        "{s}怎么安排？看这篇{e}",
        "{s}难吗？照这个来{e}",
        "第一次{s}？先看这篇",
        "{s}｜照着做就不会乱{e}",
        "第一次{s}，按这个顺序来",
        "{s}实用攻略，{a}收好{e}",
        "{s}避坑指南{e}",
        "把{s}安排明白了{e}",
        "{s}，这份思路够用了",
        "{a}的{s}指南{e}",
        "{s}全流程，一篇讲清",
        "{s}少走弯路的{n}个细节",
        "{s}｜收藏备用{e}",
        "{s}，新手照做{e}",
        "{s}的正确打开方式",
        "{s}｜{n}步搞定",
        "搞定{s}，只要这几步",
        "{s}｜亲测顺序{e}",
        "{s}，看完不踩坑",
        "{s}备忘录{e}",
        "{s}，写给刚开始的你",
        "{s}，我是这样做的",
        "{s}小白指南{e}",
    ),
    "list": (
        "{s}清单｜{n}个都值得{e}",
        "私藏的{s}，这{n}个最常用",
        "{s}合集，{a}先收藏{e}",
        "{s}，我只推荐这{n}个",
        "{n}个{s}，按需挑{e}",
        "{s}大盘点{e}",
        "{a}必看的{s}清单",
        "{s}｜我的私藏{e}",
        "{s}一览，建议收藏",
        "挑{s}，看这{n}个就够",
        "{s}｜按需抄作业{e}",
        "{s}，这份清单很实用",
    ),
    # a list of the things to have or bring (入园, 夜爬, 出境游行李): what to get ready, not picks to buy
    "things": (
        "{s}要带什么？这{n}样就够{e}",
        "{s}必备清单｜{n}样{e}",
        "{s}准备清单，{a}先收藏",
        "{s}，这份清单很实用",
        "{s}清单｜照着备就行{e}",
        "备齐这{n}样，{s}不慌{e}",
    ),
    # a list that names no things, only how to choose them (see drafting._title's caller)
    "choosing": (
        "{s}怎么挑？先想清楚这几点{e}",
        "挑{s}之前，先看这几条",
        "{s}怎么选，说说我的思路{e}",
        "选{s}的几个小原则{e}",
    ),
    "review": (
        "{s}真实测评，说点实话",
        "{s}值不值？用完说说{e}",
        "实测{s}：优缺点都在这",
        "{s}横向对比{e}",
        "{s}踩雷还是真香？",
        "{a}视角：{s}测评",
        "{s}｜不吹不黑{e}",
        "{s}真实体验{e}",
    ),
    "story": (
        "{s}，这次终于做对了{e}",
        "关于{s}，我想说几句",
        "{s}的这些天{e}",
        "{s}后，我改变了什么",
        "记一次{s}{e}",
        "{s}｜一点真实的感受",
        "{s}，一些心里话{e}",
        "我的{s}故事",
    ),
    "diary": (
        "{s}的一天{e}",
        "{s}小记{e}",
        "今天的{s}{e}",
        "{s}，慢慢来也很好",
    ),
    "edu": (
        "{s}，一次讲明白",
        "关于{s}的{n}个常识{e}",
        "{s}入门：先搞懂这些",
        "{a}也能看懂的{s}",
        "{s}的误区，你中了几个？",
        "{s}｜{n}个知识点{e}",
        "三分钟看懂{s}",
    ),
    "product": (
        "{s}｜用了才知道好{e}",
        "被问爆的{s}{e}",
        "反复回购的{s}{e}",
        "{s}，{a}闭眼收藏",
        "安利{s}，真的好用",
        "{s}使用感受{e}",
        "{s}｜认真推荐{e}",
        "{s}，好用在哪",
    ),
    "billboard": (
        "{s}｜报名看这里{e}",
        "{s}来了{e}",
        "{s}，别错过{e}",
    ),
}

# --- openings: {s} subject, {a} audience, {g} what the reader gains ------------------------------------
HOOKS: dict[str, tuple[str, ...]] = {
    "guide": (
        "{e}这篇写给{a}：{s}其实不难，难的是把顺序排对。下面是我整理的安排，{g}。",
        "{s}我来回折腾了好几次，总算摸清了门道。{a}照着下面来，{g}{e}",
        "很多{a}问我{s}怎么安排，这次一次写清楚{e}",
        "第一次{s}最怕手忙脚乱。把关键的几步提前想好，{g}。",
        "{s}想省心，提前做好功课就够了{e}这份安排适合{a}。",
        "{e}{s}没那么复杂，记住下面这几条就够用。",
        "关于{s}，先说结论：照着下面几条来，{g}。",
        "把{s}拆成几步，{a}一看就懂{e}",
        "身边不少{a}问过我{s}的事，干脆整理成一篇，{g}。",
        "{e}给{a}整理的{s}要点，都是实际用下来的经验。",
        "关于{s}，我踩过坑也攒了些经验，挑最有用的几条写给{a}{e}",
        "{s}的要点其实不多，抓住下面几条，{g}。",
    ),
    "list": (
        "{e}整理了一份{s}清单，{a}可以直接照着挑。",
        "{s}我试过不少，留下来的就这几个，{g}。",
        "{s}被问了好多次，干脆列成清单{e}",
        "给{a}的{s}清单来了，先收藏再慢慢对照{e}",
        "{s}挑了好一阵，最后留下的就是下面这些{e}",
        "{e}{s}不求多，求用得上，这几样够了。",
    ),
    "review": (
        "{s}我实际体验了一段时间，说说真实感受，{a}可以参考。",
        "{e}不吹不黑，{s}的真实感受在这里。",
        "之前我也纠结过{s}，亲身试过之后有些结论想分享给{a}。",
    ),
    # (two things side by side: 凤凰古城和镇远古镇, 普拉提和瑜伽)
    "comparison": (
        "{s}我都体验过，差别比想象中大，{a}可以参考。",
        "纠结{s}选哪个？两个都试过，说说真实区别{e}",
        "{e}{s}放在一起比一比，各有各的好，关键看适不适合你。",
    ),
    "story": (
        "说说我的{s}。{e}一开始也走了不少弯路，后来慢慢找到了适合自己的办法。",
        "{s}这件事，我想认真记录一下{e}",
        "如果你也是{a}，也许会在我的{s}里看到自己。",
        "想把{s}的经过写下来，给正在经历的人一点参考{e}",
        "{e}{s}这段时间，有些事回头看才想明白。",
    ),
    "diary": (
        "{e}把{s}这段日子记下来，以后翻看也有个念想。",
        "随手记录{s}，平凡但很治愈{e}",
        "{s}，琐碎但值得记一笔{e}",
    ),
    "edu": (
        "{s}看起来复杂，其实抓住几个关键点就够了{e}",
        "很多{a}对{s}有误解，这篇用大白话讲清楚。",
        "{e}关于{s}，先把最基础的几件事弄明白。",
    ),
    "product": (
        "{e}最近被{s}圈粉了，说说为什么值得{a}试试。",
        "{s}用了一阵子，真心觉得好用{e}",
        "朋友一直问我{s}好不好用，今天统一回答{e}",
    ),
    "billboard": (
        "{e}{s}来啦！时间、地点和参加方式都在下面。",
        "{s}开始报名了，{a}看过来{e}",
    ),
}

# How a story strings its facts together: what came first, what changed, where it stands.
STORY_STEPS: tuple[tuple[str, ...], ...] = (
    ("一开始，", "后来我发现，", "现在回头看，"),
    ("最开始，", "慢慢地，", "到现在，"),
    ("刚开始的时候，", "再后来，", "如今，"),
)

# Formal openings (tone 专业 / 正式, or the editor asked for it): no exclamations, no emoji.
FORMAL_HOOKS: tuple[str, ...] = (
    "关于{s}，{a}常见的疑问其实有章可循。下面按重要程度整理如下。",
    "本文围绕{s}，结合实际经验梳理要点，供{a}参考。",
    "{s}涉及的细节较多，以下分条说明，便于{a}对照执行。",
)

# Extra colloquial / lively asides that open the post, and the endings a voice gives its list lines.
ASIDES: dict[str, tuple[str, ...]] = {
    "colloquial": ("说实话，", "讲真，", "说白了，", "跟你们说哈，"),
    "lively": ("冲冲冲！", "真的绝了！", "姐妹们看过来！", "这个必须安利！"),
}
# (each ending fits any line of advice — a safety rule as well as a trick: never "，绝了！" after 结伴出行)
LINE_ENDINGS: dict[str, tuple[str, ...]] = {
    "colloquial": ("，真的～", "，记住啦", "，听我的没错", "，别嫌麻烦哦"),
    "lively": ("！", "，划重点！", "，超级实用！", "，记得哦！"),
}

# --- headings of the main list and the tips, by content type --------------------------------------------
POINT_HEADINGS: dict[str, tuple[str, ...]] = {
    "guide": ("{e}具体怎么做", "{e}要点", "{e}分开说说", "{e}我的做法"),
    "list": ("{e}清单在这里", "{e}逐个说说", "{e}我的选择"),
    "review": ("{e}真实体验", "{e}亲身感受", "{e}优缺点"),
    "story": ("{e}后来我这样做", "{e}我做了这些调整"),
    # (a diary's list holds what was learnt, not what was done that day: 今天做了这些 over tips read false)
    "diary": ("{e}记下来的几点", "{e}这次的收获"),
    "edu": ("{e}先搞懂这几点", "{e}划重点"),
    "product": ("{e}为什么推荐", "{e}用下来的感受"),
    "billboard": ("{e}活动信息",),
}
# The main list when it is only the names of the things the request lists (安耐晒小金瓶, 碧柔水感 …), with
# nothing known to say of them: a heading that says what they are, not what is said of them (优缺点).
NAMED_HEADINGS: tuple[str, ...] = ("{e}这次说到的几样", "{e}一览", "{e}清单")
# The main list when it is the lead note's numbered steps, in order.
STEP_HEADINGS: tuple[str, ...] = ("{e}步骤", "{e}具体做法", "{e}按这个顺序来", "{e}关键几步", "{e}一步一步来")
# …and when it is the things to have for a scene (猫砂盆和猫砂：…), with the advice beside it.
THINGS_HEADINGS: tuple[str, ...] = ("{e}要准备的东西", "{e}这几样备齐", "{e}我的清单", "{e}必备这几样")
THINGS_TIP_HEADINGS: tuple[str, ...] = ("{e}另外提醒", "{e}准备的时候注意", "{e}备齐之后")
# …and when those steps are a day's hours (早上… 下午… 晚上…).
TIMELINE_HEADINGS: tuple[str, ...] = ("{e}时间线", "{e}按时间来", "{e}时间安排")
TIP_HEADINGS: dict[str, tuple[str, ...]] = {
    "guide": ("{e}避坑提醒", "{e}几个小提醒"),
    "list": ("{e}怎么挑", "{e}选之前看看"),
    "review": ("{e}适合谁", "{e}怎么选"),
    "story": ("{e}几点感受", "{e}想对你说"),
    "diary": ("{e}小感受",),
    "edu": ("{e}常见误区", "{e}容易忽略的点"),
    "product": ("{e}使用提醒", "{e}注意事项"),
    "billboard": ("{e}参加须知",),
}

# General advice by content type when the evidence runs short: true of any subject, never a made-up fact.
GENERAL_TIPS: dict[str, tuple[str, ...]] = {
    "guide": (
        "别一次安排太满，留一点余量给意外",
        "要用的东西和信息提前备好，到时候少折腾",
        "先做最重要的一件事，其余的看状态再加",
        "拿不准的地方，先问问有经验的人",
        "第一次做慢一点没关系，顺了再提速",
    ),
    "list": (
        "按自己的需求挑，不必全部入手",
        "先从口碑稳定的选起，再慢慢试新的",
        "预算有限就先买使用频率最高的",
    ),
    # (of anything reviewed: a place, a dish, a class, a way of working — not only of a product to buy)
    "review": (
        "把优点和缺点各列三条，放在一起看更清楚",
        "花的钱和花的时间都算进去，再说值不值",
        "先看看自己是不是它适合的那类人",
    ),
    # (what a told experience teaches of any subject — never a platitude of life: 每一步都算数)
    "story": (
        "拿不准的地方，找懂行的人问一问，比自己瞎琢磨靠谱",
        "一次只改一个地方，哪样管用才看得出来",
        "每次的情况简单记一笔，过一阵回头看，变化最清楚",
    ),
    # (of what the record is of — a swim, a repair, a first year at work —, not of keeping a journal)
    "diary": ("节奏按自己的来，别跟别人比快慢", "情况不对就先停一停，别硬撑，缓过来再接着来"),
    "edu": (
        "先理解原理，再记方法，会轻松很多",
        "遇到说法不一的地方，以权威来源为准",
        "每次只改一个变量，更容易看出效果",
    ),
    "product": (
        "第一次用先少量试试，适合再长期用",
        "按说明书的用法来，效果更稳定",
    ),
    "billboard": ("名额有限，想参加的早点报名", "到场前再确认一次时间地点"),
}

# General advice that names the subject ({k}: its key word), for a post no theme of the corpus covers (a
# guitar, a wedding favour, a turtle's tank): true of choosing, learning or doing anything, and said of
# the thing asked about rather than of nothing. Never a made-up fact.
SUBJECT_TIPS: dict[str, tuple[str, ...]] = {
    # ({k} only where any noun phrase reads well — 关于{k}, never 第一次接触狗狗 or 清单里的暑假; and no
    # line saying again what a line of GENERAL_TIPS says, which may follow them)
    "guide": (
        "关于{k}，先弄清楚自己的情况和最想解决的问题，再对照着做",
        "先从最容易做到的一件开始，做顺了再往上加",
        "多看几个真实的例子，比只看一篇总结靠谱",
        "每试一次就简单记一笔，哪些有用、哪些没用，下次心里就有数",
        "网上的说法很多，情况特殊的时候，找专业的人问一问更稳妥",
    ),
    # (of any list — things to buy, dishes, tools, skills, books: never "买Excel前")
    "list": (
        "关于{k}，先想清楚自己最需要的是什么，再对着清单挑",
        "用不上的先放一放，别为了凑齐而买",
        "拿不准的，先看看身边人的真实反馈再决定",
    ),
    "review": (
        "关于{k}，先想清楚自己最在意的是什么，再看适不适合",
        "别只看别人的结论，能亲自试一次最好",
        "没有绝对的好坏，合不合适看自己的需求和习惯",
    ),
    "edu": (
        "关于{k}，先把最基本的概念弄明白，再看细节",
        "常见的误区，往往出在只听一家之言",
    ),
    "story": ("关于{k}，开始之前多问问做过的人，能少走不少弯路",),
    "diary": ("关于{k}，开头最难，头几次做完就给自己留点缓冲，别一口气排太满",),
    "product": ("第一次用{k}先少量试试，适合再长期用", "{k}按说明的用法来，效果更稳定"),
    "billboard": ("{k}的时间地点到场前再确认一次",),
}

# General advice by theme when the evidence runs short: true of any post of the theme and more use to a
# reader than advice true of anything ("先做最重要的一件事"). Never a made-up fact: no prices, no places.
THEME_TIPS: dict[str, tuple[str, ...]] = {
    "travel": (
        "出发前查好景点的开放时间和门票，旺季尽量提前预约",
        "住处选在主要景点附近，少把时间花在路上",
        "往返交通先定下来，再排中间几天的行程",
        "看好天气预报，早晚温差大就多带一件外套",
        "每天留半天机动时间，走累了就停下来",
    ),
    "food": (
        "第一次做先按配方的量来，熟了再按口味调",
        "食材提前备好、切好再开火，手忙脚乱最容易糊锅",
        "调味少量多次，尝过再加",
        "第一次做别同时开好几个新菜，一次练熟一道",
        "用不惯的厨具先空着试一遍火候和时间",
    ),
    "outdoor": (
        "出发前看天气预报，风大或有雷雨就改期",
        "装备在家先试一遍，到了现场不慌",
        "带足水和能量补给，别等渴了饿了才补",
        "垃圾全部带走，营地和山路保持原样",
    ),
    "fashion": (
        "先定一个主色，其余单品往它靠，整体不容易乱",
        "上身紧一点下身就松一点，比例更好看",
        "买之前想想能和衣柜里哪三件搭，搭不上就先不买",
    ),
    "beauty": (
        "新产品先在耳后或手腕试用两三天，不刺激再上脸",
        "一次只换一样产品，才知道是哪样起了作用",
        "防晒每天都要用，阴天也一样",
    ),
    "home": (
        "动手前先量尺寸、画个简图，买回来才放得下",
        "先断舍离再收纳，东西少了才好整理",
        "租房改造选不打孔、能复原的做法",
    ),
    "fitness": (
        "先把动作做标准，再加重量或次数",
        "练前热身、练后拉伸，各留五到十分钟",
        "循序渐进，每周只加一点量，身体更容易跟上",
    ),
    "career": (
        "先把最重要的一件事做完，再处理零碎的",
        "每周留半小时复盘，看看时间都花在了哪里",
        "不确定的地方早点问，比最后返工省事",
    ),
    "pets": (
        "换粮、换环境都慢慢来，给它一周左右适应",
        "新到家先观察吃喝拉撒，有异常及时问兽医",
        "家里的电线、药品和小物件收好，防止误食",
    ),
    "parenting": (
        "出门前把孩子的水、零食和一套换洗衣服备好",
        "按孩子的作息安排，别把一天排太满",
        "多给孩子自己选的机会，配合度会高很多",
    ),
}

# A first clause for a closing that does not name the subject ({k}: the subject's key word).
SIGN_OFFS: tuple[str, ...] = (
    "{k}就先聊到这，",
    "关于{k}就写到这里，",
    "{k}的分享到这，",
    "以上就是我的{k}心得，",
)

# Closing calls to action by content type, used when the brief has none that fits.
CLOSINGS: dict[str, tuple[str, ...]] = {
    # (no 出发前: not every guide is a trip)
    "guide": ("收藏起来，用的时候翻出来对照～", "先收藏，要用的时候再看一遍{e}"),
    "list": ("你还有私藏的吗？评论区补充给我～", "收藏这份清单，按需挑就好{e}"),
    "review": ("你用过吗？评论区聊聊真实感受～", "有问题评论区问我，看到都会回{e}"),
    "story": ("你有过类似的经历吗？评论区聊聊～", "如果对你有一点点帮助，就点个赞吧{e}"),
    "diary": ("你今天过得怎么样？评论区说说～",),
    "edu": ("觉得有用就收藏，转给需要的朋友～", "还有想了解的，评论区告诉我{e}"),
    "product": ("用过的姐妹评论区说说感受～", "先收藏，下次买的时候对照着挑{e}"),
    "billboard": ("想参加的评论区扣1，我把报名方式发你～",),
}


# a clause that refuses what it names: 不自驾, 别去网红店, 不用烤箱
_REFUSED = re.compile(r"(?:不|别|不用|不要|无需|不想|不去|没有?)(?!错|少|久|到|了|同|太|算)")


# …or says it cannot be done (老人膝盖不好爬不了山, 吃不了辣)
_CANNOT = re.compile(r"(?:爬|走|登|上|下|跑|游|骑|吃|喝|坐)不(?:了|动)")


def _unrefused(text: str) -> str:
    """The text without the clauses that refuse what they name (不自驾, 不看海, 爬不了山)."""
    return "，".join(c for c in CLAUSE.split(text) if not _REFUSED.match(c.strip()) and not _CANNOT.search(c))


class SceneTips(tuple[str, ...]):
    """A scene's advice; `ordered` when its tips are steps in the order they are done (焯水 before 收汁),
    `generic` when they are true of anything of its theme (家常菜: 调味少量多次) and a particular dish's own
    steps say more; `doings` the things a trip of the scene does (赶海, 看日落), for a trip's days when the
    evidence has too few (tools/offline/itinerary.py); `alone` when a trip of the scene spends its days on
    it (a theme park: no day in town streets); `image` what its pictures show, in place of the theme's;
    `things` what to have for it (猫砂盆和猫砂：…), for a post that asks what to get or bring."""

    ordered: bool
    generic: bool
    dish: bool  # the steps of the very dish the post is about (tools/offline/dishes.py)
    doings: tuple[str, ...]
    alone: bool
    image: str
    things: tuple[str, ...]

    def __new__(
        cls,
        tips: Iterable[str] = (),
        *,
        ordered: bool = False,
        generic: bool = False,
        dish: bool = False,
        doings: tuple[str, ...] = (),
        alone: bool = False,
        image: str = "",
        things: tuple[str, ...] = (),
    ) -> SceneTips:
        made = super().__new__(cls, tips)
        made.ordered, made.generic, made.dish = ordered, generic, dish
        made.doings, made.alone, made.image, made.things = doings, alone, image, things
        return made


@cache
def _scenes() -> list[tuple[str, re.Pattern[str], SceneTips]]:
    def listed(fields: dict[str, str], field: str) -> tuple[str, ...]:
        return tuple(t.strip() for t in fields.get(field, "").split("｜") if t.strip())

    out = []
    for name, fields in sections("scene_tips.txt").items():
        tips = SceneTips(
            listed(fields, "tips"),
            ordered=fields.get("ordered", "").strip() == "yes",
            generic=fields.get("generic", "").strip() == "yes",
            doings=listed(fields, "doings"),
            alone=fields.get("alone", "").strip() == "yes",
            image=fields.get("image", "").strip(),
            things=listed(fields, "things"),
        )
        out.append((name, re.compile(fields["when"]), tips))
    return out


def all_scene_tips() -> frozenset[str]:
    """The advice of every scene: general lines, never a thing a list may name."""
    return frozenset(t for _, _, tips in _scenes() for t in tips)


def all_doings() -> list[str]:
    """The doings of every scene: what the writer fills a trip's free hours with (the card overlays know
    them from the places a post's notes gave)."""
    return [d for _, _, tips in _scenes() for d in tips.doings]


def scene_themes(text: str) -> list[str]:
    """The themes of the scenes `text` names, one entry per scene (卧铺火车 → travel's 火车 scene) — a
    child's scene only of a text that names a child (夜班人的睡眠 is a grown-up's sleep)."""
    child = bool(_A_CHILD.search(text))
    return [
        theme
        for name, when, _ in _scenes()
        if when.search(text) and ((theme := name.split(".")[0]) != "parenting" or child)
    ]


@cache
def _activities() -> dict[str, tuple[re.Pattern[str], bool]]:
    """The scenes that are things to do on a trip or outing, each with its pattern and whether it is an
    `own` activity (a post not asking for it leaves it out) rather than a `shared` one."""
    return {
        name: (re.compile(fields["when"]), fields["activity"].strip() == "own")
        for name, fields in sections("scene_tips.txt").items()
        if fields.get("activity")
    }


def activities(text: str, *, asked: bool = False) -> frozenset[str]:
    """The activity scenes `text` names (露营, 赏秋叶 …); of a request (`asked`), not in a clause that
    refuses one (不露营)."""
    if asked:
        text = _unrefused(text)
    return frozenset(name for name, (when, _) in _activities().items() if when.search(text))


def other_activity(text: str, asked: frozenset[str]) -> bool:
    """`text` is about an own activity the request does not ask for and names none it asks for (营地 and
    帐篷 in a post on seeing ginkgo leaves); never when the request names no activity."""
    named = activities(text)
    return bool(asked) and not named & asked and any(_activities()[n][1] for n in named - asked)


_FOR_WHOM = re.compile(r"^(?:适合|面向|写给|给|针对)[^，,。]{1,10}$")
_A_CHILD = re.compile(r"宝宝|孩子|娃|幼儿|儿童|小朋友|婴儿|新生儿|儿子|女儿|大宝|二宝|小学|幼儿园")
# what a subject may say besides its kind and still be any of its kind (新手养狗, 柯基日常, 第一次养猫)
_ANY_OF_KIND = re.compile(r"新手|第一次|日常|养|的|在家|怎么|如何|小白|入门|指南|攻略|清单|记录|经验|分享")


def _little_more(subject: str, when: re.Pattern[str]) -> bool:
    """Is the subject its kind (the scene's word) and little else — at most two characters of its own?"""
    rest = _ANY_OF_KIND.sub("", when.sub("", subject))
    return len(rest) <= 2


_EATING_OUT = "food.探店"  # the scene of eating out
_BROUGHT_HOME = "food.特产"  # …and of what was brought home from a place
_TOWN = "travel.城市漫步"  # the scene whose doings fit a day in any town


def trip_doings(text: str) -> list[tuple[str, ...]]:
    """What a trip's days may be filled with, as pools: the doings of the scenes the request names (看海 →
    the sea's, 徒步 → a hike's) in the order it names them — not in a clause that refuses one — then a
    town's, unless the trip is an outing or a scene marked `alone` (a hike, a ski trip or a theme park
    spends no day in town streets)."""
    text = _unrefused(text)
    found = [(m.start(), name, tips) for name, when, tips in _scenes() if (m := when.search(text))]
    named = sorted((at, tips.doings) for at, _, tips in found if tips.doings)
    town = [] if outing(text) else [tips.doings for name, _, tips in _scenes() if name == _TOWN]
    return [*(doings for _, doings in named), *town]


def outing(text: str) -> bool:
    """Is the trip an outing (a hike, a ride) or a scene marked `alone` (a theme park): its days are spent
    on it, none in a town's streets nor at its landmarks (爬黄山 is the mountain, not 黄山's villages)?"""
    text = _unrefused(text)
    alone = [when for name, when, tips in _scenes() if name.startswith("outdoor.") or tips.alone]
    return any(when.search(text) for when in alone)


def sought_doings(text: str) -> list[tuple[str, ...]]:
    """The doings of the `own` activities the request names (看油菜花 → a flower trip's): what the trip goes
    there to do, said before its landmarks are visited."""
    text = _unrefused(text)
    own = {name for name, (when, mine) in _activities().items() if mine and when.search(text)}
    return [tips.doings for name, _, tips in _scenes() if name in own and tips.doings]


def scene_image(theme: str, text: str) -> str:
    """What the pictures of the theme's scene the text names last show — a phrase ends in its head (看海 →
    the sea and its rocks; 凤凰古城夜景 → the night) — or '' when it names none with a look of its own
    (data/lexicon/scene_tips.txt `image:`)."""
    text = _unrefused(text)
    looks = [
        (found.start(), tips.image)
        for name, when, tips in _scenes()
        if name.split(".")[0] == theme and tips.image and (found := when.search(text))
    ]
    return max(looks)[1] if looks else ""


def _asking(text: str) -> str:
    """The clauses of a request that may name its scene: not one that refuses it (不自驾), nor one that only
    says who it is for (适合租房党 asks for no renting tips)."""
    return "，".join(
        c for c in CLAUSE.split(text) if not _REFUSED.match(c.strip()) and not _FOR_WHOM.match(c.strip())
    )


def _fitting_scenes(theme: str, text: str) -> list[tuple[str, re.Pattern[str], SceneTips]]:
    """The scenes a post of `theme` asked by `text` (its asking clauses) may be about."""
    # a scene whose advice speaks to readers the request does not name is not its scene (a trip with kids'
    # 午睡 and 母婴室 for a grown-up's long train ride); a child's scene is for a post about a child (备考作息
    # is no bedtime story)
    named_readers = readers(text)
    return [
        s
        for s in _scenes()
        if not other_readers("".join(s[2]), named_readers)
        and (s[0].split(".")[0] != "parenting" or theme == "parenting" or _A_CHILD.search(text))
    ]


def _scene_named(
    theme: str,
    subject: str,
    text: str,
    scenes: list[tuple[str, re.Pattern[str], SceneTips]],
    *,
    any_subject: bool = False,
) -> SceneTips:
    """Of `scenes`, the one the subject names (its head, see below), else the first of the post's theme
    the request names; () when none. `any_subject`: a scene true of anything of its kind is one of any
    subject naming it (what to have for a dog is the same whatever the post says of it)."""
    own = [(when, tips) for name, when, tips in scenes if name.split(".")[0] == theme]
    # a Chinese phrase ends in its head: the scene named last in the subject is what it is about (宝宝辅食 is
    # feeding, 青岛海边晨跑 is running); of two at the same place, the one that names more of it (宠物友好餐厅
    # is a pet's outing, more than any 餐厅), then the post's own theme's. A scene true of anything of its
    # kind comes last (领养流浪狗 is about adopting, not any dog's walks)
    # (…and one true of anything of its kind only of a subject that is little more than its kind: a dog's
    # walks for 养狗 or 柯基日常, not for 狗狗坐飞机托运)
    named = [
        (not tips.generic, *_reach(when, subject), -rank, tips)
        for rank, (when, tips) in enumerate([*own, *((when, tips) for _, when, tips in scenes)])
        if when.search(subject) and (not tips.generic or any_subject or _little_more(subject, when))
        and not _ruled_out(when, text)
    ]
    asked = [
        t for w, t in own if w.search(text) and (not t.generic or any_subject or _little_more(subject, w))
    ]
    return max(named, key=lambda f: f[:4])[4] if named else next(iter(asked), SceneTips())


# A scene's pattern that opens on what rules it out (^(?!.*(?:宝宝|猫|狗)).*?指甲): who or where it is not for
_RULED_OUT = re.compile(r"^\^\(\?!(?P<not>\.\*\(\?:[^()]*\))\)")


def _ruled_out(when: re.Pattern[str], text: str) -> bool:
    """Does the request rule the scene out, where its subject alone did not say so (给猫剪指甲: the subject
    剪指甲 names no cat, the request does — no nail-salon advice for a cat)?"""
    found = _RULED_OUT.match(when.pattern)
    return bool(found and text and re.search(found["not"], text))


def _reach(when: re.Pattern[str], subject: str) -> tuple[int, int]:
    """How far into the subject a scene's pattern reaches, and how much of it it names: the furthest end of
    a match from any start (带狗狗坐高铁: the pet's trip reaches 高铁 as far as the train does, from 狗狗 on —
    a first match 带狗狗坐 would end before it)."""
    found = [m for i in range(len(subject)) if (m := when.match(subject, i))]
    return max((m.end(), m.end() - m.start()) for m in found) if found else (0, 0)


def scene_tips(theme: str, subject: str, text: str) -> SceneTips:
    """General advice for the scene a post is about (`data/lexicon/scene_tips.txt`): the first scene the
    subject itself names, of the post's theme before the others (播客 is learning, whatever theme 通勤
    suggested; 宝宝辅食 is feeding, not a trip with a baby), else the first scene of the post's theme the
    request names — not in a clause that refuses it (不自驾: no driving tips for a trip by bus); () when
    none."""
    text = _asking(text)
    scenes = _fitting_scenes(theme, text)
    found = _scene_named(theme, subject, text, scenes)
    eating_out = next((tips for name, _, tips in scenes if name == _EATING_OUT), None)
    if found is eating_out and COOKED.search(text):  # 回家怎么煎: a dish had out, asked how to cook at home
        found = SceneTips()
    elif found is eating_out and BROUGHT.search(text):  # 背了两斤火腿回来: had at home, not out
        found = next((tips for name, _, tips in scenes if name == _BROUGHT_HOME), found)
    # eaten out, a dish's scene is no cooking steps (成都火锅推荐); a finer scene of another theme stays
    cooking = not found or any(tips is found for name, _, tips in scenes if name.startswith("food."))
    if theme == "food" and cooking and scene_of(theme, text) == "food_out":
        return next(tips for name, _, tips in scenes if name == _EATING_OUT)
    # a dish the writer knows, cooked as the request tells (腌笃鲜: 春笋…咸肉…炖), whatever scene its words
    # name (炖 is any braise's, with its 糖色)
    steps = dish_steps(subject, text) if theme == "food" else ()
    if steps and subject in dish_names() and steps != dish_steps(subject):
        return SceneTips(steps, ordered=True, dish=True)
    if steps and (not found or found.generic):
        return SceneTips(steps, ordered=True, dish=True)  # a dish named by its parts (番茄肥牛汤): its steps
    return found


# a request asking what to have, get or bring (新手养猫必备清单, 露营需要准备什么, 西藏旅行必带物品, 待产包)
THINGS_ASKED = re.compile(
    r"必备|必带|要带|带(?:什么|啥|哪些)|(?:准备|备|买|入)(?:什么|啥|哪些|些什么)|哪些东西|什么东西|装备|物品|用品"
    r"|行李|打包|待产包|(?:购物|采购|好物)清单|品清单"
)


def things_asked(theme: str, subject: str, text: str) -> SceneTips:
    """The scene of what to have, for a request (`text`) asking for things (猫砂盆和猫砂：… for 新手养猫必备
    清单): its advice, and its `things` — chosen among the scenes that list things as `scene_tips` chooses,
    first of the clause that asks (租房第一次做饭，厨房必备清单 → a kitchen's), then of the subject and the
    request; the first three, then two of each other scene of its kind the subject names (带娃去海边: the
    sea's, then a child's), then the rest. () when the request asks for no things or names no scene that
    lists them."""
    clause = things_clause(text) or things_clause(subject)
    if not clause or _LATE_STAGE.search(clause):  # an old or ill animal's things are no starter kit
        return SceneTips()
    text = _asking(text)
    scenes = [s for s in _fitting_scenes(theme, text) if s[2].things]
    found = _scene_named(theme, clause, "", scenes, any_subject=True)
    found = found or _scene_named(theme, subject, text, scenes, any_subject=True)
    # (…else the first scene of any theme the request names: a family's outing that camps by a stream
    # takes the camp's things, whatever theme the post is of)
    found = found or next(
        (tips for _, when, tips in scenes if when.search(text) and not _ruled_out(when, text)), SceneTips()
    )
    if not found:
        return found
    kind = next(name for name, _, tips in scenes if tips is found).split(".")[0]
    others = [  # (of the same kind: a beach trip's things are no beach outfit)
        tips.things[:2]
        for name, when, tips in scenes
        if name.startswith(f"{kind}.") and when.search(f"{subject}，{clause}") and tips is not found
    ]
    things = dict.fromkeys([*found.things[:3], *(t for pair in others for t in pair), *found.things[3:]])
    return SceneTips(found, things=tuple(things))


# A stage of life or of an illness no scene's list of things is for (老年猫, 术后): the notes say what
# it needs
_LATE_STAGE = re.compile(r"老年|老猫|老狗|高龄|术后|生病|瘫痪|残疾|临终")


def things_clause(text: str) -> str:
    """The clause of `text` that asks for things (厨房必备清单 of 租房第一次做饭，厨房必备清单); ''
    when none."""
    ask = THINGS_ASKED.search(text)
    return next((c for c in CLAUSE.split(text) if ask.group(0) in c), "") if ask else ""


def thing_names(things: Iterable[str]) -> list[str]:
    """The names of things as listed (防晒衣、帽子和墨镜：… → 防晒衣, 帽子, 墨镜)."""
    return [w for t in things for w in re.split(r"[、和或]", t.split("：")[0]) if len(w) >= 2]


def untold(lines: Iterable[str], things: Iterable[str]) -> list[str]:
    """The lines that name none of the listed things: one that names one says nothing the list does not
    (随身带水、零食、湿巾 below 湿巾和纸巾：…)."""
    names = thing_names(things)
    return [line for line in lines if not any(name in line for name in names)]
