"""`git am`: a patch of memory applied by a 3-way merge, whose side no commit names."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
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
