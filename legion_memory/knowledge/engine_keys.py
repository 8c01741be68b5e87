"""The task types of Legion's recommendation engine, and which of them an outcome belongs to:
its Task Type and Tags read through the engine's own concept map. Pure.

See docs/decisions.md#engine-keyspace."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from legion_memory.schema.records import Record

# `TASK_TYPE_MAP` of scripts/recommendation-engine.js: a prompt concept -> the task type that
# `detectTaskType` returns and `archetypeBoost` looks up in archetypeScores.
TASK_TYPE_MAP = {
    "react": "web-development",
    "frontend": "web-development",
    "css": "web-development",
    "html": "web-development",
    "api": "api-development",
    "endpoint": "api-development",
    "rest": "api-development",
    "graphql": "api-development",
    "mobile": "mobile-development",
    "ios": "mobile-development",
    "android": "mobile-development",
    "flutter": "mobile-development",
    "ml": "ai-ml",
    "ai": "ai-ml",
    "model": "ai-ml",
    "training": "ai-ml",
    "test": "quality-testing",
    "qa": "quality-testing",
    "benchmark": "quality-testing",
    "campaign": "content-marketing",
    "social": "content-marketing",
    "content": "content-marketing",
    "visionos": "spatial-computing",
    "xr": "spatial-computing",
    "webxr": "spatial-computing",
    "spatial": "spatial-computing",
    "security": "security-audit",
    "owasp": "security-audit",
    "stride": "security-audit",
    "deploy": "devops",
    "ci-cd": "devops",
    "infrastructure": "devops",
    "design": "design-ux",
    "ui": "design-ux",
    "ux": "design-ux",
}
# The `SEMANTIC_MAP` entries whose concept is a TASK_TYPE_MAP key: the engine adds the concept
# when the phrase appears anywhere in the prompt.
SEMANTIC_CONCEPTS = {"harden": "security", "exploit": "security", "vulnerability": "security"}
# Word endings a tag carries and a prompt concept does not ("testing" -> "test").
SUFFIXES = ("ing", "ment", "er", "es", "s")
_NOT_TOKEN = re.compile(r"[^a-z0-9-]")


def engine_task_types() -> list[str]:
    """Every task type the engine can detect, in the order of its map."""
    return list(dict.fromkeys(TASK_TYPE_MAP.values()))


def engine_keys(record: Record) -> list[str]:
    """The engine task types of an outcome: of its Task Type first, then of each tag, once."""
    terms = [record["task_type"], *record.tags]
    return list(dict.fromkeys(key for term in terms for key in keys_of_term(term)))


def keys_of_term(term: str) -> Iterator[str]:
    """What the engine would detect from this term in a prompt: each whitespace token as the
    engine normalises it, its hyphen parts (catalog types are compounds: `api-design`), a word
    ending dropped when that gives a concept, and the semantic phrases it contains."""
    lower = term.casefold()
    for concept in _concepts(lower):
        if concept in TASK_TYPE_MAP:
            yield TASK_TYPE_MAP[concept]
    for phrase, concept in SEMANTIC_CONCEPTS.items():
        if phrase in lower:
            yield TASK_TYPE_MAP[concept]


def _concepts(lower: str) -> Iterator[str]:
    for raw in lower.split():
        token = _NOT_TOKEN.sub("", raw)
        for word in _with_parts(token):
            yield _stem(word)


def _with_parts(token: str) -> Iterable[str]:
    if not token:
        return ()
    return (token, *(part for part in token.split("-") if part and part != token))


def _stem(word: str) -> str:
    if word in TASK_TYPE_MAP:
        return word
    for suffix in SUFFIXES:
        if word.endswith(suffix) and word[: -len(suffix)] in TASK_TYPE_MAP:
            return word[: -len(suffix)]
    return word
