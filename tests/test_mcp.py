"""`legion-memory mcp` end to end: the SDK's own stdio client against a spawned server, compared
with the command line's --json output byte for byte."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.client.stdio")

from mcp.client.session import ClientSession
from support.mcp_client import TODAY, text_of, with_session
from support.processes import REPO_ROOT, read_bytes_of, run_process

from legion_memory.cli.lean.hot_commands import ACTIONS
from legion_memory.mcp.tools import TOOLS
from legion_memory.operations.option_spec import SPEC

GLOBALS = ("--today", TODAY, "--branch", "main")
READ_ONLY = {
    "recall_outcomes", "recall_patterns", "recall_errors", "recall_preferences", "search",
    "context", "score_agents", "score_archetypes", "score_preferences", "briefing", "validate",
}  # fmt: skip
# Every tool once, in an order that gives each something to find: the tool's arguments and the
# command line that does the same.
CALLS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("store_outcome",
     {"phase": "1", "plan": "01-01", "agent": "backend-dev", "outcome": "success",
      "summary": "`npm run build | tee build.log` exits 0", "importance": 4, "tags": "build"},
     ("store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "backend-dev",
      "--outcome", "success", "--summary", "`npm run build | tee build.log` exits 0",
      "--importance", "4", "--tags", "build")),
    ("store_outcome",
     {"phase": "1", "plan": "01-02", "agent": "backend-dev", "outcome": "failed",
      "summary": "login broke", "task_type": "backend"},
     ("store", "outcome", "--phase", "1", "--plan", "01-02", "--agent", "backend-dev",
      "--outcome", "failed", "--summary", "login broke", "--task-type", "backend")),
    ("store_pattern",
     {"pattern": "Cache the build", "situation": "slow CI", "reuse": "builds", "source": "O-001"},
     ("store", "pattern", "--pattern", "Cache the build", "--context", "slow CI", "--reuse",
      "builds", "--source", "O-001")),
    ("store_error", {"signature": "EADDRINUSE :3000", "fix": "kill the old server",
                     "agent": "backend-dev", "resolved": True},
     ("store", "error", "--signature", "EADDRINUSE :3000", "--fix", "kill the old server",
      "--agent", "backend-dev", "--resolved")),
    ("store_error", {"signature": "EADDRINUSE :3000", "fix": "kill it", "agent": "backend-dev",
                     "resolved": False},
     ("store", "error", "--signature", "EADDRINUSE :3000", "--fix", "kill it", "--agent",
      "backend-dev", "--unresolved")),
    ("store_preference",
     {"decision_point": "review-verdict", "situation": "review", "proposed": "merge",
      "choice": "accepted", "signal": "positive", "agent": "backend-dev"},
     ("store", "preference", "--decision-point", "review-verdict", "--context", "review",
      "--proposed", "merge", "--choice", "accepted", "--signal", "positive", "--agent",
      "backend-dev")),
    ("recall_outcomes", {"tag": ["build"]}, ("recall", "outcomes", "--tag", "build")),
    ("recall_outcomes", {}, ("recall", "outcomes")),
    ("recall_patterns", {}, ("recall", "patterns")),
    ("recall_errors", {"error_text": "EADDRINUSE"}, ("recall", "errors", "--error-text",
                                                     "EADDRINUSE")),
    ("recall_preferences", {"signal": "positive"}, ("recall", "preferences", "--signal",
                                                    "positive")),
    ("search", {"query": "build"}, ("search", "build")),
    ("context", {"agent": "backend-dev", "task": "fix the build", "block_format": "markdown"},
     ("context", "--agent", "backend-dev", "--task", "fix the build", "--format", "markdown")),
    ("score_agents", {"task_type": ["general", "backend"]},
     ("score", "agents", "--task-type", "general,backend")),
    ("score_archetypes", {}, ("score", "archetypes")),
    ("score_preferences", {}, ("score", "preferences")),
    ("briefing", {}, ("briefing",)),
    ("forget", {"record_id": "P-001"}, ("forget", "P-001")),
    ("restore", {"record_id": "P-001"}, ("restore", "P-001")),
    ("validate", {}, ("validate",)),
]  # fmt: skip


@pytest.fixture
def project(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LEGION_CATALOG", "CLAUDE_PLUGIN_ROOT"):
        monkeypatch.delenv(name, raising=False)
    run_process("init", cwd=repo, check=True)
    return repo


def _env(project: Path) -> dict[str, str]:
    return {"LEGION_MEMORY_HOME": str(project.parent / f"{project.name}-global")}


def test_every_tool_is_listed_with_the_commands_schema_and_annotations(project: Path) -> None:
    async def listed(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in with_session(project, _env(project), listed)}
    assert sorted(tools) == sorted(tool.name for tool in TOOLS)
    assert {tool.command for tool in TOOLS} <= set(ACTIONS)
    spec = SPEC
    for tool in TOOLS:
        listed_tool = tools[tool.name]
        params = spec["commands"][tool.command]
        schema = listed_tool.input_schema
        assert sorted(schema["properties"]) == sorted(p["name"] for p in params), tool.name
        assert sorted(schema.get("required", [])) == sorted(
            p["name"] for p in params if p["required"]
        )
        assert listed_tool.annotations.read_only_hint is (tool.name in READ_ONLY)
        assert listed_tool.annotations.destructive_hint is (tool.name == "forget")
    assert tools["recall_outcomes"].input_schema == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "tag": {"type": "array", "items": {"type": "string"},
                    "description": "Keep records with any of these tags (repeatable)."},
            "agent": {"type": "string", "description": "Keep records crediting this agent."},
            "task_type": {"type": "string", "description": "Keep records of this task type."},
            "branch": {"type": "string", "default": "all",
                       "description": "all, current (the checked-out branch) or a branch name."},
            "limit": {"type": "integer", "minimum": 1, "default": 20,
                      "description": "At most this many records."},
            "scope": tools["recall_outcomes"].input_schema["properties"]["scope"],
        },
    }  # fmt: skip
    assert tools["store_error"].input_schema["properties"]["resolved"]["type"] == "boolean"
    assert tools["validate"].input_schema["properties"]["files"]["type"] == "array"


def test_every_tool_answers_what_the_cli_prints_under_json(project: Path) -> None:
    twin = project.parent / "twin"
    shutil.copytree(project, twin)
    cli_outputs = []
    for _, _, argv in CALLS:
        done = run_process("--json", *GLOBALS, *argv, cwd=twin, env=_env(twin))
        cli_outputs.append((done.code, done.stdout))

    async def calls(session: ClientSession) -> list[tuple[int, str]]:
        answers = []
        for name, arguments, _ in CALLS:
            result = await session.call_tool(name, arguments)
            code = (result.structured_content or {}).get("exit_code", 0)
            answers.append((code, text_of(result)))
        return answers

    answers = with_session(project, _env(project), calls)
    for (name, _, _), answer, expected in zip(CALLS, answers, cli_outputs, strict=True):
        assert answer == expected, name
    assert read_bytes_of(project / ".planning") == read_bytes_of(twin / ".planning")


def test_a_store_through_mcp_while_cli_processes_store_loses_nothing(project: Path) -> None:
    env = _env(project)
    command = [sys.executable, "-m", "legion_memory", *GLOBALS]
    store = ("store", "outcome", "--phase", "1", "--agent", "qa", "--outcome", "success",
             "--importance", "2")  # fmt: skip
    workers = [
        subprocess.Popen(
            [*command, *store, "--plan", f"02-{n:02d}", "--summary", f"cli {n}"],
            cwd=project, env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for n in range(6)
    ]  # fmt: skip

    async def stores(session: ClientSession) -> list[bool]:
        errors = []
        for n in range(6):
            result = await session.call_tool("store_outcome", {
                "phase": "1", "plan": f"01-{n:02d}", "agent": "qa", "outcome": "success",
                "summary": f"mcp {n}", "importance": 2,
            })  # fmt: skip
            errors.append(bool(result.is_error))
        return errors

    assert with_session(project, env, stores) == [False] * 6
    assert [worker.wait(timeout=60) for worker in workers] == [0] * 6
    rows = [
        line.split(" | ")
        for line in (project / ".planning/memory/OUTCOMES.md").read_text().splitlines()
        if line.startswith("| O-")
    ]
    assert sorted(row[0] for row in rows) == [f"| O-{n:03d}" for n in range(1, 13)]
    summaries = sorted(row[-1].rstrip(" |") for row in rows)
    assert summaries == sorted([f"cli {n}" for n in range(6)] + [f"mcp {n}" for n in range(6)])


BAD: list[tuple[str, dict[str, Any], str | None]] = [
    ("store_outcome", {"phase": "1", "plan": "01-01", "agent": "a", "outcome": "success",
                       "summary": "s", "importance": "high"},
     "Error: store_outcome: 'importance' is \"high\" (give integer)"),
    ("store_outcome", {"phase": "1", "plan": "01-01", "agent": "a", "outcome": "success"},
     "Error: missing --summary (add it, or use --from-summary PATH)"),
    ("recall_outcomes", {"limit": 0}, "Error: recall_outcomes: 'limit' is 0 (give at least 1)"),
    ("recall_patterns", {"colour": "red"},
     "Error: recall_patterns has no argument 'colour' (its arguments are tag, branch, limit, "
     "scope)"),
    ("forget", {"record_id": "X-1"}, None),
    ("store_pattern", {"pattern": "p", "situation": "c", "reuse": "r", "scope": "nowhere"},
     'Error: store_pattern: \'scope\' is "nowhere" (give one of project, global)'),
    ("no_such_tool", {}, "Error: no tool named 'no_such_tool' (list the tools)"),
]  # fmt: skip


def test_bad_input_is_a_tool_error_with_the_cli_line_and_changes_no_file(project: Path) -> None:
    before = read_bytes_of(project)

    async def calls(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, arguments) for name, arguments, _ in BAD]

    results = with_session(project, _env(project), calls)
    for (name, arguments, expected), result in zip(BAD, results, strict=True):
        line = expected
        assert result.is_error, name
        assert result.structured_content["exit_code"] == 2, name
        if line is None:  # the same one line the command line prints
            argv = {"forget": ("forget", "X-1"),
                    "store_pattern": ("store", "pattern", "--pattern", "p", "--context", "c",
                                      "--reuse", "r")}[name]  # fmt: skip
            done = run_process(*GLOBALS, *argv, cwd=project, env=_env(project))
            line = done.stderr.rstrip("\n")
            assert done.code == 2
        assert text_of(result) == line, arguments
    assert read_bytes_of(project) == before


def test_a_secret_is_refused_as_the_cli_refuses_it(project: Path) -> None:
    before = read_bytes_of(project)
    summary = "key AKIAABCDEFGHIJKLMNOP leaked"

    async def call(session: ClientSession) -> Any:
        return await session.call_tool("store_outcome", {
            "phase": "1", "plan": "01-01", "agent": "a", "outcome": "success", "summary": summary,
        })  # fmt: skip

    result = with_session(project, _env(project), call)
    done = run_process(
        *GLOBALS, "store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a",
        "--outcome", "success", "--summary", summary, cwd=project, env=_env(project),
    )  # fmt: skip
    assert result.is_error
    assert (result.structured_content["exit_code"], text_of(result)) == (
        done.code,
        done.stderr.rstrip("\n").splitlines()[-1],
    )
    assert "AKIAABCDEFGHIJKLMNOP" not in text_of(result)
    assert read_bytes_of(project) == before


def test_without_the_extra_the_command_says_so_in_one_line(project: Path) -> None:
    blocked = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"  # what an install without the extra finds
        "from legion_memory.cli.entry import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocked, "mcp", "--root", str(project)],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "Error: the MCP server needs the mcp extra "
        '(install it with: pip install "legion-memory[mcp]")\n'
    )
