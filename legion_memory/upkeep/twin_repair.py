"""PURE planning of the repair of one record held twice (docs/decisions.md#record-identity).

- live and archived at once: archiving wins, the live copy goes; when the two copies of an error
  differ, the archived row takes the resolved copy's Fix and Resolved, else the live copy's (a
  forget moves a row unchanged, so a live copy that differs was updated after it), unless history
  shows the live copy's version is one the archiving side replaced (`later_state`);
- twice under two IDs: the lower ID is kept, and every `Source` citing the other follows it;
- twice under one ID, or twice in the archive: the later copy goes.

Every identity present before the repair is present after it, or nothing is written.
"""

import re
from collections.abc import Collection, Mapping
from pathlib import Path

from legion_memory.errors import IntegrityError
from legion_memory.gitops.row_merge import set_cell
from legion_memory.markdown.document import Document, parse, row_cells
from legion_memory.schema.kinds import ERROR_FIX, KINDS, OUTCOME, PATTERN
from legion_memory.schema.record_twins import Holder, Twin, kind_rows, twins
from legion_memory.schema.records import column_key, id_number
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.forgetting import without_empty_section
from legion_memory.upkeep.renumbering import Occurrence, Plan, Texts, occurrences, rewrite_source

_UPDATED = ("fix", "resolved")
_REFERENCE = re.compile(r"\b[OPED]-\d{3,}\b")


def documents(memory: Memory, texts: Texts) -> list[tuple[str, Document, bool]]:
    found = []
    for path in [memory.archive, *(memory.path(kind) for kind in KINDS.values())]:
        text = texts.get(path)
        if text:
            found.append((str(path), parse(text), path == memory.archive))
    return found


def twin_plan(
    memory: Memory, texts: Texts, restored: Collection[str] = (), stale: Collection[str] = ()
) -> Plan:
    """`restored`: IDs of live copies that are their record's later state, kept over the
    archived copy; `stale`: IDs of live copies whose version the archived copy replaced, whose
    update the archived row does not take (`later_state`)."""
    plan = Plan()
    parsed = {name: document for name, document, _ in documents(memory, texts)}
    moves: dict[str, str] = {}
    gone: set[tuple[str, int]] = set()
    for twin in twins(documents(memory, texts)):
        keep, drop = _keeper(twin)
        if keep.archived and not drop.archived and drop.record_id in restored:
            keep, drop = drop, keep
        if (keep.name, keep.line_index) in gone or (drop.name, drop.line_index) in gone:
            continue
        gone.add((drop.name, drop.line_index))
        plan.edit(_at(parsed, drop), None, twin.message(), _repair(twin, keep, drop))
        if keep.archived and not drop.archived and drop.record_id not in stale:
            _carry(plan, parsed, keep, drop)
        elif keep.record_id != drop.record_id:
            moves[drop.record_id] = keep.record_id
    _drop_emptied_sections(plan, parsed, memory.archive)
    _follow(plan, memory, texts, moves)
    return plan


def _drop_emptied_sections(plan: Plan, parsed: Mapping[str, Document], archive: Path) -> None:
    """An archive section the repair leaves empty goes, as `restore` removes it (all but the
    outcomes' section, which the file starts with)."""
    document, edits = parsed.get(str(archive)), plan.edits.get(archive, {})
    if document is None or not edits:
        return
    for kind in (kind for kind in KINDS.values() if kind is not OUTCOME):  # the file's own
        for table in document.tables:
            emptied = table.rows and all(edits.get(i, "") is None for i in table.rows)
            if not emptied or table.heading.casefold() != kind.archive_section.casefold():
                continue
            lines = [line for i, line in enumerate(document.lines) if i not in table.rows]
            if len(without_empty_section(lines, kind, table.header)) < len(lines):
                for index in range(table.header - 3, table.header + 2):
                    edits[index] = None


def _keeper(twin: Twin) -> tuple[Holder, Holder]:
    first, again = twin
    if first.archived == again.archived and first.record_id != again.record_id:
        prefix = first.record_id.split("-", 1)[0]
        if id_number(again.record_id, prefix) < id_number(first.record_id, prefix):
            return again, first
    return first, again


def _repair(twin: Twin, keep: Holder, drop: Holder) -> str:
    if keep.archived and not drop.archived:
        return f"removed the live copy of archived {keep.record_id}"
    if drop.archived and not keep.archived:
        return f"removed the archived copy of {keep.record_id}, restored since it was archived"
    if keep.record_id != drop.record_id:
        return f"removed {drop.record_id}, the same record as {keep.record_id}"
    return f"removed a second copy of {keep.record_id}"


def _at(parsed: Mapping[str, Document], holder: Holder) -> Occurrence:
    raw = parsed[holder.name].lines[holder.line_index]
    return Occurrence(Path(holder.name), holder.line_index, raw, (), ())


def _carry(plan: Plan, parsed: Mapping[str, Document], keep: Holder, drop: Holder) -> None:
    """An error's update on the live copy moves into the archived row."""
    if not keep.record_id.startswith(ERROR_FIX.prefix + "-"):
        return
    archived, live = _values(parsed, keep), _values(parsed, drop)
    if all(archived.get(k) == live.get(k) for k in _UPDATED):
        return
    if archived.get("resolved") == "true" and live.get("resolved") != "true":
        return
    raw = parsed[drop.name].lines[drop.line_index]
    columns = _columns(parsed[drop.name], drop.line_index)
    new = set_cell(raw, columns.index("id"), drop.record_id, keep.record_id)
    plan.edit(_at(parsed, keep), new, "", f"{keep.record_id} takes the live copy's update")
    plan.findings.pop()  # the finding is the twin's, reported once


def _values(parsed: Mapping[str, Document], holder: Holder) -> dict[str, str]:
    document = parsed[holder.name]
    columns = _columns(document, holder.line_index)
    return dict(zip(columns, row_cells(document, holder.line_index), strict=False))


def _columns(document: Document, index: int) -> tuple[str, ...]:
    table = next(t for t in document.tables if index in t.rows)
    return tuple(column_key(c) for c in table.columns)


def _follow(plan: Plan, memory: Memory, texts: Texts, moves: Mapping[str, str]) -> None:
    """Sources citing a dropped ID cite the kept one."""
    if not moves:
        return

    def retarget(text: str) -> str:
        return _REFERENCE.sub(lambda m: moves.get(m.group(0), m.group(0)), text)

    for row in occurrences(memory, texts, PATTERN):
        if "source" in row.columns:
            rewrite_source(plan, row, retarget, "same record")


def verify_identities_kept(memory: Memory, before: Texts, changed: Mapping[Path, str]) -> None:
    """Every record (by identity) still present after the repair, or nothing is written."""
    after = {**before, **changed}
    held = [
        {key for kind in KINDS.values() for _, key in kind_rows(kind, documents(memory, texts))}
        for texts in (before, after)
    ]
    if held[0] != held[1]:
        raise IntegrityError(
            "the repair would lose a record; nothing was written (this is a bug)",
            where=str(memory.directory),
            hint="please report it with the memory files attached",
        )
