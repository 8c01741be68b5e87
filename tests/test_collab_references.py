"""Real-git reproductions of references and IDs going wrong in rebases, pulls and squashes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.gitrepos import (
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    feature_outcome_and_pattern,
    feature_pattern_and_main_outcome,
    init_memory,
    memory_of,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git, run_process

from legion_memory.upkeep.forgetting import forget, restore

REPAIR = "Repair .planning/memory after post-merge (legion-memory doctor --fix)"


def _ids(repo: Path) -> dict[str, str]:
    return {summary: record_id for record_id, _, summary in rows(repo)}


def _branch_and_a_citing_main(repo: Path, branch: str) -> None:
    """One outcome on `branch`; on main one outcome and a pattern citing it (both ID 1)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", branch)
    add_outcome(repo, "branch record", branch)
    commit(repo, "branch")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "main record", "main")
    add_pattern(repo, "main pattern", cited, "main")
    commit(repo, "main")


def _feature_stores_forgets_and_restores(repo: Path) -> None:
    """Three commits on `feature` (store, forget, restore one outcome), then back on main."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    mine = add_outcome(repo, "feature record", "feature")
    commit(repo, "store")
    forget(memory_of(repo), mine)
    commit(repo, "forget")
    restore(memory_of(repo), mine)
    commit(repo, "restore")
    git(repo, "checkout", "-q", "main")


def _branch_stores_and_forgets(repo: Path, branch: str, summary: str, start: str = "main") -> None:
    """On a new `branch` from `start`: one outcome stored, then forgotten, a commit each."""
    git(repo, "checkout", "-q", "-b", branch, start)
    stored = add_outcome(repo, summary, branch)
    commit(repo, f"{branch} store")
    forget(memory_of(repo), stored)
    commit(repo, f"{branch} forget")


def test_a_rebase_keeps_the_ids_of_the_branch_it_replays_onto(repo: Path) -> None:
    """main's outcomes and the pattern citing one of them keep their IDs; the replayed outcomes
    move on, even the one whose date sorts first."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "early feature", "feature", date="2026-01-01")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main one", "main")
    cited = add_outcome(repo, "main two", "main")
    add_pattern(repo, "main pattern", cited, "main")
    commit(repo, "main")
    git(repo, "checkout", "-q", "feature")
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stderr
    assert _ids(repo) == {"main one": "O-001", "main two": "O-002", "early feature": "O-003"}
    assert sources(repo) == {"main pattern": "O-002"}
    assert_healthy(repo)


def test_a_merge_that_renumbers_ours_makes_ours_untouched_patterns_follow(repo: Path) -> None:
    """Only ours changed PATTERNS.md, so git never calls the driver for it; the repair commit
    makes the pattern follow its renumbered outcome."""
    _branch_and_a_citing_main(repo, "b2")
    done = run_git(repo, "merge", "--no-edit", "b2")
    assert done.returncode == 0, done.stderr
    assert _ids(repo) == {"branch record": "O-001", "main record": "O-002"}
    assert sources(repo) == {"main pattern": "O-002"}
    assert git(repo, "log", "-1", "--format=%s") == REPAIR + "\n"
    assert "committed the repair of .planning/memory as its own commit" in done.stderr
    assert_healthy(repo)


def test_pull_rebase_makes_a_replayed_pattern_follow_its_replayed_outcome(
    repo: Path, tmp_path: Path
) -> None:
    init_memory(repo, driver=True)
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "fetch", "-q", "origin")
    git(repo, "branch", "-q", "--set-upstream-to=origin/main", "main")
    git(repo, "checkout", "-q", "-b", "upstream", "origin/main")
    add_outcome(repo, "pushed first", "main")
    commit(repo, "upstream")
    git(repo, "push", "-q", "origin", "upstream:main")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "local record", "main")
    commit(repo, "local outcome")
    add_pattern(repo, "local pattern", cited, "main")
    commit(repo, "local pattern")
    done = run_git(repo, "pull", "-q", "--rebase", "origin", "main")
    assert done.returncode == 0, done.stderr
    assert _ids(repo) == {"pushed first": "O-001", "local record": "O-002"}
    assert sources(repo) == {"local pattern": "O-002"}
    assert_healthy(repo)


