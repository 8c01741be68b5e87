"""legion-memory: the executable memory layer for Legion's `.planning/memory/` tables."""

from .catalog import Catalog, load_catalog
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
from .outcomes import OutcomeInput, build_outcome
from .prune import auto_prune
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
from .scoring import agent_scores, archetype_scores, briefing
from .store import Memory, append, append_or_update, load_records, update
from .table import Document, Table, escape, parse, render, unescape

__all__ = [
    "ERROR_FIX",
    "KINDS",
    "OUTCOME",
    "PATTERN",
    "PREFERENCE",
    "Catalog",
    "Document",
    "GitError",
    "InputError",
    "IntegrityError",
    "Kind",
    "LegionMemoryError",
    "LockError",
    "Memory",
    "OutcomeInput",
    "ParseError",
    "Record",
    "RollbackError",
    "SchemaError",
    "Table",
    "WriteError",
    "agent_scores",
    "append",
    "append_or_update",
    "archetype_scores",
    "auto_prune",
    "briefing",
    "build_outcome",
    "escape",
    "forget",
    "kind_named",
    "load_catalog",
    "load_records",
    "new_record",
    "parse",
    "render",
    "restore",
    "unescape",
    "update",
]
__version__ = "0.1.0"
