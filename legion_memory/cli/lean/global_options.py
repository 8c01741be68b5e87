"""Global options anywhere on the command line: moved before the command for both dispatchers.

Click reads a group's options only before its subcommand, so `recall outcomes --json` would be
refused. Every invocation is rewritten here first, the same way whichever dispatcher then parses
it, so the lean dispatcher and the typer app see the same words and give the same answers. An
option the command itself declares keeps its place: after the command, the command's own option
of that name wins (`context --format`), before it the global one
(docs/decisions.md#global-options-anywhere).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Any


VERSION = "--version"
END_OF_OPTIONS = "--"


class MissingValue(ValueError):
    """A global option that takes a value came last: moved before the command, it would take
    the command's first word for its value."""

    def __init__(self, option: str) -> None:
        super().__init__(f"Option '{option}' requires an argument.")
        self.option = option


def hoist(argv: list[str], spec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The global options (with their values) and everything else, both in their given order."""
    globals_take_value = {
        opt: not param["flag"] for param in spec["globals"] for opt in param["opts"]
    }
    globals_take_value[VERSION] = False
    commands: dict[str, dict[str, bool]] = spec["options"]
    front: list[str] = []
    rest: list[str] = []
    words: list[str] = []
    own: dict[str, bool] | None = None  # the command's options, once its words are read
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == END_OF_OPTIONS:
            rest += argv[index:]
            break
        name, equals, _ = token.partition("=")
        target, takes = _owner(name, own, globals_take_value, front, rest)
        if target is not None:
            width = 2 if takes and not equals else 1
            if index + width > len(argv) and target is front:
                raise MissingValue(name)
            target += argv[index : index + width]
            index += width
            continue
        rest.append(token)
        if own is None and not token.startswith("-"):
            words.append(token)
            own = commands.get(" ".join(words))
        index += 1
    return front, rest


def _owner(
    name: str,
    own: dict[str, bool] | None,
    globals_take_value: dict[str, bool],
    front: list[str],
    rest: list[str],
) -> tuple[list[str] | None, bool]:
    """Where an option goes (the command's tokens or the global ones) and whether it takes a
    value; (None, False) for anything else (a word, an option neither knows)."""
    if own is not None and name in own:
        return rest, own[name]
    if name in globals_take_value:
        return front, globals_take_value[name]
    return None, False
