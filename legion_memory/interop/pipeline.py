"""`import` and `export`. An import reads and converts its whole source first (a bad item stops it
before anything is written), skips what the ledger says was imported already, then adds the rest
under one lock together with their ledger lines. An export lists every record with kind and ID.
"""

import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError, LegionMemoryError, RollbackError, WriteError
from legion_memory.interop.import_items import Conversion, Item, Skip
from legion_memory.interop.importers import convert
from legion_memory.interop.json_exchange import read_export
from legion_memory.interop.ledger import Entry, known_keys, ledger_path, with_entries
from legion_memory.interop.sources import DEFAULT_PATHS, check_source, read_source
from legion_memory.schema.kinds import KINDS, row_for
from legion_memory.schema.records import Record
from legion_memory.storage import reading, writing
from legion_memory.storage.bulk_append import Batch, live_records, plan_batch
from legion_memory.storage.reading import Memory

ALREADY_IMPORTED = "already imported"
ALREADY_PRESENT = "already present with the same ID and values"
_SHOWN_ORIGINS = 5


class ImportRequest(NamedTuple):
    source: str
    path: str | None
    root: Path
    today: dt.date
    branch: str
    default_branch: Callable[[], str]
    dry_run: bool = False
    move: bool = False
    stdin: Callable[[], str] = str


class Added(NamedTuple):
    item: Item
    record: Record


class ImportReport:
    __slots__ = ("added", "dry_run", "moved", "path", "skipped", "source")

    def __init__(self, source: str, path: str, dry_run: bool) -> None:
        self.source = source
        self.path = path
        self.dry_run = dry_run
        self.added: list[Added] = []
        self.skipped: list[Skip] = []
        self.moved: list[Item] = []

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "path": self.path,
            "dry_run": self.dry_run,
            "added": [_added_json(added) for added in self.added],
            "skipped": [{"origin": skip.origin, "reason": skip.reason} for skip in self.skipped],
            "moved": [item.origin for item in self.moved],
        }

    def markdown(self) -> str:
        return "\n".join(_report_lines(self))


def import_source(memory: Memory, request: ImportRequest) -> ImportReport:
    """Import one source; with `dry_run`, the same report and nothing written."""
    check_source(request.source)
    if request.move and request.source != "learn":
        raise InputError("--move only applies to the learn source", hint="drop --move")
    conversion = _convert(request)
    report, batch, _ledger = _plan(memory, request, conversion)
    if request.dry_run or batch is None:
        return report
    _require_own_files(memory, report.moved)
    # Planned once without the lock so that a refusal, or nothing to do, creates nothing (not even
    # the lock file); planned again under it, where IDs are final, and written as one journaled
    # change with the ledger: a killed import is rolled back whole, so a rerun neither skips an
    # item the ledger names nor adds one twice.
    final: list[ImportReport] = [report]

    def mutate(_current: Mapping[Path, str | None]) -> Mapping[Path, str]:
        again = _convert(request) if request.source == "learn" else conversion
        final[0], planned, ledger_text = _plan(memory, request, again)
        _require_own_files(memory, final[0].moved)
        if planned is None:
            return {}
        return {**planned.texts, **({ledger_path(memory): ledger_text} if ledger_text else {})}

    try:
        writing.transact(memory, _files_an_import_writes(memory, batch), mutate)
    except (WriteError, RollbackError) as failure:
        # Rolled back (or to be rolled back by the next command): none of the records is stored.
        everything = "\n\n".join(writing.describe(added.record) for added in final[0].added)
        raise WriteError(
            failure.message, where=failure.where, hint=failure.hint, record=everything
        ) from failure
    return final[0]


def _files_an_import_writes(memory: Memory, batch: Batch) -> list[Path]:
    """Every file the import may change, read and journaled under the lock: the plan made under
    it may add a kind's table or the archive that the first plan did not need."""
    kinds = [memory.path(kind) for kind in KINDS.values()]
    return list(dict.fromkeys([*kinds, memory.archive, *batch.texts, ledger_path(memory)]))


def _require_own_files(memory: Memory, moved: Sequence[Item]) -> None:
    """--move changes only this memory directory's files, which one journal can roll back."""
    for item in moved:
        if item.removal and item.removal.path.parent.resolve() != memory.directory.resolve():
            raise InputError(
                "--move only takes entries out of this project's memory files",
                where=item.origin,
                hint="import without --move, or move the file into .planning/memory first",
            )


def _convert(request: ImportRequest) -> Conversion:
    files = read_source(request.source, request.path, request.root, request.stdin)
    if request.source == "json":
        return read_export(files, request.default_branch())
    return convert(request.source, files, request.today, request.branch)


