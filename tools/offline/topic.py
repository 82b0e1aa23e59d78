"""The subject of a request: what the post is about, without the words that ask for it.

A request wraps its subject in a frame: politeness and the asker (请、能不能帮我、我想), a verb of making
with a count and a platform noun (写一篇小红书笔记、来篇、出个), a verb of telling (分享一下、安利、种草、
说说), a count of the things recommended (几道、五本), a style (用轻松的语气), a reader (给刚毕业的大学生写…)
and a label (主题是…、以「…」为主题). The frame is peeled off clause by clause; the first clause with a
subject left gives the topic. A question the request turns into content keeps its content noun
("露营需要准备什么？写个清单" → 露营清单).
"""

from __future__ import annotations

import re
from functools import cache

from tools.bilingual import localize
from tools.entities import division_contains, divisions, landmark_cities, places, world_rows
from tools.segmenter import cut, posseg

# A space that separates two clauses: between two Chinese characters (梅干菜扣肉的做法 重点讲讲… — not the
# space inside "capsule wardrobe" or "zone 2"), after a number before Chinese that is no unit of it
# (预算一天200 帮我写…, not 住了 3 天 nor 6:00 起床), before a letter or two that start a Chinese word
# (素纱襌衣 T形帛画), or a word in small letters that does (肉夹馍 biangbiang面)
SPACE_BREAK = (
    r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
    r"|(?<=\d)(?<!:\d\d)\s+(?=[\u4e00-\u9fff])(?![天晚夜个次年月周元块岁公小分斤克件张层人家])"
    r"|(?<=[\u4e00-\u9fff])\s+(?=[A-Za-z]{1,2}[\u4e00-\u9fff]|[a-z]{3,}[\u4e00-\u9fff])"
    # (…and one before a count of things, which lists them: 2件大衣 3件毛衣 4条裤子)
    r"|(?<=[\u4e00-\u9fff])\s+(?=\d+\s*[件条双个只瓶支套款本台顶副])"
    # (…and one before a clock's time, which starts a row of the day: 重庆一日暴走 9:00鹅岭二厂 11:30…)
    r"|(?<=[\u4e00-\u9fff])\s+(?=\d{1,2}:\d{2})"
    # (…and one after a closing quote or book mark, before Chinese: 笔记《腊八蒜到底要泡多久》 去年我…)
    r"|(?<=[》」』”])\s+(?=[\u4e00-\u9fff])"
)
# What separates a request's clauses: punctuation, an ellipsis or a tilde, an emoji, and such a space
# (not the colon of a clock's time: 9:00鹅岭二厂 is one clause)
CLAUSE = re.compile(
    r"(?:[，,。！!？?；;：\n…~～｜|\U0001f000-\U0001faff\u2600-\u27bf]|:(?!\d{2}))+|" + SPACE_BREAK
)
# 主题是X / 题目：X / 以「X」为主题 — the subject is named outright
_LABELLED = re.compile(
    r"(?:主题|题目|标题|话题)(?:大概|大致|暂定|可以|就)?(?:(?:是|为|叫|[：:])\s*[「“\"『《]?|《)"
    r"(?P<a>[^」”\"』》，,。！!？?；;\n]{2,30}?)(?=[」”\"』》，,。！!？?；;\n]|\s+\S|\s*$)"
    r"|以\s*[「“\"『《]?(?P<b>[^」”\"』》，,。]{2,30}?)[」”\"』》]?\s*为(?:主题|题|话题)"
)
# 题目大概是《X》 / 标题就叫「X」: the title the creator wants, word for word
_ASKED_TITLE = re.compile(
    r"(?:题目|标题)(?:大概|大致|暂定|可以|就)?(?:是|为|叫|用)?[：:]?\s*[《「“\"『](?P<t>[^》」”\"』\n]{2,30})[》」”\"』]"
)
STYLE = re.compile(r"(?:用|以)[^，,。；;]{0,10}?(?:语气|口吻|风格|文风|方式|语言)")
_POLITE = re.compile(
    # (not 请 that invites: 请了5个小朋友; …and how it is laid out before the making: 按天写成)
    r"^(?:请(?![了过来到])|按(?:这个|这样的|上面的?)?(?:天|周|顺序|时间顺序|时间)(?=写|整理|列|排|帮)|麻烦|求求|求|能不能|能否|可不可以|可以|帮我|帮忙|给我|替我|教我|我想|我要|想要"
    # one character asks only before a verb of making or telling (not 能量早餐, 要点, 想象)
    r"|(?:能|你|帮|想|要)(?=写|发|出|来|做|整理|帮|给|推荐|分享|安利|种草|说|讲|聊|记录|介绍|看|一篇|篇))+"
    # (…and what is made into the post when it is only the story told: 想把这两次经历写成一篇笔记)
    r"|^(?:想|我想|要)?把(?:这个|这些|它|这段|这篇|下面的?|以下的?|上面的?|[这那][几一两二三四五\d]*[次段件回份张])?"
    r"(?:内容|文字|素材|经历|话|过程|故事|事|清单|列表|单子)?(?=写|整理|改|做)"
)
# 把我家祖传的做法写成一篇笔记: what is made into the post, before the verb that makes it (…or only
# written up: 把必吃的小吃整理一下)
_MADE_INTO = re.compile(
    r"^把(?!这个|这些|它|这段|这篇|下面|以下|上面|[这那][几一两二三四五\d]*[次段件回份张](?:的)?(?:经历|过程|故事|事|清单|列表|单子)?"
    r"(?:写|整理|改|做))(?P<what>.{2,20}?)"
    r"(?:写成|扩写成|扩成|整理成|(?:做成|改成|变成)(?=[^，,。]{0,4}(?:笔记|文案|帖子|图文|清单|攻略|合集|故事|日记|教程"
    # (not a deed told: 把卫生间的蹲坑改成了马桶)
    r"|指南|长图|分享|文章|一篇)|$)|(?P<up>整理|汇总|盘点|梳理|总结|列|写|捋|理)(?:一下|出来|一遍|清楚)?$)"
)


def _made_into(text: str) -> re.Match[str] | None:
    """`_MADE_INTO`'s match — not a home's thing tidied (把衣柜整理一下 is the deed, not the post's frame)."""
    from tools.offline.lexicon import THEMES

    made = _MADE_INTO.match(text)
    tidied = made and made["up"] == "整理" and any(w in made["what"] for w in THEMES["home"].triggers)
    return None if tidied else made


