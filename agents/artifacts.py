"""Artifacts: what each agent produces, as pydantic models with constrained, documented fields.

Field names are snake_case in Python and camelCase on the wire (`model_dump(by_alias=True)`), because
artifacts travel in SSE events and `/api/creatives` responses (see docs/protocol.md).

Each agent's LLM output model (`*Output`) is what the model is asked to return; the agent may combine it
with tool results into the artifact stored in state.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=24)]
HexColor = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]
Score = Annotated[float, Field(ge=0, le=1)]

Intent = Literal["full_post", "image_only", "question", "time_query"]
ContentType = Literal["guide", "review", "story", "list", "edu", "product", "billboard", "diary"]
ImageRole = Literal["cover", "detail", "result"]
TextDensity = Literal["low", "medium", "high"]
TextPosition = Literal["top", "center", "bottom"]
LayoutPreference = Literal["dense", "balanced", "visual-first"]
Dimension = Literal["infoDensity", "textImageAlignment", "styleConsistency", "readability", "platformFit"]
DIMENSIONS: tuple[Dimension, ...] = (
    "infoDensity",
    "textImageAlignment",
    "styleConsistency",
    "readability",
    "platformFit",
)
# The dimensions an image-only package (no post text) is judged on.
IMAGE_DIMENSIONS: tuple[Dimension, ...] = ("textImageAlignment", "styleConsistency", "readability")


class Artifact(BaseModel):
    """Base: camelCase aliases on the wire, either name accepted on input."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)


# --- intent (seed 004) ------------------------------------------------------------------------------
class IntentOutput(Artifact):
    """How to handle a request: a full post, images only, a question to answer, or a time query."""

    intent: Intent
    confidence: Score = Field(description="0..1; below the threshold the rule-based fallback decides.")
    keywords: list[Tag] = Field(default_factory=list, max_length=12)
    suggested_category: str = Field("", max_length=40, description="A corpus theme, e.g. outdoor, food.")
    content_type: ContentType = "guide"
    content_type_confidence: Score = 0.5
    reasoning: str = Field("", max_length=400)
    needs_web_search: bool = False


# --- brief ------------------------------------------------------------------------------------------
class Brief(Artifact):
    """The structured creative brief every later agent works from."""

    topic: ShortText
    angle: str = Field(
        "", max_length=200, description="The slant within the topic, e.g. from a clarification answer."
    )
    audience: ShortText
    goal: ShortText
    tone: ShortText
    constraints: list[ShortText] = Field(default_factory=list, max_length=10)
    keywords: list[Tag] = Field(min_length=1, max_length=12)
    call_to_action: ShortText
    theme: str = Field("", max_length=40, description="Best-matching corpus theme, '' when unknown.")
    content_type: ContentType = "guide"
    platform: str = "xiaohongshu"


# --- research ---------------------------------------------------------------------------------------
class EvidenceFact(Artifact):
    text: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    source_id: str | None = None
    source_title: str | None = None


class EvidenceSummaryOutput(Artifact):
    """What the model distils from the research tools' results."""

    summary: Annotated[str, StringConstraints(min_length=1, max_length=600)]
    facts: list[EvidenceFact] = Field(default_factory=list, max_length=12)
    title_patterns: list[ShortText] = Field(default_factory=list, max_length=8)
    recommended_tags: list[Tag] = Field(default_factory=list, max_length=12)
    angles: list[ShortText] = Field(default_factory=list, max_length=6, description="Angles worth writing.")


class NoteRef(Artifact):
    id: str
    title: str
    likes: int = 0
    collects: int = 0


class EvidencePack(EvidenceSummaryOutput):
    """The summary plus the raw references it is grounded on."""

    top_tags: list[Tag] = Field(default_factory=list, max_length=20)
    top_titles: list[str] = Field(default_factory=list, max_length=10)
    notes: list[NoteRef] = Field(default_factory=list, max_length=20)
    web_findings: str | None = None
    gaps: list[str] = Field(
        default_factory=list, max_length=6, description="What the corpus has nothing on (a place, a topic)."
    )


# --- reference images -------------------------------------------------------------------------------
class ReferenceInsightOutput(Artifact):
    """The model's reading of one reference image (from the pixel analysis or a vision model)."""

    style: ShortText
    mood: ShortText
    palette: list[HexColor] = Field(default_factory=list, max_length=8)
    layout: ShortText
    style_keywords: list[Tag] = Field(default_factory=list, max_length=10)
    text_regions: list[str] = Field(default_factory=list, max_length=10)
    summary: Annotated[str, StringConstraints(min_length=1, max_length=400)]


class ReferenceAnalysis(ReferenceInsightOutput):
    """One analysed reference image; `usage` says how the creator wants it used."""

    asset_id: int | None = None
    usage: Literal["style", "layout", "content"] = "style"
    brightness: Score | None = None
    text_density: TextDensity | None = None


