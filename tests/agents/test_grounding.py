"""Evidence on topic (agents.grounding.Scope): notes about another place or topic never supply facts."""

from __future__ import annotations

from agents.grounding import Scope

BRIEF = {"topic": "厦门三天两晚旅行", "keywords": ["厦门", "旅行", "爸妈"], "theme": "travel"}
XIAMEN = Scope.of("厦门三天两晚旅行攻略，适合带爸妈", BRIEF)


def note(title: str, desc: str, tags: list[str], theme: str = "travel") -> dict[str, object]:
    return {"title": title, "desc": desc, "tags": tags, "theme": theme}


def test_a_note_about_another_place_only_informs_patterns() -> None:
    chengdu = note(
        "成都吃喝3天，本地朋友带我走的路线", "大熊猫基地早上7点半开门，去晚了熊猫都睡了。", ["成都"]
    )
    assert XIAMEN.note_fit(chengdu) == "elsewhere"
    assert not XIAMEN.fact_fits("大熊猫基地早上7点半开门", chengdu)


def test_a_note_about_the_place_or_a_generic_one_on_the_topic_is_used() -> None:
    xiamen = note("第一次去厦门，这5个坑千万别踩", "鼓浪屿船票要提前3天预约。", ["厦门", "避雷"])
    parents = note("带爸妈旅行，这份清单能少吵一半架", "每天最多安排2个景点，中午回酒店休息。", ["带父母"])
    assert XIAMEN.note_fit(xiamen) == "on_topic"
    assert XIAMEN.note_fit(parents) == "on_topic"


def test_a_note_of_another_theme_sharing_one_word_is_off_topic() -> None:
    babies = note("新手爸妈必看：宝宝发烧怎么办", "38.5度以上可以用退烧药。", ["育儿知识"], theme="parenting")
    assert XIAMEN.note_fit(babies) == "off_topic"


def test_sentences_naming_another_place_or_stray_advice_are_cut() -> None:
    text = "鼓浪屿船票35元往返。上次在成都也是这样订的。孩子发烧可以吃布洛芬。早上8点前人最少。"
    assert XIAMEN.clean(text) == "鼓浪屿船票35元往返。早上8点前人最少。"  # 鼓浪屿 lies in Xiamen


def test_a_name_no_table_knows_is_allowed_once_a_note_about_the_place_uses_it() -> None:
    text = "胡里山的炮台值得看。"
    assert XIAMEN.clean(text) == ""
    learnt = XIAMEN.with_companions([note("第一次去厦门", "胡里山离大学很近。", ["厦门"])])
    assert learnt.clean(text) == text
    assert learnt.note_fit(note("胡里山半日游", "门票25元。", ["胡里山"])) == "on_topic"
    assert XIAMEN.stray_advice("每天热量缺口400大卡") == {"weight_loss"}
    assert not XIAMEN.tag_fits("成都美食")


def test_advice_belongs_in_a_post_about_it() -> None:
    health = Scope.of("上班族颈椎痛怎么缓解，写篇笔记")
    diet = Scope.of("跑步减肥怎么吃，新手食谱推荐")
    assert health.sentence_fits("疼痛超过两周要去医院就医")
    assert diet.sentence_fits("每天热量缺口大约400大卡")


def test_a_place_the_corpus_lacks_is_reported() -> None:
    luoyang = Scope.of("洛阳两日游攻略")
    assert luoyang.places == ("洛阳",)
    gaps = luoyang.describe_gaps([note("带爸妈旅行清单", "每天最多2个景点。", ["旅行"])])
    assert len(gaps) == 1 and "洛阳" in gaps[0] and "不要借用其他城市" in gaps[0]
    assert luoyang.describe_gaps([note("洛阳老城汉服", "租汉服128元。", ["洛阳"])]) == []


