"""Real-git reproductions of a record arriving live where it is archived, or archived where it was
restored since: the copy with the later state wins (docs/decisions.md#archive-moves)."""

from __future__ import annotations

from pathlib import Path
from subprocess import CompletedProcess

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    archived_outcomes,
    assert_healthy,
    commit,
    commit_without_hooks,
    fix_error,
    init_memory,
    memory_of,
    rows,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

ARCHIVED_ALPHA = (
    "| O-001 | 2026-03-02 | feature | 1 | 01-01 | coder | workflow | success | 2 | git | alpha |"
)


def _subjects(repo: Path, count: int) -> list[str]:
    return git(repo, "log", f"-{count}", "--format=%s").splitlines()


def _feature_storing_alpha(repo: Path) -> str:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    return git(repo, "rev-parse", "HEAD").strip()


def _archived_copy_added_and_dropped(repo: Path, archived: str) -> None:
    """Two commits of a clone without the hooks (whose post-commit would have repaired at once):
    ARCHIVE.md as `archived` has it (alpha archived too), then as it was (alpha live only)."""
    archive = repo / ".planning" / "memory" / "ARCHIVE.md"
    original = archive.read_text(encoding="utf-8")
    archive.write_text(archived, encoding="utf-8")
    commit_without_hooks(repo, "a merge made without the driver left alpha archived too")
    archive.write_text(original, encoding="utf-8")
    commit_without_hooks(repo, "keep alpha live")


def _merged_then_forgotten_on_main(repo: Path) -> str:
    """feature stores alpha; main merges it, then forgets alpha. The store commit's name."""
    stored = _feature_storing_alpha(repo)
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--no-edit", "feature").returncode == 0
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    return stored


def _on_main_pick_and_restore(repo: Path, picked: str) -> None:
    """On main, moved on (so picks are new commits): pick the branch's forget, restore O-001."""
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", picked).returncode == 0
    restore(memory_of(repo), "O-001")


def _feature_forgets_alpha_main_picks_and_restores_it(repo: Path) -> None:
    """alpha stored on main; feature forgets it; main picks that forget and restores alpha."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    _on_main_pick_and_restore(repo, "feature")


def _merged_with_a_repair(repo: Path) -> str:
    """Merge feature into main; the hook commits a repair on top. What git and the hook said."""
    merged = run_git(repo, "merge", "--no-edit", "feature")
    assert merged.returncode == 0, merged.stderr
    assert _subjects(repo, 2) == [
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)",
        "Merge branch 'feature'",
    ]
    return merged.stderr


def test_picking_a_store_again_after_the_record_was_forgotten_keeps_it_archived(
    repo: Path,
) -> None:
    stored = _merged_then_forgotten_on_main(repo)
    before = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    picked = run_git(repo, "cherry-pick", stored)

    assert picked.returncode == 0, picked.stderr
    assert "legion-memory: committed the repair of .planning/memory as its own commit" in (
        picked.stderr
    )
    assert _subjects(repo, 3) == [
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)",
        "store alpha",
        "forget alpha",
    ]
    assert {name: text_of(repo, name) for name in before} == before
    assert rows(repo) == []
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert_healthy(repo)


def test_merging_a_branch_whose_forget_was_replayed_and_restored_keeps_the_restore(
    repo: Path,
) -> None:
    """The branch's commits reached main as copies (a rebase, a pick), main restored the record
    afterwards; merging the branch itself brings its old forget back as an archived copy."""
    _feature_storing_alpha(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    _on_main_pick_and_restore(repo, "main..feature")
    commit(repo, "restore alpha")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert _subjects(repo, 2) == [
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)",
        "Merge branch 'feature'",
    ]
    assert rows(repo) == [("O-001", "feature", "alpha")]
    assert archived_outcomes(repo) == []
    assert {name: text_of(repo, name) for name in restored} == restored
    assert_healthy(repo)


def test_merging_a_stale_live_copy_into_a_branch_that_forgot_it_keeps_it_archived(
    repo: Path,
) -> None:
    """The same pair the other way round: the forget is the later state, archiving wins."""
    _feature_storing_alpha(repo)
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "cherry-pick", "feature").returncode == 0
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert rows(repo) == []
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert_healthy(repo)


def test_a_rebase_replaying_a_repair_onto_another_state_drops_no_record(repo: Path) -> None:
    """The branch once held the record live and archived (committed in a clone without the
    hooks, whose post-commit would have repaired it at once) and removed the archived copy; the
    upstream has since forgotten the record. Replayed there, that removal and the upstream's
    forget together leave neither copy: the rebase's hook puts the record back, archived as the
    upstream holds it. The branch never moved it: adding and dropping a copy in ARCHIVE.md alone
    is no forget or restore, so the upstream's forget is the later state (it was put back live
    while dropping the copy counted as a restore; docs/decisions.md#archive-moves)."""
    _feature_storing_alpha(repo)
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "feature").returncode == 0
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    archived = text_of(repo, "ARCHIVE.md")
    git(repo, "checkout", "-q", "feature")
    _archived_copy_added_and_dropped(repo, archived)

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert (
        "repaired .planning/memory/ARCHIVE.md: put back O-001 (archived, as the upstream holds it)"
        in rebased.stderr
    )
    assert rows(repo) == []
    assert text_of(repo, "ARCHIVE.md") == archived
    assert_healthy(repo)


