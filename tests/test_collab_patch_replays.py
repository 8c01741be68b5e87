"""Real-git reproduction of `git am` replaying a change main already made and undid: as for a
rebase or a pick, the record is set back to how main held it
(docs/decisions.md#replays-upstream-holds)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from support.gitrepos import (
    add_error,
    add_outcome,
    assert_healthy,
    commit,
    fix_error,
    init_memory,
    memory_of,
    rows,
    run_git,
    text_of,
)
from support.processes import git

from legion_memory.upkeep.forgetting import forget, restore

pytestmark = pytest.mark.slow

REPAIRED = "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)"


def test_a_patch_of_a_forget_main_made_and_undid_leaves_the_record_live(
    repo: Path, tmp_path: Path
) -> None:
    """`feature` forgets alpha; main stores gamma, picks that forget (a copy: the same author,
    date and message), restores alpha and stores beta. Applying feature's commits to main as patches
    replays the forget main already made and undid: alpha stays live (seed 15003 of the
    simulation's `--merge-change-kinds`, step 340)."""
    init_memory(repo, driver=True)
    add_outcome(repo, "alpha", "main")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "-b", "feature")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "gamma", "main")
    commit(repo, "store gamma")
    picked = run_git(repo, "cherry-pick", "feature")
    assert picked.returncode == 0, picked.stderr
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    add_outcome(repo, "beta", "main")
    commit(repo, "store beta")
    live, archive = text_of(repo, "OUTCOMES.md"), text_of(repo, "ARCHIVE.md")

    _apply_feature_as_patches(repo, tmp_path)

    assert [summary for _, _, summary in rows(repo)] == ["alpha", "gamma", "beta"]
    assert text_of(repo, "OUTCOMES.md") == live
    assert text_of(repo, "ARCHIVE.md") == archive
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [REPAIRED, "forget alpha"]
    assert_healthy(repo)


def test_patches_replaying_copies_of_main_s_older_commits_leave_the_archived_fix(
    repo: Path, tmp_path: Path
) -> None:
    """main stores an error, fixes it twice and forgets it. A teammate's clone without `git
    install` starts `feature` there and picks the store and the first fix again (copies: the
    same author, date and message), so feature's own history holds the originals before its
    copies. Applying feature's commits to main, which stored another error since, replays an
    update of a record main archived later: main's archived fix stands, no conflict (seed 16040
    of the simulation's `--merge-change-kinds`, step 255, where such copies came from a rebase
    that flattened merges; main's commits were searched for a copy only since the sides
    parted, and the originals are older)."""
    init_memory(repo, driver=True)
    error = add_error(repo, "build failed", "main")
    commit(repo, "store the error")
    fix_error(repo, error, "fix1")
    fix_error(repo, error, "fix2")
    forget(memory_of(repo), error)
    commit(repo, "forget the error")
    mate = tmp_path / "mate"
    git(tmp_path, "clone", "-q", str(repo), str(mate))
    git(mate, "checkout", "-q", "-b", "feature")
    for copied in ("origin/main~3", "origin/main~2"):  # the store, the first fix
        git(mate, "-c", "user.name=Mate", "-c", "user.email=mate@example.com",
            "cherry-pick", copied)  # fmt: skip
    git(mate, "push", "-q", "origin", "feature")
    add_error(repo, "lint failed", "main")
    commit(repo, "store another error")
    errors, archive = text_of(repo, "ERRORS.md"), text_of(repo, "ARCHIVE.md")

    _apply_feature_as_patches(repo, tmp_path)

    assert text_of(repo, "ERRORS.md") == errors
    assert text_of(repo, "ARCHIVE.md") == archive
    archived = [line for line in archive.splitlines() if line.startswith("| E-001 ")]
    assert archived == ["| E-001 | 2026-03-02 | main | build failed | fix2 | coder | true | git |"]
    assert git(repo, "log", "-1", "--format=%s") == "store another error\n"
    assert_healthy(repo)


def test_the_series_a_hook_names_is_a_replay_of_the_commits_mailed(
    repo: Path, tmp_path: Path
) -> None:
    """While post-applypatch runs after a series, the replay doctor weighs is where the series
    started, the commits `git am` wrote, and the commits the mails were mailed from: as for a
    pick, a change main already made and undid is set back (seed 15003 of the simulation's
    `--merge-change-kinds`, step 340, where main's restore came through a merge's own result
    and no other check saw the replayed forget)."""
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    report = tmp_path / "replay.txt"
    asked = (
        "from pathlib import Path; from legion_memory.gitops.applied_patch import "
        f"replay_of_patches; Path({str(report)!r}).write_text(repr(replay_of_patches(Path.cwd())))"
    )
    chained = hooks / "post-applypatch"
    chained.write_text(f"#!/bin/sh\n{shlex.quote(sys.executable)} -c {shlex.quote(asked)}\n")
    chained.chmod(0o755)
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    mailed = git(repo, "rev-list", "--reverse", "main..feature").split()
    mailbox = tmp_path / "feature.mbox"
    mailbox.write_text(git(repo, "format-patch", "--stdout", "main..feature"), encoding="utf-8")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "gamma", "main")
    commit(repo, "store gamma")
    started = git(repo, "rev-parse", "HEAD").strip()

    applied = run_git(repo, "am", "-3", str(mailbox))

    assert applied.returncode == 0, applied.stderr
    written = git(repo, "rev-list", "--reverse", f"{started}..HEAD").split()
    assert len(written) == 2
    assert report.read_text(encoding="utf-8") == (
        f"Replay(onto={started!r}, picked={tuple(written)!r}, apart={tuple(mailed)!r})"
    )


def _apply_feature_as_patches(repo: Path, tmp_path: Path) -> None:
    """feature's commits main lacks, mailed by `format-patch` and applied by `git am -3`."""
    mailbox = tmp_path / "feature.mbox"
    mailbox.write_text(git(repo, "format-patch", "--stdout", "main..feature"), encoding="utf-8")
    applied = run_git(repo, "am", "-3", str(mailbox))
    assert applied.returncode == 0, applied.stderr
