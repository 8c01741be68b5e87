"""A branch squashed into one commit as it is rebased (`rebase -i`, its later picks made
`squash`), then merged: the rewrite names several old commits for one new one, and each record
still arrives once, under an ID main does not hold, its references following it. Real git, the
installed driver and hooks."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import (
    add_error,
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git

from bench.collab_integrations import SQUASH_TODO
from legion_memory.gitops.folded_commits import FOLDED_NAME
from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore

REPAIR = "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)\n"


def _squash_onto_main(repo: Path, repair: str = REPAIR) -> None:
    """The branch's commits made one as it is rebased; the rebase's hook then repairs once (the
    squash steps' own amends repair nothing: docs/decisions.md#post-commit-hook), when there is
    anything to repair."""
    squashed = run_git(
        repo,
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "main"),
    )
    assert squashed.returncode == 0, squashed.stderr
    assert git(repo, "log", "--format=%s", "main..HEAD") == f"{repair}feature stores\n"


def test_a_branch_squashed_as_it_is_rebased_brings_each_record_once(repo: Path) -> None:
    init_memory(repo, driver=True)
    shared = add_error(repo, "disk full", "main")
    commit(repo, "shared error")
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "feature outcome", "feature")
    add_pattern(repo, "feature pattern", cited, "feature")
    gone = add_outcome(repo, "feature abandoned", "feature", date="2026-03-03")
    commit(repo, "feature stores")
    writing.update(memory_of(repo), ERROR_FIX, shared, {"fix": "free space", "resolved": "true"})
    commit(repo, "feature fixes the error")
    forget(memory_of(repo), gone)
    commit(repo, "feature forgets")
    git(repo, "checkout", "-q", "main")
    mine = add_outcome(repo, "main outcome", "main", date="2026-03-01")
    add_pattern(repo, "main pattern", mine, "main")
    commit(repo, "main stores")
    git(repo, "checkout", "-q", "feature")

    _squash_onto_main(repo)
    git(repo, "checkout", "-q", "main")
    merged = run_git(repo, "merge", "-q", "--ff-only", "feature")

    assert merged.returncode == 0, merged.stderr
    # The first pick renumbered the branch's outcome past both main's and its own O-002.
    assert rows(repo) == [
        ("O-003", "feature", "feature outcome"),
        ("O-001", "main", "main outcome"),
    ]
    assert sources(repo) == {"main pattern": "O-001", "feature pattern": "O-003"}
    assert rows(repo, "errors") == [("E-001", "main", "free space")]
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| O-" in line]
    assert archived == [
        "| O-002 | 2026-03-03 | feature | 1 | 01-01 | coder | workflow | success | 2 | git "
        "| feature abandoned |"
    ]
    assert_healthy(repo)


def _leave_a_stale_rebase_head(repo: Path) -> None:
    """An interactive rebase whose first pick is empty now (main made the same change among
    others) stops; `rebase --skip` ends it, and git leaves REBASE_HEAD behind."""
    git(repo, "checkout", "-q", "-b", "tidy")
    (repo / "code.txt").write_text("tidied\n", encoding="utf-8")
    commit(repo, "tidy code")
    git(repo, "checkout", "-q", "main")
    (repo / "code.txt").write_text("tidied\n", encoding="utf-8")
    (repo / "more.txt").write_text("more\n", encoding="utf-8")
    commit(repo, "tidy code and more")
    git(repo, "checkout", "-q", "tidy")
    stopped = run_git(repo, "-c", f"sequence.editor={SQUASH_TODO}", "rebase", "-q", "-i", "main")
    assert stopped.returncode == 1
    assert run_git(repo, "-c", "core.editor=true", "rebase", "--skip").returncode == 0
    assert (repo / ".git" / "REBASE_HEAD").is_file()
    assert not (repo / ".git" / "rebase-merge").exists()
    git(repo, "checkout", "-q", "main")


def test_a_rebase_head_git_left_behind_is_no_side_of_a_later_merge(repo: Path) -> None:
    """main's outcome sorts after feature's (a later date), so the merge renumbers it; git takes
    main's PATTERNS.md whole, and the hook of the commit that concludes the merge makes main's
    pattern follow its outcome, reading the merge's parents, not the old rebase's REBASE_HEAD."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature", date="2026-03-02")
    commit(repo, "feature stores")
    git(repo, "checkout", "-q", "main")
    # Merged in from a topic branch: the pattern's Branch names none of the outcomes.
    mine = add_outcome(repo, "main outcome", "topic", date="2026-03-03")
    add_pattern(repo, "main pattern", mine, "main")
    commit(repo, "main stores")
    _leave_a_stale_rebase_head(repo)

    assert run_git(repo, "merge", "-q", "--no-commit", "--no-ff", "feature").returncode == 0
    concluded = run_git(repo, "commit", "-q", "--no-edit")

    assert concluded.returncode == 0, concluded.stderr
    assert concluded.stderr == (
        "repaired .planning/memory/PATTERNS.md:10: P-001 Source O-001 -> O-002\n"
        "legion-memory: committed the repair of .planning/memory as its own commit\n"
    )
    assert rows(repo) == [
        ("O-001", "feature", "feature outcome"),
        ("O-002", "topic", "main outcome"),
    ]
    assert sources(repo) == {"main pattern": "O-002"}
    assert_healthy(repo)