def test_a_squash_leaves_its_repair_staged_and_the_tree_clean_after_the_commit(
    repo: Path,
) -> None:
    _branch_and_a_citing_main(repo, "b1")
    done = run_git(repo, "merge", "--squash", "b1")
    assert done.returncode == 0, done.stderr
    assert "the repair is staged with your squash" in done.stderr
    git(repo, "commit", "-q", "-m", "squash b1")
    assert sources(repo) == {"main pattern": _ids(repo)["main record"]}
    assert _ids(repo) == {"branch record": "O-001", "main record": "O-002"}
    assert_healthy(repo)


def _rebased_onto_main_that_archived_its_cited_record(
    repo: Path, also_live: str = ""
) -> subprocess.CompletedProcess[str]:
    """feature stores, forgets and restores its O-001; main stores a record (and `also_live`), a
    pattern citing it, then forgets it; feature is rebased onto main."""
    _feature_stores_forgets_and_restores(repo)
    old = add_outcome(repo, "main record", "main")
    if also_live:
        add_outcome(repo, also_live, "main")
    add_pattern(repo, "main pattern", old, "main")
    commit(repo, "main store")
    forget(memory_of(repo), old)
    commit(repo, "main forget")
    git(repo, "checkout", "-q", "feature")
    return run_git(repo, "rebase", "main")


def test_a_rebase_that_forgets_and_restores_a_record_keeps_main_archived_id(repo: Path) -> None:
    """main archived its O-001; the branch stores, forgets and restores its own O-001: each step
    keeps the replayed record under the one ID it has on main, and main's records and the
    pattern citing the archived one keep theirs."""
    done = _rebased_onto_main_that_archived_its_cited_record(repo, "main live")
    assert done.returncode == 0, done.stderr
    assert rows(repo) == [("O-002", "main", "main live"), ("O-003", "feature", "feature record")]
    assert "| O-001 | 2026-03-02 | main |" in text_of(repo, "ARCHIVE.md")
    assert sources(repo) == {"main pattern": "O-001"}
    assert_healthy(repo)


def test_a_merge_commit_itself_holds_the_followed_references(repo: Path) -> None:
    """Both sides changed PATTERNS.md, so its driver runs: it predicts the outcome files' merge
    from the commits git names and writes each Source right, so no repair commit is needed."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "b2")
    theirs = add_outcome(repo, "branch record", "b2")
    add_pattern(repo, "branch pattern", theirs, "b2")
    commit(repo, "branch")
    git(repo, "checkout", "-q", "main")
    ours = add_outcome(repo, "main record", "main")
    add_pattern(repo, "main pattern", ours, "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "b2")
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%s") == "Merge branch 'b2'\n"
    assert _ids(repo) == {"branch record": "O-001", "main record": "O-002"}
    assert sources(repo) == {"main pattern": "O-002", "branch pattern": "O-001"}
    assert (
        "legion-memory: .planning/memory/PATTERNS.md: Source references follow their outcomes"
        in done.stderr
    )
    assert_healthy(repo)


def test_a_picked_commit_itself_holds_the_followed_reference(repo: Path) -> None:
    """main picked the branch's outcome (O-002 there) and holds a pattern of its own, so picking
    the branch's pattern runs the driver of PATTERNS.md. The pick leaves the outcome files as
    main holds them, so the driver writes the Source main calls that outcome by: the pick is
    right as committed, and its hook has nothing left to repair (before, a repair commit
    followed it)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "b2")
    theirs = add_outcome(repo, "branch record", "b2")
    commit(repo, "branch record")
    add_pattern(repo, "branch pattern", theirs, "b2")
    commit(repo, "branch pattern")
    git(repo, "checkout", "-q", "main")
    ours = add_outcome(repo, "main record", "main", date="2026-03-01")
    add_pattern(repo, "main pattern", ours, "main")
    commit(repo, "main")
    assert run_git(repo, "cherry-pick", "b2~1").returncode == 0

    done = run_git(repo, "cherry-pick", "b2")

    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "--format=%s", "-3") == "branch pattern\nbranch record\nmain\n"
    assert _ids(repo) == {"main record": "O-001", "branch record": "O-002"}
    assert sources(repo) == {"main pattern": "O-001", "branch pattern": "O-002"}
    assert (
        "legion-memory: .planning/memory/PATTERNS.md: Source references follow their outcomes"
        in done.stderr
    )
    assert_healthy(repo)


