"""Real-git reproductions of a rebase replaying changes its upstream already made: what the
upstream made is set back, what it never made stands (docs/decisions.md#replays-upstream-holds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    outcome_row,
    rows,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

OUTCOMES_HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)
ALPHA = outcome_row(1, "alpha", "feature", date="2026-03-02")
ERRORS_HEADER = (
    "| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |\n"
    "|----|------|--------|-----------------|-----|-------|----------|------|\n"
)
FIXED_ERROR = "| E-001 | 2026-03-02 | feature | disk full | fix1 | coder | true | git |\n"
BETA = outcome_row(2, "beta", "feature", date="2026-03-02")
GAMMA = outcome_row(1, "gamma", "main", date="2026-03-02")
MEMORY_FILES = ("OUTCOMES.md", "ERRORS.md", "ARCHIVE.md")


def _table_lines(text: str) -> str:
    """The lines of its tables, headers included."""
    return "".join(line for line in text.splitlines(keepends=True) if line.startswith("|"))


def test_a_forget_made_again_after_main_squashed_the_first_one_and_its_restore_stays(
    repo: Path,
) -> None:
    """feature stores alpha, forgets it and restores it; main squash-merges feature with git's
    own message, which names those commits. feature then forgets alpha again and is rebased
    onto main: the replayed store, forget and restore are the upstream's (named by the squash),
    but the second forget is a commit the upstream never held, though it moves alpha as the
    first one did. alpha stays archived (seed 3203)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    git(repo, "checkout", "-q", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    forgotten = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert "as the upstream holds it" not in rebased.stderr
    assert git(repo, "log", "-1", "--format=%s") == "forget alpha again\n"
    assert {name: text_of(repo, name) for name in forgotten} == forgotten
    assert _table_lines(text_of(repo, "OUTCOMES.md")) == OUTCOMES_HEADER
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER + ALPHA
    assert_healthy(repo)


def test_rebasing_copies_of_moves_the_shared_history_holds_keeps_the_upstream_s_later_restore(
    repo: Path,
) -> None:
    """main forgets alpha; `src` restores and forgets it again, and main picks both. `b`, started
    from there, picks src's two commits once more (alpha archived, restored, archived), then
    main restores alpha for good. Rebasing b onto main replays its copies: the restore changes
    nothing, the forget archives alpha. The upstream made both changes before b parted from it
    (its own copies are in the history b shares) and restored alpha since: alpha is set back
    live (seed 3003)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "-b", "src")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha again")
    moves = git(repo, "rev-list", "--reverse", "main..src").split()
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", *moves).returncode == 0
    git(repo, "checkout", "-q", "-b", "b")
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    commit(repo, "b's own work")
    assert run_git(repo, "cherry-pick", *moves).returncode == 0
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha at last")
    restored = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    git(repo, "checkout", "-q", "b")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert "O-001 made live again, as the upstream holds it" in rebased.stderr
    assert {name: text_of(repo, name) for name in restored} == restored
    main_alpha = outcome_row(1, "alpha", "main", date="2026-03-02")
    assert _table_lines(text_of(repo, "OUTCOMES.md")) == OUTCOMES_HEADER + main_alpha
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER  # main emptied it
    assert_healthy(repo)


def test_a_forget_whose_picked_copy_also_moved_an_archived_row_is_still_its_copy(
    repo: Path,
) -> None:
    """feature stores beta and forgets it, then stores an error, forgets it, restores it and
    fixes it; main, which had archived gamma, picks all six. Picking the error's forget, the
    driver lays the archive's outcomes out anew (beta, a record of that commit's parent, before
    gamma), so main's copy of the forget moves beta's row too. Rebasing feature onto main
    replays the forget over main's fixed error: the copy still changes the same records, so
    main's version stands and the rebase runs through without a conflict (seed 3416)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "beta", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "store beta and forget it")
    error = add_error(repo, "disk full", "feature")
    commit(repo, "store the error")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    restore(memory_of(repo), error)
    commit(repo, "restore the error")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "fix1", "resolved": "true"})
    commit(repo, "fix the error")
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), add_outcome(repo, "gamma", "main"))
    commit(repo, "store gamma and forget it")
    picked = run_git(
        repo, "cherry-pick", *git(repo, "rev-list", "--reverse", "main..feature").split()
    )
    assert picked.returncode == 0, picked.stderr
    on_main = {name: text_of(repo, name) for name in MEMORY_FILES}
    git(repo, "checkout", "-q", "feature")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr + rebased.stdout
    assert {name: text_of(repo, name) for name in MEMORY_FILES} == on_main
    assert _table_lines(text_of(repo, "ERRORS.md")) == ERRORS_HEADER + FIXED_ERROR
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER + BETA + GAMMA
    assert_healthy(repo)


