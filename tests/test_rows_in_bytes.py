"""What a store reads without a test of every row: an agent's history, found by `bytes.find` over
the file's bytes (the records a test of every row's line finds, whatever the file's shape, and
the same importance through the command where a plain substring would mislead: a name inside
another, an escaped pipe, CRLF endings), and conflict markers, looked for among the rows the
structural check counted (the same refusal)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES

from legion_memory.errors import ParseError
from legion_memory.markdown.cells import escape
from legion_memory.markdown.document import Table, parse
from legion_memory.schema.kinds import OUTCOME
from legion_memory.schema.records import read_records, records_table
from legion_memory.storage.reading import require_no_conflict_markers, sound_table

CATALOG = FIXTURES / "catalog" / "CATALOG.md"
OUTCOMES = Path(".planning") / "memory" / "OUTCOMES.md"
PATH = Path("OUTCOMES.md")
HEADER = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
)
PIECES = ["a", "b", "ab", "日", "😀", " ", "|", "\\", "<br>", "\r", ",", "O-1", "-"]
piece_text = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)
needles = st.lists(
    st.sampled_from(["a", "b", "ab", "日", "😀", "a b", "\\", "O-", ","]), max_size=3
)
styles = st.sampled_from([("| ", " |"), ("|", "|"), ("", ""), ("  | ", " |  ")])


@st.composite
def files(draw: st.DrawFn) -> str:
    """A records table of two columns, its cells escaped or written raw (a hand edit), with prose
    around it sometimes."""
    lines = ["# Outcomes", draw(piece_text), "## Records", "", "| ID | Summary |", "|---|---|"]
    for number in range(draw(st.integers(0, 8))):
        summary = draw(piece_text)
        cell = escape(summary) if draw(st.booleans()) else summary.replace("\n", "")
        opening, closing = draw(styles)
        lines.append(f"{opening}O-{number:03d} | {cell}{closing}")
    lines += draw(st.sampled_from([[], ["", "## Later", "ab 日 | b |"]]))
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


@settings(max_examples=400, deadline=None)
@given(files(), needles, st.sampled_from(["", "\ufeff"]), st.sampled_from(["\n", "\r\n"]))
@example(
    "## Records\n\n| ID | Summary |\n|---|---|\n| O-001 | ab |\n| O-002 | b |", ["b"], "", "\n"
)
def test_rows_found_in_the_bytes_are_the_rows_whose_lines_hold_a_string(
    text: str, wanted: list[str], bom: str, ending: str
) -> None:
    variant = bom + text.replace("\n", ending)
    document = parse(variant)
    table = records_table(document, OUTCOME)
    if table is None:
        return
    data = variant.encode("utf-8")
    by_lines = list(read_records(document, table, OUTCOME, mentioning=wanted))
    assert list(read_records(document, table, OUTCOME, mentioning=wanted, data=data)) == by_lines


def _store(cli: CLI, repo: Path, agent: str, summary: str = "s") -> dict[str, object]:
    args = ["--root", str(repo), "--today", "2026-03-31", "--catalog", str(CATALOG), "--json"]
    result = cli(*args, "store", "outcome", "--phase", "5", "--plan", "05-01", "--agent", agent,
                 "--outcome", "success", "--summary", summary)  # fmt: skip
    assert (result.code, result.stderr) == (0, "")
    stored: dict[str, object] = json.loads(result.stdout)
    return stored


def _write(repo: Path, rows: list[str], ending: str = "\n") -> None:
    (repo / OUTCOMES).parent.mkdir(parents=True)
    text = "## Records\n\n" + HEADER + "".join(row + "\n" for row in rows)
    (repo / OUTCOMES).write_bytes(text.replace("\n", ending).encode("utf-8"))


def test_a_name_inside_another_agents_name_is_not_that_agents_history(cli: CLI, repo: Path) -> None:
    """`engineering-frontend-developer` occurs inside a longer agent's name, in a row of its own
    task type: the row is found by the search, and the agent's cell then says it is not its own."""
    _write(repo, [
        "| O-001 | 2026-03-01 | main | 1 | 01-01 | senior-engineering-frontend-developer "
        "| frontend | success | 2 |  | other agent |",
        "| O-002 | 2026-03-02 | main | 1 | 01-02 | testing-api-tester | frontend | success | 2 |  "
        "| engineering-frontend-developer helped \\| once |",
    ])  # fmt: skip
    assert _store(cli, repo, "engineering-frontend-developer")["importance"] == 3  # still first
    # Its second outcome (another summary: the same one again would be the same outcome).
    assert _store(cli, repo, "engineering-frontend-developer", "s2")["importance"] == 2


