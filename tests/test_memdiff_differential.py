"""The memory diff from lines against the diff as first written (every record of both versions
built): the same changes, records, problems and bytes on generated pairs of memories."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.memory_diff_reference import compare as reference_compare

from legion_memory.gitops.memory_diff import KindChanges, MemoryDiff, compare, render_markdown
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS, Kind

# Few values per column, so that rows of one kind often share an identity, an ID or a line.
_VALUES = (
    *("a", "b", "c d", "c  d", " a", "x \\| y", "p<br>q", "2026-03-01", "2026-03-02", ""),
    *("é", "é\u3000f", "b\u00a0", "a\tb", "a\u200bb", "a\u2028b", "c:\\dir"),
)
_IDS = (1, 2, 3, 4, 7)
_KINDS = list(KINDS.values())
_OUTCOME_HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n|----|------|--------|-------|------|-------|-----------|---------|"
    "------------|------|---------|\n"
)


@st.composite
def _row(draw: st.DrawFn, kind: Kind) -> list[str]:
    number = draw(st.sampled_from(_IDS))
    record_id = draw(st.sampled_from((f"{kind.prefix}-{number:03d}", "", "X-1")))
    cells = [record_id]
    for column in kind.columns[1:]:
        if column.key == "resolved":
            cells.append(draw(st.sampled_from(("true", "false", "yes"))))
        else:
            cells.append(draw(st.sampled_from(_VALUES)))
    return cells


def _line(cells: list[str], style: int) -> str:
    if style == 1:  # padded cells
        return "|  " + "  |  ".join(cells) + "  |\n"
    if style == 2:  # a ragged row: its last cell lost
        return "| " + " | ".join(cells[:-1]) + " |\n"
    if style == 3:
        return "| " + " | ".join(cells) + " |\r\n"
    if style == 4:
        return "|" + "|".join(cells) + "|\n"
    if style == 5:  # a space before each pipe, none after
        return "| " + " |".join(cells) + " |\n"
    return "| " + " | ".join(cells) + " |\n"


@st.composite
def _table(draw: st.DrawFn, kind: Kind) -> tuple[list[str], list[list[str]], list[int]]:
    """(header names, rows' cells, each row's style)."""
    names = [column.name for column in kind.columns]
    layout = draw(st.integers(0, 6))
    if layout == 4:
        names = names[:-1]  # a legacy layout: one column missing
    elif layout == 5:
        names = [names[0], *reversed(names[1:])]
    elif layout == 6:  # the last two swapped: for an error fix, no part of its identity
        names = [*names[:-2], names[-1], names[-2]]
    rows = draw(st.lists(_row(kind), max_size=6))
    styles = draw(
        st.lists(st.sampled_from((0, 0, 0, 1, 2, 3, 4, 5)), min_size=len(rows), max_size=len(rows))
    )
    return names, rows, styles


def _table_text(section: str, table: tuple[list[str], list[list[str]], list[int]]) -> str:
    names, rows, styles = table
    header = "| " + " | ".join(names) + " |\n|" + "|".join("---" for _ in names) + "|\n"
    body = "".join(
        _line(cells[: len(names)], style) for cells, style in zip(rows, styles, strict=True)
    )
    return f"## {section}\n\n{header}{body}"


@st.composite
def _edited(
    draw: st.DrawFn, kind: Kind, table: tuple[list[str], list[list[str]], list[int]]
) -> tuple[list[str], list[list[str]], list[int]]:
    """The table after some of what happens to memory: rows added, removed, updated, renumbered,
    moved, restyled; now and then a new layout."""
    names, rows, styles = table[0], [list(cells) for cells in table[1]], list(table[2])
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.integers(0, 6))
        if action == 0 or not rows:
            rows.append(draw(_row(kind)))
            styles.append(draw(st.sampled_from((0, 1, 3))))
            continue
        at = draw(st.integers(0, len(rows) - 1))
        if action == 1:
            del rows[at], styles[at]
        elif action == 2:  # a field changed (for an error fix, its Fix or Resolved, say)
            column = draw(st.integers(1, len(kind.columns) - 1))
            rows[at][column] = draw(st.sampled_from(_VALUES))
        elif action == 3:  # renumbered
            rows[at][0] = f"{kind.prefix}-{draw(st.sampled_from(_IDS)):03d}"
        elif action == 4:  # moved
            to = draw(st.integers(0, len(rows) - 1))
            rows.insert(to, rows.pop(at))
            styles.insert(to, styles.pop(at))
        elif action == 5:
            styles[at] = draw(st.sampled_from((0, 1, 2, 3, 4, 5)))
        else:
            rows.insert(at, list(rows[at]))  # held twice
            styles.insert(at, styles[at])
    relayout = draw(st.integers(0, 9))
    if relayout == 0:
        names = [column.name for column in kind.columns][: len(names) - 1 or None]
    elif relayout == 1:
        names = [*names[:-2], names[-1], names[-2]]
    return names, rows, styles


def _moved(
    draw: st.DrawFn,
    live: tuple[list[str], list[list[str]], list[int]],
    archive: tuple[list[str], list[list[str]], list[int]],
) -> None:
    """Rows forgotten (live to archive) and restored (archive to live), in place."""
    for _ in range(draw(st.integers(0, 2))):
        source, target = (live, archive) if draw(st.booleans()) else (archive, live)
        if source[1]:
            at = draw(st.integers(0, len(source[1]) - 1))
            cells = source[1].pop(at)
            if draw(st.booleans()):  # written again with its whitespace as `clean` leaves it
                cells = [" ".join(cell.split()) for cell in cells]
            target[1].append(cells)
            style = source[2].pop(at)
            target[2].append(draw(st.sampled_from((style, 0, 1, 3, 4, 5))))


def _texts(
    draw: st.DrawFn, tables: dict[str, tuple[object, object]], crlf: bool
) -> dict[str, str | None]:
    texts: dict[str, str | None] = {}
    archive = "# Archive\n\n"
    for kind in _KINDS:
        live, archived = tables[kind.name]
        texts[kind.filename] = f"# {kind.title}\n\n" + _table_text(kind.section, live)  # type: ignore[arg-type]
        if archived is not None:
            archive += _table_text(kind.archive_section, archived) + "\n"  # type: ignore[arg-type]
    texts[ARCHIVE_FILENAME] = archive
    for name in list(texts):
        absent = draw(st.integers(0, 11))
        if absent == 0:
            texts[name] = None
        elif absent == 1:
            texts[name] = ""
    if crlf:
        texts = {n: t.replace("\n", "\r\n") if t else t for n, t in texts.items()}
    return texts


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[dict[str, str | None], dict[str, str | None]]:
    old_tables: dict[str, tuple[object, object]] = {}
    new_tables: dict[str, tuple[object, object]] = {}
    for kind in _KINDS:
        live = draw(_table(kind))
        archive = draw(_table(kind)) if draw(st.booleans()) else None
        old_tables[kind.name] = (live, archive)
        if draw(st.integers(0, 3)) == 0:  # the kind untouched
            new_tables[kind.name] = (live, archive)
            continue
        new_live = draw(_edited(kind, live))
        new_archive = draw(_edited(kind, archive)) if archive is not None else None
        if new_archive is None and draw(st.booleans()):
            new_archive = ([c.name for c in kind.columns], [], [])
        if new_archive is not None:
            _moved(draw, new_live, new_archive)
        new_tables[kind.name] = (new_live, new_archive)
    old = _texts(draw, old_tables, draw(st.integers(0, 5)) == 0)
    new = _texts(draw, new_tables, draw(st.integers(0, 5)) == 0)
    return old, new


def _records(changes: KindChanges) -> list[object]:
    """Every record a kind's changes hold, with its line and values."""
    lists = (changes.added, changes.archived, changes.restored, changes.removed)
    updates = (changes.updated, changes.renumbered)
    return [
        *([(r.line, dict(r.values)) for r in records] for records in lists),
        *([(u.old.line, dict(u.old.values), u.new.line, dict(u.new.values)) for u in us]
          for us in updates),
    ]  # fmt: skip


