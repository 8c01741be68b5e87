"""A sequence of picks whose last picks git finds applied already ends with `cherry-pick --skip`,
after which no hook runs; the first commit on top of it repairs what the picks left
(docs/decisions.md#post-commit-hook). Real git, the installed driver and hooks."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git, run_process

from legion_memory.gitops.hook_env import PICK_SEQUENCE_NAME
from legion_memory.upkeep import clean_scan

DUPLICATE = (
    ".planning/memory/OUTCOMES.md:10: duplicate ID O-001 "
    "(first at .planning/memory/ARCHIVE.md:10)\n"
    "1 problem needs repair (run `legion-memory doctor --fix`)\n"
)
REPAIR = "Repair .planning/memory after post-commit (legion-memory doctor --fix)"
PUSH_REPAIR = "Repair .planning/memory after cherry-pick --skip (legion-memory doctor --fix)"


def _code(repo: Path, text: str) -> None:
    (repo / "code.txt").write_text(text, encoding="utf-8")
    commit(repo, f"code {text.strip()}")


def _sequence_ending_in_a_skip(repo: Path) -> None:
    """feature stores O-001 and changes code; main stored and forgot its own O-001 (OUTCOMES.md
    back as base had it, so git takes feature's whole: O-001 twice, live and in ARCHIVE.md) and
    made the same code change, so the second pick is empty and skipped."""
    init_memory(repo, driver=True)
    _code(repo, "one\n")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature")
    commit(repo, "feature store")
    _code(repo, "two\n")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main abandoned", "main")
    commit(repo, "main store")
    run_process("forget", "O-001", cwd=repo, check=True)
    commit(repo, "main forget")
    _code(repo, "two\n")

    picked = run_git(repo, "cherry-pick", "main..feature")
    assert picked.returncode == 1
    assert "The previous cherry-pick is now empty" in picked.stderr
    assert run_git(repo, "cherry-pick", "--skip").returncode == 0
    assert not (repo / ".git" / "sequencer").exists()


def test_the_first_commit_after_a_sequence_ending_in_a_skip_repairs_it(repo: Path) -> None:
    _sequence_ending_in_a_skip(repo)
    assert run_process("doctor", cwd=repo).stdout == DUPLICATE
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()

    (repo / "code.txt").write_text("three\n", encoding="utf-8")
    committed = run_git(repo, "commit", "-q", "-a", "-m", "more code")

    assert committed.returncode == 0, committed.stderr
    assert committed.stderr == (
        "repaired .planning/memory/OUTCOMES.md:10: renumbered duplicate O-001 to O-002\n"
        "legion-memory: committed the repair of .planning/memory as its own commit\n"
    )
    assert git(repo, "log", "--format=%s", "-3") == f"{REPAIR}\nmore code\nfeature store\n"
    assert rows(repo) == [("O-002", "feature", "feature outcome")]
    assert text_of(repo, "ARCHIVE.md").count("| O-001 | 2026-03-02 | main |") == 1
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    assert_healthy(repo)


def test_a_commit_elsewhere_after_an_aborted_sequence_forgets_the_note(repo: Path) -> None:
    """The sequence undone (`--abort` puts HEAD back where it started): the next commit is on
    top of no pick, repairs nothing and commits nothing more."""
    _sequence_ending_in_a_skip(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")  # as `--abort` would have, once it had ended
    before = git(repo, "rev-parse", "HEAD")

    (repo / "code.txt").write_text("three\n", encoding="utf-8")
    committed = run_git(repo, "commit", "-q", "-a", "-m", "more code")

    assert committed.returncode == 0, committed.stderr
    assert committed.stderr == ""
    assert git(repo, "rev-parse", "HEAD~1") == before
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    assert_healthy(repo)


def test_a_sequence_whose_last_pick_commits_leaves_no_note(repo: Path) -> None:
    init_memory(repo, driver=True)
    _code(repo, "one\n")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "first", "feature")
    commit(repo, "first")
    add_outcome(repo, "second", "feature")
    commit(repo, "second")
    git(repo, "checkout", "-q", "main")

    assert run_git(repo, "cherry-pick", "main..feature").returncode == 0

    assert rows(repo) == [("O-001", "feature", "first"), ("O-002", "feature", "second")]
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    assert_healthy(repo)


def test_doctor_before_that_commit_weighs_the_picks_as_its_hook_would(repo: Path) -> None:
    """main holds its own O-001 and feature's store under O-002; picking feature's forget and a
    code change main made too ends in a skip, with feature's archived row under O-001 beside
    main's record. `doctor --fix` run before any commit reads the hooks' note of the sequence:
    main's long-held record keeps its ID and the archived row moves on, as the next commit's
    hook would have it (docs/decisions.md#merge-renumbering). Without the note the archived row
    kept O-001 and main's record became O-002."""
    init_memory(repo, driver=True)
    _code(repo, "one\n")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature")
    commit(repo, "feature store")
    run_process("forget", "O-001", cwd=repo, check=True)
    commit(repo, "feature forget")
    _code(repo, "two\n")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main store")
    assert run_git(repo, "cherry-pick", "feature~2").returncode == 0
    _code(repo, "two\n")
    assert run_git(repo, "cherry-pick", "feature~2..feature").returncode == 1
    assert run_git(repo, "cherry-pick", "--skip").returncode == 0

    fixed = run_process("doctor", "--fix", cwd=repo)

    assert fixed.stdout == (
        "repaired .planning/memory/ARCHIVE.md:10: renumbered duplicate O-001 to O-002\n"
        "memory repaired\n"
    )
    assert rows(repo) == [("O-001", "main", "main record")]
    archived = [line for line in text_of(repo, "ARCHIVE.md").splitlines() if "| O-" in line]
    assert archived == [
        "| O-002 | 2026-03-02 | feature | 1 | 01-01 | coder | workflow | success | 2 | git "
        "| feature outcome |"
    ]
    commit(repo, "repair")
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    assert_healthy(repo)


def test_a_pick_makes_a_reference_right_itself_when_it_leaves_the_outcomes_as_ours_holds_them(
    repo: Path,
) -> None:
    """feature stores O-001 and a pattern citing it; main holds its own O-001 and pattern, and
    picked feature's outcome (now O-002 there). Picking the pattern, then a code change main
    made too, ends in a skip: no hook after the last pick. The pattern's pick does not change
    the outcome files, so its driver knows O-001 meant what main holds as O-002 and writes that
    in the pick itself (docs/decisions.md#references-in-the-merge). Before, the pick kept O-001,
    main's own record, until the next commit's hook repaired it."""
    init_memory(repo, driver=True)
    _code(repo, "one\n")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature outcome", "feature")
    commit(repo, "feature store")
    add_pattern(repo, "feature pattern", "O-001", "feature")
    commit(repo, "feature pattern")
    _code(repo, "two\n")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main outcome", "main", date="2026-03-01")
    add_pattern(repo, "main pattern", "O-001", "main")
    commit(repo, "main store")
    assert run_git(repo, "cherry-pick", "feature~2").returncode == 0
    _code(repo, "two\n")

    picked = run_git(repo, "cherry-pick", "feature~1", "feature")
    assert picked.returncode == 1
    assert "The previous cherry-pick is now empty" in picked.stderr
    assert run_git(repo, "cherry-pick", "--skip").returncode == 0

    assert sources(repo) == {"main pattern": "O-001", "feature pattern": "O-002"}
    assert git(repo, "log", "--format=%s", "-3") == ("feature pattern\ncode two\nfeature store\n")
    assert git(repo, "show", "HEAD:.planning/memory/PATTERNS.md").count("| O-002 | git |") == 1
    assert rows(repo) == [
        ("O-001", "main", "main outcome"),
        ("O-002", "feature", "feature outcome"),
    ]
    assert_healthy(repo)


def _origin(repo: Path, tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    git(repo, "remote", "add", "origin", str(origin))
    return origin


def _push_goes(repo: Path, origin: Path) -> None:
    """The push run again goes, silently, and the origin's main is HEAD."""
    again = run_git(repo, "push", "-q", "origin", "main")
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    assert git(origin, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


def test_a_push_before_that_commit_commits_the_repair_and_asks_for_the_push_again(
    repo: Path, tmp_path: Path
) -> None:
    """Pushed as the skip left it, the other clones would fetch O-001 live and archived at once.
    The pre-push hook commits the repair the next commit's hook would have made and stops the
    push, which carries it when run again."""
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    picked = git(repo, "rev-parse", "HEAD")

    pushed = run_git(repo, "push", "-q", "origin", "main")

    assert pushed.returncode == 1
    assert pushed.stderr == (
        "repaired .planning/memory/OUTCOMES.md:10: renumbered duplicate O-001 to O-002\n"
        "legion-memory: committed the repair of .planning/memory as its own commit\n"
        "legion-memory: stopped the push, which would leave the repair behind; push again\n"
        f"error: failed to push some refs to '{origin}'\n"
    )
    assert run_git(origin, "rev-parse", "-q", "--verify", "main").returncode == 1
    assert git(repo, "log", "--format=%s", "-2") == f"{PUSH_REPAIR}\nfeature store\n"
    assert git(repo, "rev-parse", "HEAD~1") == picked
    assert git(repo, "status", "--porcelain") == ""
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()

    _push_goes(repo, origin)
    assert rows(repo) == [("O-002", "feature", "feature outcome")]
    assert text_of(repo, "ARCHIVE.md").count("| O-001 | 2026-03-02 | main |") == 1
    assert_healthy(repo)


def test_a_push_of_another_commit_leaves_the_repair_to_the_next_commit(
    repo: Path, tmp_path: Path
) -> None:
    """Only a push of the sequence's last commit would spread what it left; pushing another
    branch commits nothing and keeps the note for the next commit's hook."""
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    before = git(repo, "rev-parse", "HEAD")

    pushed = run_git(repo, "push", "-q", "origin", "feature")

    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stderr == ""
    assert git(repo, "rev-parse", "HEAD") == before
    assert git(origin, "rev-parse", "feature") == git(repo, "rev-parse", "feature")
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()
    assert run_process("doctor", cwd=repo).stdout == DUPLICATE


def test_a_push_beside_own_memory_changes_repairs_without_committing_them(
    repo: Path, tmp_path: Path
) -> None:
    """The user's own uncommitted edit of memory stays theirs to commit: the hook repairs beside
    it, commits nothing, and stops the push until they have."""
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    before = git(repo, "rev-parse", "HEAD")
    add_outcome(repo, "my own", "main")

    pushed = run_git(repo, "push", "-q", "origin", "main")

    assert pushed.returncode == 1
    assert pushed.stderr == (
        "repaired .planning/memory/OUTCOMES.md:10: renumbered duplicate O-001 to O-003\n"
        "legion-memory: repaired .planning/memory beside your own changes there; review and "
        "commit: git add .planning/memory && git commit\n"
        "legion-memory: stopped the push, which would leave the repair behind; push again\n"
        f"error: failed to push some refs to '{origin}'\n"
    )
    assert git(repo, "rev-parse", "HEAD") == before
    assert rows(repo) == [("O-003", "feature", "feature outcome"), ("O-002", "main", "my own")]
    assert git(repo, "status", "--porcelain") == " M .planning/memory/OUTCOMES.md\n"
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()

    commit(repo, "my own outcome")
    _push_goes(repo, origin)
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    assert_healthy(repo)


def test_a_chained_pre_push_hook_reads_the_push_and_its_refusal_stops_it_first(
    repo: Path, tmp_path: Path
) -> None:
    """The hook a clone had before keeps its input ("<local ref> <local commit> <remote ref>
    <remote commit>") and its say: when it refuses the push nothing is repaired or committed."""
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-push").write_text(
        '#!/bin/sh\ncat > "$(git rev-parse --git-dir)/pushed"\nexit 3\n'
    )
    (hooks / "pre-push").chmod(0o755)
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()

    pushed = run_git(repo, "push", "-q", "origin", "main")

    assert pushed.returncode == 1
    assert pushed.stderr == f"error: failed to push some refs to '{origin}'\n"
    assert (repo / ".git" / "pushed").read_text() == (
        f"refs/heads/main {head} refs/heads/main {'0' * 40}\n"
    )
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()
    assert (hooks / "pre-push.legion-memory-chained").is_file()


def test_a_push_of_that_commit_from_another_branch_is_stopped_until_it_is_checked_out(
    repo: Path, tmp_path: Path
) -> None:
    """The repair is made in the work tree, so where the sequence's last commit is not checked
    out the push is stopped, naming the branch to check out; from there it goes as above."""
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    git(repo, "checkout", "-q", "feature")

    pushed = run_git(repo, "push", "-q", "origin", "main")

    assert pushed.returncode == 1
    assert pushed.stderr == (
        "legion-memory: stopped the push: main ends with picks whose memory is not repaired yet "
        "(the cherry-pick ended with --skip); check out main and push again\n"
        f"error: failed to push some refs to '{origin}'\n"
    )
    assert run_git(origin, "rev-parse", "-q", "--verify", "main").returncode == 1
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()

    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "push", "-q", "origin", "main").returncode == 1
    assert git(repo, "log", "--format=%s", "-1") == f"{PUSH_REPAIR}\n"
    _push_goes(repo, origin)
    assert_healthy(repo)


def test_a_commit_on_another_branch_leaves_the_note_to_the_push_of_the_picked_one(
    repo: Path, tmp_path: Path
) -> None:
    """Work goes on elsewhere before the picked branch has a commit of its own: that commit is
    on top of no pick and repairs nothing, and main still ends with the picks, so its push is
    stopped and repaired as above."""
    _sequence_ending_in_a_skip(repo)
    origin = _origin(repo, tmp_path)
    git(repo, "checkout", "-q", "feature")
    (repo / "code.txt").write_text("three\n", encoding="utf-8")
    committed = run_git(repo, "commit", "-q", "-a", "-m", "more code")
    assert committed.returncode == 0, committed.stderr
    assert committed.stderr == ""
    assert (repo / ".git" / PICK_SEQUENCE_NAME).is_file()
    git(repo, "checkout", "-q", "main")
    assert run_process("doctor", cwd=repo).stdout == DUPLICATE

    pushed = run_git(repo, "push", "-q", "origin", "main")

    assert pushed.returncode == 1
    assert git(repo, "log", "--format=%s", "-2") == f"{PUSH_REPAIR}\nfeature store\n"
    assert not (repo / ".git" / PICK_SEQUENCE_NAME).exists()
    _push_goes(repo, origin)
    assert rows(repo) == [("O-002", "feature", "feature outcome")]
    assert_healthy(repo)


def test_doctor_elsewhere_finds_no_work_in_another_branch_s_note(repo: Path) -> None:
    """The note waits for its own branch: where another commit is checked out, the memory
    scans clean, so the hooks there pay no full check."""
    _sequence_ending_in_a_skip(repo)
    git(repo, "checkout", "-q", "feature")
    directory = str(repo / ".planning" / "memory")
    assert clean_scan.is_clean(directory, str(repo / ".git"))
    git(repo, "checkout", "-q", "main")
    assert not clean_scan.is_clean(directory, str(repo / ".git"))


def test_a_linked_work_tree_reads_its_branch_from_the_shared_refs(
    repo: Path, tmp_path: Path
) -> None:
    """A linked work tree has a git directory of its own (the hooks note a sequence there) that
    holds its HEAD but not the branches: the scan reads the branch where the repository keeps
    it, and tells the note's commit from another."""
    _sequence_ending_in_a_skip(repo)
    git(repo, "checkout", "-q", "feature")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "main")
    git_dir = Path(git(linked, "rev-parse", "--absolute-git-dir").strip())
    (repo / ".git" / PICK_SEQUENCE_NAME).rename(git_dir / PICK_SEQUENCE_NAME)
    assert not (git_dir / "refs" / "heads" / "main").exists()
    assert clean_scan._picks_end_at_head(str(git_dir))
    git(linked, "checkout", "-q", "-b", "other", "main~1")
    assert not clean_scan._picks_end_at_head(str(git_dir))
