"""The 3-way row-aware merge on texts: exact results for each case the driver must handle."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import error_row, outcome_row, pattern_row

from legion_memory.gitops.companions import taken_ids
from legion_memory.gitops.file_merge import describe, merge
from legion_memory.gitops.row_merge import HistoryQuestions
from legion_memory.schema.kinds import (
    ERROR_FIX,
    OUTCOME,
    PATTERN,
    archive_section_lines,
    archive_template,
)

OUTCOMES = OUTCOME.template()
BASE = OUTCOMES + outcome_row(1, "one") + outcome_row(2, "two") + outcome_row(3, "three")


def test_both_sides_append_the_same_next_id_the_later_branch_is_renumbered() -> None:
    ours = BASE + outcome_row(4, "ours", "main")
    theirs = BASE + outcome_row(4, "theirs", "feature")
    result = merge(BASE, ours, theirs)
    expected = BASE + outcome_row(4, "theirs", "feature") + outcome_row(5, "ours", "main")
    assert result.text == expected
    assert merge(BASE, theirs, ours).text == expected  # the same whichever side is ours
    assert result.conflicts == ()
    assert result.renumbered == [("O-004", "O-005")]
    assert describe(result, ".planning/memory/OUTCOMES.md") == [
        "legion-memory: merged .planning/memory/OUTCOMES.md: 1 new row from ours, 1 from "
        "theirs, 0 identical on both sides",
        "legion-memory: .planning/memory/OUTCOMES.md: ours O-004 renumbered to O-005",
    ]


def test_colliding_new_rows_are_numbered_by_date_then_branch_then_content() -> None:
    ours = BASE + outcome_row(4, "a", date="2026-03-03") + outcome_row(5, "b", date="2026-03-03")
    theirs = BASE + "".join(outcome_row(n, s) for n, s in ((4, "c"), (5, "d"), (6, "e")))
    result = merge(BASE, ours, theirs)
    expected = [outcome_row(n, s) for n, s in ((4, "c"), (5, "d"), (6, "e"))]
    expected += [outcome_row(7, "a", date="2026-03-03"), outcome_row(8, "b", date="2026-03-03")]
    assert result.text == BASE + "".join(expected)
    assert merge(BASE, theirs, ours).text == result.text
    assert result.renumbered == [("O-004", "O-007"), ("O-005", "O-008")]


def test_a_record_arriving_under_another_id_is_kept_once_under_the_lower() -> None:
    picked = BASE + outcome_row(4, "picked")
    branch = BASE + outcome_row(4, "other", "feature") + outcome_row(5, "picked")
    result = merge(BASE, picked, branch)
    # The copy whose ID nothing else holds: the branch's O-005.
    assert result.text == BASE + outcome_row(4, "other", "feature") + outcome_row(5, "picked")
    assert merge(BASE, branch, picked).text == result.text
    assert result.again == (("O-004", "O-005"),)
    later = merge(BASE, BASE + outcome_row(6, "picked"), BASE + outcome_row(4, "picked"))
    assert later.text == BASE + outcome_row(4, "picked")
    assert later.again == (("O-006", "O-004"),)
    assert describe(later, "OUTCOMES.md")[-1] == (
        "legion-memory: OUTCOMES.md: O-006 is O-004 arriving again, kept once as O-004"
    )


def test_a_row_added_identically_on_both_sides_appears_once() -> None:
    same = outcome_row(4, "same")
    result = merge(BASE, BASE + same, BASE + same + outcome_row(5, "more"))
    assert result.text == BASE + same + outcome_row(5, "more")
    assert (result.identical, result.renumbered, result.conflicts) == (1, [], ())


def test_a_row_pruned_on_one_side_is_not_resurrected_by_the_other() -> None:
    pruned = OUTCOMES + outcome_row(3, "three")
    appended = BASE + outcome_row(4, "new")
    expected = OUTCOMES + outcome_row(3, "three") + outcome_row(4, "new")
    assert merge(BASE, pruned, appended).text == expected
    assert merge(BASE, appended, pruned).text == expected


def test_prune_of_the_last_rows_while_the_other_side_appends() -> None:
    pruned = OUTCOMES + outcome_row(1, "one")
    appended = BASE + outcome_row(4, "new")
    result = merge(BASE, pruned, appended)
    assert result.text == OUTCOMES + outcome_row(1, "one") + outcome_row(4, "new")


def test_new_id_taken_by_a_row_ours_archived_is_renumbered_past_it() -> None:
    theirs = BASE + outcome_row(4, "theirs", "feature")
    result = merge(BASE, BASE, theirs, reserved=["O-004", "O-009", "P-020"])
    assert result.text == BASE + outcome_row(10, "theirs", "feature")
    assert result.renumbered == [("O-004", "O-010")]


def test_an_errors_fix_on_one_side_wins_over_the_untouched_side() -> None:
    base = ERROR_FIX.template() + error_row(1, "timeout") + error_row(2, "flaky test")
    resolved = base.replace(error_row(2, "flaky test"), error_row(2, "flaky test", "pin", "true"))
    appended = base + error_row(3, "disk full")
    expected = (
        ERROR_FIX.template()
        + error_row(1, "timeout")
        + error_row(2, "flaky test", "pin", "true")
        + error_row(3, "disk full")
    )
    assert merge(base, resolved, appended).text == expected
    assert merge(base, appended, resolved).text == expected


def test_the_same_row_changed_differently_is_a_conflict_around_that_row_only() -> None:
    ours = BASE.replace("| two |", "| two (ours) |")
    theirs = BASE.replace("| two |", "| two (theirs) |") + outcome_row(4, "four")
    result = merge(BASE, ours, theirs, marker_size=9)
    assert result.text == (
        OUTCOMES
        + outcome_row(1, "one")
        + "<<<<<<<<< ours\n"
        + outcome_row(2, "two (ours)")
        + "=========\n"
        + outcome_row(2, "two (theirs)")
        + ">>>>>>>>> theirs\n"
        + outcome_row(3, "three")
        + outcome_row(4, "four")
    )
    assert result.conflicts == ("row O-002 changed differently on both sides",)


def test_a_row_changed_on_one_side_and_removed_on_the_other_is_a_conflict() -> None:
    changed = BASE.replace("| two |", "| two, fixed |")
    removed = OUTCOMES + outcome_row(1, "one") + outcome_row(3, "three")
    result = merge(BASE, removed, changed)
    assert result.text == (
        OUTCOMES
        + outcome_row(1, "one")
        + outcome_row(3, "three")
        + "<<<<<<< ours\n=======\n"
        + outcome_row(2, "two, fixed")
        + ">>>>>>> theirs\n"
    )
    assert result.conflicts == ("row O-002 removed on ours, changed on theirs",)


@pytest.mark.parametrize("archiver", ["ours", "theirs"])
def test_a_fix_one_side_archived_in_the_version_the_other_updated_it_to_stays_removed(
    archiver: str,
) -> None:
    """docs/decisions.md#archived-version: the side that removed the row holds that very
    version in its ARCHIVE.md, so the other's live copy is stale; any other version conflicts."""
    errors = ERROR_FIX.template()
    base = errors + error_row(1, "EADDRINUSE") + error_row(2, "ENOENT")
    updated = errors + error_row(1, "EADDRINUSE", "free the port") + error_row(2, "ENOENT")
    removed = errors + error_row(2, "ENOENT")
    asked: list[tuple[str, str]] = []

    def archived_as(text: str, side: str) -> bool:
        asked.append((text, side))
        return text == error_row(1, "EADDRINUSE", "free the port").strip()[8:]

    ours, theirs = (removed, updated) if archiver == "ours" else (updated, removed)
    result = merge(base, ours, theirs, questions=HistoryQuestions(archived_as=archived_as))
    assert result.text == removed
    assert result.conflicts == ()
    assert asked == [(error_row(1, "EADDRINUSE", "free the port").strip()[8:], archiver)]

    never = HistoryQuestions(archived_as=lambda text, side: False)
    result = merge(base, ours, theirs, questions=never)
    assert len(result.conflicts) == 1


