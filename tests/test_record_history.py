"""git's pickaxe, asked which commits moved or wrote a record's row: the questions doctor asks
before it reads any version of the memory (docs/decisions.md#replays-upstream-holds)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support.gitrepos import add_outcome, commit, init_memory, memory_of, text_of
from support.processes import git

from legion_memory.gitops.folded_commits import FOLDED_NAME
from legion_memory.gitops.record_history import (
    any_changed,
    commits_changing,
    copy_keys,
    most_moved,
)
from legion_memory.gitops.repository import integration_sources
from legion_memory.storage.reading import Memory
from legion_memory.upkeep.forgetting import forget, restore

ROW_TAIL = "| feature | 1 | 01-01 | coder | workflow | success | 2 | git | alpha |"


def _history(repo: Path) -> list[str]:
    """Four commits: an unrelated file, alpha stored, beta stored, alpha forgotten; oldest
    first."""
    init_memory(repo, driver=False)
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    return git(repo, "rev-list", "--reverse", "-4", "HEAD").split()


def test_commits_changing_a_rows_count_are_those_that_stored_or_moved_it(repo: Path) -> None:
    notes, alpha, beta, forgotten = _history(repo)
    memory = memory_of(repo)
    newest_first = [forgotten, beta, alpha, notes]
    text = f"| 2026-03-02 {ROW_TAIL}"

    assert commits_changing(repo, newest_first, [text], memory.directory) == [forgotten, alpha]
    assert commits_changing(repo, newest_first, ["| no such row |"], memory.directory) == []
    assert commits_changing(repo, [], [text], memory.directory) == []


def test_any_changed_says_whether_a_commit_touched_the_file(repo: Path) -> None:
    notes, alpha, beta, forgotten = _history(repo)
    archive = memory_of(repo).archive

    assert any_changed(repo, [notes, alpha, beta], archive) is False
    assert any_changed(repo, [beta, forgotten], archive) is True
    assert any_changed(repo, [], archive) is False


def test_copy_keys_are_author_date_and_subject_and_a_commit_this_clone_lacks_has_none(
    repo: Path,
) -> None:
    """A squash made in another clone names commits this one never fetched: they are left out,
    and the commits git has still answer."""
    notes, alpha, _, _ = _history(repo)
    missing = "0123456789abcdef0123456789abcdef01234567"
    dated = {sha: git(repo, "log", "-1", "--format=%at", sha).strip() for sha in (notes, alpha)}

    assert copy_keys(repo, [alpha, missing, notes]) == {
        alpha: f"dev@example.com {dated[alpha]} store alpha",
        notes: f"dev@example.com {dated[notes]} notes",
    }
    assert copy_keys(repo, []) == {}


def test_a_squash_in_progress_has_ours_and_the_squashed_tip_as_its_sides(repo: Path) -> None:
    """`merge --squash` lists every squashed commit in SQUASH_MSG, newest first; only the newest
    is the other side: the older ones hold records under the numbers they had then."""
    init_memory(repo, driver=False)
    git(repo, "checkout", "-q", "-b", "feature")
    for summary in ("one", "two"):
        add_outcome(repo, summary, "feature")
        commit(repo, f"store {summary}")
    tip = git(repo, "rev-parse", "feature").strip()
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feature")

    squash_message = (repo / ".git" / "SQUASH_MSG").read_text(encoding="utf-8")
    assert squash_message.count("\ncommit ") == 2
    assert integration_sources(repo) == ["HEAD", tip]


def test_an_octopus_merge_that_fast_forwarded_has_the_branches_as_its_sides(repo: Path) -> None:
    """While post-merge runs git still names the merged heads in MERGE_HEAD. An octopus merge
    that fast-forwarded to its first branch has the branches for parents, not HEAD's before:
    those are its sides, never the merge made."""
    init_memory(repo, driver=False)
    git(repo, "checkout", "-q", "-b", "one")
    add_outcome(repo, "one", "one")
    commit(repo, "store one")
    git(repo, "checkout", "-q", "-b", "two", "main")
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-edit", "one", "two")
    tips = [git(repo, "rev-parse", branch).strip() for branch in ("one", "two")]
    assert git(repo, "log", "-1", "--format=%P").split() == tips
    (repo / ".git" / "MERGE_HEAD").write_text("".join(f"{tip}\n" for tip in tips))
    assert integration_sources(repo) == tips


def test_a_move_two_of_three_sides_have_seen_is_the_later_word_against_the_third(
    repo: Path,
) -> None:
    """main and `two` hold the same forget and restore of alpha, `three` a copy of the forget
    alone: the restore tells main and two apart from three, the forget tells no side apart."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "two")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    git(repo, "checkout", "-q", "-b", "three", base)
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    git(repo, "cherry-pick", "two~1")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "two")
    memory = memory_of(repo)
    text = f"2026-03-02 {ROW_TAIL}"
    sides = ["main", "two", "three"]
    assert most_moved(repo, base, sides, memory.archive, text) == {"main", "two"}
    assert most_moved(repo, base, ["main", "three"], memory.archive, text) == {"main"}


