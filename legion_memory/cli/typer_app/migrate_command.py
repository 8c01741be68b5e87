"""`migrate [--dry-run]`: the one command allowed to rewrite every row, so it can show its diff."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, note
from legion_memory.markdown.document import split_lines
from legion_memory.storage import reading, writing
from legion_memory.upkeep.migration import Migration, TableChange, memory_paths, plan_migration

NOTHING = "nothing to migrate: every memory table has the spec's columns"


def run_migrate(context: Context, dry_run: bool) -> None:
    if not context.settings.enabled:
        note("Note: memory is disabled (memory.enabled is false in settings.json); nothing to do")
        return
    memory = context.memory
    paths = memory_paths(memory)
    if not memory.directory.is_dir():
        emit(context, _json(context, None, dry_run), NOTHING)
        return
    default_branch = context.default_branch
    # Planned without the lock first, so a dry run or a no-op never touches the directory.
    texts = {path: reading.read_text(path) for path in paths}
    reading.require_no_conflict_markers_in(texts)  # a dry run says what the real run would
    planned = plan_migration(memory, texts, default_branch)
    if dry_run or not planned.tables:
        _show(context, planned, dry_run)
        return
    applied: list[Migration] = []

    def mutate(current: Mapping[Path, str | None]) -> Mapping[Path, str]:
        applied.append(plan_migration(memory, current, default_branch))
        return applied[-1].new_texts

    writing.transact(memory, paths, mutate)
    _show(context, applied[-1], dry_run)


def _show(context: Context, migration: Migration, dry_run: bool) -> None:
    if not migration.tables:
        emit(context, _json(context, migration, dry_run), NOTHING)
        return
    verb = "would add" if dry_run else "added"
    lines = [_describe(context, change, verb) for change in migration.tables]
    if dry_run:
        lines = [diff(context, migration), *lines]
        note("Dry run: nothing was changed")
    emit(context, _json(context, migration, dry_run), "\n".join(lines))


def _describe(context: Context, change: TableChange, verb: str) -> str:
    table = change.kind.archive_section if change.archived else change.kind.section
    text = f"{_relative(context, change.path)}: {verb} {', '.join(change.added)} "
    text += f"to the {table} table ({change.rows} row{'' if change.rows == 1 else 's'})"
    if "Branch" in change.added:
        text += f"; Branch = {context.default_branch}"
    return text


def diff(context: Context, migration: Migration) -> str:
    """A unified diff of every file the migration changes."""
    chunks: list[str] = []
    for path, (before, after) in migration.texts.items():
        name = _relative(context, path)
        chunks += difflib.unified_diff(
            split_lines(before), split_lines(after), f"a/{name}", f"b/{name}"
        )
    return "".join(chunk if chunk.endswith("\n") else chunk + "\n" for chunk in chunks).rstrip("\n")


def _json(context: Context, migration: Migration | None, dry_run: bool) -> dict[str, object]:
    tables = migration.tables if migration else ()
    return {
        "dry_run": dry_run,
        "default_branch": context.default_branch if tables else None,
        "changes": [change.to_json(_relative(context, change.path)) for change in tables],
        "diff": diff(context, migration) if migration and dry_run else "",
    }


def _relative(context: Context, path: Path) -> str:
    try:
        return str(path.relative_to(context.root))
    except ValueError:
        return str(path)
