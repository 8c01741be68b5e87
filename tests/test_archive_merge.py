"""ARCHIVE.md merges per kind table by record identity, sections as forget and restore keep them."""

from __future__ import annotations

from support.gitrepos import error_row, outcome_row, pattern_row

from legion_memory.gitops.file_merge import merge
from legion_memory.schema.kinds import ERROR_FIX, PATTERN, PREFERENCE, Kind, archive_section_lines
from legion_memory.schema.kinds import archive_template as template

PREFERENCE_ROW = (
    "| D-001 | 2026-03-01 | main | agent-selection | c | p | u | accepted | coder | |\n"
)


def _section(kind: Kind, rows: str) -> str:
    return "\n" + "\n".join(archive_section_lines(kind)) + "\n" + rows


def _both_ways(base: str, ours: str, theirs: str) -> str:
    """The clean merge, after checking that either side as ours gives the same bytes."""
    done = merge(base, ours, theirs, archive=True)
    assert done.conflicts == ()
    assert merge(base, theirs, ours, archive=True).text == done.text
    return done.text


def test_a_restore_emptying_a_section_while_the_other_side_forgets_into_another() -> None:
    base = template() + _section(PATTERN, pattern_row(1, "p", "O-001"))
    restored = template()  # restore removed the emptied section
    forgot = base + _section(PREFERENCE, PREFERENCE_ROW)
    merged = merge(base, restored, forgot, archive=True)
    assert merged.conflicts == ()
    assert merged.text == template() + _section(PREFERENCE, PREFERENCE_ROW)
    assert merge(base, forgot, restored, archive=True).text == merged.text


def test_a_section_both_sides_emptied_is_gone_without_a_conflict() -> None:
    """Each side restored the one archived pattern (one of them also archived an outcome):
    both removed the Archived Patterns section, which stays removed."""
    base = template() + _section(PATTERN, pattern_row(1, "p", "O-001"))
    restored = template()
    restored_and_forgot = template() + outcome_row(2, "o")
    assert _both_ways(base, restored, restored_and_forgot) == restored_and_forgot


def test_sections_both_sides_create_become_one_each_in_kind_order() -> None:
    base = template()
    ours = base + _section(ERROR_FIX, error_row(1, "a", resolved="true"))
    theirs = (
        base
        + _section(PATTERN, pattern_row(1, "p", "O-001"))
        + _section(ERROR_FIX, error_row(2, "b", resolved="true"))
    )
    expected = (
        base
        + _section(PATTERN, pattern_row(1, "p", "O-001"))
        + _section(
            ERROR_FIX, error_row(1, "a", resolved="true") + error_row(2, "b", resolved="true")
        )
    )
    assert _both_ways(base, ours, theirs) == expected


def test_a_doubled_heading_and_a_misfiled_row_are_merged_into_their_own_tables() -> None:
    base = template() + _section(PATTERN, pattern_row(1, "p", "O-001"))
    damaged = base + _section(PATTERN, pattern_row(2, "q", "O-002") + PREFERENCE_ROW)
    merged = merge(base, damaged, base + outcome_row(3, "three"), archive=True)
    assert merged.text == (
        template()
        + outcome_row(3, "three")
        + _section(PATTERN, pattern_row(1, "p", "O-001") + pattern_row(2, "q", "O-002"))
        + _section(PREFERENCE, PREFERENCE_ROW)
    )


def test_the_same_record_archived_on_both_sides_under_two_ids_is_kept_once() -> None:
    base = template() + outcome_row(1, "one")
    ours = base + outcome_row(2, "forgotten")
    theirs = base + outcome_row(3, "forgotten")
    merged = merge(base, ours, theirs, archive=True)
    assert merged.text == base + outcome_row(2, "forgotten")
    assert merged.again == (("O-003", "O-002"),)
