"""`doctor [--fix] [--quiet]`: what arrives without the merge driver, found and repaired."""

from __future__ import annotations

import json
from pathlib import Path

from support.gitrepos import outcome_row, pattern_row
from support.processes import CLI, read_bytes_of

from legion_memory.schema.kinds import OUTCOME, PATTERN, archive_template
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.doctor import CHECKS, Check, doctor
from legion_memory.upkeep.finding import Finding
from legion_memory.upkeep.renumbering import memory_files

HEAD = OUTCOME.template()
MEMORY = Path(".planning/memory")


def _write(repo: Path, name: str, text: str) -> Path:
    path = repo / MEMORY / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _run(cli: CLI, repo: Path, *args: str) -> tuple[int, str, str]:
    result = cli(*args, cwd=repo)
    return result.code, result.stdout, result.stderr


def _read(repo: Path, name: str) -> str:
    return (repo / MEMORY / name).read_text(encoding="utf-8")


def test_healthy_memory(cli: CLI, repo: Path) -> None:
    cli("init", cwd=repo)
    assert _run(cli, repo, "doctor") == (0, "memory is healthy\n", "")
    before = read_bytes_of(repo)
    assert _run(cli, repo, "doctor", "--fix", "--quiet") == (0, "", "")
    assert _run(cli, repo, "doctor", "--quiet") == (0, "", "")
    assert read_bytes_of(repo) == before


CONFLICTED = (
    HEAD
    + outcome_row(1, "one")
    + "<<<<<<< HEAD\n"
    + outcome_row(2, "ours", "main")
    + "||||||| base\n"
    + "=======\n"
    + outcome_row(2, "theirs", "feature")
    + ">>>>>>> feature\n"
)


def test_conflict_markers_are_reported_and_nothing_changes(cli: CLI, repo: Path) -> None:
    _write(repo, "OUTCOMES.md", CONFLICTED)
    before = read_bytes_of(repo)
    result = cli("doctor", cwd=repo)
    assert result.code == 1
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md:11: git conflict markers (--fix keeps both sides)\n"
        "1 problem needs repair (run `legion-memory doctor --fix`)\n"
    )
    assert read_bytes_of(repo) == before


def test_fix_keeps_both_sides_then_renumbers_the_later_duplicate(cli: CLI, repo: Path) -> None:
    _write(repo, "OUTCOMES.md", CONFLICTED)
    result = cli("doctor", "--fix", cwd=repo)
    assert result.code == 0
    assert result.stdout == (
        "repaired .planning/memory/OUTCOMES.md: resolved conflict markers, both sides kept\n"
        "repaired .planning/memory/OUTCOMES.md:11: renumbered duplicate O-002 to O-003\n"
        "memory repaired\n"
    )
    # Same date: `feature` sorts before `main`, so the row from `main` is renumbered.
    expected = (
        HEAD + outcome_row(1, "one") + outcome_row(3, "ours") + outcome_row(2, "theirs", "feature")
    )
    assert _read(repo, "OUTCOMES.md") == expected
    assert _run(cli, repo, "doctor", "--fix") == (0, "memory is healthy\n", "")


def test_rows_both_sides_hold_identically_are_kept_once(cli: CLI, repo: Path) -> None:
    same = outcome_row(2, "same")
    text = HEAD + "<<<<<<< HEAD\n" + same + "=======\n" + same + outcome_row(3, "x") + ">>>>>>> b\n"
    _write(repo, "OUTCOMES.md", text)
    assert cli("doctor", "--fix", "--quiet", cwd=repo).code == 0
    assert _read(repo, "OUTCOMES.md") == HEAD + same + outcome_row(3, "x")


def test_a_conflict_never_closed_is_left_for_a_human(cli: CLI, repo: Path) -> None:
    _write(repo, "OUTCOMES.md", HEAD + "<<<<<<< HEAD\n" + outcome_row(1, "one"))
    before = read_bytes_of(repo)
    result = cli("doctor", "--fix", cwd=repo)
    assert result.code == 1
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md:10: conflict marker never closed (resolve it by hand)\n"
        "1 problem needs repair\n"
    )
    assert read_bytes_of(repo) == before


