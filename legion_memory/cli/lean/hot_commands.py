"""The hot commands: what workflows and git hooks run at every step, so cold start is their speed.

Each is a plain action of the Context and the command's options. The typer app calls it with every
option it parsed; the lean dispatcher (`dispatcher.py`) calls the same action with the same keyword
arguments without building the typer app at all, whose import alone costs more than a hot command
may take.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from legion_memory.cli.context import Context

Action = Callable[..., int | None]

# The git hooks' `doctor --fix --quiet` (and `doctor --quiet`) on clean memory is answered before
# this table is even imported, by `cli/lean/hook.py`; any other doctor call gets the full command.
ACTIONS: dict[str, str] = {
    "store outcome": "outcomes:store_outcome",
    "recall outcomes": "outcomes:recall_outcomes",
    "score agents": "outcomes:score_agents",
    "score archetypes": "outcomes:score_archetypes",
    "briefing": "outcomes:briefing",
    "store pattern": "knowledge:store_pattern",
    "store error": "knowledge:store_error",
    "store preference": "knowledge:store_preference",
    "recall patterns": "knowledge:recall_patterns",
    "recall errors": "knowledge:recall_errors",
    "recall preferences": "knowledge:recall_preferences",
    "score preferences": "knowledge:score_preferences",
    "search": "search:search",
    "context": "search:agent_context",
    "git merge-driver": "merge_driver:merge_driver",
    "validate": "validate:validate",
    "forget": "upkeep:forget",
    "restore": "upkeep:restore",
    "doctor": "doctor:doctor",
    "compact": "phases:compact",
    "phase-context": "phases:phase_context",
    "detect-edits": "phases:detect_edits",
    "prune": "prune:prune",
    "export": "export:export",
    "diff": "memory_diff:diff",
    "batch": "batch:batch",
}


def action(name: str) -> Action:
    """The action of hot command `name` (`store outcome`), imported only when it runs."""
    module, _, function = ACTIONS[name].partition(":")
    # `__import__`, not `importlib.import_module`: importing importlib costs a hot command 1%.
    imported = __import__(f"legion_memory.cli.actions.{module}", fromlist=[function])
    found: Action = getattr(imported, function)
    return found


def run(context: Context, name: str, options: Mapping[str, object]) -> int:
    """Run a hot command's action; its exit code (0 when it returns nothing)."""
    arguments = {key: value for key, value in options.items() if key != "ctx"}
    return action(name)(context, **arguments) or 0
