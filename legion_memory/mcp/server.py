"""`legion-memory mcp`: a stdio MCP server whose tools call the same operations as the command line
and answer with the same JSON it prints under --json (docs/decisions.md#mcp-server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from legion_memory.errors import LegionMemoryError, WriteError
from legion_memory.mcp.tools import BY_NAME, TOOLS, operation
from legion_memory.operations.options import arguments, command_params, input_schema
from legion_memory.operations.project import Project

NAME = "legion-memory"


class Options:
    """The global options the server was started with; each tool call reads its project anew
    (today's date, the branch and the settings may change while the server runs)."""

    def __init__(self, root: Path, today: str | None, branch: str | None, catalog: Path | None):
        self.root, self.today, self.branch, self.catalog = root, today, branch, catalog

    def project(self) -> Project:
        def notice(line: str) -> None:
            print(line, file=sys.stderr)

        project = Project(self.root, self.today, self.branch, self.catalog, notice)
        _ = project.root, project.today
        return project


def tool_list() -> list[types.Tool]:
    params = command_params()
    return [
        types.Tool(
            name=tool.name,
            description=f"`legion-memory {tool.command}`",
            input_schema=input_schema(params[tool.command]),
            annotations=types.ToolAnnotations(
                read_only_hint=tool.read_only,
                destructive_hint=tool.destructive,
                idempotent_hint=tool.read_only,
                open_world_hint=False,
            ),
        )
        for tool in TOOLS
    ]


def call(options: Options, name: str, given: dict[str, Any]) -> types.CallToolResult:
    """Run one tool: its result as the CLI's --json text, or its error as a tool error carrying
    the CLI's one line and exit code (and, for a failed write, the record)."""
    tool = BY_NAME.get(name)
    try:
        if tool is None:
            from legion_memory.errors import InputError

            raise InputError(f"no tool named '{name}'", hint="list the tools")
        values = arguments(tool.name, command_params()[tool.command], given)
        result = operation(tool)(options.project(), **values)
    except LegionMemoryError as error:
        return _error(error)
    data = result.to_json()
    text = "" if data is None else json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    code = getattr(result, "exit_code", 0)  # validate fails (1) when a file has an error
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content={"result": data, "exit_code": code},
        is_error=code != 0,
    )


def _error(error: LegionMemoryError) -> types.CallToolResult:
    line = f"Error: {error.line()}"
    record = error.record if isinstance(error, WriteError) else ""
    if record:
        line += f"\nThe record was not stored. Here it is in full, to add by hand:\n{record}"
    structured = {"error": error.line(), "exit_code": error.exit_code, "record": record}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=line)],
        structured_content=structured,
        is_error=True,
    )


def serve(options: Options) -> int:
    """Serve tools on stdin/stdout until the client closes the connection."""

    async def list_tools(_: Any, __: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(_: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        given = dict(params.arguments or {})
        return await anyio.to_thread.run_sync(call, options, params.name, given)

    server: Server[Any] = Server(NAME, on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
    return 0
