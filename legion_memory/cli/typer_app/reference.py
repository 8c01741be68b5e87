"""The README's command reference: the `--help` of the program and of every command, in order.

`python -m legion_memory.cli.typer_app.reference` rewrites the part of README.md between the two
markers; a test fails while the README and the help disagree.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import typer.main

from legion_memory.cli.typer_app.app import app

START = (
    "<!-- command reference: generated from --help by "
    "`python -m legion_memory.cli.typer_app.reference`; do not edit by hand -->"
)
END = "<!-- end of the command reference -->"
README = Path(__file__).resolve().parents[3] / "README.md"
WIDTH = "80"  # the help is wrapped as in an 80-column terminal, wherever it is generated


def command_words() -> list[tuple[str, ...]]:
    """The program, then every group and command in the order the help lists them."""
    return list(_walk(typer.main.get_command(app), ()))


def _walk(command: Any, words: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    yield words
    for word, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*words, word))


def help_text(words: tuple[str, ...]) -> str:
    """What `legion-memory WORDS --help` prints."""
    from legion_memory.cli.routing import run_typer

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        with redirect_stdout(io.StringIO()) as printed:
            run_typer([*words, "--help"])
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return printed.getvalue()


def reference() -> str:
    sections = []
    for words in command_words():
        title = " ".join(["legion-memory", *words])
        sections.append(f"### `{title}`\n\n```text\n{help_text(words).rstrip()}\n```\n")
    return "\n".join(sections)


def with_reference(readme: str) -> str:
    """`readme` with the text between the markers replaced by the current reference."""
    before, _, rest = readme.partition(START)
    _, _, after = rest.partition(END)
    return f"{before}{START}\n\n{reference()}\n{END}{after}"


if __name__ == "__main__":
    README.write_text(with_reference(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the command reference in {README}")
