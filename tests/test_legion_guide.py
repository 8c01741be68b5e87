"""docs/legion.md is reproducible, and every command example of the skill runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from support.legion import SKILL_DOC
from support.processes import run_process

from legion_memory.demo import guide

_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


@pytest.mark.slow
def test_the_page_is_what_its_commands_print(tmp_path: Path) -> None:
    page = guide.PAGE.read_text(encoding="utf-8")
    assert guide.regenerate(page, tmp_path) == page


def test_a_changed_output_is_noticed(tmp_path: Path) -> None:
    page = "<!-- transcript: empty -->\n```console\n$ legion-memory recall outcomes\nstale\n```\n"
    assert guide.regenerate(page, tmp_path) == (
        "<!-- transcript: empty -->\n```console\n$ legion-memory recall outcomes\n```\n"
    )


def skill_examples(text: str) -> list[list[str]]:
    """Every `legion-memory` command of the skill's `sh` blocks (continued lines joined)."""
    commands = []
    for block in _SH_BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip():
                words = shlex.split(line)
                assert words[0] == "legion-memory", line
                commands.append(words[1:])
    return commands


@pytest.mark.slow
def test_every_command_example_of_the_skill_runs(tmp_path: Path) -> None:
    project = guide.bookshelf(tmp_path)
    examples = skill_examples(SKILL_DOC.read_text(encoding="utf-8"))
    assert len(examples) >= 30
    failed = []
    for args in examples:
        done = run_process("--today", guide.TODAY, *args, cwd=project)
        if done.code != 0 or done.stderr.startswith("Error"):
            failed.append(f"{shlex.join(args)}: exit {done.code}: {done.stderr.strip()}")
    assert failed == []
