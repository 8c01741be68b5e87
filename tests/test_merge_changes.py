"""Which records a merge commit changed itself that a rebase lost, and how their rows are set
back (docs/decisions.md#merge-changes); the real-git cases are in test_collab_merge_changes.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import error_row, pattern_row

from legion_memory.gitops.integration_versions import BranchMerge
from legion_memory.schema.kinds import (
    ERROR_FIX,
    PATTERN,
    archive_section_lines,
    archive_template,
)
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.merge_changes import (
    Lost,
    Merged,
    SideRecords,
    lost_changes,
    restored_texts,
)
from legion_memory.upkeep.replayed_changes import Key, State, states

MERGE = BranchMerge("m", ("p1", "p2"), "merge side")


def _errors(memory: Memory, *rows: str) -> dict[Key, State]:
    return states(memory, {memory.path(ERROR_FIX): ERROR_FIX.template() + "".join(rows)})


def _archived_error(memory: Memory, row: str) -> dict[Key, State]:
    section = "\n".join(archive_section_lines(ERROR_FIX))
    return states(memory, {memory.archive: f"{archive_template()}\n{section}\n{row}"})


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    return Memory.of_project(tmp_path)


def _lost(
    memory: Memory,
    merged: str,
    parents: tuple[str, str],
    before: str,
    onto: str,
    now: str,
    base: str = "",
) -> list[tuple[str, str]]:
    """(ID now, the merge's Fix) of each record found, each version one error row or ''."""
    rows = (merged, *parents, before, onto, base)
    version = {row: _errors(memory, row) if row else {} for row in rows}
    found = lost_changes(
        [Merged(MERGE, version[merged], tuple(version[p] for p in parents))],
        SideRecords(version[before], version[onto], version[base]),
        _errors(memory, now),
    )
    return [(item.id, item.made.body[3]) for item in found]


RETRY, FIX1, FIX2 = (error_row(1, "disk full", fix) for fix in ("retry", "fix1", "fix2"))


def test_a_fix_the_merge_made_itself_and_the_rebase_lost_is_found(memory: Memory) -> None:
    assert _lost(memory, FIX1, (RETRY, RETRY), FIX1, RETRY, RETRY) == [("E-001", "fix1")]


def test_a_parent_that_never_held_the_record_does_not_count(memory: Memory) -> None:
    """The merged branch parted before the record was stored."""
    assert _lost(memory, FIX1, (RETRY, ""), FIX1, "", RETRY) == [("E-001", "fix1")]


def test_an_upstream_holding_the_version_the_sides_parted_at_changed_nothing(
    memory: Memory,
) -> None:
    """The branch fixed the error (retry to fix1) before its merge made fix2; the upstream still
    holds `retry`, as where they parted (seed 14007 of --merge-change-kinds, step 205)."""
    found = _lost(memory, FIX2, (FIX1, FIX1), FIX2, RETRY, FIX1, base=RETRY)
    assert found == [("E-001", "fix2")]


def test_the_record_is_found_under_the_id_it_has_now(memory: Memory) -> None:
    now = error_row(4, "disk full", "retry")
    assert _lost(memory, FIX1, (RETRY, RETRY), FIX1, "", now) == [("E-004", "fix1")]


@pytest.mark.parametrize(
    ("merged", "parents", "before", "onto", "now", "why"),
    [
        (FIX1, (RETRY, FIX1), FIX1, RETRY, RETRY, "a parent made fix1: the merge took it"),
        (FIX1, ("", ""), FIX1, "", RETRY, "no parent holds it: stored in the merge"),
        (FIX1, (RETRY, RETRY), FIX2, RETRY, RETRY, "the branch changed it again since"),
        (FIX1, (RETRY, RETRY), FIX1, FIX2, FIX2, "the upstream changed it too"),
        (FIX1, (RETRY, RETRY), FIX1, RETRY, FIX1, "the rebase kept the merge's version"),
        (FIX1, (RETRY, RETRY), FIX1, RETRY, FIX2, "the result is no parent's version"),
    ],
)
def test_a_record_is_not_found_when(
    memory: Memory,
    merged: str,
    parents: tuple[str, str],
    before: str,
    onto: str,
    now: str,
    why: str,
) -> None:
    assert _lost(memory, merged, parents, before, onto, now, base=RETRY) == [], why


def test_an_upstream_that_changed_the_record_since_the_sides_parted_keeps_its_change(
    memory: Memory,
) -> None:
    """They parted at fix1; the upstream set it back to `retry` since."""
    assert _lost(memory, FIX2, (FIX1, FIX1), FIX2, RETRY, FIX1, base=FIX1) == []


def test_a_record_the_merge_archived_and_the_rebase_left_live_is_found_moved(
    memory: Memory,
) -> None:
    archived, live = _archived_error(memory, RETRY), _errors(memory, RETRY)
    assert [(state.id, state.archived) for state in archived.values()] == [("E-001", True)]

    sides = SideRecords(archived, live, live)
    found = lost_changes([Merged(MERGE, archived, (live, live))], sides, live)

    assert [(item.id, item.archived_now, item.made.archived) for item in found] == [
        ("E-001", False, True)
    ]


def test_a_record_moved_and_changed_by_the_merge_is_left_to_a_person(memory: Memory) -> None:
    archived, live = _archived_error(memory, FIX1), _errors(memory, RETRY)

    sides = SideRecords(archived, live, live)
    assert lost_changes([Merged(MERGE, archived, (live, live))], sides, live) == []


def test_the_row_takes_the_merge_s_cells_and_keeps_its_id_source_padding_and_ending(
    memory: Memory,
) -> None:
    now_row = pattern_row(3, "cache", "O-007").replace("\n", "\r\n")
    made_row = pattern_row(1, "cache, kept warm", "O-002")
    made = states(memory, {memory.path(PATTERN): PATTERN.template() + made_row})
    key = next(iter(made))
    texts = {memory.path(PATTERN): PATTERN.template() + now_row}

    lost = [Lost(key, "P-003", False, made[key], "merge side")]
    changed, done = restored_texts(memory, texts, lost)

    assert done == lost
    kept = pattern_row(3, "cache, kept warm", "O-007").replace("\n", "\r\n")
    assert changed == {memory.path(PATTERN): PATTERN.template() + kept}


def test_a_row_in_other_columns_is_laid_out_in_the_current_ones(memory: Memory) -> None:
    """The merge's table lacked the Branch column (a legacy layout), the current one has it."""
    legacy = (
        "| ID | Date | Error Signature | Fix | Agent | Resolved | Tags |\n"
        "|----|------|-----------------|-----|-------|----------|------|\n"
        "| E-001 | 2026-03-01 | disk full | fix1 | coder | true | git |\n"
    )
    made = states(memory, {memory.path(ERROR_FIX): "# Errors\n\n" + legacy})
    key = next(iter(made))
    texts = {memory.path(ERROR_FIX): ERROR_FIX.template() + RETRY}

    changed, _ = restored_texts(memory, texts, [Lost(key, "E-001", False, made[key], "merge side")])

    fixed = "| E-001 | 2026-03-01 |  | disk full | fix1 | coder | true | git |\n"
    assert changed == {memory.path(ERROR_FIX): ERROR_FIX.template() + fixed}


def test_a_version_that_differs_only_in_columns_the_table_lacks_changes_nothing(
    memory: Memory,
) -> None:
    """A merge that added a column the rebased table lacks: laid out in the current columns, its
    version is the row as it is."""
    wide = (
        ERROR_FIX.template()
        .replace("| Tags |", "| Tags | Notes |")
        .replace("|------|\n", "|------|-------|\n")
    )
    made = states(memory, {memory.path(ERROR_FIX): wide + RETRY.replace("git |", "git | n |")})
    key = next(iter(made))
    texts = {memory.path(ERROR_FIX): ERROR_FIX.template() + RETRY}

    assert restored_texts(memory, texts, [Lost(key, "E-001", False, made[key], "merge")]) == (
        {},
        [],
    )


def test_a_merge_that_undid_a_parent_s_change_made_that_version_itself(memory: Memory) -> None:
    """The parents parted at `retry`; the first fixed it (fix1), the second left it, and the
    merge set it back: its version is the second parent's, yet a merge of the two keeps fix1."""
    merged = lost_changes(
        [Merged(MERGE, _errors(memory, RETRY), (_errors(memory, FIX1), _errors(memory, RETRY)))],
        SideRecords(_errors(memory, RETRY), {}, {}),
        _errors(memory, FIX1),
    )
    assert [(item.id, item.made.body[3]) for item in merged] == []  # the parted records unknown
    parted = Merged(
        MERGE,
        _errors(memory, RETRY),
        (_errors(memory, FIX1), _errors(memory, RETRY)),
        _errors(memory, RETRY),
    )
    found = lost_changes(
        [parted], SideRecords(_errors(memory, RETRY), {}, {}), _errors(memory, FIX1)
    )
    assert [(item.id, item.made.body[3]) for item in found] == [("E-001", "retry")]
    took = parted._replace(made=_errors(memory, FIX1))  # the merge kept the first's change
    assert (
        lost_changes([took], SideRecords(_errors(memory, FIX1), {}, {}), _errors(memory, RETRY))
        == []
    )
