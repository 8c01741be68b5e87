"""Help that helps: every command and option explains itself, metavars name what to give, enum
options list their choices, and the README's command reference is the help itself."""

from __future__ import annotations

import re
import typing
from typing import Any

import typer.main

from legion_memory.cli.typer_app import choices
from legion_memory.cli.typer_app.app import app
from legion_memory.cli.typer_app.reference import README, command_words, help_text, with_reference
from legion_memory.interop.json_exchange import FORMATS as EXPORT_FORMATS
from legion_memory.knowledge.importance import EVENTS
from legion_memory.operations.outcomes import KEYSPACES
from legion_memory.schema.fields import DECISION_POINTS, OUTCOMES, SIGNALS
from legion_memory.search.context_block import FORMATS as BLOCK_FORMATS
from legion_memory.search.ranking import FILE_CHOICES
from legion_memory.storage.scopes import SCOPES

ENUM_OPTIONS = ("--outcome", "--event", "--signal", "--decision-point", "--format", "--scope")


def _commands() -> list[tuple[tuple[str, ...], Any]]:
    root = typer.main.get_command(app)
    found = []
    for words in command_words():
        command: Any = root
        for word in words:
            command = command.commands[word]
        found.append((words, command))
    return found


def test_every_command_and_option_has_help_text() -> None:
    for words, command in _commands():
        assert (command.help or "").strip(), words
        for param in command.params:
            assert (getattr(param, "help", None) or "").strip(), (words, param.name)


def test_no_metavar_is_a_python_type() -> None:
    for words, _ in _commands():
        text = help_text(words)
        shown = set(re.findall(r"<[^>|]*>", text))
        assert shown <= {"<table>"}, (words, shown)  # `<...>` only as a list of choices


def test_enum_options_list_their_choices() -> None:
    seen = set()
    for words, command in _commands():
        text = help_text(words)
        for param in command.params:
            if param.param_type_name != "option" or not set(param.opts) & set(ENUM_OPTIONS):
                continue
            values = typing.get_args(param.type_descriptor.annotation)
            literal = next((v for v in values if typing.get_origin(v) is typing.Literal), None)
            listed = typing.get_args(literal or param.type_descriptor.annotation)
            assert listed, (words, param.opts)
            assert f"{param.opts[0]} <{'|'.join(listed)}>" in text, (words, param.opts)
            seen.add(param.opts[0])
    assert seen == set(ENUM_OPTIONS)


def test_the_choices_are_the_schemas_own() -> None:
    pairs = [
        (choices.Outcome, OUTCOMES),
        (choices.Event, tuple(EVENTS)),
        (choices.Signal, SIGNALS),
        (choices.SignalFilter, (*SIGNALS, "all")),
        (choices.DecisionPoint, DECISION_POINTS),
        (choices.DecisionPointFilter, (*DECISION_POINTS, "all")),
        (choices.ReadScope, SCOPES),
        (choices.WriteScope, SCOPES[:2]),
        (choices.SearchFile, FILE_CHOICES),
        (choices.BlockFormat, BLOCK_FORMATS),
        (choices.ExportFormat, EXPORT_FORMATS),
        (choices.Keyspace, KEYSPACES),
    ]
    for literal, expected in pairs:
        assert typing.get_args(literal) == tuple(expected), literal


def test_metavars_say_what_to_give() -> None:
    text = help_text(("store", "outcome"))
    for shown in ("--phase PHASE", "--plan NN-PP", "--summary TEXT", "--from-summary PATH"):
        assert f"  {shown} " in text
    assert "  --today YYYY-MM-DD " in help_text(())
    assert "  --root PATH " in help_text(())
    assert "Usage: legion-memory forget [OPTIONS] {ID}\n" in help_text(("forget",))


def test_the_readme_command_reference_is_the_help() -> None:
    readme = README.read_text(encoding="utf-8")
    assert with_reference(readme) == readme, (
        "README.md is stale: run python -m legion_memory.cli.typer_app.reference"
    )
    assert "### `legion-memory store outcome`\n\n```text\nUsage: legion-memory store outcome" in (
        readme
    )
