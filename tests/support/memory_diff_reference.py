"""The memory diff as it was first written, kept to hold the faster one to: every record of both
versions built and matched by identity, and each file that changed validated from its own parse,
whole, the problems of the rows the old version holds as they are then taken out."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from legion_memory.gitops.memory_diff import (
    FILE_NAMES,
    KindChanges,
    MemoryDiff,
    Texts,
)
from legion_memory.markdown.cells import line_cells
from legion_memory.markdown.document import Document, parse
from legion_memory.schema.identity import Identity, clean, identity
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind
from legion_memory.schema.records import Record, column_key, read_records, records_table
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
    """Same ID, the old identity gone, and neither Date nor Branch differs where both hold one."""
    gone = {record.id: record for key, record in old.items() if key not in new and record.id}

    def origin_kept(was: Record, now: Record) -> bool:
        return not any(
            clean(was[key]) and clean(now[key]) and clean(was[key]) != clean(now[key])
            for key in ("date", "branch")
        )

    return {
        key: gone[record.id]
        for key, record in new.items()
        if key not in old and record.id in gone and origin_kept(gone[record.id], record)
    }


def problems_of(texts: Texts, directory: str, old: Texts) -> list[Problem]:
    """Every problem `validate` finds in the files that changed (notes left out), less those of
    the rows the old version's table holds as they are, counted one by one; a duplicate of an ID
    that another row holds is kept."""
    found = []
    for name in FILE_NAMES:
        text, before = texts.get(name), old.get(name)
        if text is None or text == before:
            continue
        problems = validate_text(Path(name), text, f"{directory}/{name}")
        problems = [problem for problem in problems if problem.severity != NOTE]
        if before:
            archived = name == ARCHIVE_FILENAME
            problems = _brought(problems, parse(before), parse(text), archived=archived)
        found += problems
    return found


_DUPLICATE = re.compile(r"duplicate ID (.*) \(also on line \d+\)", re.DOTALL)


def _brought(
    problems: list[Problem], old: Document, new: Document, *, archived: bool
) -> list[Problem]:
    unchanged: dict[int, set[str]] = {}  # line index -> the IDs the table's other rows hold
    for kind in KINDS.values():
        table = records_table(new, kind, archived=archived)
        if table is None:
            continue
        keys = [column_key(name) for name in table.columns]
        before = records_table(old, kind, archived=archived)
        left: Counter[str] = Counter()
        if before is not None and [column_key(name) for name in before.columns] == keys:
            left.update(old.lines[before.header + 2 : before.end])
        ids: set[str] = set()
        held = []
        for index in table.rows:
            line = new.lines[index]
            if left[line] > 0:
                left[line] -= 1
                held.append(index)
                continue
            cells = line_cells(line)
            if "id" in keys and len(cells) == len(keys):
                ids.add(cells[len(keys) - 1 - keys[::-1].index("id")])
        unchanged.update(dict.fromkeys(held, ids))
    return [problem for problem in problems if _kept(problem, unchanged)]


def _kept(problem: Problem, unchanged: dict[int, set[str]]) -> bool:
    ids = unchanged.get(problem.line - 1)
    if ids is None:
        return True
    duplicate = _DUPLICATE.fullmatch(problem.message)
    return duplicate is not None and duplicate[1] in ids


def compare(old: Texts, new: Texts, labels: tuple[str, str], directory: str) -> MemoryDiff:
    kinds = [compare_kind(old, new, kind) for kind in KINDS.values()]
    return MemoryDiff(labels[0], labels[1], kinds, problems_of(new, directory, old))
