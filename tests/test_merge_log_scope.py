"""The merge driver's log belongs to the integration that wrote it: a sequence of picks that
ended with `cherry-pick --skip` runs no hook, so its log outlives it; a later merge must number
as if that log were not there (docs/decisions.md#merge-log). Real git, the installed driver and
hooks."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import add_outcome, assert_healthy, commit, init_memory, run_git, text_of
from support.processes import git, run_process

from legion_memory.gitops.merge_log import LOG_NAME, integration_key


def _code(repo: Path, text: str) -> None:
    (repo / "code.txt").write_text(text, encoding="utf-8")
    commit(repo, f"code {text.strip()}")


def _picks_ending_in_a_skip(repo: Path) -> None:
    """On branch `picks`, picking feature's store renumbers it past main's O-001 (the driver logs
    O-002); feature's code change is main's too, so the second pick is skipped and the sequence
    ends without a hook, its log left behind."""
    _code(repo, "one\n")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature", date="2026-03-03")
    commit(repo, "feature store")
    _code(repo, "two\n")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main outcome", "main", date="2026-03-01")
    commit(repo, "main store")
    _code(repo, "two\n")
    git(repo, "checkout", "-q", "-b", "picks")
    assert run_git(repo, "cherry-pick", "main..feature").returncode == 1
    assert run_git(repo, "cherry-pick", "--skip").returncode == 0
    assert '"id": "O-002", "was": "O-001"' in (repo / ".git" / LOG_NAME).read_text("utf-8")


def _stored_and_forgotten(repo: Path, summary: str, branch: str) -> None:
    add_outcome(repo, summary, branch, date="2026-03-04")
    commit(repo, f"{branch} store")
    run_process("forget", "O-002", cwd=repo, check=True)
    commit(repo, f"{branch} forget")


def _archived(repo: Path) -> list[str]:
    return [line for line in text_of(repo, "ARCHIVE.md").splitlines() if line.startswith("| O-")]


def test_a_merge_after_picks_ending_in_a_skip_numbers_as_without_their_log(repo: Path) -> None:
    """main and `other` each store O-002 and forget it; merging `other` renumbers one archived
    row to O-003. The picks' log said O-002 was taken by OUTCOMES.md, which main does not hold:
    read as this merge's, it pushed both rows on, to O-003 and O-004."""
    init_memory(repo, driver=True)
    _picks_ending_in_a_skip(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "other")
    _stored_and_forgotten(repo, "other abandoned", "other")
    git(repo, "checkout", "-q", "main")
    _stored_and_forgotten(repo, "main abandoned", "main")

    merged = run_git(repo, "merge", "-q", "--no-edit", "other")

    assert merged.returncode == 0, merged.stderr
    assert merged.stderr == (
        "legion-memory: merged .planning/memory/ARCHIVE.md: 1 new row from ours, 1 from theirs, "
        "0 identical on both sides\n"
        "legion-memory: .planning/memory/ARCHIVE.md: theirs O-002 renumbered to O-003\n"
    )
    assert _archived(repo) == [
        "| O-002 | 2026-03-04 | main | 1 | 01-01 | coder | workflow | success | 2 | git "
        "| main abandoned |",
        "| O-003 | 2026-03-04 | other | 1 | 01-01 | coder | workflow | success | 2 | git "
        "| other abandoned |",
    ]
    assert_healthy(repo)


def _two_branches_changing_one_line(repo: Path) -> tuple[str, str]:
    """main and `side` each change code.txt's one line twice: every replay of side stops."""
    _code(repo, "base\n")
    git(repo, "checkout", "-q", "-b", "side")
    _code(repo, "side 1\n")
    _code(repo, "side 2\n")
    git(repo, "checkout", "-q", "main")
    _code(repo, "main 1\n")
    return git(repo, "rev-parse", "main").strip(), git(repo, "rev-parse", "side").strip()


def _stopped_key(repo: Path, *command: str) -> str:
    assert run_git(repo, *command).returncode != 0
    return integration_key(repo / ".git")


def test_each_integration_is_named_by_what_stays_put_through_its_steps(repo: Path) -> None:
    """A merge by HEAD (in a linked worktree, its own); a sequence of picks, `git am` and a
    rebase by where they started (and the rebase's target), at their first stop and after a
    skip alike."""
    main, side = _two_branches_changing_one_line(repo)
    assert _stopped_key(repo, "merge", "-q", "side") == f"at {main}"
    git(repo, "merge", "--abort")
    git(repo, "pack-refs", "--all")  # HEAD's branch in packed-refs: git is asked
    assert integration_key(repo / ".git") == f"at {main}"
    git(repo, "worktree", "add", "-q", "-b", "linked", str(repo.parent / "linked"), "side")
    assert integration_key(repo / ".git" / "worktrees" / "linked") == f"at {side}"
    assert _stopped_key(repo, "cherry-pick", "main..side") == f"picks {main}"
    assert run_git(repo, "cherry-pick", "--skip").returncode != 0
    assert integration_key(repo / ".git") == f"picks {main}"
    git(repo, "cherry-pick", "--abort")
    git(repo, "format-patch", "-q", "-o", "mail", "main..side")
    mails = sorted(str(path) for path in (repo / "mail").iterdir())
    assert _stopped_key(repo, "am", "-3", *mails) == f"am {main}"
    git(repo, "am", "--abort")
    git(repo, "checkout", "-q", "side")
    assert _stopped_key(repo, "rebase", "main") == f"rebase {side} onto {main}"
    assert run_git(repo, "rebase", "--skip").returncode != 0
    assert integration_key(repo / ".git") == f"rebase {side} onto {main}"