def test_a_rebase_onto_a_main_that_only_archived_keeps_main_archived_id(repo: Path) -> None:
    """main's OUTCOMES.md is back to what the fork had (its one record archived), so git takes
    the replayed store whole, under main's archived ID; the replayed forget then yields that ID
    to main's archived record, which the pattern keeps citing."""
    done = _rebased_onto_main_that_archived_its_cited_record(repo)
    assert done.returncode == 0, done.stderr
    assert rows(repo) == [("O-002", "feature", "feature record")]
    assert "| O-001 | 2026-03-02 | main |" in text_of(repo, "ARCHIVE.md")
    assert sources(repo) == {"main pattern": "O-001"}
    assert_healthy(repo)


def test_a_rebase_whose_repair_renumbers_an_outcome_makes_its_pattern_follow(
    repo: Path,
) -> None:
    """Every replayed file is one only the branch changed (the upstream forgot what it stored),
    so no driver runs and the replayed O-001 lands beside upstream's archived O-001. The hook's
    duplicate-ID repair moves the live one on; the pattern, whose Branch is neither outcome's,
    follows what it meant in the commits the rebase replayed."""
    init_memory(repo, driver=True)
    _branch_stores_and_forgets(repo, "upstream", "upstream record")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "local record", "main")
    commit(repo, "local outcome")
    add_pattern(repo, "topic pattern", cited, "topic")
    commit(repo, "topic pattern")
    done = run_git(repo, "rebase", "upstream")
    assert done.returncode == 0, done.stderr
    assert rows(repo) == [("O-002", "main", "local record")]
    assert "| O-001 | 2026-03-02 | upstream |" in text_of(repo, "ARCHIVE.md")
    assert sources(repo) == {"topic pattern": "O-002"}
    assert git(repo, "log", "-1", "--format=%s") == (
        "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)\n"
    )
    assert_healthy(repo)


def test_a_rebase_does_not_replay_a_forget_the_upstream_already_holds(repo: Path) -> None:
    """`shared` holds a rebased copy of the branch's store and forget (its ARCHIVE.md context
    differs, so git cannot see the copy) and then restored the record. Rebasing the branch onto
    it replays the old forget; the record stays live, as upstream restored it."""
    init_memory(repo, driver=True)
    _branch_stores_and_forgets(repo, "topic", "topic record")
    _branch_stores_and_forgets(repo, "other", "other record")
    git(repo, "checkout", "-q", "-b", "shared", "topic")
    assert run_git(repo, "rebase", "other").returncode == 0
    copied = next(i for i, _, s in _archived(repo) if s == "topic record")
    restore(memory_of(repo), copied)
    commit(repo, "restore")
    git(repo, "checkout", "-q", "topic")
    done = run_git(repo, "rebase", "shared")
    assert done.returncode == 0, done.stderr
    assert rows(repo) == [(copied, "topic", "topic record")]
    assert [s for _, _, s in _archived(repo)] == ["other record"]
    assert git(repo, "log", "-1", "--format=%s") == (
        "Repair .planning/memory after post-rewrite (legion-memory doctor --fix)\n"
    )
    assert_healthy(repo)


def _archived(repo: Path) -> list[tuple[str, str, str]]:
    """(ID, Branch, Summary) of each archived outcome, in file order."""
    lines = text_of(repo, "ARCHIVE.md").splitlines()
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return [(c[0], c[2], c[-1]) for c in cells if c[0].startswith("O-")]


