"""Real-git reproductions of a rebase that leaves commits out on purpose: `git rebase -i` with a
`drop`, `git rebase --onto` past a branch's first commits. A record only those commits stored is
left out with them; the repair after a rebase puts back only what the rebase's replayed commits
held (docs/decisions.md#nothing-lost)."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import (
    add_outcome,
    assert_healthy,
    commit,
    feature_outcome_and_pattern,
    feature_pattern_and_main_outcome,
    init_memory,
    rows,
    run_git,
    sources,
)
from support.processes import git


def _subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_a_commit_dropped_in_an_interactive_rebase_takes_its_record_with_it(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "kept", "feature")
    commit(repo, "store kept")
    add_outcome(repo, "dropped", "feature")
    commit(repo, "store dropped")
    (repo / "code.txt").write_text("code\n", encoding="utf-8")
    commit(repo, "code")
    drop = "sequence.editor=sed -i -e '/store dropped/ s/^pick /drop /'"

    rebased = run_git(repo, "-c", drop, "rebase", "-q", "-i", "main")

    assert rebased.returncode == 0, rebased.stderr
    assert "put back" not in rebased.stderr
    assert _subjects(repo)[:3] == ["code", "store kept", "memory"]
    assert rows(repo) == [("O-001", "feature", "kept")]
    assert_healthy(repo)


def test_a_rebase_onto_past_the_branch_s_first_commits_leaves_their_records_out(
    repo: Path,
) -> None:
    """feature stores an outcome, then a pattern citing it, then merges a side branch's record;
    `rebase --onto main feature~1 feature` replays only what the merge brought (the side's
    commit), onto main's own record."""
    feature_outcome_and_pattern(repo)
    git(repo, "checkout", "-q", "-b", "side", "main")
    add_outcome(repo, "side record", "side")
    commit(repo, "side outcome")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "side")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")

    rebased = run_git(repo, "rebase", "-q", "--onto", "main", "feature~1", "feature")

    assert rebased.returncode == 0, rebased.stderr
    assert "put back" not in rebased.stderr
    assert _subjects(repo)[:2] == ["side outcome", "main outcome"]
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "side", "side record")]
    assert sources(repo) == {}
    assert_healthy(repo)


def test_a_record_the_upstream_dropped_and_force_pushed_stays_out_after_a_pull_rebase(
    repo: Path, tmp_path: Path
) -> None:
    """The upstream's history is rewritten (`rebase -i` dropping a commit that stored a record)
    and force-pushed; a clone that had the old history and a commit of its own pulls with
    `--rebase`, which replays only its own commit: the dropped record stays out."""
    init_memory(repo, driver=True)
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    add_outcome(repo, "kept", "main")
    commit(repo, "store kept")
    add_outcome(repo, "mistake", "main")
    commit(repo, "store mistake")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "fetch", "-q", "origin")
    git(repo, "branch", "-q", "--set-upstream-to=origin/main", "main")
    git(repo, "checkout", "-q", "-b", "upstream")
    drop = "sequence.editor=sed -i -e '/store mistake/ s/^pick /drop /'"
    assert run_git(repo, "-c", drop, "rebase", "-q", "-i", "HEAD~2").returncode == 0
    git(repo, "push", "-q", "-f", "origin", "upstream:main")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "mine", "main")
    commit(repo, "store mine")

    pulled = run_git(repo, "pull", "-q", "--rebase", "origin", "main")

    assert pulled.returncode == 0, pulled.stderr
    assert "put back" not in pulled.stderr
    assert _subjects(repo)[:3] == ["store mine", "store kept", "memory"]
    assert rows(repo) == [("O-001", "main", "kept"), ("O-003", "main", "mine")]
    assert_healthy(repo)


def test_a_pattern_replayed_without_the_outcome_the_rebase_left_out_describes_it(
    repo: Path,
) -> None:
    """`rebase --onto main feature~1 feature` replays the pattern and leaves out the commit that
    stored the outcome it cites, whose number main's own record holds: the pattern's Source
    describes the outcome it meant, as after a pick of the pattern alone."""
    feature_pattern_and_main_outcome(repo)

    rebased = run_git(repo, "rebase", "-q", "--onto", "main", "feature~1", "feature")

    assert rebased.returncode == 0, rebased.stderr
    described = 'outcome "branch record" (feature, 2026-03-02)'
    assert f"P-001 Source O-001 -> {described}" in rebased.stderr
    assert rows(repo) == [("O-001", "main", "main record")]
    assert sources(repo) == {"branch pattern": described}
    assert _subjects(repo)[:3] == [
        "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)",
        "branch pattern",
        "main outcome",
    ]
    assert_healthy(repo)