def test_a_restore_with_the_author_date_and_message_of_a_forget_is_no_copy_of_it(
    repo: Path,
) -> None:
    """`two` forgot and restored alpha in one second, both commits "change alpha"; `three` holds
    a copy of the forget alone. The restore is a move `three` never made."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "two")
    for move in (forget, restore):
        move(memory_of(repo), "O-001")
        git(repo, "commit", "-q", "-am", "change alpha", "--date", "2026-03-02T10:00:00+00:00")
    git(repo, "checkout", "-q", "-b", "three", base)
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    git(repo, "cherry-pick", "two~1")
    memory = memory_of(repo)
    text = f"2026-03-02 {ROW_TAIL}"
    assert most_moved(repo, base, ["two", "three"], memory.archive, text) == {"two"}


def test_a_squash_stands_for_the_moves_of_the_commits_its_message_names(repo: Path) -> None:
    """`two` forgot and restored alpha and stored beta, and main squashed it with git's own
    message: the squash's diff moves nothing, yet main made both moves, and `three`'s copy of
    the forget is one of them. `four` forgot alpha, main squashed that alone (its diff moves
    alpha), then `four` restored it: the squash's move is `four`'s forget, not one beside it."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "two")
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha")
    add_outcome(repo, "beta", "feature")
    commit(repo, "store beta")
    git(repo, "checkout", "-q", "-b", "three", base)
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    git(repo, "cherry-pick", "two~2")
    git(repo, "checkout", "-q", "-b", "four", base)
    forget(memory_of(repo), "O-001")
    commit(repo, "forget alpha on four")
    for squashed in ("two", "four"):
        git(repo, "checkout", "-q", "-b", f"squash-{squashed}", base)
        git(repo, "merge", "-q", "--squash", squashed)
        git(repo, "commit", "-q", "--no-edit")
    git(repo, "checkout", "-q", "four")
    restore(memory_of(repo), "O-001")
    commit(repo, "restore alpha on four")
    archive, text = memory_of(repo).archive, f"2026-03-02 {ROW_TAIL}"
    assert most_moved(repo, base, ["squash-two", "three"], archive, text) == {"squash-two"}
    assert most_moved(repo, base, ["squash-four", "four"], archive, text) == {"four"}


def _moved(repo: Path, move: Callable[[Memory, str], object], at: str, message: str) -> str:
    """`move` alpha (O-001) in a commit authored `at` (10:0N on the day), and its hash."""
    move(memory_of(repo), "O-001")
    git(repo, "commit", "-q", "-am", message, "--date", f"2026-03-02T{at}:00+00:00")
    return git(repo, "rev-parse", "HEAD").strip()


