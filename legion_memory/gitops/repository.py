"""The only code that runs git (with `gitops.branch`, which finds the branch a hot command
needs): its repository, revisions, files at a revision, rebases and picks in progress."""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from legion_memory.errors import GitError
from legion_memory.gitops.applied_stash import noted_sides
from legion_memory.gitops.branch import (
    UNKNOWN_BRANCH,
    branch_from_git_dir,
    current_branch,
    default_branch,
    find_git_dir,
    is_hex,
    is_object_name,
    read_stripped,
    run_git,
)
from legion_memory.gitops.cat_file import blob_texts
from legion_memory.gitops.hook_env import (
    COMMITTED_ENV,
    CONCLUDED_ENV,
    OURS_ENV,
    PICKED_ENV,
    PICKED_ONTO_ENV,
    PICKED_TIP_ENV,
    RECHECK_ENV,
    REPLAYED_AS_ENV,
    REWRITTEN_ENV,
)
from legion_memory.gitops.rebase_state import rebase_onto, rebase_started_from, state_held
from legion_memory.named_tuple import NamedTuple

__all__ = [
    "UNKNOWN_BRANCH",
    "branch_from_git_dir",
    "current_branch",
    "default_branch",
    "find_git_dir",
    "run_git",
]


class GitRun(NamedTuple):
    """A git command as a terminal shows it: its exit code and its stdout and stderr together."""

    code: int
    output: str


def run_git_shown(args: list[str], cwd: Path, env: Mapping[str, str]) -> GitRun:
    """Run git with an argument list and environment, keeping stderr in order with stdout (a
    merge reports on stderr, and so does the merge driver git starts)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"could not run git {args[0]}: {exc}", where=str(cwd)) from exc
    return GitRun(done.returncode, done.stdout)


class NumStat(NamedTuple):
    """One file changed in the working tree; line counts are None for a binary file."""

    path: str
    added: int | None
    deleted: int | None


def diff_numstat(cwd: Path) -> list[NumStat] | None:
    """The files `git diff --name-only` lists (unstaged changes under `cwd`, paths relative to
    it) with their added and deleted line counts; None when git cannot answer."""
    output = run_git(["diff", "--numstat", "-z", "--no-renames", "--relative"], cwd)
    if output is None:
        return None
    stats = []
    for entry in output.split("\0"):
        added, _, rest = entry.partition("\t")
        deleted, _, path = rest.partition("\t")
        if path:
            stats.append(NumStat(path, _count(added), _count(deleted)))
    return stats


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def toplevel(start: Path) -> Path:
    """The top of the working tree holding `start`; GitError outside a git working tree."""
    top = run_git(["rev-parse", "--show-toplevel"], start)
    if not top:
        raise GitError(
            "not inside a git working tree", where=str(start), hint="run it inside a git clone"
        )
    return Path(top)


def git_path(start: Path, name: str) -> Path:
    """Where git keeps `name` (`hooks` honours core.hooksPath; shared by all worktrees)."""
    found = run_git(["rev-parse", "--git-path", name], start)
    if not found:
        raise GitError(f"git could not locate its {name}", where=str(start))
    return (start / found).resolve()


def config_get(start: Path, key: str) -> str | None:
    """A per-clone config value, None when unset."""
    return run_git(["config", "--local", "--get", key], start)


def config_set(start: Path, key: str, value: str) -> None:
    if run_git(["config", "--local", key, value], start) is None:
        raise GitError(f"could not set git config {key}", where=str(start))


def config_unset(start: Path, key: str) -> None:
    if run_git(["config", "--local", "--unset", key], start) is None:
        raise GitError(f"could not unset git config {key}", where=str(start))


def config_remove_section(start: Path, section: str) -> None:
    if run_git(["config", "--local", "--remove-section", section], start) is None:
        raise GitError(f"could not remove git config section {section}", where=str(start))


def merge_sides(start: Path, directory: Path, names: Sequence[str]) -> dict[str, str]:
    """When HEAD is a merge: each row line (stripped) of the files `names` that only one parent
    holds, with that parent's side ("ours" for the first, "theirs" for the second); after a
    plain commit the post-commit hook names (`COMMITTED_ENV`), its parent is ours and what the
    commit brought theirs; else {}."""
    sides = (("ours", "HEAD^1"), ("theirs", "HEAD^2"))
    if os.environ.get(COMMITTED_ENV):
        sides = (("ours", "HEAD^1"), ("theirs", "HEAD"))
    if run_git(["rev-parse", "-q", "--verify", sides[1][1]], start) is None:
        return {}
    top = run_git(["rev-parse", "--show-toplevel"], start)
    if top is None:
        return {}
    relative = directory.resolve().relative_to(Path(top).resolve()).as_posix()
    lines: dict[str, set[str]] = {"ours": set(), "theirs": set()}
    for side, parent in sides:
        for name in names:
            shown = run_git(["show", f"{parent}:{relative}/{name}"], start) or ""
            lines[side] |= {line.strip() for line in shown.splitlines() if line.startswith("|")}
    only = {line: "ours" for line in lines["ours"] - lines["theirs"]}
    return only | {line: "theirs" for line in lines["theirs"] - lines["ours"]}


_IN_PROGRESS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD")


def _in_progress(git_dir: Path) -> tuple[str, ...]:
    """The files naming the other side of a step git holds, of those that can be: REBASE_HEAD
    only inside a rebase, since git may leave it behind once one has ended (an interactive
    rebase that skipped a pick), to pass a later merge off as that old step."""
    if state_held(git_dir):
        return _IN_PROGRESS
    return _IN_PROGRESS[:2]


def ours_rev(env: Mapping[str, str]) -> str:
    """The commit the merge at hand merges into: HEAD, or an octopus step's own."""
    return env.get(OURS_ENV) or "HEAD"