def _plan(
    memory: Memory, request: ImportRequest, conversion: Conversion
) -> tuple[ImportReport, Batch | None, str | None]:
    path = request.path or DEFAULT_PATHS.get(request.source, "")
    report = ImportReport(request.source, path, request.dry_run)
    ledger_text = reading.read_text(ledger_path(memory))
    fresh, report.skipped = _select(memory, conversion, known_keys(ledger_text))
    report.moved = [item for item in conversion.items if request.move and item.removal]
    if not fresh and not report.moved:
        return report, None, None
    ordered = [item for item in fresh if not item.archived] + [i for i in fresh if i.archived]
    batch = plan_batch(
        memory,
        [item.record for item in ordered if not item.archived],
        [item.record for item in ordered if item.archived],
        [item.removal for item in report.moved if item.removal],
    )
    report.added = [
        Added(item, record) for item, record in zip(ordered, batch.records, strict=True)
    ]
    entries = [
        Entry(added.item.key, request.source, added.record.id, added.item.origin)
        for added in report.added
        if added.item.key
    ]
    return report, batch, with_entries(ledger_text, entries) if entries else None


def _select(
    memory: Memory, conversion: Conversion, known: set[str]
) -> tuple[list[Item], list[Skip]]:
    """Items not imported before (by content hash) or not present yet (by ID), in source order."""
    fresh: list[Item] = []
    skipped = list(conversion.skipped)
    seen: set[str] = set()
    present = _present_by_id(memory, conversion.items)
    for item in conversion.items:
        if item.key:
            reason = ALREADY_IMPORTED if item.key in known else ""
            reason = reason or ("same as an item above" if item.key in seen else "")
            seen.add(item.key)
        else:
            reason = _id_conflict(item, present)
            present[(item.record.kind.name, item.record.id)] = item.record
        if reason:
            skipped.append(Skip(item.origin, reason))
        else:
            fresh.append(item)
    return fresh, skipped


def _present_by_id(memory: Memory, items: Sequence[Item]) -> dict[tuple[str, str], Record]:
    kinds = {item.record.kind.name: item.record.kind for item in items if not item.key}.values()
    present = {}
    for kind in kinds:
        for record in [*live_records(memory, kind), *reading.load_archived(memory, kind)]:
            present[(kind.name, record.id)] = record
    return present


def _id_conflict(item: Item, present: dict[tuple[str, str], Record]) -> str:
    """Why an item that keeps its ID is skipped ('' when it is new); an error when its ID holds
    something else: IDs are never reused, so two different records can never share one."""
    record = item.record
    existing = present.get((record.kind.name, record.id))
    if existing is None:
        return ""
    if all(existing[key] == record[key] for key in record.kind.keys):
        return ALREADY_PRESENT
    raise LegionMemoryError(
        f"{record.id} already holds a different {record.kind.singular}",
        where=item.origin,
        hint="import an export into an empty project (after `init`), or remove this record from it",
    )


def _added_json(added: Added) -> dict[str, object]:
    kind = added.record.kind.singular
    data = {"kind": kind, "archived": added.item.archived, "origin": added.item.origin}
    return {**data, **added.record.to_json()}


def _report_lines(report: ImportReport) -> list[str]:
    count = len(report.added)
    noun = "record" if count == 1 else "records"
    where = f"{report.source} ({report.path})" if report.path else report.source
    if report.dry_run:
        lines = [f"Dry run: would import {count} {noun} from {where}; nothing was written."]
    elif count:
        lines = [f"Imported {count} {noun} from {where}."]
    else:
        lines = [f"Nothing new to import from {where}."]
    lines += _tables(report.added)
    if report.moved:
        verb = "Would move" if report.dry_run else "Moved"
        origins = ", ".join(item.origin for item in report.moved)
        lines += ["", f"{verb} {len(report.moved)} /legion:learn entries into tables: {origins}"]
    if report.skipped:
        lines += ["", f"Skipped {len(report.skipped)}:", *_skip_lines(report.skipped)]
    return lines


def _tables(added: Sequence[Added]) -> list[str]:
    lines: list[str] = []
    order = list(KINDS)
    groups = {(a.record.kind.name, a.item.archived) for a in added}
    for name, archived in sorted(groups, key=lambda group: (group[1], order.index(group[0]))):
        kind = KINDS[name]
        title = f"ARCHIVE.md ({kind.name})" if archived else kind.filename
        names = [column.name for column in kind.columns]
        rows = [
            a.record for a in added if (a.record.kind.name, a.item.archived) == (name, archived)
        ]
        lines += ["", f"### {title}", "", "| " + " | ".join(names) + " |"]
        lines.append("|" + "|".join("---" for _ in names) + "|")
        lines += ["| " + " | ".join(row_for(record, tuple(names))) + " |" for record in rows]
    return lines


def _skip_lines(skipped: Sequence[Skip]) -> list[str]:
    counts = Counter(skip.reason for skip in skipped)
    lines = []
    for reason, count in counts.items():
        if reason in {ALREADY_IMPORTED, ALREADY_PRESENT}:
            lines.append(f"- {reason}: {count}")
            continue
        origins = [skip.origin for skip in skipped if skip.reason == reason]
        shown = ", ".join(origins[:_SHOWN_ORIGINS])
        more = f" and {len(origins) - _SHOWN_ORIGINS} more" if len(origins) > _SHOWN_ORIGINS else ""
        lines.append(f"- {reason}: {shown}{more}")
    return lines
