"""`validate` warns of a pattern whose Source cites an outcome ID no outcome holds, live or
archived (docs/decisions.md#unknown-sources)."""

from __future__ import annotations

from pathlib import Path

from support.gitrepos import add_outcome, add_pattern, memory_of
from support.processes import CLI, read_bytes_of

from legion_memory.upkeep.forgetting import forget

HINT = "(removed, or a typo: cite the outcome it came from, or describe it)"


def test_a_source_citing_no_outcome_is_a_warning_at_its_row(cli: CLI, repo: Path) -> None:
    """Live and archived patterns alike, each ID of a Source checked; an archived outcome and a
    description are no broken link. A warning: the exit code stays 0."""
    assert cli("init", cwd=repo).code == 0
    kept = add_outcome(repo, "kept", "main")
    archived = add_outcome(repo, "archived", "main")
    add_pattern(repo, "cites the live one", kept, "main")
    add_pattern(repo, "cites the archived one", archived, "main")
    add_pattern(repo, "cites one and a gone one", f"{kept} and O-009", "main")
    add_pattern(repo, "describes", 'outcome "gone" (feature, 2026-03-02)', "main")
    gone = add_pattern(repo, "archived, cites a gone one", "O-012", "main")
    forget(memory_of(repo), archived)
    forget(memory_of(repo), gone)
    before = read_bytes_of(repo)
    result = cli("validate", cwd=repo)
    assert (result.code, result.stdout) == (
        0,
        f".planning/memory/PATTERNS.md:12: warning: P-003 Source O-009 cites no outcome in "
        f"OUTCOMES.md or ARCHIVE.md {HINT}\n"
        f".planning/memory/ARCHIVE.md:16: warning: P-005 Source O-012 cites no outcome in "
        f"OUTCOMES.md or ARCHIVE.md {HINT}\n"
        "5 files checked, 0 errors, 2 other\n",
    )
    assert read_bytes_of(repo) == before


def test_files_given_without_the_outcomes_are_not_checked_for_it(cli: CLI, repo: Path) -> None:
    """The pre-commit hook names the files a commit changed: PATTERNS.md alone says nothing of
    the outcomes it cites."""
    assert cli("init", cwd=repo).code == 0
    add_pattern(repo, "cites a gone one", "O-009", "main")
    patterns = repo / ".planning" / "memory" / "PATTERNS.md"
    result = cli("validate", str(patterns), cwd=repo)
    assert (result.code, result.stdout) == (0, "1 file checked, 0 errors, 0 other\n")
