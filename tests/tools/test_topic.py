"""The subject of a request, with its frame (politeness, a verb of making or telling, a count, a platform
noun, a style, a reader, a label) peeled off — over many ways of asking."""

from __future__ import annotations

import pytest

from tools.entities import places
from tools.offline.topic import extract_topic


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("把这个写成一篇小红书笔记：秋天的桂花糕做法", "秋天的桂花糕做法"),
        ("推荐几道上班族的快手菜", "上班族的快手菜"),
        ("给我来一篇关于猫咪绝育前后注意事项的笔记", "猫咪绝育前后注意事项"),
        ("我想发一篇小红书，主题是周末在家做寿司", "周末在家做寿司"),
        ("能不能帮我写一下新手化妆的步骤", "新手化妆的步骤"),
        ("写一篇笔记吧：冬天怎么穿得又暖又好看", "冬天怎么穿得又暖又好看"),
        ("以“独居女生的安全感”为主题写一篇笔记", "独居女生的安全感"),
        ("请用轻松的语气写一篇关于夜跑的分享", "夜跑"),
        ("种草几款平价又好用的洗面奶", "平价又好用的洗面奶"),
        ("来篇小红书：成都周末去哪吃火锅", "成都周末去哪吃火锅"),
        ("我家狗狗挑食怎么办，写篇经验帖", "我家狗狗挑食怎么办"),
        ("整理成清单：搬家前要做的十件事", "搬家前要做的十件事"),
        ("用小红书的风格介绍一下景德镇", "景德镇"),
        ("想写个帖子讲讲考研复试的准备", "考研复试的准备"),
        ("给刚毕业的大学生写一篇租房避坑指南", "租房避坑指南"),
        ("西安三天两晚怎么玩，帮我写个攻略", "西安三天两晚攻略"),
        ("分享一下我的极简衣橱，给想断舍离的人", "极简衣橱"),
        ("笔记主题：新手养多肉的五个误区", "新手养多肉的五个误区"),
        ("我最近在减脂，帮我出一篇低卡便当的笔记", "低卡便当"),
        ("给新手妈妈推荐几款好用的婴儿推车", "好用的婴儿推车"),
        ("写点东西：北京胡同里的小众咖啡馆", "北京胡同里的小众咖啡馆"),
        ("帮我写条小红书，讲一下怎么用旧物改造阳台", "怎么用旧物改造阳台"),
        ("能写一篇关于猫咪换粮的经验吗", "猫咪换粮的经验"),
        ("请帮我出一份第一次带猫坐飞机的准备清单并配图", "第一次带猫坐飞机的准备清单"),
        ("周末去莫干山露营，帮我写一篇", "周末去莫干山露营"),
        # a clause naming only the kind of post holds no subject
        ("上班族如何利用午休时间健身？写一篇经验分享", "上班族如何利用午休时间健身"),
        ("考研上岸，写一篇心得", "考研上岸"),
        ("给猫咪在家洗澡的经验分享", "给猫咪在家洗澡"),  # 给 whom an act is done is no reader
        ("帮我写一篇周末城市露营的小红书笔记，面向上班族", "周末城市露营"),
    ],
)
def test_the_frame_is_peeled_off(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("一个人的旅行要注意什么？帮我写成攻略", "一个人的旅行攻略"),
        ("坚持做一个月平板支撑的变化", "坚持做一个月平板支撑的变化"),
        ("做一个人的火锅", "一个人的火锅"),
        ("推荐三个周末好去处", "周末好去处"),
        ("能量早餐的做法分享", "能量早餐的做法"),  # 能 asks only before a verb
    ],
)
def test_a_count_that_is_part_of_the_subject_stays(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


def test_a_place_named_in_another_clause_joins_a_short_topic() -> None:
    """The clause that asks for the post holds the kind of post; the place it is about may be in another."""
    assert extract_topic("带孩子去广汉三星堆博物馆，写个遛娃攻略") == "广汉遛娃攻略"
    assert extract_topic("去成都玩，写一篇美食攻略") == "成都美食攻略"
    assert extract_topic("我最近在减脂，帮我出一篇低卡便当的笔记") == "低卡便当"  # no place: as it was


def test_a_plan_alone_takes_its_thing_from_another_clause() -> None:
    assert extract_topic("考研复习时间怎么安排，分享我的全年规划") == "考研全年规划"
    assert extract_topic("职场新人怎么写周报，分享我的模板") == "周报模板"  # the form of what is written
    assert extract_topic("长沙两天怎么吃，美食攻略") == "长沙两天美食攻略"  # no 美食长沙


def test_a_clause_that_only_names_the_reader_holds_no_subject() -> None:
    assert extract_topic("新手怎么挑第一双徒步鞋？写一篇笔记给刚入坑的朋友") == "新手怎么挑第一双徒步鞋"
    # a reader before the subject stays a frame
    assert extract_topic("写一篇适合新手的猫咪驱虫攻略") == "猫咪驱虫攻略"


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("养了三年柯基，说说掉毛和减肥的那些事", "柯基掉毛和减肥"),  # a doing, said of the pet
        ("新手在家做红烧肉，不柴不腻的做法分享", "不柴不腻的红烧肉"),  # a trait, said of the dish
        ("小个子女生冬天怎么穿大衣显高，分享几套穿搭", "小个子穿搭"),  # the bare theme word
        ("去年养了一只布偶猫，说说它的那些事", "布偶猫"),  # nothing but the thing
    ],
)
def test_a_topic_with_no_thing_of_its_own_takes_the_thing_another_clause_names(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


def test_a_topic_with_its_own_thing_stays_as_it_is() -> None:
    assert extract_topic("周末去了趟菜市场，分享一道番茄牛腩的做法") == "番茄牛腩的做法"
    assert extract_topic("我最近在减脂，帮我出一篇低卡便当的笔记") == "低卡便当"


def test_platform_words_are_segmented_whole() -> None:
    """jieba's dictionary lacks the platform's words; the studio's one segmenter adds them."""
    from tools import segmenter

    assert segmenter.cut("油皮夏天底妆持妆测评") == ["油皮", "夏天", "底妆", "持妆", "测评"]
    assert "柯基" in segmenter.cut("柯基掉毛和减肥") and "掉毛" in segmenter.cut("柯基掉毛和减肥")
    assert ("柯基", "n") in segmenter.posseg("养了三年柯基")


def test_the_theme_follows_the_pet_or_the_job_the_request_names() -> None:
    from tools.offline.text import detect_theme

    assert detect_theme("养了三年柯基，说说掉毛和减肥的那些事").key == "pets"
    assert detect_theme("应届生第一次谈薪资，我踩过的坑").key == "career"


def test_a_scene_whose_tips_are_steps_keeps_their_order() -> None:
    from tools.offline.voice import scene_tips

    braise = scene_tips("food", "不柴不腻的红烧肉", "新手在家做红烧肉")
    assert braise.ordered and "焯水" in braise[0] and "收汁" in braise[-1]
    assert not scene_tips("beauty", "油皮夏天底妆", "油皮夏天底妆持妆测评").ordered


def test_a_pet_scene_needs_a_pet() -> None:
    """掉毛 of a sweater and 减肥 of a person are no pet's: the pet scenes say so by their patterns."""
    from tools.offline.voice import scene_tips

    assert "梳" in "".join(scene_tips("pets", "柯基掉毛", "养了三年柯基，说说掉毛"))
    assert not any("梳" in t for t in scene_tips("fashion", "毛衣掉毛", "毛衣掉毛怎么办"))
    assert not any("肋骨" in t for t in scene_tips("fitness", "跑步减肥", "跑步减肥怎么吃"))


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("去建水连吃了三天烧豆腐，写篇笔记分享一下哪几家最好吃", "烧豆腐"),  # which of the thing
        ("头皮出油还掉发到底该用什么洗发水？帮我写篇三款对比测评", "洗发水"),
        ("桨板第一次下水要注意哪些？整理成一篇新手笔记", "桨板"),  # a reader alone holds no subject
        ("养了三年垂耳兔，说说换毛季的那些事", "垂耳兔换毛季"),  # the stories of the rabbit's moult
        ("带五岁娃去德化捏陶瓷，分享一下我们的亲子一日游", "德化亲子一日游"),  # 我们的 is whose
        ("周末去了趟菜市场，分享一道番茄牛腩的做法", "番茄牛腩的做法"),  # a dish of its own stays
    ],
)
def test_a_topic_that_says_only_which_or_whose_takes_the_other_clause_s_thing(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


def test_a_dish_named_after_its_origin_names_no_place() -> None:
    from tools.entities import places

    assert places("在家复刻一碗重庆小面，调料比例帮我写清楚") == []
    assert places("去重庆吃了一碗重庆小面") == ["重庆"]  # …unless the place is named as a place too


def test_a_scene_for_readers_the_request_does_not_name_is_not_its_scene() -> None:
    from tools.offline.voice import scene_tips

    train = scene_tips("lifestyle", "长途高铁出行小技巧", "坐八小时高铁怎么才能睡得好？写篇高铁出行小技巧")
    assert not any("孩子" in t or "母婴" in t for t in train)
    milk = scene_tips("parenting", "宝宝厌奶期应对", "写给新手妈妈：宝宝厌奶期的应对经验")
    assert milk and not any("行程" in t or "推车" in t for t in milk)


@pytest.mark.parametrize(
    ("theme", "subject", "request_text", "said"),
    [
        # a scene of its own before the broad one (家常菜's stir-fry advice is no 煲仔饭's)
        ("food", "腊肠煲仔饭", "第一次做广式腊肠煲仔饭，步骤分享", "锅巴"),
        # the thing said last is what it is about: the pet's trip, not the train (nor the cat at home)
        ("pets", "第一次带猫坐高铁回老家", "第一次带猫坐高铁回老家", "航空箱"),
        # a baby's fever is no pet's visit to the vet
        ("parenting", "宝宝发烧38度要去医院", "宝宝发烧38度要去医院吗", "体温"),
        ("travel", "长途高铁出行小技巧", "坐八小时高铁怎么才能睡得好？写篇高铁出行小技巧", "颈枕"),
    ],
)
def test_a_request_of_a_common_kind_gets_its_own_scene(
    theme: str, subject: str, request_text: str, said: str
) -> None:
    from tools.offline.voice import scene_tips

    assert said in "".join(scene_tips(theme, subject, f"{request_text} {subject}"))


def test_a_scene_is_not_borrowed_for_a_look_at_it() -> None:
    """迪士尼穿搭 is an outfit post, not a day at the park; a sea swim is the beach's, not the pool's."""
    from tools.offline.voice import scene_tips

    assert not any("排" in t for t in scene_tips("fashion", "迪士尼穿搭", "迪士尼穿搭"))
    assert "救生员" in "".join(scene_tips("travel", "三亚海边游泳", "三亚海边游泳注意事项"))


def test_a_kind_of_post_alone_takes_the_other_clause_s_dish() -> None:
    assert extract_topic("第一次做广式腊肠煲仔饭，步骤分享") == "腊肠煲仔饭"


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        # what the process, the lessons or the gear are of is told in the clause before
        ("我学了两个月双杠臂屈伸，想分享一下这个过程和踩过的坑", "双杠臂屈伸"),
        ("去年冬天第一次坐了三十个小时的绿皮火车硬座，记录一下这段经历和收获", "绿皮火车硬座"),
        ("下个月打算去千岛湖骑环湖绿道，帮我写一篇骑行加住宿攻略", "千岛湖骑行加住宿攻略"),  # …where
        ("我是干皮，这一年换了五瓶面霜，写篇测评分享给同样干皮的姐妹", "面霜"),  # what was done: its thing
        ("兔子笼里的干草怎么选？写篇攻略给新手兔主", "兔子笼里的干草攻略"),
        # a topic of its own is kept: a doing (刷酸), a time of day (睡前) names the subject too
        ("油痘肌夏天什么时间刷酸比较好？分享一下我的刷酸流程", "刷酸流程"),
        ("孩子几点睡觉最合适？分享我家的睡前流程", "睡前流程"),
    ],
)
def test_a_topic_of_only_ways_parts_or_readers_takes_the_thing_another_clause_names(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


def test_a_dish_keeps_its_one_character_head_and_a_doing_for_a_pet_is_no_reader() -> None:
    from tools.offline.drafting import subject_of
    from tools.offline.text import extract_audience

    assert extract_topic("在家做玉米排骨汤，清甜不腻的做法分享") == "清甜不腻的玉米排骨汤"  # not …排骨
    assert extract_audience("养狗五年，总结一下给狗洗澡踩过的坑") is None  # 给狗洗澡 is a doing
    assert subject_of("给狗洗澡踩过的坑", "") != "坑"
    assert subject_of("我学会的向上汇报", "") == "向上汇报"  # what I learned is the thing


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("帮我写阳台种菜的笔记", "阳台种菜"),  # 写 right before the subject, the kind of post at the end
        ("写一篇周报的写法", "周报的写法"),  # 一篇 before 周报 is a count of posts, not of weeks
        ("写真拍摄攻略", "写真拍摄攻略"),  # 写真 is no verb of writing
        ("作为新手妈妈的第一年", "作为新手妈妈的第一年"),  # who the writer is, said as the subject itself
        ("我是干皮，写篇秋冬面霜测评", "秋冬面霜测评"),  # 我是干皮 only says who writes
    ],
)
def test_the_ask_is_peeled_however_it_is_worded(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


def test_a_quick_soup_gets_no_simmered_broth_steps() -> None:
    """焯水 and an hour's simmer are a bone broth's steps, not a tomato-and-egg soup's."""
    from tools.offline.voice import scene_tips

    assert not any("焯水" in t for t in scene_tips("food", "番茄蛋花汤", "十分钟番茄蛋花汤"))
    assert any("焯水" in t for t in scene_tips("food", "玉米排骨汤", "冬天炖一锅玉米排骨汤"))


def test_a_direct_answer_quotes_only_notes_on_the_question_s_subject() -> None:
    """The offline answer drops a note that shares no word of the subject (晒后修复 for 婺源晒秋) and, with
    none left, says the library has nothing and offers the post."""
    import random

    from tools.offline.context import Context
    from tools.offline.writing import compose_answer

    sunburn = {"title": "晒后修复｜海边玩完脸红脱皮", "desc": "三天停用功效型产品，先补水。", "tags": []}
    cat = {"title": "领养流浪猫回家，第一个月要注意", "desc": "别强行抱它，给它一个纸箱躲着。", "tags": []}

    def answer(question: str, notes: list[dict[str, object]]) -> str:
        sections = {"question": question, "notes": notes}
        return compose_answer(Context("answer", sections, "", None, random.Random(1)))

    wuyuan = answer("秋天去婺源看晒秋，三天两晚怎么安排", [sunburn])
    assert "晒后修复" not in wuyuan and "没有直接相关" in wuyuan and "写一篇" in wuyuan
    adopted = answer("领养了一只流浪猫，第一周要准备什么", [sunburn, cat])
    assert "纸箱" in adopted and "晒后修复" not in adopted


def test_a_direct_answer_gives_each_note_s_advice_not_its_author_s_story() -> None:
    import random

    from tools.offline.context import Context
    from tools.offline.writing import compose_answer

    skirts = {
        "title": "梨形身材夏天穿什么？5条裙子亲测",
        "desc": "我是典型的梨形身材，上身瘦胯宽大腿粗。亲测好穿的5种：1. A字中长裙，遮住胯部；"
        "2. 高腰伞裙，长度到小腿中间最显瘦；",
        "tags": ["梨形身材"],
    }
    jeans = {
        "title": "牛仔裤怎么选？梨形腿粗亲测不踩雷",
        "desc": "买了不下二十条牛仔裤之后，终于找到适合梨形身材的款式。首选高腰直筒款，能遮住大腿外侧的肉；"
        "颜色选中蓝和深蓝，比浅蓝更显瘦。",
        "tags": ["牛仔裤", "梨形身材"],
    }
    coats = {
        "title": "微胖女生秋冬怎么穿才显瘦？",
        "desc": "几个显瘦技巧：1. 外套选H型或者茧型，不要选收腰太紧的；2. 深色打底。",
        "tags": ["显瘦"],
    }
    sections = {"question": "梨形身材秋天怎么穿显瘦", "notes": [skirts, jeans, coats]}
    answer = compose_answer(Context("answer", sections, "", None, random.Random(1)))
    points = [ln for ln in answer.splitlines() if ln[:1].isdigit()]
    assert len(points) == 3
    assert "高腰伞裙" in points[0] and "中蓝" in points[1]  # not 我是典型…, not 买了…终于找到…
    assert points[2].startswith("3. 外套选H型") and points[2].count("。") == 1  # no 几个显瘦技巧：1.


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("腌糖蒜一般要腌多长时间？把我家祖传的做法写成一篇笔记", "祖传糖蒜"),  # whose way, of the thing
        ("想去武功山徒步看高山草甸，帮我写个两天一夜的路线分享", "武功山两天一夜的路线"),  # where
    ],
)
def test_whose_way_and_a_route_take_their_thing_and_place_from_another_clause(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


def test_a_long_subject_drops_its_season_before_a_word() -> None:
    from tools.offline.drafting import subject_of

    assert subject_of("青岛八大关秋天拍照穿搭", "") == "青岛八大关拍照穿搭"  # not 青岛八大关秋天拍照
    assert subject_of("面试被问到期望薪资时的回答技巧", "").startswith("面试被问到期望薪资")
    assert subject_of("健身新手的全身训练计划", "") == "全身训练计划"  # says what it trains: it stays


def test_a_panda_is_no_cat() -> None:
    from tools.entities import readers

    assert readers("成都熊猫基地攻略") == set() and readers("养猫第一年") == {"cats"}


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        # how or why to write it is no subject
        ("第一次一个人去海边看日落的心得，想写得温柔一点", "第一次一个人去海边看日落的心得"),
        ("周末去古镇拍照的攻略，语气别太正式", "周末去古镇拍照"),
        ("地铁通勤看书的习惯，别写成说明书", "地铁通勤看书的习惯"),
        ("高铁上带娃的经验：孩子坐不住，想写篇笔记提醒大家多备零食", "高铁上带娃的经验"),
        # the theme and the kind of post before a colon: the subject follows it
        ("写一篇护肤干货：换季泛红期怎么精简步骤", "换季泛红期怎么精简步骤"),
        # a title the request names in quotes is the subject
        ("帮我写篇笔记，标题就叫《三十岁开始学游泳》，我学了两个月", "三十岁开始学游泳"),
        # keywords between spaces are the subject together
        ("露营 新手 帐篷 挑选 清单", "露营新手帐篷挑选清单"),
    ],
)
def test_what_the_request_says_about_the_writing_is_not_its_subject(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


def test_the_title_the_creator_names_is_the_post_s_title() -> None:
    from tools.offline.topic import asked_title

    assert asked_title("帮我写篇笔记，标题就叫《三十岁开始学游泳》，我学了两个月") == "三十岁开始学游泳"
    assert asked_title("题目：「周末的面包店」") == "周末的面包店"
    assert asked_title("写一篇面包店探店笔记") == ""


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        # 扩成 / 写成 a kind of post is a frame, wherever it stands
        ("我列了几条旧衣改造的点子，帮我扩成一篇帖子", "旧衣改造的点子"),
        ("把露营做饭的心得扩写成一篇笔记", "露营做饭的心得"),
        ("想写成通勤穿搭心得，给实习生看", "通勤穿搭心得"),
        # only the reader, read by whom: the clause that asks what to answer holds the subject
        ("宝宝下个月断奶，断奶要准备哪些东西？帮我写一篇给新手爸妈看的帖子", "宝宝断奶准备"),
        # an abbreviation is a thing (青旅); aspects (步骤, 平价工具) are not: another clause says of what
        ("想写一篇男生住青旅的经验帖，洗澡、储物都写写", "男生住青旅"),
        ("自己在家剪了一年刘海，写篇笔记分享步骤和平价工具", "刘海"),
        # the things a question asks about are those of the subject another clause names
        ("第一次养龙猫，笼子、垫料和饮食要注意什么？写个清单", "龙猫笼子、垫料和饮食清单"),
    ],
)
def test_frames_readers_and_aspects_are_not_the_subject(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


def test_an_animal_cooked_is_a_dish_not_a_pet() -> None:
    from tools.offline.text import detect_theme

    assert detect_theme("一天吃了三种兔：红烧兔、干锅兔、兔头，写篇探店笔记").key == "food"
    assert detect_theme("家里的垂耳兔掉毛严重，写篇笔记").key == "pets"


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("写一篇《为什么我建议新手先别买单反》的笔记", "为什么我建议新手先别买单反"),  # a quoted title
        ("帮我出一篇“几点去西湖看日出最美”的攻略帖", "几点去西湖看日出最美"),
        ("写一篇关于租房时一定要检查哪些地方的攻略", "租房时一定要检查哪些地方"),  # …的 + the kind of post
        ("做一期老人适合什么运动的科普笔记", "老人适合什么运动"),
        ("写一篇笔记分享我是怎么三个月减掉十五斤的", "三个月减掉十五斤"),  # how the writer did it
        ("整一篇健身房小白入门动作分享", "健身房小白入门动作"),
        ("写篇小作文讲讲我和我的猫", "我和我的猫"),
        ("帮我写篇读书笔记分享，书是《活着》", "《活着》读书"),  # the book named elsewhere
        ("帮我生成一篇完整的小红书，主题：上海咖啡店探店，标题正文标签配图都要", "上海咖啡店探店"),
        ("帮我写一篇周末去哪玩的推荐笔记，标题要有悬念", "周末去哪玩"),  # how the title should be
        ("I need a full post on budget travel in Thailand: title, text, tags and pictures", "泰国穷游"),
        ("write me a title + body + tags for a post about adopting a rescue cat", "领养救助猫"),
        ("帮我把这次厦门之行写成一篇游记", "这次厦门之行"),  # 把…写成 after a polite frame
        ("a guide to first-time camping, please", "第一次露营攻略"),
    ],
)
def test_quotes_kinds_and_delivery_words_are_not_the_subject(request_text: str, topic: str) -> None:
    """Written after a probe of 110 fresh post requests: the quotes around a title, the kind of post after
    的, the writer's 我是怎么, and the parts of a post asked for (title, text, tags) are no subject."""
    assert extract_topic(request_text) == topic


