"""`--scope project|global|all` and `--include-global`, ready for any command to take.

A command adds `scope: ScopeOption = scopes.PROJECT` to its parameters; its action calls
`context.tiers(scope)` (reads, project first) or `context.target(scope)` (writes, one tier).
"""

from __future__ import annotations

from typing import Annotated

import typer

from legion_memory.cli.typer_app.choices import ReadScope, WriteScope

ScopeOption = Annotated[
    ReadScope,
    typer.Option(
        "--scope",
        help="project (.planning/memory), global ($LEGION_MEMORY_HOME, default "
        "~/.legion/memory) or all (project results first).",
    ),
]
WriteScopeOption = Annotated[
    WriteScope,
    typer.Option("--scope", help="project (.planning/memory) or global ($LEGION_MEMORY_HOME)."),
]
IncludeGlobalOption = Annotated[
    bool,
    typer.Option(
        "--include-global",
        help="Count the global tier's records too (scores are project-only by default).",
    ),
]
