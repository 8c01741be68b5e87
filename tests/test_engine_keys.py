"""Archetype scores in the recommendation engine's keyspace, checked against the real engine."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

import pytest
from support.legion import LEGION, NODE
from support.processes import run_process

from legion_memory.knowledge.engine_keys import (
    SEMANTIC_CONCEPTS,
    TASK_TYPE_MAP,
    engine_keys,
    engine_task_types,
)
from legion_memory.knowledge.scoring import archetype_scores
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import Record

ENGINE = LEGION / "scripts" / "recommendation-engine.js"
needs_engine = pytest.mark.skipif(
    NODE is None or not ENGINE.is_file(), reason="node or ../shared/legion is not present"
)
TODAY = "2026-03-02"


def outcome(
    task_type: str, tags: str, agent: str = "a", n: int = 1, result: str = "success"
) -> Record:
    values = {"id": f"O-{n:03d}", "date": TODAY, "agent": agent, "task_type": task_type}
    return Record(OUTCOME, {**values, "tags": tags, "outcome": result, "importance": "3"})


@pytest.mark.parametrize(
    ("task_type", "tags", "keys"),
    [
        ("frontend", "", ["web-development"]),
        ("backend", "orders", []),
        ("backend", "api, orders", ["api-development"]),
        ("api-testing", "contract", ["api-development", "quality-testing"]),
        ("ci-cd", "", ["devops"]),
        ("deployment", "Testing, UI", ["devops", "quality-testing", "design-ux"]),
        ("general", "vulnerability-scan", ["security-audit"]),
        ("quality-review", "review", []),
        ("ml-ops", "models", ["ai-ml"]),
    ],
)
def test_terms_map_onto_the_engine_task_types(task_type: str, tags: str, keys: list[str]) -> None:
    assert engine_keys(outcome(task_type, tags)) == keys


def test_an_outcome_counts_once_under_each_of_its_keys() -> None:
    records = [
        outcome("api-testing", "api, qa", "tester", 1),
        outcome("backend", "api", "tester", 2),
        outcome("backend", "orders", "architect", 3),
    ]
    scores = archetype_scores(records, [], dt.date(2026, 3, 2), engine_keys)
    assert scores == {
        "api-development": {
            "agents": ["tester"],
            "successRate": 1.0,
            "totalOutcomes": 2,
            "avgImportance": 3.0,
            "topAgent": "tester",
        },
        "quality-testing": {
            "agents": ["tester"],
            "successRate": 1.0,
            "totalOutcomes": 1,
            "avgImportance": 3.0,
            "topAgent": None,
        },
    }


def test_ten_engine_task_types() -> None:
    assert engine_task_types() == [
        "web-development",
        "api-development",
        "mobile-development",
        "ai-ml",
        "quality-testing",
        "content-marketing",
        "spatial-computing",
        "security-audit",
        "devops",
        "design-ux",
    ]


def _js_object(source: str, name: str) -> dict[str, str]:
    body = re.search(rf"const {name} = \{{(.*?)\n\}};", source, re.S)
    assert body is not None, name
    pairs = re.findall(r"^\s*'?([\w -]+?)'?: '([\w-]+)',", body.group(1), re.M)
    return dict(pairs)


@needs_engine
def test_the_concept_map_is_the_engines() -> None:
    source = ENGINE.read_text(encoding="utf-8")
    assert _js_object(source, "TASK_TYPE_MAP") == TASK_TYPE_MAP
    semantic = _js_object(source, "SEMANTIC_MAP")
    assert {k: v for k, v in semantic.items() if v in TASK_TYPE_MAP} == SEMANTIC_CONCEPTS


RECOMMEND = """
const engine = require(process.argv[1]);
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(engine.recommendAgents(input)));
"""


def recommend(
    prompt: str, memory: dict[str, object], archetypes: dict[str, object]
) -> list[dict[str, object]]:
    payload = {"prompt": prompt, "topN": 8, "memoryScores": memory, "archetypeScores": archetypes}
    done = subprocess.run(
        [str(NODE), "-e", RECOMMEND, str(ENGINE)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    return list(json.loads(done.stdout)["recommendations"])


def store(repo: Path, agent: str, task_type: str, tags: str, summary: str) -> None:
    run_process(
        "--today", TODAY, "store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", agent,
        "--task-type", task_type, "--outcome", "success", "--event", "plan-success",
        "--tags", tags, "--summary", summary, cwd=repo, check=True,
    )  # fmt: skip


def scores(repo: Path, *args: str) -> dict[str, object]:
    done = run_process("--today", TODAY, "--json", "score", *args, cwd=repo, check=True)
    return dict(json.loads(done.stdout))


@needs_engine
def test_a_dominant_agent_gets_its_archetype_boost_and_moves_up(repo: Path) -> None:
    for n in range(5):
        store(
            repo, "testing-api-tester", "api-testing", "api, contract", f"Orders API contract {n}"
        )
    store(repo, "engineering-backend-architect", "backend", "orders", "Orders table")
    store(repo, "engineering-backend-architect", "backend", "orders", "Orders index")
    memory = scores(repo, "agents", "--task-type", "api")
    engine = scores(repo, "archetypes", "--keyspace", "engine")
    catalog = scores(repo, "archetypes")
    prompt = "Add api endpoint for orders"

    def ranked(memory_scores: dict[str, object], archetypes: dict[str, object]) -> list[str]:
        return [str(item["id"]) for item in recommend(prompt, memory_scores, archetypes)]

    assert memory == {"testing-api-tester": 4.1}
    boosted = {item["id"]: item for item in recommend(prompt, memory, engine)}
    assert boosted["testing-api-tester"]["archetypeBoost"] == 4.0
    assert [item["archetypeBoost"] for item in recommend(prompt, memory, catalog)] == [0] * 8
    plain = ranked({}, {})
    assert plain.index("testing-api-tester") == 3
    assert ranked({}, engine).index("testing-api-tester") == 0
    assert ranked({}, catalog) == plain
    assert ranked(memory, engine)[0] == "testing-api-tester"


def test_keyspace_engine_on_the_command_line(repo: Path) -> None:
    store(repo, "testing-api-tester", "api-testing", "contract", "Orders API contract")
    store(repo, "engineering-backend-architect", "backend", "orders", "Orders table")
    done = run_process("--today", TODAY, "score", "archetypes", "--keyspace", "engine", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.stdout == (
        "| Task Type | Outcomes | Success Rate | Avg Importance | Top Agent | Agents |\n"
        "|---|---|---|---|---|---|\n"
        "| api-development | 1 | 1 | 3 | - | testing-api-tester |\n"
        "| quality-testing | 1 | 1 | 3 | - | testing-api-tester |\n"
    )
    assert list(scores(repo, "archetypes")) == ["api-testing", "backend"]


def test_an_unknown_keyspace_is_refused(repo: Path) -> None:
    done = run_process("score", "archetypes", "--keyspace", "agents", cwd=repo)
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr == "Error: --keyspace: unknown keyspace 'agents' (use catalog or engine)\n"
