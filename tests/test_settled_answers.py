"""Git's answers that cannot change while a process runs are asked once: a question that only
reads and names commits by their full names, where a directory's work tree starts, a file at a
commit named by its full name. The rest (anything naming a reference, a failure) is asked every
time."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import git

from legion_memory.gitops.branch import run_git
from legion_memory.gitops.cat_file import blob_texts
from legion_memory.gitops.settled_answers import settled_key

A = "a" * 40
B = "b" * 40


@pytest.mark.parametrize(
    "args",
    [
        ["merge-base", A, B],
        ["merge-base", "--is-ancestor", A, B],
        ["rev-list", "--merges", "--parents", "--format=%s", A, f"^{B}"],
        ["rev-list", f"{A}..{B}"],
        ["log", "--no-walk=unsorted", "--format=%H", A, B, "--", "/repo/.planning/x.md"],
        ["rev-parse", "--show-toplevel"],
    ],
)
def test_a_question_of_full_commit_names_is_settled(args: list[str]) -> None:
    assert settled_key(args, Path("/repo")) == ("/repo", "", "", *args)


@pytest.mark.parametrize(
    "args",
    [
        ["merge-base", "HEAD", B],
        ["merge-base", A[:12], B],
        ["rev-list", "--all", f"^{A}"],
        ["rev-list", "--branches", A],
        ["log", "-g", A],
        ["log", "-1", "--format=%gs"],
        ["merge-base", "--fork-point", A, B],
        ["rev-list", f"{A}...{B}"],
        ["update-ref", "refs/heads/x", A],
        ["rev-parse", "-q", "--verify", A],
        [],
    ],
)
def test_a_question_naming_what_moves_or_writing_is_not(args: list[str]) -> None:
    assert settled_key(args, Path("/repo")) is None


def _commits(repo: Path) -> list[str]:
    git(repo, "init", "-q", "-b", "main")
    for name in ("one", "two"):
        (repo / name).write_text(name, encoding="utf-8")
        git(repo, "add", name)
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", name)
    return git(repo, "rev-list", "HEAD").split()


def test_a_settled_answer_is_given_again_without_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    second, first = _commits(tmp_path)
    assert run_git(["merge-base", first, second], tmp_path) == first
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert run_git(["merge-base", first, second], tmp_path) == first
    assert run_git(["merge-base", "HEAD", second], tmp_path) is None  # git was asked: none


def test_a_failed_answer_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "later-a-repo"
    outside.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert run_git(["rev-parse", "--show-toplevel"], outside) is None
    git(outside, "init", "-q")
    assert run_git(["rev-parse", "--show-toplevel"], outside) == str(outside.resolve())


def test_a_file_at_a_full_commit_name_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    second, first = _commits(tmp_path)
    asked = [f"{first}:one", f"{second}:two", f"{first}:two"]
    assert blob_texts(tmp_path, asked) == ["one", "two", None]
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert blob_texts(tmp_path, asked[:2]) == ["one", "two"]
    assert blob_texts(tmp_path, asked) is None  # the missing one was asked of git again
    assert blob_texts(tmp_path, ["HEAD:one"]) is None
