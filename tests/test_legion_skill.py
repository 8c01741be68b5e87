"""The memory-manager skill keeps Legion's contract: its sections, front-matter and the text
Legion's own tests and cross-references rely on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.legion import LEGION, LEGION_SKILL, NODE, SKILL_DOC, copy_legion, node_test, sections

from legion_memory.legion.skill_install import SKILL_SOURCE

needs_legion = pytest.mark.skipif(not LEGION.is_dir(), reason="../shared/legion is not present")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

SKILL = SKILL_DOC.read_text(encoding="utf-8")
SECTION_KEYS = [*(str(n) for n in range(1, 8)), "7.5", "References"]
SECTION_KEYS += [*(str(n) for n in range(8, 15)), "Completion Gate"]
# The files of Legion that point into the memory-manager skill by section number.
REFERRING = [
    "commands/build.md",
    "commands/review.md",
    "commands/learn.md",
    "commands/status.md",
    "skills/board-of-directors/SKILL.md",
    "skills/execution-tracker/SKILL.md",
    "skills/phase-decomposer/SKILL.md",
    "skills/workflow-common/SKILL.md",
]
REFERENCE = re.compile(r"`?memory-manager`?(?: SKILL\.md)? Section (\d+(?:\.\d+)?)")
_AFTER_NAME = re.compile(r'\s*(?:"([^"]+)"|\(([^)]+)\))')
_BEFORE_NAME = re.compile(
    r"(?:the )?([A-Za-z]+(?: [A-Za-z]+)?):? (?:calculated )?(?:from|per|defined in) $"
)


def test_the_package_ships_the_documented_skill() -> None:
    assert SKILL_SOURCE.read_bytes() == SKILL_DOC.read_bytes()


def test_sections_in_legion_order() -> None:
    assert list(sections(SKILL)) == SECTION_KEYS


@needs_legion
def test_front_matter_and_section_titles_are_legions() -> None:
    original = (LEGION / LEGION_SKILL).read_text(encoding="utf-8")
    front = re.compile(r"\A---\n.*?\n---\n", re.S)
    assert front.match(SKILL).group(0) == front.match(original).group(0)  # type: ignore[union-attr]
    ours = {key: heading for key, (heading, _) in sections(SKILL).items()}
    assert ours == {key: heading for key, (heading, _) in sections(original).items()}


def references(legion: Path) -> list[tuple[str, int, str, str]]:
    """(file, line, section, the name the caller gives it, or "") for every reference."""
    found = []
    for name in REFERRING:
        lines = (legion / name).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            for match in REFERENCE.finditer(line):
                found.append((name, number, match.group(1), expected_name(line, match)))
    return found


def expected_name(line: str, match: re.Match[str]) -> str:
    """What the caller expects to find there: a quoted or parenthesised name right after the
    reference (`Section 3 (Store Outcome)`), else the words before it (`the header template
    from memory-manager Section 2`)."""
    after = _AFTER_NAME.match(line, match.end())
    if after:
        return after.group(1) or after.group(2)
    before = _BEFORE_NAME.search(line[: match.start()])
    return before.group(1) if before else ""


@needs_legion
def test_every_cross_reference_lands_on_what_the_caller_expects() -> None:
    original = sections((LEGION / LEGION_SKILL).read_text(encoding="utf-8"))
    ours = sections(SKILL)
    found = references(LEGION)
    unresolved = []
    for name, line, number, expected in found:
        heading, body = ours.get(number, ("", ""))
        if heading != original[number][0] or expected.casefold() not in (heading + body).casefold():
            unresolved.append(f"{name}:{line}: Section {number} {expected!r}")
    assert len(found) >= 26
    assert unresolved == []


@needs_legion
def test_the_names_callers_give_are_read() -> None:
    names = {(number, expected) for _, _, number, expected in references(LEGION)}
    assert {("3", "Store Outcome"), ("2", "header template"), ("7.5", "Prune Operation")} <= names
    assert ("4", "Recall Session Briefing") in names
    assert ("13", "Store Preference") in names


@needs_legion
@needs_node
def test_legions_memory_manager_test_passes_with_the_skill(tmp_path: Path) -> None:
    legion = copy_legion(tmp_path / "legion")
    (legion / LEGION_SKILL).write_bytes(SKILL_DOC.read_bytes())
    done = node_test(legion, Path("tests/memory-manager.test.js"))
    assert done.returncode == 0, done.stdout
    assert "# pass 5\n" in done.stdout
    assert "# fail 0\n" in done.stdout
