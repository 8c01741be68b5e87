"""Real-git reproductions of the ways integrating memory went wrong, each ending right now."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.gitrepos import (
    COMMAND,
    GIT_ENV,
    add_error,
    add_outcome,
    add_pattern,
    assert_healthy,
    commit,
    init_memory,
    memory_of,
    rows,
    run_git,
    sources,
    text_of,
)
from support.processes import git, run_process

from legion_memory.schema.kinds import ERROR_FIX
from legion_memory.storage import writing
from legion_memory.upkeep.forgetting import forget, restore


def _archived(repo: Path, kind: str = "outcomes") -> list[str]:
    text = text_of(repo, "ARCHIVE.md")
    prefix = {"outcomes": "| O-", "errors": "| E-"}[kind]
    return [line.split("|")[1].strip() for line in text.splitlines() if line.startswith(prefix)]


def test_cherry_pick_then_merging_the_branch_keeps_the_record_once(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "picked", "feature")
    commit(repo, "picked")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "on main", "main", date="2026-03-01")
    commit(repo, "main")
    assert run_git(repo, "cherry-pick", "feature").returncode == 0
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "later", "feature")
    commit(repo, "later")
    git(repo, "checkout", "-q", "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    assert sorted(summary for _, _, summary in rows(repo)) == ["later", "on main", "picked"]
    assert len({record_id for record_id, _, _ in rows(repo)}) == 3
    assert_healthy(repo)


def test_squash_then_more_work_then_merge_keeps_each_record_once(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "first", "feature")
    commit(repo, "first")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--squash", "feature").returncode == 0
    git(repo, "commit", "-q", "-m", "squash")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "second", "feature")
    commit(repo, "second")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert rows(repo) == [("O-001", "feature", "first"), ("O-002", "feature", "second")]
    assert_healthy(repo)


def test_rebasing_a_branch_that_updated_and_forgot_its_own_rows_has_no_conflict(
    repo: Path,
) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    error = add_error(repo, "disk full", "feature")
    gone = add_outcome(repo, "to forget", "feature")
    commit(repo, "stored")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "free space", "resolved": "true"})
    commit(repo, "fixed")
    forget(memory_of(repo), gone)
    commit(repo, "forgot")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "on main", "main")
    add_error(repo, "timeout", "main")
    commit(repo, "main")
    git(repo, "checkout", "-q", "feature")
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stderr
    errors = rows(repo, "errors")
    assert sorted(fix for _, _, fix in errors) == ["free space", "retry"]
    assert [summary for _, _, summary in rows(repo)] == ["on main"]
    assert len(_archived(repo)) == 1
    assert_healthy(repo)


def test_rebasing_a_branch_holding_an_older_update_main_replaced_since_has_no_conflict(
    repo: Path,
) -> None:
    """`later` started from `fixes` after its first update of a fix; `fixes` updated it again,
    was rebased onto main and merged. Rebasing `later` replays the first update over main's
    second (renumbered, so git cannot drop it as already upstream): main's history wrote that
    version and replaced it, so main's is the later
    (docs/decisions.md#later-version), not a conflict (seed 2302)."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "fixes")
    error = add_error(repo, "disk full", "fixes")
    commit(repo, "store the error")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "free space"})
    commit(repo, "first fix")
    git(repo, "checkout", "-q", "-b", "later")
    add_outcome(repo, "later work", "later")
    commit(repo, "later work")
    git(repo, "checkout", "-q", "fixes")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "grow the disk", "resolved": "true"})
    commit(repo, "second fix")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "on main", "main")
    add_error(repo, "timeout", "main")
    commit(repo, "main")
    git(repo, "checkout", "-q", "fixes")
    assert run_git(repo, "rebase", "-q", "main").returncode == 0
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "-q", "--ff-only", "fixes").returncode == 0
    git(repo, "checkout", "-q", "later")
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(fix for _, _, fix in rows(repo, "errors")) == ["grow the disk", "retry"]
    assert [summary for _, _, summary in rows(repo)] == ["on main", "later work"]
    assert git(repo, "status", "--porcelain") == ""
    assert_healthy(repo)