_MAKE = re.compile(
    r"^安排一下|^给(?=个(?!子)|一份|几|份)|^(?:写写|写|扩写|扩|发|出|来|做|整理|列|创作|生成|编|搞|整(?!个)|弄|改|看|排)(?:一下|一写|点东西|点什么|些东西|点内容"
    r"|(?:成)?(?=一|几|篇|条|份|个|张|小红书|笔记|帖子|文案|图文|清单|攻略|$))"
    # 写小户型收纳的笔记: the verb right before the subject, the kind of post at the end
    r"|^写成?(?![写字作真])(?=.{2,}(?:笔记|文案|帖子|攻略|清单|指南|教程|测评|合集|心得|经验帖|分享)$)"
    # 写成日记, 写成故事: what kind, said of the other clause; 改成了洗衣房: what a room became
    r"|^(?:写成|整理成|改成了?)(?=.)"
    # (…and 做成 only before a kind of post: not 做成小动物造型, which is what was made of the food)
    r"|^做成(?=[^，,。]{0,4}(?:笔记|文案|帖子|图文|清单|攻略|合集|故事|日记|教程|指南|长图|分享))"
)
_TELL = re.compile(
    r"^(?:记录|分享|安利|推荐|种草|介绍|说说|讲讲|聊聊|聊一聊|讲一讲|说一说|谈谈|盘点|总结(?!下来|起来)|讲一下|说一下|聊一下|写写"
    r"|讲(?=我)|说(?=我))(?:一下|下)?"  # 讲我离开大厂的第一年
    # (…written down to post: 想记录下来发小红书, 记下来发个朋友圈)
    r"(?:来(?=发))?(?:发(?:个|条|篇|一条|一篇)?(?:小红书|朋友圈|微博|笔记)$)?"
)
# telling the readers of a thing (告诉大家什么季节的荸荠最甜, 跟大家聊聊…): a frame, not the subject — but
# told only when or how to do it (告诉大家几点进山最合适), the post's purpose (`_HOW_TO_WRITE`): the subject
# is elsewhere
_TO_READERS = re.compile(
    r"^(?:(?:告诉|教)(?:大家|你们|姐妹们|各位|新手们?)"
    r"|(?:跟|和|给)(?:大家|你们|姐妹们|各位)"
    r"(?:说说|讲讲|聊聊|说一说|讲一讲|分享一下|分享|介绍一下|介绍|科普一下|科普))"
    r"(?!(?:几点|什么时候|何时)(?!的)|多久|怎么|如何|怎样|要不要|该不该)"
)
# (not 一个月, 一个人: a span of time or a person is the subject's own)
_COUNT = re.compile(
    r"^(?:(?:一篇|一条|一份|一期|几篇|几条|一些|篇|条|份|个|期)"
    r"|(?:几|[一二两三四五六七八九十]+|\d+)\s*(?:道|款|本|家|样|种|部|件|套|首|招|处|个|条|份|篇))"
    r"(?!月|人|星期|周(?!末|报)|小时|晚上|上午|下午)"
)
_PLATFORM = re.compile(
    r"^(?:小红书)?(?:的)?(?:种草)?(?:笔记|文案|帖子|经验[帖贴]|攻略[帖贴]|图文|推文|种草文|小作文)|^小红书|^(?:关于|有关)|^我(?:们|家)?的|^吧"
    r"|^我作为[^的，,]{1,8}的"  # 我作为上班族的健身安排: who writes, then what
)
# what the writer has already listed or drafted (我列了几条…, 我自己整理了一些…): the list is the subject
_MY_LIST = re.compile(
    r"^我(?:自己)?(?:先|已经)?(?:列|写|整理|记|攒|想)了(?:几|一些|[一二两三四五六七八九十\d]+)?(?:条|个|点|项|些)"
)
_LABEL_ONLY = re.compile(r"^(?:笔记|帖子|文案)?(?:主题|题目|话题|要求|内容)$")
_TAIL = re.compile(
    r"(?:的)?(?:小红书)?(?:种草)?(?:笔记|文案|帖子|经验[帖贴]|攻略[帖贴]|内容|图文|种草文|推文)$"
    r"|(?:的)?(?:经验分享|心得分享|分享)$|(?<=\S{2})(?:想|要)?分享一?下$|(?:好吗|可以吗|行吗|好不好|吧|呀|哦|啊|呢|吗|嘛)$|(?:并|再|还要|和)?配(?:上|几张)?图(?:片)?$"
    r"|(?<=[\u4e00-\u9fff]{3})(?<![请字])帖$"  # 泰山夜爬帖: a post of it (not 请帖, 字帖, nor 励志帖: a kind)
    # (…and where it is posted: 列一个入园清单发小红书)
    r"|(?<=\S{2})(?:发|发到|发在|发个|放到)(?:小红书|朋友圈|抖音|微博|公众号|B站|豆瓣)(?:上)?$"
)
# a "make" frame in the middle of a clause: 给刚毕业的大学生写一篇… / …写篇经验帖
_MID_MAKE = re.compile(
    # (not a thing made: 拉出一个像样的碗, 烤出一个)
    r"(?:(?:写|发|(?<![拉做长冒跑走画找挤选拿掏生开算查露挑拍烤蒸煮炒熬织剪捏烧种养练晒刷测])出|来)"
    r"(?:一篇|篇|一条|条|一份|一个|个)|做(?:一篇|篇))(?:小红书)?(?:的)?(?:笔记|文案|帖子|经验[帖贴]|攻略[帖贴]|图文)?"
)
# a reader before the verb: 给新手妈妈推荐… / 为上班族写… (not a thing done for them: 给一岁宝宝断奶的
# 经历分享)
_READER_FRAME = re.compile(
    r"^(?:写给|给|为|帮)(?![我你自])(?:(?!断奶|刷牙|理发|洗澡|剪指甲|喂药|喂饭)[^，,。]){1,12}?(?<!经验)(?<!心得)(?=推荐|安利|分享|介绍|种草|写|出一|来一|整理|盘点)"
)
_READER = re.compile(r"^(?:写给|送给|分享给|给|面向|针对|适合)(?![我你自])")
# (not when a post is asked of the reader's: 给上班族写一周带饭清单)
# …not a thing done for someone (给三岁孩子选绘本, 给猫剪指甲): that is a subject
DONE_FOR = (
    r"(?![^，,。]{1,8}?(?:选|挑|买|做|准备|讲|读|剪|洗|喂|换|布置|收拾|断奶|刷牙|理发|补|办|设置|安装|下载|教|DIY|diy))"
    r"(?!它)"  # (a pet is no reader: 我给它们DIY的木头小屋)
)
_READER_ONLY = re.compile(
    r"^(?:写给|送给|分享给|给|面向|针对|适合)(?![我你自])(?![^，,。]{1,12}?(?:写|出一|来一|整理|盘点))"
    rf"{DONE_FOR}(?!\S*的\S*(?:攻略|指南|清单|笔记|合集|教程|经验|心得)$)\S{{0,16}}$"
)
# A reader and nothing else: 给刚入坑的朋友, 写给第一次来的你
_READER_PHRASE = re.compile(
    r"(?:写给|送给|分享给|给|面向|针对)[^，,。]{0,12}?(?:朋友|人|你|姐妹|宝子|同学|新手|小白|大家|们|家长|爸妈|父母)"
    r"(?:看|读|参考)?"
)
# (…the whole reader, when a person follows its first 的: 写给刚毕业的大学生的租房攻略)
_PERSON_NOUN = (
    r"(?:朋友|姐妹|宝子|同学|新手|小白|大学生|学生|女生|男生|妈妈|爸爸|宝妈|家长|上班族|打工人|人|们|党|族)"
)
# A clause that only says who the post is for, as a person described (刚入职一个月的新人, 我是在上海工作的
# 打工人): a reader, not the subject — never one's own kin (我妈妈) nor a bare 人 (一个人), nor a clause that
# asks for the post (写篇经验帖给想跳绳的新手)
PERSON_CLAUSE = re.compile(
    r"^(?:我是)?(?:一[个名位枚])?(?P<who>(?!我)(?!.*(?:写|给|篇|帮|分享|适合|面向|针对|推荐|整理|了|请))[\u4e00-\u9fffA-Za-z\d]{0,12}?的?"
    r"(?:新人|新手|小白|职场人|打工人|上班族|社畜|白领|学生党|大学生|研究生|留学生|考研党|宝妈|宝爸|新手妈妈"
    r"|新手爸妈|(?:全职|职场|二胎)妈妈|家长|女生|男生|程序员|设计师|年轻人|姐妹|朋友|党|族))$"
)
_FOR_READER = re.compile(
    rf"^(?:适合|面向|针对|写给|给){DONE_FOR}[^的做买吃用去拍写画煮送读]{{2,12}}的"
    rf"(?:[\u4e00-\u9fff]{{0,4}}?{_PERSON_NOUN}的(?=\S{{2}}))?"
)
_ASKED_TAIL = re.compile(
    r"(?:需要|要|该|应该|可以)?(?:准备|带|买|吃|玩|选|穿|看|注意)?(?:些)?"
    r"(?:什么|哪些东西|哪些|怎么办|怎么[\u4e00-\u9fff]{0,2})$"
)
_ASKED_WITHIN = re.compile(r"什么|哪些|哪种|哪个|哪款|哪几")
_CONTENT_NOUN = re.compile(r"清单|攻略|合集|测评|食谱|教程|指南|时间表|计划|方案|步骤|流程|做法")
# …and what it must have, asked in the same breath (食谱要有用量和步骤, 攻略需要写上交通)
_KIND_WITH_PARTS = re.compile(
    rf"(?P<kind>{_CONTENT_NOUN.pattern}|笔记|帖子)(?:里)?(?:要|需要|得|最好|一定要)(?:有|写|写上|带上?|包括|包含|分)"
)
# what kind of post, with no subject: 经验分享, 心得, 笔记
_KIND_ONLY = re.compile(
    # (in a tone: 走心的长文, 温暖治愈的笔记)
    r"(?:(?:走心|温暖|治愈|暖心|搞笑|轻松|幽默|文艺|真诚|真实|实用|简短|详细|俏皮|有趣|深度|温柔|感人|有温度|"
    r"接地气|口语化|励志|正能量|鸡汤)+的?)?"
    r"(?:我的|自己的|这段|这次|那段|(?:现在|此刻|当下|最近|今天)的?)?"
    # (…for whom, said as a word of the kind: 新手菜谱, 小白攻略)
    r"(?:新手|小白|零基础|懒人|入门)?"
    r"(?:(?:经验|心得)?(?:分享|总结)|经验|心得|(?:科普)?笔记|科普|帖子|经验[帖贴]|记录|干货|方法|做法|技巧"
    r"|(?<=新手|小白|懒人|入门)(?:菜谱|食谱)|(?<=零基础)(?:菜谱|食谱)"
    r"|办法|感受|故事|体验|经历|过程|攻略|清单|指南|教程|测评|合集|长文|短文|文章|随笔|小作文|长帖|对比|比较|横评"
    # (a feeling or a day told, with nothing of what: 写篇感悟, 记录一下现在的心情, 写个搞笑日常)
    r"|感悟|感想|心情|日常|碎碎念|心里话|近况|想法|吐槽|帖|贴"
    # (a diary is a kind too: 写成日记, 日记体的笔记, 心情日记; and a follow-along: 跟练笔记)
    r"|(?:心情|打卡|复盘|成长)?日记(?:体|风)?|游记|复盘|跟练|(?:菜谱|食谱|探店|徒步|种草)(?=帖|贴))(?:笔记|分享|帖|贴)?"
    r"(?:给[^，,。]{1,12})?"  # 写篇体验, 写写这段经历给还在纠结的人, 写篇攻略给新手鼠主
)


# A topic that is only a plan of something (全年规划, 一周计划, 我的流程): the thing is in another clause
_PLAN_ONLY = re.compile(
    r"(?:新手|入门|零基础|小白)?(?:全年|全天|一天|一周|每天|每周|暑假|寒假|[一二两三四五六七八九十\d]+(?:周|天|个月))?"
    r"(?:的)?(?:训练|练习|锻炼|学习|复习|护理|养护|保养|清洁|喂养|洗护)?(?:规划|计划|安排|时间表|流程|方法|作息)"
)


# Things one tried, counted and not named (我试过的几条, 用过的三款): the question names them
_TRIED_ONLY = re.compile(
    r"我?(?:[试用买穿吃喝玩]过|(?:常|经常|最常|一直)[用买穿吃喝点囤])的?(?:几|[两三四五六七八九十\d]+)[条款件个双支瓶本家道样种]$"
)
# …and a question of choosing them (怎么挑牛仔裤, 如何选防晒)
_CHOOSING = re.compile(r"(?:该|要)?(?:怎么|如何|怎样)(?:挑|选|买|点)")
# people a theme's trigger may name (宝宝, 爸妈): whom a plan is for, not what it plans
_WHOM = re.compile(r"宝宝|孩子|娃|宝妈|奶爸|小朋友|儿童|爸妈|父母|老人|长辈|新手爸[妈爸]|[大二]宝|老[大二]")
_FORM_ONLY = re.compile(r"(?:我的)?(?:模板|模版|框架|格式|话术)")


# What a post is about only with its owner: how it is made (做法), the stories of (那些事) —
# 养了三年柯基，说说掉毛和减肥的那些事 is about the corgi's shedding and diet,
# 新手在家做红烧肉，不柴不腻的做法 about the dish
# the stories of it (我的改造过程, 记录一下全过程, 前后对比)
_TOLD = "那些事|那点事|二三事|经历|心路历程|故事|(?:全|整个)?过程(?:前后对比)?|前后对比"
_HOW = "做法|方法|技巧|秘诀|诀窍"  # how it is done
_HOLLOW_TAIL = re.compile(rf"(?:的)?(?:{_TOLD}|{_HOW})$")
_TOLD_TAIL = re.compile(rf"(?:{_TOLD})$")
# A topic that says which or how good, not what (哪几家最好吃, 对比测评, 新手): the thing is in another clause
_NO_THING = re.compile(
    r"^(?:(?:哪|那)(?:几|些)?(?:家|款|个|种|样)?|什么|最|好|吃|用|对比|测评|评测|横评|新手|小白|入门|推荐|合集"
    r"|步骤|流程|做法|教程|攻略|清单|心得|经验|分享|笔记)+$"
    # (…or which is the most of what: 哪个最保湿)
    r"|^(?:哪|那)(?:几|些)?(?:家|款|个|种|样|支|瓶|件)?最[\u4e00-\u9fff]{1,4}$"
)
# who and how old, and nothing more (孩子三岁, 宝宝一岁半了, 我家狗五岁)
_AGE_ONLY = re.compile(
    r"(?:我家|我们家)?(?:的)?(?:孩子|宝宝|娃|女儿|儿子|老大|老二|猫|狗|狗狗|猫咪|小猫|小狗|柯基|金毛|泰迪|柴犬|边牧"
    r"|布偶|英短|橘猫|狸花|[\u4e00-\u9fff]{0,3}(?:鹦鹉|仓鼠|兔子?|龟|鸟))"
    # (…called by a pet name, said twice over: 玄凤鹦鹉豆豆三岁)
    r"(?:(?P<pet>[\u4e00-\u9fff])(?P=pet))?"
    r"(?:[一二两三四五六七八九十\d]+|半)(?:岁|个月|周岁)半?(?:了|多)?"
)
# when, not what: no thing a doing is of (上周末 of 上周末去苏州…, 今年夏天 of 今年夏天在家种了小番茄)
WHEN_WORD = re.compile(
    r"(?:上|下|这|本|每)?个?(?:周末|周|星期[一二三四五六日天]?|月)|(?:今|明|去|前)年(?:[春夏秋冬](?:天|季))?"
    r"|[春夏秋冬](?:天|季)|暑假|寒假|假期|国庆|五一|春节|过年"
    # (…and which meal: 周末早午餐在家做了北非蛋 is of the dish)
    r"|早午餐|早餐|午餐|晚餐|早饭|午饭|晚饭|夜宵|宵夜"
)
# Nouns that name who or when, not what (新手 of 新手在家做红烧肉, 女生 of 小个子女生)
_NOT_THINGS = re.compile(
    r"新手|小白|女生|男生|女孩|男孩|朋友|大家|自己|姐妹|宝子|上班族|打工人|学生|同学|年轻人|时候|时间|经验|心得|笔记|重点|关键|要点"
)


# What a clause says was made, by the pot or the batch: 做了一锅腌笃鲜, 烤了一盘蛋挞, 包了两百个饺子
_MADE = re.compile(
    r"(?:做|煮|炖|烤|蒸|包|烧|卤|煲|熬|腌|酿|泡|烙|炸|拌)了?(?:[一两二三四五六七八九十几半\d]+|好几)"
    r"(?:大|小)?(?:锅|盘|碗|份|笼|罐|炉|盆|桌|屉|坛|缸|瓶|个|只|块)(?P<thing>[\u4e00-\u9fff]{2,6})$"
)


def things_in(text: str) -> list[str]:
    """The particular things a clause names: 柯基 of 养了三年柯基, 大衣 of 小个子女生冬天怎么穿大衣显高,
    nouns side by side as one (额头闭口); jieba's nouns, without readers, times and the frame's own words;
    不柴 is no noun."""
    # (a dish jieba does not know, after the making and its pot: 腌笃鲜 of 周末在家做了一锅腌笃鲜)
    if made := _MADE.search(text):
        return [made["thing"]]
    out: list[str] = []
    joined = False
    for word, flag in posseg(text):
        thing = (
            len(word) >= 2 and flag[0] == "n" and not word.startswith("不") and not _NOT_THINGS.search(word)
        )
        if joined and out and len(word) == 1 and flag[0] == "n":  # a one-character head: 番茄肥牛+汤
            out[-1] += word
            continue
        if thing and joined and out:
            out[-1] += word
        elif thing:
            out.append(word)
        joined = thing
    return out


