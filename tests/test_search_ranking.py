"""Ranking invariants: light stems, whole-word matching, field weights, text before age, and the
relevance floor that keeps a weak best match out of `search` and `context`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.processes import CLI
from support.search import errors_project, fixture_project

from legion_memory.search.context_block import candidates
from legion_memory.search.corpus import Corpus, Source
from legion_memory.search.nearness import nearness
from legion_memory.search.ranking import confident, query_terms, rank, window
from legion_memory.search.stemming import stem
from legion_memory.search.terms import starting_with, words

TODAY = dt.date(2026, 5, 1)


@pytest.mark.parametrize(
    "forms",
    [
        ("agent", "agents"),
        ("spawn", "spawns", "spawned", "spawning"),
        ("test", "tests", "tested", "testing"),
        ("retry", "retries", "retried"),
        ("cache", "caches", "cached", "caching"),
        ("pass", "passes", "passed", "passing"),
        ("escalate", "escalated", "escalation", "escalations"),
        ("parse", "parser", "parsers", "parsing"),
        ("compact", "compacted", "compaction"),
        ("prioritised", "prioritized", "prioritising", "prioritizes"),
        ("summarise", "summarize", "summary", "summaries"),
        ("normalisation", "normalization", "normalised", "normalize"),
        ("revise", "revised", "revision"),
    ],
)
def test_forms_of_a_word_share_one_stem(forms: tuple[str, ...]) -> None:
    assert {stem(form) for form in forms} == {stem(forms[0])}


def test_short_and_other_words_keep_their_form() -> None:
    assert [stem(w) for w in ("is", "bus", "class", "status", "user", "日本", "v2")] == [
        "is",
        "bus",
        "clas",
        "status",
        "user",
        "日本",
        "v2",
    ]


@given(st.text(st.sampled_from("abcdeilnorstyz"), min_size=1, max_size=14))
def test_a_stem_is_a_prefix_of_its_word(word: str) -> None:
    # What lets the corpus find candidates with str.find on the stem.
    assert word.startswith(stem(word))


@settings(max_examples=500)
@given(
    st.text(st.sampled_from(list("abfix é日本_-.2KİN")), max_size=30),
    st.lists(st.sampled_from(["fix", "ab", "2", "k", "x", "日"]), min_size=1, max_size=3),
)
def test_words_starting_with_a_prefix_are_the_words_that_do(text: str, prefixes: list[str]) -> None:
    lowered = text.lower()
    expected = [w for w in words(lowered) if w.startswith(tuple(prefixes))]
    assert starting_with(prefixes)(lowered) == expected


def test_words_that_carry_meaning_in_error_memory_are_not_stopwords() -> None:
    assert words("Fix the build: do not add make, no") == [
        "fix",
        "build",
        "not",
        "add",
        "make",
        "no",
    ]


def test_single_letters_and_digits_are_not_words() -> None:
    # What is left of node's and [x], and of a version string: each would match nearly anything.
    assert words("Upgrade node's [x] to version 2 of release 7.3.2, node 16, v2") == [
        "upgrade",
        "node",
        "version",
        "release",
        "node",
        "16",
        "v2",
    ]


def test_a_version_string_s_digits_match_no_query() -> None:
    corpus = Corpus.of([_source(1, "defect reported against release 7.3.2"), *map(_note, range(9))])
    assert rank(corpus, query_terms("upgrade the schema to version 2"), TODAY) == []


def _source(number: int, text: str, *, days: int = 0, importance: int | None = None) -> Source:
    return Source(
        "outcome",
        text,
        lambda: pytest.fail("not built"),
        id=f"O-{number:03d}",
        date=(TODAY - dt.timedelta(days=days)).isoformat(),
        importance=importance,
    )


FILLER = [f"unrelated note number {n} about something else entirely" for n in range(20)]
QUERY_WORDS = st.lists(
    st.sampled_from(["lockfile", "drift", "installer", "checksum", "timeout", "registry"]),
    min_size=2,
    max_size=4,
    unique=True,
)


@settings(max_examples=200, deadline=None)
@given(
    query=QUERY_WORDS,
    ages=st.tuples(st.integers(0, 2000), st.integers(0, 2000)),
    importances=st.tuples(st.sampled_from([None, 1, 3, 5]), st.sampled_from([None, 1, 3, 5])),
)
def test_a_record_matching_every_word_outranks_one_matching_one_whatever_their_ages(
    query: list[str], ages: tuple[int, int], importances: tuple[int | None, int | None]
) -> None:
    every = " ".join(query)
    # The same length: only the words matched differ.
    single = (query[0] + " " + "x" * (len(every) - len(query[0]) - 1)).strip()
    corpus = Corpus.of(
        [
            _source(1, every, days=ages[0], importance=importances[0]),
            _source(2, single, days=ages[1], importance=importances[1]),
            *(_source(10 + n, text, days=n) for n, text in enumerate(FILLER)),
        ]
    )
    hits = rank(corpus, query_terms(every), TODAY)
    assert [hit.source.id for hit in hits] == ["O-001", "O-002"]


def test_the_main_field_outweighs_tags_and_context(cli: CLI, tmp_path: Path) -> None:
    # E-001 has "lockfile" in its tags only; E-002 in its signature; same age and length.
    root = errors_project(
        tmp_path,
        [
            "| E-001 | 2026-04-30 | main | Install breaks on CI | Pin npm | x | true | lockfile |",
            "| E-002 | 2026-04-20 | main | Lockfile breaks on CI | Pin npm | x | true | install |",
        ],
    )
    result = cli("--root", str(root), "--today", "2026-05-01", "--json", "search", "lockfile")
    assert [(r["id"], r["field"]) for r in json.loads(result.stdout)["results"]] == [
        ("E-002", "error_signature"),
        ("E-001", "tags"),
    ]


def test_the_snippet_shows_the_field_that_matched(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(
        tmp_path,
        ["| E-001 | 2026-04-30 | main | Install breaks | Regenerate the lockfile | x | true |  |"],
    )
    result = cli("--root", str(root), "--today", "2026-05-01", "search", "regenerating")
    assert result.stdout.splitlines()[2].endswith(" | fix: Regenerate the lockfile |")


def test_a_snippet_is_anchored_on_a_whole_word() -> None:
    # "prefix" holds "fix" first; the window opens at the word "fix" itself.
    text = "prefix " + "filler " * 40 + "fix the lockfile " + "tail " * 40
    shown = window(text, query_terms("fix"))
    assert shown.startswith("…")
    assert " fix the lockfile " in shown
    assert "prefix" not in shown


def test_a_query_with_no_answer_returns_nothing(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    # "auth" is in memory, the other four words are not: the best match covers too little.
    task = "kubernetes helm chart rollback auth"
    found = cli("--root", str(root), "--today", "2026-05-01", "--json", "search", task)
    assert json.loads(found.stdout) == {"results": []}
    human = cli("--root", str(root), "--today", "2026-05-01", "search", task)
    assert (human.code, human.stdout) == (0, "no matches\n")
    block = cli("--root", str(root), "context", "--agent", "x", "--task", task)
    assert (block.code, block.stdout, block.stderr) == (0, "", "")
    # The same memory answers a query about auth.
    assert json.loads(cli("--root", str(root), "--json", "search", "auth").stdout)["results"]


# Sixty records hold "number"; a word of at most two of them (2% of 61) is distinctive.
NOTES = [f"unrelated note number {n} about something else entirely" for n in range(60)]
# Nine words, most of which no record holds: one rare word alone covers a ninth of it.
LONG_TASK = "checksum number helm chart rollback kubernetes ingress canary terraform"


def test_one_rare_word_in_common_is_below_the_floor() -> None:
    corpus = Corpus.of([_source(1, "checksum mismatch"), *map(_note, range(60))])
    hits = rank(corpus, query_terms(LONG_TASK), TODAY)
    checksum = next(hit for hit in hits if hit.source.id == "O-001")
    assert (checksum.shared, checksum.distinctive, checksum.coverage < 0.25) == (1, 1, True)
    assert not confident(hits)


def test_a_rare_word_with_another_word_in_common_is_relevant() -> None:
    corpus = Corpus.of([_source(1, "checksum number went stale"), *map(_note, range(60))])
    hits = rank(corpus, query_terms(LONG_TASK), TODAY)
    assert hits[0].source.id == "O-001"
    assert (hits[0].shared, hits[0].distinctive, hits[0].coverage < 0.25) == (2, 1, True)
    assert confident(hits)
    # The notes share "number" alone, a word most records hold: none of them is relevant.
    assert [hit.source.id for hit in hits if hit.relevant] == ["O-001"]


def test_context_also_takes_an_item_sharing_a_distinctive_word() -> None:
    corpus = Corpus.of(
        [
            _source(1, "checksum number went stale"),
            _source(2, "rollback of the release after the deploy went wrong"),
            *map(_note, range(60)),
        ]
    )
    shown = candidates([("project", corpus)], "dev", LONG_TASK, TODAY)
    # O-002 shares only "rollback": not relevant and under half the floor's coverage, but rare.
    rollback = shown[1].item
    assert (rollback.relevant, rollback.coverage < 0.125, rollback.distinctive) == (False, True, 1)
    assert [marked.item.source.id for marked in shown] == ["O-001", "O-002"]


def _note(number: int) -> Source:
    return _source(100 + number, NOTES[number], days=number)


def _errors(count: int) -> list[str]:
    return [
        f"| E-{n:03d} | 2026-04-30 | main | Lockfile drift number {n} breaks the install "
        f"| Pin the version {n} | x | true |  |"
        for n in range(1, count + 1)
    ]


def test_the_number_of_items_follows_the_budget(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(tmp_path, _errors(30))

    def items(*extra: str) -> int:
        out = cli(
            "--root", str(root), "context", "--agent", "x", "--task", "lockfile drift", *extra
        )
        return len(out.stdout.splitlines()) - 2

    # Lines of 94 bytes (E-001 to E-009) and 96, in a frame of 42: 470 bytes hold 5, 982 hold
    # 10 with 42 left (too few for a 40-character headline), 4054 hold all 30.
    small, default, large = items("--budget", "512"), items(), items("--budget", "4096")
    assert (small, default, large) == (5, 10, 30)
    assert items("--budget", "4096", "--limit", "3") == 3


def test_an_item_that_does_not_fit_is_skipped_for_a_shorter_one(cli: CLI, tmp_path: Path) -> None:
    long_fix = "a very long explanation of the fix " * 6
    root = errors_project(
        tmp_path,
        [
            f"| E-001 | 2026-04-30 | main | Lockfile drift breaks CI | {long_fix} | x | true |  |",
            "| E-002 | 2026-04-29 | main | Lockfile conflict | Pin | x | true |  |",
            # Rows without either word: "lockfile" is then rare enough for E-002 to be relevant.
            *(
                f"| E-{n:03d} | 2026-04-01 | main | Other {n} | - | x | true |  |"
                for n in (3, 4, 5)
            ),
        ],
    )
    out = cli(
        "--root",
        str(root),
        "context",
        "--agent",
        "x",
        "--task",
        "lockfile drift",
        "--budget",
        "170",
    ).stdout
    lines = out.splitlines()
    assert len(out.encode("utf-8")) <= 170
    # E-001 matches both words but is too long whole: E-002 goes in whole, then E-001 shortened
    # into the 73 bytes left (the ellipsis takes 3); shown in rank order.
    assert lines[1] == "- [error-fix] Lockfile drift breaks CI; fix: a very long… (2026-04-30)"
    assert lines[2] == "- [error-fix] Lockfile conflict; fix: Pin (2026-04-29)"


def test_a_budget_smaller_than_any_line_prints_nothing(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(tmp_path, _errors(3))
    out = cli(
        "--root", str(root), "context", "--agent", "x", "--task", "lockfile", "--budget", "13"
    )
    assert (out.code, out.stdout, out.stderr) == (0, "", "")


MERGE_DRIVER = set(query_terms("merge driver"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("merge driver failed", 1.0),
        ("merge the driver", 1.0),  # stopwords are not counted
        ("merge " + "word " * 4 + "driver", 1.0),  # 5 words apart
        ("merge " + "word " * 5 + "driver", 0.0),  # 6 words apart
        ("driver merges", 1.0),  # either order, any form
    ],
)
def test_nearness_counts_words_standing_at_most_five_apart(text: str, expected: float) -> None:
    assert nearness([text], MERGE_DRIVER, 2) == expected


def test_nearness_is_the_share_of_matched_words_near_another_within_one_field() -> None:
    wanted = set(query_terms("merge driver timeout"))
    far = "merge driver " + "word " * 8 + "timeout"
    assert nearness([far], wanted, 3) == 0.5
    assert nearness(["merge", "driver"], MERGE_DRIVER, 2) == 0.0
    assert nearness(["merge merge merge"], MERGE_DRIVER, 1) == 0.0


def test_matched_words_standing_together_outrank_the_same_words_apart() -> None:
    # The same words, so the same length and bm25; without nearness O-002 would come first
    # (the tie-break: the higher ID).
    together = "postgres pool tuned before release and nothing else changed here"
    apart = "postgres tuned before release and nothing else changed here pool"
    corpus = Corpus.of(
        [
            _source(1, together),
            _source(2, apart),
            *(_source(10 + n, text, days=n) for n, text in enumerate(FILLER)),
        ]
    )
    hits = rank(corpus, query_terms("postgres pool"), TODAY)
    assert [(hit.source.id, hit.nearness) for hit in hits] == [("O-001", 1.0), ("O-002", 0.0)]
    assert hits[0].score == pytest.approx(hits[1].score * 1.3)
