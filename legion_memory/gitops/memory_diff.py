"""PURE comparison of the memory files at two points: rows added, updated, archived, removed.

Records are matched by identity within a kind (docs/decisions.md#record-identity), live and
archived rows together, so a row that moved from OUTCOMES.md to ARCHIVE.md is reported as archived
(not as one removal plus one addition), and a record a merge gave another ID as renumbered. A row
whose identity changed under the same ID is an update of that record. A row that left the live
file without reaching the archive is reported as removed: a reviewer must see that. The markdown
is meant to be pasted into a pull request as is.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.markdown.cells import escape
from legion_memory.markdown.document import parse
from legion_memory.schema.identity import Identity, identity
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind
from legion_memory.schema.records import Record, read_records, records_table
from legion_memory.schema.validation import ERROR, NOTE, Problem, validate_text
from legion_memory.wording import count_of

Texts = Mapping[str, str | None]
"""File name (`OUTCOMES.md`, ..., `ARCHIVE.md`) -> text, None when the file does not exist."""

FILE_NAMES = (*(kind.filename for kind in KINDS.values()), ARCHIVE_FILENAME)


class Update(NamedTuple):
    old: Record
    new: Record

    def changes(self) -> list[tuple[str, str, str]]:
        """(column name, old value, new value) for each changed field."""
        names = {column.key: column.name for column in self.new.kind.columns}
        keys = dict.fromkeys([*self.old.values, *self.new.values])
        return [
            (names.get(key, key), self.old[key], self.new[key])
            for key in keys
            if self.old[key] != self.new[key]
        ]


class KindChanges:
    # A slotted class, not a NamedTuple: filled in as rows are compared, and false when nothing
    # changed (a tuple's truth would be its length).
    __slots__ = ("added", "archived", "kind", "removed", "renumbered", "restored", "updated")

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.added: list[Record] = []
        self.updated: list[Update] = []
        self.renumbered: list[Update] = []
        self.archived: list[Record] = []
        self.restored: list[Record] = []
        self.removed: list[Record] = []

    def __bool__(self) -> bool:
        changed = (self.added, self.updated, self.renumbered, self.archived, self.restored)
        return any((*changed, self.removed))

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.kind.filename,
            "added": [record.to_json() for record in self.added],
            "updated": [
                {"id": u.new.id, "changes": {n: {"from": a, "to": b} for n, a, b in u.changes()}}
                for u in self.updated
            ],
            "renumbered": [{"from": u.old.id, "to": u.new.id} for u in self.renumbered],
            "archived": [record.to_json() for record in self.archived],
            "restored": [record.to_json() for record in self.restored],
            "removed": [record.to_json() for record in self.removed],
        }


class MemoryDiff(NamedTuple):
    old_label: str
    new_label: str
    kinds: list[KindChanges]
    problems: list[Problem]

    def to_json(self) -> dict[str, object]:
        return {
            "from": self.old_label,
            "to": self.new_label,
            "files": [changes.to_json() for changes in self.kinds if changes],
            "problems": [problem.to_json() for problem in self.problems],
        }


def _records(texts: Texts, kind: Kind, *, archived: bool) -> dict[Identity, Record]:
    """The kind's records by identity (a record held twice counts once)."""
    text = texts.get(ARCHIVE_FILENAME if archived else kind.filename)
    if not text:
        return {}
    document = parse(text)
    table = records_table(document, kind, archived=archived)
    if table is None:
        return {}
    found: dict[Identity, Record] = {}
    for record in read_records(document, table, kind):
        found.setdefault(identity(kind, record.values), record)
    return found


