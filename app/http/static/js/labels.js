// Chinese labels for every identifier the studio shows. The same table lives in app/labels.py for the
// CLI and the server (tests/web checks that the two agree). `label(kind, value)` never throws and never
// returns a raw English key: unknown values become a neutral Chinese word, Chinese values pass through.

export const TABLES = {
  intent: {
    full_post: "图文笔记",
    image_only: "只要图片",
    question: "问答",
    time_query: "时间查询",
  },
  contentType: {
    guide: "攻略",
    list: "清单",
    review: "测评",
    product: "种草",
    billboard: "海报",
    diary: "日常",
    story: "故事",
    edu: "科普",
  },
  theme: {
    outdoor: "户外",
    food: "美食",
    travel: "旅行",
    fashion: "穿搭",
    beauty: "美妆护肤",
    home: "家居",
    fitness: "健身",
    career: "学习成长",
    pets: "萌宠",
    parenting: "亲子",
    lifestyle: "生活方式",
  },
  layout: {
    balanced: "均衡",
    dense: "信息密集",
    "visual-first": "图片优先",
  },
  role: {
    cover: "封面",
    detail: "内页",
    result: "总结页",
    reference: "参考图",
  },
  density: {
    low: "少",
    medium: "中",
    high: "多",
  },
  position: {
    top: "上方",
    center: "居中",
    bottom: "下方",
  },
  block: {
    headline: "大标题",
    subtitle: "副标题",
    heading: "小标题",
    bullets: "要点列表",
    checklist: "清单",
    tags: "标签",
    caption: "图注",
  },
  dimension: {
    infoDensity: "信息密度",
    textImageAlignment: "图文一致",
    styleConsistency: "风格统一",
    readability: "可读性",
    platformFit: "平台适配",
    overall: "综合",
  },
  status: {
    draft: "草稿",
    running: "生成中",
    paused: "待审核",
    completed: "已完成",
    failed: "失败",
    aborted: "已中止",
  },
  imageStatus: {
    queued: "排队中",
    generating: "生成中",
    complete: "已完成",
    failed: "失败",
  },
  source: {
    rule: "规则",
    llm: "模型判断",
  },
  usage: {
    style: "风格参考",
    layout: "版式参考",
    content: "内容参考",
  },
  background: {
    gradient: "渐变",
    solid: "纯色",
    split: "分栏",
    pattern: "纹样",
  },
  checkpoint: {
    content: "文案审核",
    image_plans: "配图规划审核",
    clarification: "需求澄清",
  },
  platform: {
    xiaohongshu: "小红书",
  },
  tool: {
    searchNotes: "检索笔记",
    analyzeTopTags: "热门标签分析",
    getTopTitles: "高互动标题",
    getTrendReport: "主题趋势",
    webSearch: "联网搜索",
    searchStyles: "匹配风格库",
    analyzeImage: "解析参考图",
  },
  task: {
    intent: "意图识别",
    clarify: "需求澄清",
    brief: "创作简报",
    evidence: "调研总结",
    reference: "参考图解析",
    vision: "参考图解析",
    writer: "撰写文案",
    layout: "版式规划",
    image_plan: "配图规划",
    review: "质量审核",
    supervisor: "主管调度",
    answer: "回答问题",
    web_search: "联网搜索",
    span_edit: "改写选中文字",
    "retrieval:search_notes": "检索笔记",
    "retrieval:search_styles": "检索风格库",
  },
  agent: {
    supervisor: "主管",
    intent: "意图识别",
    clarification: "需求澄清",
    brief_compiler_agent: "需求分析师",
    research_evidence_agent: "研究员",
    reference_intelligence_agent: "视觉分析师",
    writer_agent: "创作专家",
    content_checkpoint: "文案审核",
    layout_planner_agent: "版式设计师",
    image_planner_agent: "图片策划",
    plans_checkpoint: "配图审核",
    image_agent: "图片生成器",
    review_agent: "质量审核员",
    answer_agent: "答疑助手",
    image_editor: "图片编辑",
    finalize: "交付",
    END: "结束",
  },
  // tools/accounts.Role: a user's role (`role` above is an image's role)
  accountRole: {
    admin: "管理员",
    creator: "创作者",
    editor: "编辑",
    analyst: "分析师",
  },
  // an audit record's action (tools/labels.py `auditAction`)
  auditAction: {
    start: "发起创作",
    approve: "审核通过",
    reject: "驳回重写",
    modify: "修改后通过",
    answer: "回答澄清",
    cancel: "取消运行",
    resume: "继续运行",
    login: "登录",
    logout: "退出登录",
    login_link: "生成登录链接",
    user_add: "添加用户",
    user_disable: "停用用户",
    user_enable: "启用用户",
    password_change: "修改密码",
    token_create: "创建令牌",
    token_revoke: "吊销令牌",
    restore: "恢复版本",
    rewrite: "一键改写",
    revise: "修改作品",
    edit: "手动修改",
    image_edit: "编辑图片",
  },
  // what made a version of a creative (tools/labels.py `versionSource`)
  versionSource: {
    run: "创作运行",
    quick_action: "一键改写",
    restore: "恢复旧版",
    manual_edit: "手动修改",
    selection_edit: "选中改写",
    image_edit: "图片编辑",
  },
  // an element of a picture's analysis (tools/image_analysis): its kind, where its box came from, and
  // which part of a card's layout a text block is
  elementKind: { subject: "主体", panel: "面板", badge: "角标", text: "文字块" },
  elementSource: { layout: "版式", ocr: "识别", heuristic: "估计" },
  textSlot: {
    headline: "标题", subtitle: "副标题", item: "要点", caption: "话题标签", page: "页码",
    badge: "角标", motif: "主体名称", scene: "场景词", text: "文字",
  },
};

