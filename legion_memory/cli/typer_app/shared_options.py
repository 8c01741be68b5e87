"""Options several commands declare alike, so that one mistake gets one message everywhere."""

from __future__ import annotations

from typing import Annotated, Any

import typer

TagsOption = Annotated[str, typer.Option(metavar="TAGS", help="Comma-separated keywords.")]
TagFilter = Annotated[
    list[str] | None,
    typer.Option("--tag", metavar="TAG", help="Keep records with this tag (repeatable)."),
]
BranchFilter = Annotated[
    str,
    typer.Option(
        "--branch",
        metavar="BRANCH",
        help="all, current (the checked-out branch) or a branch name.",
    ),
]


def agent_filter(help_text: str) -> Any:
    """`--agent AGENT`, a filter on the agent a record credits."""
    return typer.Option("--agent", metavar="AGENT", help=help_text)


def limit_option(what: str) -> Any:
    """`--limit N`, at least 1: refused by the parser with the same words for every command."""
    return typer.Option("--limit", min=1, metavar="N", help=f"At most this many {what}.")
