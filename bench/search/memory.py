"""A project memory built from material items: each item becomes the record an agent would have
stored (an issue or finding an error fix, a deviation an outcome, a decision a pattern or a
preference), dated over the year before `today`, with an importance.

Dates and importances come from a hash of the item's key, so a build is the same every run and
an item's age says nothing about whether a query is about it.
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from pathlib import Path

from bench.search.material import Item
from legion_memory.schema import kinds
from legion_memory.schema.kinds import Kind, new_record, row_for
from legion_memory.schema.records import Record

AGENTS = (
    "engineering-senior-developer",
    "engineering-backend-architect",
    "testing-qa-verification-specialist",
    "testing-evidence-collector",
    "project-management-project-shepherd",
    "engineering-technical-writer",
)
YEAR_DAYS = 365
_SPLIT = re.compile(r"\s+(?:\u2014|\u2013|--)\s+|:\s+|;\s+")


def _hash(key: str, salt: str) -> int:
    return zlib.crc32(f"{salt}:{key}".encode())


def _common(item: Item, today: dt.date) -> dict[str, str]:
    day = today - dt.timedelta(days=_hash(item.key, "date") % YEAR_DAYS)
    phase = item.key.split("-")[0].split(":")[0]
    return {
        "date": day.isoformat(),
        "branch": "main",
        "agent": AGENTS[_hash(item.key, "agent") % len(AGENTS)],
        "tags": f"{item.kind}, {phase.lower()}",
    }


def _split(text: str) -> tuple[str, str]:
    """A headline clause and the rest, at a dash, colon or semicolon when there is one."""
    parts = _SPLIT.split(text, maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 and parts[1] else (text, "")


def _signature_and_fix(item: Item) -> tuple[str, str]:
    if item.kind == "changelog-fix":
        return f"defect reported against release {item.title}", item.text
    if item.fix:
        return item.text, item.fix
    signature, rest = _split(item.text)
    return signature, rest or f"handled during {item.title}"


def record_values(item: Item, number: int, today: dt.date) -> tuple[Kind, dict[str, str]]:
    common = _common(item, today)
    if item.kind in ("issue", "finding", "changelog-fix"):
        signature, fix = _signature_and_fix(item)
        return kinds.ERROR_FIX, {
            **common,
            "error_signature": signature,
            "fix": fix,
            "resolved": "true",
        }
    if item.kind == "deviation":
        return kinds.OUTCOME, {
            **common,
            "phase": str(number % 40 + 1),
            "plan": "-",
            "task_type": "deviation",
            "outcome": "partial",
            "importance": str(_hash(item.key, "importance") % 5 + 1),
            "summary": item.text,
        }
    if number % 3 == 0:
        return kinds.PREFERENCE, {
            **common,
            "decision_point": "agent-selection",
            "context": item.title,
            "proposed": "the plan as first written",
            "user_choice": item.text,
            "signal": "corrective",
        }
    pattern, why = _split(item.text)
    return kinds.PATTERN, {
        **common,
        "pattern": pattern,
        "context": item.title,
        "reuse_criteria": why or "the same kind of change",
        "source": "-",
    }


def write_memory(root: Path, items: list[Item], today: dt.date) -> dict[str, str]:
    """The project's memory files under `root`; the map of record ID to item key."""
    rows: dict[Kind, list[str]] = {kind: [] for kind in kinds.KINDS.values()}
    keys: dict[str, str] = {}
    for number, item in enumerate(items, start=1):
        kind, values = record_values(item, number, today)
        record_id = f"{kind.prefix}-{len(rows[kind]) + 1:03d}"
        checked = new_record(kind, values)
        record = Record(kind, {**checked.values, "id": record_id})
        header = tuple(column.name for column in kind.columns)
        rows[kind].append("| " + " | ".join(row_for(record, header)) + " |\n")
        keys[record_id] = item.key
    memory = root / ".planning" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    for kind, lines in rows.items():
        (memory / kind.filename).write_text(kind.template() + "".join(lines), encoding="utf-8")
    return keys
