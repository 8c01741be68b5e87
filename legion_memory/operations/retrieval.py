"""The search operation: ranked search across the memory files, its hits' paths relative to the
project root."""

from pathlib import Path

from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.common import relative_to_root
from legion_memory.operations.project import Project, project_of
from legion_memory.search.ranking import Hit, SearchResult
from legion_memory.storage import scopes


class Found(NamedTuple):
    """A search's hits best first, each marked with its tier, and the query terms it matched."""

    root: Path
    result: SearchResult

    def to_json(self) -> dict[str, object]:
        from legion_memory.search.ranking import hit_json

        query = self.result.query
        hits = self.result.hits
        return {"results": [hit_json(m, query, self.path(m.item)) for m in hits]}

    def path(self, hit: Hit) -> str:
        return relative_to_root(self.root, hit.entry.path)


def search_memory(
    target: Project | Path | str,
    *,
    query: str,
    file: str = "all",
    limit: int = 10,
    scope: str = scopes.PROJECT,
) -> Found:
    """Memory entries matching `query` (BM25 with recency and importance), best first."""
    from legion_memory.search.ranking import file_choice
    from legion_memory.search.ranking import search as ranked

    project = project_of(target)
    file_choice(file)
    chosen = project.tiers(scope)
    enabled = project.settings.enabled
    result = ranked(chosen if enabled else [], query, file, today=project.today, limit=limit)
    warn_unreadable(project, result.unreadable)
    return Found(project.root, result)


def warn_unreadable(project: Project, paths: list[Path]) -> None:
    for path in paths:
        shown = relative_to_root(project.root, path)
        project.notice(f"Warning: {shown} could not be parsed. Proceeding without it.")