def test_a_sides_newest_move_is_the_one_made_last_not_the_one_git_lists_first(
    repo: Path,
) -> None:
    """`one` forgot and restored alpha. `two` holds two copies of each move (picked on two lines
    it joined), main one copy of each and, after them, a forget of its own that a squash
    brought (git lists a squash's commits after the side's own). main's forget is the newest
    move made, and `two` never saw it: main holds the later state, however many copies `two`
    counts (seed 12512 of the collaboration simulation's `--stacked-kinds`)."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "one")
    moves = [_moved(repo, forget, "10:01", "forget"), _moved(repo, restore, "10:02", "restore")]
    for line in ("two", "side", "main"):
        git(repo, "checkout", "-q", "-B", line, base)
        (repo / f"{line}.txt").write_text(f"{line}\n", encoding="utf-8")
        commit(repo, f"notes on {line}")
        git(repo, "cherry-pick", *moves)
    git(repo, "checkout", "-q", "two")
    git(repo, "merge", "-q", "--no-edit", "side")
    git(repo, "checkout", "-q", "-b", "three", "main")
    _moved(repo, forget, "10:03", "forget again")
    _squashed_into_main(repo, "three")
    archive, text = memory_of(repo).archive, f"2026-03-02 {ROW_TAIL}"
    assert most_moved(repo, base, ["main", "two"], archive, text) == {"main"}


def test_a_fold_a_squash_names_stands_for_the_moves_it_folded(repo: Path) -> None:
    """`one` forgot, restored, forgot and restored alpha. `folding` took the first forget, then
    one commit folding the other three (this clone's `rebase -i` noted it), then forgot alpha
    again, and main squashed `folding` in. main has seen every move of `one` through the fold
    its squash names, and made one more (seed 12603 of the collaboration simulation's
    `--merges-kinds`)."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "one")
    moves = [
        _moved(repo, move, f"10:0{minute}", "change alpha")
        for minute, move in enumerate((forget, restore, forget, restore), start=1)
    ]
    git(repo, "checkout", "-q", "-b", "folding", moves[0])
    git(repo, "checkout", "one", "--", ".planning")
    folded_messages = [part for _ in moves[1:] for part in ("-m", "change alpha")]
    git(repo, "commit", "-q", *folded_messages, "--date", "2026-03-02T10:02:00+00:00")
    fold = git(repo, "rev-parse", "HEAD").strip()
    (repo / ".git" / FOLDED_NAME).write_text(f"{fold} {' '.join(moves[1:])}\n", encoding="utf-8")
    _moved(repo, forget, "10:05", "change alpha")
    _squashed_into_main(repo, "folding")
    archive, text = memory_of(repo).archive, f"2026-03-02 {ROW_TAIL}"
    assert most_moved(repo, base, ["main", "one"], archive, text) == {"main"}


def test_a_fold_folded_again_stands_for_the_moves_it_folded(repo: Path) -> None:
    """`one`'s rebase folded a forget of alpha and a store of beta into one commit, and `one`
    restored alpha since. main holds a copy of that fold (picked after a commit of its own), and
    main's own rebase folded
    the fold into another commit. Each fold is noted; the fold inside main's stands for the
    forget it folded as main's does: counted apart, main's one forget passed for three, and
    outweighed `one`'s later restore (seed 12714 of the collaboration simulation's
    `--stacked-kinds`, step 272: a `merge --squash` of the branch left the record archived)."""
    init_memory(repo, driver=False)
    add_outcome(repo, "alpha", "feature")
    commit(repo, "store alpha")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "scratch")
    forgot = _moved(repo, forget, "10:01", "change alpha")
    add_outcome(repo, "beta", "feature")
    git(repo, "commit", "-q", "-am", "store beta", "--date", "2026-03-02T10:02:00+00:00")
    stored = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "one", base)
    git(repo, "checkout", "scratch", "--", ".planning")
    fold_messages = ("-m", "store beta", "-m", "change alpha")
    git(repo, "commit", "-q", *fold_messages, "--date", "2026-03-02T10:02:00+00:00")
    fold = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    commit(repo, "notes")
    git(repo, "cherry-pick", fold)
    add_outcome(repo, "gamma", "feature")
    git(repo, "commit", "-q", "-am", "store gamma", "--date", "2026-03-02T10:03:00+00:00")
    refold = git(repo, "rev-parse", "HEAD").strip()
    (repo / ".git" / FOLDED_NAME).write_text(
        f"{fold} {forgot} {stored}\n{refold} {stored} {fold}\n", encoding="utf-8"
    )
    git(repo, "checkout", "-q", "one")
    _moved(repo, restore, "10:10", "change alpha")
    archive, text = memory_of(repo).archive, f"2026-03-02 {ROW_TAIL}"
    assert most_moved(repo, base, ["main", "one"], archive, text) == {"one"}


def _squashed_into_main(repo: Path, branch: str) -> None:
    """main takes `branch` by `merge --squash`, committed with git's own message; alpha ends
    archived there."""
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", branch)
    git(repo, "commit", "-q", "--no-edit")
    assert "| alpha |" in text_of(repo, "ARCHIVE.md")
    assert "| alpha |" not in text_of(repo, "OUTCOMES.md")