def test_merging_a_branch_twice_after_forgetting_one_of_its_rows(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    gone = add_outcome(repo, "forget me", "feature")
    add_outcome(repo, "keep me", "feature")
    commit(repo, "two")
    git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    forget(memory_of(repo), gone)
    commit(repo, "forgot on main")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "more", "feature")
    commit(repo, "more")
    git(repo, "checkout", "-q", "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    assert [summary for _, _, summary in rows(repo)] == ["keep me", "more"]
    assert _archived(repo) == [gone]
    assert_healthy(repo)


def test_a_branch_storing_and_forgetting_o001_while_main_stores_o001(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    archived = add_outcome(repo, "archived on feature", "feature")
    forget(memory_of(repo), archived)
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    cited = add_outcome(repo, "main record", "main")
    add_pattern(repo, "main pattern", cited, "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    live = rows(repo)
    assert [summary for _, _, summary in live] == ["main record"]
    assert live[0][0] not in _archived(repo)
    assert sources(repo) == {"main pattern": live[0][0]}
    assert_healthy(repo)


def _clone(origin: Path, path: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(origin), str(path)], check=True, env=GIT_ENV)
    for key, value in (("user.email", "b@example.com"), ("user.name", "B")):
        git(path, "config", key, value)
    return path


def test_pull_between_two_clones_on_one_branch_keeps_each_source_on_its_outcome(
    repo: Path, tmp_path: Path
) -> None:
    init_memory(repo, driver=True)
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(origin)], check=True)
    git(repo, "remote", "add", "origin", str(origin))
    other = _clone(origin, tmp_path / "other")
    run_process("git", "install", "--command", COMMAND, cwd=other, check=True)
    for clone, summary in ((repo, "mine"), (other, "theirs")):
        cited = add_outcome(clone, f"{summary} outcome", "main")
        add_pattern(clone, f"{summary} pattern", cited, "main")
        commit(clone, summary)
    git(other, "push", "-q", "origin", "main")
    done = run_git(repo, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert done.returncode == 0, done.stderr
    by_summary = {summary: record_id for record_id, _, summary in rows(repo)}
    assert sources(repo) == {
        "mine pattern": by_summary["mine outcome"],
        "theirs pattern": by_summary["theirs outcome"],
    }
    assert_healthy(repo)


def test_a_migrated_table_and_old_layout_rows_merge_into_the_new_layout(repo: Path) -> None:
    init_memory(repo, driver=True)
    path = repo / ".planning" / "memory" / "OUTCOMES.md"
    legacy = "| ID | Date | Summary |\n|----|------|---------|\n| O-001 | 2026-03-01 | one |\n"
    path.write_text(legacy, encoding="utf-8")
    commit(repo, "legacy")
    git(repo, "checkout", "-q", "-b", "old")
    path.write_text(legacy + "| O-002 | 2026-03-02 | two |\n", encoding="utf-8")
    commit(repo, "old layout row")
    git(repo, "checkout", "-q", "main")
    migrated = "| ID | Date | Branch | Summary |\n|----|------|--------|---------|\n"
    path.write_text(migrated + "| O-001 | 2026-03-01 |  | one |\n", encoding="utf-8")
    commit(repo, "migrated")
    done = run_git(repo, "merge", "--no-edit", "old")
    assert done.returncode == 0, done.stderr
    assert path.read_text(encoding="utf-8") == (
        migrated + "| O-001 | 2026-03-01 |  | one |\n| O-002 | 2026-03-02 |  | two |\n"
    )


def test_crlf_and_lf_sides_merge_by_record(repo: Path) -> None:
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature", "feature")
    path = repo / ".planning" / "memory" / "OUTCOMES.md"
    path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    commit(repo, "crlf")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main", "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    assert sorted(summary for _, _, summary in rows(repo)) == ["feature", "main"]
    assert len({record_id for record_id, _, _ in rows(repo)}) == 2


def test_an_error_updated_on_one_side_while_the_other_archived_it(repo: Path) -> None:
    init_memory(repo, driver=True)
    error = add_error(repo, "disk full", "main")
    commit(repo, "error")
    git(repo, "checkout", "-q", "-b", "feature")
    writing.update(memory_of(repo), ERROR_FIX, error, {"fix": "free space", "resolved": "true"})
    commit(repo, "fixed")
    git(repo, "checkout", "-q", "main")
    forget(memory_of(repo), error)
    commit(repo, "archived")
    run_git(repo, "merge", "--no-edit", "feature")
    run_process("doctor", "--fix", cwd=repo)
    assert rows(repo, "errors") == []
    assert _archived(repo, "errors") == [error]
    assert "| free space |" in text_of(repo, "ARCHIVE.md")


def test_a_restored_record_keeps_its_id_through_a_merge(repo: Path) -> None:
    init_memory(repo, driver=True)
    first = add_outcome(repo, "old record", "main", date="2026-01-01")
    forget(memory_of(repo), first)
    commit(repo, "archived")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature record", "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    restore(memory_of(repo), first)
    commit(repo, "restored")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0, done.stderr
    assert (first, "main", "old record") in rows(repo)
    assert run_process("diff", "HEAD~1", "HEAD", cwd=repo).stdout.count(first) == 0
    assert_healthy(repo)


def _main_merged_alpha_after_its_own_beta(repo: Path) -> None:
    """feature stores alpha; main stores beta, dated earlier, and merges feature: beta keeps
    O-001, alpha is O-002 on main and O-001 on feature."""
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "alpha", "feature", date="2026-03-02")
    commit(repo, "store alpha")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "beta", "main", date="2026-03-01")
    commit(repo, "store beta")
    assert run_git(repo, "merge", "-q", "--no-edit", "feature").returncode == 0
    assert rows(repo) == [("O-001", "main", "beta"), ("O-002", "feature", "alpha")]


