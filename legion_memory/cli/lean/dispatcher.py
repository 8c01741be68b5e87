"""The lean dispatcher: hot commands parsed from `operations/option_spec.py`, run without typer.

It accepts exactly the well-formed invocations of the hot commands (options as click parses them:
`--name value`, `--name=value`, flags, repeated options, positional arguments, global options
before or after the command) and hands anything else back, `--help`, `-h` and every mistake
included, so that the typer app answers it with its usual help and error messages: one message
per mistake, whichever dispatcher met it first.
"""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.context import Context
from legion_memory.cli.lean import hot_commands
from legion_memory.cli.lean.global_options import MissingValue, hoist
from legion_memory.cli.output import report
from legion_memory.errors import LegionMemoryError
from legion_memory.operations.option_spec import SPEC

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any

    Param = dict[str, Any]
    Spec = dict[str, Any]
_INVALID = object()
HELP = frozenset({"--help", "-h"})


def load_spec() -> Spec:
    """The commands' options; shared, never changed (every default in it is immutable)."""
    return SPEC


def dispatch(argv: list[str], spec: Spec | None = None) -> int | None:
    """The exit code of a hot command, or None when the typer app must handle `argv`."""
    spec = load_spec() if spec is None else spec
    try:
        return dispatch_hoisted(*hoist(argv, spec), spec)
    except MissingValue:
        return None


def dispatch_hoisted(global_tokens: list[str], command_tokens: list[str], spec: Spec) -> int | None:
    """`dispatch` of a command line whose global options `hoist` has already moved."""
    if HELP.intersection(command_tokens):
        return None
    name = command_name(command_tokens, spec["commands"])
    options = parse_options(global_tokens, spec["globals"])
    if name is None or options is None:
        return None
    values = parse_options(command_tokens[len(name.split()) :], spec["commands"][name])
    if values is None:
        return None
    try:
        return hot_commands.run(Context.from_options(**options), name, values)
    except LegionMemoryError as error:
        return report(error)


def command_name(tokens: list[str], commands: dict[str, list[Param]]) -> str | None:
    for words in (tokens[:2], tokens[:1]):
        name = " ".join(words)
        if name in commands:
            return name
    return None


def parse_options(tokens: list[str], params: list[Param]) -> dict[str, Any] | None:
    """Option and argument values by parameter name, defaults filled; None when click would
    complain (unknown option, missing value or required option, a value of the wrong type)."""
    by_opt = {opt: param for param in params for opt in param["opts"]}
    values: dict[str, Any] = {}
    positional: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            positional += tokens[index + 1 :]
            break
        if not token.startswith("-") or token == "-":
            positional.append(token)
        elif (consumed := _option(tokens, index, by_opt, values)) is None:
            return None
        else:
            index += consumed
        index += 1
    return _finish(params, values, positional)


def _option(
    tokens: list[str], index: int, by_opt: dict[str, Param], values: dict[str, Any]
) -> int | None:
    """Store one option's value; how many extra tokens it took, None when it is not valid."""
    name, equals, inline = tokens[index].partition("=")
    param = by_opt.get(name)
    if param is None:
        return None
    if param["flag"]:
        values[param["name"]] = name not in param["negative"]
        return None if equals else 0
    if not equals and index + 1 >= len(tokens):
        return None
    value = _convert(inline if equals else tokens[index + 1], param)
    if value is _INVALID:
        return None
    if param["multiple"]:
        values.setdefault(param["name"], []).append(value)
    else:
        values[param["name"]] = value
    return 0 if equals else 1


def _finish(
    params: list[Param], values: dict[str, Any], positional: list[str]
) -> dict[str, Any] | None:
    if not _take_arguments(params, values, positional):
        return None
    if any(value is _INVALID for value in values.values()):
        return None
    for param in params:
        if param["name"] not in values:
            if param["required"]:
                return None
            values[param["name"]] = param["default"]
    return values


def _take_arguments(params: list[Param], values: dict[str, Any], positional: list[str]) -> bool:
    """Store the positional values; False when click would read them otherwise or refuse them."""
    arguments = [param for param in params if param["argument"]]
    # A variadic argument (`validate FILE...`) takes what the others leave, as a list; only a
    # last one is read here.
    variadic = arguments.pop() if arguments and arguments[-1]["multiple"] else None
    if any(param["multiple"] for param in arguments):
        return False
    if variadic is not None and len(positional) > len(arguments):
        rest = [_convert(raw, variadic) for raw in positional[len(arguments) :]]
        if any(value is _INVALID for value in rest):
            return False
        values[variadic["name"]] = rest
        positional = positional[: len(arguments)]
    if len(positional) > len(arguments):
        return False
    for param, raw in zip(arguments, positional, strict=False):
        values[param["name"]] = _convert(raw, param)
    return True


def _convert(raw: str, param: Param) -> Any:
    kind = param["type"]
    if param["choices"] is not None and raw not in param["choices"]:
        return _INVALID
    if kind == "str":
        return raw
    if kind == "path":
        return Path(raw)
    try:
        number = int(raw) if kind == "int" else float(raw)
    except ValueError:
        return _INVALID
    low, high = param["min"], param["max"]
    if (low is not None and number < low) or (high is not None and number > high):
        return _INVALID
    return number
