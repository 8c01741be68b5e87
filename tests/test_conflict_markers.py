"""Conflict blocks nested inside a side (what merging an already conflicted file leaves): doctor
names them with a finding of their own and `--fix` keeps every side's rows, in one pass."""

from __future__ import annotations

from pathlib import Path

from support.processes import CLI, read_bytes_of

from legion_memory.upkeep.conflict_markers import resolve_conflicts

HEADER = (
    "| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |\n"
    "|----|------|--------|---------|---------|----------------|--------|------|\n"
)
P1 = "| P-001 | 2026-03-01 | main | p1 | c | r |  |  |\n"
P2 = "| P-002 | 2026-03-01 | main | p2 | c | r |  |  |\n"
P3 = "| P-003 | 2026-03-01 | main | p3 | c | r |  |  |\n"
P4 = "| P-004 | 2026-03-01 | main | p4 | c | r |  |  |\n"
NESTED = (
    f"{HEADER}{P1}<<<<<<< ours\n<<<<<<< inner\n{P2}=======\n{P3}>>>>>>> inner\n"
    f"=======\n{P4}>>>>>>> theirs\n"
)


def test_a_nested_block_resolves_from_the_inside_out() -> None:
    assert resolve_conflicts(NESTED) == f"{HEADER}{P1}{P2}{P3}{P4}"


def test_a_nested_block_in_theirs_and_a_diff3_base_resolve_too() -> None:
    text = (
        f"{HEADER}<<<<<<< ours\n{P1}||||||| base\n{P2}=======\n<<<<<<< a\n{P3}=======\n"
        f"{P4}>>>>>>> b\n>>>>>>> theirs\n"
    )
    assert resolve_conflicts(text) == f"{HEADER}{P1}{P3}{P4}"


def test_an_inner_block_never_closed_is_left_alone() -> None:
    text = f"{HEADER}<<<<<<< ours\n<<<<<<< inner\n{P2}=======\n{P4}>>>>>>> theirs\n"
    assert resolve_conflicts(text) == text


def test_doctor_names_nested_markers_and_fixes_them(cli: CLI, repo: Path) -> None:
    stored = cli("store", "pattern", "--pattern", "p", "--context", "c", "--reuse", "r", cwd=repo)
    assert stored.code == 0, stored.stderr
    patterns = repo / ".planning" / "memory" / "PATTERNS.md"
    text = patterns.read_text(encoding="utf-8")
    head = text[: text.index("| ID |")]
    patterns.write_text(head + NESTED, encoding="utf-8")
    line = (head + NESTED).splitlines().index("<<<<<<< ours") + 1
    before = read_bytes_of(repo)
    found = cli("doctor", cwd=repo)
    assert (found.code, found.stdout) == (
        1,
        f".planning/memory/PATTERNS.md:{line}: nested git conflict markers (--fix keeps every "
        "side)\n1 problem needs repair (run `legion-memory doctor --fix`)\n",
    )
    assert read_bytes_of(repo) == before
    fixed = cli("doctor", "--fix", cwd=repo)
    assert fixed.code == 0
    assert fixed.stdout.endswith("memory repaired\n")
    assert patterns.read_text(encoding="utf-8") == f"{head}{HEADER}{P1}{P2}{P3}{P4}"
