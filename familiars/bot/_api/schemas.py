"""The API's request limits and response models: together they are the OpenAPI contract."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from familiars.bot._api.queries import CURSOR_RE
from familiars.memory import AGENT_ID_RE, CATEGORIES, DIALOGUE_ID_RE, SCOPES, USER_KEY_RE

USER_KEY_PATTERN = USER_KEY_RE.pattern
AGENT_ID_PATTERN = AGENT_ID_RE.pattern
DIALOGUE_ID_PATTERN = DIALOGUE_ID_RE.pattern
CURSOR_PATTERN = CURSOR_RE.pattern
MAX_PAGE = 500
DEFAULT_PAGE = 50
MAX_QUERY_CHARS = 500

Scope = Literal["user", "identity", "dialogue", "ephemeral"]
Category = Literal[
    "profile", "preference", "relation", "knowledge", "event", "state", "procedure", "directive"
]
assert set(Scope.__args__) == set(SCOPES)  # type: ignore[attr-defined]
assert set(Category.__args__) == set(CATEGORIES)  # type: ignore[attr-defined]


class Problem(BaseModel):
    """A refusal: 401, 404. Says what is wrong without leaking anything."""

    detail: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"


# ----------------------------------------------------------------------------------- status


class CellCounts(BaseModel):
    scope: str
    category: str
    live: int = Field(ge=0, description="Neither deprecated nor expired.")
    deprecated: int = Field(ge=0)
    expired: int = Field(ge=0, description="Not deprecated, but past an absolute TTL.")
    pinned: int = Field(ge=0)


class RecordTotals(BaseModel):
    total: int = Field(ge=0)
    live: int = Field(ge=0)
    deprecated: int = Field(ge=0)
    expired: int = Field(ge=0)
    pinned: int = Field(ge=0)


class RecordCounts(BaseModel):
    totals: RecordTotals
    cells: list[CellCounts]


class StorageInfo(BaseModel):
    memory_files: int = Field(ge=0)
    memory_bytes: int = Field(ge=0)
    history_files: int = Field(ge=0)
    history_bytes: int = Field(ge=0)
    index_path: str
    index_present: bool
    index_bytes: int = Field(ge=0, description="familiars.db with its -wal and -shm files.")


class EmbeddingSpace(BaseModel):
    model: str
    dim: int
    vectors: int = Field(ge=0)


class EmbeddingInfo(BaseModel):
    configured_model: str
    model: str | None = Field(description="The model in use (None: none loaded here).")
    dim: int | None
    fallback_from: str | None = Field(
        default=None, description="The configured model that could not be loaded."
    )
    backend: str | None = Field(
        default=None, description='What runs the model: "onnx" (onnxruntime) or "torch".'
    )
    spaces: list[EmbeddingSpace]


class RecallStats(BaseModel):
    available: bool
    source: Literal["live", "persisted", "absent"]
    recalls: int | None = None
    items_per_recall: float | None = None
    hit_rate: float | None = Field(
        default=None, description="Recalled items later used in a reply or a command."
    )
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class SourceBlock(BaseModel):
    """A part of the status another service reports (its own shape, kept as given)."""

    available: bool
    source: Literal["live", "persisted", "absent"]
    data: dict[str, Any] = Field(default_factory=dict)


class ProviderInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    model: str = ""
    status: str = "ok"
    cooling_until: float | None = None
    cooldown_left_s: float | None = None
    last_error: str | None = None


class ProvidersBlock(BaseModel):
    available: bool
    source: Literal["live", "persisted", "absent"]
    providers: list[ProviderInfo] = Field(default_factory=list)


class GateBlock(BaseModel):
    available: bool
    source: Literal["live", "persisted", "absent"]
    residents: list[dict[str, Any]] = Field(default_factory=list)
    budget_mb: float | None = None
    committed_mb: float | None = None
    free_mb: float | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class MemoryStatus(BaseModel):
    generated_at: str
    workspace: str
    records: RecordCounts
    storage: StorageInfo
    embedding: EmbeddingInfo
    recall: RecallStats
    writer: SourceBlock
    providers: ProvidersBlock
    gate: GateBlock
    #: The running scheduler's jobs and their next run (as it last saved them).
    scheduler: dict[str, Any] = Field(default_factory=dict)
    #: The last consolidation pass: merged, deprecated, expired, stopped (issue 25).
    consolidation: dict[str, Any] | None = None
    elapsed_ms: float = Field(ge=0, description="Time taken to collect this status.")


# ----------------------------------------------------------------------------------- records


class RecordOut(BaseModel):
    id: str
    scope: str
    category: str
    ts: str
    content: str
    tags: list[str]
    salience: float
    ttl: dict[str, Any] | None
    supersedes: str | None
    deprecated: bool
    expired: bool
    pinned: bool
    epistemic_status: str
    access_count: int
    last_accessed_ts: str | None
    user_key: str | None
    agent_id: str | None
    dialogue_id: str | None
    path: str
    extra: dict[str, Any] = Field(default_factory=dict)


class MemoryPage(BaseModel):
    items: list[RecordOut]
    limit: int
    next_cursor: str | None = Field(
        description="Pass as ``cursor`` for the next page; None on the last page."
    )


# ----------------------------------------------------------------------------------- release


class FreedModel(BaseModel):
    model_id: str
    estimated_mb: float
    shared: bool = Field(description="Used by every agent (loads again on next use).")


class RefusedModel(BaseModel):
    model_id: str
    reason: str


class ReleaseResult(BaseModel):
    agent_id: str
    gate_available: bool = Field(
        description="False when this process has no gate (the API served alone)."
    )
    freed: list[FreedModel]
    freed_mb: float
    refused: list[RefusedModel]


#: What ``DELETE /api/memory/{item_id}`` takes: a memory id, a turn id or a document id.
FORGET_ID_PATTERN = (
    r"^(?:m_[A-Za-z0-9_-]{1,64}|node:[A-Za-z0-9_-]{1,64}/dialogue_[0-9]{1,9}/[0-9]{1,9}"
    r"|file:[0-9a-f]{24}|person:[A-Za-z0-9][A-Za-z0-9_-]{0,63})$"
)


class ForgetResult(BaseModel):
    id: str
    records: list[str] = Field(description="The memories forgotten.")
    nodes: list[str] = Field(description="The turns forgotten (tombstones left).")
    repeats: list[str] = Field(
        default_factory=list,
        description="Those of ``nodes`` that were the person's other messages saying a "
        "forgotten memory's value again (its town, its pet's name), taken with it.",
    )
    files: list[str] = Field(
        default_factory=list, description="The documents forgotten (``file:...``): their paths."
    )
    people: list[str] = Field(
        default_factory=list,
        description="A whole person forgotten (``person:KEY``): every key of theirs.",
    )
    state: list[str] = Field(
        default_factory=list,
        description="What the bot's state dropped of them (names, links, sign-ins).",
    )
