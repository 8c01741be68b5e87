"""`git am`: a patch of memory applied by a 3-way merge, whose side no commit names."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    feature_pattern_and_main_outcome,
    init_memory,
    rows,
    run_git,
    sources,
)
from support.processes import git

from legion_memory.gitops.applied_patch import changed_blobs


def test_a_patch_s_pattern_follows_its_outcome_the_3_way_merge_renumbered(
    repo: Path, tmp_path: Path
) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "branch record", "feature")
    add_pattern(repo, "branch pattern", cited, "feature")
    commit(repo, "branch outcome and pattern")
    patches = tmp_path / "patches"
    git(repo, "format-patch", "-q", "-1", "-o", str(patches))
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")

    applied = run_git(repo, "am", "-3", *sorted(str(p) for p in patches.iterdir()))

    assert applied.returncode == 0, applied.stderr
    # The patch's O-001 collided with main's and became O-002: its pattern cites it there.
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert "repaired .planning/memory/PATTERNS.md:10: P-001 Source O-001 -> O-002" in (
        applied.stderr
    )
    subjects = git(repo, "log", "--format=%s", "-2").splitlines()
    assert subjects == [
        "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)",
        "branch outcome and pattern",
    ]
    assert_healthy(repo)


def test_plain_git_am_of_a_store_main_made_too_merges_through_the_driver(
    repo: Path, tmp_path: Path
) -> None:
    """`git am` without `-3` applies a patch as text or stops: a record stored on both sides
    (each after the same last row) stopped it, "patch does not apply", for a person to resolve.
    `git install` sets `am.threeWay`, so it falls back to the 3-way merge the driver makes."""
    feature_pattern_and_main_outcome(repo)
    git(repo, "format-patch", "-q", "main..feature", "-o", str(tmp_path / "mail"))
    assert git(repo, "config", "--get", "am.threeWay") == "true\n"

    applied = run_git(repo, "am", *sorted(str(p) for p in (tmp_path / "mail").iterdir()))

    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)


PATCH = """\
diff --git a/.planning/memory/OUTCOMES.md b/.planning/memory/OUTCOMES.md
index 89c381d..e671f69 100644
--- a/.planning/memory/OUTCOMES.md
+++ b/.planning/memory/OUTCOMES.md
@@ -9,0 +10 @@
+| O-002 | ... |
diff --git a/src/index b/src/index
new file mode 100644
index 0000000..3280484
diff --git a/.planning/memory/PATTERNS.md b/.planning/memory/PATTERNS.md
index 3280484..086e592
"""


def test_the_blobs_a_patch_leaves_memory_files_as_are_read_from_its_index_lines() -> None:
    names = ["OUTCOMES.md", "PATTERNS.md", "ERRORS.md"]
    assert changed_blobs(PATCH, ".planning/memory", names) == {
        "OUTCOMES.md": "e671f69",
        "PATTERNS.md": "086e592",
    }
    assert changed_blobs(PATCH, "elsewhere/memory", names) == {}


def _mail_series(repo: Path, mbox: Path, *, from_line: str | None = None) -> None:
    mailed = git(repo, "format-patch", "--stdout", "main..feature")
    if from_line is not None:  # a mail of a commit this repository does not hold
        mailed = "\n".join(
            from_line if line.startswith("From ") and line.endswith(" 2001") else line
            for line in mailed.split("\n")
        )
    mbox.write_text(mailed, encoding="utf-8")


@pytest.mark.parametrize("mailed_from", ["held", "unknown"])
def test_a_series_is_repaired_once_after_its_last_patch_whichever_commit_mailed_it(
    repo: Path, tmp_path: Path, mailed_from: str
) -> None:
    """A repair committed mid-way through a series would be undone by the next patch's commit
    (`git am` holds the index): the last patch's hook repairs. The pattern's patch leaves
    OUTCOMES.md alone: its side is the commit it was mailed from when the repository holds it,
    else OUTCOMES.md as the series' first patch left it."""
    feature_pattern_and_main_outcome(repo, then_on_feature="later branch record")
    mbox = tmp_path / "series.mbox"
    unknown = "From " + "1" * 40 + " Mon Sep 17 00:00:00 2001"
    _mail_series(repo, mbox, from_line=unknown if mailed_from == "unknown" else None)

    applied = run_git(repo, "am", "-3", str(mbox))

    assert applied.returncode == 0, applied.stderr
    # The 3-way merge places the renumbered row first, as a text merge would.
    assert rows(repo) == [
        ("O-002", "feature", "branch record"),
        ("O-001", "main", "main record"),
        ("O-003", "feature", "later branch record"),
    ]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert applied.stderr.count("committed the repair of .planning/memory") == 1
    subjects = git(repo, "log", "--format=%s", "-4").splitlines()
    assert subjects == [
        "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)",
        "later outcome",
        "branch pattern",
        "branch outcome",
    ]
    assert_healthy(repo)


def test_a_lone_pattern_patch_cites_the_outcome_its_mailed_commit_meant(
    repo: Path, tmp_path: Path
) -> None:
    """main picked feature's outcome before, under its own next number; feature's pattern,
    citing that outcome by feature's number, is then mailed alone. The patch applies as text
    (no driver runs, no log is left) and leaves OUTCOMES.md alone, and no earlier patch of its
    series says what it held: the commit it was mailed from, which this repository holds, does.
    The hook's repair used to find the memory clean and leave the pattern citing main's record."""
    feature_pattern_and_main_outcome(repo)
    assert run_git(repo, "cherry-pick", "feature~1").returncode == 0
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    mbox = tmp_path / "pattern.mbox"
    mbox.write_text(git(repo, "format-patch", "--stdout", "-1", "feature"), encoding="utf-8")

    applied = run_git(repo, "am", "-3", str(mbox))

    assert applied.returncode == 0, applied.stderr
    assert "repaired .planning/memory/PATTERNS.md:10: P-001 Source O-001 -> O-002" in (
        applied.stderr
    )
    assert sources(repo) == {"branch pattern": "O-002"}
    assert git(repo, "log", "--format=%s", "-2").splitlines() == [
        "Repair .planning/memory after post-applypatch (legion-memory doctor --fix)",
        "branch pattern",
    ]
    assert_healthy(repo)
