"""Properties of the row merge over random histories: nothing lost, IDs unique, conflicts exact."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st
from support.gitrepos import outcome_row

from legion_memory.gitops.file_merge import merge
from legion_memory.gitops.row_merge import cell
from legion_memory.markdown.cells import split_cells, unescape
from legion_memory.markdown.document import parse
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import Record, read_records, records_table


@dataclass(frozen=True)
class Side:
    name: str
    pruned: frozenset[int]
    updated: frozenset[int]
    added: int

    def text(self, base_rows: int) -> str:
        rows = []
        for number in range(1, base_rows + 1):
            if number in self.pruned:
                continue
            summary = f"b{number}" + (f" {self.name}" if number in self.updated else "")
            rows.append(outcome_row(number, summary))
        rows += [outcome_row(base_rows + j, f"{self.name}{j}") for j in range(1, self.added + 1)]
        return OUTCOME.template() + "".join(rows)


@st.composite
def sides(draw: st.DrawFn, name: str, base_rows: int) -> Side:
    numbers = st.sampled_from(range(1, base_rows + 1)) if base_rows else st.nothing()
    pruned = draw(st.frozensets(numbers, max_size=base_rows))
    updated = draw(st.frozensets(numbers, max_size=base_rows)) - pruned
    return Side(name, pruned, updated, draw(st.integers(0, 3)))


@st.composite
def histories(draw: st.DrawFn) -> tuple[int, Side, Side]:
    base_rows = draw(st.integers(0, 6))
    return base_rows, draw(sides("ours", base_rows)), draw(sides("theirs", base_rows))


@given(histories())
def test_merge_keeps_every_change_and_conflicts_exactly_when_it_must(
    history: tuple[int, Side, Side],
) -> None:
    base_rows, ours, theirs = history
    base = Side("base", frozenset(), frozenset(), 0)
    result = merge(base.text(base_rows), ours.text(base_rows), theirs.text(base_rows))
    clashes = (
        (ours.updated & theirs.updated)
        | (ours.updated & theirs.pruned)
        | (theirs.updated & ours.pruned)
    )
    assert len(result.conflicts) == len(clashes)
    if clashes:
        return
    document = parse(result.text)
    table = records_table(document, OUTCOME)
    assert table is not None
    records = list(read_records(document, table, OUTCOME))
    ids = [record.id for record in records]
    assert len(ids) == len(set(ids))
    expected = set()
    for number in range(1, base_rows + 1):
        if number in ours.pruned | theirs.pruned:
            continue
        side = "ours" if number in ours.updated else "theirs" if number in theirs.updated else ""
        expected.add(f"b{number} {side}".strip())
    expected |= {f"ours{j}" for j in range(1, ours.added + 1)}
    expected |= {f"theirs{j}" for j in range(1, theirs.added + 1)}
    assert sorted(record["summary"] for record in records) == sorted(expected)
    ours_new = [r.id for r in records if r["summary"].startswith("ours")]
    assert ours_new == [f"O-{base_rows + j:03d}" for j in range(1, ours.added + 1)]


CELL_TEXT = st.text(alphabet=" ab|\\<br>-", max_size=8)


@given(st.lists(CELL_TEXT, min_size=1, max_size=5), st.booleans(), st.integers(0, 5))
def test_cell_reads_what_split_cells_reads(cells: list[str], outer: bool, index: int) -> None:
    line = " | ".join(cells)
    line = f"| {line} |" if outer else line
    whole = split_cells(line)
    assert cell(line + "\n", index) == (unescape(whole[index]) if index < len(whole) else "")


@st.composite
def shared_histories(draw: st.DrawFn) -> tuple[str, str, str, set[str]]:
    """Base rows, then each side appends records: some its own, some the other side's too (a
    cherry-pick), under whatever next ID that side had, with random dates and branches."""
    base_rows = draw(st.integers(0, 4))
    base = OUTCOME.template() + "".join(outcome_row(n, f"b{n}") for n in range(1, base_rows + 1))
    shared = draw(st.lists(st.sampled_from(["s1", "s2", "s3"]), unique=True, max_size=3))
    sides = []
    for name in ("ours", "theirs"):
        own = [f"{name}{j}" for j in range(draw(st.integers(0, 3)))]
        picked = [s for s in shared if draw(st.booleans())]
        order = draw(st.permutations(own + picked))
        # A picked record is the same row on both sides (its branch and date travel with it).
        rows = [
            outcome_row(
                base_rows + index + 1,
                summary,
                branch=name if summary.startswith(name) else "picked",
                date="2026-03-0" + str(1 + sum(map(ord, summary)) % 3),
            )
            for index, summary in enumerate(order)
        ]
        sides.append(base + "".join(rows))
    expected = {f"b{n}" for n in range(1, base_rows + 1)}
    expected |= {s for text in sides for s in _summaries(text)}
    return base, sides[0], sides[1], expected


def _summaries(text: str) -> list[str]:
    document = parse(text)
    table = records_table(document, OUTCOME)
    assert table is not None
    return [record["summary"] for record in read_records(document, table, OUTCOME)]


@given(shared_histories())
def test_identity_merge_keeps_each_record_once_whichever_side_is_ours(
    history: tuple[str, str, str, set[str]],
) -> None:
    base, ours, theirs, expected = history
    result = merge(base, ours, theirs)
    assert result.conflicts == ()
    assert merge(base, theirs, ours).text == result.text  # every clone computes the same bytes
    document = parse(result.text)
    table = records_table(document, OUTCOME)
    assert table is not None
    records = list(read_records(document, table, OUTCOME))
    assert sorted(record["summary"] for record in records) == sorted(expected)  # each once
    ids = [record.id for record in records]
    assert len(ids) == len(set(ids))
    base_ids = {record.id: record["summary"] for record in _records(base)}
    assert {r.id: r["summary"] for r in records if r.id in base_ids} == base_ids  # old IDs stay


def _records(text: str) -> list[Record]:
    document = parse(text)
    table = records_table(document, OUTCOME)
    return [] if table is None else list(read_records(document, table, OUTCOME))
