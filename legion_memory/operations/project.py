"""The project an operation works on: its root, memory tiers, settings, clock and branch, each
read on first use and kept, and where its notices (what the CLI prints on stderr) go."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from legion_memory.errors import InputError
from legion_memory.project.root import Settings, find_root, load_settings
from legion_memory.schema.fields import date_rule
from legion_memory.storage.reading import Memory

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    import datetime as dt

    from legion_memory.project.catalog import Catalog
    from legion_memory.storage import scopes

Notice = Callable[[str], None]


class Project:
    """Each fact is read on first use and kept: most operations need only a few of them.

    `notice` receives, in order, every line an operation has to say beside its result (warnings,
    importance explanations, the auto-prune report); by default they are kept in `notices`.
    """

    def __init__(
        self,
        root_option: Path | None = None,
        today_option: str | None = None,
        branch_option: str | None = None,
        catalog_option: Path | None = None,
        notice: Notice | None = None,
    ) -> None:
        self.root_option = root_option
        self.today_option = today_option
        self.branch_option = branch_option
        self.catalog_option = catalog_option
        self.notices: list[str] = []
        self.notice: Notice = notice or self.notices.append

    @classmethod
    def at(cls, root: Path | str, **options: str | Path | None) -> Project:
        """The project rooted at `root` (options as the CLI's global ones: today, branch, catalog),
        checked so that a bad value fails before any operation runs."""
        today, branch, catalog = options.get("today"), options.get("branch"), options.get("catalog")
        project = cls(
            Path(root),
            None if today is None else str(today),
            None if branch is None else str(branch),
            None if catalog is None else Path(catalog),
        )
        _ = project.root, project.today
        return project

    @cached_property
    def root(self) -> Path:
        if self.root_option is None:
            return find_root(Path.cwd())
        if not self.root_option.is_dir():
            raise InputError(
                f"--root '{self.root_option}' is not a directory", hint="give an existing directory"
            )
        return self.root_option.resolve()

    @cached_property
    def memory(self) -> Memory:
        return Memory.of_project(self.root)

    @cached_property
    def today(self) -> dt.date:
        import datetime as dt  # not for a store, which needs `today_text` alone

        if self.today_option is None:
            return dt.date.today()
        try:
            return dt.date.fromisoformat(self.today_option)
        except ValueError:
            raise InputError(
                f"--today '{self.today_option}' is not a date", hint="use YYYY-MM-DD"
            ) from None

    @cached_property
    def today_text(self) -> str:
        """`today` as YYYY-MM-DD, without importing datetime when the option is already written
        so (or absent): a store writes the text and needs no date arithmetic."""
        if "today" in self.__dict__:  # already read: the same day, whatever the clock says now
            return self.today.isoformat()
        if self.today_option is None:
            return time.strftime("%Y-%m-%d")
        if date_rule(self.today_option) is None:
            return self.today_option
        return self.today.isoformat()  # another form datetime reads, or an InputError

    @cached_property
    def branch(self) -> str:
        # git is imported only by the operations that ask for a branch (a reading one does not).
        from legion_memory.gitops.branch import current_branch

        return self.branch_option or current_branch(self.root)

    @cached_property
    def default_branch(self) -> str:
        from legion_memory.gitops.branch import default_branch

        return default_branch(self.root)

    @cached_property
    def settings(self) -> Settings:
        """settings.json's memory block; each value it had to ignore is said once, as a notice."""
        settings = load_settings(self.root)
        for message in settings.notes:
            self.notice(f"Warning: {message}")
        return settings

    @cached_property
    def catalog(self) -> Catalog | None:
        """Legion's CATALOG.md (the option, else found beside the project), None when absent."""
        from legion_memory.project.catalog import catalog_path, load_catalog

        path = catalog_path(self.catalog_option, self.root)
        return None if path is None else load_catalog(path)

    def tiers(self, scope: str) -> list[scopes.Scoped]:
        """The memory tiers a read covers (`--scope`), project first."""
        from legion_memory.storage import scopes  # only the operations with a scope need it

        return scopes.memories(scope, self.memory, os.environ)

    def target(self, scope: str) -> scopes.Scoped:
        """The one memory tier a write goes to (the project's only inside a project)."""
        from legion_memory.storage import scopes

        tier = scopes.single(scope, self.memory, os.environ)
        if tier.scope == scopes.PROJECT:
            self.require_project()
        return tier

    def require_project(self) -> None:
        """Refuse to create project memory where there is no project: outside a git repository
        and without an existing .planning/, a write would scatter memory into whatever directory
        the shell (or a mistyped --root) named (docs/decisions.md#no-project-no-store)."""
        root = self.root
        if (root / ".git").exists() or (root / ".planning").is_dir():
            return
        if self.root_option is not None:  # `--root /etc` must not plant memory in /etc
            raise InputError(
                f"--root '{self.root_option}' is not a project: it holds neither .git nor "
                ".planning",
                hint="give a git repository's root, or run `git init` there first",
            )
        raise InputError(
            f"no project here: {root} is not inside a git repository",
            hint="run `git init` to make it one, or pass --root PATH",
        )

    def score_tiers(self, include_global: bool) -> list[scopes.Scoped]:
        """The tiers agent, archetype and preference scores count."""
        from legion_memory.storage import scopes

        return scopes.for_scores(self.memory, os.environ, include_global=include_global)


def project_of(target: Project | Path | str) -> Project:
    """An operation's project: given, or the one rooted at a path."""
    return target if isinstance(target, Project) else Project.at(target)