def test_the_scene_is_what_the_subject_ends_on_and_names_most_of() -> None:
    """A homestay in an old village is about the homestay, a town's night view about the night, a dune's
    sand about the desert; of two scenes ending at one place, the one naming more of it (宠物友好餐厅)."""
    from tools.offline.voice import scene_tips

    def tips(theme: str, subject: str) -> str:
        return "".join(scene_tips(theme, subject, subject))

    assert "隔音" in tips("travel", "松阳古村落民宿") and "石板路" not in tips("travel", "松阳古村落民宿")
    assert "婴儿床" in tips("travel", "三亚亲子酒店") and "婴儿床" not in tips("travel", "三亚海景酒店")
    assert "亮灯" in tips("travel", "凤凰古城夜景")
    assert "沙子" in tips("travel", "敦煌鸣沙山月牙泉游玩")
    assert "猫包" in tips("food", "玉林路宠物友好餐厅") and "招牌" not in tips("food", "玉林路宠物友好餐厅")
    assert "招牌" in tips("food", "玉林路川菜餐厅")


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("裸辞后gap半年的真实感受，写一篇走心的长文笔记", "裸辞后gap半年的真实感受"),  # a tone, a kind
        ("写一篇温暖的长文，讲我离开大厂的第一年", "我离开大厂的第一年"),  # 讲 frames the story
        ("新手徒步需要准备什么？写一篇入门装备笔记", "新手徒步装备"),  # the question says whose gear
    ],
)
def test_a_post_s_tone_and_kind_are_no_subject(request_text: str, topic: str) -> None:
    assert extract_topic(request_text) == topic


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        ("第一次去拉萨，三天两晚怎么安排？要带什么也写一下", "拉萨三天两晚怎么安排"),
        ("去大理玩，五天四晚怎么玩", "大理五天四晚怎么玩"),
        ("第一次带娃去三亚，一周行程怎么排", "三亚一周行程怎么排"),
    ],
)
def test_a_trip_s_span_asked_how_to_spend_takes_its_place_from_another_clause(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


@pytest.mark.parametrize(
    ("request_text", "topic"),
    [
        # readers called over, a style, only that it be written down: no subject
        ("住杭州的朋友看过来，周六一日游去桐庐，富春江边骑车+吃农家菜，帮我写一篇", "桐庐一日游"),
        ("香港一日citywalk，中环走到上环，打卡老街和茶餐厅，写成vlog风格", "香港一日citywalk"),
        ("上周刚走完武功山两天一夜穿越，腿还酸着，想写下来给第一次去的人参考", "武功山两天一夜穿越"),
        # the pot a dish was made in is no part of it; a post of it (…帖) is the thing
        ("自己在家炖了一锅番茄牛腩，软烂入味，写篇做法，不要写成菜谱格式，像聊天一样", "番茄牛腩"),
        ("写一篇泰山夜爬帖：几点出发能赶上日出，要带什么装备", "泰山夜爬"),
        # a place abroad is a place; going there and the plan are the subject together
        ("第一次去清迈，五天行程：古城寺庙、周日夜市、素贴山，帮我写成攻略帖", "清迈五天行程"),
        ("国庆三天去厦门，帮我写篇攻略", "厦门三天"),
    ],
)
def test_who_is_called_over_how_it_is_written_and_what_was_just_done_are_no_subject(
    request_text: str, topic: str
) -> None:
    assert extract_topic(request_text) == topic


def test_a_trip_told_from_where_it_set_out_is_about_where_it_went() -> None:
    """从X开车去Y住了两晚: the way there is no part of the subject, and a county jieba reads as a name is a
    place where the text treats it as one."""
    assert extract_topic("从上海开车去安吉住了两晚，竹林和咖啡馆都很出片，帮我写写") == "安吉两晚"
    assert extract_topic("从福州开车去屏南住了三天，龙潭村的老房子和咖啡馆太治愈了，帮我写写") == "屏南三天"
    assert places("安吉两晚") == ["安吉"] and places("安吉是个好名字") == [] and places("练吉他两天") == []
    # …but a route's two ends, a learner's way, a home stay and a meal eaten are no trips set out on
    assert extract_topic("从成都到重庆的高铁攻略") == "从成都到重庆的高铁攻略"
    assert extract_topic("从新手到高手的进阶之路") == "从新手到高手的进阶之路"
    assert extract_topic("吃完火锅怎么去味") == "吃完火锅怎么去味"
