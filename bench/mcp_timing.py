"""The MCP server, timed through the SDK's stdio client: from spawning `legion-memory mcp` to the
first tool list, and one tool call's latency on a project (the server already running)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench.cases import TODAY, tool
from bench.timing import BenchError, Timing, environment

START = "mcp: server start to first tool list"
CALL = "mcp: recall_outcomes call"
RECALL_ARGUMENTS: dict[str, object] = {}


def available() -> bool:
    try:
        import mcp.client.stdio  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def measure_mcp(project: Path, runs: int) -> dict[str, Timing]:
    """Medians over `runs` servers (each after one unmeasured start) and `runs` calls each."""
    import anyio

    starts: list[float] = []
    calls: list[float] = []
    for attempt in range(runs + 1):
        started, called = anyio.run(_session, project, runs)
        if attempt:  # the first start writes the bytecode caches, as the first CLI run does
            starts.append(started)
            calls += called
    return {
        START: Timing(statistics.median(starts), 0.0, runs),
        CALL: Timing(statistics.median(calls), 0.0, len(calls)),
    }


async def _session(project: Path, calls: int) -> tuple[float, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, *args = tool()
    params = StdioServerParameters(
        command=command,
        args=[*args, "--today", TODAY, "mcp", "--root", str(project)],
        env=environment(),
        cwd=project,
    )
    begin = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        started = (time.perf_counter() - begin) * 1000
        if not listed.tools:
            raise BenchError(f"{START}: no tools listed")
        latencies = []
        for _ in range(calls):
            before = time.perf_counter()
            result = await session.call_tool("recall_outcomes", RECALL_ARGUMENTS)
            latencies.append((time.perf_counter() - before) * 1000)
            if result.is_error or '"records"' not in result.content[0].text:  # type: ignore[union-attr]
                raise BenchError(f"{CALL}: {result.content}")
    return started, latencies
