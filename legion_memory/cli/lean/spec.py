"""The hot commands' options, read from the typer app and written to `hot_spec.json`.

The lean dispatcher parses hot commands from that file, so that it never needs typer; the test
suite checks that the file is exactly what this module builds from the live app, so the two
cannot drift.
Run `python -m legion_memory.cli.lean.spec` after changing a hot command's options.
"""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main

from legion_memory.cli.lean.hot_commands import ACTIONS
from legion_memory.cli.typer_app.app import app

SPEC_PATH = Path(__file__).with_name("hot_spec.json")
_SCALARS = {str: "str", int: "int", float: "float", bool: "bool", Path: "path"}


# Answered by the typer app alone (completion) or before any dispatcher runs (--version).
TYPER_ONLY = {"install_completion", "show_completion", "version", "help"}


def build_spec() -> dict[str, Any]:
    root = typer.main.get_command(app)
    leaves = dict(_leaves(root, ()))
    commands = {name: [_param(param) for param in leaves[name].params] for name in ACTIONS}
    return {
        "globals": [_param(param) for param in root.params if param.name not in TYPER_ONLY],
        "commands": commands,
        "options": {name: _option_values(command) for name, command in sorted(leaves.items())},
    }


def _leaves(command: Any, words: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    """Every command that runs (not a group), by its words (`store outcome`)."""
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield " ".join(words), command
        return
    for word, sub in subcommands.items():
        yield from _leaves(sub, (*words, word))


def _option_values(command: Any) -> dict[str, bool]:
    """Each option of a command, and whether it takes a value: what moving the global options
    before the command needs to know of every command, hot or not."""
    return {
        opt: not getattr(param, "is_flag", False)
        for param in command.params
        if param.param_type_name == "option"
        for opt in (*param.opts, *param.secondary_opts)
    }


def _param(param: Any) -> dict[str, Any]:
    kind = _kind(param.type_descriptor.annotation)
    return {
        "name": param.name,
        "argument": param.param_type_name == "argument",
        "opts": [*param.opts, *param.secondary_opts] if param.param_type_name == "option" else [],
        "negative": list(param.secondary_opts),
        "flag": bool(getattr(param, "is_flag", False)),
        # A repeated option and a variadic argument (`validate FILE...`) both give a list.
        "multiple": bool(param.multiple) or param.nargs == -1,
        "type": kind,
        "choices": _choices(param.type_descriptor.annotation),
        "default": param.default,
        "required": bool(param.required),
        "min": getattr(param, "min", None),
        "max": getattr(param, "max", None),
        "help": getattr(param, "help", None) or "",
    }


def _kind(annotation: Any) -> str:
    """The scalar kind of an option's annotation (`list[str] | None` -> `str`)."""
    if typing.get_origin(annotation) is typing.Literal:
        return "str"
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, list) and len(args) == 1:
        return _kind(args[0])
    return _SCALARS[annotation]


def _choices(annotation: Any) -> list[Any] | None:
    """The values an option accepts when its annotation names them (a Literal or an Enum)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Literal:
        return list(args)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [member.value for member in annotation]
    return _choices(args[0]) if len(args) == 1 else None


def render_spec() -> str:
    return json.dumps(build_spec(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    SPEC_PATH.write_text(render_spec(), encoding="utf-8")
    print(f"wrote {SPEC_PATH}")
