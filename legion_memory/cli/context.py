"""The global options, resolved once per process (the clock and git are read here, nowhere else)."""

from __future__ import annotations

import datetime as dt
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from legion_memory.cli.output import choose_table_style, note
from legion_memory.errors import InputError
from legion_memory.project.root import Settings, find_root, load_settings
from legion_memory.storage.reading import Memory

if TYPE_CHECKING:
    from legion_memory.storage import scopes


class Context:
    """Each fact is read on first use and kept: most commands need only a few of them."""

    def __init__(
        self,
        root_option: Path | None = None,
        json: bool = False,
        today_option: str | None = None,
        branch_option: str | None = None,
        catalog_option: Path | None = None,
        output_format: str | None = None,
    ) -> None:
        self.root_option = root_option
        self.json = json
        self.today_option = today_option
        self.branch_option = branch_option
        self.catalog_option = catalog_option
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
        _ = context.root, context.today
        choose_table_style(output_format)
        return context

    @cached_property
    def root(self) -> Path:
        if self.root_option is None:
            return find_root(Path.cwd())
        if not self.root_option.is_dir():
            raise InputError(
                f"--root '{self.root_option}' is not a directory", hint="give an existing directory"
            )
        return self.root_option.resolve()

    def require_project(self) -> None:
        """Refuse to create project memory where there is no project: outside a git repository,
        without --root and without an existing .planning/, a write would scatter memory into
        whatever directory the shell was in (docs/decisions.md#no-project-no-store)."""
        if self.root_option is not None:
            return
        root = self.root
        if (root / ".git").exists() or (root / ".planning").is_dir():
            return
        raise InputError(
            f"no project here: {root} is not inside a git repository",
            hint="run `git init` to make it one, or pass --root PATH",
        )

    @cached_property
    def memory(self) -> Memory:
        return Memory.of_project(self.root)

    @cached_property
    def today(self) -> dt.date:
        if self.today_option is None:
            return dt.date.today()
        try:
            return dt.date.fromisoformat(self.today_option)
        except ValueError:
            raise InputError(
                f"--today '{self.today_option}' is not a date", hint="use YYYY-MM-DD"
            ) from None

    @cached_property
    def branch(self) -> str:
        # git is imported only by the commands that ask for a branch (a reading one does not).
        from legion_memory.gitops.repository import current_branch

        return self.branch_option or current_branch(self.root)

    @cached_property
    def default_branch(self) -> str:
        from legion_memory.gitops.repository import default_branch

        return default_branch(self.root)

    @cached_property
    def settings(self) -> Settings:
        """settings.json's memory block; each value it had to ignore is said once, on stderr."""
        settings = load_settings(self.root)
        for message in settings.notes:
            note(f"Warning: {message}")
        return settings

    def tiers(self, scope: str) -> list[scopes.Scoped]:
        """The memory tiers a read covers (`--scope`), project first."""
        from legion_memory.storage import scopes  # only the commands with --scope need it

        return scopes.memories(scope, self.memory, os.environ)

    def target(self, scope: str) -> scopes.Scoped:
        """The one memory tier a write goes to (the project's only inside a project)."""
        from legion_memory.storage import scopes  # only the commands with --scope need it

        tier = scopes.single(scope, self.memory, os.environ)
        if tier.scope == scopes.PROJECT:
            self.require_project()
        return tier

    def score_tiers(self, include_global: bool) -> list[scopes.Scoped]:
        """The tiers agent, archetype and preference scores count."""
        from legion_memory.storage import scopes  # only the commands with --scope need it

        return scopes.for_scores(self.memory, os.environ, include_global=include_global)
