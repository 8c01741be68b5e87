"""`git_stdout`: one git command's output, as `subprocess.run` would capture it, without it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.processes import git

from legion_memory.gitops import git_spawn
from legion_memory.gitops.git_spawn import git_stdout


def test_the_output_of_git_in_the_directory_given(repo: Path) -> None:
    (repo / "sub").mkdir()
    assert git_stdout(["rev-parse", "--show-toplevel"], repo / "sub") == f"{repo}\n".encode()
    assert git_stdout(["rev-parse", "--show-prefix"], repo / "sub") == b"sub/\n"


def test_input_is_written_to_git(repo: Path) -> None:
    blob = git(repo, "rev-parse", "HEAD:README.md").strip()
    found = git_stdout(["cat-file", "--batch"], repo, b"HEAD:README.md\nHEAD:nothing\n")
    assert found == f"{blob} blob 8\nproject\n\nHEAD:nothing missing\n".encode()


def test_a_failing_git_or_a_missing_directory_gives_none(repo: Path, tmp_path: Path) -> None:
    assert git_stdout(["rev-parse", "--verify", "--quiet", "nope^{commit}"], repo) is None
    assert git_stdout(["rev-parse", "--show-toplevel"], tmp_path / "absent") is None
    assert git_stdout(["rev-parse", "--show-toplevel"], tmp_path) is None  # no repository


def test_a_git_that_ends_before_reading_its_input_gives_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a repository `cat-file` may exit before it reads: the write then meets a closed
    pipe, which is git's failure to report, not the caller's."""
    outside = tmp_path / "plain"
    outside.mkdir()

    def closed_pipe(descriptor: int, data: bytes) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("legion_memory.gitops.git_spawn.os.write", closed_pipe)
    assert git_stdout(["cat-file", "--batch"], outside, b"HEAD:README.md\n") is None


def test_git_not_on_path_gives_none(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo))
    assert git_stdout(["rev-parse", "HEAD"], repo) is None


def test_a_git_that_takes_too_long_is_killed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(git_spawn, "TIMEOUT_SECONDS", 0.3)
    git(repo, "config", "alias.wait", "!sleep 3")
    started = time.monotonic()
    assert git_stdout(["wait"], repo) is None
    assert time.monotonic() - started < 2


def test_input_beyond_a_pipe_buffer_is_refused(repo: Path) -> None:
    with pytest.raises(ValueError, match="at most 16 KiB"):
        git_stdout(["cat-file", "--batch"], repo, b"HEAD\n" * 4000)