def test_picking_again_a_record_main_holds_under_its_own_id_keeps_that_id(repo: Path) -> None:
    """main merged feature's alpha as O-002 (its own O-001 came first) and cites it so; after
    main archived O-001, alpha's store picked again brings it as O-001, free in OUTCOMES.md yet
    archived. A pick keeps the IDs of the branch it replays onto: alpha stays O-002 and the pick
    changes nothing (it once took the lower ID, renumbered past the archived one to O-003)."""
    _main_merged_alpha_after_its_own_beta(repo)
    add_pattern(repo, "reuse alpha", "O-002", "main")
    forget(memory_of(repo), "O-001")
    commit(repo, "cite alpha, forget beta")
    before = {name: text_of(repo, name) for name in ("OUTCOMES.md", "ARCHIVE.md", "PATTERNS.md")}

    done = run_git(repo, "cherry-pick", "feature")

    assert done.returncode == 1
    assert "The previous cherry-pick is now empty" in done.stdout + done.stderr
    run_git(repo, "cherry-pick", "--skip")
    assert {name: text_of(repo, name) for name in before} == before
    assert rows(repo) == [("O-002", "feature", "alpha")]
    assert sources(repo) == {"reuse alpha": "O-002"}
    assert_healthy(repo)


def test_a_pick_keeps_main_s_id_where_base_held_a_record_main_archived(repo: Path) -> None:
    """feature stores alpha (O-001), then gamma (O-002). main stored beta first (O-001, earlier),
    merged alpha as O-002 and archived it. Picking gamma's store: base holds alpha as O-001,
    which main removed; the pick must leave beta's O-001 alone (it once renumbered beta, the
    branch replayed onto, because feature still held alpha under that number)."""
    _main_merged_alpha_after_its_own_beta(repo)
    forget(memory_of(repo), "O-002")
    commit(repo, "forget alpha")
    git(repo, "checkout", "-q", "feature")
    add_outcome(repo, "gamma", "feature", date="2026-03-03")
    commit(repo, "store gamma")
    git(repo, "checkout", "-q", "main")

    done = run_git(repo, "cherry-pick", "feature")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "ours O-001 renumbered" not in done.stderr
    assert rows(repo) == [("O-001", "main", "beta"), ("O-003", "feature", "gamma")]
    assert _archived(repo) == ["O-002"]
    assert_healthy(repo)
