"""The clean-memory scan: when it says clean, the full doctor finds and changes nothing; the hook's
call on clean memory answers at once, and everything else still gets the full doctor."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from support.gitrepos import outcome_row, pattern_row
from support.processes import CLI, probe, read_bytes_of

from legion_memory.gitops.hook_env import (
    APPLIED_ENV,
    BOTH_SIDES_ENV,
    CONCLUDED_ENV,
    PICK_SEQUENCE_NAME,
    PICKED_ENV,
    RECHECK_ENV,
    REPLAYED_AS_ENV,
    REVERTED_ENV,
)
from legion_memory.gitops.merge_log import LOG_NAME
from legion_memory.schema.kinds import ERROR_FIX, OUTCOME, PATTERN, archive_template
from legion_memory.storage import files, reading
from legion_memory.upkeep import clean_scan
from legion_memory.upkeep.doctor import CHECKS, doctor
from legion_memory.upkeep.renumbering import memory_files

MEMORY = Path(".planning/memory")


def test_the_archive_sections_are_the_ones_the_kinds_name() -> None:
    from legion_memory.schema.kinds import KINDS

    expected = {kind.archive_section.encode(): kind.prefix.encode() for kind in KINDS.values()}
    assert expected == clean_scan.ARCHIVE_SECTIONS


def test_the_names_are_the_ones_storage_and_gitops_use(tmp_path: Path) -> None:
    memory = reading.Memory(tmp_path)
    assert tuple(path.name for path in memory_files(memory)) == clean_scan.MEMORY_FILES
    assert clean_scan.JOURNAL_NAME == reading.JOURNAL_NAME
    assert (clean_scan.TEMP_PREFIX, clean_scan.TEMP_SUFFIX) == (
        files.TEMP_PREFIX,
        files.TEMP_SUFFIX,
    )
    assert clean_scan.MERGE_LOG_NAME == LOG_NAME
    assert clean_scan.REPLAYED_AS_ENV == REPLAYED_AS_ENV
    assert clean_scan.PICKED_ENV == PICKED_ENV
    assert clean_scan.REVERTED_ENV == REVERTED_ENV
    assert clean_scan.CONCLUDED_ENV == CONCLUDED_ENV
    assert clean_scan.RECHECK_ENV == RECHECK_ENV
    assert clean_scan.BOTH_SIDES_ENV == BOTH_SIDES_ENV
    assert clean_scan.APPLIED_ENV == APPLIED_ENV
    assert clean_scan.PICK_SEQUENCE_NAME == PICK_SEQUENCE_NAME
    assert Path(*clean_scan.MEMORY_DIR) == reading.MEMORY_DIR


# Lines a memory file may hold: sound rows with IDs drawn from a small pool (so that some repeat),
# and what the scan must not be fooled by: conflict markers, prose with a pipe, a row without its
# outer pipes, an empty or escaped ID, CRLF endings.
OUTCOME_LINES = st.one_of(
    st.integers(1, 5).map(lambda n: outcome_row(n, "done")),
    st.integers(1, 5).map(lambda n: outcome_row(n, "done").replace("\n", "\r\n")),
    st.sampled_from(
        [
            "<<<<<<< HEAD\n",
            "=======\n",
            ">>>>>>> feature\n",
            "prose with a | pipe\n",
            outcome_row(6, "no outer pipes").strip().strip("|") + "\n",
            outcome_row(7, "x").replace("O-007", ""),
            outcome_row(8, "x").replace("O-008", "O-008\\|"),
            "\n",
        ]
    ),
)
PATTERN_LINES = st.integers(1, 4).map(lambda n: pattern_row(n, "p", f"O-00{n}"))


@st.composite
def memories(draw: st.DrawFn) -> dict[str, str]:
    texts: dict[str, str] = {}
    if draw(st.booleans()):
        texts["OUTCOMES.md"] = OUTCOME.template() + "".join(draw(st.lists(OUTCOME_LINES)))
    if draw(st.booleans()):
        rows = draw(st.lists(PATTERN_LINES, max_size=4))
        texts["PATTERNS.md"] = PATTERN.template() + "".join(rows)
    if draw(st.booleans()):
        archived = draw(st.lists(st.integers(1, 8), max_size=3))
        texts["ARCHIVE.md"] = archive_template() + "".join(outcome_row(n, "old") for n in archived)
    if draw(st.booleans()):
        texts[draw(st.sampled_from([".legion-memory-ab12.tmp", ".legion-memory.journal"]))] = "x"
    if draw(st.booleans()):
        texts["BOM"] = "\ufeff"
    return texts


def _write(root: Path, texts: dict[str, str]) -> None:
    (root / ".git").mkdir()
    (root / MEMORY).mkdir(parents=True)
    bom = texts.pop("BOM", "")
    for name, text in texts.items():
        (root / MEMORY / name).write_text(bom + text, encoding="utf-8", newline="")


@settings(max_examples=150, deadline=None)
@given(memories(), st.booleans())
def test_clean_means_the_full_doctor_finds_and_changes_nothing(
    texts: dict[str, str], merge_log: bool
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        _write(root, texts)
        if merge_log:
            (root / ".git" / LOG_NAME).write_text("", encoding="utf-8")
        memory = reading.Memory.of_project(root)
        if not clean_scan.memory_is_clean(str(memory.directory)):
            event("not clean")
            return
        event("clean")
        before = read_bytes_of(root)
        assert doctor(memory, checks=CHECKS).found == ()
        assert doctor(memory, fix=True, checks=CHECKS).repaired == ()
        assert read_bytes_of(root) == before


ERROR_ROW = "| E-{:03d} | 2026-03-01 | main | `TypeError: x` | {} | coder | true | git |\n"


SOUND = OUTCOME.template() + outcome_row(1, "one") + outcome_row(2, "two")
UNCLEAN = {
    "duplicate ID": {"OUTCOMES.md": SOUND + outcome_row(2, "again")},
    "ID in the archive too": {
        "OUTCOMES.md": SOUND, "ARCHIVE.md": archive_template() + outcome_row(1, "a"),
    },
    "conflict marker": {"OUTCOMES.md": SOUND + "<<<<<<< HEAD\n"},
    "leftover closing marker": {"OUTCOMES.md": SOUND + ">>>>>>> feature\n"},
    "leftover separator": {"OUTCOMES.md": SOUND + "=======\n"},
    "temporary file": {"OUTCOMES.md": SOUND, ".legion-memory-0a1b.tmp": ""},
    "journal": {"OUTCOMES.md": SOUND, ".legion-memory.journal": "{}"},
    "row without outer pipes": {"OUTCOMES.md": SOUND + outcome_row(3, "x").strip(" |\n") + "\n"},
    "prose with a pipe": {"PATTERNS.md": PATTERN.template() + "a | b\n"},
    "one record under two IDs": {"OUTCOMES.md": SOUND + outcome_row(3, "one")},
    # The identity reads whitespace as `str.split` does: a no-break space is a space there.
    "one record, a no-break space apart": {"OUTCOMES.md": SOUND + outcome_row(3, "one\u00a0")},
    "one record, an ideographic space apart": {
        "OUTCOMES.md": SOUND + outcome_row(3, "\u3000one")
    },
    "one pattern citing other outcomes": {
        "PATTERNS.md": PATTERN.template() + pattern_row(1, "p", "O-001")
        + pattern_row(2, "p", "O-002, O-003"),
    },
    "one error fix, another fix": {
        "ERRORS.md": ERROR_FIX.template() + ERROR_ROW.format(1, "a") + ERROR_ROW.format(2, "b"),
    },
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(UNCLEAN))
def test_the_full_doctor_finds_what_the_scan_refuses(tmp_path: Path, case: str) -> None:
    """Each of these is work for doctor, not only a case the scan leaves to it."""
    if case in ("temporary file", "journal", "row without outer pipes", "prose with a pipe"):
        return  # found by the checks of files and layout, tested in test_doctor.py
    _write(tmp_path, dict(UNCLEAN[case]))
    assert doctor(reading.Memory.of_project(tmp_path), checks=CHECKS).found != ()


def test_sound_memory_is_clean(tmp_path: Path) -> None:
    _write(tmp_path, {"OUTCOMES.md": SOUND, "ARCHIVE.md": archive_template() + outcome_row(3, "a")})
    assert clean_scan.memory_is_clean(str(tmp_path / MEMORY))
    assert clean_scan.is_clean(str(tmp_path / "missing"), None)


@pytest.mark.parametrize("case", sorted(UNCLEAN))
def test_anything_doctor_might_act_on_is_not_clean(tmp_path: Path, case: str) -> None:
    _write(tmp_path, dict(UNCLEAN[case]))
    assert not clean_scan.memory_is_clean(str(tmp_path / MEMORY))


@pytest.mark.parametrize("note", [LOG_NAME, PICK_SEQUENCE_NAME])
def test_a_merge_log_or_a_noted_sequence_of_picks_is_not_clean(tmp_path: Path, note: str) -> None:
    """What the driver logged, or the picks whose repair waits for the next commit, is for
    doctor to weigh."""
    _write(tmp_path, {"OUTCOMES.md": SOUND})
    assert clean_scan.memory_is_clean(str(tmp_path / MEMORY))
    (tmp_path / ".git" / note).write_text("", encoding="utf-8")
    assert not clean_scan.memory_is_clean(str(tmp_path / MEMORY))


@pytest.mark.parametrize(
    ("name", "value"),
    [(REPLAYED_AS_ENV, "0123abcd "), (PICKED_ENV, "0123abcd"), (REVERTED_ENV, "0123abcd"),
     (CONCLUDED_ENV, "0123abcd 4567ef01"), (RECHECK_ENV, "1"), (BOTH_SIDES_ENV, "1"),
     (APPLIED_ENV, "1")],
)  # fmt: skip
def test_memory_after_an_integration_the_hooks_name_is_not_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    """What a hook names of the integration just done (the commits a rebase wrote, the commit
    picked, the commit a revert was made on, a stopped merge concluded, a merge to weigh or to
    follow references in, a patch applied) is for doctor to compare with history."""
    _write(tmp_path, {"OUTCOMES.md": SOUND})
    assert clean_scan.memory_is_clean(str(tmp_path / MEMORY))
    monkeypatch.setenv(name, value)
    assert not clean_scan.memory_is_clean(str(tmp_path / MEMORY))


def test_a_worktree_finds_its_git_directory_through_the_git_file(tmp_path: Path) -> None:
    git_dir = tmp_path / "main.git" / "worktrees" / "wt"
    git_dir.mkdir(parents=True)
    worktree = tmp_path / "wt"
    (worktree / MEMORY).mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
    assert clean_scan.project_of(str(worktree / MEMORY)) == (str(worktree), str(git_dir))


@pytest.mark.parametrize("args", [("doctor", "--fix", "--quiet"), ("doctor", "--quiet")])
def test_the_hook_on_clean_memory_exits_before_running_doctor(
    cli: CLI, repo: Path, args: tuple[str, ...]
) -> None:
    cli("init", cwd=repo)
    before = read_bytes_of(repo)
    result, modules = probe(*args, cwd=repo / MEMORY)  # from below the root, as git may
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert read_bytes_of(repo) == before
    # Not even the dispatcher, nor `re`, `pathlib` or `typing`: each costs more than the scan.
    loaded = {"typer", "click", "legion_memory.upkeep.doctor", "legion_memory.cli.actions.doctor"}
    loaded |= {"legion_memory.cli.routing", "legion_memory.cli.lean.dispatcher", "json"}
    loaded |= {"re", "pathlib", "typing", "enum"}
    loaded &= modules
    assert sorted(loaded) == []


def test_the_hook_on_unclean_memory_runs_the_full_repair(cli: CLI, repo: Path) -> None:
    outcomes = repo / MEMORY / "OUTCOMES.md"
    outcomes.parent.mkdir(parents=True)
    outcomes.write_text(SOUND + outcome_row(2, "again"), encoding="utf-8")
    result, _ = probe("doctor", "--fix", "--quiet", cwd=repo)
    assert (result.code, result.stdout, result.stderr) == (
        0,
        f"repaired {MEMORY}/OUTCOMES.md:11: renumbered duplicate O-002 to O-003\n",
        "",
    )
    # Colliding records keep their ID in date, branch, content order: "again" before "two".
    expected = OUTCOME.template() + outcome_row(1, "one") + outcome_row(3, "two")
    assert outcomes.read_text(encoding="utf-8") == expected + outcome_row(2, "again")
