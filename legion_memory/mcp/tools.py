"""The MCP tools: each a workflow command's operation, its input schema derived from the command's
options in `hot_spec.json` (the definition the lean dispatcher parses), its arguments checked as
the command line checks them."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any, NamedTuple

from legion_memory.errors import InputError

SPEC_PATH = Path(__file__).parent.parent / "cli" / "lean" / "hot_spec.json"
_JSON_TYPES = {"str": "string", "path": "string", "int": "integer", "float": "number"}
_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {
    "bool": bool,
    "int": int,
    "float": (int, float),
}


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
    Tool("context", "context", "retrieval:agent_context", True),
    Tool("score_agents", "score agents", "outcomes:score_agents", True),
    Tool("score_archetypes", "score archetypes", "outcomes:score_archetypes", True),
    Tool("score_preferences", "score preferences", "knowledge:score_preferences", True),
    Tool("briefing", "briefing", "outcomes:memory_briefing", True),
    Tool("forget", "forget", "upkeep:forget_record", False, destructive=True),
    Tool("restore", "restore", "upkeep:restore_record", False),
    Tool("validate", "validate", "upkeep:validate", True),
]
BY_NAME = {tool.name: tool for tool in TOOLS}


def command_params() -> dict[str, list[dict[str, Any]]]:
    spec: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    return {name: params for name, params in spec["commands"].items()}


def input_schema(params: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON schema with the options' names, types, choices, bounds and defaults."""
    properties = {param["name"]: _property(param) for param in params}
    required = [param["name"] for param in params if param["required"]]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["additionalProperties"] = False
    if required:
        schema["required"] = required
    return schema


def _property(param: dict[str, Any]) -> dict[str, Any]:
    scalar: dict[str, Any] = {"type": "boolean" if param["flag"] else _JSON_TYPES[param["type"]]}
    for key, word in (("min", "minimum"), ("max", "maximum"), ("choices", "enum")):
        if param.get(key) is not None:
            scalar[word] = param[key]
    found = {"type": "array", "items": scalar} if param["multiple"] else scalar
    if param["default"] is not None:
        found["default"] = param["default"]
    if param.get("help"):
        found["description"] = param["help"]
    return found


def operation(tool: Tool) -> Callable[..., Any]:
    module, _, function = tool.operation.partition(":")
    found: Callable[..., Any] = getattr(
        import_module(f"legion_memory.operations.{module}"), function
    )
    return found


def arguments(tool: Tool, params: list[dict[str, Any]], given: dict[str, Any]) -> dict[str, Any]:
    """The operation's keyword arguments: every option, defaults filled, each value checked as
    the command line checks it (an InputError, exit 2, names the first wrong one)."""
    by_name = {param["name"]: param for param in params}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise InputError(f"{tool.name} has no argument '{unknown[0]}'", hint=_known(by_name))
    values: dict[str, Any] = {}
    for name, param in by_name.items():
        if name not in given:
            if param["required"]:
                raise InputError(f"{tool.name} needs '{name}'", hint=_known(by_name))
            values[name] = param["default"]
            continue
        values[name] = _value(tool, param, given[name])
    return values


def _known(by_name: dict[str, Any]) -> str:
    return f"its arguments are {', '.join(by_name)}"


def _value(tool: Tool, param: dict[str, Any], raw: Any) -> Any:
    if param["multiple"]:
        if not isinstance(raw, list):
            raise _wrong(tool, param, raw, "a list")
        return [_scalar(tool, param, item) for item in raw]
    return _scalar(tool, param, raw)


def _scalar(tool: Tool, param: dict[str, Any], raw: Any) -> Any:
    kind = "bool" if param["flag"] else param["type"]
    wanted = _PYTHON_TYPES.get(kind, str)
    if not isinstance(raw, wanted) or (kind != "bool" and isinstance(raw, bool)):
        raise _wrong(tool, param, raw, _JSON_TYPES.get(kind, "boolean"))
    low, high, choices = param["min"], param["max"], param.get("choices")
    if (low is not None and raw < low) or (high is not None and raw > high):
        raise _wrong(tool, param, raw, _bounds(low, high))
    if choices and raw not in choices:
        raise _wrong(tool, param, raw, f"one of {', '.join(map(str, choices))}")
    return Path(str(raw)) if kind == "path" else raw


def _bounds(low: float | None, high: float | None) -> str:
    if low is None:
        return f"at most {high}"
    return f"at least {low}" if high is None else f"from {low} to {high}"


def _wrong(tool: Tool, param: dict[str, Any], raw: Any, wanted: str) -> InputError:
    return InputError(f"{tool.name}: '{param['name']}' is {json.dumps(raw)}", hint=f"give {wanted}")
