"""What `legion-memory batch` does: run JSON lines of commands from stdin in this one process, in
order, printing one JSON result per line; a failed line gets its error and exit code, the rest run
(docs/decisions.md#batch).

A line is `{"command": ["recall", "outcomes"], "options": {"tag": ["api"]}}` (options by their
parameter names, checked as the command line checks them), `{"argv": ["recall", "outcomes",
"--tag", "api"]}` or the bare list `["recall", "outcomes", "--tag", "api"]`.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from legion_memory.cli.context import Context
from legion_memory.cli.lean import dispatcher, hot_commands
from legion_memory.errors import InputError, LegionMemoryError, WriteError
from legion_memory.storage import reading

NOT_IN_A_BATCH = ("batch", "git merge-driver")


def batch(context: Context) -> int:
    """Every line's result on stdout as it finishes; the highest exit code of the lines."""
    worst = 0
    with reading.parses_kept():
        for number, line in enumerate(sys.stdin, start=1):
            if not line.strip():
                continue
            result = run_line(context, number, line)
            worst = max(worst, int(result["exit_code"]))
            print(json.dumps(result, ensure_ascii=False), flush=True)
    return worst


def run_line(context: Context, number: int, line: str) -> dict[str, Any]:
    """One line run as its command would run with --json, with the batch's global options."""
    out, err = io.StringIO(), io.StringIO()
    command = _words(line)
    try:
        command, options = _command(line)
        line_context = Context(context.root, True, context.today_option, context.branch_option,
                               context.catalog_option)  # fmt: skip
        with redirect_stdout(out), redirect_stderr(err):
            code = hot_commands.run(line_context, " ".join(command), options)
    except LegionMemoryError as error:
        record = error.record if isinstance(error, WriteError) else ""
        failed = {"error": error.line(), "record": record, "notes": _lines(err)}
        return {"line": number, "command": command, "exit_code": error.exit_code, **failed}
    except Exception as bug:  # a batch stops on nothing: the other lines still run
        failed = {"error": f"internal error: {type(bug).__name__}: {bug}", "record": ""}
        return {"line": number, "command": command, "exit_code": 1, **failed, "notes": _lines(err)}
    text = out.getvalue()
    return {
        "line": number,
        "command": command,
        "exit_code": code,
        "result": _result(text),
        "notes": _lines(err),
    }


def _words(line: str) -> list[str]:
    """The command's words as the line names them, to report a line that fails before it runs."""
    try:
        given = json.loads(line)
    except json.JSONDecodeError:
        return []
    words = given.get("command", given.get("argv")) if isinstance(given, dict) else given
    words = [word for word in words if isinstance(word, str)] if isinstance(words, list) else []
    return words[: 2 if words and not words[0].startswith("-") else 0]


def _command(line: str) -> tuple[list[str], dict[str, Any]]:
    """The command's words and its option values, from either form of a line."""
    try:
        given = json.loads(line)
    except json.JSONDecodeError as bad:
        raise InputError(f"not JSON: {bad.msg}", hint=_FORMS) from None
    argv = given.get("argv") if isinstance(given, dict) else given
    if isinstance(argv, list) and all(isinstance(word, str) for word in argv):
        return _from_argv(argv)
    if isinstance(given, dict) and isinstance(given.get("command"), list):
        return _from_options(given["command"], given.get("options", {}))
    raise InputError("a line is a command with options, or an argv list", hint=_FORMS)


_FORMS = 'e.g. {"command": ["recall", "outcomes"], "options": {}} or ["recall", "outcomes"]'


def _from_argv(argv: list[str]) -> tuple[list[str], dict[str, Any]]:
    commands = _batch_commands()
    name = dispatcher.command_name(argv, commands)
    if name is None:
        raise InputError(f"'{' '.join(argv[:2])}' is not a command a batch runs", hint=_known())
    values = dispatcher.parse_options(argv[len(name.split()) :], commands[name])
    if values is None:
        usage = f"legion-memory {name} --help"
        raise InputError(f"the options of '{name}' do not parse", hint=f"see `{usage}`")
    return name.split(), values


def _from_options(command: list[Any], options: Any) -> tuple[list[str], dict[str, Any]]:
    from legion_memory.operations.options import arguments

    name = " ".join(str(word) for word in command)
    commands = _batch_commands()
    if name not in commands:
        raise InputError(f"'{name}' is not a command a batch runs", hint=_known())
    if not isinstance(options, dict):
        raise InputError(f"the options of '{name}' are not an object", hint=_FORMS)
    return name.split(), arguments(name, commands[name], options)


def _batch_commands() -> dict[str, list[dispatcher.Param]]:
    spec = dispatcher.load_spec()["commands"]
    return {name: params for name, params in spec.items() if name not in NOT_IN_A_BATCH}


def _known() -> str:
    return "it runs " + ", ".join(sorted(_batch_commands()))


def _result(text: str) -> object:
    """The command's --json output as JSON; text for the commands that print text (csv export)."""
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()
