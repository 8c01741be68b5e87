"""What the help shows of positional arguments: their name and, for a closed set, its choices.

typer prints each argument's Python type next to its name (`QUERY <str>`), which tells a user
nothing the name does not; the choices of an argument like `import SOURCE` it keeps.
"""

from __future__ import annotations

from typing import Any


def plain_argument_types(command: Any) -> Any:
    """`command` and every subcommand, with argument types shown only when they are choices."""
    for param in getattr(command, "params", ()):
        descriptor = getattr(param, "type_descriptor", None)
        if param.param_type_name == "argument" and descriptor and not descriptor.is_choice:
            param.display_type_rich = _no_type
    for sub in getattr(command, "commands", {}).values():
        plain_argument_types(sub)
    return command


def _no_type(ctx: Any) -> None:
    return None