def test_the_same_change_on_both_sides_is_no_conflict() -> None:
    both = BASE.replace("| two |", "| two, fixed |")
    assert merge(BASE, both, both).text == both


def test_untouched_bytes_survive_crlf_no_final_newline_and_bom() -> None:
    base = "\ufeff# Notes  \r\n\r\n| ID | Summary |\r\n|---|---|\r\n|  O-001 |  odd  padding |"
    ours = base + "\r\n| O-002 | ours |"
    theirs = base + "\r\n| O-002 | theirs |"
    result = merge(base, ours, theirs)
    assert result.text == base + "\r\n| O-002 | ours |\r\n| O-003 | theirs |"


def test_learn_entries_appended_on_both_sides_are_both_kept_ours_first() -> None:
    ours = BASE + "\n## PAT-001: ours\n- **Type**: pattern\n"
    theirs = BASE + "\n## PAT-002: theirs\n- **Type**: pitfall\n"
    result = merge(BASE, ours, theirs)
    assert result.text == ours + "\n## PAT-002: theirs\n- **Type**: pitfall\n"
    assert result.conflicts == ()


def test_prose_edits_merge_like_diff3_and_conflict_only_on_the_same_lines() -> None:
    base = "# Title\n\nIntro line.\n\n" + BASE.split("\n", 2)[2] + "\nClosing line.\n"
    ours = base.replace("Intro line.", "Intro, edited by ours.")
    theirs = base.replace("Closing line.", "Closing, edited by theirs.")
    merged = merge(base, ours, theirs)
    assert merged.text == ours.replace("Closing line.", "Closing, edited by theirs.")
    clash = merge(base, ours, base.replace("Intro line.", "Intro, edited by theirs."))
    assert clash.text == base.replace(
        "Intro line.\n",
        "<<<<<<< ours\nIntro, edited by ours.\n=======\nIntro, edited by theirs.\n>>>>>>> theirs\n",
    )
    assert clash.conflicts == ("lines changed differently on both sides near 'Intro line.'",)


