"""legion-memory: the executable memory layer for Legion's `.planning/memory/` tables.

The public API is imported on first use (PEP 562): every command line call imports this package,
and a hot command must not pay for the modules it does not run.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: importing typing costs the git hooks' call on clean memory a tenth.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from legion_memory.errors import (
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
    from legion_memory.knowledge.outcomes import OutcomeInput, build_outcome
    from legion_memory.knowledge.scoring import agent_scores, archetype_scores, briefing
    from legion_memory.markdown.document import Document, Table, escape, parse, render, unescape
    from legion_memory.project.catalog import Catalog, load_catalog
    from legion_memory.schema.kinds import (
        ERROR_FIX,
        KINDS,
        OUTCOME,
        PATTERN,
        PREFERENCE,
        Kind,
        kind_named,
        new_record,
    )
    from legion_memory.schema.records import Record
    from legion_memory.storage.reading import Memory, load_records
    from legion_memory.storage.writing import append, append_or_update, update
    from legion_memory.upkeep.forgetting import forget, restore
    from legion_memory.upkeep.prune import auto_prune

_HOMES = {
    "project.catalog": ("Catalog", "load_catalog"),
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
    "upkeep.forgetting": ("forget", "restore"),
    "knowledge.outcomes": ("OutcomeInput", "build_outcome"),
    "upkeep.prune": ("auto_prune",),
    "schema.kinds": (
        "ERROR_FIX",
        "KINDS",
        "OUTCOME",
        "PATTERN",
        "PREFERENCE",
        "Kind",
        "kind_named",
        "new_record",
    ),
    "schema.records": ("Record",),
    "knowledge.scoring": ("agent_scores", "archetype_scores", "briefing"),
    "storage.reading": ("Memory", "load_records"),
    "storage.writing": ("append", "append_or_update", "update"),
    "markdown.document": ("Document", "Table", "escape", "parse", "render", "unescape"),
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
    from importlib import import_module

    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'legion_memory' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
