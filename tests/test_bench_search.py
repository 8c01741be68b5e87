"""The retrieval benchmark runs (so it cannot rot): a tiny subset of each judged set over the
memory built from the real Legion checkout, every metric for every system, each set and all.

Nothing here looks at a metric's value: quality is what `make bench-search` reports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from support.processes import REPO_ROOT

LEGION = REPO_ROOT.parent / "shared" / "legion"
SYSTEMS = [
    "legion-memory search",
    "legion-memory context (default block)",
    "SQLite FTS5 bm25, porter",
]
METRICS = ["hit@1", "MRR@10", "nDCG@10", "holds relevant", "quiet on no-answer", "ms/query"]


@pytest.mark.skipif(not LEGION.is_dir(), reason="the Legion checkout is not beside this one")
def test_the_benchmark_reports_every_metric_for_every_system() -> None:
    report = _report("--sample", "2")
    assert report["records"] >= 300
    assert list(report["sets"]) == [
        "first",
        "development",
        "held-out (report only)",
        "fresh (report only)",
        "fifth (report only)",
        "all sets",
    ]
    # two of each kind in each set
    assert [s["queries"] for s in report["sets"].values()] == [6, 6, 6, 6, 6, 30]
    assert 0.0 <= report["snippets with a query word"] <= 1.0
    for judged in report["sets"].values():
        assert list(judged["results"]) == SYSTEMS
        for values in judged["results"].values():
            assert list(values) == METRICS
            assert all(0.0 <= values[name] <= 1.0 for name in METRICS[:-1])


@pytest.mark.skipif(not LEGION.is_dir(), reason="the Legion checkout is not beside this one")
def test_a_run_can_leave_sets_out() -> None:
    report = _report("--sample", "1", "--set", "first", "--set", "development")
    assert {label: s["queries"] for label, s in report["sets"].items()} == {
        "first": 3,
        "development": 3,
        "all sets": 6,
    }


def _report(*options: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "bench.search.run", *options, "--json"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_without_the_checkout_the_benchmark_says_where_it_looked() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.search.run", "--legion", "/nonexistent/legion"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: no Legion checkout at /nonexistent/legion; pass --legion PATH\n"
    )
