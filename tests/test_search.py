"""`search`: text relevance first (BM25F over stems, times coverage), then recency and importance,
over every memory file, learn entries and RETRO.md."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from support.processes import CLI, read_bytes_of
from support.search import OUTCOMES_HEAD, fixture_project, outcomes_project

from legion_memory.markdown.document import parse
from legion_memory.search.corpus import Corpus, Source
from legion_memory.search.ranking import SNIPPET_CHARS, bm25, query_terms, window
from legion_memory.search.retro_entries import retro_entries

TODAY = "2026-05-01"


def ids(cli: CLI, root: Path, *args: str) -> list[str]:
    result = cli("--root", str(root), "--today", TODAY, "--json", "search", *args)
    assert result.code == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)["results"]]


def test_bm25_of_a_two_document_corpus_matches_the_formula_worked_by_hand() -> None:
    # N=2, "token" in 1 text: idf = ln(1 + 1.5/1.5) = ln 2. Lengths in characters: 10 and 4,
    # average 7; norm = 1.2 * (0.25 + 0.75 * 10/7) = 1.585714; tf part = 2.2 / 2.585714.
    scored = scores(["token"], ["auth token", "auth"])
    assert list(scored) == ["auth token"]
    assert math.isclose(
        scored["auth token"], 2.2 / (1 + 1.2 * (0.25 + 0.75 * 10 / 7)) * math.log(2)
    )
    assert math.isclose(scored["auth token"], 0.589749, abs_tol=1e-6)
    # Whole words by their stems, not substrings: "tokens" is a form of "token", "tokenizer" holds
    # "token" but is another word.
    assert list(scores(["token"], ["Tokens, token!", "tokens", "tokenizer"])) == [
        "Tokens, token!",
        "tokens",
    ]


def scores(query: list[str], texts: list[str]) -> dict[str, float]:
    corpus = Corpus.of(
        Source("outcome", text, lambda: pytest.fail("not built"), id=f"O-{i}", date="")
        for i, text in enumerate(texts)
    )
    return {match.source.text: match.bm25 for match in bm25(query, corpus)}


def test_human_output_is_a_table_with_file_line_id_score_and_snippet(
    cli: CLI, tmp_path: Path
) -> None:
    root = outcomes_project(
        tmp_path,
        [
            "| O-001 | 2026-04-30 | main | 1 | 01-01 | dev | code | success | 3 |  | "
            "Tuned the postgres pool |",
            "| O-002 | 2026-04-30 | main | 1 | 01-02 | dev | code | success | 3 |  | "
            "Wrote the release notes |",
        ],
    )
    result = cli("--root", str(root), "--today", TODAY, "search", "postgres")
    # Both rows are 68 characters, so the length norm is 1.2 and the one match scores
    # idf = ln 2 = 0.693, times coverage 1.0, recency factor 1 + 0.1 * 1.0, importance weight 1.0.
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == (
        "| # | File | ID | Score | Snippet |\n"
        "|---|---|---|---|---|\n"
        "| 1 | OUTCOMES.md:7 | O-001 | 0.762 | summary: Tuned the postgres pool |\n"
    )


def test_json_explains_bm25_recency_and_importance(cli: CLI, tmp_path: Path) -> None:
    root = outcomes_project(
        tmp_path,
        [
            "| O-001 | 2026-04-20 | main | 1 | 01-01 | dev | code | success | 5 |  | "
            "Tuned the postgres pool |",
            "| O-002 | 2026-04-30 | main | 1 | 01-02 | dev | code | success | 3 |  | "
            "Wrote the release notes |",
        ],
    )
    result = cli("--root", str(root), "--today", TODAY, "--json", "search", "postgres")
    # 11 days old: recency 0.7, factor 1 + 0.1 * 0.7; importance 5: weight 1 + 0.05 * 2 / 2;
    # 0.693147 * 1.0 (coverage) * 1.07 * 1.05 = 0.778751.
    assert json.loads(result.stdout) == {
        "results": [
            {
                "scope": "project",
                "file": "OUTCOMES.md",
                "path": ".planning/memory/OUTCOMES.md",
                "line": 7,
                "id": "O-001",
                "type": "outcome",
                "date": "2026-04-20",
                "score": 0.778751,
                "bm25": 0.693147,
                "coverage": 1.0,
                "nearness": 0.0,
                "distinctive": 1,
                "shared": 1,
                "recency": 0.7,
                "importance": 5,
                "importance_weight": 1.05,
                "field": "summary",
                "snippet": "Tuned the postgres pool",
            }
        ]
    }


def _row(number: int, date: str, importance: int, summary: str) -> str:
    return (
        f"| O-{number:03d} | {date} | main | 1 | 01-01 | dev | code | success | {importance} "
        f"|  | {summary} |"
    )


def test_identical_records_rank_newest_first_by_recency_tier(cli: CLI, tmp_path: Path) -> None:
    same = "Warmed the search cache"
    root = outcomes_project(
        tmp_path,
        [
            _row(1, "2026-03-01", 3, same),  # 61 days: 0.4
            _row(2, "2025-01-01", 3, same),  # over 90 days: 0.1
            _row(3, "2026-04-30", 3, same),  # 1 day: 1.0
            _row(4, "2026-04-10", 3, same),  # 21 days: 0.7
        ],
    )
    assert ids(cli, root, "cache") == ["O-003", "O-004", "O-001", "O-002"]


def test_importance_orders_equally_relevant_records(cli: CLI, tmp_path: Path) -> None:
    same = "Warmed the search cache"
    root = outcomes_project(
        tmp_path,
        [
            _row(1, "2026-04-30", 1, same),
            _row(2, "2026-04-30", 5, same),
            _row(3, "2026-04-30", 3, same),
        ],
    )
    assert ids(cli, root, "cache") == ["O-002", "O-003", "O-001"]


def test_equal_scores_go_to_the_newer_date_then_the_higher_id(cli: CLI, tmp_path: Path) -> None:
    same = "Warmed the search cache"
    root = outcomes_project(
        tmp_path,
        [
            _row(1, "2026-04-26", 3, same),
            _row(2, "2026-04-29", 3, same),
            _row(3, "2026-04-26", 3, same),
        ],
    )
    assert ids(cli, root, "cache") == ["O-002", "O-003", "O-001"]


def test_a_rare_word_outweighs_a_common_one(cli: CLI, tmp_path: Path) -> None:
    root = outcomes_project(
        tmp_path,
        [
            _row(1, "2026-04-30", 3, "Cache warmed for search"),
            _row(2, "2026-04-30", 3, "Cache warmed for postgres"),
            _row(3, "2026-04-30", 3, "Cache warmed for images"),
            _row(4, "2026-04-30", 3, "Cache cleared for video"),
        ],
    )
    # "postgres" is in one row, "cache" in all four: O-002 has both and leads; the others tie on
    # "cache" and break the tie by ID.
    assert ids(cli, root, "postgres cache") == ["O-002", "O-004", "O-003", "O-001"]


def test_fixture_ranking_across_files(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    # D-001 and O-003 both say "tailwind" twice; O-003 is 11 days old (0.7) with importance 2
    # (0.9), D-001 is 5 days old (1.0) with no importance: D-001 first. The archived P-004 also
    # says "tailwind" and never appears.
    assert ids(cli, root, "tailwind") == ["D-001", "O-003"]
    # RETRO-2 ("manual backfill", 10 words, 42 days: 0.4) is shorter than O-004 (14 words,
    # 47 days: 0.4, importance 3): RETRO-2 first.
    assert ids(cli, root, "backfill") == ["RETRO-2", "O-004"]


def test_learn_entries_are_searched(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    # PAT-003 says "worker" three times (summary, body, "per-worker"), O-002 "workers" once in its
    # summary, RETRO-1 "workers" and "per-worker" in its body (weight 0.6).
    assert ids(cli, root, "worker") == ["PAT-003", "O-002", "RETRO-1"]
    result = cli("--root", str(root), "--today", TODAY, "search", "worker")
    first = result.stdout.splitlines()[2]
    assert first.startswith("| 1 | PATTERNS.md:13 | PAT-003 | ")
    assert first.endswith(" | summary: Pin flaky auth tests to one worker |")


def test_file_option_limits_the_files(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    assert ids(cli, root, "auth", "--file", "errors") == ["E-002"]
    assert ids(cli, root, "auth", "--file", "retro") == ["RETRO-1"]
    assert ids(cli, root, "tailwind", "--file", "outcomes") == ["O-003"]


def test_limit_keeps_the_best(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    assert ids(cli, root, "tailwind", "--limit", "1") == ["D-001"]


def test_stopword_only_query_is_an_empty_result_exit_0(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    human = cli("--root", str(root), "search", "the and of to a")
    assert (human.code, human.stdout, human.stderr) == (0, "no matches\n", "")
    assert ids(cli, root, "the and of to a") == []


def test_unicode_queries(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    assert ids(cli, root, "日本語") == ["O-005"]
    assert ids(cli, root, "語") == ["O-005"]
    assert ids(cli, root, "CAFÉ") == ["O-005"]
    assert ids(cli, root, "Français") == ["O-005"]
    assert ids(cli, root, "cafe") == []


def test_archived_rows_never_appear(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    assert ids(cli, root, "scrubbing") == []
    assert "P-004" not in ids(cli, root, "auth token tailwind")
    assert "O-006" not in ids(cli, root, "auth token tailwind")


def test_no_memory_at_all_is_no_matches(cli: CLI, tmp_path: Path) -> None:
    result = cli("--root", str(tmp_path), "search", "anything")
    assert (result.code, result.stdout, result.stderr) == (0, "no matches\n", "")
    assert read_bytes_of(tmp_path) == {}


def test_disabled_memory_finds_nothing(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    (root / "settings.json").write_text('{"memory": {"enabled": false}}', "utf-8")
    assert ids(cli, root, "tailwind") == []


def test_an_unparseable_file_is_skipped_with_one_warning(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    errors = root / ".planning" / "memory" / "ERRORS.md"
    errors.write_text(errors.read_text("utf-8") + "| E-003 | broken | row |\n", "utf-8")
    before = read_bytes_of(root)
    result = cli("--root", str(root), "--today", TODAY, "--json", "search", "tailwind auth")
    assert result.code == 0
    assert result.stderr == (
        "Warning: .planning/memory/ERRORS.md could not be parsed. Proceeding without it.\n"
    )
    found = [hit["id"] for hit in json.loads(result.stdout)["results"]]
    assert "D-001" in found
    assert not [i for i in found if i.startswith("E-")]
    assert read_bytes_of(root) == before


def test_bad_options_are_one_line_exit_2(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    result = cli("--root", str(root), "search", "x", "--file", "notes")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: --file 'notes' is not valid "
        "(use one of outcomes, patterns, errors, preferences, retro, all)\n"
    )
    result = cli("--root", str(root), "search", "x", "--limit", "0")
    assert result.stderr == "Error: --limit 0 is not valid (use a number of 1 or more)\n"


def test_snippet_is_at_most_240_characters_around_the_match() -> None:
    text = " ".join(f"word{i}" for i in range(100)) + " postgres " + "tail " * 60
    shown = window(text, query_terms("postgres"))
    assert len(shown) <= SNIPPET_CHARS
    assert shown.startswith("…word")
    assert shown.endswith("…")
    assert "postgres" in shown
    assert window("short text", query_terms("postgres")) == "short text"


def test_snippet_of_a_match_near_the_end_fills_the_window() -> None:
    text = "a" * 300 + " postgres"
    shown = window(text, query_terms("postgres"))
    assert len(shown) == SNIPPET_CHARS
    assert shown.endswith(" postgres")


def test_a_row_with_a_shifted_pipe_makes_the_file_unreadable(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    errors = root / ".planning" / "memory" / "ERRORS.md"
    # As many pipes as the header, but no closing pipe: 9 cells for 8 columns.
    row = "| E-003 | 2026-04-30 | main | tailwind | b | x | true | t | extra\n"
    errors.write_text(errors.read_text("utf-8") + row, "utf-8")
    result = cli("--root", str(root), "--today", TODAY, "search", "tailwind", "--file", "errors")
    assert (result.code, result.stdout) == (0, "no matches\n")
    assert result.stderr == (
        "Warning: .planning/memory/ERRORS.md could not be parsed. Proceeding without it.\n"
    )


def test_rows_after_text_whose_lowercase_is_longer_are_still_found(
    cli: CLI, tmp_path: Path
) -> None:
    # "İ".lower() is two characters: offsets in the lowercased table no longer match the rows.
    root = outcomes_project(
        tmp_path,
        [
            _row(1, "2026-04-30", 3, "İİİİİİİİ warm cache"),
            _row(2, "2026-04-30", 3, "Cold pool"),
            _row(3, "2026-04-30", 3, "Tuned postgres"),
        ],
    )
    assert ids(cli, root, "postgres") == ["O-003"]
    assert ids(cli, root, "cache") == ["O-001"]


def test_crlf_tables_and_escaped_cells_are_searched(cli: CLI, tmp_path: Path) -> None:
    root = outcomes_project(tmp_path, [])
    outcomes = root / ".planning" / "memory" / "OUTCOMES.md"
    text = OUTCOMES_HEAD + _row(1, "2026-04-30", 3, "Piped a \\| b<br>then postgres") + "\n"
    outcomes.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    result = cli("--root", str(root), "--today", TODAY, "--json", "search", "postgres")
    hit = json.loads(result.stdout)["results"][0]
    assert (hit["id"], hit["line"], hit["snippet"]) == ("O-001", 7, "Piped a | b then postgres")


def test_retro_sections_are_entries_with_plain_snippets(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    result = cli(
        "--root", str(root), "--today", TODAY, "--json", "search", "backfill", "--file", "retro"
    )
    [hit] = json.loads(result.stdout)["results"]
    assert (hit["id"], hit["line"], hit["date"], hit["type"]) == (
        "RETRO-2",
        18,
        "2026-03-20",
        "retro",
    )
    assert hit["snippet"] == "Key Findings The sessions migration needed a manual backfill."


def test_retro_entries_split_on_level_two_headings_outside_code() -> None:
    text = (
        "# Retrospective Log\n\nIntro.\n\n"
        "## Phase 1: Setup — 2026-01-05\n\n### Key Findings\n- one\n\n```\n## not a heading\n```\n"
        "---\n\nloose text\n\n"
        "## Milestone 2 \u2013 2026-02-01 ##\nbody two\n"  # an en dash
        "## Undated notes\nbody three"
    )
    found = [(e.id, e.title, e.date, e.line, e.body) for e in retro_entries(parse(text))]
    assert found == [
        (
            "RETRO-1",
            "Phase 1: Setup",
            "2026-01-05",
            5,
            "### Key Findings\n- one\n\n```\n## not a heading\n```",
        ),
        ("RETRO-2", "Milestone 2", "2026-02-01", 17, "body two"),
        ("RETRO-3", "Undated notes", "", 19, "body three"),
    ]
