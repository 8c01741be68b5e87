"""What the knowledge commands print: markdown for people, stable JSON under --json."""

from __future__ import annotations

from collections.abc import Sequence

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table, note
from legion_memory.cli.tiers import marked, scoped_cells, scoped_json, shown
from legion_memory.knowledge import error_fixes
from legion_memory.knowledge.decay import Scored
from legion_memory.schema.kinds import Kind
from legion_memory.schema.records import Record
from legion_memory.storage.scopes import Marked, Scoped


def location(context: Context, tier: Scoped, record: Record) -> str:
    """`.planning/memory/FILE.md:LINE`, relative to the project root (a global file in full)."""
    return f"{shown(context.root, tier.memory.path(record.kind))}:{record.line}"


def report_stored(context: Context, tier: Scoped, record: Record, notes: list[str]) -> None:
    for message in notes:
        note(message)
    where = location(context, tier, record)
    data = {"action": "stored", "where": where, "record": record.to_json(), "notes": notes}
    emit(
        context, scoped_json(marked(tier.scope), tier.scope, data), f"Stored {record.id} in {where}"
    )


def report_duplicate(
    context: Context, tier: Scoped, before: Record, after: Record, alike: float
) -> None:
    where = location(context, tier, after)
    percent = f"signature {round(alike * 100)}% alike"
    if error_fixes.is_resolved(before):
        action = "skipped"
        human = f"Skipped: {before.id} already holds a resolved fix for this error ({percent})"
        human += f"\nFix: {before['fix']}"
    elif before is after:
        action = "unchanged"
        human = f"Unchanged: {before.id} already records this fix ({percent})"
    else:
        action = "updated"
        changed = [c.name for c in after.kind.columns if before[c.key] != after[c.key]]
        human = f"Updated {after.id} in place ({' and '.join(changed)}) in {where} ({percent})"
    data = {
        "action": action,
        "where": where,
        "similarity": round(alike, 6),
        "record": after.to_json(),
        "previous": before.to_json(),
        "notes": [],
    }
    emit(context, scoped_json(marked(tier.scope), tier.scope, data), human)


def recalled_table(
    kind: Kind, columns: Sequence[str], ranked: Sequence[Marked[Scored]], show: bool
) -> str:
    """The recalled rows; a Scope column first when results are marked with their tier."""
    if not ranked:
        return ""
    key_of = {column.name: column.key for column in kind.columns}
    rows = [
        scoped_cells(show, m.scope, [m.item.record[key_of[name]] for name in columns])
        for m in ranked
    ]
    return markdown_table(scoped_cells(show, "Scope", list(columns)), rows)


def report_recalled(
    context: Context, show: bool, ranked: Sequence[Marked[Scored]], human: str, notes: list[str]
) -> None:
    records = [scoped_json(show, m.scope, m.item.to_json()) for m in ranked]
    emit_recall(context, {"records": records, "notes": notes}, human, notes)


def emit_recall(context: Context, data: object, human: str, notes: list[str]) -> None:
    if not context.json:
        # The parse warning has already gone to stderr, as the spec asks of every recall.
        for message in notes:
            if not message.startswith("Warning: "):
                note(message)
    emit(context, data, human)


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
