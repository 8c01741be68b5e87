"""The MCP tools: each a workflow command's operation, with the command's options (their schema
and checks are `operations.options`')."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, NamedTuple


class Tool(NamedTuple):
    """One tool: the command whose options it takes, the operation it calls, and whether it only
    reads or may take a record out of its file."""

    name: str
    command: str
    operation: str
    read_only: bool
    destructive: bool = False


TOOLS = [
    Tool("store_outcome", "store outcome", "outcomes:store_outcome", False),
    Tool("store_pattern", "store pattern", "knowledge:store_pattern", False),
    Tool("store_error", "store error", "knowledge:store_error", False),
    Tool("store_preference", "store preference", "knowledge:store_preference", False),
    Tool("recall_outcomes", "recall outcomes", "outcomes:recall_outcomes", True),
    Tool("recall_patterns", "recall patterns", "knowledge:recall_patterns", True),
    Tool("recall_errors", "recall errors", "knowledge:recall_errors", True),
    Tool("recall_preferences", "recall preferences", "knowledge:recall_preferences", True),
    Tool("search", "search", "retrieval:search_memory", True),
    Tool("context", "context", "prompt_context:agent_context", True),
    Tool("score_agents", "score agents", "outcomes:score_agents", True),
    Tool("score_archetypes", "score archetypes", "outcomes:score_archetypes", True),
    Tool("score_preferences", "score preferences", "knowledge:score_preferences", True),
    Tool("briefing", "briefing", "outcomes:memory_briefing", True),
    Tool("forget", "forget", "upkeep:forget_record", False, destructive=True),
    Tool("restore", "restore", "upkeep:restore_record", False),
    Tool("validate", "validate", "validation:validate", True),
]
BY_NAME = {tool.name: tool for tool in TOOLS}


def operation(tool: Tool) -> Callable[..., Any]:
    module, _, function = tool.operation.partition(":")
    found: Callable[..., Any] = getattr(
        import_module(f"legion_memory.operations.{module}"), function
    )
    return found
