"""Seed 004's image-generation rules (§2), as tables of named patterns: negative exclusions first
(recalling a past image, "I can't draw"), then the eight positive rules in the seed's order, with the ways
of asking for a picture found since on blind probes (a measure word, a label, a design, a restyling).

Kept in `tools` so the rule fallback (`agents.intent`) and the offline model (`tools.offline.briefing`)
route with the same table (see `tools.routing`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

C = r"[^，。！？；,.!?;\n]"  # one character inside the same clause
_PARTICLES = re.compile(r"[吗呢吧么嘛呀啊哦～~\s]+$")


@dataclass(frozen=True)
class Rule:
    """A named pattern; `name` says which rule fired (it ends up in the decision's reasoning)."""

    name: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Hit:
    """A rule that matched and the text it matched."""

    rule: str
    keyword: str


def rules(*pairs: tuple[str, str], flags: int = 0) -> tuple[Rule, ...]:
    return tuple(Rule(name, re.compile(pattern, flags)) for name, pattern in pairs)


def first_hit(table: Sequence[Rule], text: str) -> Hit | None:
    for rule in table:
        match = rule.pattern.search(text)
        if match:
            return Hit(rule.name, match.group(0).strip())
    return None


def _core(fragment: str) -> str:
    """A description without its trailing particles: '超绝美少女吗' → '超绝美少女'."""
    return _PARTICLES.sub("", fragment)


# --- image generation (seed 004 §2) ---------------------------------------------------------------
# Negative exclusions: talking about an image, not asking for one. "能不能/会不会" are requests.
_IMAGE_NEGATIVE = rules(
    ("image.not_recall", rf"(?:记得|想起|回忆){C}{{0,20}}?(?:画|图|生成)"),
    ("image.not_past", rf"(?:之前|上次|以前){C}{{0,20}}?(?:画|绘|生成)"),
    ("image.not_unable", rf"(?:(?<!能)不能|(?<!会)不会|无法){C}{{0,6}}?(?:画|绘|生成)"),
)
_DRAW = r"(?:绘制|画|绘)"
_NUMERAL = r"(?:[一二两三四五六七八九十几]+|\d+)"
# What 生成 must not be applied to for the descriptive rules 5 and 6: text, not pictures.
_TEXT_THING = re.compile(
    r"代码|程序|脚本|函数|文案|文章|文本|文字|报告|总结|摘要|列表|清单|表格|大纲|提纲|标题|标签|话题|"
    r"内容|回答|答案|回复|邮件|简历|方案|计划|笔记|帖子|段落|句子|翻译|故事|小说|剧本|诗|歌词|评论|"
    r"周报|日报|月报|目录|数据|名字|昵称|口号|链接|密码|随机数|ppt|json|sql|csv|markdown|slogan",
    re.IGNORECASE,
)
# What 画/绘 must not be applied to for rule 7: charts are not pictures.
_CHART = re.compile(
    r"饼图|饼状图|柱状图|柱形图|条形图|折线图|流程图|思维导图|脑图|架构图|时序图|甘特图|雷达图|散点图|"
    r"直方图|拓扑图|统计图|图表|表格|曲线图|坐标|k线|uml",
    re.IGNORECASE,
)
_IMAGE_STRONG = rules(
    ("image.draw_measure", rf"{_DRAW}{_NUMERAL}[张幅个副只份套组款朵棵位]"),
    ("image.draw_for_me",
     rf"(?:给我|帮我|帮忙|替我|(?<![邀申聘宴])请你?|(?<![原后出起本未将从看带])来){_DRAW}"),
    ("image.generate_picture", rf"生成{C}{{0,8}}?(?:图|画|照片|相片|海报|壁纸|头像|表情包)"),
    ("image.make_picture", rf"(?:制作|创作){C}{{0,8}}?(?:图|画|像)"),
    ("image.make_one",
     rf"(?:做|来|要|需要|想要|出|整|弄|P|p|修|渲染|给我)(?:{_NUMERAL})?[张幅]{C}{{0,12}}?"
     rf"(?:图|画|海报|壁纸|头像|封面|照片|表情包|背景)"),
    # 做个封面图, 出张海报, 整一个头像: a picture's own noun (not 图文, a post) right after the verb
    ("image.make_picture_noun",
     rf"(?:^|[，。！？；,.!?;\s]|帮我|给我|请|想|要)(?:做|来|出|整(?!理)|弄)(?:一|两|几|\d+)?[个张幅套组]?"
     rf"{C}{{0,8}}?(?:封面图?|海报|壁纸|头像|头图|插画|配图|表情包|(?<!文)图片|(?<![文意视构])图(?!文|表|解))"),
    # 出一张像素风的小房子: a picture counted out, whatever it shows (not a table or a list)
    ("image.measure_zhang",
     rf"(?:出|画|生成|渲染|来)(?:{_NUMERAL})?张(?!{C}*(?:表|单|卡片|票|清单|计划|文案))"),
    # 一幅梵高风格的向日葵: 幅 counts pictures only
    ("image.measure_fu", rf"(?:要|想要|来|画|出|做|生成|需要)(?:{_NUMERAL})?幅"),
    # 帮我配几张图, 配张封面: pictures added to a post
    ("image.add_pictures", rf"配(?:{_NUMERAL})?[张幅组](?:{C}{{0,4}}?)(?:图|图片|照片|封面|插画)"),
    # 做个九宫格, 拼成四宫格: pictures laid out in a grid
    ("image.grid", r"(?:做|拼|弄|出|来)(?:个|一个|一张|成)?(?:九宫格|四宫格|六宫格|拼图)(?!游戏|玩具)"),
    # 把这段话做成图 / 做成一张海报: a text made into a picture
    ("image.made_into",
     r"(?:做成|弄成|变成|生成)(?:一|几|两|\d+)?[张幅]?(?:图|图片|海报|卡片图|壁纸|长图)(?![文表])"),
    # 设计一个宠物店的logo / 公众号头图
    ("image.design",
     rf"设计{C}{{0,10}}?(?:logo|LOGO|Logo|标志|图标|头图|海报|封面|banner|插画|壁纸|头像|图片)"),
    # 把这张照片换成宫崎骏的画风: restyling a picture
    ("image.restyle",
     rf"(?:照片|图片|图){C}{{0,6}}?(?:换成|改成|变成|转成){C}{{0,10}}?(?:画风|风格|漫画|动漫|卡通)"),
    # 配图：雪山下的小木屋 — a picture noun as the label of what follows
    ("image.labelled", r"^\s*(?:配图|图片|插画|封面|海报|壁纸|头像)\s*[：:]"),
    # 小红书封面图，主题是… — a first clause that is only a picture's name (not a question about one)
    ("image.named",
     rf"^(?!{C}*(?:怎么|为什么|什么|如何|哪|吗|呢))\s*{C}{{0,12}}?"
     rf"(?:封面图|海报|壁纸|头像|插画|配图|图片|背景图|表情包)(?=\s*(?:[，,。！!；;：:]|$))"),
)
# Rule 5 reads 生成 as a command: at the start of a clause, after optional 请/帮我/我想 … — so
# "如何生成随机数" and "生成式AI" are not requests. Rule 6 (the polite form) keeps the text-type exclusion.
_GENERATE_IMPERATIVE = re.compile(
    rf"(?:^|[，。！？；,.!?;\s])(?:请|麻烦)?你?(?:帮我|给我|替我|帮忙|为我|我想|我要|想|要)?(?:再|来)?"
    rf"生成(?![式器的了过成])(?P<desc>{C}+)"
)
_GENERATE_POLITE = re.compile(
    rf"(?:可以|(?<![智功性效技本才职])能)(?:不能|够)?(?:帮我|给我|为我|帮忙)?生成(?P<desc>{C}*)"
)
# 画/绘 used as a verb: not 动画/漫画/油画/绘本/画家/画展/画风/画饼 …
_DRAW_OBJECT = re.compile(
    r"(?<![动漫油国壁字书版插名刻图绘彩笔古年卡描])(?:绘制|画|绘)"
    rf"(?![面家展风廊册质师本报卷布板框笔画作室像法技工圈坛意龙饼中里])(?P<obj>{C}+)"
)
_IMAGE_ENGLISH = rules(
    ("image.english",
     r"\b(?:draw|paint|sketch|generate|create|make|render|design|need|want|like)\b(?:\s+[\w'-]+){0,5}?\s+"
     r"(?:images?|pictures?|pics?|illustrations?|drawings?|paintings?|photos?|artworks?|posters?|wallpapers?"
     r"|avatars?|logos?|icons?|banners?|stickers?)\b"),
    ("image.english", r"\b(?:draw|paint|sketch)\s+(?:me\s+)?(?:an?|the|some|two|three|\d+)\s+\w+"),
    flags=re.IGNORECASE,
)


def _descriptive_hit(text: str) -> Hit | None:
    """Rules 5–7: 生成 + a picture-like description, 可以/能生成 + a longer one, 画 + a non-chart object."""
    for match in _GENERATE_IMPERATIVE.finditer(text):
        desc = _core(match.group("desc"))
        if len(desc) >= 2 and not _TEXT_THING.search(desc):
            return Hit("image.generate_description", f"生成{desc}")
    for match in _GENERATE_POLITE.finditer(text):
        desc = _core(match.group("desc"))
        if len(desc) >= 4 and not _TEXT_THING.search(desc):
            return Hit("image.can_generate", f"生成{desc}")
    for match in _DRAW_OBJECT.finditer(text):
        obj = _core(match.group("obj"))
        if len(obj) >= 2 and not _CHART.search(obj):
            verb = text[match.start() : match.start("obj")]
            return Hit("image.draw_object", f"{verb}{obj}")
    return None


def image_hit(text: str) -> Hit | None:
    """The image rule that decides `text`: a negative exclusion (`image.not_*`), a positive rule, or None."""
    negative = first_hit(_IMAGE_NEGATIVE, text)
    if negative:
        return negative
    strong = first_hit(_IMAGE_STRONG, text)
    if strong is not None and _CHART.search(strong.keyword):  # 做个思维导图: a chart, not a picture
        strong = None
    return strong or _descriptive_hit(text) or first_hit(_IMAGE_ENGLISH, text)


def detect_image_intent(text: str) -> bool:
    """Does `text` ask for an image to be generated? (seed 004 `detectImageGenIntent`)"""
    hit = image_hit(text)
    return hit is not None and not hit.rule.startswith("image.not_")