def test_a_rebase_replaying_a_removal_onto_the_upstream_s_restore_puts_the_record_back_live(
    repo: Path,
) -> None:
    """The branch started where main had forgotten alpha and never moved it itself: a clone
    without the hooks left alpha live there too, and the branch removed that copy again. Main
    has restored alpha since. Replayed onto main, the removal takes main's live row; the
    rebase's hook puts alpha back as main holds it, live, not archived as the branch holds it
    only because its old base did (seed 5076 of the collaboration simulation's
    `--stash-kinds`)."""
    _merged_then_forgotten_on_main(repo)
    git(repo, "checkout", "-q", "-b", "topic")
    outcomes = repo / ".planning" / "memory" / "OUTCOMES.md"
    forgotten = outcomes.read_text(encoding="utf-8")
    outcomes.write_text(git(repo, "show", "HEAD~1:.planning/memory/OUTCOMES.md"), encoding="utf-8")
    commit_without_hooks(repo, "a merge made without the driver left alpha live too")
    outcomes.write_text(forgotten, encoding="utf-8")
    commit_without_hooks(repo, "keep alpha archived")
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "topic")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert "put back O-001 (live, as the upstream holds it)" in rebased.stderr
    assert rows(repo) == [("O-001", "feature", "alpha")]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_applying_a_mailed_store_of_a_forgotten_record_keeps_it_archived(
    repo: Path, tmp_path: Path
) -> None:
    stored = _merged_then_forgotten_on_main(repo)
    git(repo, "format-patch", "-q", "-1", stored, "-o", str(tmp_path / "mail"))

    applied = run_git(repo, "am", *map(str, sorted((tmp_path / "mail").iterdir())))

    assert applied.returncode == 0, applied.stderr
    assert _subjects(repo, 3) == [
        "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)",
        "store alpha",
        "forget alpha",
    ]
    assert rows(repo) == []
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert_healthy(repo)


def test_merging_a_forget_that_ours_replayed_and_undid_keeps_the_record_live(repo: Path) -> None:
    """Base holds the record live and ours holds it live: by base alone theirs's forget wins.
    But ours picked that forget and restored the record since: its state is the later one."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    add_outcome(repo, "beta", "main")
    commit(repo, "restore alpha, store beta")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    merged = _merged_with_a_repair(repo)

    # The driver keeps it live; ARCHIVE.md, which ours left as base had it, git takes from
    # theirs whole, and the hook removes the stale archived copy.
    assert "removed the archived copy of O-001, restored since it was archived" in merged
    assert {name: text_of(repo, name) for name in restored} == restored
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", "main", "beta")]
    assert_healthy(repo)


def test_picking_a_branchs_commits_repairs_once_at_the_end_and_the_sequence_completes(
    repo: Path,
) -> None:
    """The second pick leaves two rows under one ID; a repair committed mid-way would stop git's
    sequence (it holds the index itself), so the hook repairs after the last pick."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "forgotten", "feature")
    commit(repo, "store forgotten")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget it")
    add_outcome(repo, "kept", "feature")
    commit(repo, "store kept")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "on main", "main", date="2026-03-01")
    commit(repo, "store on main")

    picked = run_git(repo, "cherry-pick", "main..feature")

    assert picked.returncode == 0, picked.stderr
    assert not (repo / ".git" / "sequencer").exists()
    assert _subjects(repo, 4) == [
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)",
        "store kept",
        "forget it",
        "store forgotten",
    ]
    assert sorted(summary for _, _, summary in rows(repo)) == ["kept", "on main"]
    assert [line.split("|")[-2].strip() for line in archived_outcomes(repo)] == ["forgotten"]
    assert_healthy(repo)


