"""What `legion-memory mcp` does: start the stdio MCP server, or say in one line that the optional
`mcp` extra is not installed."""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.errors import LegionMemoryError

INSTALL_HINT = 'install it with: pip install "legion-memory[mcp]"'


class MissingExtra(LegionMemoryError):
    """An optional dependency a command needs is not installed."""


def mcp(context: Context, root: Path | None) -> int:
    try:
        from legion_memory.mcp.server import Options, serve
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] not in {"mcp", "mcp_types", "anyio"}:
            raise
        raise MissingExtra("the MCP server needs the mcp extra", hint=INSTALL_HINT) from None
    chosen = Context(root, False, context.today_option, context.branch_option) if root else context
    options = Options(
        chosen.root, context.today_option, context.branch_option, context.catalog_option
    )
    return serve(options)
