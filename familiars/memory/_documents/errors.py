"""Errors of the document finder.

    DocumentError (base; a MemoryError_)
    ├── DocumentSkipped          a file was not indexed; ``reason`` says why, for the person
    │   ├── UnsupportedFileError     unknown or binary file type
    │   ├── EncryptedFileError       password-protected PDF or Office file
    │   ├── CorruptFileError         the file does not parse as what its name says
    │   ├── EmptyFileError           zero bytes, or nothing but whitespace
    │   ├── FileTooLargeError        over ``files.max_file_mb``
    │   ├── UnsafePathError          a symlink that leaves the folder, or not a regular file
    │   └── BadFileNameError         control characters, undecodable bytes, too long
    └── FileAccessError          a found file that does not exist or is not the asker's

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations

from pathlib import Path

from familiars.memory._errors import MemoryError_


class DocumentError(MemoryError_):
    """Base of every error raised by ``familiars.memory._documents``."""


class DocumentSkipped(DocumentError):
    """A file that was left out of the index, with the reason a person can read."""

    code = "skipped"

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class UnsupportedFileError(DocumentSkipped):
    code = "unsupported"


class EncryptedFileError(DocumentSkipped):
    code = "encrypted"


class CorruptFileError(DocumentSkipped):
    code = "corrupt"


class EmptyFileError(DocumentSkipped):
    code = "empty"


class FileTooLargeError(DocumentSkipped):
    code = "too_large"


class UnsafePathError(DocumentSkipped):
    code = "unsafe_path"


class BadFileNameError(DocumentSkipped):
    code = "bad_name"


class FileAccessError(DocumentError, LookupError):
    """The asked-for file is not in the index, or belongs to someone else (same message, so
    nobody learns what others keep)."""

    def __init__(self, file_id: str) -> None:
        super().__init__(f"no file {file_id!r} is available to you")
        self.file_id = file_id