class Replay(NamedTuple):
    """A rebase or pick just done: what it was replayed onto, each replayed commit (a rebase's
    old commits, a pick's new ones) as a revision whose parent `<rev>^` is the version before,
    and the commits whose history is not the upstream's (`upstream_commits` reads the rest)."""

    onto: str
    picked: tuple[str, ...]
    apart: tuple[str, ...]


def replay_of_rebase(start: Path, env: Mapping[str, str] | None = None) -> Replay | None:
    """The rebase the post-rewrite hook names (docs/decisions.md#replays-upstream-holds); None
    when it names none or git cannot say what it was replayed onto."""
    env = os.environ if env is None else env
    old, new = env.get(REWRITTEN_ENV, "").split(), env.get(REPLAYED_AS_ENV, "").split()
    if not old or not new:
        return None
    onto = rebase_onto(start, env) or run_git(["rev-parse", "-q", "--verify", f"{new[0]}^"], start)
    if onto is None:
        return None
    return Replay(onto.strip(), tuple(old), tuple(old))


def commit_being_replayed(start: Path) -> str | None:
    """The commit a rebase is replaying now: the last line git's interactive rebase (the
    default since git 2.26) wrote to its done list before applying it, `pick <sha> subject`.
    None outside such a rebase."""
    git_dir = find_git_dir(start)
    done = read_stripped(git_dir / "rebase-merge" / "done") if git_dir is not None else None
    words = done.splitlines()[-1].split() if done else []
    replayed = words[1] if len(words) > 1 else ""
    return replayed if is_object_name(replayed) else None


def commit_being_picked(start: Path) -> str | None:
    """The commit a cherry-pick of several commits is applying now: git keeps the sequence's
    remaining picks in `sequencer/todo`, the one being applied first, `pick <sha> subject` (its
    hash abbreviated). None outside such a sequence (a pick of one commit keeps no list:
    `gitops.lone_pick` reads its command line)."""
    git_dir = find_git_dir(start)
    todo = read_stripped(git_dir / "sequencer" / "todo") if git_dir is not None else None
    words = todo.splitlines()[0].split() if todo else []
    picked = words[1] if len(words) > 1 and words[0] in ("p", "pick") else ""
    return picked if len(picked) >= 7 and is_hex(picked) else None


def replay_of_picks(start: Path, env: Mapping[str, str] | None = None) -> Replay | None:
    """The cherry-pick (one commit, or several at once) the post-commit hook names, as a replay:
    the commits it wrote since where it started, and the commits of that start the picked commit
    does not reach (docs/decisions.md#replays-upstream-holds). None when it names none."""
    env = os.environ if env is None else env
    picked = env.get(PICKED_ENV, "").split()
    started = env.get(PICKED_ONTO_ENV, "").split() or ["HEAD^"]
    onto = run_git(["rev-parse", "-q", "--verify", f"{started[0]}^{{commit}}"], start)
    if not picked or onto is None:
        return None
    tip = env.get(PICKED_TIP_ENV, "").strip() or "HEAD"
    written = run_git(["rev-list", "--reverse", "--no-merges", f"{onto.strip()}..{tip}"], start)
    return Replay(onto.strip(), tuple((written or "").split()), tuple(picked))


