"""Items of engineering history read from a Legion checkout: what went wrong, what was decided,
what deviated from a plan, what a review found and what a release fixed.

Read at run time from `../shared/legion` (never copied into this repository). Each item has a
stable key naming where it came from, so judged queries can name the items they expect.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

SECTION_KINDS = (
    ("issue", re.compile(r"issues", re.I)),
    ("deviation", re.compile(r"deviation", re.I)),
    ("decision", re.compile(r"decision", re.I)),
)
_HEADING = re.compile(r"^(#{2,4})\s+(.*?)\s*$")
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+(.*)$")
_BOLD_ITEM = re.compile(r"^\*\*(.+)$")
_RELEASE = re.compile(r"^##\s+\[([^\]]+)\]\s*-\s*(\d{4}-\d{2}-\d{2})")
_NOTHING = re.compile(r"^(none|n/a|no issues|no deviations)\b", re.I)
MIN_CHARS = 30


class Item(NamedTuple):
    key: str
    kind: str  # issue, deviation, decision, finding, changelog-fix
    title: str  # where it came from, as a heading says it
    text: str
    fix: str = ""


def read_items(legion: Path) -> list[Item]:
    """Every item of the checkout, in a stable order."""
    found: list[Item] = []
    for path in sorted(legion.glob(".planning/phases/*/*SUMMARY*.md")):
        found.extend(summary_items(path))
    for path in sorted(legion.glob(".planning/phases/*/*REVIEW*.md")):
        found.extend(review_items(path))
    changelog = legion / "CHANGELOG.md"
    if changelog.is_file():
        found.extend(changelog_items(changelog))
    return found


def _sections(lines: list[str]) -> Iterator[tuple[str, list[str]]]:
    heading = ""
    body: list[str] = []
    for line in lines:
        match = _HEADING.match(line)
        if match:
            yield heading, body
            heading, body = match.group(2), []
        else:
            body.append(line)
    yield heading, body


def _items(body: list[str]) -> Iterator[str]:
    """Top-level bullets, numbered items and bold-led paragraphs, continuation lines joined."""
    current: list[str] = []
    for line in body:
        top = line[:1] not in (" ", "\t")
        match = (_ITEM.match(line) or _BOLD_ITEM.match(line)) if top else None
        if match or not line.strip() or line.startswith(("|", "```", "---")):
            if current:
                yield " ".join(current)
            current = [match.group(1 if _ITEM.match(line) else 0).strip()] if match else []
        elif current:
            current.append(line.strip())
    if current:
        yield " ".join(current)


def _clean(text: str) -> str:
    text = re.sub(r"\*\*|`", "", text)
    return " ".join(text.split())


def summary_items(path: Path) -> Iterator[Item]:
    lines = path.read_text(encoding="utf-8").splitlines()
    title = next((line[2:].strip() for line in lines if line.startswith("# ")), path.stem)
    stem = path.stem.replace("-SUMMARY", "")
    for heading, body in _sections(lines):
        kind = next((k for k, pattern in SECTION_KINDS if pattern.search(heading)), None)
        if kind is None:
            continue
        number = 0
        for raw in _items(body):
            text = _clean(raw)
            if len(text) < MIN_CHARS or _NOTHING.match(text):
                continue
            number += 1
            yield Item(f"{stem}:{kind}:{number}", kind, _clean(title), text)


def review_items(path: Path) -> Iterator[Item]:
    """Rows of a findings table: its Issue column and its Fix column."""
    stem = path.stem
    header: list[str] = []
    number = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [_clean(cell) for cell in line.strip().strip("|").split("|")]
        if not header:
            header = [cell.lower() for cell in cells]
            continue
        if set(line) <= set("|-: "):
            continue
        row = dict(zip(header, cells, strict=False))
        issue = row.get("issue") or row.get("finding") or row.get("description", "")
        if len(issue) < MIN_CHARS // 2:
            continue
        fix = row.get("fix applied") or row.get("fix") or row.get("resolution", "")
        number += 1
        yield Item(f"{stem}:finding:{number}", "finding", stem, issue, fix)


def changelog_items(path: Path) -> Iterator[Item]:
    """Bullets under a release's `### Fixed`."""
    release, in_fixed, number = "", False, 0
    for heading, body in _sections(["## x", *path.read_text(encoding="utf-8").splitlines()]):
        match = _RELEASE.match(f"## {heading}")
        if match:
            release, in_fixed = match.group(1), False
            continue
        in_fixed = heading.lower().startswith("fix")
        if not in_fixed or not release:
            continue
        for raw in _items(body):
            text = _clean(raw)
            if len(text) >= MIN_CHARS:
                number += 1
                yield Item(f"CHANGELOG:{release}:{number}", "changelog-fix", release, text)
