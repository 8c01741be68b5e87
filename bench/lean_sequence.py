"""The floor for a workflow's ten memory calls in one `batch`: one Python process that calls the
library's operations itself, with the options as their keyword arguments, each file parsed once
until a store writes it, and prints each call's result as one JSON line (what `batch` prints as
that line's `result`; tests/test_bench_lean.py holds them equal). No command line, dispatcher,
option checks: what the ten calls cost written as one program. It takes the calls from the
batch's own lines (`sequence.jsonl`), so that both make exactly the same calls.

Usage: python bench/lean_sequence.py TODAY CATALOG (from the project's root).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from legion_memory.operations import knowledge, outcomes, prompt_context
from legion_memory.operations.project import Project
from legion_memory.storage import reading

LINES_FILE = "sequence.jsonl"
OPERATIONS: dict[str, Callable[..., Any]] = {
    "score agents": outcomes.score_agents,
    "score archetypes": outcomes.score_archetypes,
    "recall patterns": knowledge.recall_patterns,
    "recall preferences": knowledge.recall_preferences,
    "recall errors": knowledge.recall_errors,
    "recall outcomes": outcomes.recall_outcomes,
    "context": prompt_context.agent_context,
    "store outcome": outcomes.store_outcome,
}


def main() -> None:
    today, catalog = sys.argv[1], Path(sys.argv[2])
    project = Project(Path.cwd(), today, None, catalog, lambda line: print(line, file=sys.stderr))
    with reading.parses_kept(), open(LINES_FILE, encoding="utf-8") as lines:
        for line in lines:
            call = json.loads(line)
            result = OPERATIONS[" ".join(call["command"])](project, **call["options"])
            print(json.dumps(result.to_json(), ensure_ascii=False))


if __name__ == "__main__":
    main()