def octopus_in_progress(start: Path) -> bool:
    """Whether git stopped an octopus merge (more than one head merged at once)."""
    git_dir = find_git_dir(start)
    named = read_stripped(git_dir / "MERGE_HEAD") if git_dir is not None else None
    return len((named or "").split()) > 1


def integration_sources(start: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """The commits the integration at hand took its versions from, never its own result: first
    those a hook names (a rebase's old commits, a pick just committed, the sides of a stopped
    merge or squash concluded, `RECHECK_ENV`), else
    those git's state names (a step in progress, a squash's tip, a merge's parents, a stash the
    driver noted, `applied_stash`). Empty when there is none."""
    env = os.environ if env is None else env
    git_dir = find_git_dir(start, env)
    if git_dir is None:
        return []
    return _sides_named_by_hooks(start, env) or _sides_in_git_dir(start, git_dir)


def _sides_named_by_hooks(start: Path, env: Mapping[str, str]) -> list[str]:
    """The sides a hook or the octopus strategy named in the environment; empty when none."""
    rewritten = env.get(REWRITTEN_ENV, "").split()
    replay = replay_of_rebase(start, env) if rewritten else None
    if replay is not None:  # one branch's own history: its tip says what its rows meant last
        before = rebase_started_from(start, env)
        return [before or rewritten[-1], replay.onto]
    if rewritten:
        return rewritten
    picked = env.get(PICKED_ENV, "").split()
    if picked:  # post-commit of a pick: HEAD is its result
        return [*(env.get(PICKED_ONTO_ENV, "").split() or ["HEAD^"]), *picked]
    # a stopped merge or squash concluded (a squash's commit has one parent, and git's squash
    # state is gone by now), or a step of the octopus strategy, which nothing else names yet
    return env.get(CONCLUDED_ENV, "").split() or env.get(RECHECK_ENV, "").split()


def _sides_in_git_dir(start: Path, git_dir: Path) -> list[str]:
    """The sides git's state names: an integration in progress, a squash, a merge, a stash."""
    head, *parents = (run_git(["rev-list", "--parents", "-n", "1", "HEAD"], start) or "-").split()
    merged = parents if len(parents) > 1 else []
    for name in _in_progress(git_dir):
        named = (read_stripped(git_dir / name) or "").split()
        # Git still holds it while post-merge runs: then HEAD is the merge made, whose parents
        # hold every head named (an octopus merge that fast-forwarded to its first branch has
        # no parent of its own HEAD's before).
        if named:
            return merged if merged and set(named) <= set(merged) else ["HEAD", *named]
    # A squash's other side is the squashed branch as it ends: the newest commit git lists. Its
    # older commits hold the records under the numbers they had then, no side of this merge.
    squashed = read_stripped(git_dir / "SQUASH_MSG") or ""
    commits = [line.split()[1] for line in squashed.splitlines() if line.startswith("commit ")]
    if commits:
        return ["HEAD", commits[0]]
    stash = noted_sides(git_dir)  # HEAD then, and the stash (an autostash: onto the merge made)
    return stash if stash and (not merged or stash[0] == head) else merged


def files_of_commits(
    start: Path,
    directory: Path,
    revs: Sequence[str],
    names: Sequence[str],
    *,
    keep_empty: bool = False,
) -> list[dict[str, str | None]]:
    """Per revision, the text of the files `names` of `directory` there (None when absent), read
    in one `git cat-file --batch`; a revision git cannot read gives no entry, unless `keep_empty`
    (then every revision has one, in order)."""
    top = run_git(["rev-parse", "--show-toplevel"], start)
    if top is None or not revs:
        return []
    relative = directory.resolve().relative_to(Path(top).resolve()).as_posix()
    asked = [f"{rev}:{relative}/{name}" for rev in revs for name in names]
    texts = blob_texts(start, asked)
    if texts is None:
        return []
    found = []
    for at in range(0, len(asked), len(names)):
        found.append(dict(zip(names, texts[at : at + len(names)], strict=True)))
    if keep_empty:
        return found
    return [files for files in found if any(text is not None for text in files.values())]
