"""`make bench-search`: how well `search`, `context` and SQLite FTS5 bm25 find the judged answers
in a memory built from a Legion checkout (`../shared/legion`, read at run time).

For each system: hit@1, MRR@10 and nDCG@10 over the queries that have an answer, the share of
those whose results hold a relevant record at all, and the share of no-answer queries for which
it returns nothing. Queries and judgements are in `queries.json`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tabulate import tabulate

from bench.search import metrics
from bench.search.material import read_items
from bench.search.memory import write_memory
from bench.search.systems import (
    System,
    context_system,
    fts5_system,
    search_system,
    snippet_share,
)

HERE = Path(__file__).resolve().parent
LEGION = HERE.parent.parent.parent / "shared" / "legion"
QUERIES = HERE / "queries.json"
TODAY = "2026-11-29"
COLUMNS = ("hit@1", "MRR@10", "nDCG@10", "holds relevant", "quiet on no-answer", "ms/query")
NONE = "none"


class Query(NamedTuple):
    id: str
    kind: str
    text: str
    relevant: frozenset[str]


def load_queries(path: Path = QUERIES) -> list[Query]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Query(q["id"], q["kind"], q["query"], frozenset(q["relevant"])) for q in data["queries"]
    ]


def sample(queries: Sequence[Query], per_kind: int) -> list[Query]:
    """The first `per_kind` queries of each kind (the suite's tiny run)."""
    taken: dict[str, int] = {}
    chosen = []
    for query in queries:
        if taken.get(query.kind, 0) < per_kind:
            taken[query.kind] = taken.get(query.kind, 0) + 1
            chosen.append(query)
    return chosen


def evaluate(system: System, queries: Sequence[Query]) -> dict[str, float]:
    answerable = [q for q in queries if q.kind != NONE]
    start = time.perf_counter()
    ranked = {q.id: system(q.text) for q in queries}
    elapsed = (time.perf_counter() - start) * 1000 / max(len(queries), 1)

    def over(measure: metrics.Measure) -> float:
        return metrics.mean([measure(ranked[q.id], q.relevant) for q in answerable])

    return {
        "hit@1": over(metrics.hit_at_1),
        "MRR@10": over(metrics.reciprocal_rank),
        "nDCG@10": over(metrics.ndcg),
        "holds relevant": over(metrics.holds),
        "quiet on no-answer": metrics.mean(
            [0.0 if ranked[q.id] else 1.0 for q in queries if q.kind == NONE]
        ),
        "ms/query": elapsed,
    }


class Report(NamedTuple):
    results: dict[str, dict[str, float]]
    snippets: float  # share of search's snippets showing a query word


def run(legion: Path, queries: Sequence[Query], today: dt.date) -> Report:
    items = read_items(legion)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as scratch:
        root = Path(scratch)
        keys = write_memory(root, items, today)
        systems = {
            "legion-memory search": search_system(root, keys, today),
            "legion-memory context (default block)": context_system(root, keys, today),
            "SQLite FTS5 bm25, porter": fts5_system(root, keys),
        }
        results = {name: evaluate(system, queries) for name, system in systems.items()}
        return Report(results, snippet_share(root, [q.text for q in queries], today))


def table(results: dict[str, dict[str, float]]) -> str:
    rows = [
        [name, *(f"{values[c]:.2f}" if c != "ms/query" else f"{values[c]:.1f}" for c in COLUMNS)]
        for name, values in results.items()
    ]
    return tabulate(rows, headers=["system", *COLUMNS], tablefmt="github")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legion", type=Path, default=LEGION, help="a Legion checkout")
    parser.add_argument("--sample", type=int, default=0, help="only N queries of each kind")
    parser.add_argument("--json", action="store_true", help="the numbers as JSON")
    args = parser.parse_args(argv)
    if not args.legion.is_dir():
        print(f"error: no Legion checkout at {args.legion}; pass --legion PATH", file=sys.stderr)
        return 2
    queries = load_queries()
    if args.sample:
        queries = sample(queries, args.sample)
    items = len(read_items(args.legion))
    report = run(args.legion, queries, dt.date.fromisoformat(TODAY))
    if args.json:
        print(
            json.dumps(
                {
                    "records": items,
                    "queries": len(queries),
                    "results": report.results,
                    "snippets with a query word": report.snippets,
                }
            )
        )
    else:
        kinds = {kind: sum(q.kind == kind for q in queries) for kind in ("paraphrase", "keyword")}
        print(
            f"{items} records, {len(queries)} queries ({kinds['paraphrase']} paraphrased, "
            f"{kinds['keyword']} keyword, {sum(q.kind == NONE for q in queries)} no-answer)\n"
        )
        print(table(report.results))
        print(f"\nsearch snippets showing a query word as a whole word: {report.snippets:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