# What a person's own version of a thing is called: 祖传, 私房 — said before the thing (祖传糖蒜)
_OWN_WAY = re.compile(r"^(?:祖传|家传|私房|独家|自创|自家)$")
_WHOSE = re.compile(
    r"^(?:我们家|我家|我们|我|它们|他们|她们|它|他|她)?(?:自己)?(?:这半年|这一年|这几年|这些年|这一路)?的?"
)


# only the mistakes made (我踩过的坑): of what the other clause tells
_PITS = re.compile(r"(?:我们?)?(?:踩过|遇到过|犯过|走过)的?(?:坑|雷|错|弯路)")


# people one does a thing with or for: whose a process is never
_COMPANY = re.compile(
    rf"(?:{_WHOM.pattern}|{_PERSON_NOUN}|大爷|大妈|阿姨|叔叔|邻居|同事|室友|闺蜜|老公|老婆|对象|男友|女友|儿子|女儿"
    r"|老师|师傅|教练|队友|网友|家人|亲戚|外婆|外公|奶奶|爷爷|姥姥|姥爷|婆婆|妈妈|爸爸|我妈|我爸)"
)


def _owned(topic: str, clauses: list[str], first: str) -> str:
    """A topic that names no thing of its own, with the thing another clause names: a trait, a doing or
    the post's bare theme word (不柴不腻, 掉毛和减肥, 穿搭) is said of the dish, the pet or the garment of
    the clause before, and so are the stories of it (换毛季的那些事 of a rabbit's moult); a topic that
    says only which or how good (哪几家最好吃, 对比测评) is the other clause's. Any other topic is returned
    as it is."""
    if _ROUTE_ONLY.fullmatch(topic):  # 帮我排个行程: a trip's plan is of where it goes, not of a stop
        return topic
    bare = _WHOSE.sub("", _HOLLOW_TAIL.sub("", topic)).strip("的 ")
    others = [c for c in clauses if c != first]
    # 我试了几招还挺管用, …，失眠好多了: the ways are of what they eased
    eased = next((m["what"] for c in others if (m := _EASED.search(peel(c)))), "")
    if _WAYS_WORKED.fullmatch(bare) and eased:
        return "改善" + eased
    # 记录这一天的心情, 上岸经验, 翻车自救记录: a frame of what another clause tells
    if _FRAME_OF_TOLD.fullmatch(bare) and (thing := _told_thing(others)):
        return thing + topic
    told_of = next((t for c in others if len(t := peel(c)) >= 4), "")
    # 分享我们家的经历, 我家的应对方法: the experience of (the way of coping with) what the other clause tells
    if (not bare or bare in GENERIC_VERBS or _PITS.fullmatch(bare)) and told_of:
        return told_of
    if not bare or _NO_THING.fullmatch(bare):  # 哪几家最好吃: which of the thing the other clause names
        heads = [things[-1] for c in others if (things := [w for w in things_in(peel(c)) if not places(w)])]
        return heads[0] if heads else topic
    tail = bare != topic.strip("的 ")
    things_of = [w for c in others for w in things_in(peel(c))]
    told = bool(_TOLD_TAIL.search(topic))  # 换毛季的那些事: the stories of the rabbit's moult
    theme_word = bare in _theme_words(bare)
    if not tail and not theme_word:  # 低卡便当, 遛娃攻略 — a topic of its own
        return topic
    if not _HOLLOW_TAIL.search(topic) and _theme_words(bare) and not theme_word:
        return topic  # 我和朋友第一次溯溪: only whose, and it names what it did
    # (the theme's word of a stay somewhere: 在越南大叻待了一周…，写篇美食笔记 → 大叻美食)
    stay = next((m for c in others if (m := _STAY_ONLY.fullmatch(peel(c)))), None)
    if theme_word and stay and (where := places(stay["p"])):
        return where[-1] + topic
    # (the theme's doing, said with where in a clause of its own: 青岛崂山北九水徒步，…，写篇徒步笔记)
    where_done = (t for c in others if bare in (t := peel(c)) and len(t) <= 12 and places(t))
    if theme_word and (said := next(where_done, "")):
        return said
    # (…or the theme's word with what it is of, in a clause of its own: 通勤一周穿搭不重样 →
    # 通勤一周穿搭)
    said_with = (t[: t.find(bare) + len(bare)] for c in others if (t := peel(c)).find(bare) >= 2)
    if theme_word and (said := next(said_with, "")):
        return said
    own_way = bool(_OWN_WAY.match(bare))  # 我家祖传的做法: whose way, of the thing another clause names
    # 番茄牛腩的做法: its own (…and so is a name in Latin letters: 我WFH两年的心得)
    named = bool(things_in(bare) or re.search(r"[A-Za-z]{2,}", bare))
    if tail and not told and not own_way and named and not theme_word:
        return topic
    # (a thing done at a place, without the place: 冬泳 of 松花江冬泳)
    unplaced = (re.sub("|".join(map(re.escape, places(w))), "", w) if places(w) else w for w in things_of)
    owned = (w for w in unplaced if len(w) >= 2 and w not in bare)
    # (not the people it was done with: 跟着楼下的大爷们去冬泳，讲讲适应冷水的过程 is of the swimming)
    kept = (w for w in owned if w not in _MEANS and not _COMPANY.fullmatch(w) and not WHEN_WORD.fullmatch(w))
    owner = next(kept, "")
    if not owner:
        return topic
    # …the whole of it, when the clause goes on naming it (番茄 of 番茄炒蛋 is the dish's part)
    whole = next((s for c in others if owner in (s := _subject_of(c)) and s.startswith(owner)), "")
    # (…not a clause that says something of it: 春笋是菜场买的 tells where it came from)
    said_of = re.search(r"是|用|买|在|有|了|叫", whole[len(owner):])  # (…nor its name: 鬃狮蜥叫小土豆)
    owner = whole if 0 < len(whole) <= 8 and "的" not in whole and not said_of else owner
    if own_way:
        return bare + owner
    # (the theme's bare word of a thing had somewhere keeps the city it was had in: 美食 of 厦门沙坡尾附近的
    # 沙茶面小店 → 厦门沙茶面小店美食)
    home = next((c for c in others if owner in c), "")
    city = next((p for p in places(home[: home.find(owner)]) if p in divisions()), "") if theme_word else ""
    owner = city + owner if city and city not in owner and len(city + owner) <= 8 else owner
    # (a life is no trait: 它的日常 → 鬃狮蜥日常)
    trait = posseg(bare)[0][1] in ("a", "d") and not theme_word and bare not in ("日常", "生活", "小日子")
    if trait or bare.startswith("不") or _SAYS_HOW.search(bare):
        return f"{bare}的{owner}"  # a trait goes before its thing: 新手也不会翻车的番茄炒蛋
    return owner + bare


# ways said only to have worked (试了几招还挺管用, 这几个办法亲测有效): of what another clause says they eased
_WAYS_WORKED = re.compile(
    r"(?:这|总结了?|试了|找到了?|摸索出了?)?(?:几|[一二两三四五六七八九十\d]+)(?:个|种|条)?(?:小)?"
    r"(?:招|办法|方法|技巧|妙招)(?:都)?(?:还挺|挺|真的|确实|很|超|特别|亲测)?(?:管用|有用|有效|好用)(?:的)?"
)
# a frame with nothing of its own: a day's feelings, an exam passed, a mishap mended
_FRAME_OF_TOLD = re.compile(
    r"这?(?:一天|天|段时间|一周|几天|次|一年|前?[\d一二三四五六七八九十百]+(?:天|周|个月))的?(?:心情|感受|心路|想法)"
    r"(?:和(?:技巧|建议|经验|心得|收获)?)?"
    r"|(?:上岸|通关|一次过|全过)(?:经验|心得|攻略|记录|笔记|经历)?"
    r"|(?:翻车|踩坑|踩雷)(?:自救|急救|补救)?(?:记录|经历|笔记|日记)?"
    r"|(?:DIY|diy|维修|修理)(?:教程|攻略|记录|经验|笔记|过程|步骤)?"  # (of what was mended)
)


def _told_clause(peeled: list[tuple[str, str]], clauses: list[str]) -> tuple[str, str]:
    """The clause that tells the subject, of a request that asks for no subject: the first that names what
    the reader is said to want (…在家给她办了个恐龙主题生日会…，给想在家办生日会的家长参考 — not 女儿6岁生日),
    else the first with anything left once peeled."""
    wishes = [m["x"] for c in clauses if (m := _READER_WISH.match(c))]
    wanted = {w for x in wishes for _, w in particulars(x) if len(w) >= 2}
    told = [(c, t) for c, t in peeled if len(t) >= 2]
    return next((ct for ct in told if any(w in ct[1] for w in wanted)), None) or next(iter(told), ("", ""))


def _told_thing(clauses: list[str]) -> str:
    """The thing the first clause that names one tells of: 裸辞 of 今天正式裸辞了, CPA of CPA六门全过了 — or
    a change it tells, whole (从乙方到甲方)."""
    changed = next((m.group(0) for c in clauses if (m := _CHANGE.search(c))), "")
    return changed or next((_compound(found) for c in clauses if (found := particulars(peel(c)))), "")


def _compound(found: list[tuple[int, str]]) -> str:
    """The first of a clause's particulars with the nouns right after it (卫生间 + 玻璃胶 → 卫生间玻璃胶)."""
    at, thing = found[0]
    for start, word in found[1:]:
        if start == at + len(thing) and all_nouns(word) and len(thing + word) <= 8:
            thing += word
    return thing


_CHANGE = re.compile(r"从[\u4e00-\u9fff]{2,4}?(?:跳|转|换|调)?到[\u4e00-\u9fff]{2,4}?(?=[，,。的做心工]|$)")


# what was eased, and how much: 失眠好多了, 孩子挑食改善了不少, 颈椎痛缓解了
_EASED = re.compile(
    r"^(?P<what>[\u4e00-\u9fff]{2,8}?)(?:的情况|的问题)?(?:也|都)?(?:真的|明显|已经)?"
    r"(?:好多了|好了很多|好了不少|改善了|改善很多|缓解了|减轻了|少多了|少了很多)"
)


# How one gets there, not what a trip is (从上海坐高铁去厦门…，写一篇行程笔记 is a Xiamen trip's)
_MEANS = frozenset("高铁 动车 火车 飞机 航班 大巴 自驾 地铁 公交 打车 包车".split())  # noqa: SIM905
# a trait said as a clause: 新手也不会翻车, 一次就能成功
_SAYS_HOW = re.compile(r"不|没|也|都|能|会")


# Nouns that name a part, a way or an outcome of something, not a thing: a topic of only these (这个过程和
# 用过的辅助方法, 这几个月的落差和收获, 拍摄加出行攻略) is about what another clause names.
GENERIC_WORDS = frozenset(
    """
    东西 过程 方法 办法 原因 地方 收获 落差 经验 心得 感受 感觉 变化 问题 事情 技巧 注意事项 准备 小时 时间
    经历 故事 攻略 清单 笔记 体验 细节 建议 步骤 流程 日常 记录 要点 重点 好处 坑 辅助 人 时候 样子 情况
    翻车 翻车点 踩坑 踩雷 避坑 科普 干货 日子 时光 那段日子 工具 平价 好物 打卡 总结 复盘 结论 体会 顺序
    爸妈 父母 长辈 老人 家长 鼠主 铲屎官 宝妈 宝爸 吃货
    """.split()  # noqa: SIM905 - a word list reads best as text
)


# Verbs of any subject (going, making, choosing, planning); any other verb of a topic is particular (刷酸)
GENERIC_VERBS = frozenset(
    """
    分享 记录 准备 使用 选择 选购 挑选 调整 恢复 排查 出行 拍摄 旅行 旅游 出游 入门 推荐 介绍 安排 规划
    整理 总结 测评 对比 心得 攻略 打算 计划 开始 决定 觉得 希望 需要 可以 注意 提醒 适合 用过 试过 学会 知道
    应对 处理 解决 对付 搞定 出发
    """.split()  # noqa: SIM905 - a word list reads best as text
)


