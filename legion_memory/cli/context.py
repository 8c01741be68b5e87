"""The global options, resolved once per process: the operations' Project, printing its notices
on stderr, and whether output is JSON."""

from __future__ import annotations

from pathlib import Path

from legion_memory.cli.output import choose_table_style, note
from legion_memory.operations.project import Project


class Context(Project):
    """The project of one command line call; each fact is read on first use and kept."""

    def __init__(
        self,
        root_option: Path | None = None,
        json: bool = False,
        today_option: str | None = None,
        branch_option: str | None = None,
        catalog_option: Path | None = None,
        output_format: str | None = None,
    ) -> None:
        super().__init__(root_option, today_option, branch_option, catalog_option, note)
        self.json = json
        self.output_format = output_format

    @classmethod
    def from_options(
        cls,
        *,
        root: Path | None,
        json: bool,
        today: str | None,
        branch: str | None,
        catalog: Path | None,
        output_format: str | None = None,
    ) -> Context:
        """The global options, checked: a bad value fails before any command runs."""
        context = cls(root, json, today, branch, catalog, output_format)
        _ = context.root, context.today_text  # a bad --today fails here, as `today` would
        choose_table_style(output_format)
        return context
