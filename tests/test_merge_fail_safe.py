"""The merge driver fails safe: a side it cannot read, or a driver that cannot run, is a conflict
with both sides present, never a silent "ours only"."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import add_outcome, commit, init_memory, outcome_row, run_git
from support.processes import git, run_process

from legion_memory.gitops.install import driver_command
from legion_memory.schema.kinds import OUTCOME

BASE = OUTCOME.template() + outcome_row(1, "one")
OURS = BASE + outcome_row(2, "ours")
THEIRS = BASE + outcome_row(2, "theirs", "feature")


def _drive(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[int, str, bytes]:
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_bytes(data)
    done = run_process(
        "git", "merge-driver", "base", "ours", "theirs", "7", "OUTCOMES.md", cwd=tmp_path
    )
    return done.code, done.stderr, (tmp_path / "ours").read_bytes()


@pytest.mark.parametrize(
    ("side", "data", "why"),
    [
        ("theirs", THEIRS.encode().replace(b"| theirs |", b"| th\xe9irs |"), "theirs is not UTF-8"),
        ("theirs", THEIRS.encode("utf-16"), "theirs is not UTF-8 text"),
        (
            "ours",
            (BASE + "<<<<<<< HEAD\n" + outcome_row(2, "a") + "=======\n" + ">>>>>>> x\n").encode(),
            "ours already holds a conflict marker at line 11",
        ),
        ("theirs", (BASE + "| O-002 | 2026-03-01 | short |\n").encode(), "theirs line 11 has 3"),
    ],
)
def test_a_side_the_driver_cannot_read_is_a_conflict_with_both_sides(
    tmp_path: Path, side: str, data: bytes, why: str
) -> None:
    sides = {"base": BASE.encode(), "ours": OURS.encode(), "theirs": THEIRS.encode(), side: data}
    code, stderr, result = _drive(tmp_path, sides["base"], sides["ours"], sides["theirs"])
    assert code == 1
    assert stderr.startswith(f"legion-memory: cannot merge OUTCOMES.md: {why}")
    assert stderr.endswith(
        "both sides are left between conflict markers (fix the file, then `git add` it)\n"
    )
    ours_bytes, theirs_bytes = sides["ours"], sides["theirs"]
    closed = theirs_bytes if theirs_bytes.endswith(b"\n") else theirs_bytes + b"\n"
    assert result == b"<<<<<<< ours\n" + ours_bytes + b"=======\n" + closed + b">>>>>>> theirs\n"


def test_a_driver_not_on_path_leaves_git_merge_file_markers_with_both_sides(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "config", "merge.legion-memory.driver", driver_command("legion-memory-missing"))
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "on feature", "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "on main", "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 1
    text = (repo / ".planning" / "memory" / "OUTCOMES.md").read_text(encoding="utf-8")
    assert "<<<<<<< ours\n" in text and "| on main |\n=======\n" in text
    assert "| on feature |\n>>>>>>> theirs\n" in text
    assert "CONFLICT (content): Merge conflict in .planning/memory/OUTCOMES.md" in done.stdout


def test_the_hook_says_in_one_line_when_the_driver_is_not_configured(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "config", "--remove-section", "merge.legion-memory")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "on feature", "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0
    assert done.stderr == (
        "legion-memory: the merge driver is not configured in this clone; "
        "run: legion-memory git install\n"
    )


def test_a_base_holding_a_conflict_of_git_s_merge_of_the_merge_bases_is_their_union(
    tmp_path: Path,
) -> None:
    """Branches that merged each other have several merge bases; git merges those first, and a
    conflict there stays in the base it gives the driver. Both sides descend from both bases, so
    the base is read as the union of the conflict's sides: `y`, which neither side holds, is
    gone from both, and the sides' own records merge as usual (seed 7115 of the collaboration
    simulation's `--rewrite-kinds`: an octopus merge left ERRORS.md conflicted whole)."""
    virtual = (
        BASE
        + "<<<<<<< Temporary merge branch 1\n"
        + outcome_row(2, "x")
        + "=======\n"
        + outcome_row(2, "y", "feature")
        + ">>>>>>> Temporary merge branch 2\n"
    )
    ours = BASE + outcome_row(2, "x") + outcome_row(3, "ours")
    theirs = BASE + outcome_row(2, "x") + outcome_row(3, "theirs", "feature")

    code, stderr, result = _drive(tmp_path, virtual.encode(), ours.encode(), theirs.encode())

    assert (code, stderr) == (
        0,
        "legion-memory: merged OUTCOMES.md: 1 new row from ours, 1 from theirs, 0 identical on "
        "both sides\nlegion-memory: OUTCOMES.md: theirs O-003 renumbered to O-004\n",
    )
    assert result.decode() == ours + outcome_row(4, "theirs", "feature")
