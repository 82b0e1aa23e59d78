"""Chinese labels for every identifier the studio shows: one table shared by the CLI and the server side.

It lives in `tools` so every layer may use it (`app → agents → tools`): the CLI (through `app.labels`),
agent messages and the offline model's texts. The web studio keeps the same table in
`app/http/static/js/labels.js` (`TABLES`); `tests/web` checks that the two agree, so a value added to one must
be added to the other. Keys are the wire values (enum members of
`agents/artifacts.py`, event fields, tool and task names); `label(kind, value)` never fails: a value
missing from its table renders as a neutral Chinese word ("其他类型", …), or as itself when it is already
Chinese (a model may answer with "美食" where "food" was asked for), so no raw English enum reaches a
screen.
"""

from __future__ import annotations

import re

TABLES: dict[str, dict[str, str]] = {
    # agents/artifacts.Intent
    "intent": {
        "full_post": "图文笔记",
        "image_only": "只要图片",
        "question": "问答",
        "time_query": "时间查询",
    },
    # agents/artifacts.ContentType
    "contentType": {
        "guide": "攻略",
        "list": "清单",
        "review": "测评",
        "product": "种草",
        "billboard": "海报",
        "diary": "日常",
        "story": "故事",
        "edu": "科普",
    },
    # corpus themes (data/notes/*.jsonl) plus the offline model's generic theme
    "theme": {
        "outdoor": "户外",
        "food": "美食",
        "travel": "旅行",
        "fashion": "穿搭",
        "beauty": "美妆护肤",
        "home": "家居",
        "fitness": "健身",
        "career": "学习成长",
        "pets": "萌宠",
        "parenting": "亲子",
        "lifestyle": "生活方式",
    },
    # agents/artifacts.LayoutPreference
    "layout": {"balanced": "均衡", "dense": "信息密集", "visual-first": "图片优先"},
    # agents/artifacts.ImageRole, plus the asset role of an uploaded reference image
    "role": {"cover": "封面", "detail": "内页", "result": "总结页", "reference": "参考图"},
    # agents/artifacts.TextDensity / TextPosition
    "density": {"low": "少", "medium": "中", "high": "多"},
    "position": {"top": "上方", "center": "居中", "bottom": "下方"},
    # LayoutItem.blocks (agents/prompts/layout.md lists the names the model may use)
    "block": {
        "headline": "大标题",
        "subtitle": "副标题",
        "heading": "小标题",
        "bullets": "要点列表",
        "checklist": "清单",
        "tags": "标签",
        "caption": "图注",
    },
    # agents/artifacts.Dimension
    "dimension": {
        "infoDensity": "信息密度",
        "textImageAlignment": "图文一致",
        "styleConsistency": "风格统一",
        "readability": "可读性",
        "platformFit": "平台适配",
        "overall": "综合",
    },
    # tools/database.CreativeStatus
    "status": {
        "draft": "草稿",
        "running": "生成中",
        "paused": "待审核",
        "completed": "已完成",
        "failed": "失败",
        "aborted": "已中止",
    },
    # image_progress.status and an asset's status
    "imageStatus": {"queued": "排队中", "generating": "生成中", "complete": "已完成", "failed": "失败"},
    # supervisor_decision.source / intent_detected.source
    "source": {"rule": "规则", "llm": "模型判断"},
    # ReferenceAnalysis.usage / a reference image's `type`
    "usage": {"style": "风格参考", "layout": "版式参考", "content": "内容参考"},
    # ImagePlan.background
    "background": {"gradient": "渐变", "solid": "纯色", "split": "分栏", "pattern": "纹样"},
    # ask_user context kind
    "checkpoint": {"content": "文案审核", "image_plans": "配图规划审核", "clarification": "需求澄清"},
    # Brief.platform
    "platform": {"xiaohongshu": "小红书"},
    # tool_call.tool (agents call tools by these names)
    "tool": {
        "searchNotes": "检索笔记",
        "analyzeTopTags": "热门标签分析",
        "getTopTitles": "高互动标题",
        "getTrendReport": "主题趋势",
        "webSearch": "联网搜索",
        "searchStyles": "匹配风格库",
        "analyzeImage": "解析参考图",
    },
    # usage.byTask keys (the `task` of each model call)
    "task": {
        "intent": "意图识别",
        "clarify": "需求澄清",
        "brief": "创作简报",
        "evidence": "调研总结",
        "reference": "参考图解析",
        "vision": "参考图解析",
        "writer": "撰写文案",
        "layout": "版式规划",
        "image_plan": "配图规划",
        "review": "质量审核",
        "supervisor": "主管调度",
        "answer": "回答问题",
        "web_search": "联网搜索",
        "span_edit": "改写选中文字",
        "retrieval:search_notes": "检索笔记",
        "retrieval:search_styles": "检索风格库",
    },
    # graph nodes as they appear in events (`agent`, `decision`, timings)
    "agent": {
        "supervisor": "主管",
        "intent": "意图识别",
        "clarification": "需求澄清",
        "brief_compiler_agent": "需求分析师",
        "research_evidence_agent": "研究员",
        "reference_intelligence_agent": "视觉分析师",
        "writer_agent": "创作专家",
        "content_checkpoint": "文案审核",
        "layout_planner_agent": "版式设计师",
        "image_planner_agent": "图片策划",
        "plans_checkpoint": "配图审核",
        "image_agent": "图片生成器",
        "review_agent": "质量审核员",
        "answer_agent": "答疑助手",
        "image_editor": "图片编辑",
        "finalize": "交付",
        "END": "结束",
    },
    # tools/accounts.Role: a user's role (the `role` table above is an image's role)
    "accountRole": {"admin": "管理员", "creator": "创作者", "editor": "编辑", "analyst": "分析师"},
    # what made a version of a creative (tools/database.VersionSource)
    "versionSource": {
        "run": "创作运行", "quick_action": "一键改写", "restore": "恢复旧版", "manual_edit": "手动修改",
        "selection_edit": "选中改写", "image_edit": "图片编辑",
    },
    # an element of a picture's analysis (tools/image_analysis): its kind, where its box came from, and
    # which part of a card's layout a text block is
    "elementKind": {"subject": "主体", "panel": "面板", "badge": "角标", "text": "文字块"},
    "elementSource": {"layout": "版式", "ocr": "识别", "heuristic": "估计"},
    "textSlot": {
        "headline": "标题", "subtitle": "副标题", "item": "要点", "caption": "话题标签", "page": "页码",
        "badge": "角标", "motif": "主体名称", "scene": "场景词", "text": "文字",
    },
    # an audit record's action (tools/accounts.AuditAction and the run actions of app/http/routes/agent.py)
    "auditAction": {
        "start": "发起创作", "approve": "审核通过", "reject": "驳回重写", "modify": "修改后通过",
        "answer": "回答澄清", "cancel": "取消运行", "resume": "继续运行", "login": "登录",
        "logout": "退出登录", "login_link": "生成登录链接", "user_add": "添加用户",
        "user_disable": "停用用户", "user_enable": "启用用户", "password_change": "修改密码",
        "token_create": "创建令牌", "token_revoke": "吊销令牌", "restore": "恢复版本", "rewrite": "一键改写",
        "revise": "修改作品", "edit": "手动修改", "image_edit": "编辑图片",
    },
}