_DATES = re.compile(
    r"(?:上|下|这|本)?(?:周|星期|个月|月)|周末|今天|明天|昨天|最近|以前|以后|现在|平时|每天|天天|早上|晚上|中午|上午"
    r"|下午|傍晚|半夜|春天|夏天|秋天|冬天|春季|夏季|秋季|冬季|假期|寒假|暑假|五一|十一|国庆|春节|过年|今年|去年"
)


# English words of the post itself, never its subject (a mixed request's 写个post, vlog, OOTD)
_POST_WORDS = frozenset("post note blog vlog plog ootd xiaohongshu red app".split())  # noqa: SIM905
_HAN = re.compile(r"[\u4e00-\u9fff]")


# when a told thing happened (not a time that is part of a subject: 周末露营, 秋冬穿搭, 暑假)
_TOLD_WHEN = re.compile(
    r"(?:上|这|本)(?:周|星期|个月|月)|最近|以前|以后|现在|平时|今天|明天|昨天|今年|去年|前年|刚才"
)
# …and words of any told thing (开始, 觉得, 不到): no keyword either
_BARE_VERBS = frozenset(  # (…and a question's own words: 多久, 什么样, 最好)
    "开始 决定 觉得 希望 需要 可以 打算 知道 后来 慢慢 不到 超过 左右 大概 多久 多长时间 什么样 最好"  # noqa: SIM905
    " 小时 分钟".split()
)
# …nor a count of a thing (一锅, 两斤, 三门) or what it can take (能装下)
_COUNTED = re.compile(
    r"[一二两三四五六七八九十几半\d]+[锅顿斤门只条件次份碗杯盆袋箱]|能[\u4e00-\u9fff][下上出完好到进]"
)
_NTH = re.compile(
    r"第[一二两三四五六七八九十\d]{1,3}[天周次个年盆件本场顿杯份道款棵株]|[一二两三四五六七八九十\d半]{1,3}个?(?:天|周|月|年|小时|分钟)"
)


def hollow_word(word: str) -> bool:
    """Is `word` only when something happened or a verb of any subject (上个月, 第一周, 开始), no keyword?"""
    spoken = _TOLD_WHEN.fullmatch(word) or _NTH.fullmatch(word) or _COUNTED.fullmatch(word)
    return bool(spoken) or word in _BARE_VERBS


def particulars(text: str) -> list[tuple[int, str]]:
    """(position, word) of the particular things `text` names: its places, its themes' words (遛狗), its
    nouns and its doings (刷酸, 存钱) — readers, times and the generic words above left out — and the set
    phrases jieba names as one (引体向上)."""
    named = [w for w in _theme_words(text) if w not in GENERIC_WORDS and w not in GENERIC_VERBS]
    found = [(text.find(w), w) for w in [*places(text), *named]]
    at = 0
    tagged = posseg(text)
    for i, (word, flag) in enumerate(tagged):
        if flag == "eng" and word.lower() not in _POST_WORDS:  # a product or an ingredient: VC, iPad, BCAA
            glued = tagged[i + 1][0] if i + 1 < len(tagged) and len(tagged[i + 1][0]) == 1 else ""
            if len(word) >= 2 or _HAN.fullmatch(glued):  # (one letter names a thing with its glued 醇: A醇)
                found.append((text.find(word, at), word + glued if len(word) == 1 else word))
        doing = flag in ("v", "vn") and word not in GENERIC_VERBS
        when = flag == "t" and not _DATES.fullmatch(word)  # 睡前 of 睡前流程, not 周末 or 上周
        # (an abbreviation is a thing too: 青旅, 盐帮)
        thing = flag[0] == "n" or flag == "j" or (flag == "l" and len(word) >= 3) or doing or when
        if len(word) >= 2 and thing and word not in GENERIC_WORDS and not _NOT_THINGS.search(word):
            found.append((text.find(word, at), word))
        # (a doing of two single characters is one too: 带猫, 遛狗, 养鱼)
        after = tagged[i + 1] if i + 1 < len(tagged) else ("", "")
        to_one = flag == "v" or (flag == "p" and word == "给")  # (…or what is done to one: 给猫剪指甲)
        one_animal = len(after[0]) == 1 and after[1] == "n" and bool(_ANIMAL.fullmatch(after[0]))
        if to_one and len(word) == 1 and one_animal:
            found.append((text.find(word, at), word + after[0]))
        at += len(word)
    return sorted(f for f in found if f[0] >= 0)


_ANIMAL = re.compile(r"[猫狗鱼鸟龟兔]")


def all_nouns(text: str) -> bool:
    """Is `text` nouns only (燃面, 甑糕, 卧铺火车; 双皮奶和鱼生), not a doing or a state (运营, 土笋冻 is
    土笋 + 冻)?"""
    tagged = posseg(text)
    return len(text) >= 2 and all(flag.startswith("n") or w in ("和", "与", "、") for w, flag in tagged)


def _hollow(topic: str) -> bool:
    """Does the topic name nothing particular of its own (only ways, parts and outcomes of something, or
    whom the post is for: 给应届生)?"""
    return len(topic) >= 2 and (not particulars(topic) or bool(_FOR_WHOM.fullmatch(topic)))


_FOR_WHOM = re.compile(rf"(?:写给|分享给|给|面向|针对)(?![我你自]){DONE_FOR}[^，,。的]{{1,8}}")


def _subject_of(clause: str) -> str:
    """The clause from the first particular thing it names: 上周第一次坐了十几个小时的卧铺火车 → 卧铺火车,
    五一打算去东江湖拍清晨的雾 → 东江湖拍清晨的雾; '' when it names none."""
    text = peel(clause)
    found = particulars(text)
    if not found:
        return ""
    subject = text[found[0][0] :].strip("的 ")
    # (whom one takes along is said with the taking, without their age: 带8岁儿子去敦煌 → 带儿子去敦煌)
    taken = re.search(r"带(?:[\d一二两三四五六七八九十]+岁半?的?)?$", text[: found[0][0]])
    return "带" + subject if taken and _TAKEN_ALONG.match(subject) else subject


_TAKEN_ALONG = re.compile(r"孩子|宝宝|娃|儿子|女儿|爸妈|父母|老人|家人|狗狗|猫咪")


# A trip's span and its kind, with nothing of where (两天一夜的路线, 三日游行程, 三天两晚怎么安排, 一周行程
# 怎么排)
# how many days (三天两晚, 5天, 两日)
_DAYS = r"[一二两三四五六七八九十\d]+[天日](?:[一二两三四五六七八九十\d]+[晚夜])?"
_ROUTE_ONLY = re.compile(
    rf"(?:{_DAYS}|半日|周末|[一二两三\d]个?(?:周|星期))?"
    r"(?:游)?的?(?:路线|行程)?(?:怎么|如何)?(?:路线|行程|攻略|安排|玩法|玩|排|走)(?:分享)?"
)


_GUIDE_END = re.compile(r"(?:攻略|路线|行程|指南|清单)$")
# only the going somewhere (第一次去清迈), and a span of days going there (周六一日游去桐庐)
_GOING = re.compile(r"(?:第一次|头一回|准备|打算)?(?:去|到|来)(?P<p>[\u4e00-\u9fff]{2,6})")
_SPAN_TO = re.compile(
    r"(?:周[六日末]|周末|国庆|五一|端午|清明|中秋|春节|假期|暑假|寒假)?"
    r"(?P<span>[一二两三四五六七八九十\d]+(?:日游|天[一二两三四五六七\d]?[夜晚]?))(?:去|到)(?P<p>[\u4e00-\u9fff]{2,6})"
)


def _theme_words(text: str) -> list[str]:
    """The theme trigger words `text` holds, longest first (考研 of 考研复习时间怎么安排)."""
    from tools.offline.lexicon import THEMES

    words = {w for theme in THEMES.values() for w in theme.triggers if len(w) >= 2 and w in text}
    return sorted(words, key=lambda w: (-len(w), text.find(w)))


def _any_trigger(text: str) -> bool:
    """Does `text` hold any theme's trigger word, one character ones too (兔 of 兔子笼)?"""
    from tools.offline.lexicon import THEMES

    return any(w in text for theme in THEMES.values() for w in theme.triggers)


# How or why the post is to be written, not what about: a manner (…的那种感觉就行) or a purpose for the
# readers (提醒大家注意安全, 让更多人知道)
_HOW_TO_WRITE = re.compile(
    r"(?:就行|就好|即可|就可以)$|(?:^|[^\u4e00-\u9fff]|笔记|文章|帖子|攻略)(?:提醒|告诉|让|帮助|帮)(?:一下)?"
    r"(?:大家|你们|新手|更多人|其他[\u4e00-\u9fff]{1,4}|各位[\u4e00-\u9fff]{0,4})"
    # a manner of writing (写得有点文艺, 语气别太官方, 接地气一点, 别写成流水账, 结构清楚一点)
    r"|^(?:写|讲|说)[得的]|^(?:语气|口吻|文风|风格|语言|整体|结构|排版|篇幅|字数)"
    r"|^(?:标题|正文|开头|结尾|标签|配图|封面)(?:要|要有|需要|得|最好|尽量|别|不要|吸引人|有|给|加|附|留|放|来|提)"
    r"|^(?:别|不要|不用|不想)(?:写|弄|搞)成|^(?:接地气|简洁|走心|真诚|幽默|活泼|文艺)(?:一点|一些|点)?$"
    # how many emoji, and how it should sound (多加点emoji, 少放表情, 口语化一点, 轻松一点)
    r"|emoji|表情|^(?:口语化?|轻松|俏皮|温柔|正式)(?:一点|一些|点)?$"
    # a form said by example (写成用前用后对比那种, 像朋友聊天那样)
    r"|(?:那种|那样|这种|的感觉|的形式)$"
    # only that it be written down, or in which style (想写下来给…参考, 写成vlog风格)
    r"|^(?:写|记|记录)(?:下来|出来)"
)
# a clause that only names the style (写成vlog风格): checked before its frame is peeled
# (…or the look wished for, beside the thing: 想要那种clean一点的风格)
_STYLE_ONLY = re.compile(
    r"^(?:写成|写出|弄成|写得|(?:想要|想弄成|喜欢)(?:那种|这种)?)[^，,。；;]{0,10}?(?:风格|文风|风|口吻|语气)$"
)
# the way a trip set out, before where it went (从上海开车去…), and a stay told (安吉住了两晚)
_SET_OUT_LEAD = re.compile(
    # (not a route's two ends: 从成都到重庆的高铁)
    r"^从(?P<p>[\u4e00-\u9fff]{2,4}?)(?:(?:开车|自驾|坐高铁|坐动车|坐飞机|坐火车|飞|出发)(?:去|到)|去)"
    r"(?=[\u4e00-\u9fff]{2})"
)
_STAYED = re.compile(
    r"(?P<p>[\u4e00-\u9fff]{2,4}?)(?:住|待|呆|玩)了(?P<n>[一二两三四五六七八九十\d]+)(?P<u>天|晚|夜)"
)
# readers called over (住杭州的朋友看过来, 油皮姐妹注意了): who it is for, no subject
_CALLED_OVER = re.compile(
    r"^[^，,。]{0,14}?(?:朋友|姐妹|宝子|人|党|家长|同学|宝妈|们)(?:看过来|看这里|注意了?|注意啦|听我说|快收藏)$"
)
# what the writer has just done, before the thing done (上周刚走完武功山穿越 → 武功山穿越)
_JUST_DONE = re.compile(  # (a time or a 刚 leads it: 吃完火锅怎么去味 keeps its 吃完)
    r"^(?=上|这|昨|前天|最近|今天|周末|刚|才)(?:(?:上|这)(?:周末?|个月)|昨天|前天|最近|今天|周末)?(?:刚刚?|才)?"
    r"(?:走|爬|去|玩|逛|跑|看|吃|学|做)完了?"
)
# …and for whose sake, at the clause's end or all of it (亲子游记给想带娃的家长参考, 给同处境的人一点力气)
_FOR_WHOSE_SAKE = re.compile(
    r"给[^，,。]{1,14}?(?:参考|一点力气|力气|鼓励|信心|动力|安慰|打气|看)$"
    # (…or only whom it is for, after the subject: 转行经验给想转行的人)
    r"|(?<=\S{2})给[^，,。]{1,12}?的(?:人|朋友|姐妹|同学|你|新人|宝子|小伙伴|宝妈|家长|爸妈|新手)们?$"
)
_TRAVELOGUE = re.compile(r"(?:亲子|旅行|旅游)?(?:游记|日记|记录)")

