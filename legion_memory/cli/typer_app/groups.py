"""The command groups. Command modules add their commands to these; app.py mounts them."""

from __future__ import annotations

from typing import Any

import typer

from legion_memory.cli.lean import hot_commands


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)


store_app = _group("Store one record (outcome, pattern, error, preference).")
recall_app = _group("Recall records, best first, with recency decay.")
score_app = _group("Scores for Legion's agent recommendation engine.")
git_app = _group("Git collaboration: merge driver, hooks, install.")

GROUPS = {"store": store_app, "recall": recall_app, "score": score_app, "git": git_app}


def run_hot(ctx: typer.Context, name: str, options: dict[str, Any]) -> None:
    """Hand a hot command's options (the wrapper's `locals()`) to its action, as `fast.py` does."""
    code = hot_commands.run(ctx.obj, name, options)
    if code:
        raise typer.Exit(code)
