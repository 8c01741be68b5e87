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
    from legion_memory.markdown.cells import escape, unescape
    from legion_memory.markdown.document import Document, Table, parse, render
    from legion_memory.operations.common import Recalled
    from legion_memory.operations.knowledge import (
        PreferenceScores,
        StoredRecord,
        recall_errors,
        recall_patterns,
        recall_preferences,
        score_preferences,
        store_error,
        store_pattern,
        store_preference,
    )
    from legion_memory.operations.outcomes import (
        Scores,
        StoredOutcome,
        memory_briefing,
        recall_outcomes,
        score_agents,
        score_archetypes,
        store_outcome,
    )
    from legion_memory.operations.project import Project
    from legion_memory.operations.prompt_context import AgentContext, agent_context
    from legion_memory.operations.retrieval import Found, search_memory
    from legion_memory.operations.upkeep import MovedRecord, forget_record, restore_record
    from legion_memory.operations.validation import Validation, validate
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
    "markdown.document": ("Document", "Table", "parse", "render"),
    "markdown.cells": ("escape", "unescape"),
    # One function per operation, as the command line, the MCP server and batch mode call them.
    "operations.project": ("Project",),
    "operations.common": ("Recalled",),
    "operations.outcomes": (
        "Scores",
        "StoredOutcome",
        "memory_briefing",
        "recall_outcomes",
        "score_agents",
        "score_archetypes",
        "store_outcome",
    ),
    "operations.knowledge": (
        "PreferenceScores",
        "StoredRecord",
        "recall_errors",
        "recall_patterns",
        "recall_preferences",
        "score_preferences",
        "store_error",
        "store_pattern",
        "store_preference",
    ),
    "operations.retrieval": ("Found", "search_memory"),
    "operations.prompt_context": ("AgentContext", "agent_context"),
    "operations.upkeep": ("MovedRecord", "forget_record", "restore_record"),
    "operations.validation": ("Validation", "validate"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "ERROR_FIX",
    "KINDS",
    "OUTCOME",
    "PATTERN",
    "PREFERENCE",
    "AgentContext",
    "Catalog",
    "Document",
    "Found",
    "GitError",
    "InputError",
    "IntegrityError",
    "Kind",
    "LegionMemoryError",
    "LockError",
    "Memory",
    "MovedRecord",
    "OutcomeInput",
    "ParseError",
    "PreferenceScores",
    "Project",
    "Recalled",
    "Record",
    "RollbackError",
    "SchemaError",
    "Scores",
    "StoredOutcome",
    "StoredRecord",
    "Table",
    "Validation",
    "WriteError",
    "agent_context",
    "agent_scores",
    "append",
    "append_or_update",
    "archetype_scores",
    "auto_prune",
    "briefing",
    "build_outcome",
    "escape",
    "forget",
    "forget_record",
    "kind_named",
    "load_catalog",
    "load_records",
    "memory_briefing",
    "new_record",
    "parse",
    "recall_errors",
    "recall_outcomes",
    "recall_patterns",
    "recall_preferences",
    "render",
    "restore",
    "restore_record",
    "score_agents",
    "score_archetypes",
    "score_preferences",
    "search_memory",
    "store_error",
    "store_outcome",
    "store_pattern",
    "store_preference",
    "unescape",
    "update",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # pyproject.toml holds the one version; the installed metadata carries it here.
        from importlib.metadata import version

        return version("legion-memory")
    from importlib import import_module

    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'legion_memory' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
