"""Synthetic memory for the benchmark: realistic cells (pipes, code spans, CJK, emoji), any size.

Words follow a Zipf law over a 3,000-word vocabulary, as prose does, so that a query's words are
found in a few percent of the records (a vocabulary of a few dozen words would make every query
match most records, which no real memory does). Every generated file is valid: `validate` finds no
problem in it, so the benchmark measures the tool's normal path, not its error messages.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path

from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, PREFERENCE, Kind, row_for
from legion_memory.schema.records import Record

SYLLABLES = "ka lo mi ne ru sa ti vo pe da fi gu ho ja ze".split()
_LATIN = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES][:3000]
# One word in fifty is Japanese or an emoji, so tokenizing and escaping meet multibyte text.
_CJK = ["日本語", "検索", "キャッシュ", "移行", "😀", "分析"]
VOCABULARY = [
    f"{_CJK[n // 50 % len(_CJK)]}{n}" if n % 50 == 25 else word for n, word in enumerate(_LATIN)
]
_WEIGHTS = [1 / rank for rank in range(1, len(VOCABULARY) + 1)]
QUERY = " ".join(VOCABULARY[rank - 1] for rank in (60, 150, 400))
GREP_WORD = VOCABULARY[59]
# Agents and their task types as in fixtures/catalog/CATALOG.md, which `store outcome` reads.
AGENT_TASK_TYPES = {
    "engineering-senior-developer": ("full-stack", "refactoring", "code-quality"),
    "engineering-frontend-developer": ("frontend", "react", "web-performance"),
    "engineering-backend-architect": ("backend", "api-development", "database-design"),
    "testing-qa-verification-specialist": ("visual-qa", "bug-verification", "quality-gates"),
    "design-ux-architect": ("ux-architecture", "css-systems", "frontend-foundations"),
    "testing-api-tester": ("api-testing", "integration-testing", "security-testing"),
}
AGENTS = list(AGENT_TASK_TYPES)
# Logical values: `row_for` escapes the pipes (`\\|`), as the tool does when it stores a record.
# One text in five holds a pipe, three in ten a code span, one in five Japanese.
_TEMPLATES = [
    "Ran `grep -c {w} | wc -l` before the {v} change: {s}",
    "Fixed {w} (exit 1 | exit 2); {s}",
    "Updated `src/{v}.ts` for {w}: {s}",
    "{w} {v}: 分析した結果 OK, {s}",
    "{s}",
]
_TEMPLATE_WEIGHTS = [1, 1, 3, 2, 3]


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choices(VOCABULARY, _WEIGHTS, k=count))


def _text(rng: random.Random, length: int = 10) -> str:
    template = rng.choices(_TEMPLATES, _TEMPLATE_WEIGHTS)[0]
    return template.format(w=_words(rng, 1), v=_words(rng, 1), s=_words(rng, length))


def _tags(rng: random.Random) -> str:
    return ", ".join(rng.choices(VOCABULARY, _WEIGHTS, k=2))


def _common(rng: random.Random, kind: Kind, number: int, today: dt.date) -> dict[str, str]:
    day = today - dt.timedelta(days=rng.randint(0, 400))
    branch = rng.choice(["main", "main", "feature/search"])
    return {"id": f"{kind.prefix}-{number:03d}", "date": day.isoformat(), "branch": branch}


def _outcome(rng: random.Random) -> dict[str, str]:
    agent = rng.choice(AGENTS)
    return {
        "phase": str(rng.randint(1, 40)),
        "plan": f"{rng.randint(1, 40):02d}-{rng.randint(1, 5):02d}",
        "agent": agent,
        "task_type": rng.choice([*AGENT_TASK_TYPES[agent], "quality-review"]),
        "outcome": rng.choice(["success", "success", "success", "partial", "failed"]),
        "importance": str(rng.randint(1, 5)),
        "tags": _tags(rng),
        "summary": _text(rng),
    }


def _pattern(rng: random.Random) -> dict[str, str]:
    return {
        "pattern": _text(rng, 6),
        "context": _text(rng, 8),
        "reuse_criteria": f"when {_words(rng, 3)} is involved",
        "tags": _tags(rng),
    }


def _error(rng: random.Random) -> dict[str, str]:
    # The line number keeps signatures apart: an error fix's identity is its signature, date and
    # branch, and at 10,000 fixes two random ones would otherwise be one record held twice.
    line = rng.randint(1, 10**9)
    return {
        "error_signature": f"`TypeError: {_words(rng, 1)} is undefined` in {_words(rng, 2)}:{line}",
        "fix": _text(rng, 8),
        "agent": rng.choice(AGENTS),
        "resolved": rng.choice(["true", "false"]),
        "tags": _tags(rng),
    }


def _preference(rng: random.Random) -> dict[str, str]:
    return {
        "decision_point": "review-verdict",
        "context": _text(rng, 8),
        "proposed": _words(rng, 4),
        "user_choice": "Accepted",
        "signal": rng.choice(["positive", "negative", "corrective"]),
        "agent": rng.choice(AGENTS),
        "tags": _tags(rng),
    }


_BUILDERS: dict[Kind, Callable[[random.Random], dict[str, str]]] = {
    OUTCOME: _outcome,
    PATTERN: _pattern,
    ERROR_FIX: _error,
    PREFERENCE: _preference,
}


def rows_text(kind: Kind, first: int, count: int, today: dt.date, seed: int = 7) -> str:
    """`count` table rows of `kind`, numbered from `first`, in the spec's row layout."""
    rng = random.Random(seed)
    header = tuple(column.name for column in kind.columns)
    lines = []
    for number in range(first, first + count):
        values = {**_common(rng, kind, number, today), **_BUILDERS[kind](rng)}
        if kind is PATTERN:
            # An outcome the project holds: `write_project` writes no more patterns than outcomes
            # (given 10 outcomes or more).
            values["source"] = f"O-{rng.randint(1, number):03d}"
        if kind is OUTCOME and number == 1:
            # However few the rows, search, context and grep find the query in this one.
            values["summary"] = f"Fixed {QUERY} (exit 1 | exit 2)"
        lines.append("| " + " | ".join(row_for(Record(kind, values), header)) + " |\n")
    return "".join(lines)


