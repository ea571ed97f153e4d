"""The memory system: records in markdown files, a SQLite index, recall, writing."""

from familiars.memory.embeddings import (
    BUNDLED_MODEL_NAME,
    Embedder,
    SentenceTransformerEmbedder,
    content_hash,
    load_embedder,
)
from familiars.memory.errors import (
    EntryParseError,
    InvalidCellError,
    InvalidIdError,
    MemoryError_,
    RecordNotFoundError,
)
from familiars.memory.index import MemoryIndex, ReconcileReport
from familiars.memory.migrations import MigrationSet
from familiars.memory.paths import resolve_path
from familiars.memory.records import (
    CATEGORIES,
    SCOPES,
    VALID_CELLS,
    MemoryRecord,
    is_expired,
    is_live,
    new_id,
    valid_categories,
)
from familiars.memory.store import MemoryStore, StoreChange, StoreListener, make_record

__all__ = [
    "BUNDLED_MODEL_NAME",
    "CATEGORIES",
    "SCOPES",
    "VALID_CELLS",
    "Embedder",
    "EntryParseError",
    "InvalidCellError",
    "InvalidIdError",
    "MemoryError_",
    "MemoryIndex",
    "MemoryRecord",
    "MemoryStore",
    "MigrationSet",
    "RecordNotFoundError",
    "ReconcileReport",
    "SentenceTransformerEmbedder",
    "StoreChange",
    "StoreListener",
    "content_hash",
    "is_expired",
    "is_live",
    "load_embedder",
    "make_record",
    "new_id",
    "resolve_path",
    "valid_categories",
]
