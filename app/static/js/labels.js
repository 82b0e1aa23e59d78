// Chinese labels for the protocol's identifiers.

export const AGENTS = {
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
  answer_agent: "问答助手",
  finalize: "交付",
  END: "结束",
};

export function agentLabel(name) {
  if (!name) return "系统";
  return String(name)
    .split("+")
    .map((part) => AGENTS[part] || part)
    .join(" + ");
}

export const DIMENSIONS = {
  infoDensity: "信息密度",
  textImageAlignment: "图文一致",
  styleConsistency: "风格统一",
  readability: "可读性",
  platformFit: "平台适配",
};
export const DIMENSION_KEYS = Object.keys(DIMENSIONS);

export const STATUS = {
  draft: "草稿",
  running: "生成中",
  paused: "待审核",
  completed: "已完成",
  failed: "失败",
  aborted: "已中止",
};

export const KIND = {
  content: "文案审核",
  image_plans: "配图规划审核",
  clarification: "需求澄清",
};

export function kindOf(ask) {
  const ctx = (ask && ask.context) || {};
  if (ctx.__clarification) return "clarification";
  return ctx.kind || "content";
}

export const ROLES = { cover: "封面", detail: "内页", result: "总结页" };
export const REF_TYPES = { style: "风格参考", layout: "版式参考", content: "内容参考" };
export const LAYOUTS = { balanced: "均衡", dense: "信息密集", "visual-first": "图片优先" };
export const DENSITY = { low: "少", medium: "中", high: "多" };
export const POSITION = { top: "上方", center: "居中", bottom: "下方" };

export const BRIEF_FIELDS = [
  ["topic", "主题"],
  ["audience", "目标读者"],
  ["goal", "目标"],
  ["tone", "语气"],
  ["callToAction", "行动号召"],
];
