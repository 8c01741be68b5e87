"""What `diff` does: memory changes between revisions, as markdown for a pull request; a plain
function of the Context and the command's arguments, run by the lean dispatcher."""

from __future__ import annotations

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit
from legion_memory.errors import GitError, InputError
from legion_memory.gitops.revisions import files_at, merge_base, resolve
from legion_memory.storage import reading


def diff(context: Context, revisions: list[str] | None = None) -> None:
    """Memory changes from REV (default: the merge base with the default branch) to the working
    tree, or between two revisions."""
    from legion_memory.gitops.memory_diff import FILE_NAMES, compare, render_markdown

    revisions = revisions or []
    if len(revisions) > 2:
        raise InputError("diff takes at most two revisions", hint="legion-memory diff REV [REV]")
    root, directory = context.root, context.memory.directory
    if revisions:
        old_label = old_rev = revisions[0]
    else:
        old_rev = merge_base(root, _default_ref(context), "HEAD")
        old_label = f"merge base with {context.default_branch}"
    old = files_at(root, old_rev, directory, FILE_NAMES)
    if len(revisions) == 2:
        new_label, new = revisions[1], files_at(root, revisions[1], directory, FILE_NAMES)
    else:
        new_label = "working tree"
        new = {name: reading.read_text(directory / name) for name in FILE_NAMES}
    shown = str(directory).replace(f"{root}/", "")
    result = compare(old, new, (old_label, new_label), shown)
    emit(context, result.to_json(), render_markdown(result))


def _default_ref(context: Context) -> str:
    """The default branch as a local branch, else as origin's."""
    name = context.default_branch
    for candidate in (name, f"origin/{name}"):
        try:
            resolve(context.root, candidate)
        except GitError:
            continue
        return candidate
    raise GitError(
        f"no branch '{name}' to compare with", hint="name a revision: legion-memory diff REV"
    )
