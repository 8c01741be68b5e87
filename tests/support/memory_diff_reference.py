"""The memory diff as it was first written, kept to hold the faster one to: every record of both
versions built and matched by identity, and each file validated from its own parse."""

from __future__ import annotations

from pathlib import Path

from legion_memory.gitops.memory_diff import (
    FILE_NAMES,
    KindChanges,
    MemoryDiff,
    Texts,
)
from legion_memory.markdown.document import parse
from legion_memory.schema.identity import Identity, identity
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind
from legion_memory.schema.records import Record, read_records, records_table
from legion_memory.schema.validation import NOTE, Problem, validate_text


def _records(texts: Texts, kind: Kind, *, archived: bool) -> dict[Identity, Record]:
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
        changes.note(before, record, was_archived=key in old_archive)
    for key, record in new_archive.items():
        if key not in old_archive:
            changes.archived.append(record)
    matched = {id(record) for record in edited.values()}
    for key, record in {**old_archive, **old_live}.items():
        if key not in new_live and key not in new_archive and id(record) not in matched:
            changes.removed.append(record)
    return changes


def _edited(old: dict[Identity, Record], new: dict[Identity, Record]) -> dict[Identity, Record]:
    gone = {record.id: record for key, record in old.items() if key not in new and record.id}
    return {
        key: gone[record.id] for key, record in new.items() if key not in old and record.id in gone
    }


def problems_of(texts: Texts, directory: str) -> list[Problem]:
    found = []
    for name in FILE_NAMES:
        text = texts.get(name)
        if text is not None:
            problems = validate_text(Path(name), text, f"{directory}/{name}")
            found += [problem for problem in problems if problem.severity != NOTE]
    return found


def compare(old: Texts, new: Texts, labels: tuple[str, str], directory: str) -> MemoryDiff:
    kinds = [compare_kind(old, new, kind) for kind in KINDS.values()]
    return MemoryDiff(labels[0], labels[1], kinds, problems_of(new, directory))