export const FALLBACK = {
  intent: "其他请求",
  contentType: "其他类型",
  theme: "其他主题",
  layout: "其他版式",
  role: "配图",
  density: "—",
  position: "—",
  block: "其他模块",
  dimension: "其他维度",
  status: "未知状态",
  imageStatus: "未知状态",
  source: "其他",
  usage: "参考",
  background: "其他背景",
  checkpoint: "待确认",
  platform: "其他平台",
  tool: "工具调用",
  task: "其他调用",
  agent: "其他环节",
  accountRole: "其他角色",
  auditAction: "其他操作",
  versionSource: "其他来源",
  elementKind: "元素",
  elementSource: "估计",
  textSlot: "文字",
};

const CJK = /[\u3400-\u9fff]/;

export function label(kind, value) {
  if (value === null || value === undefined || value === "") return "";
  const text = String(value);
  const table = TABLES[kind] || {};
  if (Object.prototype.hasOwnProperty.call(table, text)) return table[text];
  if (CJK.test(text)) return text;
  return FALLBACK[kind] || "其他";
}

/** Several values of one table, joined. */
export function labels(kind, values, sep = " / ") {
  return (values || []).map((v) => label(kind, v)).join(sep);
}

/** A model id as people read it: the built-in offline model by name, any other id as it is (a proper name). */
export function modelLabel(model) {
  if (!model) return "";
  return String(model).startsWith("studio/offline") ? "内置离线模型" : String(model);
}

export function agentLabel(name) {
  if (!name) return "系统";
  return String(name)
    .split("+")
    .map((part) => label("agent", part))
    .join(" + ");
}

// the tables by their old names (the modules that show them import these)
export const AGENTS = TABLES.agent;
export const DIMENSIONS = Object.fromEntries(Object.entries(TABLES.dimension).filter(([k]) => k !== "overall"));
export const DIMENSION_KEYS = Object.keys(DIMENSIONS);
export const STATUS = TABLES.status;
export const KIND = TABLES.checkpoint;
export const ROLES = TABLES.role;
export const REF_TYPES = TABLES.usage;
export const LAYOUTS = TABLES.layout;
export const DENSITY = TABLES.density;
export const POSITION = TABLES.position;

export function kindOf(ask) {
  const ctx = (ask && ask.context) || {};
  if (ctx.__clarification) return "clarification";
  return ctx.kind || "content";
}

export const BRIEF_FIELDS = [
  ["topic", "主题"],
  ["audience", "目标读者"],
  ["goal", "目标"],
  ["tone", "语气"],
  ["callToAction", "行动号召"],
];

// A card's layout (tools/art.py `LAYOUTS` and `LAYOUT_LABELS`): the layouts each picture role may use, by key,
// with what an editor sees. Kept out of TABLES (which mirrors tools/labels.py): the image editor's 版式 select.
export const CARD_LAYOUTS = {
  cover: [["classic", "左对齐大标题"], ["centered", "居中海报"], ["band", "色块标题"], ["frame", "杂志边框"]],
  detail: [["list", "编号清单"], ["steps", "步骤时间线"], ["tiles", "分栏卡片"]],
  result: [["checklist", "打勾清单"], ["takeaway", "金句总结"]],
};