def test_archive_sections_created_on_both_sides_become_one() -> None:
    section = "\n" + "\n".join(archive_section_lines(ERROR_FIX)) + "\n"
    base = archive_template()
    ours = base + section + error_row(1, "a", resolved="true")
    theirs = base + section + error_row(2, "b", resolved="true")
    result = merge(base, ours, theirs)
    assert result.text == ours + error_row(2, "b", resolved="true")


def test_archived_rows_keep_their_ids_even_when_both_sides_archived() -> None:
    base = archive_template() + outcome_row(1, "one")
    ours = base + outcome_row(2, "two")
    theirs = base + outcome_row(2, "two") + outcome_row(3, "three")
    assert merge(base, ours, theirs).text == theirs


def test_a_column_added_on_one_side_lays_the_other_sides_new_rows_out_the_same() -> None:
    legacy = "| ID | Summary |\n|----|---------|\n| O-001 | one |\n"
    migrated = "| ID | Branch | Summary |\n|----|--------|---------|\n| O-001 | main | one |\n"
    appended = legacy + "| O-002 | two |\n"
    result = merge(legacy, migrated, appended)
    assert result.text == migrated + "| O-002 |  | two |\n"


def test_a_header_changed_differently_on_both_sides_is_a_conflict() -> None:
    base = "| ID | Summary |\n|----|---------|\n| O-001 | one |\n"
    ours = base.replace("| ID | Summary |", "| ID | Note |")
    theirs = base.replace("| ID | Summary |", "| ID | Text |")
    result = merge(base, ours, theirs)
    assert result.text == f"<<<<<<< ours\n{ours}=======\n{theirs}>>>>>>> theirs\n"
    assert result.conflicts == ("the table header changed differently on both sides",)


