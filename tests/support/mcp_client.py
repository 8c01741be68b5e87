"""A real MCP client session against a spawned `legion-memory mcp`, through the SDK's stdio
client."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from support.processes import REPO_ROOT

T = TypeVar("T")
TODAY = "2026-03-10"


def server(root: Path, env: dict[str, str]) -> StdioServerParameters:
    """`python -m legion_memory --today ... --branch main mcp --root ROOT` as the host starts it."""
    args = ["-m", "legion_memory", "--today", TODAY, "--branch", "main", "mcp", "--root", str(root)]
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **env}
    return StdioServerParameters(command=sys.executable, args=args, env=full_env, cwd=root)


def with_session(
    root: Path, env: dict[str, str], work: Callable[[ClientSession], Awaitable[T]]
) -> T:
    """Start the server, initialise a session, run `work` in it, and stop the server."""

    async def run() -> T:
        async with (
            stdio_client(server(root, env)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(run)


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)
