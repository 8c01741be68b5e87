"""Synthetic memory for benchmarks: realistic cells (escaped pipes, code spans, CJK), any size."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from legion_memory.schema import ERROR_FIX, OUTCOME, PATTERN, PREFERENCE, Kind, Record, row_for

AGENTS = [
    "engineering-senior-developer",
    "engineering-frontend-developer",
    "engineering-backend-architect",
    "testing-qa-verification-specialist",
    "design-ui-designer",
    "autonomous",
]
TASK_TYPES = ["backend", "frontend", "quality-review", "workflow", "ui-design", "general"]
WORDS = (
    "cache migration auth token retry queue schema index render hydrate deploy rollback "
    "review flaky timeout webhook parser lexer 日本語 検索 キャッシュ 😀 pipeline worker"
).split()
SUMMARIES = [
    "Ran `grep -c x \\| wc -l` before the {w} change",
    "Fixed {w} in `src/{w}.ts` (exit 1 \\| exit 2)",
    "{w} {v}: 分析した結果 OK",
    "Reviewed {w} and {v}; approved in 2 cycles",
]


def _sentence(rng: random.Random) -> str:
    return rng.choice(SUMMARIES).format(w=rng.choice(WORDS), v=rng.choice(WORDS))


def _day(rng: random.Random, today: dt.date) -> str:
    return (today - dt.timedelta(days=rng.randint(0, 400))).isoformat()


def _outcome(rng: random.Random, n: int, today: dt.date) -> dict[str, str]:
    return {
        "id": f"O-{n:03d}",
        "date": _day(rng, today),
        "branch": rng.choice(["main", "main", "feature/search"]),
        "phase": str(rng.randint(1, 40)),
        "plan": f"{rng.randint(1, 40):02d}-{rng.randint(1, 5):02d}",
        "agent": rng.choice(AGENTS),
        "task_type": rng.choice(TASK_TYPES),
        "outcome": rng.choice(["success", "success", "success", "partial", "failed"]),
        "importance": str(rng.randint(1, 5)),
        "tags": ", ".join(rng.sample(WORDS, 2)),
        "summary": _sentence(rng),
    }


def _pattern(rng: random.Random, n: int, today: dt.date) -> dict[str, str]:
    return {
        "id": f"P-{n:03d}",
        "date": _day(rng, today),
        "branch": "main",
        "pattern": _sentence(rng),
        "context": _sentence(rng),
        "reuse_criteria": f"when {rng.choice(WORDS)} is involved",
        "source": f"O-{rng.randint(1, 999):03d}",
        "tags": ", ".join(rng.sample(WORDS, 2)),
    }


def _error(rng: random.Random, n: int, today: dt.date) -> dict[str, str]:
    return {
        "id": f"E-{n:03d}",
        "date": _day(rng, today),
        "branch": "main",
        "error_signature": f"`TypeError: {rng.choice(WORDS)} is undefined` in {rng.choice(WORDS)}",
        "fix": _sentence(rng),
        "agent": rng.choice(AGENTS),
        "resolved": rng.choice(["true", "false"]),
        "tags": ", ".join(rng.sample(WORDS, 2)),
    }


def _preference(rng: random.Random, n: int, today: dt.date) -> dict[str, str]:
    return {
        "id": f"D-{n:03d}",
        "date": _day(rng, today),
        "branch": "main",
        "decision_point": "review-verdict",
        "context": _sentence(rng),
        "proposed": _sentence(rng),
        "user_choice": "Accepted",
        "signal": rng.choice(["positive", "negative", "corrective"]),
        "agent": rng.choice(AGENTS),
        "tags": ", ".join(rng.sample(WORDS, 2)),
    }


BUILDERS = {OUTCOME: _outcome, PATTERN: _pattern, ERROR_FIX: _error, PREFERENCE: _preference}


def table_text(kind: Kind, rows: int, today: dt.date, seed: int = 7) -> str:
    """A memory file of `kind` with `rows` synthetic records, in the spec's layout."""
    rng = random.Random(seed)
    build = BUILDERS[kind]
    lines = [kind.template()]
    header = tuple(column.name for column in kind.columns)
    for n in range(1, rows + 1):
        record = Record(kind, build(rng, n, today))
        lines.append("| " + " | ".join(row_for(record, header)) + " |\n")
    return "".join(lines)


def write_memory(directory: Path, outcomes: int, others: int, today: dt.date) -> None:
    """OUTCOMES.md with `outcomes` rows and the three other files with `others` rows each."""
    directory.mkdir(parents=True, exist_ok=True)
    for kind in BUILDERS:
        count = outcomes if kind is OUTCOME else others
        (directory / kind.filename).write_text(table_text(kind, count, today), encoding="utf-8")
