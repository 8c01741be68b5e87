"""`history_text`: the literal every copy of a record carries, whatever its ID and references."""

from __future__ import annotations

from legion_memory.schema.identity import history_text

PATTERN_COLUMNS = ("id", "date", "branch", "pattern", "context", "reuse_criteria", "source", "tags")


def test_a_pattern_stops_before_its_source_so_a_renumbered_reference_still_matches() -> None:
    ours = "| P-003 | 2026-03-02 | a3 | retry | c | r | O-008 | sim |\n"
    theirs = "| P-001 | 2026-03-02 | a3 | retry | c | r | O-001 | sim |\r\n"
    expected = "| 2026-03-02 | a3 | retry | c | r |"
    assert history_text(ours, PATTERN_COLUMNS) == expected
    assert history_text(theirs, PATTERN_COLUMNS) == expected


def test_an_outcome_is_every_cell_after_its_id_with_escaped_pipes_kept() -> None:
    columns = ("id", "date", "summary")
    assert history_text("| O-004 | 2026-03-01 | a \\| b |", columns) == "| 2026-03-01 | a \\| b |"


def test_a_row_without_outer_pipes_ends_with_its_last_cell() -> None:
    assert history_text("O-004 | 2026-03-01 | done", ("id", "date", "summary")) == (
        "| 2026-03-01 | done"
    )


def test_nothing_to_match_without_cells_after_the_id_or_without_an_id() -> None:
    assert history_text("| O-004 |", ("id",)) == ""
    assert history_text("| a | b |", ("name", "value")) == ""