FALLBACK: dict[str, str] = {
    "intent": "其他请求",
    "contentType": "其他类型",
    "theme": "其他主题",
    "layout": "其他版式",
    "role": "配图",
    "density": "—",
    "position": "—",
    "block": "其他模块",
    "dimension": "其他维度",
    "status": "未知状态",
    "imageStatus": "未知状态",
    "source": "其他",
    "usage": "参考",
    "background": "其他背景",
    "checkpoint": "待确认",
    "platform": "其他平台",
    "tool": "工具调用",
    "task": "其他调用",
    "agent": "其他环节",
    "accountRole": "其他角色",
    "versionSource": "其他来源",
    "elementKind": "元素",
    "elementSource": "估计",
    "textSlot": "文字",
    "auditAction": "其他操作",
}

_CJK = re.compile(r"[\u3400-\u9fff]")


def label(kind: str, value: object) -> str:
    """The Chinese label of `value` in table `kind`; '' for an empty value, never the raw English key."""
    if value is None or value == "":
        return ""
    text = str(value)
    found = TABLES.get(kind, {}).get(text)
    if found is not None:
        return found
    if _CJK.search(text):
        return text
    return FALLBACK.get(kind, "其他")


def model_label(model: str | None) -> str:
    """A model id as people read it: the built-in offline model by name, any other id as it is."""
    if not model:
        return ""
    return "内置离线模型" if str(model).startswith("studio/offline") else str(model)


def agent_label(name: str | None) -> str:
    """An agent, or a parallel step `a+b`, as people call it ('研究员 + 视觉分析师')."""
    if not name:
        return "系统"
    return " + ".join(label("agent", part) for part in str(name).split("+"))


def key_of(kind: str, text: str) -> str:
    """The key whose label is `text` (a user may type "美食" where the key "food" is meant), else `text`."""
    for key, shown in TABLES.get(kind, {}).items():
        if text in (key, shown):
            return key
    return text


def labels(kind: str, values: list[str] | tuple[str, ...] | None, sep: str = " / ") -> str:
    """Several values of one table, joined."""
    return sep.join(label(kind, v) for v in values or [])


# --- for agents' messages and the offline model's texts (layout and card planning) ---------------------
# Derived from the tables above, so the UI, the CLI and the agents say the same word for a value.
PREFERENCE_LABELS = TABLES["layout"]
BLOCK_LABELS = {
    **TABLES["block"],
    "quote": "金句",
    "steps": "步骤",
    "body": "正文",
}
ROLE_LABELS = {k: v for k, v in TABLES["role"].items() if k != "reference"}
DENSITY_LABELS = {"low": "文字少", "medium": "文字适中", "high": "文字多"}
POSITION_LABELS = TABLES["position"]


def theme_label(key: str) -> str:
    return label("theme", key)


def _all_labels() -> dict[str, str]:
    from tools.art import LAYOUT_LABELS

    return {
        **TABLES["theme"], **LAYOUT_LABELS, **DENSITY_LABELS, **ROLE_LABELS, **BLOCK_LABELS,
        **PREFERENCE_LABELS,
    }


_WORD = re.compile(r"(?<![A-Za-z_-])(visual-first|[a-z][a-z_]*[a-z])(?![A-Za-z_-])")


def plain(text: str) -> str:
    """`text` with every known raw value (balanced, headline, cover, outdoor, …) in Chinese: for free
    text a model wrote, which may name them."""
    known = _all_labels()
    return _WORD.sub(lambda m: known.get(m.group(1), m.group(1)), text)


def blocks_text(blocks: list[str]) -> str:
    return "、".join(BLOCK_LABELS.get(b, b) for b in blocks)