def test_a_forget_the_squash_folded_picked_again_leaves_the_restored_record_live(
    repo: Path,
) -> None:
    """feature stores an outcome, forgets it, stores another and restores the first; `side`
    starts there. Squashing feature as it is rebased folds the four commits into one that
    names none of them, yet this clone's post-rewrite hook saw which it folded. Picking the old
    forget from `side` onto feature again is then one feature made and undid: the outcome stays
    live, archived nowhere (seed 8208 of the simulation's `--merges-kinds`)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    kept = add_outcome(repo, "feature outcome", "feature")
    commit(repo, "feature stores")
    forget(memory_of(repo), kept)
    commit(repo, "feature forgets")
    forgot = git(repo, "rev-parse", "HEAD").strip()
    add_outcome(repo, "feature's other outcome", "feature")
    commit(repo, "feature stores another")
    restore(memory_of(repo), kept)
    commit(repo, "feature restores")
    git(repo, "branch", "side")
    git(repo, "checkout", "-q", "main")
    add_error(repo, "disk full", "main")
    commit(repo, "main's own work")
    git(repo, "checkout", "-q", "feature")
    folded = git(repo, "rev-list", "main..feature").split()
    _squash_onto_main(repo, repair="")
    noted = (repo / ".git" / FOLDED_NAME).read_text(encoding="utf-8")
    assert noted == " ".join([git(repo, "rev-parse", "HEAD").strip(), *reversed(folded)]) + "\n"
    squashed = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}

    picked = run_git(repo, "cherry-pick", forgot)

    assert picked.returncode == 0, picked.stderr + picked.stdout
    assert rows(repo) == [
        ("O-001", "feature", "feature outcome"),
        ("O-002", "feature", "feature's other outcome"),
    ]
    assert {name: text_of(repo, name) for name in squashed} == squashed
    assert_healthy(repo)


def test_a_branch_started_before_a_fold_replays_the_forget_it_folded_and_the_record_stays(
    repo: Path,
) -> None:
    """main stores an outcome and forgets it; feature starts there. main restores the outcome,
    then folds its three commits into one with `rebase -i` (squash), whose message names none
    of them. Rebasing feature onto main replays the forget: this clone noted it among the
    commits the fold stands for, main made it and undid it, and the outcome stays live."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "base")
    git(repo, "checkout", "-q", "main")
    kept = add_outcome(repo, "main outcome", "main")
    commit(repo, "main stores")
    forget(memory_of(repo), kept)
    commit(repo, "main forgets")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature")
    commit(repo, "feature stores")
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), kept)
    commit(repo, "main restores")
    folded = run_git(
        repo,
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "base"),
    )
    assert folded.returncode == 0, folded.stderr
    on_main = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md")}
    git(repo, "checkout", "-q", "feature")

    rebased = run_git(repo, "rebase", "main")

    assert rebased.returncode == 0, rebased.stderr + rebased.stdout
    assert rows(repo) == [
        ("O-001", "main", "main outcome"),
        ("O-002", "feature", "feature outcome"),
    ]
    assert text_of(repo, "ARCHIVE.md") == on_main["ARCHIVE.md"]
    assert_healthy(repo)


def _continue_past_emptied_squashes(repo: Path) -> None:
    """`git reset HEAD^` each time git stops at a squash that would leave its commit empty, as
    git advises, then continue: the next squash amends whatever HEAD is then."""
    for _ in range(3):
        stopped = run_git(repo, "-c", "core.editor=true", "rebase", "--continue")
        if stopped.returncode == 0:
            return
        assert "would make\nit empty" in stopped.stderr, stopped.stderr
        git(repo, "reset", "-q", "HEAD^")
    raise AssertionError("the rebase did not end")


def test_squashes_reset_down_to_the_upstream_s_commits_note_no_fold_of_them(repo: Path) -> None:
    """feature forgets an outcome, restores it and forgets it again; main picks the forget and
    the restore. Squashed as it is rebased, the restore empties the squash (`git reset HEAD^`),
    the next squash then amends main's pick of the restore and empties it too (`git reset HEAD^`
    again): the branch ends at main's pick of the forget, the outcome archived. Git names that
    commit as the one the squash made of feature's three; noted as their fold, it stood for the
    branch's moves, and the rebase's repair made the outcome live again (seed 16003 of the
    simulation's `--merge-change-kinds`, wall clock, step 110)."""
    init_memory(repo, driver=True)
    kept = add_outcome(repo, "kept outcome", "main")
    commit(repo, "store")
    git(repo, "checkout", "-q", "-b", "feature")
    moves = []
    for move, message in ((forget, "forget"), (restore, "restore"), (forget, "forget again")):
        move(memory_of(repo), kept)
        commit(repo, message)
        moves.append(git(repo, "rev-parse", "HEAD").strip())
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main's own outcome", "main", date="2026-03-03")
    commit(repo, "main's own work")
    for picked in moves[:2]:
        assert run_git(repo, "cherry-pick", picked).returncode == 0
    picked_forget = git(repo, "rev-parse", "HEAD^").strip()
    git(repo, "checkout", "-q", "feature")

    squashed = run_git(
        repo,
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "main"),
    )
    assert "would make\nit empty" in squashed.stderr, squashed.stderr
    git(repo, "reset", "-q", "HEAD^")
    _continue_past_emptied_squashes(repo)

    assert git(repo, "rev-parse", "HEAD").strip() == picked_forget
    assert not (repo / ".git" / FOLDED_NAME).exists()
    assert rows(repo) == [("O-002", "main", "main's own outcome")]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)