def test_specifics_from_a_note_naming_no_place_are_no_facts_for_a_named_place() -> None:
    brief = {"topic": "顺德早茶探店", "keywords": ["早茶", "探店"], "theme": "food"}
    shunde = Scope.of("顺德早茶探店合集", brief)
    desc = "菜市场门口的生煎，4个8元。早茶别点太多，先点招牌。每桌最多点5样，吃完再加。"
    unplaced = note("老城区早餐店吃了一遍", desc, ["早餐"], "food")
    assert shunde.clean(unplaced["desc"], unplaced) == "早茶别点太多，先点招牌。每桌最多点5样，吃完再加。"
    assert not shunde.fact_fits("菜市场门口的生煎，4个8元", unplaced)
    anywhere = Scope.of("周末早餐探店合集")  # no place asked for: any town's venue is an example
    assert anywhere.fact_fits("菜市场门口的生煎，4个8元", unplaced)
    # what the note says of its own place is no fact of the request's, however it is advised
    camp = {"topic": "莫干山露营", "keywords": ["莫干山", "露营"], "theme": "outdoor"}
    desc = "这个公园的露营区需要提前在小程序预约，一个营位58元。第一次选设施齐全的营地。"
    park = note("城市公园露营", desc, ["露营"], "outdoor")
    moganshan = Scope.of("周末去莫干山露营，新手攻略", camp)
    assert moganshan.clean(park["desc"], park) == "第一次选设施齐全的营地。"
    assert Scope.of("新手露营攻略").fact_fits("这个公园的露营区需要提前预约", park)


def test_the_research_filter_is_stricter_than_the_critic_on_small_known_places() -> None:
    hangzhou = Scope.of("杭州西湖周边一日游攻略，带爸妈慢慢走")
    assert hangzhou.foreign("安吉的一个竹林营地，营位一晚200元") == ["安吉"]  # a county jieba calls a name
    assert hangzhou.foreign("北山街到宝石山，看夕阳很美") == []
    chaozhou = Scope.of("潮州古城一日慢游")
    assert chaozhou.places == ("潮州",)  # 古城 is no place of its own, though 丽江 has a 古城区
    assert chaozhou.foreign("辞职后在丽江旅居了一个月") == ["丽江"]
    anywhere = Scope.of("一个人的城市骑行路线分享")
    assert anywhere.foreign("和朋友完成了太湖半环，一天骑了100公里") == ["太湖"]


def test_a_note_or_a_sentence_for_other_readers_is_no_evidence() -> None:
    """A family's beach note gives no advice to students; a men's routine none to an oily-skin post."""
    students = Scope.of(
        "写一篇去大连看海的两天一夜攻略，面向第一次去的大学生",
        {
            "topic": "大连看海两天一夜",
            "keywords": ["大连", "看海"],
            "theme": "travel",
            "audience": "第一次去的大学生",
        },
    )
    family = note(
        "带3岁娃去海边，这些东西一定要带", "沙滩挖沙玩具、防晒衣、儿童救生衣都要带。", ["带娃旅行", "3岁"]
    )
    plain = note("第一次看海攻略", "上午9点前下海，避开最晒的时段。带娃的话记得带儿童救生衣。", ["看海"])
    assert students.note_fit(family) == "elsewhere"
    assert students.note_fit(plain) == "on_topic"
    assert students.clean(plain["desc"]) == "上午9点前下海，避开最晒的时段。"
    assert not students.tag_fits("带娃旅行") and students.tag_fits("看海")
    oily = Scope.of("油皮夏天控油的护肤心得", {"topic": "油皮夏天控油护肤", "theme": "beauty"})
    assert oily.clean("剃须后皮肤容易敏感，可以用须后乳。洁面早晚各一次。") == "洁面早晚各一次。"
    # readers the request names are its own; a general group (women) suits a request naming none
    parents = Scope.of("三亚五天四晚亲子游攻略", {"topic": "三亚亲子游", "theme": "travel"})
    assert parents.note_fit(family) != "elsewhere"
    assert parents.clean("两个人淡季去的，人均5000。酒店离景点20分钟以内。") == "酒店离景点20分钟以内。"
    assert oily.clean("和闺蜜一起试了三个月。") == "和闺蜜一起试了三个月。"
    assert Scope.of("男生油皮护肤步骤", {"topic": "男生油皮护肤"}).clean("和闺蜜一起试了三个月。") == ""


