"""`--scope project|global|all` and `--include-global`, ready for any command to take.

A command adds `scope: ScopeOption = scopes.PROJECT` to its parameters and calls
`tiers(context, scope)` (reads, project first) or `target(context, scope)` (writes, one tier).
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from .. import scopes
from .context import Context

ScopeOption = Annotated[
    str,
    typer.Option(
        "--scope",
        help="project (.planning/memory), global ($LEGION_MEMORY_HOME, default "
        "~/.legion/memory) or all (project results first).",
    ),
]
WriteScopeOption = Annotated[
    str,
    typer.Option("--scope", help="project (.planning/memory) or global ($LEGION_MEMORY_HOME)."),
]
IncludeGlobalOption = Annotated[
    bool,
    typer.Option(
        "--include-global",
        help="Count the global tier's records too (scores are project-only by default).",
    ),
]


def tiers(context: Context, scope: str) -> list[scopes.Scoped]:
    """The tiers a read covers, project first."""
    return scopes.memories(scope, context.memory, os.environ)


def target(context: Context, scope: str) -> scopes.Scoped:
    """The one tier a write goes to."""
    return scopes.single(scope, context.memory, os.environ)


def score_tiers(context: Context, include_global: bool) -> list[scopes.Scoped]:
    """The tiers agent, archetype and preference scores count."""
    return scopes.for_scores(context.memory, os.environ, include_global=include_global)
