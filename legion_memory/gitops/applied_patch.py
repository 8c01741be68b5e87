"""The two sides of a patch `git am` applies, which no commit names: HEAD before the patch, and
the patch's own version of each memory file it changes (docs/decisions.md#applied-patch).

`git am -3` falls back to a 3-way merge when the patch does not apply as text, and the merge
driver renumbers the patch's colliding records; a file only the patch changed (PATTERNS.md) git
writes as the patch has it, citing the patch's numbers. While the post-applypatch hook runs,
`rebase-apply/patch` still holds the patch, whose `index <old>..<new>` lines name each file's
version before and after it: the 3-way fallback wrote the new blobs, so they can be read. A file
the patch does not change is on its side as the series' last earlier patch left it; and when the
repository holds the commit the patch was mailed from, that commit's memory is the patch's side.
"""

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, run_git
from legion_memory.gitops.cat_file import blob_texts
from legion_memory.gitops.hook_env import APPLIED_ENV, MAIL_AHEAD_ENV
from legion_memory.gitops.repository import Replay, files_of_commits
from legion_memory.gitops.running_git import commit_holding

# The first line `git format-patch` writes: the commit mailed, and a fixed date.
_FROM_COMMIT = re.compile(r"\AFrom ([0-9a-f]{40}|[0-9a-f]{64}) Mon Sep 17 00:00:00 2001$", re.M)
# A file's header in a patch, then (before the next file's) the blobs it changes between.
_CHANGED = re.compile(
    r"^diff --git a/\S+ b/(\S+)\n(?:(?!diff --git ).*\n)*?index [0-9a-f]+\.\.([0-9a-f]+)\b",
    re.MULTILINE,
)


def patch_being_applied(git_dir: Path) -> str | None:
    """The patch `git am` is applying; None when none is (a `rebase --apply` is no `am`)."""
    applying = git_dir / "rebase-apply"
    if not (applying / "applying").is_file():
        return None
    try:
        return (applying / "patch").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def changed_blobs(patch: str, folder: str, names: Sequence[str]) -> dict[str, str]:
    """Name -> the blob the patch leaves each of the files `names` of `folder` it changes as."""
    found = {}
    for path, blob in _CHANGED.findall(patch):
        where, _, name = path.rpartition("/")
        if where == folder and name in names:
            found[name] = blob
    return found


def files_of_applied_patch(
    start: Path, directory: Path, names: Sequence[str], *, committed: bool
) -> list[dict[str, str | None]]:
    """Ours (HEAD, or HEAD before the series once the patch is `committed`) and the patch's side,
    each the texts of the files `names` of `directory` (the patch's side None for a file it does
    not change or whose blob git lacks); [] when no patch is being applied or none of these
    files changes."""
    at_hand = _patch_at_hand(start, directory, names)
    if at_hand is None:
        return []
    applying, folder, blobs = at_hand
    ours = _ours(start, committed=committed)
    mailed = _mailed_commit(start, applying, folder, blobs) if blobs else None
    if mailed is not None:
        return files_of_commits(start, directory, [ours, mailed], names, keep_empty=True)
    if blobs:
        blobs = {**_series_blobs(applying, folder, names), **blobs}
    asked = [f"{ours}:{folder}/{name}" for name in names] + list(blobs.values())
    texts = blob_texts(start, asked) if blobs else None
    if texts is None:
        return []
    theirs = dict(zip(blobs, texts[len(names) :], strict=True))
    return [
        dict(zip(names, texts[: len(names)], strict=True)),
        {name: theirs.get(name) for name in names},
    ]


def sides_of_applied_patch(directory: Path, names: Sequence[str]) -> list[str]:
    """The commits whose history says what the patch `git am` is applying changes: ours (HEAD,
    or HEAD before the series once the post-applypatch hook names the patch committed) and the
    commit the patch was mailed from, when this repository holds it with the patch's version of
    each of the files `names` of the memory `directory` the patch changes (a series is weighed
    as picks of the branch it was mailed from); [] otherwise."""
    at_hand = _patch_at_hand(directory, directory, names)
    if at_hand is None:
        return []
    applying, folder, blobs = at_hand
    mailed = _mailed_commit(directory, applying, folder, blobs) if blobs else None
    if mailed is None:
        return []
    return [_ours(directory, committed=bool(os.environ.get(APPLIED_ENV, "").strip())), mailed]


def _patch_at_hand(
    start: Path, directory: Path, names: Sequence[str]
) -> tuple[Path, str, dict[str, str]] | None:
    """For the patch `git am` is applying: git's folder of the series (`rebase-apply`), the
    memory folder's path in the repository, and the blobs the patch leaves the files `names`
    as (`changed_blobs`); None when no patch is being applied."""
    git_dir = find_git_dir(start)
    patch = patch_being_applied(git_dir) if git_dir is not None else None
    top = run_git(["rev-parse", "--show-toplevel"], start) if patch else None
    if git_dir is None or patch is None or top is None:
        return None
    folder = directory.resolve().relative_to(Path(top).resolve()).as_posix()
    return git_dir / "rebase-apply", folder, changed_blobs(patch, folder, names)


