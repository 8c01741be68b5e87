"""What this clone's rebases folded, as the post-rewrite hook noted it: a fold stands for its
commits only in the revisions that reach it (or in a fold they reach), and a fold of folds for
all of theirs."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import init_memory, run_git
from support.processes import git

from bench.collab_integrations import SQUASH_TODO
from legion_memory.gitops.commit_copies import squashes_of
from legion_memory.gitops.folded_commits import FOLDED_NAME, folded_by


def _commits(repo: Path, count: int) -> list[str]:
    made = []
    for number in range(count):
        (repo / "work.txt").write_text(f"{number}\n", encoding="utf-8")
        git(repo, "add", "work.txt")
        git(repo, "commit", "-q", "-m", f"work {number}")
        made.append(git(repo, "rev-parse", "HEAD").strip())
    return made


def test_a_fold_reached_stands_for_its_commits_and_those_they_folded(repo: Path) -> None:
    first, second, third = _commits(repo, 3)
    old = ["a" * 40, "b" * 40, "c" * 40, "d" * 40]
    (repo / ".git" / FOLDED_NAME).write_text(
        f"{second} {old[0]} {old[1]}\n{third} {second} {old[2]}\nnot a fold\n{first} {old[3]}\n",
        encoding="utf-8",
    )

    assert folded_by(repo, f"{first}..{third}") == {
        second: [old[0], old[1]],
        third: [second, old[2], old[0], old[1]],
    }
    # `second` is not in the range, but the fold there folded it: it stands for its own.
    assert folded_by(repo, f"{second}..{third}") == {
        second: [old[0], old[1]],
        third: [second, old[2], old[0], old[1]],
    }
    assert folded_by(repo, f"{first}..{second}") == {second: [old[0], old[1]]}
    assert squashes_of(repo, first) == {}


def test_no_note_asks_git_nothing_and_finds_no_fold(repo: Path) -> None:
    _commits(repo, 2)

    assert folded_by(repo, "HEAD") == {}
    assert not (repo / ".git" / FOLDED_NAME).exists()


def test_a_fold_noted_in_any_worktree_stands_for_its_commits_in_every_one(repo: Path) -> None:
    """A fold is a fact of the clone's history: the hook notes it in the git directory every
    worktree shares. Before, a linked worktree's note stayed its own, and the scratch worktree
    a branch moved along a stack is repaired in saw none of the main worktree's (seed 12504 of
    the simulation's `--stacked-kinds`: a forget folded into a merge went unseen there, and the
    moved branch kept the record live). A note a linked worktree kept before is still read."""
    init_memory(repo, driver=True)
    linked = repo.parent / "linked"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    folded = _commits(linked, 2)

    squashed = run_git(
        linked,
        *("-c", f"sequence.editor={SQUASH_TODO}", "-c", "core.editor=true"),
        *("rebase", "-q", "-i", "main"),
    )

    assert squashed.returncode == 0, squashed.stderr
    fold = git(linked, "rev-parse", "HEAD").strip()
    assert fold not in folded
    noted = (repo / ".git" / FOLDED_NAME).read_text(encoding="utf-8")
    assert noted == f"{fold} {' '.join(folded)}\n"
    assert folded_by(repo, "feature") == {fold: folded}
    assert folded_by(linked, "HEAD") == {fold: folded}
    own = repo / ".git" / "worktrees" / "linked" / FOLDED_NAME
    assert not own.exists()
    earlier = ["e" * 40, "f" * 40]
    own.write_text(f"{folded[0]} {' '.join(earlier)}\n", encoding="utf-8")
    assert folded_by(linked, "HEAD") == {fold: [*folded, *earlier], folded[0]: earlier}
    assert folded_by(repo, "feature") == {fold: folded}
