"""The coverage check of a COMPACTED.md, independent of how it was written: every requirement ID
and every file path of the phase's PLAN and SUMMARY files present (whole paths, not substrings),
the front-matter complete, each passed plan's requirement IDs in `requirements_satisfied`, and no
`{placeholder}` left."""

import re
from pathlib import Path

from legion_memory.errors import LegionMemoryError
from legion_memory.markdown.document import BOM
from legion_memory.markdown.frontmatter import Value, split_front_matter, strings
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.catalog import Catalog
from legion_memory.project.phase_files import clean_path, front_matter_files
from legion_memory.project.phase_reading import PhaseFacts, gather
from legion_memory.project.summary_facts import PASS, requirement_verdict
from legion_memory.storage import reading

FRONT_MATTER_KEYS = ("phase", "compacted", "original_summaries", "requirements_satisfied")
SECTIONS = ("Deliverables", "Decisions", "Files Modified", "Verification", "Agents")
TARGET_PERCENT = (30, 50)
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][^{}\n]{0,60}\}")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_PATH_SEPARATORS = re.compile(r"[\s|,;`*<>\[\]]+|(?<!\\)\((?:new|created|modified)\)")


class CheckReport(NamedTuple):
    """The coverage check of a COMPACTED.md against its phase's originals."""

    path: Path
    compacted_chars: int
    original_chars: int
    requirements_total: int
    files_total: int
    missing_requirements: list[str]
    missing_files: list[str]
    missing_front_matter: list[str]
    placeholders: list[str]
    missing_sections: list[str]
    unsatisfied: list[str]
    """Requirement IDs whose plans passed but that `requirements_satisfied` does not list."""

    @property
    def percent(self) -> int:
        return round(100 * self.compacted_chars / self.original_chars) if self.original_chars else 0

    @property
    def ok(self) -> bool:
        problems = (self.missing_requirements, self.missing_files, self.missing_front_matter)
        return not any(problems) and not self.placeholders and not self.unsatisfied

    @property
    def warnings(self) -> list[str]:
        low, high = TARGET_PERCENT
        found = [f"section '## {name}' is missing" for name in self.missing_sections]
        if not low <= self.percent <= high:
            found.append(f"length is {self.percent}% of the originals (target {low}-{high}%)")
        return found

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.path),
            "ok": self.ok,
            "missing_requirements": self.missing_requirements,
            "missing_files": self.missing_files,
            "missing_front_matter": self.missing_front_matter,
            "placeholders": self.placeholders,
            "unsatisfied_requirements": self.unsatisfied,
            "requirements_total": self.requirements_total,
            "files_total": self.files_total,
            "length_percent": self.percent,
            "compacted_chars": self.compacted_chars,
            "original_chars": self.original_chars,
            "warnings": self.warnings,
        }


def check_text(facts: PhaseFacts, text: str, path: Path) -> CheckReport:
    """Every requirement ID and file path present, front-matter complete, no `{placeholder}`,
    and every requirement whose plans passed listed in `requirements_satisfied`."""
    searchable = text.replace("\\|", "|")
    front, body = split_front_matter(text)
    originals = "\n".join(document.text for document in facts.documents)
    headings = {m.strip().casefold() for m in re.findall(r"^##\s+(.+)$", body, re.MULTILINE)}
    expected = expected_paths(facts)
    present = paths_in(searchable)
    return CheckReport(
        path=path,
        compacted_chars=len(text),
        original_chars=facts.original_chars,
        requirements_total=len(facts.requirements),
        files_total=len(expected),
        missing_requirements=[
            r for r in facts.requirements if not re.search(rf"\b{re.escape(r)}\b", searchable)
        ],
        missing_files=[found for found in expected if found not in present],
        missing_front_matter=[key for key in FRONT_MATTER_KEYS if not _filled(front, key)],
        placeholders=[
            found
            for found in dict.fromkeys(_PLACEHOLDER.findall(_CODE.sub("", text)))
            if found not in originals
        ],
        missing_sections=[name for name in SECTIONS if name.casefold() not in headings],
        unsatisfied=_unsatisfied(facts, front),
    )


def expected_paths(facts: PhaseFacts) -> list[str]:
    """The paths a compacted summary must keep: the PLAN files' `files_modified` and the SUMMARY
    front-matter's file lists (read here, apart from the plan reader), then what it found."""
    listed = [change.path for document in facts.sources for change in front_matter_files(document)]
    return list(dict.fromkeys([*listed, *(change.path for change in facts.files)]))


def paths_in(text: str) -> set[str]:
    """Every whole path-like token of a text: `a/b.md` in `| a/b.md | ... |` but not `b.md`."""
    tokens = _PATH_SEPARATORS.split(text)
    return {cleaned for token in tokens if (cleaned := clean_path(token))}


def _unsatisfied(facts: PhaseFacts, front: dict[str, Value]) -> list[str]:
    listed = set(strings(front.get("requirements_satisfied")))
    return [
        requirement
        for requirement in facts.requirements
        if requirement not in listed and requirement_verdict(requirement, facts.plans)[0] == PASS
    ]


def _filled(front: dict[str, Value], key: str) -> bool:
    if key not in front:
        return False
    value = front[key]
    if key == "requirements_satisfied":
        return isinstance(value, list)
    if key == "compacted":
        return isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None
    return bool(strings(value))


def check(root: Path, selector: str | int, catalog: Catalog | None = None) -> CheckReport:
    facts = gather(root, selector, catalog)
    path = facts.phase.compacted
    number = selector
    text = reading.read_text(path)
    if text is None:
        raise LegionMemoryError(
            f"phase {number} has no {path.name}",
            where=str(path.parent),
            hint=f"run `legion-memory compact {number}` first",
        )
    return check_text(facts, text.removeprefix(BOM), path)  # a BOM would hide the front matter
