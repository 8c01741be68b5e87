"""The prompt-context operation: the memory most relevant to an agent about to do a task, packed
into one block within a byte budget."""

from pathlib import Path

from legion_memory.named_tuple import NamedTuple
from legion_memory.operations.common import relative_to_root
from legion_memory.operations.project import Project, project_of
from legion_memory.operations.retrieval import warn_unreadable
from legion_memory.search import context_block
from legion_memory.search.context_block import Block
from legion_memory.search.corpus import Corpus, gather
from legion_memory.search.ranking import Hit, file_choice, query_terms
from legion_memory.storage import scopes


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
            "bm25": round(hit.bm25, 6),
            "coverage": round(hit.coverage, 6),
            "nearness": round(hit.nearness, 6),
            "distinctive": hit.distinctive,
            "shared": hit.shared,
            "recency": hit.recency,
            "importance_weight": round(hit.importance_weight, 6),
            "role_boost": hit.boost,
        }


def agent_context(
    target: Project | Path | str,
    *,
    agent: str,
    task: str,
    budget: int = 1024,
    block_format: str = "xml",
    limit: int | None = None,
    scope: str = scopes.PROJECT,
) -> AgentContext:
    """The memory most relevant to `agent` doing `task`, packed into a block within `budget`."""
    project = project_of(target)
    context_block.require_options(agent, block_format, budget, limit)
    chosen = project.tiers(scope)
    if not project.settings.enabled or not query_terms(task):
        chosen = []  # nothing can be relevant: read nothing
    corpora: list[tuple[str, Corpus]] = []
    kinds, _ = file_choice("all")
    for tier in chosen:
        found, unreadable = gather(tier.memory, kinds, retro=False)
        warn_unreadable(project, unreadable)
        corpora.append((tier.scope, found))
    block = context_block.build(corpora, agent, task, today=project.today, budget=budget,
                                block_format=block_format, limit=limit)  # fmt: skip
    return AgentContext(project.root, block)
