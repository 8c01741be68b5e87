"""Reading a lone cherry-pick's commit from its command line (docs/decisions.md#lone-pick): which
command lines name one commit, and the process table read where /proc is not there."""

from __future__ import annotations

import os
import shutil

import pytest

from legion_memory.gitops import lone_pick, running_git


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["git", "cherry-pick", "feature"], "feature"),
        (["/usr/bin/git", "cherry-pick", "-x", "feature~2"], "feature~2"),
        (["git", "-c", "core.editor=true", "-C", "repo", "cherry-pick", "abc123"], "abc123"),
        (["git", "cherry-pick", "-m", "1", "--strategy", "ort", "topic"], "topic"),
        (["git", "cherry-pick", "--mainline=1", "-Xours", "topic"], "topic"),
        (["git", "cherry-pick", "-"], "@{-1}"),
        (["git", "cherry-pick", "one", "two"], None),
        (["git", "cherry-pick", "main..feature"], None),
        (["git", "cherry-pick", "^main", "feature"], None),
        (["git", "cherry-pick", "--continue"], None),
        (["git", "revert", "feature"], None),
        (["git", "rebase", "main"], None),
        (["git", "cp", "feature"], None),
        (["sh", "-c", "git cherry-pick feature"], None),
        (["git"], None),
        ([], None),
    ],
)
def test_only_a_git_cherry_pick_of_one_revision_names_a_commit(
    argv: list[str], named: str | None
) -> None:
    assert lone_pick._lone_pick(argv) == named


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["git", "cherry-pick", "-n", "feature"], "feature"),
        (["git", "cherry-pick", "--no-commit", "-x", "feature~2"], "feature~2"),
        (["git", "cherry-pick", "-nx", "abc123"], "abc123"),
        (["git", "cherry-pick", "feature"], None),
        (["git", "cherry-pick", "-x", "feature"], None),
        (["git", "cherry-pick", "-n", "main..feature"], None),
        (["git", "revert", "-n", "feature"], None),
    ],
)
def test_only_a_pick_of_one_revision_that_commits_nothing_is_noted(
    argv: list[str], named: str | None
) -> None:
    assert lone_pick._uncommitted_pick(argv) == named


def test_a_blob_id_is_git_s_for_either_hash() -> None:
    assert running_git._blob_id(b"", 40) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert running_git._blob_id(b"", 64) == (
        "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
    )


@pytest.mark.skipif(shutil.which("ps") is None, reason="no ps here")
def test_the_process_table_read_without_proc_gives_what_proc_gives() -> None:
    """macOS and the BSDs have no /proc: `ps` answers the same, its arguments joined by spaces
    (split again: an argument holding a space, as pytest's `-k` expression may, comes apart)."""
    shown = running_git._from_ps(os.getpid())
    assert shown is not None
    assert shown[0] == os.getppid()
    if os.path.exists("/proc/self"):
        parent, argv = running_git._process(os.getpid()) or (0, [])
        assert shown == (parent, " ".join(argv).split())
    else:
        assert "python" in shown[1][0]
