"""`validate`: every problem as FILE:LINE: severity: message, exit 1 on errors, files untouched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mistune
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.processes import CLI, FIXTURES, SAMPLES, read_bytes_of

from legion_memory.markdown.document import parse
from legion_memory.schema.validation import _renders_as_table

VALIDATE = FIXTURES / "validate"


def test_validate_reports_every_problem_with_its_line(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(VALIDATE / "OUTCOMES.md", tmp_path / "OUTCOMES.md")
    before = read_bytes_of(tmp_path)
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 1
    assert result.stdout == (
        "OUTCOMES.md:5: warning: GitHub would show this table as plain text (a bad row)\n"
        "OUTCOMES.md:8: error: Date '2026-3-2' must be a date YYYY-MM-DD\n"
        "OUTCOMES.md:8: error: Phase 'five' must be an integer or N/A\n"
        "OUTCOMES.md:8: error: Plan '5-1' must be NN-PP (e.g. 05-01), board or -\n"
        "OUTCOMES.md:8: error: Outcome 'won' must be one of success, partial, failed\n"
        "OUTCOMES.md:8: error: Importance '9' must be an integer from 1 to 5\n"
        "OUTCOMES.md:9: warning: Outcome 'Partial' should be lowercase 'partial'\n"
        "OUTCOMES.md:9: error: duplicate ID O-001 (also on line 7)\n"
        "OUTCOMES.md:10: error: row has 12 cells, header has 11 "
        "(an unescaped | in a value? write it as \\|)\n"
        "OUTCOMES.md:12: note: /legion:learn entry PAT-001 (kept as written)\n"
        "1 file checked, 7 errors, 3 other\n"
    )
    assert read_bytes_of(tmp_path) == before


def test_validate_json_lists_problems(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(VALIDATE / "conflicted-OUTCOMES.md", tmp_path / "OUTCOMES.md")
    result = cli("--root", str(tmp_path), "--json", "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data == {
        "files": 1,
        "problems": [
            {
                "file": "OUTCOMES.md",
                "line": line,
                "severity": "error",
                "message": "git conflict marker (run `legion-memory doctor --fix`)",
            }
            for line in (8, 10, 12)
        ],
    }


def test_validate_without_files_checks_the_memory_directory(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    result = cli("validate", cwd=repo)
    assert (result.code, result.stdout) == (0, "5 files checked, 0 errors, 0 other\n")


def test_legacy_three_column_layout_is_reported_not_fatal(cli: CLI, tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "tables" / "legacy-3col.md", tmp_path / "OUTCOMES.md")
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert result.code == 0
    assert result.stdout == (
        "OUTCOMES.md:2: warning: legacy layout: missing columns ID, Branch, Phase, Plan, "
        "Task Type, Importance, Tags, Summary (read as empty; `legion-memory migrate` adds them)\n"
        "OUTCOMES.md:4: warning: Outcome 'Success' should be lowercase 'success'\n"
        "OUTCOMES.md:5: warning: Outcome 'Failed' should be lowercase 'failed'\n"
        "1 file checked, 0 errors, 3 other\n"
    )


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="Legion samples not present")
def test_the_real_legacy_outcomes_sample_is_tolerated(cli: CLI, tmp_path: Path) -> None:
    sample = SAMPLES / "legacy-OUTCOMES.md"
    result = cli("--root", str(tmp_path), "validate", str(sample))
    assert result.code == 0
    assert "legacy layout: missing columns ID, Branch" in result.stdout


def test_a_file_that_is_not_utf8_is_an_error_with_its_line(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / "OUTCOMES.md").write_bytes(b"# Memory\n\nbad \xff byte\n")
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert (result.code, result.stdout.splitlines()[0]) == (
        1,
        "OUTCOMES.md:3: error: file is not valid UTF-8",
    )


OUTCOMES_HEADER = (
    "# Memory — Outcome Log\n\n## Records\n\n"
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags "
    "| Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------"
    "|---------|\n"
)
ROW = (
    "| O-00{n} | 2026-03-0{n} | main | 5 | 05-01 | a | backend | success | 3 | api | {summary} |\n"
)
GITHUB_WARNING = "OUTCOMES.md:5: warning: GitHub would show this table as plain text (a bad row)\n"


@pytest.mark.parametrize(
    "text",
    [
        # Our scanner reads `\\|` as an escaped pipe; GitHub (and mistune) as a backslash, then a
        # cell boundary: the row has one cell too many for them.
        OUTCOMES_HEADER + ROW.format(n=1, summary="fine") + ROW.format(n=2, summary="C:\\\\| x"),
        # A header without its closing pipe under a delimiter with both: 11 cells for our
        # scanner, a header and a delimiter of different widths for mistune.
        OUTCOMES_HEADER.replace("| Summary |\n", "| Summary\n") + ROW.format(n=1, summary="ok"),
    ],
    ids=["double-backslash-pipe", "header-without-closing-pipe"],
)
def test_a_table_only_the_renderer_rejects_is_reported(cli: CLI, tmp_path: Path, text: str) -> None:
    (tmp_path / "OUTCOMES.md").write_text(text, encoding="utf-8")
    before = read_bytes_of(tmp_path)
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert (result.code, result.stdout) == (
        0,
        GITHUB_WARNING + "1 file checked, 0 errors, 1 other\n",
    )
    assert read_bytes_of(tmp_path) == before


@pytest.mark.parametrize("final_newline", [True, False])
def test_a_crlf_table_the_renderer_accepts_is_not_reported(
    cli: CLI, tmp_path: Path, final_newline: bool
) -> None:
    text = OUTCOMES_HEADER + ROW.format(n=1, summary="a \\| b") + ROW.format(n=2, summary="c")
    text = text.replace("\n", "\r\n")
    (tmp_path / "OUTCOMES.md").write_bytes(
        (text if final_newline else text.removesuffix("\r\n")).encode("utf-8")
    )
    result = cli("--root", str(tmp_path), "validate", str(tmp_path / "OUTCOMES.md"))
    assert (result.code, result.stdout) == (0, "1 file checked, 0 errors, 0 other\n")


CELL_TEXT = st.lists(
    st.sampled_from(["a", " ", "\\", "\\|", "|", "`", "*", "<br>", "-", ":", "日"]), max_size=5
).map("".join)


@st.composite
def table_like_text(draw: st.DrawFn) -> str:
    """A header, a delimiter and rows, each with or without its outer pipes, any line ending."""
    width = draw(st.integers(min_value=1, max_value=4))

    def row(cells: list[str]) -> str:
        opening = draw(st.sampled_from(["|", "| ", " |", "   |", ""]))
        closing = draw(st.sampled_from(["|", " |", "|  ", "\t|", "", "\\|"]))
        return opening + " | ".join(cells) + closing

    header = row(draw(st.lists(CELL_TEXT, min_size=width, max_size=width)))
    aligns = st.sampled_from(["---", ":--", "--:", ":-:", " - ", "", "x"])
    delimiter = row(draw(st.lists(aligns, min_size=width, max_size=width + 1)))
    cells = st.lists(CELL_TEXT, min_size=max(width - 1, 1), max_size=width + 1)
    rows = [row(draw(cells)) for _ in range(draw(st.integers(min_value=0, max_value=4)))]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    tail = draw(st.sampled_from(["", ending, ending + "after" + ending, ending + "|-|" + ending]))
    return ending.join([header, delimiter, *rows]) + tail


@given(table_like_text())
def test_the_block_level_check_agrees_with_rendering_the_table(text: str) -> None:
    """Only mistune's block parser runs: its verdict is that of a full render to HTML."""
    document = parse(text)
    render = mistune.create_markdown(plugins=["table"])
    for table in document.tables:
        lines = "".join(document.lines[table.header : table.end])
        assert _renders_as_table(document, table) == ("<table>" in str(render(lines))), lines