def test_rows_without_an_id_column_merge_by_their_text() -> None:
    base = "| Agent | Note |\n|---|---|\n| a | x |\n"
    result = merge(base, base + "| b | y |\n", base + "| b | y |\n| c | z |\n")
    assert result.text == base + "| b | y |\n| c | z |\n"


def test_file_added_on_both_sides_without_a_base() -> None:
    ours = PATTERN.template() + pattern_row(1, "ours", "O-004")
    theirs = PATTERN.template() + pattern_row(1, "theirs", "O-005", "feature")
    result = merge("", ours, theirs)
    assert result.text == PATTERN.template() + pattern_row(
        1, "theirs", "O-005", "feature"
    ) + pattern_row(2, "ours", "O-004")
    assert [(row.id, row.side, row.content) for row in result.incoming] == [
        ("P-001", "theirs", pattern_row(1, "theirs", "O-005", "feature").rstrip("\n")),
        ("P-002", "ours", pattern_row(2, "ours", "O-004").rstrip("\n")),
    ]


def test_a_pick_keeps_ours_ids_and_moves_theirs_colliding_rows() -> None:
    """A rebase or cherry-pick step replays one commit onto ours: ours's rows (the branch it is
    replayed onto) keep their IDs even where theirs's would sort first."""
    ours = BASE + outcome_row(4, "upstream", "main", date="2026-03-03")
    theirs = BASE + outcome_row(4, "replayed", "feature", date="2026-03-01")
    result = merge(BASE, ours, theirs, pick=True)
    assert result.text == ours + outcome_row(5, "replayed", "feature", date="2026-03-01")
    assert result.renumbered == [("O-004", "O-005")]
    # A merge is symmetric instead: the earlier date keeps the ID.
    assert merge(BASE, ours, theirs).renumbered == [("O-004", "O-005")]
    assert merge(BASE, ours, theirs).text.index("replayed") < merge(BASE, ours, theirs).text.index(
        "upstream"
    )


def test_an_id_a_side_moved_away_from_is_free_for_the_other_sides_new_record() -> None:
    """Base holds `moved` as O-004, ours renumbered it to O-005 and holds a record of its own as
    O-004: nothing of theirs uses O-004 any more, so neither record is renumbered again."""
    base = BASE + outcome_row(4, "moved")
    ours = BASE + outcome_row(4, "upstream") + outcome_row(5, "moved")
    theirs = base + outcome_row(5, "next", "feature")
    result = merge(base, ours, theirs, pick=True)
    assert result.text == (
        BASE
        + outcome_row(5, "moved")
        + outcome_row(4, "upstream")
        + outcome_row(6, "next", "feature")
    )
    assert result.renumbered == [("O-005", "O-006")]
    assert result.rekeyed == (("O-004", "O-005", "theirs"),)


def test_a_base_record_whose_id_one_side_changed_merges_the_other_sides_update() -> None:
    errors = ERROR_FIX.template()
    base = errors + error_row(1, "disk full")
    ours = errors + error_row(1, "timeout") + error_row(2, "disk full")
    theirs = errors + error_row(1, "disk full", "free space", "true")
    result = merge(base, ours, theirs)
    assert result.conflicts == ()
    assert result.text == errors + error_row(2, "disk full", "free space", "true") + error_row(
        1, "timeout"
    )
    assert merge(base, theirs, ours).text == result.text


def test_base_records_keep_base_order_whichever_side_is_ours() -> None:
    base = BASE + outcome_row(4, "four")
    moved = OUTCOMES + "".join(outcome_row(n, s) for n, s in ((2, "two"), (3, "three")))
    moved += outcome_row(4, "four") + outcome_row(5, "one")  # an earlier merge moved `one`
    result = merge(base, base + outcome_row(6, "six"), moved)
    assert result.text == merge(base, moved, base + outcome_row(6, "six")).text
    assert result.text.index("| one |") < result.text.index("| two |")


