"""The retrieval operations: ranked search across the memory files, and the memory block for an
agent's prompt, each returning plain values whose paths are relative to the project root."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from legion_memory.operations.common import relative_to_root
from legion_memory.operations.project import Project, project_of
from legion_memory.storage import scopes

if TYPE_CHECKING:
    from legion_memory.search.context_block import Block
    from legion_memory.search.corpus import Corpus
    from legion_memory.search.ranking import Hit, SearchResult


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


class AgentContext(NamedTuple):
    """The memory block for an agent's prompt (empty when nothing is relevant) and its items."""

    root: Path
    block: Block

    @property
    def text(self) -> str:
        return self.block.text

    def to_json(self) -> dict[str, object]:
        return {"block": self.block.text, "items": [self._item(m) for m in self.block.items]}

    def _item(self, marked: scopes.Marked[Hit]) -> dict[str, object]:
        hit = marked.item
        entry = hit.entry
        return {
            "scope": marked.scope,
            "type": entry.type,
            "id": entry.id,
            "path": relative_to_root(self.root, entry.path),
            "line": entry.line,
            "date": entry.date,
            "text": entry.headline,
            "score": round(hit.score, 6),
            "role_boost": hit.boost,
        }


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
    _warn_unreadable(project, result.unreadable)
    return Found(project.root, result)


def agent_context(
    target: Project | Path | str,
    *,
    agent: str,
    task: str,
    budget: int = 1024,
    block_format: str = "xml",
    limit: int = 5,
    scope: str = scopes.PROJECT,
) -> AgentContext:
    """The memory most relevant to `agent` doing `task`, packed into a block within `budget`."""
    from legion_memory.search import context_block
    from legion_memory.search.corpus import gather
    from legion_memory.search.ranking import file_choice, query_terms

    project = project_of(target)
    context_block.require_options(agent, block_format, budget, limit)
    chosen = project.tiers(scope)
    if not project.settings.enabled or not query_terms(task):
        chosen = []  # nothing can be relevant: read nothing
    corpora: list[tuple[str, Corpus]] = []
    kinds, _ = file_choice("all")
    for tier in chosen:
        found, unreadable = gather(tier.memory, kinds, retro=False)
        _warn_unreadable(project, unreadable)
        corpora.append((tier.scope, found))
    block = context_block.build(corpora, agent, task, today=project.today, budget=budget,
                                block_format=block_format, limit=limit)  # fmt: skip
    return AgentContext(project.root, block)


def _warn_unreadable(project: Project, paths: list[Path]) -> None:
    for path in paths:
        shown = relative_to_root(project.root, path)
        project.notice(f"Warning: {shown} could not be parsed. Proceeding without it.")
