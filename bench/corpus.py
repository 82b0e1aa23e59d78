"""A synthetic notes corpus for the retrieval benchmark: deterministic Chinese notes in the shipped corpus's
ten themes, each built from theme words (subjects, items, places, moods) in varied templates, with
numbers, prices and times, so texts differ and both the vector and the full-text index have work to do.
Titles, bodies (~150–250 characters) and tags are about as long as the sample corpus's."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from tools.knowledge import Note


@dataclass(frozen=True)
class Theme:
    subjects: tuple[str, ...]
    items: tuple[str, ...]
    places: tuple[str, ...]
    moods: tuple[str, ...]


THEMES: dict[str, Theme] = {
    "outdoor": Theme(
        ("露营", "徒步", "骑行", "飞盘", "野餐", "钓鱼", "登山", "桨板"),
        ("帐篷", "天幕", "睡袋", "折叠椅", "登山杖", "冲锋衣", "保温壶", "头灯"),
        ("江边公园", "城郊营地", "森林步道", "海边草坪", "山顶观景台", "湖畔"),
        ("松弛感", "治愈", "出片", "小众", "免费", "新手友好"),
    ),
    "food": Theme(
        ("火锅", "减脂餐", "早餐", "烘焙", "咖啡", "家常菜", "甜品", "轻食"),
        ("空气炸锅", "燕麦", "鸡胸肉", "牛油果", "酸奶", "全麦面包", "番茄", "虾仁"),
        ("社区小店", "老街", "商场负一楼", "菜市场", "家里厨房", "写字楼楼下"),
        ("平价", "快手", "低卡", "好吃到哭", "一人食", "零失败"),
    ),
    "travel": Theme(
        ("周末游", "自驾", "城市漫步", "古镇", "海岛", "特种兵旅行", "亲子游", "夜游"),
        ("行李箱", "攻略", "门票", "高铁票", "民宿", "相机", "防晒霜", "充电宝"),
        ("大理", "成都", "厦门", "杭州西湖", "西安城墙", "青岛老城", "长沙", "重庆"),
        ("人少景美", "省钱", "小众", "不踩坑", "出片", "慢节奏"),
    ),
    "fashion": Theme(
        ("通勤穿搭", "约会穿搭", "秋冬叠穿", "小个子穿搭", "梨形身材", "基础款", "配色", "鞋包"),
        ("风衣", "针织开衫", "阔腿裤", "乐福鞋", "托特包", "白衬衫", "半身裙", "羊毛大衣"),
        ("办公室", "周末市集", "咖啡馆", "商场", "地铁通勤", "约会餐厅"),
        ("显瘦", "高级感", "平价", "一衣多穿", "显高", "不出错"),
    ),
    "beauty": Theme(
        ("护肤步骤", "底妆", "防晒", "卸妆", "敏感肌", "抗老", "口红", "眼妆"),
        ("精华", "面霜", "粉底液", "防晒霜", "卸妆油", "面膜", "隔离", "眉笔"),
        ("浴室", "化妆台", "通勤路上", "办公室", "健身房", "旅行途中"),
        ("学生党", "平价", "干皮友好", "油皮亲妈", "温和", "持妆"),
    ),
    "home": Theme(
        ("收纳", "租房改造", "厨房整理", "客厅布置", "小户型", "清洁", "绿植", "灯光"),
        ("收纳盒", "置物架", "洞洞板", "地毯", "落地灯", "窗帘", "懒人沙发", "香薰"),
        ("出租屋", "小厨房", "卧室角落", "阳台", "玄关", "卫生间"),
        ("低成本", "幸福感", "极简", "温馨", "一次到位", "治愈"),
    ),
    "fitness": Theme(
        ("居家训练", "跑步", "减脂", "瑜伽", "普拉提", "力量训练", "跳绳", "拉伸"),
        ("瑜伽垫", "哑铃", "弹力带", "跑鞋", "运动手表", "筋膜枪", "跳绳", "蛋白粉"),
        ("客厅", "小区跑道", "健身房", "公园", "操场", "办公室工位"),
        ("零基础", "坚持打卡", "暴汗", "不伤膝", "高效", "碎片时间"),
    ),
    "career": Theme(
        ("考研", "考公", "面试", "时间管理", "副业", "英语学习", "职场沟通", "读书"),
        ("笔记本", "番茄钟", "错题本", "简历", "平板", "思维导图", "单词书", "计划表"),
        ("图书馆", "自习室", "工位", "咖啡馆", "宿舍", "地铁上"),
        ("上岸", "高效", "自律", "干货", "避坑", "逆袭"),
    ),
    "parenting": Theme(
        ("辅食", "早教", "绘本", "睡眠训练", "亲子游戏", "幼儿园", "如厕训练", "亲子阅读"),
        ("米粉", "绘本", "安抚玩具", "餐椅", "推车", "积木", "睡袋", "水杯"),
        ("家里", "小区游乐场", "早教中心", "图书馆", "公园", "幼儿园门口"),
        ("新手爸妈", "省心", "亲测有效", "不焦虑", "科学", "高性价比"),
    ),
    "pets": Theme(
        ("猫咪驱虫", "狗狗训练", "猫粮", "洗澡", "绝育", "遛狗", "新手养猫", "宠物医院"),
        ("猫砂", "冻干", "驱虫药", "牵引绳", "猫抓板", "航空箱", "梳子", "自动喂食器"),
        ("家里", "宠物医院", "小区", "公园草地", "阳台", "宠物店"),
        ("新手必看", "省心", "亲测", "避坑", "温和", "不踩雷"),
    ),
}
AUDIENCES = ("上班族", "学生党", "新手", "宝妈", "情侣", "独居女生", "打工人", "退休爸妈")
TIMES = ("早上8点", "上午10点", "下午2点", "傍晚6点", "晚上8点")
TITLES = (
    "{mood}{subject}｜{n}步搞定{item}",
    "{place}{subject}攻略，{mood}到哭",
    "{subject}新手指南：{n}个{item}心得",
    "人均{price}元的{subject}，{mood}",
    "第{n}次{subject}，终于找到{mood}的{item}",
    "{subject}不踩坑清单｜{item}怎么选",
    "{audience}的{subject}日记：{item}真的有用",
)
SENTENCES = (
    "我在{place}试了{n}次{subject}，最推荐{item}。",
    "预算控制在{price}元以内，{item}选平价款就够。",
    "前后大概花了{hours}小时，{mood}是最大的感受。",
    "提醒：{subject}一定要提前准备{item}，不然容易手忙脚乱。",
    "{item}和{item2}搭配起来效果最好，亲测{n}周就有变化。",
    "{time}出发，{place}人不多，特别适合{audience}。",
    "很多人问{item}在哪买，其实{place}附近就有，价格{price}元左右。",
    "最后总结：{subject}的关键是{mood}，别一上来就买贵的。",
    "如果你也是{audience}，可以先从{item}开始，慢慢再加{item2}。",
    "踩过的坑：{item2}买了{n}个都没怎么用，{item}才是刚需。",
)
NEWEST = date(2026, 6, 30)


def _fill(rng: random.Random, theme: Theme) -> dict[str, object]:
    item, item2 = rng.sample(theme.items, 2)
    return {
        "subject": rng.choice(theme.subjects),
        "item": item,
        "item2": item2,
        "place": rng.choice(theme.places),
        "mood": rng.choice(theme.moods),
        "audience": rng.choice(AUDIENCES),
        "time": rng.choice(TIMES),
        "n": rng.randint(2, 12),
        "hours": rng.randint(1, 6),
        "price": rng.choice((9.9, 19, 29, 39, 59, 68, 99, 128, 199, 299, 500, 1500)),
    }


def synthetic_note(index: int, seed: int = 7) -> Note:
    """Note number `index` of the synthetic corpus (the same index always gives the same note)."""
    rng = random.Random(f"{seed}:{index}")
    name = rng.choice(list(THEMES))
    theme = THEMES[name]
    words = _fill(rng, theme)
    sentences = [
        template.format(**_fill(rng, theme) | {"subject": words["subject"]})
        for template in rng.sample(SENTENCES, 5)
    ]
    likes = int(rng.paretovariate(1.2) * 200)
    return Note(
        id=f"syn-{index:07d}",
        title=rng.choice(TITLES).format(**words),
        desc="".join(sentences),
        tags=[str(words["subject"]), str(words["item"]), str(words["mood"]), rng.choice(theme.subjects)],
        likes=likes,
        collects=int(likes * rng.uniform(0.3, 1.5)),
        comments=int(likes * rng.uniform(0.01, 0.1)),
        author=f"作者{rng.randint(1, 5000)}",
        published_at=NEWEST - timedelta(days=rng.randint(0, 364)),
        theme=name,
    )


def synthetic_notes(count: int, *, start: int = 0, seed: int = 7) -> Iterator[Note]:
    """Notes `start .. start + count - 1` of the synthetic corpus."""
    for index in range(start, start + count):
        yield synthetic_note(index, seed)


def queries(count: int, *, seed: int = 11) -> list[tuple[str, str]]:
    """`count` distinct search queries, each with the theme it is about: (query, theme)."""
    rng = random.Random(seed)
    forms = ("{subject} {item}", "{audience}{subject}攻略", "{place} {mood} {subject}", "{item}怎么选 {mood}")
    found: dict[str, str] = {}
    while len(found) < count:
        name = rng.choice(list(THEMES))
        found.setdefault(rng.choice(forms).format(**_fill(rng, THEMES[name])), name)
    return list(found.items())
