"""Branch detection in real temporary git repositories (no GitPython on this path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.processes import CLI, git

from legion_memory.gitops.repository import (
    branch_from_git_dir,
    current_branch,
    default_branch,
    find_git_dir,
)


@pytest.fixture(autouse=True)
def plain_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git configuration and no inherited GIT_DIR can change the answers."""
    empty = tmp_path / "empty-gitconfig"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Dev")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "dev@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Dev")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "dev@example.com")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


def _commit(path: Path, name: str, text: str, message: str) -> None:
    (path / name).write_text(text, encoding="utf-8")
    git(path, "add", name)
    git(path, "commit", "-q", "-m", message)


def test_normal_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature/auth")
    assert current_branch(repo) == "feature/auth"


def test_from_a_subdirectory(repo: Path) -> None:
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    assert current_branch(sub) == "main"


def test_detached_head_is_unknown(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    assert current_branch(repo) == "unknown"


def test_unborn_branch(tmp_path: Path) -> None:
    path = tmp_path / "fresh"
    path.mkdir()
    git(path, "init", "-q", "-b", "trunk")
    assert current_branch(path) == "trunk"
    assert branch_from_git_dir(path / ".git") == "trunk"  # read from HEAD, no git process


def test_linked_worktree(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "feature/linked", str(linked))
    assert (linked / ".git").is_file()
    assert current_branch(linked) == "feature/linked"
    git_dir = find_git_dir(linked)
    assert git_dir == (repo / ".git" / "worktrees" / "linked").resolve()
    assert branch_from_git_dir(git_dir) == "feature/linked"
    assert current_branch(repo) == "main"


def test_submodule_checkout(repo: Path, tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "lib-main")
    _commit(library, "lib.txt", "lib\n", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    assert (repo / "lib" / ".git").is_file()
    assert current_branch(repo / "lib") == "lib-main"
    assert find_git_dir(repo / "lib") == (repo / ".git" / "modules" / "lib").resolve()


def test_rebase_in_progress_reports_the_branch_being_rebased(repo: Path) -> None:
    _commit(repo, "notes.txt", "base\n", "base")
    git(repo, "checkout", "-q", "-b", "feature/rebase")
    _commit(repo, "notes.txt", "feature\n", "feature change")
    git(repo, "checkout", "-q", "main")
    _commit(repo, "notes.txt", "main\n", "main change")
    git(repo, "checkout", "-q", "feature/rebase")
    done = subprocess.run(["git", "rebase", "main"], cwd=repo, capture_output=True, check=False)
    assert done.returncode != 0  # stopped on the conflict
    assert (repo / ".git" / "rebase-merge" / "head-name").is_file()
    assert git(repo, "branch", "--show-current") == ""  # what the spec's command would say
    assert current_branch(repo) == "feature/rebase"


def test_not_a_repository_is_unknown(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_git_dir(plain) is None
    assert current_branch(plain) == "unknown"


def test_git_dir_from_the_environment(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "checkout", "-q", "-b", "from-env")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert current_branch(elsewhere) == "from-env"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_DIR", "project/.git")  # relative to the working directory, as in git
    assert current_branch(elsewhere) == "from-env"


def test_default_branch_from_origin_head(repo: Path, tmp_path: Path) -> None:
    git(repo, "branch", "-q", "-m", "main", "trunk")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "checkout", "-q", "-b", "feature/x")
    assert default_branch(clone) == "trunk"


def test_default_branch_from_init_default_branch_else_main(repo: Path) -> None:
    assert default_branch(repo) == "main"
    git(repo, "config", "init.defaultBranch", "develop")
    assert default_branch(repo) == "develop"


def test_store_outcome_records_the_detected_branch_and_honours_the_override(
    cli: CLI, repo: Path
) -> None:
    git(repo, "checkout", "-q", "-b", "feature/orders")
    args = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "autonomous"]
    args += ["--outcome", "success", "--summary", "s", "--importance", "2"]
    cli("--today", "2026-03-31", *args, cwd=repo)
    cli("--today", "2026-03-31", "--branch", "release-1", *args, cwd=repo)
    git(repo, "checkout", "-q", "--detach")
    cli("--today", "2026-03-31", *args, cwd=repo)
    rows = (repo / ".planning/memory/OUTCOMES.md").read_text(encoding="utf-8").splitlines()[-3:]
    rest = "| 1 | 01-01 | autonomous | general | success | 2 |  | s |"
    assert rows == [
        f"| O-001 | 2026-03-31 | feature/orders {rest}",
        f"| O-002 | 2026-03-31 | release-1 {rest}",
        f"| O-003 | 2026-03-31 | unknown {rest}",
    ]
