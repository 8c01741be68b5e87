"""`git install [--uninstall]`: wire the merge driver and the repair hooks into a clone.

Four pieces, each added only when missing (so a second install changes nothing) and each removed
exactly by `--uninstall`:

- the `.gitattributes` line that routes memory files to the driver (committed, shared);
- the per-clone `merge.legion-memory.*` config that defines the driver (never committed);
- `pull.octopus` naming the octopus strategy that runs the driver (`gitops/octopus.py`), where
  its program is on PATH and no other octopus strategy is configured, and `am.threeWay`, so that
  `git am` merges a patch that does not apply as text through the driver, where the clone does
  not set it (never committed);
- `post-merge`, `post-rewrite`, `post-applypatch` (`git am`) and `post-commit` hooks running
  `doctor --fix --quiet` (post-commit only for a cherry-pick, a revert, or the commit concluding
  a stopped merge), and a `pre-push` hook that commits the repair a sequence of picks ended with
  `cherry-pick --skip` left, before the push would spread it, and a `post-checkout` hook that
  makes git run `post-rewrite` after a rebase with nothing to replay. A hook that is already
  there is moved aside to `<hook>.legion-memory-chained` and run first by ours, with the same
  arguments and input; uninstalling moves it back, bytes and mode untouched.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from legion_memory.errors import GitError
from legion_memory.gitops.applied_stash import APPLIED_STASH_NAME
from legion_memory.gitops.folded_commits import FOLDED_NAME
from legion_memory.gitops.hook_env import PICK_SEQUENCE_NAME
from legion_memory.gitops.octopus import PROGRAM, STRATEGY
from legion_memory.gitops.repository import (
    config_get,
    config_remove_section,
    config_set,
    config_unset,
    git_path,
    toplevel,
)
from legion_memory.markdown.document import split_lines, strip_ending
from legion_memory.schema.kinds import ARCHIVE_FILENAME, KINDS

ATTRIBUTE = ".planning/memory/*.md merge=legion-memory"
DRIVER = "merge.legion-memory"
DRIVER_NAME = "legion-memory: row-aware merge of .planning/memory tables"
HOOKS = (
    "post-merge",
    "post-rewrite",
    "post-commit",
    "post-applypatch",
    "pre-push",
    "post-checkout",
)
HOOK_MARK = "# legion-memory hook"
# Raised whenever the hooks' text changes in a way an installed clone must pick up: a hook of
# ours without it tells the hook run to ask for `git install` again (`cli.lean.hook`).
HOOK_FORMAT = "# legion-memory hook format 21"
CHAINED = ".legion-memory-chained"
DEFAULT_COMMAND = "legion-memory"
OCTOPUS = "pull.octopus"
THREE_WAY_AM = "am.threeWay"
# Whether install set am.threeWay: a value the user set alike must survive --uninstall.
THREE_WAY_AM_SET = f"{DRIVER}.setThreeWayAm"

# The hook's shell text, with {placeholders} filled by `hook_script` (braces doubled).
_HOOK = (Path(__file__).parent / "hook.sh").read_text(encoding="utf-8")


def hook_script(name: str, command: str) -> str:
    return _HOOK.format(
        mark=HOOK_MARK,
        format=HOOK_FORMAT,
        name=name,
        chained=CHAINED,
        command=command,
        driver=DRIVER,
        driver_attribute=DRIVER.removeprefix("merge."),
        applied_stash=APPLIED_STASH_NAME,
        pick_sequence=PICK_SEQUENCE_NAME,
        folded=FOLDED_NAME,
        tables=" ".join(
            f".planning/memory/{name}"
            for name in (*(kind.filename for kind in KINDS.values()), ARCHIVE_FILENAME)
        ),
        prefixes="".join(kind.prefix for kind in KINDS.values()),
    )


def driver_command(command: str) -> str:
    """The driver, and git's own line merge with markers should it not run at all (not on PATH,
    broken install): both sides present, never ours alone (docs/decisions.md#merge-fails-safe)."""
    return (
        f"{command} git merge-driver %O %A %B %L %P && exit 0; "
        "grep -q '^<<<<<<<' %A || git merge-file -L ours -L base -L theirs --marker-size=%L "
        "%A %O %B; exit 1"
    )


def install(start: Path, command: str = DEFAULT_COMMAND) -> list[str]:
    """Install what is missing; returns what changed (nothing when already installed)."""
    top = toplevel(start)
    done = _add_attribute(top / ".gitattributes")
    for key, value in (("name", DRIVER_NAME), ("driver", driver_command(command))):
        if config_get(top, f"{DRIVER}.{key}") != value:
            config_set(top, f"{DRIVER}.{key}", value)
            done.append(f"set git config {DRIVER}.{key}")
    done += _install_octopus(top)
    done += _install_three_way_am(top)
    hooks = git_path(top, "hooks")
    for name in HOOKS:
        done += _install_hook(hooks, name, hook_script(name, command), top)
    return done


def uninstall(start: Path) -> list[str]:
    """Remove what install added and put chained hooks back; returns what changed."""
    top = toplevel(start)
    done = _remove_attribute(top / ".gitattributes")
    if config_get(top, THREE_WAY_AM_SET) == "true":
        if config_get(top, THREE_WAY_AM) == "true":
            config_unset(top, THREE_WAY_AM)
            done.append(f"removed git config {THREE_WAY_AM}")
        config_unset(top, THREE_WAY_AM_SET)
    if any(config_get(top, f"{DRIVER}.{key}") is not None for key in ("driver", "name")):
        config_remove_section(top, DRIVER)
        done.append(f"removed git config {DRIVER}")
    if config_get(top, OCTOPUS) == STRATEGY:
        config_unset(top, OCTOPUS)
        done.append(f"removed git config {OCTOPUS}")
    hooks = git_path(top, "hooks")
    for name in HOOKS:
        done += _uninstall_hook(hooks, name, top)
    return done


def _install_octopus(top: Path) -> list[str]:
    """Octopus merges through the strategy that runs the driver, when git can start it (it
    must be on PATH) and the clone names no octopus strategy of its own; else git's octopus
    stays, which refuses memory files several branches changed
    (docs/decisions.md#octopus-merges)."""
    if config_get(top, OCTOPUS) is not None or shutil.which(PROGRAM) is None:
        return []
    config_set(top, OCTOPUS, STRATEGY)
    return [f"set git config {OCTOPUS} {STRATEGY}"]


def _install_three_way_am(top: Path) -> list[str]:
    """`git am` falls back to a 3-way merge, which runs the driver, where a patch does not apply
    as text (a record stored on both sides after the same row), instead of stopping for a person;
    a clone that sets `am.threeWay` itself keeps its value (docs/decisions.md#applied-patch)."""
    if config_get(top, THREE_WAY_AM) is not None:
        return []
    config_set(top, THREE_WAY_AM, "true")
    config_set(top, THREE_WAY_AM_SET, "true")
    return [f"set git config {THREE_WAY_AM} true"]


def _shown(path: Path, top: Path) -> str:
    try:
        return str(path.relative_to(top))
    except ValueError:
        return str(path)


def _read_attributes(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8") if path.exists() else ""
    except UnicodeDecodeError as exc:
        raise GitError("file is not valid UTF-8", where=str(path), hint="edit it by hand") from exc


def _add_attribute(path: Path) -> list[str]:
    text = _read_attributes(path)
    lines = split_lines(text)
    if any(strip_ending(line).strip() == ATTRIBUTE for line in lines):
        return []
    if text and not text.endswith("\n"):
        # No final newline: ours goes last without one too, so removing it restores the bytes.
        text += _ending(lines) + ATTRIBUTE
    else:
        text += ATTRIBUTE + _ending(lines)
    path.write_bytes(text.encode("utf-8"))
    return [f"added `{ATTRIBUTE}` to .gitattributes"]


def _remove_attribute(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = split_lines(_read_attributes(path))
    index = next(
        (i for i, line in enumerate(lines) if strip_ending(line).strip() == ATTRIBUTE), None
    )
    if index is None:
        return []
    removed = lines.pop(index)
    if strip_ending(removed) == removed and lines:
        lines[-1] = strip_ending(lines[-1])  # install added that line break before ours
    if lines:
        path.write_bytes("".join(lines).encode("utf-8"))
    else:
        path.unlink()
    return [f"removed `{ATTRIBUTE}` from .gitattributes"]


def _ending(lines: list[str]) -> str:
    return "\r\n" if lines and lines[0].endswith("\r\n") else "\n"


def _is_ours(hook: Path) -> bool:
    try:
        return HOOK_MARK in hook.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _install_hook(hooks: Path, name: str, script: str, top: Path) -> list[str]:
    hook, chained = hooks / name, hooks / (name + CHAINED)
    if _is_ours(hook):
        if hook.read_text(encoding="utf-8") == script:
            return []
        _write_hook(hook, script)
        return [f"updated {_shown(hook, top)}"]
    note = ""
    if hook.exists() or hook.is_symlink():
        if chained.exists() or chained.is_symlink():
            raise GitError(
                f"both {name} and {chained.name} exist",
                where=str(hooks),
                hint=f"move {chained.name} away, then install again",
            )
        hook.rename(chained)
        note = f" (the existing hook still runs first, kept as {chained.name})"
    hooks.mkdir(parents=True, exist_ok=True)
    _write_hook(hook, script)
    return [f"installed {_shown(hook, top)}{note}"]


def _write_hook(hook: Path, script: str) -> None:
    hook.write_text(script, encoding="utf-8")
    mode = hook.stat().st_mode
    hook.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _uninstall_hook(hooks: Path, name: str, top: Path) -> list[str]:
    hook, chained = hooks / name, hooks / (name + CHAINED)
    if not _is_ours(hook):
        return []
    hook.unlink()
    done = [f"removed {_shown(hook, top)}"]
    if chained.exists() or chained.is_symlink():
        chained.rename(hook)
        done.append(f"restored the previous {name} hook")
    return done