def test_merging_a_forget_when_ours_forgot_and_restored_and_did_nothing_else_keeps_it_live(
    repo: Path,
) -> None:
    """Ours's memory files end as base had them, so git takes theirs's whole without the driver;
    the post-merge hook sees ours's history changed them and has doctor weigh the two sides."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    commit(repo, "restore alpha")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    merged = _merged_with_a_repair(repo)

    assert "O-001 made live again, its later state" in merged
    assert {name: text_of(repo, name) for name in restored} == restored
    assert rows(repo) == [("O-001", "main", "alpha")]
    assert_healthy(repo)


def _main_picked_a_forget_and_restored_it(repo: Path) -> tuple[str, str]:
    """feature stores alpha, forgets it and stores beta; main picks the store and the forget,
    then restores alpha. The names of feature's forget and of its store of beta."""
    _feature_storing_alpha(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    forgotten, beta = git(repo, "rev-list", "-2", "feature").split()[::-1]
    _on_main_pick_and_restore(repo, "main..feature~1")
    commit(repo, "restore alpha")
    return forgotten, beta


@pytest.mark.parametrize("pick_beta", [False, True], ids=["one pick", "two picks at once"])
def test_picking_a_forget_main_already_picked_and_undid_keeps_the_restore(
    repo: Path, pick_beta: bool
) -> None:
    """Picked again (with the rest of the branch, say), the old forget archives the record a
    second time; the post-commit hook sets it back, as the upstream holds it."""
    forgotten, beta = _main_picked_a_forget_and_restored_it(repo)

    picked = run_git(repo, "cherry-pick", forgotten, *([beta] if pick_beta else []))

    assert picked.returncode == 0, picked.stderr
    stores = ["store beta"] if pick_beta else []
    assert _subjects(repo, 3 + len(stores)) == [
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)",
        *stores,
        "forget alpha",
        "restore alpha",
    ]
    live = [("O-001", "feature", "alpha")] + ([("O-002", "feature", "beta")] if pick_beta else [])
    assert rows(repo) == live
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_rebasing_onto_a_squash_that_holds_the_restore_of_a_copied_forget_keeps_it_live(
    repo: Path,
) -> None:
    """later is started from feature's forget of alpha; feature then restores alpha and is
    squashed into main with git's own message, which names the squashed commits. Rebased onto
    main, later replays the forget over the squash: the post-rewrite hook sets it back."""
    _feature_storing_alpha(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "branch", "later")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    git(repo, "checkout", "-q", "later")
    add_outcome(repo, "beta", "later")
    commit(repo, "store beta")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert _subjects(repo, 3) == [
        "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)",
        "store beta",
        "forget alpha",
    ]
    assert rows(repo) == [("O-001", "feature", "alpha"), ("O-002", "later", "beta")]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_a_rebase_whose_first_commit_git_drops_still_keeps_main_s_forget(repo: Path) -> None:
    """feature's first commit is already on main in other words (git drops it as empty and
    names main's tip as what it became); its store of alpha was picked to main, which then
    forgot alpha. Replayed, the store brings alpha back live beside the archived copy: the
    hook must weigh it against main's tip, not the commit before it, and keep it archived."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "notes.txt").write_text("one\n", encoding="utf-8")
    commit(repo, "notes")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own", "main", date="2026-03-01")
    (repo / "notes.txt").write_text("one\n", encoding="utf-8")
    (repo / "other.txt").write_text("other\n", encoding="utf-8")
    commit(repo, "notes and more")
    assert run_git(repo, "cherry-pick", "feature").returncode == 0
    alpha = {summary: record_id for record_id, _, summary in rows(repo)}["alpha"]
    forget(memory_of(repo), alpha)
    commit(repo, "forget alpha")
    archived = archived_outcomes(repo)
    git(repo, "checkout", "-q", "feature")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert [summary for _, _, summary in rows(repo)] == ["main's own"]
    assert archived_outcomes(repo) == archived
    assert_healthy(repo)


def test_a_branch_forgetting_again_after_main_picked_its_older_moves_keeps_it_archived(
    repo: Path,
) -> None:
    """feature stores, forgets and restores alpha; main picks those three commits (copies), then
    merges feature. feature forgets alpha again while main stores beta: main's copies of
    feature's older moves are no moves of main's own, so merging feature archives alpha."""
    _feature_storing_alpha(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    moves = git(repo, "rev-list", "--reverse", "main..feature").split()
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", *moves).returncode == 0
    assert run_git(repo, "merge", "-q", "--no-edit", "feature").returncode == 0
    git(repo, "checkout", "-q", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "beta", "main")
    commit(repo, "store beta")
    assert run_git(repo, "merge", "-q", "--no-edit", "feature").returncode == 0
    assert rows(repo) == [("O-002", "main", "beta")]
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_an_errors_file_a_branch_restored_to_base_is_weighed_though_its_archive_changed(
    repo: Path,
) -> None:
    """feature forgets an error fix, main squash-merges that, then feature restores the fix and
    forgets alpha. feature's ERRORS.md ends as base had it, so git takes main's (the fix gone)
    without the driver, while ARCHIVE.md, changed on both sides, is merged: the hook still sees
    the file feature changed and ended as base, and doctor weighs the fix (seed 2301)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    error = add_error(repo, "disk full", "main")
    commit(repo, "store")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), error)
    commit(repo, "forget the fix")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    git(repo, "checkout", "-q", "feature")
    restore(memory_of(repo), error)
    commit(repo, "restore the fix")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "beta", "main")
    commit(repo, "store beta")
    merged = _merged_with_a_repair(repo)
    assert f"{error} made live again, its later state" in merged
    assert [record for record, _, _ in rows(repo, "errors")] == [error]
    assert rows(repo) == [("O-002", "main", "beta")]
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA.replace("feature", "main")]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_rebasing_copies_of_an_error_s_older_fixes_onto_its_archive_keeps_the_latest_fix(
    repo: Path,
) -> None:
    """fix-a stores an error and fixes it twice; fix-b, holding an error of its own, picks those
    three commits. fix-a fixes it a third time and forgets it, and main merges fix-a. Rebasing
    fix-b onto main replays the copies (their context differs, so git keeps them): the error
    arrives live with its second fix beside the archived third. The archived row keeps its own
    fix, for main's history replaced the second (seed 2805)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "fix-a")
    error = add_error(repo, "disk full", "fix-a")
    commit(repo, "store the error")
    fix_error(repo, error, "fix1")
    fix_error(repo, error, "fix2")
    copied = git(repo, "rev-list", "--reverse", "main..fix-a").split()
    git(repo, "checkout", "-q", "-b", "fix-b", "main")
    add_error(repo, "port taken", "fix-b")
    commit(repo, "store another error")
    assert run_git(repo, "cherry-pick", *copied).returncode == 0
    git(repo, "checkout", "-q", "fix-a")
    fix_error(repo, error, "fix3")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "fix-a").returncode == 0
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "disk full" in line]
    git(repo, "checkout", "-q", "fix-b")
    rebased = run_git(repo, "rebase", "-q", "main")
    assert rebased.returncode == 0, rebased.stderr
    assert [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "disk full" in line] == (
        archived
    )
    assert "| fix3 |" in archived[0]
    assert [fix for _, _, fix in rows(repo, "errors")] == ["retry"]
    assert_healthy(repo)


def _skip_empty_picks(repo: Path) -> None:
    """`cherry-pick --skip` past each pick git stops at for holding nothing new, as a user would."""
    for _ in range(5):
        if not (repo / ".git" / "sequencer").exists():
            return
        assert "--skip" in run_git(repo, "status").stdout
        run_git(repo, "cherry-pick", "--skip")
    raise AssertionError("the picks never ended")


def test_picking_a_forget_again_among_commits_main_holds_keeps_the_restore_in_the_pick(
    repo: Path,
) -> None:
    """feature forgets alpha and stores beta; main picks both, forgets gamma and restores alpha.
    Picking feature's commits again, every pick is empty once the forget is weighed inside its
    own merge: main restored alpha after that very forget. The sequence ends with `--skip`,
    after which no hook runs, so the pick's merge itself must be right (seed 2703)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    add_outcome(repo, "gamma", "main")
    commit(repo, "store alpha and gamma")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    forgotten, stored = git(repo, "rev-list", "--reverse", "main..feature").split()
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "cherry-pick", forgotten).returncode == 0
    forget(memory_of(repo), "O-002")
    restore(memory_of(repo), "O-001")
    commit(repo, "forget gamma, restore alpha")
    assert run_git(repo, "cherry-pick", stored).returncode == 0
    before = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    head = git(repo, "rev-parse", "HEAD")
    run_git(repo, "cherry-pick", forgotten, stored)
    _skip_empty_picks(repo)
    assert git(repo, "rev-parse", "HEAD") == head
    assert {name: text_of(repo, name) for name in before} == before
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-003", "feature", "beta")]
    assert_healthy(repo)