def test_an_agent_among_several_in_a_row_with_escaped_pipes_and_crlf_is_its_history(
    cli: CLI, repo: Path
) -> None:
    _write(repo, [
        "| O-001 | 2026-03-01 | main | 1 | 01-01 "
        "| testing-api-tester, engineering-frontend-developer "
        "| frontend | success | 2 |  | a \\| b <br> c |",
    ], ending="\r\n")  # fmt: skip
    before = (repo / OUTCOMES).read_bytes()
    assert _store(cli, repo, "engineering-frontend-developer")["importance"] == 2
    assert (repo / OUTCOMES).read_bytes() == before + (
        b"| O-002 | 2026-03-31 | main | 5 | 05-01 | engineering-frontend-developer | frontend "
        b"| success | 2 |  | s |\r\n"
    )


def test_only_the_tables_rows_are_history(cli: CLI, repo: Path) -> None:
    """The agent and its task type in the prose before the table and after it are no outcome."""
    (repo / OUTCOMES).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "outcomes" / "OUTCOMES.md", repo / OUTCOMES)
    text = (repo / OUTCOMES).read_text(encoding="utf-8")
    prose = (
        "| O-900 | 2026-03-01 | main | 1 | 01-01 | lsp-index-engineer | lsp | success | 2 |  | x |"
    )
    head, _, rest = text.partition("## Records")
    (repo / OUTCOMES).write_text(
        f"{head}{prose}\n\n## Records{rest}\n## Notes\n\n{prose}\n", encoding="utf-8"
    )
    stored = _store(cli, repo, "lsp-index-engineer")
    assert (stored["task_type"], stored["importance"]) == ("lsp", 3)


MARKED = ["<<<<<<< ours", ">>>>>>> theirs", "||||||| base", "|||||||", "||| O-9 | x |", "=======",
          "| O-7 | <<<<<<< |", "| O-8 | x |"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(files(), st.lists(st.tuples(st.integers(0, 14), st.sampled_from(MARKED)), max_size=3))
@example("## Records\n\n| ID | Summary |\n|---|---|\n| O-001 | a |\n", [(5, "||||||| base")])
def test_markers_looked_for_among_the_counted_rows_are_every_marker(
    text: str, inserted: list[tuple[int, str]]
) -> None:
    """A store looks for conflict markers only outside the table's rows and among the rows the
    structural check counted one by one: a file is refused exactly when all its lines are
    looked at, with the same error (the same line)."""
    lines = text.splitlines()
    for at, line in inserted:
        lines.insert(min(at, len(lines)), line)
    document = parse("\n".join(lines) + "\n")
    if records_table(document, OUTCOME) is None:
        return
    try:
        sound = sound_table(PATH, document, OUTCOME)
    except ParseError:
        return  # a ragged row: the store stops before it looks for markers

    def refusal(given: tuple[Table, tuple[int, ...]] | None) -> str | None:
        try:
            require_no_conflict_markers(PATH, document, given)
        except ParseError as error:
            return error.line()
        return None

    assert refusal(sound) == refusal(None)


def test_a_diff3_base_marker_that_is_a_sound_row_is_refused(cli: CLI, repo: Path) -> None:
    """`|||||||` and five cells more make a row of the header's width: still a marker."""
    _write(repo, [
        "| O-001 | 2026-03-01 | main | 1 | 01-01 | testing-api-tester | backend | success | 2 |  "
        "| a |",
        "||||||| base | b | c | d | e |",
    ])  # fmt: skip
    before = (repo / OUTCOMES).read_bytes()
    args = ["--root", str(repo), "--today", "2026-03-31", "--catalog", str(CATALOG)]
    result = cli(*args, "store", "outcome", "--phase", "5", "--plan", "05-01", "--agent",
                 "testing-api-tester", "--outcome", "success", "--summary", "s")  # fmt: skip
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: {repo / OUTCOMES}:6: the file has unresolved git conflict markers "
        "(run `legion-memory doctor --fix` first)\n"
    )
    assert (repo / OUTCOMES).read_bytes() == before