# --- writer -----------------------------------------------------------------------------------------
class Draft(Artifact):
    """The post: title, body (paragraphs separated by blank lines) and tags (without '#')."""

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=40)]
    body: Annotated[str, StringConstraints(strip_whitespace=True, min_length=20, max_length=3000)]
    tags: list[Tag] = Field(min_length=1, max_length=12)

    def paragraphs(self) -> list[str]:
        return [p.strip() for p in self.body.split("\n\n") if p.strip()]


class SpanRewrite(Artifact):
    """The new text of a passage of the body the creator selected ("" deletes it)."""

    text: str = Field("", max_length=1500)


# --- layout -----------------------------------------------------------------------------------------
class LayoutItem(Artifact):
    index: int = Field(ge=1, description="1-based image position.")
    role: ImageRole
    visual_focus: ShortText
    text_density: TextDensity = "medium"
    text_position: TextPosition = "center"
    blocks: list[str] = Field(default_factory=list, max_length=8, description="e.g. headline, bullets.")
    paragraph_indexes: list[int] = Field(default_factory=list, description="0-based paragraphs shown.")


class LayoutSpec(Artifact):
    preference: LayoutPreference = "balanced"
    items: list[LayoutItem] = Field(min_length=1, max_length=9)
    notes: str = Field("", max_length=400)


# --- image planning ---------------------------------------------------------------------------------
class TextOverlay(Artifact):
    """Text drawn on one image."""

    image_index: int = Field(ge=1)
    headline: str | None = Field(None, max_length=40)
    lines: list[Annotated[str, StringConstraints(max_length=60)]] = Field(default_factory=list, max_length=8)
    caption: str | None = Field(None, max_length=80)
    position: TextPosition = "center"
    # the number of the first line when a list continues from the card before (a split list counts on)
    first_number: int = Field(1, ge=1, le=60)


class ParagraphImageBinding(Artifact):
    paragraph_index: int = Field(ge=0)
    image_index: int = Field(ge=1)
    reason: str = Field("", max_length=200)


class ImagePlan(Artifact):
    """One image to generate. `prompt` is final (style-enhanced); `base_prompt` is the planner's own."""

    index: int = Field(ge=1)
    role: ImageRole
    subject: ShortText
    base_prompt: Annotated[str, StringConstraints(min_length=1, max_length=800)]
    prompt: str = Field("", max_length=1200)
    style: str | None = Field(None, max_length=40, description="Style library entry used, if any.")
    style_similarity: Score | None = None
    palette: list[HexColor] = Field(default_factory=list, max_length=8)
    background: Literal["gradient", "solid", "split", "pattern"] = "gradient"
    layout: str | None = Field(None, max_length=20, description="Card layout (tools.art.LAYOUTS), e.g. band.")
    overlay: TextOverlay | None = Field(None, description="The editor's own overlay text for this image.")
    # set by an edit of the picture's parameters (agents.image_edit), never by a planner: kept out of the
    # models' schema
    text_scale: SkipJsonSchema[float] = Field(1.0, ge=0.7, le=1.4)
    badge: SkipJsonSchema[bool] = True
    painted: SkipJsonSchema[bool] = False  # painted over, its text redrawn or cropped after the render


class ImagePlanOutput(Artifact):
    """The planner's answer: plans, which paragraph each image illustrates, and the text overlays."""

    plans: list[ImagePlan] = Field(min_length=1, max_length=9)
    bindings: list[ParagraphImageBinding] = Field(default_factory=list, max_length=40)
    overlays: list[TextOverlay] = Field(default_factory=list, max_length=9)
    style_query: str = Field("", max_length=200, description="What to look up in the style library.")


# --- review -----------------------------------------------------------------------------------------
class DimensionScores(Artifact):
    info_density: Score
    text_image_alignment: Score
    style_consistency: Score
    readability: Score
    platform_fit: Score


class ReviewOutput(Artifact):
    """The reviewer's scores with reasons; pass/fail is decided by the thresholds in settings."""

    scores: DimensionScores
    overall: Score
    fail_reasons: list[str] = Field(default_factory=list, max_length=10)
    suggestions: list[str] = Field(default_factory=list, max_length=10)


class QualityReport(ReviewOutput):
    round: int = Field(ge=1)
    passed: bool
    checks: list[dict[str, str]] = Field(
        default_factory=list,
        description="The deterministic checks that failed: {check, dimension, owner, reason}.",
    )
    warnings: list[str] = Field(
        default_factory=list, description="Checks failed by text an editor wrote: reported, not redone."
    )


# --- supervisor fallback ----------------------------------------------------------------------------
class SupervisorChoiceOutput(Artifact):
    """The LLM fallback's pick; the agent field is narrowed to an allowlist enum at call time."""

    next_agent: str
    reason: str = Field("", max_length=300)