def test_a_fix_a_squash_on_the_rebased_branch_names_is_one_ours_has_seen(repo: Path) -> None:
    """feature stores an error and fixes it twice; main squash-merges feature with git's own
    message, which names those commits, then merges feature too. Rebasing main onto an upstream
    that moved on replays the squash, then feature's commits: the first fix (retry to fix1)
    meets fix2, which ours holds from the squash that names that very commit. It is a change
    ours has seen: fix2 stands and the rebase runs through without a conflict (seed 4058)."""
    init_memory(repo, driver=True)
    git(repo, "branch", "upstream")
    git(repo, "checkout", "-q", "-b", "feature")
    error = add_error(repo, "disk full", "feature")
    commit(repo, "store the error")
    for fix in ("fix1", "fix2"):
        writing.update(memory_of(repo), ERROR_FIX, error, {"fix": fix, "resolved": "true"})
        commit(repo, f"fix the error: {fix}")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "--no-edit")
    assert run_git(repo, "merge", "-q", "--no-edit", "feature").returncode == 0
    git(repo, "checkout", "-q", "upstream")
    add_outcome(repo, "gamma", "main")
    commit(repo, "store gamma")
    git(repo, "checkout", "-q", "main")

    rebased = run_git(repo, "rebase", "upstream")

    assert rebased.returncode == 0, rebased.stderr + rebased.stdout
    fixed = FIXED_ERROR.replace("fix1", "fix2")
    assert _table_lines(text_of(repo, "ERRORS.md")) == ERRORS_HEADER + fixed
    assert _table_lines(text_of(repo, "OUTCOMES.md")) == OUTCOMES_HEADER + GAMMA
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_a_rebase_onto_a_commit_the_branch_holds_leaves_every_record_as_its_tip_had_it(
    repo: Path,
) -> None:
    """main forgets and restores O-001; feature holds copies of both (picked by another
    committer), merges main after main forgot O-001 again, and stores work of its own; main
    merges feature (O-001 archived: main moved it more often). `git rebase X`, X being main
    before that merge (`git pull --rebase` when the origin has nothing new does the same),
    flattens the merges and replays feature's copies after X's second forget: the copy of the
    restore makes O-001 live again. The rebase brought nothing new, so the branch's tip before it
    is what each record must be (seed 5029 of the collaboration simulation)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "flaky deploy", "main")
    commit(repo, "store")
    start = git(repo, "rev-parse", "HEAD").strip()
    forget(memory_of(repo), "O-001")
    commit(repo, "forget")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore")
    git(repo, "checkout", "-q", "-b", "feature", start)
    assert run_git(repo, "-c", "user.name=Other", "cherry-pick", "main~1", "main").returncode == 0
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget again")
    before_merge = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "feature")
    assert run_git(repo, "merge", "--no-edit", "main").returncode == 0
    add_outcome(repo, "feature work", "feature")
    commit(repo, "feature work")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--no-ff", "--no-edit", "feature").returncode == 0
    archived = text_of(repo, "ARCHIVE.md")
    assert "| O-001 | 2026-03-02 | main |" in archived

    rebased = run_git(repo, "rebase", before_merge)

    assert rebased.returncode == 0, rebased.stderr
    assert "O-001 made archived again" in rebased.stderr
    assert text_of(repo, "ARCHIVE.md") == archived
    assert "flaky deploy" not in text_of(repo, "OUTCOMES.md")
    assert "| O-002 | 2026-03-02 | feature |" in text_of(repo, "OUTCOMES.md")
    assert_healthy(repo)


def _main_restored_a_pattern_a_merged_branch_had_forgotten(repo: Path) -> None:
    """main stores a pattern; side picks that store and forgets the pattern; main forgets and
    restores it, merges side (its hook repairs ARCHIVE.md: the restore is the later state), then
    forgets the pattern for good. upstream, started before any of it, stores a pattern of its
    own, under the same first ID."""
    init_memory(repo, driver=True)
    git(repo, "branch", "upstream")
    add_pattern(repo, "main's pattern", "", "main")
    commit(repo, "store main's pattern")
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    assert run_git(repo, "-c", "user.name=Other", "cherry-pick", "main").returncode == 0
    forget(memory_of(repo), "P-001")
    commit(repo, "forget main's pattern on side")
    git(repo, "checkout", "-q", "main")
    for move in (forget, restore):
        move(memory_of(repo), "P-001")
        commit(repo, f"{move.__name__} main's pattern")
    merged = run_git(repo, "merge", "--no-edit", "side")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    forget(memory_of(repo), "P-001")
    commit(repo, "forget main's pattern for good")
    git(repo, "checkout", "-q", "upstream")
    add_pattern(repo, "upstream's pattern", "", "upstream")
    commit(repo, "store upstream's pattern")
    git(repo, "checkout", "-q", "main")


def test_a_forget_replayed_where_another_pattern_took_its_record_s_id_is_no_conflict(
    repo: Path,
) -> None:
    """Rebasing main onto upstream flattens its merge: the replayed repair takes the pattern out
    of ARCHIVE.md, so the last forget's parent holds it live as P-001 where the rebuilt main
    holds upstream's pattern under that ID, and main's pattern nowhere. Upstream's pattern, stored
    on another date or branch, is another record that took the ID, not main's pattern edited:
    the forget archives main's pattern, upstream's stays (seed 6002 of the simulation's
    --patch-kinds, there through `pull --rebase --autostash`). It used to be a conflict, and
    the repair after the rebase renumbered upstream's pattern instead of the archived row."""
    _main_restored_a_pattern_a_merged_branch_had_forgotten(repo)

    done = run_git(repo, "rebase", "upstream")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr.lower()
    assert rows(repo, "patterns") == [("P-001", "upstream", "upstream's pattern")]
    # git took ARCHIVE.md whole from the replayed forget, under the ID main's pattern had before
    # the rebase; the hook's repair renumbers that row, not the upstream's (others may cite it).
    assert "repaired .planning/memory/ARCHIVE.md:" in done.stderr
    assert "renumbered duplicate P-001 to P-002" in done.stderr
    archived = _table_lines(text_of(repo, "ARCHIVE.md")).splitlines()
    assert archived[-1] == "| P-002 | 2026-03-02 | main | main's pattern | ctx | reuse |  | git |"
    assert _table_lines(text_of(repo, "ARCHIVE.md")).count("| main's pattern |") == 1
    assert_healthy(repo)


