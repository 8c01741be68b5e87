"""A bad option value refused by the parser, said in the words the tool's own checks use:
`--format 'html' is not valid (use one of xml, markdown)`, whichever command it was given to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def bad_value_line(usage: Exception, args: Sequence[str]) -> str | None:
    """The line for a value the parser refused (a choice, a number out of range), else None."""
    param: Any = getattr(usage, "param", None)
    if type(usage).__name__ != "BadParameter" or param is None:
        return None
    if param.param_type_name == "argument":
        raw, flag = _refused_input(usage), str(param.metavar or param.name).upper()
    elif param.opts:
        raw, flag = _given(args, param.opts), max(param.opts, key=len)
    else:
        return None
    if raw is None:
        return None
    from legion_memory.schema.secrets import SECRET_HINT, secret_kind, secret_message

    kind = secret_kind(raw)
    if kind is not None:  # a refused value is quoted back, so a secret never is
        field = flag.lstrip("-").replace("-", " ").title()
        return f"{secret_message(field, kind)} ({SECRET_HINT})"
    descriptor = param.type_descriptor
    if descriptor.is_choice:
        choices = ", ".join(str(choice) for choice in descriptor.choices)
        return f"{flag} '{raw}' is not valid (use one of {choices})"
    return _number_line(flag, raw, descriptor.annotation, getattr(param, "min", None))


def _number_line(flag: str, raw: str, annotation: Any, low: int | None) -> str | None:
    if int not in (annotation, *getattr(annotation, "__args__", ())):
        return None
    try:
        number = int(raw)
    except ValueError:
        return f"{flag} '{raw}' is not valid (use a whole number)"
    if low is not None and number < low:
        return f"{flag} {number} is not valid (use a number of {low} or more)"
    return None


def _refused_input(usage: Exception) -> str | None:
    """The value typer's validation refused, as the user typed it (an argument has no flag to
    find it by in the command line)."""
    errors = getattr(usage.__cause__, "errors", None)
    if errors is None:
        return None
    found = errors()[0].get("input") if errors() else None
    return found if isinstance(found, str) else None


def _given(args: Sequence[str], opts: Sequence[str]) -> str | None:
    """The last value given to one of `opts` (`--opt VALUE` or `--opt=VALUE`)."""
    found = None
    for index, token in enumerate(args):
        if token == "--":
            break
        name, equals, inline = token.partition("=")
        if name in opts:
            found = inline if equals else (args[index + 1] if index + 1 < len(args) else None)
    return found
