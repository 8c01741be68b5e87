"""Reading revisions: the commit a revision names, the merge base of two, and files as a commit
holds them, by git's command line (docs/decisions.md#revisions-by-the-git-cli)."""

from collections.abc import Sequence
from pathlib import Path

from legion_memory.errors import GitError, InputError
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
    read by one `git cat-file --batch` (docs/decisions.md#revisions-by-the-git-cli)."""
    top = _top(start).resolve()
    commit = _commit(start, rev)
    relative = directory.resolve().relative_to(top)
    wanted = [f"{commit}:{(relative / name).as_posix()}" for name in names]
    given = "".join(f"{w}\n" for w in wanted).encode("utf-8")
    output = git_stdout(["cat-file", "--batch"], start, given)
    if output is None:
        raise GitError(f"git could not read revision '{rev}'", where=str(start))
    found: dict[str, str | None] = {}
    at = 0
    for name in names:
        header_end = output.index(b"\n", at)
        header = output[at:header_end].split()
        at = header_end + 1
        if header[-1] == b"missing":
            found[name] = None
            continue
        size = int(header[2])
        found[name] = output[at : at + size].decode("utf-8", "replace")
        at += size + 1
    return found
