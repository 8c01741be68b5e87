"""PURE comparison of the memory files at two points: rows added, updated, archived, removed.

Records are matched by identity within a kind (docs/decisions.md#record-identity), live and
archived rows together, so a row that moved from OUTCOMES.md to ARCHIVE.md is reported as archived
(not as one removal plus one addition), and a record a merge gave another ID as renumbered. A row
whose identity changed under the same ID, its Date and Branch kept, is an update of that record.
A row that left the live file without reaching the archive is reported as removed: a reviewer
must see that. The markdown is meant to be pasted into a pull request as is.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path

from legion_memory.gitops.memory_diff_rows import KindRows, RowKey, RowReader, unchanged_rows
from legion_memory.markdown.cells import escape
from legion_memory.named_tuple import NamedTuple
from legion_memory.schema.identity import same_origin
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind
from legion_memory.schema.records import Record
from legion_memory.schema.validation import ERROR, NOTE, Problem, validate_document
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


def _without_id(record: Record) -> dict[str, str]:
    return {key: value for key, value in record.values.items() if key != "id"}


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

    def note(self, before: Record | None, record: Record, *, was_archived: bool) -> None:
        """Notes a record of the new live file against its old version `before`: with none, new
        (restored when it `was_archived`), else renumbered, updated, both or neither."""
        if before is None:
            (self.restored if was_archived else self.added).append(record)
            return
        if before.id != record.id:
            self.renumbered.append(Update(before, record))
        if _without_id(before) != _without_id(record):
            self.updated.append(Update(before, record))

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


def compare_kind(
    old: Texts, new: Texts, kind: Kind, reader: RowReader | None = None
) -> KindChanges:
    """The changes of one kind. Both its files byte-identical in both versions: nothing is read.
    Otherwise a row whose line both versions hold, in the same layout, is no change: only the
    other rows become records (docs/decisions.md#diff-from-lines)."""
    changes = KindChanges(kind)
    if all(old.get(name) == new.get(name) for name in (kind.filename, ARCHIVE_FILENAME)):
        return changes
    reader = reader or RowReader()
    old_live, new_live = (
        reader.rows(old, kind, archived=False),
        reader.rows(new, kind, archived=False),
    )
    old_archive = reader.rows(old, kind, archived=True)
    new_archive = reader.rows(new, kind, archived=True)
    edited = _edited(old_live, new_live)
    for key, index in new_live.first.items():
        at = old_live.first.get(key)
        if at is not None and old_live.same_row(at, new_live, index):
            continue
        before = old_live.record(at) if at is not None else edited.get(key)
        changes.note(before, new_live.record(index), was_archived=key in old_archive.first)
    changes.archived += [
        new_archive.record(index)
        for key, index in new_archive.first.items()
        if key not in old_archive.first
    ]
    changes.removed += _removed(old_live, old_archive, (new_live, new_archive), edited)
    return changes


def _removed(
    old_live: KindRows,
    old_archive: KindRows,
    new: tuple[KindRows, KindRows],
    edited: dict[RowKey, Record],
) -> list[Record]:
    """The old records, archived ones first, whose identity the new version holds nowhere and
    that no edited row continues (a record live and archived at once is read as the live one)."""
    matched = {id(record) for record in edited.values()}
    found = []
    for key in {**old_archive.first, **old_live.first}:
        if key in new[0].first or key in new[1].first:
            continue
        at = old_live.first.get(key)
        record = (
            old_live.record(at) if at is not None else old_archive.record(old_archive.first[key])
        )
        if id(record) not in matched:
            found.append(record)
    return found


def _edited(old: KindRows, new: KindRows) -> dict[RowKey, Record]:
    """New identities that are an old record edited: same ID, the old identity gone, stored on
    the same date on the same branch (the tool never rewrites either cell: a row under the ID
    with another is another record that took it, a file taken whole from another branch)."""
    gone: dict[str, Record] = {}
    for key, index in old.first.items():
        if key not in new.first:
            record = old.record(index)
            if record.id:
                gone[record.id] = record
    if not gone:
        return {}
    found = {}
    for key, index in new.first.items():
        if key not in old.first:
            record = new.record(index)
            was = gone.get(record.id)
            if was is not None and same_origin(was, record):
                found[key] = was
    return found


def problems_of(
    texts: Texts, directory: str, reader: RowReader | None = None, old: Texts | None = None
) -> list[Problem]:
    """The errors and warnings `validate` reports for these files (notes left out). With the
    `old` version's texts, those the change from it brings: a file as it was is not read, and a
    row that the old version's table holds as it is, not checked; a duplicate of the ID of a row
    checked and each file's other problems are found as before
    (docs/decisions.md#diff-checks-what-changed)."""
    reader = reader or RowReader()
    found = []
    for name in FILE_NAMES:
        text = texts.get(name)
        before = None if old is None else old.get(name)
        if text is None or (old is not None and before == text):
            continue
        document = reader.document(text)
        unchanged = None
        if before:
            archived = name == ARCHIVE_FILENAME
            unchanged = unchanged_rows(reader.document(before), document, archived=archived)
        problems = validate_document(
            Path(name), document, f"{directory}/{name}", unchanged=unchanged
        )
        found += [problem for problem in problems if problem.severity != NOTE]
    return found


def compare(old: Texts, new: Texts, labels: tuple[str, str], directory: str) -> MemoryDiff:
    """What changed from `old` to `new`, with the problems that change brings to `new`;
    `directory` names files."""
    reader = RowReader()
    kinds = [compare_kind(old, new, kind, reader) for kind in KINDS.values()]
    return MemoryDiff(labels[0], labels[1], kinds, problems_of(new, directory, reader, old))


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
        lines.append("No problems in what changed.")
    else:
        lines += [
            f"{count_of(errors, 'error')}, {count_of(len(diff.problems) - errors, 'warning')}:",
            "",
        ]
        lines += [f"- `{problem}`" for problem in diff.problems]
    return "\n".join(lines) + "\n"
