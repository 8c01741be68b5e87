"""The one door both dispatchers go through, hot commands to the lean dispatcher and the rest to
typer, with every way a run can end (an error of the tool, the operating system refusing a path, a
closed pipe, Ctrl-C) turned into one line and an exit code."""

from __future__ import annotations

import atexit
import gc
import os
import sys
from collections.abc import Callable

from legion_memory.cli.lean.dispatcher import dispatch_hoisted, load_spec
from legion_memory.cli.lean.global_options import VERSION, MissingValue, hoist
from legion_memory.cli.output import controls_shown_visibly, note, report
from legion_memory.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    LegionMemoryError,
    file_system_error,
    symlink_loop,
)

PROGRAM = "legion-memory"
# Set by the shell when it asks for completions: typer answers, whatever the words.
COMPLETION_VARIABLE = "_LEGION_MEMORY_COMPLETE"

# The interpreter's collections at exit walk every object still alive (each module's functions
# and classes, what the command read) and free nothing the process's end does not: frozen
# first, they are skipped (docs/decisions.md#no-collection-at-exit).
atexit.register(gc.freeze)


def route(args: list[str]) -> int:
    """Run one command line (the program's arguments) to its exit code."""
    try:
        with controls_shown_visibly():
            code = _route(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the handlers, not at exit
    except MissingValue as missing:
        note(f"Error: {missing} (see `{PROGRAM} --help`)")
        return EXIT_USAGE
    except BrokenPipeError:
        return _reader_left()
    except KeyboardInterrupt:
        note("Interrupted: every file is as it was or fully written (writes are atomic)")
        return EXIT_INTERRUPTED
    except OSError as error:
        return _reported(file_system_error(error))
    except RuntimeError as error:
        loop = symlink_loop(error)
        if loop is None:
            raise
        return _reported(file_system_error(loop))
    return code


def _route(args: list[str]) -> int:
    if COMPLETION_VARIABLE in os.environ:
        return run_typer(args)
    undecodable = next((arg for arg in args if _not_utf8(arg)), None)
    if undecodable is not None:
        # One refusal for every command and option: no value, ID or path of the tool's can hold
        # such bytes, and a value reaching the memory files or a budget would fail to encode.
        note(f"Error: the argument '{undecodable}' is not UTF-8 text (pass it as UTF-8)")
        return EXIT_USAGE
    spec = load_spec()
    global_tokens, command_tokens = hoist(args, spec)
    if VERSION in global_tokens:
        return print_version()
    if not args:
        # A bare invocation asks what the tool does: the help, as an answer rather than an error.
        return run_typer(["--help"], hoisted=True)
    code = _without_collector(lambda: dispatch_hoisted(global_tokens, command_tokens, spec))
    return run_typer(global_tokens + command_tokens, hoisted=True) if code is None else code


def _not_utf8(arg: str) -> bool:
    """Whether the argument held bytes that are not UTF-8: Python passes each such byte on as a
    lone surrogate, U+DC80 to U+DCFF."""
    return not arg.isascii() and any("\udc80" <= char <= "\udcff" for char in arg)


def _without_collector(run: Callable[[], int | None]) -> int | None:
    """Run a hot command with the cyclic garbage collector paused. A hot command lives for one
    call and builds no reference cycles; the collector's passes over the 100,000 records of a
    large file cost about a tenth of the whole command and free nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run()
    finally:
        if collecting:
            # The count of new objects grew while paused: the first one made after `enable`
            # would start a pass over everything the command made. Frozen then unfrozen (two
            # list splices), those objects are old and the count starts again from zero.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _command_path(args: list[str], message: str) -> str:
    """`legion-memory store outcome` for a mistake the parser made without naming its command;
    the program itself when the mistake is in a global option."""
    spec = load_spec()
    if any(f"'{opt}'" in message for param in spec["globals"] for opt in param["opts"]):
        return PROGRAM
    names = set(spec["options"]) | {name.split()[0] for name in spec["options"]}
    words = [word for word in hoist(args, spec)[1] if not word.startswith("-")][:2]
    while words and " ".join(words) not in names:
        words.pop()
    return " ".join([PROGRAM, *words])


def print_version() -> int:
    # The version is pyproject.toml's, read from the installed metadata only when asked for.
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version(PROGRAM)
    except PackageNotFoundError:
        number = "unknown (not installed)"
    print(f"{PROGRAM} {number}")
    return 0


def _reader_left() -> int:
    """The reader of a pipe went away (`legion-memory recall outcomes | head -1`): stop quietly,
    as `git log | head` does. What is still buffered goes nowhere, so that the interpreter's own
    last flush does not fail again at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def _reported(error: LegionMemoryError) -> int:
    try:
        return report(error)
    except MissingValue as missing:
        note(f"Error: {missing} (see `{PROGRAM} --help`)")
        return EXIT_USAGE
    except BrokenPipeError:
        return _reader_left()


def run_typer(args: list[str], *, hoisted: bool = False) -> int:
    """The full command line: every command, its help and its usage errors. The global options
    are moved before the command first, as for the lean dispatcher, unless they already are."""
    if not hoisted:
        try:
            global_tokens, command_tokens = hoist(args, load_spec())
        except MissingValue as missing:
            note(f"Error: {missing} (see `{PROGRAM} --help`)")
            return EXIT_USAGE
        args = global_tokens + command_tokens
    import typer
    import typer.main

    from legion_memory.cli.typer_app.app import app
    from legion_memory.cli.typer_app.help_format import plain_argument_types

    command = plain_argument_types(typer.main.get_command(app))
    if COMPLETION_VARIABLE in os.environ:
        command.main(args=args, prog_name=PROGRAM)  # answers the shell and exits
    try:
        # Parsed and run here rather than through click's main, which would answer a closed
        # pipe and Ctrl-C its own way: `main` answers them alike for both dispatchers.
        with command.make_context(PROGRAM, list(args)) as context:  # click consumes its list
            result = command.invoke(context)
    except LegionMemoryError as error:
        return report(error)
    except typer.Exit as done:
        return int(done.exit_code)
    except typer.Abort:
        note("Error: aborted")
        return 1
    except typer.TyperException as usage:
        return _usage(usage, args)
    return result if isinstance(result, int) else 0


def _usage(usage: Exception, args: list[str]) -> int:
    """A usage error names the help of the command it was made in; a bad value says what to
    give instead; a group or the program run without a command prints its help on stdout, as an
    answer (exit 0)."""
    from legion_memory.cli.typer_app.usage_errors import bad_value_line

    context = getattr(usage, "ctx", None)
    if type(usage).__name__ == "NoArgsIsHelpError" and context is not None:
        print(context.get_help())
        return 0
    line = bad_value_line(usage, args)
    if line is not None:
        note(f"Error: {line}")
        return EXIT_USAGE
    format_message = getattr(usage, "format_message", None)
    message = format_message() if format_message is not None else str(usage)
    message = " ".join(message.split())  # one line, even where the parser lists choices
    path = context.command_path if context is not None else _command_path(args, message)
    note(f"Error: {message} (see `{path} --help`)")
    return int(getattr(usage, "exit_code", EXIT_USAGE))