def test_a_source_rewritten_on_one_side_does_not_keep_a_row_the_other_removed() -> None:
    patterns = PATTERN.template()
    base = patterns + pattern_row(1, "kept", "") + pattern_row(2, "restored", "O-001")
    ours = patterns + pattern_row(1, "kept", "")  # moved out of this file (restored or forgotten)
    theirs = patterns + pattern_row(1, "kept", "") + pattern_row(2, "restored", "O-003")
    result = merge(base, ours, theirs)
    assert (result.text, result.conflicts) == (ours, ())
    assert merge(base, theirs, ours).text == ours


def test_a_record_arriving_archived_keeps_the_id_its_live_copy_has_on_ours() -> None:
    """A replayed forget archives the record under the ID the replayed branch gave it; ours
    holds it live under another ID (renumbered by the step that replayed its store)."""
    archive = archive_template()
    theirs = archive + outcome_row(1, "forgotten", "feature")
    live_on_ours = (
        OUTCOME.template() + outcome_row(1, "upstream") + outcome_row(4, "forgotten", "feature")
    )
    reserved = taken_ids(Path("ARCHIVE.md"), [live_on_ours], {})
    result = merge(archive, archive, theirs, archive=True, reserved=reserved, pick=True)
    assert result.text == archive + outcome_row(4, "forgotten", "feature")
    assert result.renumbered == [("O-001", "O-004")]


def test_a_pattern_both_sides_added_citing_their_own_numbering_is_kept_once() -> None:
    patterns = PATTERN.template()
    ours = patterns + pattern_row(3, "picked", "O-002")
    theirs = patterns + pattern_row(3, "picked", "O-001")
    result = merge(patterns, ours, theirs)
    assert (result.text, result.conflicts) == (theirs, ())
    assert merge(patterns, theirs, ours).text == theirs


def test_a_pattern_whose_source_each_side_renumbered_differently_is_no_conflict() -> None:
    """Each side's own merges renumbered the outcome a base pattern cites: only the Source
    differs, so it is one record; the copy kept is the same whichever side is ours, and the
    reference then follows its outcome (docs/decisions.md#references-by-identity)."""
    patterns = PATTERN.template()
    base = patterns + pattern_row(1, "cited", "O-001") + pattern_row(2, "other", "")
    ours = patterns + pattern_row(1, "cited", "O-009") + pattern_row(2, "other", "")
    theirs = patterns + pattern_row(1, "cited", "O-004") + pattern_row(2, "other", "")
    result = merge(base, ours, theirs)
    assert (result.text, result.conflicts) == (theirs, ())
    assert merge(base, theirs, ours).text == theirs


def test_a_pattern_changed_beyond_its_source_on_both_sides_is_still_a_conflict() -> None:
    patterns = PATTERN.template()
    base = patterns + pattern_row(1, "cited", "O-001")
    ours = patterns + pattern_row(1, "cited again", "O-009")
    theirs = patterns + pattern_row(1, "cited", "O-004")
    result = merge(base, ours, theirs)
    assert result.conflicts == ("row P-001 changed differently on both sides",)


def test_a_record_under_the_id_of_one_the_other_files_hold_archived_is_not_its_edit() -> None:
    """Ours archived O-001 and holds another record under that ID; a replayed forget of O-001
    removes the first, not "an edit of it" (no conflict). The live one yields the ID to the
    archived row, as doctor's duplicate-ID rule has it."""
    base = OUTCOMES + outcome_row(1, "first")
    ours = OUTCOMES + outcome_row(1, "second")
    archived_on_ours = archive_template() + outcome_row(1, "first")
    reserved = taken_ids(Path("OUTCOMES.md"), [archived_on_ours], {})
    result = merge(base, ours, OUTCOMES, reserved=reserved, pick=True)
    assert (result.text, result.conflicts) == (OUTCOMES + outcome_row(2, "second"), ())
    assert result.renumbered == [("O-001", "O-002")]