@pytest.mark.parametrize(
    ("main_archived_before", "errors"),
    [
        (False, [("E-002", "fix1"), ("E-001", "retry")]),
        (True, [("E-003", "fix1"), ("E-001", "retry")]),
    ],
)
def test_rebasing_a_branch_whose_commits_main_picked_under_other_ids_leaves_no_conflict(
    repo: Path, main_archived_before: bool, errors: list[tuple[str, str]]
) -> None:
    """feature stores an error, forgets it, restores it and fixes it; main, holding an error of
    its own, picks all four, so the error lands there under another ID and git keeps the copies
    (their patches differ). Rebasing feature onto main replays the forget over main's fixed
    error: by base that is one side removing a record the other changed. Main holds a copy of
    that very commit (its author, date and message, the same record rows changed), so main's
    version stands and the rebase runs through; every record keeps main's ID (seed 2813). When
    main had archived an error before, its copy of the forget added the row alone, while the
    replayed forget also adds the archive's section: the rows still tell them alike (seed 2707)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    error = add_error(repo, "disk full", "feature")
    commit(repo, "store the error")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    restore(memory_of(repo), error)
    commit(repo, "restore the error")
    fix_error(repo, error, "fix1")
    git(repo, "checkout", "-q", "main")
    add_error(repo, "port taken", "main")
    if main_archived_before:
        forget(memory_of(repo), add_error(repo, "out of memory", "main"))
    commit(repo, "main's errors")
    picked = run_git(
        repo, "cherry-pick", *git(repo, "rev-list", "--reverse", "main..feature").split()
    )
    assert picked.returncode == 0, picked.stderr
    git(repo, "checkout", "-q", "feature")
    rebased = run_git(repo, "rebase", "main")
    assert rebased.returncode == 0, rebased.stderr + rebased.stdout
    assert [(record, fix) for record, _, fix in rows(repo, "errors")] == errors
    assert "disk full" not in text_of(repo, "ARCHIVE.md")
    assert_healthy(repo)


@pytest.mark.parametrize("picked", [["gamma"], ["beta", "gamma"]], ids=["one pick", "two picks"])
def test_picking_a_branch_s_later_stores_leaves_its_earlier_restored_record_behind(
    repo: Path, picked: list[str]
) -> None:
    """A pick brings its commits' changes only: alpha, forgotten and restored on the branch
    before the picked stores, is no record main removed, and stays off main however often the
    branch moved it."""
    _feature_storing_alpha(repo)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    stores = {}
    for summary in ("beta", "gamma"):
        add_outcome(repo, summary, "feature")
        commit(repo, f"store {summary}")
        stores[summary] = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    add_error(repo, "main's own error", "main")  # main moves on, holding no outcome
    commit(repo, "main's own work")

    done = run_git(repo, "cherry-pick", *(stores[name] for name in picked))

    assert done.returncode == 0, done.stdout + done.stderr
    numbers = {"beta": "O-002", "gamma": "O-003"}
    assert rows(repo) == [(numbers[name], "feature", name) for name in picked]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def _main_picked_alpha_and_forgot_it(repo: Path) -> str:
    """feature stores alpha; main, holding an outcome of its own (O-001, so that git merges
    OUTCOMES.md with the driver), picks that store (alpha is O-002 there) and forgets alpha.
    The store."""
    stored = _feature_storing_alpha(repo)
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own work", "main", date="2026-03-01")
    commit(repo, "main's own work")
    assert run_git(repo, "cherry-pick", stored).returncode == 0
    forget(memory_of(repo), "O-002")
    commit(repo, "forget alpha")
    return stored


def test_a_store_picked_again_leaves_the_record_main_forgot_archived(repo: Path) -> None:
    """Picking once more the store of a record main has forgotten since brings it back live
    beside its archived copy no longer (docs/decisions.md#stores-replayed): the forget came
    after the store, so the pick changes nothing, and no repair is needed, which a sequence of
    picks ending with `--skip` would never get."""
    stored = _main_picked_alpha_and_forgot_it(repo)
    before = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    done = run_git(repo, "cherry-pick", stored)

    assert done.returncode == 1
    assert "The previous cherry-pick is now empty" in done.stdout + done.stderr
    run_git(repo, "cherry-pick", "--skip")
    assert {name: text_of(repo, name) for name in before} == before
    assert rows(repo) == [("O-001", "main", "main's own work")]
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA.replace("O-001", "O-002")]
    assert_healthy(repo)


def test_a_restore_picked_onto_the_forgotten_record_still_restores_it(repo: Path) -> None:
    """A restore replayed adds the row live too, but its commit's parent held the record
    archived: main takes the restore."""
    _main_picked_alpha_and_forgot_it(repo)
    git(repo, "checkout", "-q", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha on feature")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha on feature")
    git(repo, "checkout", "-q", "main")

    done = run_git(repo, "cherry-pick", "feature")

    assert done.returncode == 0, done.stdout + done.stderr
    assert rows(repo) == [("O-001", "main", "main's own work"), ("O-002", "feature", "alpha")]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_an_update_on_one_side_and_a_forget_on_the_other_stays_a_conflict(repo: Path) -> None:
    """Two people changed one record differently, neither having seen the other's change: the
    history weighs nothing, and a person decides."""
    init_memory(repo, driver=True)
    add_error(repo, "EADDRINUSE :3000", "main")
    commit(repo, "store")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "E-001")
    commit(repo, "forget")
    git(repo, "checkout", "-q", "main")
    writing.update(memory_of(repo), ERROR_FIX, "E-001", {"fix": "free port", "resolved": "true"})
    commit(repo, "update")

    merged = run_git(repo, "merge", "--no-edit", "feature")

    assert merged.returncode == 1
    assert "conflict: row E-001 changed on ours, removed on theirs" in merged.stderr


@pytest.mark.parametrize("how", ["merge", "merge --squash"])
def test_dropping_an_archived_copy_is_no_restore_that_outweighs_a_later_forget(
    repo: Path, how: str
) -> None:
    """alpha is archived where feature starts; feature restores it and forgets it again. main
    picks the restore, then holds alpha live and archived at once (committed in a clone without
    the hooks) and drops the archived copy. Neither of main's two commits moved alpha; counted as
    a forget and a restore, they outweighed feature's forget, which main never saw, and merging
    feature left alpha live (seed 5207 of the collaboration simulation's --stash-kinds, there
    through `merge --squash`)."""
    _merged_then_forgotten_on_main(repo)
    git(repo, "checkout", "-q", "-b", "again")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    archived = text_of(repo, "ARCHIVE.md")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "-c", "user.name=Other", "cherry-pick", "again~1").returncode == 0
    _archived_copy_added_and_dropped(repo, archived)
    assert rows(repo) == [("O-001", "feature", "alpha")]

    merged = run_git(repo, *how.split(), *(["--no-edit"] if how == "merge" else []), "again")
    if how == "merge --squash":
        git(repo, "commit", "-q", "--no-edit")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "conflict" not in merged.stderr.lower()
    assert rows(repo) == []
    assert archived_outcomes(repo) == [ARCHIVED_ALPHA]
    assert_healthy(repo)


def _apply_feature_s_patches_to_main(repo: Path, tmp_path: Path) -> CompletedProcess[str]:
    """feature's commits mailed with `git format-patch` and applied on main with `git am -3`."""
    git(repo, "checkout", "-q", "main")
    git(repo, "format-patch", "-q", "main..feature", "-o", str(tmp_path / "mail"))
    return run_git(repo, "am", "-3", *map(str, sorted((tmp_path / "mail").iterdir())))


def _assert_alpha_live_beside_beta_and_gamma(repo: Path) -> None:
    assert rows(repo) == [
        ("O-001", "main", "alpha"),
        ("O-002", "main", "beta"),
        ("O-003", "feature", "gamma"),
    ]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_applying_a_branchs_patches_keeps_a_record_main_restored_after_its_copy_of_the_forget(
    repo: Path, tmp_path: Path
) -> None:
    """Main picked the branch's forget of alpha and has restored alpha since. The branch's
    patches, mailed and applied with `git am -3`, replay that forget: main has seen it, so alpha
    stays live, as a merge of the branch keeps it (seed 8012 of the collaboration simulation's
    `--merges-kinds`)."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    add_outcome(repo, "beta", "main")
    commit(repo, "restore alpha, store beta")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "gamma", "feature")
    commit(repo, "store gamma")
    applied = _apply_feature_s_patches_to_main(repo, tmp_path)

    assert applied.returncode == 0, applied.stderr
    _assert_alpha_live_beside_beta_and_gamma(repo)


def _assert_repaired_by_the_patch_before_the_skipped_one(
    repo: Path, applied: CompletedProcess[str]
) -> None:
    assert applied.returncode == 0, applied.stderr
    assert "Patch already applied" in applied.stdout + applied.stderr
    assert git(repo, "log", "-1", "--format=%s").startswith("Repair .planning/memory")
    _assert_alpha_live_beside_beta_and_gamma(repo)


def test_a_series_whose_last_patch_main_already_holds_is_repaired_by_the_patch_before(
    repo: Path, tmp_path: Path
) -> None:
    """As above, but the branch's last patch writes notes main already wrote alike, in a commit
    of its own: `git am -3` finds nothing to change ("Patch already applied") and runs no hook
    for it, so the patch before it, the last one applied, repairs."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    add_outcome(repo, "beta", "main")
    (repo / "notes.txt").write_text("shared notes\n", encoding="utf-8")
    commit(repo, "restore alpha, store beta, write notes")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "gamma", "feature")
    commit(repo, "store gamma")
    (repo / "notes.txt").write_text("shared notes\n", encoding="utf-8")
    commit(repo, "feature writes the notes")
    applied = _apply_feature_s_patches_to_main(repo, tmp_path)

    _assert_repaired_by_the_patch_before_the_skipped_one(repo, applied)


