"""legion-memory: the executable memory layer for Legion's `.planning/memory/` tables.

The public API is imported on first use (PEP 562): every command line call imports this package,
and a hot command must not pay for the modules it does not run.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from .reading import Memory, load_records
    from .records import Record
    from .schema import ERROR_FIX, KINDS, OUTCOME, PATTERN, PREFERENCE, Kind, kind_named, new_record
    from .scoring import agent_scores, archetype_scores, briefing
    from .store import append, append_or_update, update
    from .table import Document, Table, escape, parse, render, unescape

_HOMES = {
    "catalog": ("Catalog", "load_catalog"),
    "errors": (
        "GitError",
        "InputError",
        "IntegrityError",
        "LegionMemoryError",
        "LockError",
        "ParseError",
        "RollbackError",
        "SchemaError",
        "WriteError",
    ),
    "forgetting": ("forget", "restore"),
    "outcomes": ("OutcomeInput", "build_outcome"),
    "prune": ("auto_prune",),
    "schema": (
        "ERROR_FIX",
        "KINDS",
        "OUTCOME",
        "PATTERN",
        "PREFERENCE",
        "Kind",
        "kind_named",
        "new_record",
    ),
    "records": ("Record",),
    "scoring": ("agent_scores", "archetype_scores", "briefing"),
    "reading": ("Memory", "load_records"),
    "store": ("append", "append_or_update", "update"),
    "table": ("Document", "Table", "escape", "parse", "render", "unescape"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'legion_memory' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
