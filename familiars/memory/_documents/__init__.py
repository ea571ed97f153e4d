"""Finding files: documents a person sends or keeps become searchable memory.

:class:`DocumentFinder` indexes PDF, DOCX, text, markdown, CSV and source files (chunk 0 a
summary, one chunk per page, 1,500-character windows), searches them with dense + keyword
fusion and seven ablatable ranking knobs, keeps an edit-history sidecar per file, and
:class:`FolderWatcher` keeps watched folders indexed.
"""

from familiars.memory._documents.chunking import Chunk, chunk_document
from familiars.memory._documents.errors import (
    BadFileNameError,
    CorruptFileError,
    DocumentError,
    DocumentSkipped,
    EmptyFileError,
    EncryptedFileError,
    FileAccessError,
    FileTooLargeError,
    UnsafePathError,
    UnsupportedFileError,
)
from familiars.memory._documents.extract import Extracted, extract
from familiars.memory._documents.finder import DocumentFinder
from familiars.memory._documents.history import EditHistory, FileHistory, Version
from familiars.memory._documents.knobs import FILE_SIGNALS, KNOBS, parse_query
from familiars.memory._documents.present import context_lines, format_found, relevant_for_context
from familiars.memory._documents.results import (
    FileBlob,
    FileInfo,
    FoundFile,
    IndexResult,
    RebuildReport,
)
from familiars.memory._documents.schema import migrations
from familiars.memory._documents.watcher import Debouncer, FolderWatcher

__all__ = [
    "FILE_SIGNALS",
    "KNOBS",
    "BadFileNameError",
    "Chunk",
    "CorruptFileError",
    "Debouncer",
    "DocumentError",
    "DocumentFinder",
    "DocumentSkipped",
    "EditHistory",
    "EmptyFileError",
    "EncryptedFileError",
    "Extracted",
    "FileAccessError",
    "FileBlob",
    "FileHistory",
    "FileInfo",
    "FileTooLargeError",
    "FolderWatcher",
    "FoundFile",
    "IndexResult",
    "RebuildReport",
    "UnsafePathError",
    "UnsupportedFileError",
    "Version",
    "chunk_document",
    "context_lines",
    "extract",
    "format_found",
    "migrations",
    "parse_query",
    "relevant_for_context",
]
