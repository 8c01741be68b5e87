"""Answers of git that cannot change while a process runs, remembered for it.

One doctor run after a rebase asks git the same questions from several checks (where the two
sides parted, the branch's merges, which commits changed a file): each a few milliseconds of
process start, a third of the hook's cost. A question is settled when it only reads, and names
commits only by their full names (`merge-base A B`, `rev-list A ^B`, `log --no-walk A -- path`),
or asks where the work tree of a directory starts; and a file's text at a commit named by its
full name (`<commit>:<path>`, read by `git cat-file --batch`). Only answers git gave with success
are kept: an object not fetched yet, or a directory not yet in a repository, is asked again.
"""

import os
from pathlib import Path

from legion_memory.gitops.branch import is_object_name

_READING = frozenset({"merge-base", "rev-list", "log"})
# Options that make a reading name references or the reflog, which move.
_MOVING = (
    "--all",
    "--branches",
    "--tags",
    "--remotes",
    "--glob",
    "--exclude",
    "--stdin",
    "--reflog",
    "--walk-reflogs",
    "-g",
    "--fork-point",
    "--bisect",
)
_LIMIT = 256
_TEXT_LIMIT = 64 * 1024 * 1024  # characters of files' texts kept at most

_answers: dict[tuple[str, ...], str] = {}
_texts: dict[tuple[str, ...], str] = {}


def settled_key(args: list[str], cwd: Path) -> tuple[str, ...] | None:
    """What identifies the question when its answer is settled, else None."""
    if args == ["rev-parse", "--show-toplevel"]:
        return _where(cwd, args)
    if not args or args[0] not in _READING:
        return None
    asked = args[1 : args.index("--")] if "--" in args else args[1:]
    options = [arg for arg in asked if arg.startswith("-")]
    named = [arg for arg in asked if not arg.startswith("-")]
    if not named or any(option.startswith(_MOVING) for option in options):
        return None
    if not all(is_object_name(part) for arg in named for part in arg.lstrip("^").split("..")):
        return None
    return _where(cwd, args)


def _where(cwd: Path, args: list[str]) -> tuple[str, ...]:
    """The question with what else its answer may depend on: the repository it is asked in."""
    env = os.environ
    return (str(cwd), env.get("GIT_DIR", ""), env.get("GIT_WORK_TREE", ""), *args)


def answer(key: tuple[str, ...]) -> str | None:
    return _answers.get(key)


def keep(key: tuple[str, ...], text: str) -> None:
    if len(_answers) >= _LIMIT:
        _answers.clear()
    _answers[key] = text


def text_key(name: str, cwd: Path) -> tuple[str, ...] | None:
    """What identifies `<commit>:<path>` when the commit is named by its full name, else None."""
    commit, colon, _ = name.partition(":")
    return _where(cwd, ["cat-file", name]) if colon and is_object_name(commit) else None


def text(key: tuple[str, ...]) -> str | None:
    return _texts.get(key)


def keep_text(key: tuple[str, ...], held: str) -> None:
    if sum(map(len, _texts.values())) + len(held) > _TEXT_LIMIT:
        _texts.clear()
    _texts[key] = held
