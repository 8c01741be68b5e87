"""Reading revisions: the commit a revision names, the merge base of two, and files as a commit
holds them, by git's command line (docs/decisions.md#revisions-by-the-git-cli)."""

import os
from collections.abc import Sequence
from pathlib import Path

from legion_memory.errors import GitError, InputError
from legion_memory.gitops.cat_file import batch_objects, blob_text
from legion_memory.gitops.git_spawn import git_stdout


def run_git(args: list[str], cwd: Path) -> str | None:
    """`repository.run_git` without importing `subprocess`: git's stdout stripped, None on
    failure (docs/decisions.md#git-without-subprocess)."""
    output = git_stdout(args, cwd)
    return None if output is None else output.decode("utf-8", "surrogateescape").strip()


def _top(start: Path) -> Path:
    """The top of the working tree holding `start`; GitError outside a git repository."""
    top = run_git(["rev-parse", "--show-toplevel"], start)
    if not top:
        raise GitError("not inside a git repository", where=str(start))
    return Path(top)


def _commit(start: Path, rev: str) -> str:
    """The full hash of the commit `rev` names (a tag names its commit); InputError for none."""
    found = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], start
    )
    if not found:
        raise InputError(
            f"unknown revision '{rev}'", hint="give a branch, tag or commit (see `git log`)"
        )
    return found


def resolve(start: Path, rev: str) -> str:
    """The commit a revision names (full hash); GitError when there is none."""
    _top(start)
    return _commit(start, rev)


def merge_base(start: Path, first: str, second: str) -> str:
    """The best common ancestor of two revisions."""
    _top(start)
    commits = _commit(start, first), _commit(start, second)
    base = run_git(["merge-base", *commits], start)
    if not base:
        raise GitError(f"'{first}' and '{second}' have no common ancestor", hint="name a revision")
    return base


def files_at(start: Path, rev: str, directory: Path, names: Sequence[str]) -> dict[str, str | None]:
    """The text of files `names` of `directory` at revision `rev` (None when absent there),
    read by one `git cat-file --batch` run in `start`, which is asked for the commit first (an
    unknown revision is an InputError) and then for each file by its path from `start`
    (docs/decisions.md#revisions-by-the-git-cli)."""
    if "\n" in rev:  # one line of cat-file's input names one object
        raise InputError(f"unknown revision {rev!r}", hint="give a branch, tag or commit")
    relative = Path(os.path.relpath(directory.resolve(), start.resolve())).as_posix()
    commit = f"{rev}^{{commit}}"
    wanted = [commit, *(f"{commit}:./{relative}/{name}" for name in names)]
    output = git_stdout(["cat-file", "--batch"], start, "".join(f"{w}\n" for w in wanted).encode())
    if output is None:
        raise GitError("not inside a git repository", where=str(start))
    objects = batch_objects(output, len(wanted))
    if objects[0] is None:
        raise InputError(
            f"unknown revision '{rev}'", hint="give a branch, tag or commit (see `git log`)"
        )
    return {name: blob_text(found) for name, found in zip(names, objects[1:], strict=True)}
