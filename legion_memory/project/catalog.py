"""Legion's agent catalog (`skills/agent-registry/CATALOG.md`): agents, divisions and task types.

An agent's division comes from the `### X Division` heading its table sits under, never from its
ID (`agents-orchestrator` is Specialized, `project-manager-senior` is Project Management). Only
Section 1 is the catalog: reading stops at the `## Section 2` heading, because the later sections
mention agents in tables of their own.
"""

import os
import re
from collections.abc import Mapping
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.markdown.cells import split_cells, unescape
from legion_memory.markdown.document import scan_tables, split_lines, strip_ending
from legion_memory.named_tuple import NamedTuple
from legion_memory.project.root import read_project_text
from legion_memory.schema.kinds import GENERAL as GENERAL  # noqa: PLC0414 (re-exported: it was defined here)
from legion_memory.schema.records import column_key, split_list

CATALOG_IN_PLUGIN = Path("skills") / "agent-registry" / "CATALOG.md"
CATALOG_ENV = "LEGION_CATALOG"
PLUGIN_ROOT_ENV = "CLAUDE_PLUGIN_ROOT"
# Task types Legion's own workflows write that no catalog agent lists: never worth a warning.
UPSTREAM_TASK_TYPES = frozenset({GENERAL, "quality-review", "workflow", "board_decision", "ship"})

# Patterns, compiled by `re` on first use, and only for a line that is not ASCII: an ASCII line
# is read by string methods exactly as they read it, where `(?i)` and `\s` have no other forms
# (`division_name`, `opens_section_2`; a property test holds them to the patterns).
DIVISION = r"(?i)^\s*(.+?)\s+Division\b"
SECTION_2 = r"(?i)^ {0,3}##\s+Section\s+2\b"


class Agent(NamedTuple):
    id: str
    division: str
    task_types: tuple[str, ...]


class Catalog(NamedTuple):
    """A catalog's agents by ID; a task type's divisions are those whose agents list it."""

    agents: Mapping[str, Agent]
    path: Path | None = None

    def division_of(self, agent_id: str) -> str | None:
        agent = self.agents.get(agent_id)
        return agent.division if agent else None

    def first_task_type(self, agent_id: str) -> str | None:
        agent = self.agents.get(agent_id)
        return agent.task_types[0] if agent and agent.task_types else None

    def divisions_for(self, task_type: str) -> frozenset[str]:
        """The divisions with an agent listing `task_type`; empty when no agent lists it."""
        wanted = task_type.casefold()
        return frozenset(
            agent.division
            for agent in self.agents.values()
            if wanted in (t.casefold() for t in agent.task_types)
        )

    def knows_task_type(self, task_type: str) -> bool:
        return task_type.casefold() in {t.casefold() for t in UPSTREAM_TASK_TYPES} or bool(
            self.divisions_for(task_type)
        )


def parse_catalog(text: str, path: Path | None = None) -> Catalog:
    """Every agent row of Section 1, in order; the first row of an ID wins."""
    lines = split_lines(text)
    end = next((i for i, line in enumerate(lines) if opens_section_2(line)), len(lines))
    lines = lines[:end]
    agents: dict[str, Agent] = {}
    for table in scan_tables(lines):
        division = division_name(table.heading)
        keys = [column_key(name) for name in table.columns]
        if division is None or "id" not in keys or "task_types" not in keys:
            continue
        for index in table.rows:
            values = [unescape(cell) for cell in split_cells(strip_ending(lines[index]))]
            cells = dict(zip(keys, values, strict=False))
            agent_id = cells.get("id", "")
            if agent_id and agent_id not in agents:
                task_types = split_list(cells.get("task_types", ""))
                agents[agent_id] = Agent(agent_id, division, task_types)
    return Catalog(agents, path)


def opens_section_2(line: str) -> bool:
    """Whether `line` starts Section 2, as `SECTION_2` matches it."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith("##"):
        return False
    if not line.isascii():
        return re.match(SECTION_2, line) is not None
    words = body[2:].lstrip()
    number = words[7:].lstrip()
    follows = number[1:2]
    return (
        len(words) < len(body) - 2
        and words[:7].lower() == "section"
        and len(number) < len(words) - 7
        and number[:1] == "2"
        and not (follows.isalnum() or follows == "_")
    )


def division_name(heading: str) -> str | None:
    """The division a table's heading names (`Engineering Division (4 agents)` -> `Engineering`),
    as `DIVISION` reads it; None when it names none."""
    if not heading.isascii() or heading != heading.lstrip() or "\n" in heading:
        found = re.match(DIVISION, heading)
        return None if found is None else found.group(1).strip()
    lowered = heading.lower()
    at = lowered.find("division", 2)
    while at >= 0:
        follows = lowered[at + 8 : at + 9]
        if lowered[at - 1].isspace() and not (follows.isalnum() or follows == "_"):
            return heading[:at].strip()
        at = lowered.find("division", at + 1)
    return None


def catalog_path(
    option: Path | None, root: Path, env: Mapping[str, str] | None = None
) -> Path | None:
    """Where CATALOG.md is: `--catalog`, `$LEGION_CATALOG`, the project's own plugin layout,
    `$CLAUDE_PLUGIN_ROOT`; None when none of them exists. A `--catalog` that does not exist is a
    mistake worth stopping for; the other places are only looked at."""
    env = os.environ if env is None else env
    if option is not None:
        if not option.is_file():
            raise InputError(f"--catalog '{option}' is not a file", hint="give the CATALOG.md path")
        return option
    candidates = [Path(env[CATALOG_ENV])] if env.get(CATALOG_ENV) else []
    candidates.append(root / CATALOG_IN_PLUGIN)
    if env.get(PLUGIN_ROOT_ENV):
        candidates.append(Path(env[PLUGIN_ROOT_ENV]) / CATALOG_IN_PLUGIN)
    return next((path for path in candidates if path.is_file()), None)


def load_catalog(path: Path) -> Catalog | None:
    """Read and parse a catalog; None when it cannot be read (treated like a missing catalog)."""
    try:
        text = read_project_text(path)
    except (OSError, UnicodeDecodeError):
        return None
    return parse_catalog(text, path)
