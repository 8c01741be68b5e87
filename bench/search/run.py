"""`make bench-search`: how well `search`, `context` and SQLite FTS5 bm25 find the judged answers
in a memory built from a Legion checkout (`../shared/legion`, read at run time).

For each system: hit@1, MRR@10 and nDCG@10 over the queries that have an answer, the share of
those whose results hold a relevant record at all, and the share of no-answer queries for which
it returns nothing. Five judged sets, each reported alone and all together: `queries.json` (the
first), `development.json` (written later, for the relevance floor's design; ranking choices are
made on these two), `heldout.json` (kept apart from the ranking's design: it only reports
whether a change generalises), `fresh.json` (written and judged after the floor was chosen,
before any system ran on it; it only reports too) and `fifth.json` (written and judged the same
way, to test the nearness of query words, chosen beforehand, on queries no choice had seen).
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
SETS = {
    "first": HERE / "queries.json",
    "development": HERE / "development.json",
    "held-out (report only)": HERE / "heldout.json",
    "fresh (report only)": HERE / "fresh.json",
    "fifth (report only)": HERE / "fifth.json",
}
UNION = "all sets"
TODAY = "2026-11-29"
COLUMNS = ("hit@1", "MRR@10", "nDCG@10", "holds relevant", "quiet on no-answer", "ms/query")
NONE = "none"


class Query(NamedTuple):
    id: str
    kind: str
    text: str
    relevant: frozenset[str]


def load_queries(path: Path) -> list[Query]:
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


def rankings(system: System, queries: Sequence[Query]) -> tuple[dict[str, list[str]], float]:
    """Each query's ranked keys, and the mean milliseconds a query took."""
    start = time.perf_counter()
    ranked = {q.id: system(q.text) for q in queries}
    return ranked, (time.perf_counter() - start) * 1000 / max(len(queries), 1)


def evaluate(ranked: dict[str, list[str]], ms: float, queries: Sequence[Query]) -> dict[str, float]:
    answerable = [q for q in queries if q.kind != NONE]

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
        "ms/query": ms,
    }


Results = dict[str, dict[str, float]]  # system name -> metric -> value


class Report(NamedTuple):
    sets: dict[str, Results]  # each judged set, then UNION
    snippets: float  # share of search's snippets showing a query word


def run(legion: Path, sets: dict[str, list[Query]], today: dt.date) -> Report:
    items = read_items(legion)
    every = [q for queries in sets.values() for q in queries]
    with tempfile.TemporaryDirectory(prefix="bench-search-") as scratch:
        root = Path(scratch)
        keys = write_memory(root, items, today)
        systems = {
            "legion-memory search": search_system(root, keys, today),
            "legion-memory context (default block)": context_system(root, keys, today),
            "SQLite FTS5 bm25, porter": fts5_system(root, keys),
        }
        ranked = {name: rankings(system, every) for name, system in systems.items()}
        scored = {**sets, UNION: every}
        results = {
            label: {name: evaluate(*ranked[name], queries) for name in systems}
            for label, queries in scored.items()
        }
        return Report(results, snippet_share(root, [q.text for q in every], today))


def table(results: Results) -> str:
    rows = [
        [name, *(f"{values[c]:.3f}" if c != "ms/query" else f"{values[c]:.1f}" for c in COLUMNS)]
        for name, values in results.items()
    ]
    return tabulate(rows, headers=["system", *COLUMNS], tablefmt="github")


def describe(queries: Sequence[Query]) -> str:
    count = {kind: sum(q.kind == kind for q in queries) for kind in ("paraphrase", "keyword", NONE)}
    return (
        f"{len(queries)} queries ({count['paraphrase']} paraphrased, {count['keyword']} keyword, "
        f"{count[NONE]} no-answer)"
    )


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legion", type=Path, default=LEGION, help="a Legion checkout")
    parser.add_argument("--sample", type=int, default=0, help="only N queries of each kind a set")
    parser.add_argument(
        "--set",
        action="append",
        choices=[label.split()[0] for label in SETS],
        help="only this judged set (repeatable; default: every set)",
    )
    parser.add_argument("--json", action="store_true", help="the numbers as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_options(argv)
    if not args.legion.is_dir():
        print(f"error: no Legion checkout at {args.legion}; pass --legion PATH", file=sys.stderr)
        return 2
    chosen = args.set or [label.split()[0] for label in SETS]
    sets = {label: load_queries(path) for label, path in SETS.items() if label.split()[0] in chosen}
    if args.sample:
        sets = {label: sample(queries, args.sample) for label, queries in sets.items()}
    counted = {**sets, UNION: [q for queries in sets.values() for q in queries]}
    items = len(read_items(args.legion))
    report = run(args.legion, sets, dt.date.fromisoformat(TODAY))
    if args.json:
        sets_json = {
            label: {"queries": len(counted[label]), "results": results}
            for label, results in report.sets.items()
        }
        print(
            json.dumps(
                {"records": items, "sets": sets_json, "snippets with a query word": report.snippets}
            )
        )
        return 0
    print(f"{items} records")
    for label, results in report.sets.items():
        print(f"\n{label}: {describe(counted[label])}\n")
        print(table(results))
    print(f"\nsearch snippets showing a query word as a whole word: {report.snippets:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
