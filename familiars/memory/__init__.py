"""The memory system: records in markdown files, a SQLite index, recall, writing."""

from familiars.memory._atomic import (
    DISK_FULL,
    atomic_write_text,
    is_disk_full,
)
from familiars.memory._backend import (
    RecordIndex,
)
from familiars.memory._consolidation_passes import (
    PassLog,
    UnknownPassError,
    last_pass,
    load_pass,
    pass_ids,
    undo_pass,
)
from familiars.memory._consolidation_work import (
    consolidation_due,
    consolidation_work,
    sweep_expired,
)
from familiars.memory._consolidator import (
    Consolidator,
)
from familiars.memory._database import (
    database_status,
    export_from_database,
    index_view,
    migrate_to_database,
)
from familiars.memory._dialog_reference import reference_choose_parent, reference_query
from familiars.memory._dialog_tree import (
    DialogTree,
    Node,
    is_forgotten,
    node_content_for_llm,
)
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._documents import (
    KNOBS as FILE_KNOBS,
)
from familiars.memory._documents import (
    DocumentError,
    DocumentFinder,
    FolderWatcher,
    FoundFile,
    context_lines,
    format_found,
    relevant_for_context,
)
from familiars.memory._embedder_loading import (
    load_embedder,
)
from familiars.memory._embeddings import (
    BUNDLED_MODEL_NAME,
    Embedder,
    SentenceTransformerEmbedder,
    content_hash,
    use_offline_models,
)
from familiars.memory._entries import (
    read_file as read_memory_file,
)
from familiars.memory._entries import (
    record_header,
)
from familiars.memory._errors import (
    DialogueError,
    EmbedderUnavailableError,
    EntryParseError,
    InvalidCellError,
    InvalidIdError,
    MemoryError_,
    RecallError,
    RecordNotFoundError,
    UnknownKnobError,
)
from familiars.memory._fact_identity import (
    FactMatch,
    fact_terms,
    same_fact,
    slot_of,
)
from familiars.memory._forget import (
    FileForgetting,
    ForgetReport,
    Forgetter,
    NodeRef,
    evidence_refs,
    file_ref,
    is_file_ref,
    is_node_ref,
    node_ref,
    parse_node_ref,
    remembered,
)
from familiars.memory._forget_files import (
    forgotten_of,
)
from familiars.memory._forget_intent import ForgetIntents
from familiars.memory._forget_person import (
    KEPT as PERSON_KEPT,
)
from familiars.memory._forget_person import (
    PeopleForgetting,
    PersonHoldings,
    is_person_ref,
    parse_person_ref,
    person_ref,
)
from familiars.memory._forget_plan import TurnsPlan
from familiars.memory._forget_repeats import Repeat, repeats_of
from familiars.memory._forget_values import (
    CALENDAR,
    TASTE,
    is_slot,
    mentions,
    slots_of,
    small_name,
    terms,
    values_of,
)
from familiars.memory._history import (
    HISTORY_SUFFIX,
)
from familiars.memory._index import (
    DB_NAME,
    MemoryIndex,
    ReconcileReport,
    fts_query,
    record_from_row,
)
from familiars.memory._index_view import (
    IndexView,
    RecordFilter,
)
from familiars.memory._lazy_embedder import (
    LazyEmbedder,
)
from familiars.memory._limits import (
    DEFAULT_MAX_RECORD_CHARS,
    OverLimit,
    RecordTooLongError,
    check_record_length,
    cut_text,
    over_limit,
    shown_record,
)
from familiars.memory._list_query import ListQuery
from familiars.memory._lock import (
    OwnerInfo,
    WorkspaceBusyError,
    WorkspaceLock,
    WorkspaceReadOnlyError,
    held_lock,
    is_owner,
    owned_elsewhere,
    read_only,
    read_owner,
)
from familiars.memory._migrations import (
    MigrationSet,
    apply_migrations,
    open_database,
    repair_database,
)
from familiars.memory._multilingual import (
    ScriptAwareEmbedder,
    looks_english,
    multilingual_fallback,
)
from familiars.memory._offline._asked_reminders import (
    alarm_in_the_morning,
    as_remind_me,
    remind_of_asked,
    settled_request,
)
from familiars.memory._offline._asking import (
    about_me,
    answer_records,
    asks_unknown,
)
from familiars.memory._offline._dates import (
    parse_when,
    past_time_at,
    reminder_content,
    said_past,
)
from familiars.memory._offline._every import every_text, next_due
from familiars.memory._offline._kept import Kept, derived_of
from familiars.memory._offline._kin_asked import kin_not_kept
from familiars.memory._offline._meaning import (
    PARTS as UNDERSTANDING_PARTS,
)
from familiars.memory._offline._meaning import (
    Understanding,
    understanding_for,
)
from familiars.memory._offline._restated import restated_instead
from familiars.memory._offline._time_words import (
    LAST_AFTERNOON_HOUR,
    afternoon_hour,
    day_said,
    plain_time,
)
from familiars.memory._offline._whose import Whose, fits_whose, whose_asked
from familiars.memory._offline._writes import (
    offline_writes,
)
from familiars.memory._onnx_embedder import (
    OnnxEmbedder,
)
from familiars.memory._paths import (
    AGENT_ID_RE,
    DIALOGUE_ID_RE,
    RECORD_ID_RE,
    USER_KEY_RE,
    check_agent_id,
    check_dialogue_id,
    check_user_key,
    resolve_path,
)
from familiars.memory._people_graph import (
    Edge,
    PeopleGraph,
    Person,
    build_graph,
    edges_in,
    own_edges,
    question_paths,
    relation_of,
)
from familiars.memory._people_index import (
    GraphHit,
    PeopleIndex,
    load_people,
)
from familiars.memory._pg import (
    DatabaseError,
    database_row_maker,
    database_url,
)
from familiars.memory._reader import (
    DEFAULT_BUDGETS_MS,
    PROFILE_STAGES,
    MemoryReader,
    RecallItem,
    node_embedding_text,
)
from familiars.memory._recall_context import CONTEXT_MESSAGES, recent_messages
from familiars.memory._recall_context import Reading as ContextReading
from familiars.memory._recall_items import RELEVANCE_FLOOR, relevance_floor, relevant
from familiars.memory._recall_signals import (
    RECALL_KNOBS,
    RECALL_SIGNALS,
)
from familiars.memory._records import (
    CATEGORIES,
    SCOPES,
    VALID_CELLS,
    MemoryRecord,
    check_cell,
    is_expired,
    is_live,
    iso_now,
    new_id,
    parse_ts,
    utcnow,
    valid_categories,
)
from familiars.memory._redaction import Redactor
from familiars.memory._rerank import (
    Reranker,
    Scorer,
    TreeReranker,
    load_reranker,
)
from familiars.memory._scoring import (
    Signal,
    SignalGate,
    minmax,
)
from familiars.memory._state_home import (
    QUEUE_PREFIX,
    FileStateHome,
    QueuedTurn,
    StateHome,
)
from familiars.memory._store import (
    MemoryStore,
    StoreChange,
    StoreListener,
    make_record,
)
from familiars.memory._subqueries import (
    ModelSubqueries,
    Subquery,
    SubqueryWriter,
)
from familiars.memory._text import (
    content_words,
    keyword_terms,
    sentences,
)
from familiars.memory._watcher import (
    MemoryWatcher,
)
from familiars.memory._workspace import (
    MemoryWorkspace,
    embedder_from_settings,
    open_state_home,
    open_workspace,
)
from familiars.memory._write_requests import (
    WRITE_OPS,
    OwnerUnreachableError,
    apply_write,
    record_json,
    repair_index,
    send_request,
)
from familiars.memory._writer._apply import (
    apply_writes,
    apply_writes_report,
)
from familiars.memory._writer._dedupe import (
    EmbedderVectors,
)
from familiars.memory._writer._model import (
    MemoryWriter,
)
from familiars.memory._writer._queue import (
    WriterQueue,
)
from familiars.memory._writer._rights import (
    TAINTED_TURN_TAG,
    asks_behaviour,
    defies_data_rule,
)
from familiars.memory._writer._schema import (
    WriteOp,
    rule_from_first,
    rule_lacks,
)
from familiars.memory._writer._status import (
    WriterStats,
    load_status,
    status_path,
)
from familiars.memory._writer._status import (
    save_status as save_writer_status,
)
from familiars.memory._writer._turn import (
    TurnContext,
)

