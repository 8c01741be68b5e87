"""`context`: the budgeted memory block an agent gets before it starts."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES, read_bytes_of
from support.search import errors_project, fixture_project

from legion_memory.markdown.words import jaccard, tokens
from legion_memory.search import context_block
from legion_memory.search.corpus import Corpus, Source
from legion_memory.search.documents import Entry
from legion_memory.search.ranking import ELLIPSIS

TODAY = "2026-05-01"


def context(cli: CLI, root: Path, *args: str) -> str:
    result = cli("--root", str(root), "--today", TODAY, "context", *args)
    assert (result.code, result.stderr) == (0, "")
    return result.stdout


def test_block_lists_the_best_items_best_first(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    out = context(cli, root, "--agent", "testing-qa-engineer", "--task", "fix flaky auth tests")
    # O-002 matches "flaky", "auth" and "tests", is 3 days old, importance 5 and the role's own:
    # first. PAT-003 has the rare "flaky" twice; D-002 is the role's (x1.5) but lacks "flaky";
    # P-001 matches "tests" and "auth" once each. E-002 and O-001 match "auth" alone: below half the
    # relevance floor, they stay out although the budget has room.
    assert out == (
        '<legion-memory role="testing-qa-engineer">\n'
        "- [outcome] Auth integration tests flaky under parallel runs; token cache shared "
        "between workers (2026-04-28)\n"
        "- [pattern] Pin flaky auth tests to one worker (2026-04-29)\n"
        "- [preference] Auth review blockers: user accepted Block merge until tests pass "
        "(2026-04-10)\n"
        "- [pattern] Table-driven tests for token parsers (reuse when: Parser or validator with "
        "many input shapes) (2026-04-25)\n"
        "</legion-memory>\n"
    )
    assert len(out.encode("utf-8")) <= 1024


def test_markdown_format(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    out = context(
        cli, root, "--agent", "design-ui-designer", "--task", "tailwind", "--format", "markdown"
    )
    assert out == (
        "## Legion memory: design-ui-designer\n"
        "- [preference] Styling the settings page: user chose Tailwind utility classes over CSS "
        "modules (2026-04-26)\n"
        "- [outcome] Migrated the settings page to Tailwind utility classes (2026-04-20)\n"
    )


def _error(number: int, agent: str, signature: str, tags: str) -> str:
    return (
        f"| E-{number:03d} | 2026-04-30 | main | {signature} | Pin the version | {agent} "
        f"| true | {tags} |"
    )


def test_items_of_the_role_rank_higher(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(
        tmp_path,
        [
            _error(1, "alice", "Lockfile drift breaks install", "eric"),
            _error(2, "bobby", "Lockfile drift breaks upgrade", "dave"),
            _error(3, "carol", "Lockfile drift breaks release", "fred"),
        ],
    )

    def order(role: str) -> list[str]:
        out = context(cli, root, "--agent", role, "--task", "lockfile drift")
        return [line.split()[5].rstrip(";") for line in out.splitlines()[1:-1]]

    # Every row has text of the same length and matches "lockfile drift" once each: equal
    # relevance, so without a role match the tie goes to the higher ID.
    assert order("nobody") == ["release", "upgrade", "install"]
    assert order("alice") == ["install", "release", "upgrade"]  # alice is E-001's agent
    assert order("DAVE") == ["upgrade", "release", "install"]  # dave is E-002's tag


def test_near_duplicates_are_shown_once(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(
        tmp_path,
        [
            # E-004 ranks first: as short and as new as E-002, with the higher ID.
            # E-001 shares 4 of its 5 words with E-004 (Jaccard 0.8): a duplicate.
            "| E-001 | 2026-04-29 | main | alpha beta gamma delta | epsilon | x | true |  |",
            # The same words as E-004 in another case and order: a duplicate.
            "| E-002 | 2026-04-30 | main | alpha beta gamma delta | - | x | true |  |",
            # 3 shared of 5 (0.6): kept, last (21 days old: recency 0.7).
            "| E-003 | 2026-04-10 | main | alpha beta gamma zeta | - | x | true |  |",
            "| E-004 | 2026-04-30 | main | Delta GAMMA beta alpha | - | x | true |  |",
        ],
    )
    out = context(cli, root, "--agent", "x", "--task", "alpha")
    assert out == (
        '<legion-memory role="x">\n'
        "- [error-fix] Delta GAMMA beta alpha; fix: - (2026-04-30)\n"
        "- [error-fix] alpha beta gamma zeta; fix: - (2026-04-10)\n"
        "</legion-memory>\n"
    )


def test_nothing_relevant_prints_nothing(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    before = read_bytes_of(root)
    for task in ("kubernetes helm chart", "the and of to", ""):
        result = cli("--root", str(root), "context", "--agent", "x", "--task", task)
        assert (result.code, result.stdout, result.stderr) == (0, "", "")
    (tmp_path / "none").mkdir()
    empty = cli("--root", str(tmp_path / "none"), "context", "--agent", "x", "--task", "auth")
    assert (empty.code, empty.stdout, empty.stderr) == (0, "", "")
    assert read_bytes_of(root) == before


def test_archived_rows_never_appear(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    assert context(cli, root, "--agent", "x", "--task", "scrubbing logs") == ""


def test_budget_shortens_the_item_that_does_not_fit_whole(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    args = ("--agent", "design-ui-designer", "--task", "tailwind")
    full = context(cli, root, *args)
    size = len(full.encode("utf-8"))
    assert context(cli, root, *args, "--budget", str(size)) == full
    lines = full.splitlines(keepends=True)
    # One byte short: the last headline is cut at a word, not dropped.
    assert context(cli, root, *args, "--budget", str(size - 1)) == "".join(
        [
            lines[0],
            lines[1],
            "- [outcome] Migrated the settings page to Tailwind utility… (2026-04-20)\n",
            lines[-1],
        ]
    )
    # Room for one line and not a 40-character headline of the other: the other is left out.
    assert context(cli, root, *args, "--budget", str(size - 20)) == "".join(
        [lines[0], lines[1], lines[-1]]
    )
    assert context(cli, root, *args, "--budget", "40") == ""


def test_multibyte_text_is_counted_in_bytes(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(
        tmp_path, ["| E-001 | 2026-04-30 | main | 日本語のエラー | 再起動 | x | true |  |"]
    )
    out = context(cli, root, "--agent", "x", "--task", "日本")
    assert out == (
        '<legion-memory role="x">\n- [error-fix] 日本語のエラー; fix: 再起動 (2026-04-30)\n'
        "</legion-memory>\n"
    )
    # 25 + 45 + 17 characters; the 10 CJK characters take 3 bytes each: 87 + 20 bytes.
    assert (len(out), len(out.encode("utf-8"))) == (87, 107)
    assert context(cli, root, "--agent", "x", "--task", "日本", "--budget", "107") == out
    assert context(cli, root, "--agent", "x", "--task", "日本", "--budget", "106") == ""
    assert context(cli, root, "--agent", "x", "--task", "日本", "--budget", "87") == ""


def test_role_and_texts_are_escaped_for_xml(cli: CLI, tmp_path: Path) -> None:
    root = errors_project(
        tmp_path, ['| E-001 | 2026-04-30 | main | <script> & "quotes" ]]> | - | x | true |  |']
    )
    out = context(cli, root, "--agent", 'a"<b>&', "--task", "script")
    assert out == (
        '<legion-memory role="a&quot;&lt;b>&amp;">\n'
        '- [error-fix] &lt;script> &amp; "quotes" ]]&gt;; fix: - (2026-04-30)\n'
        "</legion-memory>\n"
    )


def test_global_items_are_marked(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fixture_project(tmp_path)
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "search" / "global", home)
    monkeypatch.setenv("LEGION_MEMORY_HOME", str(home))
    out = context(cli, root, "--agent", "x", "--task", "tailwind", "--scope", "all")
    assert out == (
        '<legion-memory role="x">\n'
        "- [preference] Styling the settings page: user chose Tailwind utility classes over CSS "
        "modules (2026-04-26)\n"
        "- [outcome] Migrated the settings page to Tailwind utility classes (2026-04-20)\n"
        "- [preference] Styling any web page: user chose Tailwind utility classes over CSS "
        "modules (2026-04-30, global)\n"
        "</legion-memory>\n"
    )


def test_json_lists_the_block_and_its_items(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    result = cli(
        "--root",
        str(root),
        "--today",
        TODAY,
        "--json",
        "context",
        "--agent",
        "design-ui-designer",
        "--task",
        "tailwind",
        "--limit",
        "1",
    )
    data = json.loads(result.stdout)
    assert data["block"] == (
        '<legion-memory role="design-ui-designer">\n'
        "- [preference] Styling the settings page: user chose Tailwind utility classes over CSS "
        "modules (2026-04-26)\n"
        "</legion-memory>\n"
    )
    assert [(i["id"], i["scope"], i["role_boost"]) for i in data["items"]] == [
        ("D-001", "project", 1.5)
    ]


def test_json_shows_how_near_the_task_s_words_stand(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    options = ("--agent", "design-ui-designer", "--task", "tailwind utility classes")
    result = cli("--root", str(root), "--today", TODAY, "--json", "context", *options)
    items = json.loads(result.stdout)["items"]
    # Both hold the three words side by side: every matched word stands near another.
    assert [(i["id"], i["nearness"], i["shared"]) for i in items[:2]] == [
        ("D-001", 1.0, 3),
        ("O-003", 1.0, 3),
    ]


def test_bad_options_are_one_line_exit_2(cli: CLI, tmp_path: Path) -> None:
    root = fixture_project(tmp_path)
    cases = {
        ("--format", "html"): "Error: --format 'html' is not valid (use one of xml, markdown)\n",
        ("--budget", "0"): "Error: --budget 0 is not valid (use a number of bytes above 0)\n",
        ("--limit", "0"): "Error: --limit 0 is not valid (use a number of 1 or more)\n",
        (
            "--scope",
            "team",
        ): "Error: --scope 'team' is not valid (use one of project, global, all)\n",
    }
    for extra, message in cases.items():
        result = cli("--root", str(root), "context", "--agent", "x", "--task", "auth", *extra)
        assert (result.code, result.stdout, result.stderr) == (2, "", message)
    result = cli("--root", str(root), "context", "--agent", "  ", "--task", "auth")
    assert result.stderr == (
        "Error: --agent must not be empty (give the agent's ID, e.g. qa-engineer)\n"
    )


# Random memories: texts mixing ASCII, XML specials and multibyte letters from a small vocabulary
# (so that items share words, match the task and sometimes duplicate each other).
WORDS = ["auth", "token", "cache", "日本", "é", "<b>", "&", "parser", "flaky", "test", "x" * 40]
TEXTS = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
SOURCES = st.lists(
    st.builds(
        lambda text, days, kind, agent, number: Source.of(
            Entry(
                type=kind,
                id=f"E-{number:03d}",
                path=Path("ERRORS.md"),
                line=number,
                date=(dt.date(2026, 5, 1) - dt.timedelta(days=days)).isoformat(),
                headline=text,
                fields=(text,),
                prose=(text,),
                agents=(agent,),
                sections=(("error_signature", text),),
            )
        ),
        TEXTS,
        st.integers(0, 400),
        st.sampled_from(context_block.ITEM_TYPES),
        st.sampled_from(["qa", "dev", "日本"]),
        st.integers(1, 999),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(
    project=SOURCES,
    global_=SOURCES,
    task=TEXTS,
    budget=st.integers(64, 4096),
    block_format=st.sampled_from(context_block.FORMATS),
    limit=st.integers(1, 8),
)
def test_block_never_exceeds_the_budget(
    project: list[Source],
    global_: list[Source],
    task: str,
    budget: int,
    block_format: str,
    limit: int,
) -> None:
    tiers = [("project", Corpus.of(project)), ("global", Corpus.of(global_))]
    today = dt.date(2026, 5, 1)
    block = context_block.build(
        tiers, "qa", task, today=today, budget=budget, block_format=block_format, limit=limit
    )
    assert len(block.text.encode("utf-8")) <= budget
    most = min(limit, budget // context_block.SHORTEST_LINE)
    ranked = context_block.distinct(context_block.candidates(tiers, "qa", task, today), most)
    # What is shown is part of the distinct ranking, best first.
    positions = [ranked.index(marked) for marked in block.items]
    assert positions == sorted(positions)
    # At least as many items as packing whole lines best first, skipping what does not fit.
    opening, closing = context_block.frame("qa", block_format)
    room = budget - len(f"{opening}\n".encode()) - (len(f"{closing}\n".encode()) if closing else 0)
    greedy = 0
    for marked in ranked:
        size = len(f"{context_block.item_line(marked, block_format)}\n".encode())
        if size <= room:
            room, greedy = room - size, greedy + 1
    assert len(block.items) >= greedy
    event(f"items shown: {min(len(block.items), 3)}+")
    if not block.items:
        assert block.text == ""
        return
    lines = block.text.splitlines()
    item_lines = lines[1:-1] if block_format == "xml" else lines[1:]
    for line, marked in zip(item_lines, block.items, strict=True):
        whole = context_block.item_line(marked, block_format)
        assert line == whole or (ELLIPSIS in line and len(line) < len(whole))
    # Whole or shortened, no two items shown are near-duplicates.
    words = [set(tokens(m.item.entry.headline)) for m in block.items]
    for i, left in enumerate(words):
        assert all(jaccard(left, right) < 0.8 for right in words[i + 1 :])
