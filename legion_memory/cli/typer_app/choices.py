"""The closed sets of values options take, as `Literal` types: typer lists them in the help and
refuses anything else with one message, and the lean dispatcher reads them from
`operations/option_spec.py`.

Each is the schema's own tuple written out, because a type checker needs a literal; a test keeps
each equal to the tuple it copies (`tests/test_front_door_help.py`).
"""

from __future__ import annotations

from typing import Literal

Outcome = Literal["success", "partial", "failed"]
Event = Literal[
    "plan-failed",
    "review-escalated",
    "plan-partial",
    "review-multi-cycle",
    "plan-success",
    "review-pass",
    "trivial",
]
Signal = Literal["positive", "negative", "corrective"]
SignalFilter = Literal["positive", "negative", "corrective", "all"]
DecisionPoint = Literal[
    "review-verdict", "review-override", "agent-selection", "manual-edit", "fix-acceptance"
]
DecisionPointFilter = Literal[
    "review-verdict", "review-override", "agent-selection", "manual-edit", "fix-acceptance", "all"
]
ReadScope = Literal["project", "global", "all"]
WriteScope = Literal["project", "global"]
SearchFile = Literal["outcomes", "patterns", "errors", "preferences", "retro", "all"]
BlockFormat = Literal["xml", "markdown"]
ExportFormat = Literal["json", "jsonl", "csv"]
TableFormat = Literal["table", "markdown"]
Keyspace = Literal["catalog", "engine"]