def _same(diff: MemoryDiff, expected: MemoryDiff) -> None:
    assert render_markdown(diff) == render_markdown(expected)
    assert diff.to_json() == expected.to_json()
    assert [_records(changes) for changes in diff.kinds] == [
        _records(changes) for changes in expected.kinds
    ]
    assert diff.problems == expected.problems


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pairs())
def test_the_diff_from_lines_is_the_diff_of_every_record(
    pair: tuple[dict[str, str | None], dict[str, str | None]],
) -> None:
    old, new = pair
    labels = ("v1", "working tree")
    _same(compare(old, new, labels, "m"), reference_compare(old, new, labels, "m"))
    _same(compare(new, old, labels, "m"), reference_compare(new, old, labels, "m"))


def test_unchanged_lines_a_move_both_ways_a_renumbering_and_a_new_layout_exactly() -> None:
    """CRLF alone changes no record; a row that left the live file for the archive is archived,
    one that came back restored, one under another ID renumbered; the same error fix line under
    a header whose Fix and Agent changed places is an update of both."""
    from support.gitrepos import error_row, outcome_row

    from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, archive_template

    rows = [outcome_row(1, "one"), outcome_row(2, "two"), outcome_row(3, "three")]
    swapped = ERROR_FIX.template().replace("| Fix | Agent |", "| Agent | Fix |")
    old = {
        "OUTCOMES.md": OUTCOME.template() + "".join(rows),
        "ERRORS.md": ERROR_FIX.template() + error_row(1, "boom", "retry"),
        "ARCHIVE.md": archive_template() + outcome_row(5, "five"),
    }
    live = OUTCOME.template() + rows[0] + outcome_row(5, "five") + outcome_row(4, "three")
    new = {
        "OUTCOMES.md": live.replace("\n", "\r\n"),
        "ERRORS.md": swapped + error_row(1, "boom", "retry"),
        "ARCHIVE.md": archive_template() + outcome_row(2, "two"),
    }
    assert render_markdown(compare(old, new, ("v1", "v2"), "m")) == (
        "## Memory changes: `v1` → `v2`\n\n### OUTCOMES.md\n\n"
        "**Renumbered (1)**\n\n- O-003 → O-004\n\n"
        f"**Archived (1)**\n\n{_OUTCOME_HEADER}"
        "| O-002 | 2026-03-01 | main | 1 | 01-01 | coder | workflow | success | 2 | git | two |\n\n"
        f"**Restored from the archive (1)**\n\n{_OUTCOME_HEADER}"
        "| O-005 | 2026-03-01 | main | 1 | 01-01 | coder | workflow | success | 2 | git | five |"
        "\n\n"
        "### ERRORS.md\n\n**Updated (1)**\n\n"
        "- E-001: Fix `retry` → `coder`; Agent `coder` → `retry`\n\n"
        "### Validation\n\nNo problems in what changed.\n"
    )
    assert render_markdown(reference_compare(old, new, ("v1", "v2"), "m")) == render_markdown(
        compare(old, new, ("v1", "v2"), "m")
    )


