"""The command groups. Command modules add their commands to these; app.py mounts them."""

from __future__ import annotations

import typer


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)


store_app = _group("Store one record (outcome, pattern, error, preference).")
recall_app = _group("Recall records, best first, with recency decay.")
score_app = _group("Scores for Legion's agent recommendation engine.")
git_app = _group("Git collaboration: merge driver, hooks, install.")

GROUPS = {"store": store_app, "recall": recall_app, "score": score_app, "git": git_app}