def test_a_rebase_follows_what_the_branch_meant_last_not_a_passing_wrong_reference(
    repo: Path,
) -> None:
    """One of the branch's commits cited an outcome it did not hold (a pick that came without
    its outcome) and a later one set it right: the branch's tip says what the pattern means."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "upstream")
    add_outcome(repo, "upstream record", "upstream")
    commit(repo, "upstream outcome")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "local record", "main")
    commit(repo, "local outcome")
    add_pattern(repo, "topic pattern", "O-009", "main")
    commit(repo, "pattern citing an outcome this branch lacks")
    patterns = repo / ".planning" / "memory" / "PATTERNS.md"
    patterns.write_text(patterns.read_text().replace("| O-009 |", f"| {cited} |"))
    commit(repo, "cite the local record")

    done = run_git(repo, "rebase", "upstream")

    assert done.returncode == 0, done.stderr
    assert rows(repo) == [
        ("O-001", "upstream", "upstream record"),
        ("O-002", "main", "local record"),
    ]
    assert sources(repo) == {"topic pattern": "O-002"}
    assert_healthy(repo)


def test_picking_a_branch_whole_makes_its_pattern_follow_the_outcome_the_pick_renumbered(
    repo: Path,
) -> None:
    """The branch's outcome collides with main's and is renumbered by the first pick; its pattern,
    picked next, is followed after the last pick by what the branch meant, not by the half-picked
    state before it."""
    feature_pattern_and_main_outcome(repo, then_on_feature="later record")

    done = run_git(repo, "cherry-pick", "main..feature")

    assert done.returncode == 0, done.stderr
    # The last pick's base holds the branch record: base records come first (in base's order)
    assert rows(repo) == [
        ("O-002", "feature", "branch record"),
        ("O-001", "main", "main record"),
        ("O-003", "feature", "later record"),
    ]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)


def test_a_pattern_picked_without_its_outcome_follows_it_when_the_branch_arrives(
    repo: Path,
) -> None:
    """Picked alone, the pattern cites an ID main gives another outcome: its Source describes
    the outcome it meant instead, in the pick's repair. Merging the branch brings that outcome,
    renumbered, and the description becomes its ID."""
    feature_pattern_and_main_outcome(repo)
    picked = run_git(repo, "cherry-pick", "feature")
    assert picked.returncode == 0, picked.stderr
    described = 'outcome "branch record" (feature, 2026-03-02)'
    assert sources(repo) == {"branch pattern": described}
    assert f"P-001 Source O-001 -> {described}" in picked.stderr
    assert git(repo, "log", "-1", "--format=%s") == (
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)\n"
    )

    done = run_git(repo, "merge", "--no-edit", "feature")

    assert done.returncode == 0, done.stderr
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)


def _b_cites_its_outcome_that_a_renumbered(repo: Path) -> None:
    """`b` stores an outcome; `a` stores three earlier ones and merges `b` (its outcome becomes
    O-004 there); `b` then stores a pattern citing its outcome as O-001. On `b`."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "b")
    add_outcome(repo, "b's outcome", "b", date="2026-03-03")
    commit(repo, "b stores")
    git(repo, "checkout", "-q", "-b", "a", "main")
    for summary in ("a one", "a two", "a three"):
        add_outcome(repo, summary, "a")
    commit(repo, "a stores")
    assert run_git(repo, "merge", "-q", "--no-edit", "b").returncode == 0
    assert _ids(repo)["b's outcome"] == "O-004"
    git(repo, "checkout", "-q", "b")
    add_pattern(repo, "b's pattern", "O-001", "b")
    commit(repo, "b's pattern")


@pytest.mark.parametrize("concluded", [False, True])
def test_a_merge_git_makes_of_whole_files_from_each_side_follows_the_references(
    repo: Path, concluded: bool
) -> None:
    """`b` stores an outcome; `a` stores three earlier ones and merges `b` (its outcome becomes
    O-004 there); `b` then stores a pattern citing its outcome as O-001 and merges `a`. Since
    their base, ours changed only PATTERNS.md and theirs only OUTCOMES.md: git takes each file
    whole without the driver, and the pattern would cite `a`'s O-001. The hook after the merge
    commit (post-merge, or post-commit when a `--no-commit` merge is concluded) follows the
    reference by what it meant on its side and commits the repair."""
    _b_cites_its_outcome_that_a_renumbered(repo)
    flags = ["--no-commit", "--no-ff"] if concluded else []
    done = run_git(repo, "merge", "--no-edit", *flags, "a")
    assert done.returncode == 0, done.stderr
    assert "Auto-merging" not in done.stdout  # git merged no memory file itself: no driver ran
    if concluded:
        assert sources(repo) == {"b's pattern": "O-001"}  # nothing ran yet
        done = run_git(repo, "commit", "-q", "--no-edit")
        assert done.returncode == 0, done.stderr
    assert _ids(repo) == {"a one": "O-001", "a two": "O-002", "a three": "O-003",
                          "b's outcome": "O-004"}  # fmt: skip
    assert sources(repo) == {"b's pattern": "O-004"}
    hook = "post-commit" if concluded else "post-merge"
    assert git(repo, "log", "-1", "--format=%s").strip() == REPAIR.replace("post-merge", hook)
    assert len(git(repo, "log", "-1", "--format=%P", "HEAD~1").split()) == 2
    assert_healthy(repo)


