"""What git's own files say (which branch is checked out, the commit HEAD is at, the git
directory the worktrees share), read from the git directory first: every store asks for the
branch and the merge driver for the commit, so this module is all a hot command imports of
`gitops` (the rest is `gitops.repository`)."""

import os
from collections.abc import Mapping
from pathlib import Path

UNKNOWN_BRANCH = "unknown"
_HEADS = "refs/heads/"


def run_git(args: list[str], cwd: Path) -> str | None:
    """Run git with an argument list (never a shell string); stdout stripped, None on failure.
    A question whose answer cannot change is asked once a process (`settled_answers`)."""
    import subprocess  # hot paths read the branch from files and never get here

    from legion_memory.gitops import settled_answers

    key = settled_answers.settled_key(args, cwd)
    known = settled_answers.answer(key) if key is not None else None
    if known is not None:
        return known
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    if key is not None:
        settled_answers.keep(key, done.stdout.strip())
    return done.stdout.strip()


def find_git_dir(start: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The git directory for `start`: $GIT_DIR, else walk up following `.git` files (worktrees)."""
    env = os.environ if env is None else env
    if env.get("GIT_DIR"):
        # Like git itself, a relative $GIT_DIR is relative to the working directory.
        return Path(env["GIT_DIR"]).resolve()
    for directory in (start.resolve(), *start.resolve().parents):
        dotgit = directory / ".git"
        if dotgit.is_dir():
            return dotgit
        if dotgit.is_file():
            return _follow_gitfile(dotgit)
    return None


def _follow_gitfile(dotgit: Path) -> Path | None:
    try:
        content = dotgit.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not content.startswith("gitdir:"):
        return None
    return (dotgit.parent / content[len("gitdir:") :].strip()).resolve()


def branch_from_git_dir(git_dir: Path) -> str | None:
    """The checked-out branch from HEAD; during a rebase, the branch being rebased."""
    for state in ("rebase-merge", "rebase-apply"):
        head_name = read_stripped(git_dir / state / "head-name")
        if head_name and head_name.startswith(_HEADS):
            return head_name[len(_HEADS) :]
    head = read_stripped(git_dir / "HEAD")
    if head and head.startswith("ref: " + _HEADS):
        return head[len("ref: " + _HEADS) :]
    return None


def read_stripped(path: Path) -> str | None:
    """A small git file's text without its surrounding whitespace; None when it is unreadable."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def commit_at(git_dir: Path, name: str) -> str:
    """The commit `name` (HEAD, ORIG_HEAD) is at, read from git's files: the merge driver asks at
    every file of every merge. Git is asked where the files do not say (a packed branch)."""
    held = read_stripped(git_dir / name) or ""
    if held.startswith("ref: "):
        held = read_stripped(common_git_dir(git_dir) / held[len("ref: ") :]) or ""
    if is_object_name(held):
        return held
    return run_git(["--git-dir", str(git_dir), "rev-parse", "-q", "--verify", name], git_dir) or ""


def common_git_dir(git_dir: Path) -> Path:
    """The git directory every worktree of the clone shares (branches, objects): a linked
    worktree's own git directory names it in `commondir`; the main worktree's is it."""
    return (git_dir / (read_stripped(git_dir / "commondir") or ".")).resolve()


def is_object_name(text: str) -> bool:
    """A full commit hash: SHA-1 or SHA-256."""
    return len(text) in (40, 64) and is_hex(text)


def is_hex(text: str) -> bool:
    return all(char in _HEX_DIGITS for char in text)


_HEX_DIGITS = frozenset("0123456789abcdef")


def current_branch(start: Path, env: Mapping[str, str] | None = None) -> str:
    """The current branch name; `git branch --show-current` when files do not tell; `unknown`."""
    git_dir = find_git_dir(start, env)
    name = branch_from_git_dir(git_dir) if git_dir else None
    return name or run_git(["branch", "--show-current"], start) or UNKNOWN_BRANCH


def default_branch(start: Path) -> str:
    """The branch legacy rows without a Branch column belong to."""
    remote_head = run_git(["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"], start)
    if remote_head:
        return remote_head.removeprefix("refs/remotes/origin/")
    return run_git(["config", "--get", "init.defaultBranch"], start) or "main"