__all__ = [
    "QUEUE_PREFIX",
    "Redactor",
    "open_state_home",
    "FileStateHome",
    "QueuedTurn",
    "StateHome",
    "TAINTED_TURN_TAG",
    "forgotten_of",
    "WriterStats",
    "apply_writes",
    "apply_writes_report",
    "read_memory_file",
    "save_writer_status",
    "AGENT_ID_RE",
    "BUNDLED_MODEL_NAME",
    "CATEGORIES",
    "DISK_FULL",
    "DB_NAME",
    "DEFAULT_BUDGETS_MS",
    "DEFAULT_MAX_RECORD_CHARS",
    "DIALOGUE_ID_RE",
    "FILE_KNOBS",
    "HISTORY_SUFFIX",
    "PROFILE_STAGES",
    "RECALL_KNOBS",
    "RECALL_SIGNALS",
    "RECORD_ID_RE",
    "SCOPES",
    "USER_KEY_RE",
    "VALID_CELLS",
    "WRITE_OPS",
    "Consolidator",
    "EmbedderVectors",
    "GraphHit",
    "Edge",
    "PeopleGraph",
    "PeopleIndex",
    "Person",
    "build_graph",
    "edges_in",
    "own_edges",
    "load_people",
    "question_paths",
    "relation_of",
    "PassLog",
    "UnknownPassError",
    "consolidation_due",
    "consolidation_work",
    "last_pass",
    "load_pass",
    "pass_ids",
    "sweep_expired",
    "undo_pass",
    "DialogTree",
    "DialogTrees",
    "DatabaseError",
    "DialogueError",
    "DocumentError",
    "DocumentFinder",
    "Embedder",
    "EmbedderUnavailableError",
    "EntryParseError",
    "FactMatch",
    "FolderWatcher",
    "ForgetIntents",
    "ForgetReport",
    "FileForgetting",
    "PERSON_KEPT",
    "PeopleForgetting",
    "PersonHoldings",
    "is_person_ref",
    "parse_person_ref",
    "person_ref",
    "Forgetter",
    "Repeat",
    "repeats_of",
    "CALENDAR",
    "TASTE",
    "is_slot",
    "mentions",
    "slots_of",
    "small_name",
    "terms",
    "values_of",
    "TurnsPlan",
    "rule_from_first",
    "rule_lacks",
    "FoundFile",
    "IndexView",
    "InvalidCellError",
    "InvalidIdError",
    "LazyEmbedder",
    "OnnxEmbedder",
    "MemoryError_",
    "MemoryIndex",
    "MemoryReader",
    "MemoryRecord",
    "ListQuery",
    "MemoryStore",
    "MemoryWatcher",
    "MemoryWorkspace",
    "MemoryWriter",
    "MigrationSet",
    "ModelSubqueries",
    "Node",
    "NodeRef",
    "OverLimit",
    "OwnerInfo",
    "OwnerUnreachableError",
    "RecallError",
    "RecallItem",
    "RELEVANCE_FLOOR",
    "relevance_floor",
    "ReconcileReport",
    "RecordFilter",
    "RecordIndex",
    "RecordNotFoundError",
    "RecordTooLongError",
    "UNDERSTANDING_PARTS",
    "Understanding",
    "Reranker",
    "Scorer",
    "SentenceTransformerEmbedder",
    "Signal",
    "SignalGate",
    "StoreChange",
    "StoreListener",
    "Subquery",
    "SubqueryWriter",
    "TreeReranker",
    "TurnContext",
    "UnknownKnobError",
    "WorkspaceBusyError",
    "WorkspaceLock",
    "WorkspaceReadOnlyError",
    "WriteOp",
    "WriterQueue",
    "apply_migrations",
    "apply_write",
    "atomic_write_text",
    "is_disk_full",
    "check_agent_id",
    "check_cell",
    "check_dialogue_id",
    "check_record_length",
    "check_user_key",
    "content_hash",
    "content_words",
    "context_lines",
    "cut_text",
    "database_status",
    "database_row_maker",
    "database_url",
    "day_said",
    "asks_behaviour",
    "defies_data_rule",
    "export_from_database",
    "embedder_from_settings",
    "fact_terms",
    "format_found",
    "fts_query",
    "index_view",
    "is_expired",
    "is_forgotten",
    "is_live",
    "file_ref",
    "is_file_ref",
    "is_node_ref",
    "held_lock",
    "is_owner",
    "iso_now",
    "keyword_terms",
    "CONTEXT_MESSAGES",
    "ContextReading",
    "recent_messages",
    "evidence_refs",
    "remembered",
    "restated_instead",
    "load_embedder",
    "looks_english",
    "multilingual_fallback",
    "ScriptAwareEmbedder",
    "load_reranker",
    "load_status",
    "make_record",
    "migrate_to_database",
    "minmax",
    "new_id",
    "node_content_for_llm",
    "node_embedding_text",
    "node_ref",
    "offline_writes",
    "about_me",
    "answer_records",
    "kin_not_kept",
    "Kept",
    "derived_of",
    "alarm_in_the_morning",
    "as_remind_me",
    "asks_unknown",
    "understanding_for",
    "open_database",
    "open_workspace",
    "over_limit",
    "owned_elsewhere",
    "parse_node_ref",
    "parse_ts",
    "parse_when",
    "plain_time",
    "afternoon_hour",
    "LAST_AFTERNOON_HOUR",
    "every_text",
    "fits_whose",
    "Whose",
    "whose_asked",
    "next_due",
    "read_only",
    "read_owner",
    "relevant",
    "record_from_row",
    "record_header",
    "record_json",
    "reference_choose_parent",
    "reference_query",
    "relevant_for_context",
    "remind_of_asked",
    "reminder_content",
    "repair_database",
    "repair_index",
    "resolve_path",
    "past_time_at",
    "said_past",
    "same_fact",
    "send_request",
    "sentences",
    "settled_request",
    "shown_record",
    "slot_of",
    "status_path",
    "use_offline_models",
    "utcnow",
    "valid_categories",
]