# A done deed that ends on its thing (连吃了三天燃面, 吃到了人生第一口甑糕, 做了虾仁蒸蛋): the thing, where
# the clause said
# What was had, counted (连吃了三天燃面 → 燃面, 两天吃遍双皮奶和鱼生) — not a deed or a role (做了五年程序员,
# 考上了研究生: the doing is the subject)
_DONE = re.compile(
    r"(?:(?<![做当考开学干上到成会完辞])(?:了|过)|(?<=[吃喝尝买]到)了|(?<=[吃逛玩走])遍)(?P<thing>[^了过，,]{2,14})$"
)
_COOKED_DISH = re.compile(
    r"(?:做|煮|烤|炖|包|蒸|卤|炸|烙|煎|腌|焖|熬|拌)了(?:一[锅份盘碗笼屉罐])?(?P<dish>[\u4e00-\u9fff]{2,8})$"
)
# (…or a bare measure word, its 一 dropped as it is said: 入了个自充气睡垫, 换了台洗碗机)
_HOW_MANY = re.compile(
    r"^(?:[个台款双套顶](?=[\u4e00-\u9fff]{2})|(?:人生)?(?:第)?[一二两三四五六七八九十几半\d]+(?:个)?(?:多)?"
    r"(?:小时|分钟|星期|天|周|月|年|次|口|碗|个|份|顿|趟|本|件|回|遍|晚|杯|盘|块|串|瓶|支|款|双|套|台|张|条|只"
    r"|锅|桌|道|袋|罐|盒|包|把|堆|些)?"
    r"(?:多)?的?)"
)

# Who the writer is (我是黄黑皮, 作为一个新手妈妈): the writer, not the subject
_WHO_I_AM = re.compile(r"^(?:我|本人)是|^(?:我|本人)?作为[^，,。的]{1,10}$")


# How the post should sound, said before its subject (写一篇轻松一点的咖啡探店): no part of it
_TONE_LEAD = re.compile(
    r"(?<=[写篇个份条])(?:轻松|口语化?|活泼|俏皮|温柔|正式|简短|详细|走心|真诚|幽默|文艺|搞笑)(?:一点|一些|点)?的"
)


# a reader named by what they want to do (给想转行产品经理的人, 写给准备考研的同学)
_READER_WISH = re.compile(
    r"^(?:写给|给|为)(?:想要?|准备|打算|正在|刚开始)(?P<x>[^，,。的]{2,8})的(?:人|朋友|姐妹|同学|你|新人|宝子|小伙伴|宝妈"
    r"|家长|爸妈)"
)
# what a question asks to be explained (什么是早C晚A, 玻尿酸是什么)
_WHAT_IS = re.compile(
    r"^(?:什么是|啥是|何为)(?P<x>[^，,。？?]{2,16})[？?]?$|^(?P<y>[^，,。？?]{2,16})(?:是什么|是啥)[？?]?$"
)
_PLAN_WORD = re.compile(r"(?:路线|计划|清单|指南|攻略|规划|方法|经验|书单|建议|入门)$")
# what the post must not be or say (别太鸡汤, 不要写外卖, 避免广告感): an instruction, never its subject — not
# 不用/不想, which name subjects too (不用烤箱的蛋糕, 不想上班的时候)
_REFUSED = re.compile(r"^(?:别|不要|避免|千万别|切记别|尽量别|尽量不要)")


# Parts of any trip or plan, two or more, with nothing of what it is (路线和装备攻略, 住宿和交通)
_ASPECT = (  # (…and of making a thing: 步骤和材料)
    "(?:路线|装备|住宿|交通|美食|预算|行程|天气|门票|费用|花费|注意事项|看点|亮点|玩法|步骤|材料|工具|配料|用料|做法|成本"
    "|尺寸)"
)
_ASPECTS_ONLY = re.compile(rf"(?:{_ASPECT}[和与、及]){{1,3}}{_ASPECT}(?:攻略|清单|指南|分享)?")
# Parts of owning or using any thing (说说噪音和日常照顾, 优缺点和适合什么家庭): the thing is in another
# clause
_USE_ASPECT = (
    r"(?:优缺点|优点|缺点|噪音|噪声|(?:日常)?(?:照顾|护理|保养|清洁)|(?:真实|使用)?(?:体验|感受)|值不值|性价比"
    r"|值不值得?(?:买|入手?|冲|用|去)?|值得(?:买|入手?|冲)吗?|续航|适合(?:什么|哪些|哪种|什么样的?)?(?:人|家庭|人群)|(?:身体|身材|皮肤|体重)?的?(?:变化|效果|成果)"
    # …or of any told stretch of work (考研二战上岸，分享我的时间安排和心态调整)
    r"|时间(?:安排|规划|分配)|心态(?:调整)?|作息|(?:复习|学习)(?:计划|方法|节奏|安排|习惯)|(?:备考|训练|工作)?节奏"
    r"|经验教训|心路历程)"
)
_USES_ONLY = re.compile(rf"(?:(?:{_ASPECT}|{_USE_ASPECT})[和与、及跟]){{0,3}}{_USE_ASPECT}")


def _untailed(text: str, *, framed: bool) -> str:
    """The text without what trails its subject (see `_TAIL`), and a kind of post asked for without the
    parts it must have (写成一篇食谱要有用量和步骤 → 食谱)."""
    while (tail := _TAIL.search(text)) and tail.start() >= 2:
        text = text[: tail.start()]
    kind = _KIND_WITH_PARTS.match(text) if framed else None
    return kind["kind"] if kind else text


def peel(clause: str) -> str:
    """A clause without its frame: '能不能帮我写一下新手化妆的步骤' → '新手化妆的步骤'."""
    if any(p.match(clause.strip()) for p in (_WHO_I_AM, _REFUSED, _STYLE_ONLY, _CALLED_OVER)):
        return ""
    text = _TONE_LEAD.sub("", STYLE.sub("", clause).strip())
    if what := _WHAT_IS.match(text):  # 什么是早C晚A: what it asks about is the subject
        # (…without the frame that asks it: 讲讲二区心率是啥)
        asked = (what["x"] or what["y"]).strip("的 ")
        return peel(asked) or asked
    wish = _READER_WISH.match(text)  # 给想转行产品经理的人写一篇学习路线: what they want is the subject's
    framed = False
    if made := _made_into(text):
        text, framed = made.group("what"), True
    while True:
        before = text
        for part in (_POLITE, _READER_FRAME, _MAKE, _TELL, _TO_READERS, _PLATFORM, _MY_LIST):
            match = part.match(text)
            if match and match.end():
                text, framed = text[match.end() :], True
        if made := _made_into(text):  # 帮我把这次厦门之行写成一篇游记: after the polite frame
            text, framed = made.group("what"), True
        # a count after a frame ("推荐几道…"), not a count that is the subject ("一个人的旅行")
        if framed and (count := _COUNT.match(text)):
            text = text[count.end() :]
        if text == before:
            break
    if framed and (what := _WHAT_IS.match(text)):  # 帮我写写什么是轻断食
        return (what["x"] or what["y"]).strip("的 ")
    middle = _MID_MAKE.search(text)
    # "给大学生写一篇租房指南": the subject follows the frame; "…写篇经验帖": it precedes it
    if middle and middle.start() > 0:
        after, head = peel(text[middle.end() :]), text[: middle.start()]
        text = after if len(after) >= 2 or _READER.match(head) else head
    text = _untailed(text, framed=framed)
    if _LABEL_ONLY.match(text) or (framed and (_CONTENT_NOUN.fullmatch(text) or _KIND_ONLY.fullmatch(text))):
        return ""  # "笔记主题：…", "整理成清单：…", "…？写一篇经验分享": the subject is in another clause
    if framed and _READER_PHRASE.fullmatch(text):
        return ""  # "写一篇笔记给刚入坑的朋友": only who it is for — the subject is in another clause
    if _HOW_TO_WRITE.search(text):
        return ""  # "讲讲…的那种感觉就行", "写成笔记提醒大家注意安全": how or why to write it, not what
    if purpose := _FOR_WHOSE_SAKE.search(text):  # 亲子游记给…家长参考: what is left, if anything
        text = text[: purpose.start()]
        kind_only = any(p.fullmatch(text) for p in (_CONTENT_NOUN, _KIND_ONLY, _TRAVELOGUE))
        if len(text) < 2 or (framed and kind_only):
            return ""
    if not _READER_ONLY.match(clause):
        stripped = _FOR_READER.sub("", text).strip("的 ")
        text = stripped if len(stripped) >= 2 else text
    if wish and framed and len(text) <= 6 and _PLAN_WORD.search(text) and wish["x"] not in text:
        text = wish["x"] + text
    return text.strip("的 ")


def manner_clause(clause: str) -> bool:
    """Does the clause only say how to write the post or what it must not be (口语一点, 不要写外卖)?"""
    clause = clause.strip()
    return bool(_HOW_TO_WRITE.search(clause) or _REFUSED.match(clause))


def asked_title(request: str) -> str:
    """The title the request names in quotes (帮我写一篇笔记，题目大概是《下班后什么时间练力量最不影响睡眠》),
    or ''."""
    found = _ASKED_TITLE.search(request)
    return found.group("t").strip() if found else ""


# a relative clause whose thing is left out (推荐几本我家翻烂了的): the thing is another clause's
_ELIDED = re.compile(r"[了过]的[。！!～~\s]*$")
# Only the answers to a question (分享几个得体的回答, 高情商的说法): the question is in the other clause
_ANSWERS_ONLY = re.compile(r"(?:[\u4e00-\u9fff]{1,5}的)?(?:回答|答案|说法|回复|答法)")


# the moves or things of some activity, not saying which (入门动作, 基础体式, 必备单品)
_PART_OF_DOING = re.compile(
    r"(?:入门|基础|简单|新手|常用|必备)?的?(?:动作|姿势|体式|招式|单品|用品|技巧|曲目|招数)"
)


def _of_the_other(topic: str, first: str, clauses: list[str]) -> str:
    """A topic that is only the form, the answer or the doing of what another clause names, with it:
    职场新人怎么写周报，分享我的模板 → 周报模板 (the form's thing, its last: 周报, not 职场);
    面试被问为什么离职，分享几个得体的回答 → 面试被问为什么离职怎么回答;
    深蹲膝盖疼是不是姿势不对？写篇新手纠正笔记 → 深蹲纠正. Any other topic is returned as it is."""
    others = [c for c in clauses if c != first]
    if _FORM_ONLY.fullmatch(topic):
        things = [w for c in others for w in sorted(_theme_words(c), key=c.rfind)]
        return (things[-1] if things else "") + topic
    # (not a label of only the theme and its season: 秋天穿搭，灯芯绒外套怎么配 is about the jacket)
    asked = next((p for c in others if particulars(p := peel(c)) and not _BARE_THEME.fullmatch(p)), "")
    if _ANSWERS_ONLY.fullmatch(topic) and asked:
        return asked + "怎么回答"
    if _PART_OF_DOING.fullmatch(topic):  # 新手在家练瑜伽一个月，推荐几个入门动作 → 瑜伽入门动作
        done = [w for c in others for w in _theme_words(c) if _any_trigger(w) and w not in topic]
        return (done[0] + topic) if done else topic
    doing = _WHO_WORD.sub("", topic)  # (新手纠正: the reader is no thing)
    plain = doing not in GENERIC_VERBS and not _CONTENT_NOUN.search(doing)  # (新手攻略 is a kind of post)
    if asked and plain and 2 <= len(doing) <= 3 and all(flag.startswith("v") for _, flag in posseg(doing)):
        # (what, not when: 小番茄 of 今年夏天在家种了小番茄)
        # (…and what the doing is done to, after its verb: 草莓 of 在阳台种了草莓, not 阳台)
        verb = asked.find(doing[0])
        # (…not the doing itself said otherwise: 骑车 of 骑行)
        what = [w for _, w in particulars(asked) if not (WHEN_WORD.fullmatch(w) or w[0] == doing[0])]
        what.sort(key=lambda w: verb < 0 or asked.find(w) < verb)
        thing = what[0] if what else particulars(asked)[0][1]
        return _whole_noun(thing, asked) + doing
    return topic


