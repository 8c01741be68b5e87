"""The retrieval commands (`search`, `context`): parse -> one call into `operations.retrieval`
-> print.

No typer here: the lean dispatcher and the typer app call these alike, through `hot_commands.run`.
"""

from __future__ import annotations

import sys

from legion_memory.cli.context import Context
from legion_memory.cli.output import emit, markdown_table
from legion_memory.operations import retrieval
from legion_memory.storage import scopes

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any


def search(context: Context, query: str, file: str, limit: int, scope: str) -> None:
    from legion_memory.search.ranking import shown_snippet

    found = retrieval.search_memory(context, query=query, file=file, limit=limit, scope=scope)
    marked = [scope] if scope != scopes.PROJECT else []
    headers = ["#", *(["Scope"] if marked else []), "File", "ID", "Score"]
    rows = [
        [
            number,
            *([hit.scope] if marked else []),
            f"{hit.item.entry.file}:{hit.item.entry.line}",
            hit.item.entry.id,
            f"{hit.item.score:.3f}",
            shown_snippet(hit.item.entry, found.result.query),
        ]
        for number, hit in enumerate(found.result.hits, start=1)
    ]
    human = markdown_table([*headers, "Snippet"], rows) if rows else "no matches"
    emit(context, found.to_json(), human)


def agent_context(context: Context, **options: Any) -> None:
    from legion_memory.operations.prompt_context import agent_context

    found = agent_context(context, **options)
    if context.json:
        emit(context, found.to_json(), "")
    else:
        sys.stdout.write(found.text)