def test_picking_a_branch_s_forget_archives_its_record_without_renumbering_main_s(
    repo: Path,
) -> None:
    """feature stores an outcome and forgets it; main, which stored its own outcome under the
    same ID meanwhile and holds feature's store under its next number, picks the forget. git
    takes ARCHIVE.md whole from the pick, the forgotten outcome under feature's number, O-001,
    which main's own outcome holds: the repair after the pick renumbers the archived row, and
    main's long-held record keeps its ID (it used to move to O-002)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "branch record", "feature")
    commit(repo, "branch outcome")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget the branch outcome")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")
    assert run_git(repo, "cherry-pick", "feature~1").returncode == 0
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]

    picked = run_git(repo, "cherry-pick", "feature")

    assert picked.returncode == 0, picked.stdout + picked.stderr
    assert "conflict" not in picked.stderr.lower()
    assert rows(repo) == [("O-001", "main", "main record")]
    archived = _table_lines(text_of(repo, "ARCHIVE.md")).splitlines()
    assert archived[-1] == outcome_row(2, "branch record", "feature", date="2026-03-02").strip()
    assert_healthy(repo)


def test_a_restore_git_skips_as_already_upstream_is_kept_when_it_came_last(repo: Path) -> None:
    """`src` forgets alpha, restores it and forgets it again; main picks the three. `b`, started
    from src, restores alpha once more and stores beta. Rebasing b onto main, git skips b's
    restore as "previously applied": its diff is the first restore's, whose copy main holds. Yet
    b restored alpha after every move main made: as a merge would, the rebase's hook weighs the
    two histories and alpha stays live (seed 8216 of the simulation's `--merges-kinds`)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "-b", "src")
    for move, message in ((forget, "forget"), (restore, "restore"), (forget, "forget again")):
        move(memory_of(repo), "O-001")
        commit(repo, f"{message} alpha")
    moves = git(repo, "rev-list", "--reverse", "main..src").split()
    git(repo, "checkout", "-q", "-b", "b")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha at last")
    add_outcome(repo, "beta", "b")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n", encoding="utf-8")
    commit(repo, "notes")
    assert run_git(repo, "cherry-pick", *moves).returncode == 0
    git(repo, "checkout", "-q", "b")

    _rebase_skipping_alpha_s_restore_keeps_it_live(repo, beta_branch="b")


def test_a_restore_git_skips_leaves_the_record_live_as_both_sides_hold_it(repo: Path) -> None:
    """main forgets alpha and restores it. b, started before that, forgets beta and alpha, then
    restores beta and alpha: its restore of alpha has the very diff of main's, among the same
    neighbours. Rebasing b onto main, git replays b's forgets and skips that restore as
    "previously applied", leaving alpha archived, though main and b both hold it live: the
    rebase's hook sets it live again (seed 12001 of the simulation's `--stacked-kinds`)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    add_outcome(repo, "beta", "main")
    commit(repo, "store alpha and beta")
    git(repo, "checkout", "-q", "-b", "b")
    for move, record, message in (
        (forget, "O-002", "forget beta"),
        (forget, "O-001", "forget alpha"),
        (restore, "O-002", "restore beta"),
        (restore, "O-001", "restore alpha"),
    ):
        move(memory_of(repo), record)
        commit(repo, message)
    git(repo, "checkout", "-q", "main")
    for move, message in ((forget, "forget alpha on main"), (restore, "restore alpha on main")):
        move(memory_of(repo), "O-001")
        commit(repo, message)
    git(repo, "checkout", "-q", "b")

    _rebase_skipping_alpha_s_restore_keeps_it_live(repo, beta_branch="main")


def _rebase_skipping_alpha_s_restore_keeps_it_live(repo: Path, beta_branch: str) -> None:
    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert "skipped previously applied commit" in rebased.stderr
    assert "O-001 made live again, its later state" in rebased.stderr
    assert rows(repo) == [("O-001", "main", "alpha"), ("O-002", beta_branch, "beta")]
    assert _table_lines(text_of(repo, "ARCHIVE.md")) == OUTCOMES_HEADER
    assert_healthy(repo)
