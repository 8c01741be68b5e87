"""What the knowledge commands print: markdown for people, the operation's JSON under --json."""

from __future__ import annotations

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.cli.tiers import marked, scoped_cells
from legion_memory.knowledge import error_fixes
from legion_memory.operations.common import Recalled
from legion_memory.operations.knowledge import DISABLED, STORED, UNCHANGED, StoredRecord
from legion_memory.schema.kinds import Kind


def print_stored(context: Context, stored: StoredRecord) -> None:
    emit(context, stored.to_json(), _stored_text(stored))


def _stored_text(stored: StoredRecord) -> str:
    before, after = stored.previous, stored.record
    if stored.action == DISABLED or after is None:
        return ""
    if stored.action == UNCHANGED and before is None:
        return f"Unchanged: {after.id} already holds this {after.kind.singular} ({stored.where})"
    if stored.action == STORED or before is None:
        return f"Stored {after.id} in {stored.where}"
    percent = f"signature {round(stored.similarity * 100)}% alike"
    if stored.action == "skipped":
        return (
            f"Skipped: {before.id} already holds a resolved fix for this error ({percent})"
            f"\nFix: {before['fix']}"
        )
    if stored.action == UNCHANGED:
        return f"Unchanged: {before.id} already records this fix ({percent})"
    changed = [c.name for c in after.kind.columns if before[c.key] != after[c.key]]
    return f"Updated {after.id} in place ({' and '.join(changed)}) in {stored.where} ({percent})"


def print_recalled_rows(context: Context, kind: Kind, recalled: Recalled) -> None:
    """The recalled rows as a table of the kind's columns; a Scope column first when results
    are marked with their tier."""
    show = marked(recalled.scope)
    human = ""
    if recalled.results:
        columns = [column.name for column in kind.columns]
        key_of = {column.name: column.key for column in kind.columns}
        rows = [
            scoped_cells(show, m.scope, [m.item.record[key_of[name]] for name in columns])
            for m in recalled.results
        ]
        human = markdown_table(scoped_cells(show, "Scope", columns), rows)
    _print_recalled(context, recalled, human)


def print_recalled_errors(context: Context, recalled: Recalled) -> None:
    show = marked(recalled.scope)
    blocks = (error_block(m.item, m.scope if show else None) for m in recalled.results)
    _print_recalled(context, recalled, "\n\n".join(blocks))


def _print_recalled(context: Context, recalled: Recalled, human: str) -> None:
    if not context.json:
        # The parse warning has already gone to stderr, as the spec asks of every recall.
        for message in recalled.notes:
            if not message.startswith("Warning: "):
                note(message)
    emit(context, recalled.to_json(), human)


def error_block(match: error_fixes.ErrorMatch, scope: str | None = None) -> str:
    """One recalled fix in markdown, the Fix first and prominent; its tier after its status
    when results are marked."""
    record = match.record
    status = "resolved" if error_fixes.is_resolved(record) else "unresolved (fix not verified)"
    status += f" · {scope}" if scope else ""
    details = [f"Agent: {record['agent']}", f"Date: {record['date']}"]
    details += [f"Branch: {record['branch'] or '-'}", f"Tags: {record['tags'] or '-'}"]
    if match.matched:
        details.append(f"Matched: {', '.join(match.matched)}")
    return "\n".join(
        [
            f"### {record.id} · {status}",
            f"**Fix:** {record['fix']}",
            f"**Error:** {record['error_signature']}",
            " · ".join(details),
        ]
    )