def test_a_sentence_about_another_activity_only_is_no_evidence() -> None:
    """Campsites and tents are none of a ginkgo post's evidence; a stargazing note's tent is its own."""
    ginkgo = Scope.of("周末去杭州看银杏，写一篇攻略", {"topic": "杭州看银杏", "theme": "travel"})
    camping = note("营地推荐｜杭州周边3个宝藏营地", "三个营地都可以租帐篷。银杏季人多，早点出门。", ["露营"])
    assert ginkgo.clean(camping["desc"], camping) == "银杏季人多，早点出门。"
    assert not ginkgo.tag_fits("露营") and ginkgo.tag_fits("银杏")
    assert not ginkgo.fact_fits("三个营地都可以租帐篷")
    stars = Scope.of("去安吉观星，写一篇攻略", {"topic": "安吉观星", "theme": "outdoor"})
    stargazing = note("安吉观星攻略｜看到银河的那一晚", "山顶风大，帐篷要压好地钉。", ["观星"])
    assert stars.clean(stargazing["desc"], stargazing) == "山顶风大，帐篷要压好地钉。"
    # a request that names no activity keeps every one
    plain = Scope.of("杭州周末两天怎么玩", {"topic": "杭州周末", "theme": "travel"})
    assert plain.clean(camping["desc"], camping) == camping["desc"]


def test_two_cities_of_one_foreign_country_are_two_places() -> None:
    """大阪 is no part of a trip to 京都 (both only share 日本), though a trip to 日本 may name either."""
    kyoto = Scope.of("京都红叶季赏枫攻略笔记，写清楚几点去清水寺人少")
    assert kyoto.foreign("住宿：大阪住了2晚商务酒店，京都住了2晚町屋民宿") == ["大阪"]
    assert kyoto.foreign("清水寺早上六点开门，京都站坐巴士二十分钟") == []
    assert Scope.of("日本关西七日游攻略").foreign("大阪住了2晚，京都住了2晚") == []


def test_a_note_on_another_dish_gives_a_named_dish_no_steps() -> None:
    """A 红烧肉 recipe shares 肉 and 炖 with a 腌笃鲜 request; its steps are not the soup's."""
    soup = Scope.of(
        "周末在家做了一锅腌笃鲜 咸肉用的是金华的 炖了两个小时 想写篇菜谱",
        {"topic": "腌笃鲜", "keywords": ["腌笃鲜", "春笋", "咸肉"], "theme": "food"},
    )
    braised = note("红烧肉这样做不柴不腻", "肉冷水下锅焯水，炒糖色用小火，加足热水炖一小时。", ["红烧肉"])
    same = note("腌笃鲜｜春天一定要喝的汤", "春笋焯水去涩，咸肉泡水，小火炖两小时。", ["腌笃鲜", "春笋"])
    assert soup.note_fit(braised) == "elsewhere"
    assert soup.note_fit(same) == "on_topic"
    noodles = Scope.of("重庆小面怎么做", {"topic": "重庆小面", "keywords": ["小面"], "theme": "food"})
    assert noodles.note_fit(note("重庆小面的红油这样调", "红油要用菜籽油泼。", ["小面"])) != "elsewhere"


def test_a_grown_up_s_exam_plan_is_no_evidence_for_a_child_s_homework() -> None:
    """二战英语一 is a 考研 taker's line: a third-grader's parents get none of it; an English learner may."""
    child = Scope.of(
        "儿子三年级 英语跟不上 想写篇给其他家长的分享 重点写家里每天怎么陪练",
        {"topic": "三年级英语陪练", "theme": "parenting", "audience": "其他家长"},
    )
    exam = "二战英语一从52分提到78分，时间线：3-6月背单词。"
    assert child.clean(exam) == ""
    adult = Scope.of("英语单词怎么背，分享我的方法", {"topic": "英语背单词", "theme": "career"})
    assert adult.clean(exam) == exam


def test_a_note_about_where_the_trip_only_sets_out_from_is_no_evidence() -> None:
    """从广州出发…去了阳朔: a Guangzhou note (or one about a sight of Guangzhou) is none of a Yangshuo trip's
    evidence, though the post may say where it set out."""
    trip = Scope.of(
        "从广州出发 坐高铁去了阳朔 住了两晚 遇龙河竹筏 十里画廊骑车 写篇周末游笔记",
        {"topic": "阳朔周末游", "keywords": ["阳朔", "遇龙河"], "theme": "travel"},
    )
    assert trip.origins == ("广州",)
    assert trip.note_fit(note("广州早茶这样点", "在广州吃早茶要早点去。", ["广州"])) == "elsewhere"
    assert trip.note_fit(note("阳朔两天怎么玩", "遇龙河竹筏要提前订。", ["阳朔"])) == "on_topic"
    # (a city both left and gone round is no origin only: 从杭州出发…在杭州玩了一天)
    both = Scope.of("从杭州出发去乌镇 回来又在杭州玩了一天 写篇游记", {"topic": "乌镇杭州游记"})
    assert both.origins == ()