def test_a_series_whose_last_patch_stores_a_record_main_holds_under_its_own_id_is_repaired(
    repo: Path, tmp_path: Path
) -> None:
    """As above, but the branch's last patch stores an error fix, which main stored alike under
    its own number: the 3-way merge keeps it once, as main has it, so `git am -3` finds nothing to
    change and runs no hook for it; the patch before it, the last one applied, repairs
    (seed 8218 of the collaboration simulation's `--merges-kinds`)."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    add_outcome(repo, "beta", "main")
    add_error(repo, "flaky login test", "main")
    add_error(repo, "timeout in ci", "feature")
    commit(repo, "restore alpha, store beta, an error and a copy of feature's")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "gamma", "feature")
    commit(repo, "store gamma")
    add_error(repo, "timeout in ci", "feature")
    commit(repo, "store the timeout error")
    applied = _apply_feature_s_patches_to_main(repo, tmp_path)

    _assert_repaired_by_the_patch_before_the_skipped_one(repo, applied)
    assert rows(repo, "errors") == [("E-001", "main", "retry"), ("E-002", "feature", "retry")]


def _commit_at(repo: Path, message: str, when: str) -> None:
    """A commit whose author date is `when`, as one made at another hour."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--date", when, "-m", message)


def test_a_restore_made_after_a_forget_the_branch_folded_away_keeps_the_record_live(
    repo: Path,
) -> None:
    """feature stores and forgets alpha; main squash-merges it (alpha archived, the squash
    naming the forget); feature then folds the forget into the store (`rebase -i`, squash) and
    restores alpha. Merged, main's forget matches none of feature's commits: one move each
    that the other has not seen. The restore was made last, so alpha is live (seed 8016 of the
    collaboration simulation's `--merges-kinds`)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    _commit_at(repo, "store alpha", "2026-03-02T10:00:00")
    forget(memory_of(repo), "O-001")
    _commit_at(repo, "forget alpha", "2026-03-02T11:00:00")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    git(repo, "checkout", "-q", "feature")
    squash = "sequence.editor=sed -i -e '2 s/^pick /squash /'"
    folded = run_git(repo, "-c", squash, "-c", "core.editor=true", "rebase", "-q", "-i", "HEAD~2")
    assert folded.returncode == 0, folded.stderr
    restore(memory_of(repo), "O-001")
    _commit_at(repo, "restore alpha", "2026-03-02T12:00:00")
    git(repo, "checkout", "-q", "main")

    merged = _merged_with_a_repair(repo)

    assert "removed the archived copy of O-001, restored since it was archived" in merged
    assert rows(repo) == [("O-001", "feature", "alpha")]
    assert archived_outcomes(repo) == []
    assert_healthy(repo)


def test_a_mailed_forget_applying_as_text_over_main_s_restore_is_undone_by_the_repair(
    repo: Path, tmp_path: Path
) -> None:
    """As above, but the patch applies as text (main's files are as the branch's base had them):
    git replays the forget whole, no record is held twice, and the series' repair weighs the
    branch's history against main's, which restored alpha after its copy of that forget (seed
    8065 of the collaboration simulation's `--merges-kinds`): a replay of a forget main made and
    undid, weighed as a pick's (docs/decisions.md#replays-upstream-holds)."""
    _feature_forgets_alpha_main_picks_and_restores_it(repo)
    commit(repo, "restore alpha")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    git(repo, "format-patch", "-q", "main..feature", "-o", str(tmp_path / "mail"))

    applied = run_git(repo, "am", "-3", *map(str, sorted((tmp_path / "mail").iterdir())))

    assert applied.returncode == 0, applied.stderr
    assert "O-001 made live again, as the upstream holds it" in applied.stderr
    assert _subjects(repo, 2) == [
        "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)",
        "forget alpha",
    ]
    assert {name: text_of(repo, name) for name in restored} == restored
    assert_healthy(repo)


def test_a_squash_onto_a_merge_commit_is_weighed_by_its_own_sides(repo: Path) -> None:
    """main's HEAD is a merge of a branch `old` that still held alpha archived, and feature's
    newest move forgot alpha. `merge --squash feature` archives it; the post-merge hook weighed
    the sides of HEAD's own merge (main's restore against `old`'s archived copy) and made alpha
    live again (seed 8203 of the simulation's `--merges-kinds`, 400 rounds)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "-b", "old")
    add_outcome(repo, "beta", "old")
    commit(repo, "store beta")
    forget(memory_of(repo), "O-002")
    commit(repo, "forget beta")  # OUTCOMES.md ends as the fork had it: git takes main's
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "old").returncode == 0
    assert rows(repo) == [("O-001", "main", "alpha")]

    squashed = run_git(repo, "merge", "-q", "--squash", "feature")

    assert squashed.returncode == 0, squashed.stderr
    assert "made live again" not in squashed.stderr
    assert rows(repo) == []
    assert [row.split(" | ")[-1] for row in archived_outcomes(repo)] == ["alpha |", "beta |"]
    commit(repo, "squash feature")
    assert rows(repo) == []
    assert_healthy(repo)


def test_a_series_main_picked_and_partly_undid_is_repaired_once_it_ends(
    repo: Path, tmp_path: Path
) -> None:
    """feature: a commit leaving alpha archived too (as a rebase step leaves it, its repair a
    commit of its own), one storing beta, one keeping alpha live. main picked all three, then
    forgot beta. Mailed to main, every later patch is a copy (author, date, subject) of a commit
    main holds, yet beta's store applies again as text: the first patch's hook must not repair
    as though git would skip the rest, or alpha is archived there and its archived row then
    dropped by the last patch (seed 9017 of the collaboration simulation's
    `--uncommitted-kinds`)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    git(repo, "checkout", "--", ".planning/memory/OUTCOMES.md")
    commit_without_hooks(repo, "a rebase step left alpha archived too")
    add_outcome(repo, "beta", "feature")
    commit_without_hooks(repo, "store beta")
    git(repo, "checkout", "main", "--", ".planning/memory/ARCHIVE.md")
    commit(repo, "keep alpha live")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main's notes\n", encoding="utf-8")
    commit(repo, "main's notes")
    assert run_git(repo, "cherry-pick", "main..feature").returncode == 0
    forget(memory_of(repo), "O-002")
    commit(repo, "forget beta")

    applied = _apply_feature_s_patches_to_main(repo, tmp_path)

    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert rows(repo) == [("O-001", "main", "alpha")]
    assert archived_outcomes(repo) == [
        "| O-002 | 2026-03-02 | feature | 1 | 01-01 | coder | workflow | success | 2 | git | beta |"
    ]
    assert_healthy(repo)


def test_a_record_restored_inside_a_merge_commit_stays_restored(repo: Path) -> None:
    """main forgets alpha; feature sets an error's fix and sets it back (its ERRORS.md ends as
    base had it, so git takes main's whole and the hook weighs every record the sides hold in
    different states). main merges feature with `--no-commit` and restores alpha before the
    commit: the merge commit's own change, which the driver never saw. Weighed as a record git
    took whole from the side with the earlier state, alpha was forgotten again (seed 16004 of
    the simulation's `--merge-change-kinds`, wall clock, step 134). Neither of alpha's files
    ended on main as base had them, so git took neither whole: the restore stands."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    error = add_error(repo, "disk full", "main")
    commit(repo, "store")
    git(repo, "checkout", "-q", "-b", "feature")
    fix_error(repo, error, "free space")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "retry", "resolved": "false"})
    commit(repo, "set the fix back")
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    merged = run_git(repo, "merge", "-q", "--no-commit", "--no-ff", "feature")
    assert merged.returncode == 0, merged.stderr
    restore(memory_of(repo), "O-001")
    git(repo, "add", "-A")

    committed = run_git(repo, "commit", "-q", "--no-edit")

    assert committed.returncode == 0, committed.stderr
    assert "its later state" not in committed.stderr
    assert rows(repo) == [("O-001", "main", "alpha")]
    assert archived_outcomes(repo) == []
    assert _subjects(repo, 1) == ["Merge branch 'feature'"]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)