def test_a_kind_whose_files_are_unchanged_is_not_parsed() -> None:
    """Both of a kind's files byte-identical: no change, and its table is never read (a file no
    table could be read from would otherwise be)."""
    from legion_memory.gitops.memory_diff import compare_kind
    from legion_memory.gitops.memory_diff_rows import RowReader

    texts = {"PATTERNS.md": "| not | a | table", "ARCHIVE.md": None}
    reader = RowReader()
    assert not compare_kind(texts, dict(texts), KINDS["patterns"], reader)
    assert reader.documents == []


def test_a_row_written_another_way_is_the_same_record_live_or_archived() -> None:
    """Padding and pipes without spaces change no record: restyled, it is nothing; restyled and
    renumbered, a renumbering; restyled into the archive, archived (not removed)."""
    from support.gitrepos import outcome_row

    from legion_memory.schema.kinds import OUTCOME, archive_template

    def spaced_before(row: str) -> str:
        return row.replace(" | ", " |")

    def tight(row: str) -> str:
        return row.replace(" | ", "|").replace("| ", "|").replace(" |", "|")

    rows = [outcome_row(1, "one"), outcome_row(2, "two"), outcome_row(3, "three")]
    old = {"OUTCOMES.md": OUTCOME.template() + "".join(rows), "ARCHIVE.md": None}
    live = spaced_before(rows[0]) + tight(outcome_row(4, "three"))
    new = {
        "OUTCOMES.md": OUTCOME.template() + live,
        "ARCHIVE.md": archive_template() + spaced_before(rows[1]),
    }
    assert render_markdown(compare(old, new, ("v1", "v2"), "m")) == (
        "## Memory changes: `v1` → `v2`\n\n### OUTCOMES.md\n\n"
        "**Renumbered (1)**\n\n- O-003 → O-004\n\n"
        f"**Archived (1)**\n\n{_OUTCOME_HEADER}"
        "| O-002 | 2026-03-01 | main | 1 | 01-01 | coder | workflow | success | 2 | git | two |\n\n"
        "### Validation\n\nNo problems in what changed.\n"
    )


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    """What the key of a row written as the tool writes rows rests on: a printable line holds no
    whitespace `str.split` would take but spaces."""
    import sys

    spaces = [chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()]
    assert [char for char in spaces if char.isprintable()] == [" "]