def compare_kind(old: Texts, new: Texts, kind: Kind) -> KindChanges:
    old_live, new_live = _records(old, kind, archived=False), _records(new, kind, archived=False)
    old_archive = _records(old, kind, archived=True)
    new_archive = _records(new, kind, archived=True)
    changes = KindChanges(kind)
    edited = _edited(old_live, new_live)
    for key, record in new_live.items():
        before = old_live.get(key) or edited.get(key)
        if before is None:
            target = changes.restored if key in old_archive else changes.added
            target.append(record)
            continue
        if before.id != record.id:
            changes.renumbered.append(Update(before, record))
        if _without_id(before) != _without_id(record):
            changes.updated.append(Update(before, record))
    for key, record in new_archive.items():
        if key not in old_archive:
            changes.archived.append(record)
    matched = {id(record) for record in edited.values()}
    for key, record in {**old_archive, **old_live}.items():
        if key not in new_live and key not in new_archive and id(record) not in matched:
            changes.removed.append(record)
    return changes


def _edited(old: dict[Identity, Record], new: dict[Identity, Record]) -> dict[Identity, Record]:
    """New identities that are an old record edited: same ID, the old identity gone."""
    gone = {record.id: record for key, record in old.items() if key not in new and record.id}
    return {
        key: gone[record.id] for key, record in new.items() if key not in old and record.id in gone
    }


def _without_id(record: Record) -> dict[str, str]:
    return {key: value for key, value in record.values.items() if key != "id"}


def problems_of(texts: Texts, directory: str) -> list[Problem]:
    """The errors and warnings `validate` reports for these files (notes left out)."""
    found = []
    for name in FILE_NAMES:
        text = texts.get(name)
        if text is not None:
            problems = validate_text(Path(name), text, f"{directory}/{name}")
            found += [problem for problem in problems if problem.severity != NOTE]
    return found


def compare(old: Texts, new: Texts, labels: tuple[str, str], directory: str) -> MemoryDiff:
    """What changed from `old` to `new`, with the problems of `new`; `directory` names files."""
    kinds = [compare_kind(old, new, kind) for kind in KINDS.values()]
    return MemoryDiff(labels[0], labels[1], kinds, problems_of(new, directory))


def _table(kind: Kind, records: Sequence[Record]) -> list[str]:
    lines = kind.header_lines()
    for record in records:
        cells = [escape(record[column.key]) for column in kind.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _section(title: str, kind: Kind, records: Sequence[Record]) -> list[str]:
    return [f"**{title} ({len(records)})**", "", *_table(kind, records), ""] if records else []


def _updates(updates: Sequence[Update]) -> list[str]:
    if not updates:
        return []
    lines = [f"**Updated ({len(updates)})**", ""]
    for update in updates:
        parts = [f"{name} `{old}` → `{new}`" for name, old, new in update.changes()]
        lines.append(f"- {update.new.id}: " + "; ".join(parts))
    return [*lines, ""]


def _renumbered(moves: Sequence[Update]) -> list[str]:
    if not moves:
        return []
    lines = [f"**Renumbered ({len(moves)})**", ""]
    return [*lines, *(f"- {move.old.id} → {move.new.id}" for move in moves), ""]


def _label(label: str) -> str:
    """A revision in code style; descriptions ("working tree") as they are."""
    return label if " " in label else f"`{label}`"


def render_markdown(diff: MemoryDiff) -> str:
    title = f"## Memory changes: {_label(diff.old_label)} → {_label(diff.new_label)}"
    lines = [title, ""]
    changed = [changes for changes in diff.kinds if changes]
    if not changed:
        lines += ["No memory records changed.", ""]
    for changes in changed:
        kind = changes.kind
        lines += [f"### {kind.filename}", ""]
        lines += _section("Added", kind, changes.added)
        lines += _renumbered(changes.renumbered)
        lines += _updates(changes.updated)
        lines += _section("Archived", kind, changes.archived)
        lines += _section("Restored from the archive", kind, changes.restored)
        lines += _section("Removed without archiving", kind, changes.removed)
    lines += ["### Validation", ""]
    errors = sum(1 for problem in diff.problems if problem.severity == ERROR)
    if not diff.problems:
        lines.append("No problems found.")
    else:
        lines += [
            f"{count_of(errors, 'error')}, {count_of(len(diff.problems) - errors, 'warning')}:",
            "",
        ]
        lines += [f"- `{problem}`" for problem in diff.problems]
    return "\n".join(lines) + "\n"
