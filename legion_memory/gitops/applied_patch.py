"""The two sides of a patch `git am` applies, which no commit names: HEAD before the patch, and
the patch's own version of each memory file it changes (docs/decisions.md#applied-patch).

`git am -3` falls back to a 3-way merge when the patch does not apply as text, and the merge
driver renumbers the patch's colliding records; a file only the patch changed (PATTERNS.md) git
writes as the patch has it, citing the patch's numbers. While the post-applypatch hook runs,
`rebase-apply/patch` still holds the patch, whose `index <old>..<new>` lines name each file's
version before and after it: the 3-way fallback wrote the new blobs, so they can be read.
"""

import re
from collections.abc import Sequence
from pathlib import Path

from legion_memory.gitops.branch import find_git_dir, run_git
from legion_memory.gitops.cat_file import blob_texts

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
    """Ours (HEAD, or HEAD^ once the patch is `committed`) and the patch's side, each the texts of
    the files `names` of `directory` (the patch's side None for a file it does not change or
    whose blob git lacks); [] when no patch is being applied or none of these files changes."""
    git_dir = find_git_dir(start)
    patch = patch_being_applied(git_dir) if git_dir is not None else None
    top = run_git(["rev-parse", "--show-toplevel"], start) if patch else None
    if patch is None or top is None:
        return []
    folder = directory.resolve().relative_to(Path(top).resolve()).as_posix()
    blobs = changed_blobs(patch, folder, names)
    ours = "HEAD^" if committed else "HEAD"
    asked = [f"{ours}:{folder}/{name}" for name in names] + list(blobs.values())
    texts = blob_texts(start, asked) if blobs else None
    if texts is None:
        return []
    theirs = dict(zip(blobs, texts[len(names) :], strict=True))
    return [
        dict(zip(names, texts[: len(names)], strict=True)),
        {name: theirs.get(name) for name in names},
    ]
