"""The options of each operation as the command line declares them (`operations/option_spec.py`,
generated from the typer app): their JSON schema, and named arguments checked against them as the
command line checks its options. The MCP server and batch mode take options by these names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from legion_memory.errors import InputError
from legion_memory.operations.option_spec import SPEC

_JSON_TYPES = {"str": "string", "path": "string", "int": "integer", "float": "number"}
_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {
    "bool": bool,
    "int": int,
    "float": (int, float),
}
Param = dict[str, Any]


def command_params() -> dict[str, list[dict[str, Any]]]:
    """Each command's options, with their help (kept apart from the spec the dispatcher loads)."""
    from legion_memory.operations.option_help import HELP

    commands: dict[str, list[dict[str, Any]]] = SPEC["commands"]
    return {
        name: [{**param, "help": HELP[name].get(param["name"], "")} for param in params]
        for name, params in commands.items()
    }


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


def arguments(label: str, params: list[Param], given: dict[str, Any]) -> dict[str, Any]:
    """The operation's keyword arguments: every option, defaults filled, each value checked as
    the command line checks it (an InputError, exit 2, names the first wrong one)."""
    by_name = {param["name"]: param for param in params}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise InputError(f"{label} has no argument '{unknown[0]}'", hint=_known(by_name))
    values: dict[str, Any] = {}
    for name, param in by_name.items():
        if name not in given:
            if param["required"]:
                raise InputError(f"{label} needs '{name}'", hint=_known(by_name))
            values[name] = param["default"]
            continue
        values[name] = _value(label, param, given[name])
    return values


def _known(by_name: dict[str, Any]) -> str:
    return f"its arguments are {', '.join(by_name)}"


def _value(label: str, param: dict[str, Any], raw: Any) -> Any:
    if param["multiple"]:
        if not isinstance(raw, list):
            raise _wrong(label, param, raw, "a list")
        return [_scalar(label, param, item) for item in raw]
    return _scalar(label, param, raw)


def _scalar(label: str, param: dict[str, Any], raw: Any) -> Any:
    kind = "bool" if param["flag"] else param["type"]
    wanted = _PYTHON_TYPES.get(kind, str)
    if not isinstance(raw, wanted) or (kind != "bool" and isinstance(raw, bool)):
        raise _wrong(label, param, raw, _JSON_TYPES.get(kind, "boolean"))
    low, high, choices = param["min"], param["max"], param.get("choices")
    if (low is not None and raw < low) or (high is not None and raw > high):
        raise _wrong(label, param, raw, _bounds(low, high))
    if choices and raw not in choices:
        raise _wrong(label, param, raw, f"one of {', '.join(map(str, choices))}")
    return Path(str(raw)) if kind == "path" else raw


def _bounds(low: float | None, high: float | None) -> str:
    if low is None:
        return f"at most {high}"
    return f"at least {low}" if high is None else f"from {low} to {high}"


def _wrong(label: str, param: dict[str, Any], raw: Any, wanted: str) -> InputError:
    return InputError(f"{label}: '{param['name']}' is {json.dumps(raw)}", hint=f"give {wanted}")