_USED_PRODUCT = re.compile(
    r"(?:用了|入了|买了|换了|入手了?|试了)(?:[一二两三四五六七八九十半\d]+个?(?:月|年|周|星期|天|次))?"
    r"(?P<thing>[A-Za-z][A-Za-z0-9 .+-]{2,30}[A-Za-z0-9])$"
)


# A kind of post said only by whom it is easy for (小白也能看懂的教程, 新手都能学会的版本): of another
# clause's thing
_EASY_KIND = re.compile(
    r"[^，,。的]{0,6}?(?:也|都)?能(?:看懂|看明白|学会|上手|照着做|做出来)的?(?:教程|攻略|笔记|指南|分享|清单|版本|步骤)"
)


# A thing bought or swapped for (入了个自充气睡垫, 换了个电动牙刷): what was had, whatever jieba makes of it
_BOUGHT = re.compile(r"(?:入|买|换|入手|添|收)了$")


def _had(thing: str, before: str) -> bool:
    """Is `thing`, after the done deed `before`, a thing had: nouns only, or — bought — a name that ends on a
    noun (自充气睡垫, 电动牙刷, which jieba reads as a preposition's or an idiom's)?"""
    if all_nouns(thing):
        return True
    tagged = posseg(thing)
    return bool(_BOUGHT.search(before)) and len(thing) >= 2 and tagged[-1][1][:1] in ("n", "l")


# A habit told as what was before (以前总拖到最后一天, 之前每天熬夜到两点) and the change a later clause tells
# (今年学了时间管理, 后来开始记账): the post tells of the change, the habit is its story
_BEFORE = re.compile(
    r"(?:以前|之前|过去|原来|从前)[^，,。]{0,4}?(?:总是?|老是?|经常|常常|每天|一直|动不动就|怎么都|死活)"
)
_CHANGED = re.compile(
    r"^(?:后来|今年|去年|这半年|这一年|最近|现在)?(?:开始|学了|学会了?|用了|试了|改用了?|换成了?|养成了?)"
    r"(?P<what>[^，,。了过]{2,8})$"
)


# (…or what was moved to a new mark: 把入睡调到9点半, 把体重降到100斤)
_MOVED_TO = re.compile(
    r"把(?P<what>[\u4e00-\u9fff]{2,4}?)(?:时间)?(?:调到|提前到|改到|固定在|控制在|降到|减到)"
)


def _changed(topic: str, clauses: list[str], first: str) -> str:
    """The change a later clause tells, for a topic that is only the habit before it — of the child the
    habit was, when it names one (娃以前晚上怎么都不肯睡，…把入睡调到9点半 → 娃入睡)."""
    if not _BEFORE.search(topic):
        return topic
    changes = (
        m["what"] for c in clauses if c != first and (m := _CHANGED.match(peel(c)) or _MOVED_TO.search(c))
    )
    change = next((w for w in changes if not WHEN_WORD.fullmatch(w) and not _SPAN_WORDS.fullmatch(w)), "")
    who = next((w for w in cut(topic) if _SICK_ONE.search(w) and not _SICK_ONE.search(change)), "")
    return who + change if change else topic


# What a doctor found the trouble told to be (去医院查出来是尿闭, 说是髂胫束综合征, 确诊是幼儿急疹): the post
# is of that, and of whose it was — a pet or a child the first clause names
# (…said to be one, when it is named as an illness: 说是髂胫束综合征 — not 医生说是无聊加换季, a cause)
_DIAGNOSED = re.compile(
    r"(?:医院|医生|兽医|检查|拍片|化验)[^，,。]{0,6}?(?:(?:查出来|检查出来|确诊|诊断)(?:是|为|出)?"
    r"(?P<ill>[\u4e00-\u9fff]{2,8}?)|说是(?P<named>[\u4e00-\u9fff]{1,7}(?:炎|症|病|综合征|感染|疹|结石|骨折|拉伤|扭伤"
    r"|积液|撕裂|过敏|障碍|衰竭|失调|不全|囊肿)))了?$"
)
_SICK_ONE = re.compile(r"(?:猫|狗|犬|兔|仓鼠|鹦鹉|龟)$|^(?:宝宝|孩子|娃|儿子|女儿)$")


def _diagnosed(topic: str, clauses: list[str], first: str) -> str:
    """The illness a later clause says was found, of whose it was, for a topic that tells its signs."""
    ill = next((m["ill"] or m["named"] for c in clauses if c != first and (m := _DIAGNOSED.search(c))), "")
    told = next((c for c in clauses if topic in c and not _DIAGNOSED.search(c)), "")
    if not ill or not told:
        return topic
    who = next((w for w in cut(told) if _SICK_ONE.search(w)), "")
    return who + ill


# What a recovery is after (做完绝育 of 术后护理, 拔完智齿 of 术后饮食): the procedure a clause says was done
_PROCEDURE = re.compile(r"(?:做|动|拔)(?:完|了)(?P<what>绝育|手术|智齿|牙|眼睛手术|近视手术|剖腹产|阑尾)")


def _after_what(topic: str, clauses: list[str], first: str) -> str:
    """A topic of the time after a surgery (术后护理) with the procedure another clause names (绝育术后
    护理); a recovery told (恢复日记) with the first thing another clause names (产后十个月… → 产后恢复
    日记)."""
    others = [c for c in clauses if c != first]
    if topic.startswith("术后"):
        done = next((m["what"] for c in others if (m := _PROCEDURE.search(c))), "")
        return done + topic
    if not _RECOVERY.fullmatch(topic):
        return topic
    of = next((t[0] for c in others if (t := things_in(peel(c)))), "")
    return of + topic if 2 <= len(of) <= 6 else topic


_RECOVERY = re.compile(r"(?:恢复|康复|复健)(?:日记|记录|经历|过程|笔记|心得)?")


def _told_subject(clauses: list[str]) -> str:
    """The first thing the clauses name (see `_subject_of`) — past a stay somewhere (在凯里待了两天) to what
    was had there, with where (吃了5家酸汤鱼 → 凯里酸汤鱼); '' when they name none."""
    # (…not whom it is written for: 写给刚毕业进体制内的学妹)
    subjects = [(c, s) for c in clauses if not _READER_ONLY.match(c.strip()) and (s := _subject_of(c))]
    stay = _STAY_ONLY.fullmatch(peel(subjects[0][0])) if subjects else None
    had = next((s for c, s in subjects[1:3] if _HAD_THERE.match(c)), "") if stay else ""
    if stay and had and stay["p"] in places(stay.group(0)) and len(stay["p"] + had) <= 8:
        return stay["p"] + had
    return subjects[0][1] if subjects else ""


# What was had or done at a place stayed in, counted (吃了5家酸汤鱼, 逛了三个夜市)
_HAD_THERE = re.compile(
    r"^(?:吃|喝|逛|打卡|试)了?(?:[一二两三四五六七八九十几\d]+[家个种碗次])?(?=[\u4e00-\u9fff])"
)


def _whole_noun(word: str, text: str) -> str:
    """`word` with the thing of a theme `text` names right after it, which it only qualifies (灯芯绒 →
    灯芯绒外套 of 灯芯绒外套怎么配) — not a thing of its own (深蹲 and 膝盖 of 深蹲膝盖疼)."""
    if _theme_words(word):
        return word
    end = text.find(word) + len(word)
    named = particulars(text)
    thing = next((after for at, after in named if at == end and _theme_words(after) == [after]), "")
    return word + thing if thing and len(word + thing) <= 8 else word


def _stay_and_theme(told: str, bare: str) -> str:
    """The told clause a bare theme word (美食攻略) gives way to — with the theme, when it tells only where
    and how long (去延吉吃了三天 → 延吉三天美食攻略)."""
    stay = _STAY_ONLY.fullmatch(told)
    if stay and (stay["p"] in places(told) or stay["p"] in divisions()):
        return stay["p"] + stay["span"] + bare
    return told


def _whose_question(first: str, topic: str, clauses: list[str]) -> tuple[str, str]:
    """(clause, subject) of a request whose subject is a question: what the question asks of is named in
    another clause (新手第一次养仓鼠，笼子、垫料和饮食要注意什么？ → the hamster's) — not where the question
    names a place (长沙两天怎么吃，美食攻略 is a Changsha guide, no 美食长沙)."""
    asked_of = topic[: a.start()] if (a := _ASKED_TAIL.search(topic)) else topic
    # (…and a way refused names nothing either: 北京爨底下村一日游，不开车怎么去 asks of the trip)
    refused = re.match(r"(?:不|别|不用|无需|没有?)(?=\S)", asked_of) is not None
    if len(asked_of) >= 2 and (refused or not particulars(asked_of)):
        # 带两岁宝宝坐五小时高铁，车上怎么哄: where the question is (车上) names nothing; the told clause does
        told_of = next((c for c in clauses if c != first and particulars(peel(c))), "")
        return (told_of, peel(told_of) + topic[len(asked_of) :]) if told_of else (first, topic)
    if _any_trigger(topic) or places(topic):
        return first, topic
    words = (w for c in clauses if c != first for w in _theme_words(c) if not _CONTENT_NOUN.search(w))
    return first, next(words, "") + topic  # the things asked about are the hamster's


def _kind_of_question(topic: str, asking: tuple[str, str]) -> tuple[str, str] | None:
    """(clause, subject) when the post asked for names only its kind of thing and the question what it is
    for (新手徒步需要准备什么？写一篇入门装备笔记 → 新手徒步装备); None when the post names its subject."""
    head = cut(topic)[-1] if topic else ""
    if _any_trigger(topic) or len(head) < 2 or _WHO_WORD.search(head):
        return None
    tail = _ASKED_TAIL.search(asking[1])
    whose = asking[1][: tail.start()] if tail else ""
    if not _any_trigger(whose) or head in whose:
        return None
    # (…the whole of it when its last word says only how: 哄睡方法, not 方法)
    # (…nor a count of them: 分享我常点的几样 → 减脂期外卖)
    counted = re.fullmatch(r"[几一二两三四五六七八九十\d]+[条款件个双支瓶本家道样种]", head)
    kind = "" if counted else topic if re.fullmatch(_HOW, head) else head
    # (…and what the kind of post is of, not the kind: 护理 of 护理教程 — 羊绒大衣起球护理)
    if _CONTENT_NOUN.fullmatch(head) and len(topic) - len(head) >= 2:
        kind = topic[: -len(head)]
    return asking[0], _HOLDS.sub("", re.sub(r"了$", "", whose)) + kind


# what a thing holds, asked (通勤包里都有什么): the thing is the subject, not its holding
_HOLDS = re.compile(r"(?<=\S{2})(?:里|中)?(?:都|还)?有$")