def test_a_record_archived_with_its_whitespace_cleaned_is_archived_not_removed() -> None:
    """Whitespace runs, tabs and wide spaces are no part of a record's identity: a row archived
    with them made single spaces is archived, and nothing is removed."""
    from support.gitrepos import outcome_row

    from legion_memory.schema.kinds import OUTCOME, archive_template

    words = ("one", "two", "three", "four")
    spaces = ("  ", "\t", "\u00a0", "\u3000")
    written = [f"{word}{space}b" for word, space in zip(words, spaces, strict=True)]
    old = {
        "OUTCOMES.md": OUTCOME.template()
        + "".join(outcome_row(n, summary) for n, summary in enumerate(written, start=1)),
        "ARCHIVE.md": None,
    }
    rows = "".join(outcome_row(n, f"{word} b") for n, word in enumerate(words, start=1))
    new = {"OUTCOMES.md": OUTCOME.template(), "ARCHIVE.md": archive_template() + rows}
    assert render_markdown(compare(old, new, ("v1", "v2"), "m")) == (
        "## Memory changes: `v1` → `v2`\n\n### OUTCOMES.md\n\n"
        f"**Archived (4)**\n\n{_OUTCOME_HEADER}{rows}\n"
        "### Validation\n\nNo problems in what changed.\n"
    )


def test_a_record_with_an_escaped_pipe_archived_padded_is_archived_not_removed() -> None:
    """An escaped pipe is the value's pipe however the row is padded."""
    from support.gitrepos import outcome_row

    from legion_memory.schema.kinds import OUTCOME, archive_template

    row = outcome_row(1, "exit 1 \\| exit 2")
    old = {"OUTCOMES.md": OUTCOME.template() + row, "ARCHIVE.md": None}
    padded = row.replace(" | ", "  |  ")
    new = {"OUTCOMES.md": OUTCOME.template(), "ARCHIVE.md": archive_template() + padded}
    assert render_markdown(compare(old, new, ("v1", "v2"), "m")) == (
        "## Memory changes: `v1` → `v2`\n\n### OUTCOMES.md\n\n"
        f"**Archived (1)**\n\n{_OUTCOME_HEADER}{row}\n"
        "### Validation\n\nNo problems in what changed.\n"
    )


@given(st.text(st.sampled_from(("a", " ", "\n", "\r", "\t", "\x1b", "\x7f", "\x9f", "\xa0", "é"))))
def test_a_text_is_printable_but_its_line_feeds_as_python_says(text: str) -> None:
    from legion_memory.schema.twin_hashes import printable_but_line_feeds

    assert printable_but_line_feeds(text) == text.replace("\n", "").isprintable()
    assert printable_but_line_feeds(text + "日😀\u200b\ud800") is False


def test_each_character_is_printable_but_line_feeds_as_python_says() -> None:
    import sys

    from legion_memory.schema.twin_hashes import printable_but_line_feeds

    for code in range(sys.maxunicode + 1):
        character = chr(code)
        expected = character == "\n" or character.isprintable()
        assert printable_but_line_feeds(f"a{character}\n") == expected, hex(code)


def test_the_problems_are_those_the_change_brings() -> None:
    """A row the old version holds as it is keeps its problem to itself; a new row holding its
    ID is a duplicate; an unchanged ragged row still makes GitHub show the changed table as
    text; a file as it was is not read at all."""
    from support.gitrepos import error_row, outcome_row

    from legion_memory.schema.kinds import ERROR_FIX, OUTCOME

    bad = outcome_row(2, "two", date="2026-02-30")
    ragged = "| E-001 | 2026-03-01 | main | boom |\n"
    old = {
        "OUTCOMES.md": OUTCOME.template() + outcome_row(1, "one") + bad,
        "ERRORS.md": ERROR_FIX.template() + ragged,
        "PATTERNS.md": "| not | a | table",
    }
    new = {
        "OUTCOMES.md": old["OUTCOMES.md"] + outcome_row(3, "three") + outcome_row(1, "again"),
        "ERRORS.md": old["ERRORS.md"] + error_row(2, "bang", resolved="yes"),
        "PATTERNS.md": old["PATTERNS.md"],
    }
    header = OUTCOME.template().count("\n")
    errors = ERROR_FIX.template().count("\n")
    assert [str(problem) for problem in compare(old, new, ("v1", "v2"), "m").problems] == [
        f"m/OUTCOMES.md:{header + 4}: error: duplicate ID O-001 (also on line {header + 1})",
        f"m/ERRORS.md:{errors - 1}: warning: GitHub would show this table as plain text "
        "(a bad row)",
        f"m/ERRORS.md:{errors + 2}: error: Resolved 'yes' must be true or false",
    ]
