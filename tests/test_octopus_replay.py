"""A rebase keeping merges (`--rebase-merges`) replays an octopus merge with git's own octopus
strategy, which gives up when two of its branches stored memory: `doctor` says to merge them one
at a time, and following it the rebase ends with every record once. Real git, the installed
driver, strategy and hooks."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    rows,
    run_git,
    sources,
)
from support.processes import git, run_process

from legion_memory.gitops.rebase_state import rebase_started_from


def _octopus_merge_to_replay(repo: Path) -> None:
    """main merges branches a, b and c at once (through the strategy, every record kept); an
    upstream branch stored its own record since main's base."""
    init_memory(repo, driver=True)
    for branch in ("a", "b", "c", "upstream"):
        git(repo, "checkout", "-q", "-b", branch, "main")
        add_outcome(repo, f"{branch} outcome", branch)
        commit(repo, f"{branch} stores")
    git(repo, "checkout", "-q", "main")
    merged = run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "a", "b", "c")
    assert merged.returncode == 0, merged.stderr
    assert len(git(repo, "log", "-1", "--format=%P").split()) == 4


def test_doctor_names_the_merges_that_replay_an_octopus_merge_git_gave_up_on(
    repo: Path,
) -> None:
    _octopus_merge_to_replay(repo)

    stopped = run_git(repo, "rebase", "-q", "--rebase-merges", "upstream")

    assert stopped.returncode == 1
    assert stopped.stdout.endswith("Should not be doing an octopus.\n")
    assert "Merge with strategy octopus failed." in stopped.stderr
    assert stopped.stderr.endswith("# Merge branches 'a', 'b' and 'c'\n")
    told = run_process("doctor", cwd=repo)
    assert told.code == 1
    steps = [
        *(f"git merge --no-ff --no-edit refs/rewritten/{label}" for label in ("a", "a-2", "a-3")),
        "git rebase --continue",
    ]
    assert told.stdout == (
        "git rebase: git's octopus strategy could not replay a merge of several branches that "
        "changed memory, and `git rebase --continue` would drop it; merge them one at a time: "
        f"{' && '.join(steps)} (the rebase's hook repairs the rest once it ends)\n"
        "1 problem needs repair (run `legion-memory doctor --fix`)\n"
    )

    for step in steps:
        done = run_git(repo, *step.split()[1:])
        assert done.returncode == 0, done.stderr

    assert not (repo / ".git" / "rebase-merge").exists()
    assert sorted(rows(repo)) == [
        ("O-001", "upstream", "upstream outcome"),
        ("O-002", "a", "a outcome"),
        ("O-003", "b", "b outcome"),
        ("O-004", "c", "c outcome"),
    ]
    assert git(repo, "log", "--first-parent", "--format=%s", "-4") == (
        "Merge commit 'refs/rewritten/a-3' into HEAD\n"
        "Merge commit 'refs/rewritten/a-2' into HEAD\n"
        "Merge commit 'refs/rewritten/a' into HEAD\n"
        "upstream stores\n"
    )
    assert_healthy(repo)


def test_continuing_without_the_merges_drops_the_merge_and_the_hook_brings_its_records_back(
    repo: Path,
) -> None:
    """What the finding warns of: `git rebase --continue` drops the merge. The rebase's hook
    then finds the records the branch held before the rebase missing, and puts them back."""
    _octopus_merge_to_replay(repo)
    assert run_git(repo, "rebase", "-q", "--rebase-merges", "upstream").returncode == 1

    continued = run_git(repo, "-c", "core.editor=true", "rebase", "--continue")

    assert continued.returncode == 0, continued.stderr
    assert continued.stderr == "".join(
        f"repaired .planning/memory/OUTCOMES.md: put back O-00{n} (live, as the branch before "
        "the rebase holds it)\n"
        for n in (2, 3, 4)
    ) + ("legion-memory: committed the repair of .planning/memory as its own commit\n")
    assert git(repo, "log", "--format=%s", "-3") == (
        "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)\n"
        "upstream stores\n"
        "memory\n"
    )
    assert sorted(rows(repo)) == [
        ("O-001", "upstream", "upstream outcome"),
        ("O-002", "a", "a outcome"),
        ("O-003", "b", "b outcome"),
        ("O-004", "c", "c outcome"),
    ]
    assert_healthy(repo)


def test_the_rebase_started_from_its_own_tip_whatever_the_merges_made_in_it(repo: Path) -> None:
    """Each merge made by hand inside the rebase moves ORIG_HEAD on; the rebase's hook still
    reads the branch as it was before the rebase, from git's rebase state."""
    _octopus_merge_to_replay(repo)
    tip = git(repo, "rev-parse", "HEAD").strip()
    assert run_git(repo, "rebase", "-q", "--rebase-merges", "upstream").returncode == 1

    assert run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "refs/rewritten/a").returncode == 0

    assert git(repo, "rev-parse", "ORIG_HEAD").strip() != tip
    assert rebase_started_from(repo) == tip


def test_doctor_leaves_the_rebase_s_repairs_to_its_hook_so_that_the_merges_it_names_run(
    repo: Path,
) -> None:
    """The pick before the octopus renumbered main's outcome (upstream stored an older one), and
    main's pattern cites its old number until the rebase's hook repairs. `doctor --fix` at the
    stop repairs nothing: a repair in the work tree would make git refuse the merges it names
    ("Your local changes ... would be overwritten by merge"; seed 8100 of `--merges-kinds`)."""
    init_memory(repo, driver=True)
    for branch, date in (("a", "2026-03-02"), ("b", "2026-03-02"), ("upstream", "2026-02-28")):
        git(repo, "checkout", "-q", "-b", branch, "main")
        add_outcome(repo, f"{branch} outcome", branch, date=date)
        commit(repo, f"{branch} stores")
    git(repo, "checkout", "-q", "-b", "c", "main")
    add_outcome(repo, "c outcome", "c")
    commit(repo, "c stores")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "main outcome", "main", date="2026-03-01")
    add_pattern(repo, "main pattern", cited, "main")
    commit(repo, "main stores an outcome and a pattern citing it")
    assert run_git(repo, "merge", "-q", "--no-ff", "--no-edit", "a", "b", "c").returncode == 0
    assert run_git(repo, "rebase", "-q", "--rebase-merges", "upstream").returncode == 1
    assert sources(repo) == {"main pattern": "O-001"}  # its outcome is O-002 now

    told = run_process("doctor", "--fix", cwd=repo)

    steps = [
        *(f"git merge --no-ff --no-edit refs/rewritten/{label}" for label in ("a", "a-2", "a-3")),
        "git rebase --continue",
    ]
    assert (told.code, told.stdout) == (
        1,
        "git rebase: git's octopus strategy could not replay a merge of several branches that "
        "changed memory, and `git rebase --continue` would drop it; merge them one at a time: "
        f"{' && '.join(steps)} (the rebase's hook repairs the rest once it ends)\n"
        "1 problem needs repair\n",
    )
    assert git(repo, "status", "--porcelain") == ""
    for step in steps:
        done = run_git(repo, *step.split()[1:])
        assert done.returncode == 0, done.stderr
    assert sorted(rows(repo)) == [
        ("O-001", "upstream", "upstream outcome"),
        ("O-002", "main", "main outcome"),
        ("O-003", "a", "a outcome"),
        ("O-004", "b", "b outcome"),
        ("O-005", "c", "c outcome"),
    ]
    assert sources(repo) == {"main pattern": "O-002"}
    assert_healthy(repo)