def test_leftover_markers_are_reported_on_their_own_and_left_alone(cli: CLI, repo: Path) -> None:
    """A hand resolution that kept a separator or a closing marker: which lines were whose is
    gone, so doctor reports each and leaves it; validate names it too."""
    leftover = outcome_row(2, "a") + "=======\n" + outcome_row(3, "b") + ">>>>>>> feature\n"
    _write(repo, "OUTCOMES.md", HEAD + outcome_row(1, "one") + leftover)
    _write(repo, "PATTERNS.md", PATTERN.template() + ">>>>>>> feature\n")
    before = read_bytes_of(repo)
    result = cli("doctor", "--fix", cwd=repo)
    assert result.code == 1
    assert result.stdout == (
        ".planning/memory/OUTCOMES.md:12: leftover conflict marker '=======' (remove it by hand)\n"
        ".planning/memory/OUTCOMES.md:14: leftover conflict marker '>>>>>>>' (remove it by hand)\n"
        ".planning/memory/PATTERNS.md:10: leftover conflict marker '>>>>>>>' (remove it by hand)\n"
        "3 problems need repair\n"
    )
    assert read_bytes_of(repo) == before
    checked = cli("validate", cwd=repo).stdout.splitlines()
    assert (
        ".planning/memory/OUTCOMES.md:14: error: leftover git conflict marker (remove it by hand)"
        in checked
    )
    assert (
        ".planning/memory/PATTERNS.md:10: error: leftover git conflict marker (remove it by hand)"
        in checked
    )


def test_duplicates_across_live_and_archive(cli: CLI, repo: Path) -> None:
    _write(
        repo, "ARCHIVE.md", archive_template() + outcome_row(1, "archived") + outcome_row(2, "two")
    )
    live = HEAD + outcome_row(1, "new, same id") + outcome_row(2, "two") + outcome_row(3, "three")
    _write(repo, "OUTCOMES.md", live)
    result = cli("doctor", cwd=repo)
    assert result.stdout.splitlines() == [
        ".planning/memory/OUTCOMES.md:11: O-002 is live and archived at once (archived at "
        ".planning/memory/ARCHIVE.md:11)",
        ".planning/memory/OUTCOMES.md:10: duplicate ID O-001 (first at "
        ".planning/memory/ARCHIVE.md:10)",
        "2 problems need repair (run `legion-memory doctor --fix`)",
    ]
    assert cli("doctor", "--fix", "--quiet", cwd=repo).code == 0
    # The resurrected copy of an archived row goes; the different record gets the next ID.
    assert _read(repo, "OUTCOMES.md") == HEAD + outcome_row(4, "new, same id") + outcome_row(
        3, "three"
    )
    assert _read(repo, "ARCHIVE.md") == archive_template() + outcome_row(
        1, "archived"
    ) + outcome_row(2, "two")


def test_sources_follow_the_outcome_of_their_own_branch(cli: CLI, repo: Path) -> None:
    _write(
        repo,
        "OUTCOMES.md",
        HEAD + outcome_row(1, "main o", "main") + outcome_row(1, "feat o", "feature"),
    )
    patterns = (
        PATTERN.template()
        + pattern_row(1, "feature p", "O-001", "feature")
        + pattern_row(2, "main p", "O-001, and O-007", "main")
    )
    _write(repo, "PATTERNS.md", patterns)
    assert cli("doctor", "--fix", cwd=repo).stdout.splitlines() == [
        "repaired .planning/memory/OUTCOMES.md:10: renumbered duplicate O-001 to O-002",
        "repaired .planning/memory/PATTERNS.md:11: "
        "P-002 Source O-001, and O-007 -> O-002, and O-007",
        "memory repaired",
    ]
    assert _read(repo, "PATTERNS.md") == patterns.replace(
        pattern_row(2, "main p", "O-001, and O-007", "main"),
        pattern_row(2, "main p", "O-002, and O-007", "main"),
    )


def test_on_one_branch_name_a_renumbered_pattern_follows_the_renumbered_outcome(
    cli: CLI, repo: Path
) -> None:
    """Two clones both on main: the branch tells nothing, the union order does."""
    _write(repo, "OUTCOMES.md", HEAD + outcome_row(1, "mine") + outcome_row(1, "yours"))
    _write(
        repo,
        "PATTERNS.md",
        PATTERN.template() + pattern_row(1, "mine", "O-001") + pattern_row(1, "yours", "O-001"),
    )
    assert cli("doctor", "--fix", "--quiet", cwd=repo).code == 0
    assert _read(repo, "PATTERNS.md") == (
        PATTERN.template() + pattern_row(1, "mine", "O-001") + pattern_row(2, "yours", "O-002")
    )


def test_json_report(cli: CLI, repo: Path) -> None:
    _write(repo, "OUTCOMES.md", HEAD + outcome_row(1, "a") + outcome_row(1, "b"))
    result = cli("--json", "doctor", cwd=repo)
    assert result.code == 1
    duplicate = (
        ".planning/memory/OUTCOMES.md:11: duplicate ID O-001 "
        "(first at .planning/memory/OUTCOMES.md:10)"
    )
    assert json.loads(result.stdout) == {
        "found": [duplicate],
        "repaired": [],
        "remaining": [duplicate],
    }


