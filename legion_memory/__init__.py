"""legion-memory: the executable memory layer for Legion's `.planning/memory/` tables."""

from .errors import (
    GitError,
    InputError,
    IntegrityError,
    LegionMemoryError,
    LockError,
    ParseError,
    RollbackError,
    SchemaError,
    WriteError,
)
from .forgetting import forget, restore
from .schema import (
    ERROR_FIX,
    KINDS,
    OUTCOME,
    PATTERN,
    PREFERENCE,
    Kind,
    Record,
    kind_named,
    new_record,
)
from .store import Memory, append, load_records, update
from .table import Document, Table, escape, parse, render, unescape

__all__ = [
    "ERROR_FIX",
    "KINDS",
    "OUTCOME",
    "PATTERN",
    "PREFERENCE",
    "Document",
    "GitError",
    "InputError",
    "IntegrityError",
    "Kind",
    "LegionMemoryError",
    "LockError",
    "Memory",
    "ParseError",
    "Record",
    "RollbackError",
    "SchemaError",
    "Table",
    "WriteError",
    "append",
    "escape",
    "forget",
    "kind_named",
    "load_records",
    "new_record",
    "parse",
    "render",
    "restore",
    "unescape",
    "update",
]
__version__ = "0.1.0"
