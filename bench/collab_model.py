"""The ground truth of the collaboration simulation, and the check of a clone's memory against it.

Every record carries a token of its own in its text (`r17`), so a record is found by its token
whatever ID it ends up with. Each record changes only on the branch that created it (its owner),
with a clock that grows with each change, so the truth after any integration is, per record, the
state with the highest clock: no record is ever changed differently on two sides, and so every
conflict the tools report is spurious.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from legion_memory.markdown.document import parse, row_cells
from legion_memory.schema.kinds import ERROR_FIX, KINDS, OUTCOME, PATTERN, Kind
from legion_memory.schema.records import column_key, id_number, records_table
from legion_memory.schema.validation import ERROR, record_twins, validate_text
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.doctor import doctor

TEXT_FIELD = {"outcomes": "summary", "patterns": "pattern", "errors": "error_signature"}


@dataclass(frozen=True)
class Truth:
    """What one record must be: its kind, archived or live, its fix (errors), what it cites."""

    kind: str
    owner: str
    clock: int
    archived: bool = False
    fix: str = "retry"
    cites: str = ""


Model = dict[str, Truth]


def join(*models: Mapping[str, Truth]) -> Model:
    """The truth after integrating: per record, its latest state."""
    out: Model = {}
    for model in models:
        for token, truth in model.items():
            if token not in out or truth.clock > out[token].clock:
                out[token] = truth
    return out


def changed(truth: Truth, **changes: object) -> Truth:
    return replace(truth, clock=truth.clock + 1, **changes)  # type: ignore[arg-type]


@dataclass
class Row:
    token: str
    id: str
    archived: bool
    values: dict[str, str]


def rows_of(memory: Memory) -> dict[str, list[Row]]:
    """Every record row, live and archived, by kind name."""
    found: dict[str, list[Row]] = {name: [] for name in KINDS}
    for kind in KINDS.values():
        for path, archived in ((memory.path(kind), False), (memory.archive, True)):
            found[kind.name] += _read(path, kind, archived=archived)
    return found


def _read(path: Path, kind: Kind, *, archived: bool) -> list[Row]:
    if not path.is_file():
        return []
    document = parse(path.read_text(encoding="utf-8", errors="replace"))
    tables = [records_table(document, kind, archived=archived)]
    if archived:
        heading = kind.archive_section.casefold()
        tables = [t for t in document.tables if t.heading.casefold() == heading]
    out = []
    for table in tables:
        if table is None:
            continue
        columns = [column_key(c) for c in table.columns]
        for index in table.rows:
            values = dict(zip(columns, row_cells(document, index), strict=False))
            if values.get("id", "").startswith(kind.prefix + "-"):
                token = values.get(TEXT_FIELD[kind.name], "").split(" ")[0]
                out.append(Row(token, values["id"], archived, values))
    return out


def out_of_id_order(memory: Memory) -> list[str]:
    """The live files whose records are not in ID order (`store` and `restore` keep them so; a
    merge or repair that leaves `O-002` above `O-001` is not wrong, but reads so in a review)."""
    found = []
    for name, rows in rows_of(memory).items():
        live = [row.id for row in rows if not row.archived]
        numbers = [id_number(record_id, record_id.partition("-")[0]) for record_id in live]
        if numbers != sorted(numbers):
            found.append(name)
    return found


class Verdict:
    """What one check found wrong, counted by kind of violation."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: list[str] = []

    def add(self, what: str, detail: str) -> None:
        self.counts[what] += 1
        if len(self.examples) < 8:
            self.examples.append(f"{what}: {detail}")

    @property
    def clean(self) -> bool:
        return not self.counts


def check(memory: Memory, model: Model) -> Verdict:
    """The clone's memory against the truth: every record once, in its state, cited right."""
    verdict = Verdict()
    rows = rows_of(memory)
    by_token: dict[str, list[Row]] = {}
    for kind_rows in rows.values():
        for row in kind_rows:
            by_token.setdefault(row.token, []).append(row)
        ids = Counter((row.id) for row in kind_rows)
        for record_id, count in ids.items():
            if count > 1:
                verdict.add("duplicate ID", record_id)
    for token, truth in model.items():
        _check_record(verdict, token, truth, by_token.get(token, []), by_token)
    for token in by_token.keys() - model.keys():
        verdict.add("unexpected record", token)
    _check_tools(verdict, memory)
    return verdict


def _check_record(
    verdict: Verdict, token: str, truth: Truth, held: list[Row], by_token: dict[str, list[Row]]
) -> None:
    if not held:
        verdict.add("lost", token)
        return
    if len(held) > 1:
        live = sum(1 for row in held if not row.archived)
        what = "live and archived" if 0 < live < len(held) else "duplicated"
        verdict.add(what, f"{token} as {', '.join(row.id for row in held)}")
        return
    row = held[0]
    if row.archived != truth.archived:
        verdict.add("resurrected" if truth.archived else "wrongly archived", token)
    if truth.kind == ERROR_FIX.name and row.values.get("fix") != truth.fix:
        verdict.add("stale fix", f"{token}: {row.values.get('fix')} instead of {truth.fix}")
    if truth.kind == PATTERN.name and truth.cites:
        cited = by_token.get(truth.cites, [])
        if len(cited) == 1 and row.values.get("source") != cited[0].id:
            verdict.add(
                "wrong reference",
                f"{token} cites {row.values.get('source')}, {truth.cites} is {cited[0].id}",
            )


def _check_tools(verdict: Verdict, memory: Memory) -> None:
    """validate and doctor must both call the memory clean."""
    paths = [memory.path(k) for k in KINDS.values()] + [memory.archive]
    paths = [path for path in paths if path.is_file()]
    texts = [(path, str(path), path.read_text(encoding="utf-8")) for path in paths]
    problems = [p for path, name, text in texts for p in validate_text(path, text, name)]
    problems += record_twins(texts)
    for problem in problems:
        if problem.severity == ERROR:
            verdict.add(
                "validate error", f"{Path(problem.path).name}:{problem.line} {problem.message}"
            )
    for finding in doctor(memory).found:
        verdict.add("doctor finding", f"{Path(finding.where).name} {finding.message}")


def merged_outcome_ids(memory: Memory) -> Iterable[str]:
    return (row.id for row in rows_of(memory)[OUTCOME.name])