def test_a_squash_git_makes_of_whole_files_from_each_side_follows_the_references(
    repo: Path,
) -> None:
    """The same sides squashed: the post-merge hook of `merge --squash` knows them as HEAD and
    the newest commit git lists in its message, follows the reference and stages the repair."""
    _b_cites_its_outcome_that_a_renumbered(repo)

    done = run_git(repo, "merge", "--squash", "a")

    assert done.returncode == 0, done.stderr
    assert "the repair is staged with your squash" in done.stderr
    git(repo, "commit", "-q", "--no-edit")
    assert _ids(repo) == {"a one": "O-001", "a two": "O-002", "a three": "O-003",
                          "b's outcome": "O-004"}  # fmt: skip
    assert sources(repo) == {"b's pattern": "O-004"}
    assert_healthy(repo)


def _picked_alone_then_main_stores(repo: Path, outcome_branch: str) -> str:
    """The branch's pattern picked alone onto a main that holds no outcome, then main stores
    one (O-001, the ID the pattern cited): the pattern's Source, unchanged by that store."""
    feature_outcome_and_pattern(repo, outcome_branch)
    git(repo, "checkout", "-q", "main")
    picked = run_git(repo, "cherry-pick", "feature")
    assert picked.returncode == 0, picked.stderr
    described = sources(repo)["branch pattern"]
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")
    assert sources(repo) == {"branch pattern": described}
    return described


def test_a_pattern_picked_onto_no_outcome_at_all_is_described_before_a_store_takes_its_id(
    repo: Path,
) -> None:
    """Main holds no outcome yet: the picked pattern's O-001 cites nothing here, but the next
    outcome main stores becomes O-001, and the pattern would cite it. So its Source describes
    the outcome it meant from the pick on, and becomes that outcome's ID when the branch
    arrives (seed 8080 of the collaboration simulation's `--merges-kinds`)."""
    described = _picked_alone_then_main_stores(repo, "feature")
    assert described == 'outcome "branch record" (feature, 2026-03-02)'

    done = run_git(repo, "merge", "--no-edit", "feature")

    assert done.returncode == 0, done.stderr
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)


def test_a_described_source_is_no_disagreement_when_the_branch_brings_the_outcome(
    repo: Path,
) -> None:
    """As above, but the outcome was stored on another branch than the pattern (its Branch
    settles nothing): main's version only describes the outcome, which says nothing of what
    `O-001` meant, so the branch's meaning stands and the merge itself cites the outcome by its
    ID here (seed 8080 of the collaboration simulation's `--merges-kinds`)."""
    described = _picked_alone_then_main_stores(repo, "earlier")
    assert described == 'outcome "branch record" (earlier, 2026-03-02)'

    done = run_git(repo, "merge", "--no-edit", "feature")

    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%s") == "Merge branch 'feature'\n"
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "earlier", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert_healthy(repo)


@pytest.mark.parametrize("picked_as", ["-n feature", "--no-commit main..feature"])
def test_a_pick_that_commits_nothing_has_its_pattern_follow_the_outcome_once_committed(
    repo: Path, picked_as: str
) -> None:
    """`git cherry-pick -n` of a commit storing an outcome and a pattern citing it, or of a
    branch's two commits storing them: the driver renumbers the outcome, which collides with
    main's, and git takes PATTERNS.md whole, citing main's number. No hook runs after a pick
    that commits nothing: `doctor` says what the pattern meant, and the commit the user makes of
    the pick runs the repair, committed after it."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    cited = add_outcome(repo, "branch record", "feature")
    if ".." in picked_as:
        commit(repo, "branch outcome")
    add_pattern(repo, "branch pattern", cited, "feature")
    commit(repo, "branch pattern")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main record", "main", date="2026-03-01")
    commit(repo, "main outcome")

    picked = run_git(repo, "cherry-pick", *picked_as.split())
    assert picked.returncode == 0, picked.stderr
    assert run_process("doctor", cwd=repo).stdout == (
        ".planning/memory/PATTERNS.md:10: P-001 Source O-001 should read O-002 (the outcome it"
        " meant has another ID now)\n1 problem needs repair (run `legion-memory doctor --fix`)\n"
    )
    committed = run_git(repo, "commit", "-m", "picked by hand")

    assert committed.returncode == 0, committed.stderr
    assert rows(repo) == [("O-001", "main", "main record"), ("O-002", "feature", "branch record")]
    assert sources(repo) == {"branch pattern": "O-002"}
    assert git(repo, "log", "-2", "--format=%s").splitlines() == [
        "Repair .planning/memory after post-commit (legion-memory doctor --fix)",
        "picked by hand",
    ]
    assert_healthy(repo)
