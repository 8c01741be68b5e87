"""`doctor --fix` lays out an ARCHIVE.md a line merge left with a doubled section or a row under
another kind's heading: one section per kind, every row under its own heading, nothing lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of

TODAY = ("--today", "2026-03-01")
PATTERNS_HEADER = (
    "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
    "|----|------|--------|---------|---------|----------------|--------|------|\n"
)
PREFERENCES_HEADER = (
    "| ID | Date | Branch | Decision Point | Context | Proposed | User Choice | Signal | Agent "
    "| Tags |\n"
    "|----|------|--------|---------------|---------|----------|-------------|--------|-------"
    "|------|\n"
)
P1 = "| P-001 | 2026-03-01 | main | p1 | c | r |  |  |\n"
P2 = "| P-002 | 2026-03-01 | main | p2 | c | r |  |  |\n"
D1 = "| D-001 | 2026-03-01 | main | review-verdict | c1 | p | accepted | positive | a |  |\n"
D2 = "| D-002 | 2026-03-01 | main | review-verdict | c2 | p | accepted | positive | a |  |\n"
D3 = "| D-003 | 2026-03-01 | main | review-verdict | c3 | p | accepted | positive | a |  |\n"


@pytest.fixture
def archive(cli: CLI, repo: Path) -> Path:
    """ARCHIVE.md as `forget` wrote it for P-001, P-002, D-001 and D-002 (D-003 stays live)."""
    for pattern in ("p1", "p2"):
        stored = cli(*TODAY, "store", "pattern", "--pattern", pattern, "--context", "c",
                     "--reuse", "r", cwd=repo)  # fmt: skip
        assert stored.code == 0, stored.stderr
    for context in ("c1", "c2", "c3"):
        stored = cli(*TODAY, "store", "preference", "--decision-point", "review-verdict",
                     "--context", context, "--proposed", "p", "--choice", "accepted",
                     "--signal", "positive", "--agent", "a", cwd=repo)  # fmt: skip
        assert stored.code == 0, stored.stderr
    for record_id in ("P-001", "P-002", "D-001", "D-002"):
        assert cli(*TODAY, "forget", record_id, cwd=repo).code == 0
    path = repo / ".planning" / "memory" / "ARCHIVE.md"
    assert path.read_text(encoding="utf-8").endswith(
        f"## Archived Patterns\n\n{PATTERNS_HEADER}{P1}{P2}\n"
        f"## Archived Preferences\n\n{PREFERENCES_HEADER}{D1}{D2}"
    )
    return path


def _damaged(archive: Path) -> str:
    """D-002 under the patterns' heading, and a second preferences section holding D-003's
    archived copy, as a line merge of two branches' forgets can leave them."""
    text = archive.read_text(encoding="utf-8")
    head = text[: text.index("## Archived Patterns")]
    damaged = (
        f"{head}## Archived Patterns\n\n{PATTERNS_HEADER}{P1}{P2}{D2}\n"
        f"## Archived Preferences\n\n{PREFERENCES_HEADER}{D1}\n"
        f"## Archived Preferences\n\n{PREFERENCES_HEADER}{D3}"
    )
    archive.write_text(damaged, encoding="utf-8")
    live = archive.parent / "PREFERENCES.md"
    live.write_text(live.read_text(encoding="utf-8").replace(D3, ""), encoding="utf-8")
    return head


def test_doctor_reports_and_repairs_the_layout(cli: CLI, repo: Path, archive: Path) -> None:
    head = _damaged(archive)
    before = read_bytes_of(repo)
    found = cli("doctor", cwd=repo)
    assert (found.code, found.stderr) == (1, "")
    assert found.stdout == (
        ".planning/memory/ARCHIVE.md:17: D-002 is a preference under '## Archived Patterns'\n"
        ".planning/memory/ARCHIVE.md:27: section '## Archived Preferences' appears again "
        "(first at line 21)\n"
        "2 problems need repair (run `legion-memory doctor --fix`)\n"
    )
    assert read_bytes_of(repo) == before
    fixed = cli("doctor", "--fix", cwd=repo)
    assert (fixed.code, fixed.stderr) == (0, "")
    assert fixed.stdout == (
        "repaired .planning/memory/ARCHIVE.md: one section per kind again, each row under its "
        "own kind's heading\nmemory repaired\n"
    )
    assert archive.read_text(encoding="utf-8") == (
        f"{head}## Archived Patterns\n\n{PATTERNS_HEADER}{P1}{P2}\n"
        f"## Archived Preferences\n\n{PREFERENCES_HEADER}{D2}{D1}{D3}"
    )
    assert cli("validate", cwd=repo).stdout == "3 files checked, 0 errors, 0 other\n"
    restored = cli("restore", "D-003", cwd=repo)
    assert restored.stdout == "restored D-003: ARCHIVE.md -> PREFERENCES.md (Preferences)\n"


def test_an_archive_not_in_the_tools_layout_is_left_to_a_person(
    cli: CLI, repo: Path, archive: Path
) -> None:
    text = archive.read_text(encoding="utf-8")
    archive.write_text(
        text.replace(P2, P2 + D2).replace(D1 + D2, D1) + "\nA note someone wrote by hand.\n",
        encoding="utf-8",
    )
    before = read_bytes_of(repo)
    fixed = cli("doctor", "--fix", cwd=repo)
    assert fixed.code == 1
    assert fixed.stdout.splitlines()[-2:] == [
        ".planning/memory/ARCHIVE.md:17: D-002 is a preference under '## Archived Patterns'",
        "1 problem needs repair",
    ]
    assert read_bytes_of(repo) == before