def test_checks_are_a_list_one_more_is_one_entry(repo: Path) -> None:
    memory = Memory.of_project(repo)
    journal = memory.directory / "leftover.journal"
    journal.parent.mkdir(parents=True)
    journal.write_text("x", encoding="utf-8")

    def find(memory: Memory) -> list[Finding]:
        return [Finding(str(journal), "leftover journal")] if journal.exists() else []

    def repair(memory: Memory) -> list[str]:
        journal.unlink()
        return ["rolled back"]

    checks = (*CHECKS, Check("leftover journal", find, repair))
    assert doctor(memory, checks=checks).remaining == (Finding(str(journal), "leftover journal"),)
    fixed = doctor(memory, fix=True, checks=checks)
    assert (fixed.repaired, fixed.remaining) == (("rolled back",), ())
    assert memory_files(memory)[-1] == memory.archive


def _log(repo: Path, *entries: dict[str, str]) -> Path:
    log = repo / ".git" / "legion-memory-merges.jsonl"
    log.write_text("".join(json.dumps(entry) + "\n" for entry in entries) + "torn {\n")
    return log


def test_the_merge_log_makes_arrived_patterns_follow_on_one_branch_name(
    cli: CLI, repo: Path
) -> None:
    """Both sides on `main`: only the log tells which pattern came with the renumbered row."""
    ours_o, theirs_o = outcome_row(4, "ours"), outcome_row(5, "theirs")
    _write(repo, "OUTCOMES.md", HEAD + ours_o + theirs_o)
    ours_p, theirs_p = pattern_row(1, "ours", "O-004"), pattern_row(2, "theirs", "O-004")
    _write(repo, "PATTERNS.md", PATTERN.template() + ours_p + theirs_p)
    log = _log(
        repo,
        {"file": "PATTERNS.md", "id": "P-002", "was": "P-001", "row": theirs_p.rstrip("\n")},
        {"file": "OUTCOMES.md", "id": "O-005", "was": "O-004", "row": theirs_o.rstrip("\n")},
        {"file": "OUTCOMES.md", "id": "O-009", "was": "O-001", "row": "| O-009 | gone |"},
    )
    assert cli("doctor", cwd=repo).stdout.splitlines() == [
        ".planning/memory/PATTERNS.md:11: P-002 Source O-004 should read O-005 (renumbered)",
        "1 problem needs repair (run `legion-memory doctor --fix`)",
    ]
    assert cli("doctor", "--fix", "--quiet", cwd=repo).code == 0
    assert _read(repo, "PATTERNS.md") == (
        PATTERN.template() + ours_p + pattern_row(2, "theirs", "O-005")
    )
    assert not log.exists()


def test_a_stale_merge_log_changes_nothing_and_is_dropped_by_fix(cli: CLI, repo: Path) -> None:
    _write(repo, "OUTCOMES.md", HEAD + outcome_row(4, "four"))
    _write(repo, "PATTERNS.md", PATTERN.template() + pattern_row(1, "p", "O-004"))
    log = _log(repo, {"file": "OUTCOMES.md", "id": "O-005", "was": "O-004", "row": "| O-005 |"})
    before = read_bytes_of(repo)
    assert cli("doctor", cwd=repo).stdout == "memory is healthy\n"
    assert cli("doctor", "--fix", cwd=repo).stdout == "memory is healthy\n"
    assert read_bytes_of(repo) == before
    assert not log.exists()


def test_one_cheap_scan_tells_clean_memory_and_nothing_else(repo: Path) -> None:
    from legion_memory.upkeep import clean_scan

    memory = Memory.of_project(repo)

    def looks_clean(memory: Memory) -> bool:
        return clean_scan.memory_is_clean(str(memory.directory))

    _write(repo, "OUTCOMES.md", HEAD + outcome_row(1, "one") + outcome_row(2, "two"))
    _write(repo, "PATTERNS.md", PATTERN.template() + pattern_row(1, "p", "O-002"))
    assert looks_clean(memory)
    assert doctor(memory, fix=True) == doctor(memory, fix=True, checks=CHECKS)
    unusual = {
        "a duplicate ID across the live and the archived rows": (
            "ARCHIVE.md",
            archive_template() + "\n" + HEAD.split("## Records\n\n")[1] + outcome_row(2, "old"),
        ),
        "a conflict marker": ("PATTERNS.md", PATTERN.template() + "<<<<<<< ours\n"),
        "a table whose first column is not the ID": (
            "ERRORS.md",
            "| Signature | Fix |\n|---|---|\n| boom | retry |\n",
        ),
        "a leftover journal": (".legion-memory.journal", "{}"),
        "one record under two IDs": (
            "OUTCOMES.md",
            HEAD + outcome_row(1, "one") + outcome_row(2, "one"),
        ),
        "a doubled archive section": (
            "ARCHIVE.md",
            archive_template() + "\n## Archived Patterns\n\n## Archived Patterns\n",
        ),
    }
    for why, (name, text) in unusual.items():
        path = repo / MEMORY / name
        before = path.read_bytes() if path.exists() else None
        _write(repo, name, text)
        assert not looks_clean(memory), why
        if before is None:
            path.unlink()
        else:
            path.write_bytes(before)
    assert looks_clean(memory)