def extract_topic(request: str) -> str:
    """The subject of a request: '帮我写一篇周末城市露营的小红书笔记，面向上班族' → '周末城市露营'.

    English and mixed requests are read in Chinese first ('Write a post about hiking in Hangzhou' →
    '杭州徒步'); a clause that only names the reader or the kind of content is skipped."""
    request = localize(request).strip()
    labelled = _LABELLED.search(request)
    if labelled:
        named = peel(labelled.group("a") or labelled.group("b"))
        if len(named) >= 2:
            return _clip(named, 24)
    clauses = [c.strip() for c in CLAUSE.split(request) if c.strip()]
    if listed := _keyword_list(request):  # 溯溪 新手 装备 安全 清单: the words are the subject
        return _clip(listed, 24)
    # (a clause of only the reader, or only the theme's word as a label: 穿搭｜…)
    candidates = [
        c
        for c in clauses
        if not _READER_ONLY.match(c)
        and not (len(clauses) > 1 and (c in _theme_words(c) or PERSON_CLAUSE.match(c)))
    ] or clauses[:1]
    # the clause that asks for the post holds its subject ("我最近在减脂，帮我出一篇低卡便当的笔记"); else the
    # first clause with a subject left
    peeled = [(c, peel(c)) for c in candidates]
    # (not a thing of the other clause told with its name left out: 推荐几本我家翻烂了的)
    framed = [
        (c, t)
        for c, t in peeled
        if len(t) >= 2
        and t != STYLE.sub("", c).strip("的 ")
        # (whose it is is no frame: 我的区间是128到140 asks for nothing)
        and t != re.sub(r"^我们?(?:家)?的", "", c)
        and not _ELIDED.search(c)
        # (nor what to write of, said bare: 想写吃的 → 写吃, which the clause asking for the post names)
        and not re.fullmatch(r"写[\u4e00-\u9fff]{1,2}", t)
        and not _EASY_KIND.fullmatch(t)  # (nor how easy the kind of post is: 小白也能看懂的教程)
    ]
    # else a clause that asks what the post should answer (暑假幼小衔接要准备哪些东西？) before one that
    # tells a circumstance (孩子九月上一年级)
    asking = [(c, t) for c, t in peeled if (a := _ASKED_TAIL.search(t)) and a.start() >= 2]
    # (…or one that asks within it, with where or what it is about said before it: 阳台朝西，种什么花能活 →
    # 阳台种…)
    within = [(c, t, a.start()) for c, t in peeled if (a := _ASKED_WITHIN.search(t)) and a.start() >= 1]
    if within and not asking and not particulars(within[0][1][: within[0][2]]):
        asked_clause, question, _ = within[0]
        before = (w for c in clauses if c != asked_clause for w in _theme_words(c) if w not in question)
        within[0] = (asked_clause, next((w for w in before if not _CONTENT_NOUN.search(w)), "") + question, 0)
    told = next(iter(asking or [(c, t) for c, t, _ in within]), None) or _told_clause(peeled, clauses)
    first, topic = next(iter(framed), None) or told
    if not framed and asking:
        first, topic = _whose_question(first, topic, clauses)
    if (after := _after_label(request, first, topic)) is not None:  # 写一篇职场干货：试用期…聊转正
        first, topic = after
    # (not 去成都玩; but a kind said only by how it is written gives way to any: 可乐鸡翅，写个简单的菜谱)
    least = 2 if _WRITTEN_KIND.fullmatch(topic) else 6
    other = next(((c, t) for c, t in peeled if c != first and len(t) >= least), None)
    if _BARE_THEME.fullmatch(topic) and other:  # 顺德两天吃遍双皮奶和鱼生，写篇美食攻略笔记: 美食 is a theme
        # (…and what is wished is what is done: 想吃火锅和串串 → 吃火锅和串串)
        wished = re.sub(r"^(?:想|打算|准备|计划)(?=[吃去买看玩逛喝拍])", "", other[1])
        first, topic = other[0], _stay_and_theme(wished, topic)
    if framed and asking and (of_question := _kind_of_question(topic, asking[0])):
        first, topic = of_question
    asked = _ASKED_TAIL.search(topic)
    later_clause, later = next(
        ((c, m) for c in clauses if c != first and (m := _CONTENT_NOUN.search(c))), ("", None)
    )
    if asked and later and asked.start() >= 2:  # "露营需要准备什么？写个清单" → "露营清单"
        # (…with what the later clause says of it: 去三亚度假穿什么？列个穿搭清单 → 去三亚度假穿搭清单)
        said = re.sub(r"^(?:我们?家|我们?)的?", "", peel(later_clause))  # (我家的哄睡方法: whose goes)
        whole = said if said.endswith(later.group(0)) and len(said) <= len(later.group(0)) + 4 else ""
        # (…not what it holds, asked: 通勤包里都有什么？写篇好物分享 → 通勤包好物)
        topic = _HOLDS.sub("", topic[: asked.start()]) + (whole or later.group(0))
    elif asked and asked.start() >= 2 and "准备" in asked.group(0):  # …要准备哪些东西 → …准备
        topic = topic[: asked.start()] + "准备"
    if (counted := _TRIED_ONLY.search(topic)) and len(topic) - len(counted.group(0)) <= 4:
        # 梨形身材怎么挑牛仔裤，分享我试过的几条: the things counted are what the question chooses
        asked_for = next((t for c, t in peeled if c != first and _CHOOSING.search(t)), "")
        topic = _CHOOSING.sub("", asked_for) if asked_for else topic
    if _PLAN_ONLY.fullmatch(topic):  # 考研复习时间怎么安排，分享我的全年规划 → 考研全年规划: whose plan
        # (what is planned, not for whom: 辅食 of 宝宝六个月开始加辅食, not 宝宝)
        words = [w for c in clauses if c != first for w in _theme_words(c)]
        thing = next(iter(sorted(words, key=lambda w: bool(_WHOM.fullmatch(w)))), "")
        topic = thing + topic
    else:
        topic = _of_the_other(topic, first, clauses)
    topic = _diagnosed(_changed(_owned(topic, clauses, first), clauses, first), clauses, first)
    topic = _after_what(topic, clauses, first)
    # 武功山徒步两天一夜，写一篇路线和装备攻略: the trip is the subject; 养了一年的柯尔鸭，说说噪音和日常照顾:
    # the duck
    # (…a product used, named in Latin letters, before who uses it: 细软塌发质，用了一个月Dyson Airwrap)
    used = next((m["thing"] for c, t in peeled if c != first if (m := _USED_PRODUCT.search(t))), "")
    if _ASPECTS_ONLY.fullmatch(topic) or _USES_ONLY.fullmatch(topic):
        others = [t for c, t in peeled if c != first and len(t) >= 2 and not _ASPECTS_ONLY.fullmatch(t)]
        topic = used or next(iter(others), topic)
    if _hollow(topic):  # 想分享一下这个过程和用过的辅助方法: what it is the process of is said before
        topic = used or _told_subject([c for c in clauses if c != first]) or topic
    topic = _place_and_plan(topic, [t for c, t in peeled if c != first])
    # (not where a thing came from: 咸肉用的是金华的, 茶叶是朋友从福鼎寄来的)
    elsewhere = [
        p for c in clauses if c != first for p in places(c) if p not in topic and not _from_there(c, p)
    ]
    # (where the trip goes before where it sets out: 从上海坐高铁去厦门 is a Xiamen trip)
    elsewhere.sort(key=lambda p: bool(re.search(rf"从{re.escape(p)}", request)))
    # (…and the county or town named right after the place it lies in: 温州泰顺 is a trip to 泰顺, 山西吕梁的
    # 碛口古镇 one to 碛口古镇 — not a village named apart: 去了趟泉州 蟳埔村簪花… is a 泉州 trip)
    elsewhere = [_county_after(p, request) or _finest_after(p, elsewhere, request) for p in elsewhere]
    # 两天一夜的路线, 骑行加住宿攻略: a guide that says where only elsewhere
    short = len(topic) <= 6 or _ROUTE_ONLY.fullmatch(topic) or _GUIDE_END.search(topic)
    # (not a subject at home, whatever town its things came from: 去德化淘了茶具…，写家里茶角布置)
    at_home = re.search(r"家里|家中|我家|在家|居家", topic)
    # 带孩子去广汉三星堆，写个遛娃攻略 → 广汉遛娃攻略
    if elsewhere and not places(topic) and short and not at_home:
        # (…with how long, when only the plan is named: 三天两晚想去…，帮我排个行程 → 青岛三天两晚行程)
        span = _SPAN_WORDS.search(request) if topic in ("行程", "路线", "攻略") else None
        # (…or with what the trip goes there to do: 周末去杭州西湖边骑行，写一篇半日游路线 → 杭州西湖边骑行…)
        doing = _went_to_do([t for c, t in peeled if c != first]) if _ROUTE_ONLY.fullmatch(topic) else ""
        topic = (doing or elsewhere[0] + (span.group(0) if span else "")) + topic
    done = _DONE.search(topic)
    if done and _had(thing := _HOW_MANY.sub("", done["thing"]), topic[: done.end() - len(done["thing"])]):
        ahead = topic[: done.start()]
        # (a division jieba reads as a name: 顺德两天吃遍)
        spots = places(ahead) or [d for d in divisions() if len(d) >= 2 and ahead.startswith(d)][:1]
        where = next((p for p in spots if p not in thing), "")
        topic = where + thing  # 国庆回宜宾老家连吃了三天燃面 → 宜宾燃面
    topic = _aged(_unquoted(_cooked_dish(topic, request)), clauses)
    topic = _without_left_out(topic, request)
    if (this_job := _THIS_JOB.match(topic)) and (job := _JOB_TOLD.search(request)):
        topic = job["job"] + topic[this_job.end() :]  # 这份工作真实的一天 → 遗体整容师真实的一天
    if len(topic) <= 4 and (work := _WORK.search(request)) and work.group(0) not in topic:
        topic = work.group(0) + topic  # 帮我写篇读书笔记分享，书是《活着》 → 《活着》读书
    if len(topic) < 2:
        from tools.offline.text import keywords

        topic = "".join(keywords(request, 3)[:2]) or request[:12]
    return _clip(topic, 24)


_LEFT_OUT = re.compile(
    r"(?:不写|不要写|别写|不提|不要提|别提|不讲|不聊)(?P<x>[\u4e00-\u9fff]{2,6}?)(?=[，,。！!？?；;\s]|$)"
)


# a job the post points back to (讲讲这份工作真实的一天), and the job the request told (做遗体整容师第三年了)
_THIS_JOB = re.compile(r"^这(?:份|个|一)?(?:工作|职业|行业|行)的?")
_JOB_TOLD = re.compile(
    r"(?:做|当|干)了?(?P<job>[\u4e00-\u9fff]{2,8}?(?:师|员|工|医生|护士|老师|司机|律师|主播|编辑|记者|设计|运营|销售))"
    r"(?:第|的第|已经|快|[一二两三四五六七八九十\d]+年|$|\s)"
)


def _cooked_dish(topic: str, request: str) -> str:
    """A dish made, for a recipe asked: the dish (周末第一次做了可乐鸡翅…想写篇新手菜谱 → 可乐鸡翅); else the
    topic."""
    cooked = _COOKED_DISH.search(topic)
    if not cooked or not re.search(r"菜谱|食谱|做法", request) or re.match(r"[个只件张把]", cooked["dish"]):
        return topic
    return cooked["dish"] if list(posseg(cooked["dish"]))[-1][1].startswith("n") else topic


def _county_after(city: str, request: str) -> str:
    """The county or district of `city` named right after it (温州泰顺 → 泰顺), which jieba may not read as a
    place of its own; '' when none."""
    for found in re.finditer(re.escape(city), request):
        for size in (3, 2):
            name = request[found.end() : found.end() + size]
            # (a county, not a city's district: 成都武侯祠 is no trip to 武侯区)
            county = any(_county(code) for code in divisions().get(name, ()))
            if county and lies_in(name, city):
                return name
    return ""


def _town_or_division(name: str) -> bool:
    """Is the place a division (吕梁, 泰顺), a town or village a trip stays in (碛口古镇), a mountain it goes
    up (崂山 of 青岛崂山) or a town abroad (多洛米蒂) — not a city's sight (西湖) nor its district (a
    district's code ends under 21)?"""
    codes = divisions().get(name, ())
    abroad = name in _abroad_in()  # (a town abroad: 多洛米蒂)
    return abroad or any(c.endswith("00") or _county(c) for c in codes) or bool(
        re.search(r"(?:古镇|古城|古村|村|镇|岛|山)$", name)
    )


def _county(code: str) -> bool:
    """Is the adcode a county's (its last two digits from 21 on), not a city district's (01–20)?"""
    return int(code[4:]) >= 21


def _finest_after(place: str, named: list[str], request: str) -> str:
    """The place the request names right after the one that holds it, as far as the chain goes (山西吕梁的
    碛口古镇 → 碛口古镇); `place` itself when none follows it."""
    while inner := next(
        (q for q in named if q != place and re.search(f"{re.escape(place)}{_GONE_ON}{re.escape(q)}", request)
         and _lies_within(q, place) and _town_or_division(q)),
        None,
    ):
        place = inner
    return place


