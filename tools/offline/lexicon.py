"""Theme vocabulary for the offline writer: how people talk about each corpus theme on 小红书.

Only words and phrasing live here; the facts always come from the request and the retrieved notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tools.lexfiles import sections


@dataclass(frozen=True)
class Theme:
    key: str
    label: str
    triggers: tuple[str, ...]  # words that point a request at this theme
    audience: str  # default audience when the request names none
    tone: str
    goal: str
    cta: str
    emoji: tuple[str, ...]
    palette: tuple[str, ...]  # default image palette (#RRGGBB)
    points_heading: str  # heading of the main list
    tips_heading: str  # heading of the tips/pitfalls list
    benefit: str  # what the reader gains, used in hooks
    scene: str  # a typical visual scene for image prompts
    tags: tuple[str, ...] = field(default_factory=tuple)  # evergreen tags of the theme


THEMES: dict[str, Theme] = {
    t.key: t
    for t in (
        Theme(
            "food",
            "美食",
            (
                "美食",
                "做法",
                "食谱",
                "早餐",
                "午餐",
                "晚餐",
                "便当",
                "烘焙",
                "蛋糕",
                "咖啡",
                "探店",
                "火锅",
                "减脂餐",
                "好吃",
                "餐厅",
                "奶茶",
                "甜品",
                "菜",
                "料理",
                "下饭",
            ),
            "爱做饭的打工人",
            "温暖、有烟火气",
            "分享一道好做又好吃的菜，让读者收藏照做",
            "收藏起来，这周就做给自己吃吧～",
            ("🍳", "🥢", "😋", "🔥", "🥗", "✨"),
            ("#F6E7D7", "#E8A87C", "#C38D5F", "#5D4037"),
            "🍽️ 做法步骤",
            "💡 小贴士",
            "省时又好吃",
            "温暖木桌上的家常菜特写，自然光",
            ("美食", "家常菜", "一人食"),
        ),
        Theme(
            "travel",
            "旅行",
            (
                "旅行",
                "旅游",
                "攻略",
                "citywalk",
                "city walk",
                "古镇",
                "海岛",
                "酒店",
                "景点",
                "自驾",
                "机票",
                "签证",
                "周边游",
                "出游",
                "打卡",
                "游玩",
                "行程",
            ),
            "想说走就走的年轻人",
            "轻松、有画面感",
            "给出一份能直接照着走的行程攻略",
            "收藏这份攻略，下个假期直接出发！",
            ("📍", "🚄", "🗺️", "☀️", "📸", "✨"),
            ("#D7EEF2", "#7FB7BE", "#F2C57C", "#34586E"),
            "🗺️ 行程路线",
            "⚠️ 避坑提醒",
            "不踩坑、玩得值",
            "街巷与远景的旅行风光，晴天通透",
            ("旅行攻略", "周末去哪儿", "小众旅行"),
        ),
        Theme(
            "outdoor",
            "户外",
            (
                "露营",
                "徒步",
                "骑行",
                "登山",
                "户外",
                "飞盘",
                "钓鱼",
                "帐篷",
                "天幕",
                "营地",
                "爬山",
                "野餐",
                "溯溪",
                "桨板",
            ),
            "想逃离城市的上班族",
            "松弛、真诚",
            "让新手也能轻松开启一次户外体验",
            "收藏起来，挑个好天气就出发吧🌿",
            ("🏕️", "⛺", "🌿", "🔥", "☕", "✨"),
            ("#E9E4D4", "#A3B18A", "#588157", "#3A5A40"),
            "🎒 装备与流程",
            "⚠️ 新手避坑",
            "低成本收获松弛感",
            "草地上的帐篷与天幕，傍晚暖光",
            ("露营", "户外", "周末去哪儿"),
        ),
        Theme(
            "fashion",
            "穿搭",
            (
                "穿搭",
                "搭配",
                "衣服",
                "裙",
                "外套",
                "通勤",
                "鞋",
                "包",
                "ootd",
                "显瘦",
                "小个子",
                "叠穿",
                "毛衣",
                "大衣",
            ),
            "想穿得好看又不费力的女生",
            "自信、实用",
            "给出一套可直接抄作业的穿搭公式",
            "先收藏，明早出门直接抄作业～",
            ("👗", "🧥", "👟", "✨", "💫", "🤍"),
            ("#F3EDE6", "#D6C6B8", "#8C7B70", "#2F2A28"),
            "👗 搭配公式",
            "💡 穿搭心得",
            "显高显瘦又有质感",
            "简约背景前的全身穿搭，柔和光线",
            ("穿搭", "通勤穿搭", "日常穿搭"),
        ),
        Theme(
            "beauty",
            "美妆护肤",
            (
                "护肤",
                "化妆",
                "彩妆",
                "口红",
                "底妆",
                "防晒",
                "敏感肌",
                "面膜",
                "香水",
                "发型",
                "美妆",
                "精华",
                "卸妆",
                "痘",
            ),
            "想把皮肤养好的女生",
            "专业又亲切",
            "讲清楚一套温和有效的护理方法",
            "收藏这篇，护肤少走弯路💗",
            ("💄", "🧴", "✨", "💗", "🌸", "🫧"),
            ("#FBEFF1", "#F4C7CF", "#D98C9A", "#7A3E48"),
            "🧴 步骤与方法",
            "⚠️ 注意事项",
            "稳定又好状态",
            "浅色台面上的护肤品静物，柔光",
            ("护肤", "美妆", "敏感肌"),
        ),
        Theme(
            "home",
            "家居",
            (
                "家居",
                "收纳",
                "装修",
                "改造",
                "出租屋",
                "软装",
                "清洁",
                "绿植",
                "家电",
                "小户型",
                "卧室",
                "厨房",
                "房间",
                "整理",
            ),
            "租房的年轻人",
            "温馨、实用",
            "用不多的预算把家变得舒服好用",
            "收藏起来，周末就动手改造吧🏠",
            ("🏠", "🪴", "🛋️", "🧺", "✨", "💡"),
            ("#F4F1EA", "#D9CAB3", "#A68A64", "#6D6875"),
            "🛋️ 改造清单",
            "💡 实用心得",
            "花小钱住得更舒服",
            "阳光洒进的温馨小房间，木质家具",
            ("家居", "出租屋改造", "收纳"),
        ),
        Theme(
            "fitness",
            "健身",
            (
                "健身",
                "减脂",
                "减肥",
                "跑步",
                "瑜伽",
                "增肌",
                "运动",
                "体态",
                "马甲线",
                "燃脂",
                "拉伸",
                "有氧",
                "深蹲",
            ),
            "想动起来的上班族",
            "积极、有干劲",
            "给出一套能坚持下去的训练方案",
            "收藏打卡，一起练起来💪",
            ("💪", "🏃", "🔥", "🧘", "✨", "⏰"),
            ("#E8F6EF", "#7BD3AE", "#2A9D8F", "#264653"),
            "🏋️ 训练安排",
            "⚠️ 注意事项",
            "练得科学不受伤",
            "明亮空间里的运动场景，充满活力",
            ("健身", "减脂", "居家健身"),
        ),
        Theme(
            "career",
            "学习成长",
            (
                "考研",
                "考公",
                "学习",
                "英语",
                "简历",
                "面试",
                "职场",
                "工作",
                "副业",
                "时间管理",
                "读书",
                "效率",
                "上岸",
                "备考",
                "升职",
            ),
            "想要成长的年轻人",
            "清晰、干货",
            "整理一套可执行的方法，帮读者少走弯路",
            "收藏慢慢看，关注我一起成长📚",
            ("📚", "✍️", "💡", "📌", "✅", "🎯"),
            ("#EEF2F7", "#9DB4C0", "#5C6B73", "#253237"),
            "📌 方法步骤",
            "💡 经验心得",
            "效率翻倍少走弯路",
            "整洁书桌上的笔记本与台灯，安静氛围",
            ("学习方法", "自我提升", "干货分享"),
        ),
        Theme(
            "pets",
            "萌宠",
            (
                "猫",
                "狗",
                "宠物",
                "铲屎官",
                "猫粮",
                "狗粮",
                "驱虫",
                "遛狗",
                "喵",
                "汪",
                "猫咪",
                "狗狗",
                "养宠",
            ),
            "新手铲屎官",
            "温柔、有爱",
            "帮新手把毛孩子照顾得更好",
            "收藏给毛孩子用得上，也晒晒你家主子吧🐾",
            ("🐱", "🐶", "🐾", "💕", "✨", "🦴"),
            ("#FFF4E6", "#FFD8A8", "#F4A261", "#6B4226"),
            "🐾 照顾要点",
            "⚠️ 避坑提醒",
            "主子开心铲屎官省心",
            "阳光下的猫狗特写，毛发柔软",
            ("萌宠", "养猫", "新手养宠"),
        ),
        Theme(
            "parenting",
            "亲子",
            ("宝宝", "孩子", "亲子", "育儿", "绘本", "辅食", "早教", "带娃", "宝妈", "儿童", "幼儿园", "娃"),
            "新手爸妈",
            "温暖、耐心",
            "分享一份省心又有爱的育儿方法",
            "收藏起来，带娃路上少焦虑一点💛",
            ("👶", "🧸", "💛", "🌈", "✨", "📖"),
            ("#FFF8E1", "#FFE082", "#81C784", "#5D4037"),
            "🧸 实用方法",
            "💡 过来人经验",
            "带娃省心孩子开心",
            "温馨家中亲子互动的画面，柔和暖光",
            ("育儿", "亲子", "宝妈日常"),
        ),
    )
}

# The critic's theme words (`data/lexicon/theme_words.txt`) name more triggers than the phrasing above
# (腹肌, 普拉提, English words): the offline model reads a request's theme by both lists.
_DATA_TRIGGERS = {key: part.get("triggers", "").split() for key, part in sections("theme_words.txt").items()}
THEMES = {
    key: replace(theme, triggers=tuple(dict.fromkeys([*theme.triggers, *_DATA_TRIGGERS.get(key, [])])))
    for key, theme in THEMES.items()
}

GENERIC = Theme(
    "lifestyle",
    "生活方式",
    (),
    "热爱生活的年轻人",
    "真诚、轻松",
    "分享一份实用又好上手的经验",
    "觉得有用就收藏吧，评论区聊聊你的想法～",
    ("✨", "💡", "📌", "🌟", "💬", "✅"),
    ("#F5F3EF", "#CBBBA0", "#8D7B68", "#3F3A36"),
    "📌 核心要点",
    "💡 小贴士",
    "轻松又实用",
    "干净明亮的生活场景，自然光",
    ("生活方式", "干货分享", "日常"),
)

# Words that carry no topic (request scaffolding, platform words, fillers).
STOPWORDS = frozenset(
    """
    帮 我 写 一篇 篇 一个 个 的 了 和 与 及 在 是 有 要 想 请 来 给 为 把 被
    让 吧 呢 吗 啊 呀 哦 也 都 就 还 很 小红书 笔记 文案 帖子 内容 一下 一些 这个
    那个 这样 那样 可以 能够 需要 关于 面向 适合 帮忙 生成 创作 撰写 什么 怎么 如何
    哪些 哪里 为什么 一条 条 一份 份 推荐 分享 介绍 主题 风格 要求 字 以内 左右 出来
    写作 做 弄 我们 你们 他们 大家 自己 这些 那些 以及 或者 还是 但是 因为 所以 如果
    然后 比较 非常 真的 一定 特别 过来 起来 看过来 收藏 这篇 照着 一次 其实 没有 想象
    整理 要点 亲测 有用 社区 高赞 经验 踩过 写成 写个 写篇 写一写 改成 做成 做个 弄个 出个
    """.split()  # noqa: SIM905 - a word list reads best as text
)
