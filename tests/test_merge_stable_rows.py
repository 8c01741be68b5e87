"""The merge driver's stable run: rows all three versions share from the start are copied as
bytes and the rest merged, with exactly the bytes, messages and exit code of the whole-file merge,
whether the fast path takes the files or hands them back (docs/decisions.md#stable-rows)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.gitrepos import outcome_row

from legion_memory.cli.actions.merge_driver import run_merge_driver
from legion_memory.gitops.file_merge import describe, merge, merge_around
from legion_memory.gitops.merge_safety import unmergeable
from legion_memory.gitops.row_merge import NotStable
from legion_memory.gitops.stable_rows import Source, Split, split_versions
from legion_memory.schema.kinds import OUTCOME
from legion_memory.storage import versions

SOURCE = Source(versions.shared_start, versions.read_range, versions.line_chunks)
SHARED = [outcome_row(n, f"stable outcome {n}") for n in range(1, 41)]


def _write(directory: Path, texts: tuple[str, str, str]) -> list[Path]:
    paths = [directory / name for name in ("O", "A", "B")]
    for path, text in zip(paths, texts, strict=True):
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return paths


def _fast(paths: list[Path]) -> Split | None:
    """The split, when the driver's fast path takes these files all the way (None: it merges
    the whole files)."""
    split = split_versions(paths, SOURCE)
    if split is None or any(unmergeable(text) for text in split.texts):
        return None
    try:
        merge_around(*split.texts, split.run, pick=True)
    except NotStable:
        return None
    return split


def _drive(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    texts: tuple[str, str, str],
) -> tuple[int, bytes, str, Split | None]:
    monkeypatch.chdir(tmp_path)
    for key in [key for key in os.environ if key.startswith("GITHEAD_")]:
        monkeypatch.delenv(key)
    paths = _write(tmp_path, texts)
    split = _fast(paths)
    capsys.readouterr()
    code = run_merge_driver("O", "A", "B", 7, "OUTCOMES.md")
    return code, paths[1].read_bytes(), capsys.readouterr().err, split


def _expected(texts: tuple[str, str, str]) -> tuple[int, bytes, str]:
    result = merge(*texts, pick=True)
    err = "".join(line + "\n" for line in describe(result, "OUTCOMES.md"))
    return (1 if result.conflicts else 0), result.text.encode("utf-8", "surrogateescape"), err


def _sides(
    ours_rows: list[str], theirs_rows: list[str], base_rows: list[str] = SHARED
) -> tuple[str, str, str]:
    head = OUTCOME.template()
    return head + "".join(base_rows), head + "".join(ours_rows), head + "".join(theirs_rows)


TAKEN = {
    "both append": _sides(
        [*SHARED, outcome_row(41, "ours new")], [*SHARED, outcome_row(41, "theirs new")]
    ),
    "one side appends, the other edits the last row": _sides(
        [*SHARED, outcome_row(41, "ours new")], [*SHARED[:-1], outcome_row(40, "edited")]
    ),
    "escaped pipes and line breaks in the shared rows": _sides(
        [outcome_row(100, "a \\| b<br>c"), *SHARED, outcome_row(41, "ours new")],
        [outcome_row(100, "a \\| b<br>c"), *SHARED, outcome_row(41, "theirs new")],
        [outcome_row(100, "a \\| b<br>c"), *SHARED],
    ),
}
HANDED_BACK = {
    "theirs adds a shared record again under another ID": _sides(
        [*SHARED, outcome_row(41, "ours new")], [*SHARED, outcome_row(41, "stable outcome 7")]
    ),
    "theirs adds a row under a shared row's ID": _sides(
        [*SHARED, outcome_row(41, "ours new")], [*SHARED, outcome_row(7, "taken ID")]
    ),
    "a shared row held twice": _sides(
        [*SHARED, SHARED[0], outcome_row(41, "ours")], [*SHARED, SHARED[0]], [*SHARED, SHARED[0]]
    ),
    "seven angle brackets in a shared row": _sides(
        [outcome_row(1, "x <<<<<<< y"), *SHARED[1:], outcome_row(41, "o")],
        [outcome_row(1, "x <<<<<<< y"), *SHARED[1:], outcome_row(41, "t")],
        [outcome_row(1, "x <<<<<<< y"), *SHARED[1:]],
    ),
    "a shared row with a cell too many": _sides(
        [SHARED[0].replace(" |\n", " | extra |\n"), *SHARED[1:], outcome_row(41, "o")],
        [SHARED[0].replace(" |\n", " | extra |\n"), *SHARED[1:], outcome_row(41, "t")],
        [SHARED[0].replace(" |\n", " | extra |\n"), *SHARED[1:]],
    ),
    "a conflict marker after the shared rows": _sides(
        [*SHARED, "<<<<<<< ours\n"], [*SHARED, outcome_row(41, "t")]
    ),
}


REFUSED = {
    "a shared row with a cell too many": "base line 10 has 12 cells where its header has 11",
    "a conflict marker after the shared rows": "ours already holds a conflict marker at line 50",
}


@pytest.mark.parametrize("name", sorted([*TAKEN, *HANDED_BACK]))
def test_the_driver_gives_the_whole_file_merge_s_bytes_fast_path_or_not(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = TAKEN.get(name) or HANDED_BACK[name]
    code, written, err, split = _drive(tmp_path, monkeypatch, capsys, texts)
    # Taken: the shared rows were copied; handed back: the whole files were merged.
    assert (split is not None and split.end > split.start) == (name in TAKEN)
    if name in REFUSED:
        assert code == 1 and REFUSED[name] in err
        assert written.startswith(b"<<<<<<< ours\n") and written.endswith(b">>>>>>> theirs\n")
        return
    assert (code, written, err) == _expected(texts)


def test_crlf_and_a_byte_order_mark_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = tuple("\ufeff" + text.replace("\n", "\r\n") for text in TAKEN["both append"])
    code, written, err, split = _drive(tmp_path, monkeypatch, capsys, texts)  # type: ignore[arg-type]
    assert split is not None
    assert (code, written, err) == _expected(texts)  # type: ignore[arg-type]
    assert written.startswith(b"\xef\xbb\xbf") and b"\r\n" in written


SUMMARIES = st.sampled_from(
    ["stable outcome 3", "new", "x \\| y", "a<br>b", "fix #2", "  spaced  "]
)


@st.composite
def _histories(draw: st.DrawFn) -> tuple[str, str, str]:
    shared = draw(st.integers(1, 12))
    base = [outcome_row(n, f"stable outcome {n}") for n in range(1, shared + 1)]

    def side() -> list[str]:
        rows = list(base)
        for _ in range(draw(st.integers(0, 3))):
            number = draw(st.integers(shared + 1, shared + 4) | st.integers(1, shared))
            rows.append(
                outcome_row(
                    number,
                    draw(SUMMARIES),
                    date=draw(st.sampled_from(["2026-03-01", "2026-03-02"])),
                )
            )
        if draw(st.booleans()) and len(rows) > 1:
            del rows[draw(st.integers(0, len(rows) - 1))]
        return rows

    return _sides(side(), side(), base)


@settings(max_examples=150, deadline=None)
@given(_histories())
def test_a_split_merge_is_the_whole_file_merge(texts: tuple[str, str, str]) -> None:
    expected = merge(*texts, pick=True)
    with tempfile.TemporaryDirectory() as directory:
        paths = _write(Path(directory), texts)
        split = split_versions(paths, SOURCE)
        if split is None:
            return
        try:
            result, at = merge_around(*split.texts, split.run, pick=True)
        except NotStable:
            return
        stable = paths[1].read_bytes()[split.start : split.end].decode("utf-8")
    assert result._replace(text=result.text[:at] + stable + result.text[at:]) == expected