def commit_being_mailed(start: Path, path: str, theirs: Path) -> str | None:
    """For the merge driver in `git am -3`'s 3-way fallback: the commit `git format-patch`
    mailed the patch from, when this repository holds it and its version of `path` (relative
    to the top of the working tree) is the bytes of `theirs`. The merge is then weighed as a
    pick of that commit (docs/decisions.md#applied-patch)."""
    git_dir = find_git_dir(start)
    applying = git_dir / "rebase-apply" if git_dir is not None else None
    if applying is None or not (applying / "applying").is_file():
        return None
    commit = _mailed_from(applying)
    return commit_holding(start, commit, path, theirs) if commit else None


def _mailed_commit(start: Path, applying: Path, folder: str, blobs: dict[str, str]) -> str | None:
    """The commit `git format-patch` mailed this patch from (its `From <hash> Mon Sep 17 ...`
    line), when this repository holds it and its version of every memory file the patch changes
    is the patch's: then its whole memory is the patch's side, the files the patch leaves alone
    included (a pattern citing an outcome an earlier commit stored)."""
    commit = _mailed_from(applying)
    if commit is None:
        return None
    named = run_git(["rev-parse", *(f"{commit}:{folder}/{name}" for name in blobs)], start)
    held = (named or "").split()
    if len(held) != len(blobs) or not all(
        whole.startswith(short) for whole, short in zip(held, blobs.values(), strict=True)
    ):
        return None
    return commit


def _mailed_from(applying: Path) -> str | None:
    """The hash on the `From <hash> Mon Sep 17 00:00:00 2001` line of the patch being applied,
    or of the later mail whose merge the post-applypatch hook foresees."""
    ahead = os.environ.get(MAIL_AHEAD_ENV, "").strip()
    number = int(ahead) if ahead.isdigit() else _current(applying)
    found = _FROM_COMMIT.match(_mail(applying, number) or "")
    return found.group(1) if found else None


def last_mailed(git_dir: Path) -> str | None:
    """The commit the last mail of the series `git am` is applying was mailed from (its `From
    <hash>` line); None outside `git am` or when the mail names none."""
    applying = git_dir / "rebase-apply"
    if not (applying / "applying").is_file():
        return None
    try:
        last = int((applying / "last").read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    found = _FROM_COMMIT.match(_mail(applying, last) or "")
    return found.group(1) if found else None


def replay_of_patches(start: Path, env: Mapping[str, str] | None = None) -> Replay | None:
    """The series of patches the post-applypatch hook names, as a replay, when the repository
    holds every commit its mails were mailed from: the commits it wrote since the series started
    and those mailed, as a pick of them would be (docs/decisions.md#replays-upstream-holds).
    None outside that hook, or when a mail names no commit the repository holds."""
    env = os.environ if env is None else env
    git_dir = find_git_dir(start)
    if not env.get(APPLIED_ENV) or git_dir is None:
        return None
    applying = git_dir / "rebase-apply"
    try:
        last = int((applying / "last").read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    found = [_FROM_COMMIT.match(_mail(applying, number) or "") for number in range(1, last + 1)]
    mailed = [match.group(1) for match in found if match]
    if len(mailed) != last:  # a mail that names no commit: nothing to ask git
        return None
    held = run_git(["rev-parse", *(f"{c}^{{commit}}" for c in mailed)], start)
    onto = _before_series(start)
    written = run_git(["rev-list", "--reverse", "--no-merges", f"{onto}..HEAD"], start)
    if held is None or not written:
        return None
    return Replay(onto, tuple(written.split()), tuple(mailed))


def _ours(start: Path, *, committed: bool) -> str:
    """HEAD while the patch is applied; once it is `committed`, HEAD before the series."""
    return _before_series(start) if committed else "HEAD"


def _before_series(start: Path) -> str:
    """Ours of a patch just committed: HEAD before the series, which `git am` keeps as
    ORIG_HEAD (the series is repaired once, after its last patch, so every patch of it is the
    patch side's), else HEAD's parent."""
    held = (run_git(["rev-parse", "-q", "--verify", "ORIG_HEAD^{commit}"], start) or "").strip()
    if not held or run_git(["merge-base", "--is-ancestor", held, "HEAD"], start) is None:
        return "HEAD^"
    return held


def _current(applying: Path) -> int:
    """The number of the patch `git am` is applying (0 when it cannot say)."""
    try:
        return int((applying / "next").read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return 0


def _mail(applying: Path, number: int) -> str | None:
    """The series' mail `number`: `git am` keeps each as `rebase-apply/0001`, `0002`, ..."""
    try:
        return (applying / f"{number:04d}").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _series_blobs(applying: Path, folder: str, names: Sequence[str]) -> dict[str, str]:
    """The patch's side of the files it does not change: as the last earlier patch of the
    series that changed each left it. A patch citing a record an earlier patch stored (a
    pattern's `Source`) means that patch's number, which the 3-way merge may have changed."""
    found: dict[str, str] = {}
    for number in range(_current(applying) - 1, 0, -1):
        missing = [name for name in names if name not in found]
        if not missing:
            break
        found.update(changed_blobs(_mail(applying, number) or "", folder, missing))
    return found