def table_text(kind: Kind, rows: int, today: dt.date, seed: int = 7) -> str:
    """A memory file of `kind` with `rows` synthetic records."""
    return kind.template() + rows_text(kind, 1, rows, today, seed)


def write_project(root: Path, outcomes: int, today: dt.date) -> None:
    """A project's memory: OUTCOMES.md with `outcomes` rows, the three other files a tenth of
    that each (at least 10), STATE.md naming the current phase, and that phase's summary."""
    memory = root / ".planning" / "memory"
    memory.mkdir(parents=True)
    for kind in _BUILDERS:
        count = outcomes if kind is OUTCOME else max(outcomes // 10, 10)
        (memory / kind.filename).write_text(table_text(kind, count, today), encoding="utf-8")
    state = "# Project State\n\n**Phase**: 41 of 60\n"
    (root / ".planning" / "STATE.md").write_text(state, encoding="utf-8")
    # The phase `phase-context` and `detect-edits` read.
    phase = root / ".planning" / "phases" / "41-bench"
    phase.mkdir(parents=True)
    summary = "---\nphase: 41\nplan: 01\n---\n\n# Phase 41 Plan 01 Summary\n\nBenchmark plan.\n"
    (phase / "41-01-SUMMARY.md").write_text(summary, encoding="utf-8")
    # A finished phase, whose COMPACTED.md `compact --check` checks.
    done = root / ".planning" / "phases" / "42-bench"
    done.mkdir()
    (done / "42-01-SUMMARY.md").write_text(COMPACTED_SUMMARY, encoding="utf-8")


COMPACTED_SUMMARY = """---
phase: 42
plan: 01
requirements: [BENCH-01]
key_files:
  - src/bench.py
---

# Phase 42 Plan 01 Summary

A finished benchmark plan.

## Files Modified

- `src/bench.py` - the benchmark's entry point
"""


def write_merge_sides(directory: Path, rows: int, today: dt.date) -> None:
    """What git hands the merge driver: a base of `rows` outcomes (`O`), and two sides (`A`,
    `B`) that each added five different rows with the same new IDs, as two branches do."""
    directory.mkdir(parents=True)
    base = table_text(OUTCOME, rows, today)
    sides = {"O": base}
    for name, seed in (("A", 11), ("B", 12)):
        sides[name] = base + rows_text(OUTCOME, rows + 1, 5, today, seed)
    for name, text in sides.items():
        (directory / name).write_text(text, encoding="utf-8")