# What may stand between a place and the finer one the trip went on to (吕梁的碛口古镇, 福鼎爬了太姥山)
_GONE_ON = r"(?:的|[^，,。\s]{0,2}?(?:爬了?|登了?|去了?|到了?|逛了?))?"


def _lies_within(inner: str, outer: str) -> bool:
    """`lies_in`, and a sight of the prefecture a county named lies in (太姥山 of 宁德, said after 福鼎),
    and a town abroad of its country (多洛米蒂 of 意大利)."""
    city = landmark_cities().get(inner, "")
    return lies_in(inner, outer) or (bool(city) and lies_in(outer, city)) or _abroad_in().get(inner) == outer


@cache
def _abroad_in() -> dict[str, str]:
    """A town abroad → its country, as the world table lists them (大叻 → 越南)."""
    return {name: country for name, _, country in world_rows() if country}


def lies_in(inner: str, outer: str) -> bool:
    """Does division `inner` lie in division `outer` (泰顺 in 温州, 温州 in 浙江)? By their codes (6-digit
    adcodes: a province ends in 0000, a prefecture in 00) — a landmark by the division it lies in (碛口古镇 in
    临县, so in 吕梁 and 山西)."""
    table = divisions()
    if inner not in table and (city := landmark_cities().get(inner)):
        return city == outer or lies_in(city, outer)
    return any(a != b and division_contains(b, a) for a in table.get(inner, ()) for b in table.get(outer, ()))


def _without_left_out(topic: str, request: str) -> str:
    """The topic without what the request says the post leaves out (但这篇不写簪花: a 泉州 food post)."""
    for left_out in _LEFT_OUT.findall(request):
        if left_out in topic and len(topic) - len(left_out) >= 2:
            topic = topic.replace(left_out, "")
    return topic


def _from_there(clause: str, place: str) -> bool:
    """Does the clause say only that a thing came from `place` (咸肉用的是金华的, 从福鼎寄来的)?"""
    at = re.escape(place)
    return bool(
        re.search(rf"(?:用的是|是|买的|选的)[^，,。]{{0,4}}?{at}(?:产)?的$", clause)
        or re.search(rf"从{at}(?:的[^，,。]{{1,6}}?)?(?:寄|带|买|发|运)", clause)
    )


# A quoted title and the kind of post it is for (《为什么我建议新手先别买单反》的笔记, “几点去西湖看日出最美”
# 的自律分享帖): the words inside are the subject
_QUOTED = re.compile(r"^[《「“\"『](?P<x>[^》」”\"』]{2,30})[》」”\"』](?P<rest>.*)$")
_WORK = re.compile(r"《[^》]{1,16}》")
_KIND_MOD = r"(?:育儿|自律|科普|干货|经验|种草|避坑|入门|分享|知识|生活|攻略|探店|小)"
# …and a question told as the subject, then the kind of post (租房时一定要检查哪些地方的攻略)
_KIND_AFTER = re.compile(
    rf"的{_KIND_MOD}{{0,2}}(?:笔记|帖子|帖|贴|图文|种草文|文案|科普|攻略|游记|指南|测评|技巧|朋友圈|小红书|分享|推荐)$"
)
# the writer telling how they did it (我是怎么三个月减掉十五斤的): what was done is the subject
_MY_WAY = re.compile(r"^我(?:是)?(?:怎么|如何)(?=.{4,})")


# a kind of post said only by how it is written (写个详细菜谱, 来篇真实测评): no subject of its own
_WRITTEN_KIND = re.compile(
    r"(?:详细|简单|完整|真实|实用|超详细|详尽|家常|私房|快手|懒人|新手版?)的?(?:菜谱|食谱|教程|测评|做法|攻略|笔记)"
)
# a theme's bare word and a kind of post (美食攻略, 旅行笔记, 穿搭分享, 职场帖): no subject of its own
_BARE_THEME = re.compile(  # (…or with only its season: 秋冬穿搭，一件灰色大衣的五种搭法)
    r"(?:美食|旅行|穿搭|护肤|美妆|健身|家居|育儿|职场|宠物|户外|萌宠)帖|"
    r"(?:(?:春夏|秋冬|春季|夏季|秋季|冬季|春天|夏天|秋天|冬天|夏日|冬日)(?=\S{2}))?"
    r"(?:美食|旅行|旅游|穿搭|搭配|护肤|美妆|健身|运动|家居|育儿|职场|职业|宠物|户外|萌宠|改造|装修)"
    r"(?:攻略|笔记|分享|心得|经验|推荐|合集|清单|指南|日记|记录|思路|方案)+"
    r"|职业|改造|装修"  # (…or alone, the kind peeled off: 写篇职业分享)
    # (…or a kind of post said only by how it is written: 写个详细菜谱, 来篇真实测评)
    rf"|{_WRITTEN_KIND.pattern}"
    r"|(?:春夏|秋冬|春季|夏季|秋季|冬季|春天|夏天|秋天|冬天|夏日|冬日)"
    r"(?:美食|穿搭|护肤|美妆|健身|运动|家居|育儿|户外)"
)


def _aged(topic: str, clauses: list[str]) -> str:
    """A topic of only who and how old, with what the clause after it tells (孩子三岁，挑食不吃青菜 →
    孩子三岁挑食不吃青菜): the age says whose the matter is, not what."""
    if not _AGE_ONLY.fullmatch(topic):
        return topic
    at = next((i for i, c in enumerate(clauses) if topic in c), -1)
    if at < 0 or at + 1 >= len(clauses):
        return topic
    following = peel(clauses[at + 1])
    return topic + following if len(following) >= 2 and not _READER_ONLY.match(following) else topic


def _went_to_do(others: list[str]) -> str:
    """The place another clause goes to and what it does there (周末去杭州西湖边骑行 → 杭州西湖边骑行);
    '' when none says a doing of its own (去大理玩 is only going there)."""
    for text in (_WENT.sub("", t) for t in others):
        named = places(text)
        rest = text[len(named[0]) :] if named and text.startswith(named[0]) else ""
        only_going = re.fullmatch(r"玩玩?|逛逛?|走走|看看|旅游|旅行|度假|出差", rest)
        if len(text) <= 9 and len(rest) >= 2 and not only_going:
            return text
    return ""


_WENT = re.compile(r"^(?:周末|假期|五一|国庆|第一次|想|打算|准备)*(?:去|到)")
_SPAN_WORDS = re.compile(_DAYS)
# a stay told with nothing of what it was (去延吉吃了三天, 在大理待了一周)
_STAY_ONLY = re.compile(
    r"(?:第一次)?[去在到]?(?P<p>[\u4e00-\u9fff]{2,5}?)(?:吃|玩|逛|待|住|呆)了?"
    r"(?P<span>[一二两三四五六七八九十\d]+(?:天|晚|日|周)(?:[一二两三四五六七八九十\d]+[晚夜])?)"
)
# a reader, not a thing (整理成一篇新手笔记)
_WHO_WORD = re.compile(r"新手|小白|萌新|宝妈|学生党|上班族|打工人|女生|男生|大学生|朋友|大家")


def _place_and_plan(topic: str, others: list[str]) -> str:
    """Going somewhere and the plan or the guide another clause names, or a span of days going there, as
    one subject: 第一次去清迈，五天行程 → 清迈五天行程, 去成都，美食攻略 → 成都美食攻略, 周六一日游去桐庐 →
    桐庐一日游."""
    going = _GOING.fullmatch(topic)
    plan = next((t for t in others if _ROUTE_ONLY.fullmatch(t)), "") if going else ""
    # (…or a short guide of no place: 第一次去新疆喀纳斯，秋天拍照攻略 → 新疆喀纳斯秋天拍照攻略)
    plan = plan or next((t for t in others if len(t) <= 8 and _GUIDE_END.search(t) and not places(t)), "")
    if going and plan and "".join(places(going.group("p"))) == going.group("p"):
        return going.group("p") + plan
    if (trip := _SPAN_TO.fullmatch(topic)) and places(trip.group("p")) == [trip.group("p")]:
        return trip.group("p") + trip.group("span")
    return topic


def _a_place(name: str) -> bool:
    """Is `name` a place where it is gone to (安吉, which jieba alone reads as a person's name)?"""
    return places(f"去{name}") == [name]


def _unquoted(topic: str) -> str:
    if (quoted := _QUOTED.match(topic)) and len(quoted.group("rest")) <= 8:
        topic = quoted.group("x")
    if (kind := _KIND_AFTER.search(topic)) and kind.start() >= 4:
        topic = topic[: kind.start()]
    topic = _MY_WAY.sub("", topic)
    just = _JUST_DONE.match(topic)  # (上周刚走完武功山穿越 → 武功山穿越)
    topic = topic[just.end() :] if just and just.end() and len(topic) - just.end() >= 4 else topic
    # where the trip set out from is no part of it (从上海开车去安吉住了两晚 → 安吉两晚)
    lead = _SET_OUT_LEAD.match(topic)
    if lead and len(topic) - lead.end() >= 2 and _a_place(lead.group("p")):
        topic = topic[lead.end() :]
    stayed = _STAYED.fullmatch(topic)
    if stayed and _a_place(stayed.group("p")):
        return stayed.group("p") + stayed.group("n") + stayed.group("u")
    return topic


_KEYWORD = re.compile(r"[\u4e00-\u9fffA-Za-z0-9]{1,8}")


def _keyword_list(request: str) -> str:
    """A request of only keywords between spaces (小个子155 冬季大衣 长度 选购笔记), joined without the
    frame's words; '' for a request in sentences."""
    words = request.split()
    if len(words) < 3 or not all(_KEYWORD.fullmatch(w) for w in words):
        return ""
    if any(re.search(r"帮我|帮忙|写|想|给|去|在|了|过", w) for w in words):
        return ""  # (short clauses of a sentence told between spaces: 第一次去成都 想吃火锅和串串 …)
    kept = [peel(w) if len(peel(w)) >= 2 else w for w in words]
    kept = [w for w in kept if not _LABEL_ONLY.match(w) and not _KIND_ONLY.fullmatch(w)] or kept
    if _CONTENT_NOUN.fullmatch(words[-1]) and kept[-1] != words[-1]:
        kept.append(words[-1])  # …装备 安全 清单: a list of them
    return "".join(kept)


# the kind of a post after its theme's word (职场干货, 穿搭笔记, 护肤分享)
_KIND_AFTER_THEME = re.compile(
    r"(?:的)?(?:干货|知识|技巧|经验|心得|攻略|笔记|分享|清单|科普|建议|合集|小贴士|贴士|小技巧|指南)$"
)
# …or a doing as broad as a theme (出行小贴士: any trip's)
_BROAD = frozenset({"出行", "生活", "日常", "居家", "学习", "工作", "省钱", "安全", "健康", "通勤"})


def _after_label(request: str, first: str, topic: str) -> tuple[str, str] | None:
    """A topic of only the theme and the kind of post, followed by a colon (写一篇职场干货：试用期…): the
    subject is what the colon introduces — its first clause with a subject (the clause and its
    topic); None for any other topic."""
    at = request.find(first)
    rest = request[at + len(first):] if at >= 0 and first else ""
    if not rest.startswith(("：", ":")):
        return None
    bare = _KIND_AFTER_THEME.sub("", topic)
    if bare and bare not in _theme_words(bare) and bare not in _BROAD:
        return None
    for clause in (c.strip() for c in CLAUSE.split(rest[1:])):
        if len(subject := peel(clause)) >= 2:
            return clause, subject
    return None


def _clip(topic: str, limit: int) -> str:
    """At most `limit` characters, never cutting an English word in two ("shel" of "shelter")."""
    if len(topic) <= limit:
        return topic
    cut = topic[:limit]
    if re.match(r"[A-Za-z]", topic[limit]) and re.search(r"[A-Za-z]$", cut):
        cut = re.sub(r"[A-Za-z]+$", "", cut).rstrip() or cut
    return cut
