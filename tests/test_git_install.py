"""`git install [--uninstall]`: idempotent, exactly reversible, and kind to existing hooks."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from support.gitrepos import COMMAND, add_outcome, commit, init_memory, rows, run_git
from support.processes import CLI, git, read_bytes_of

from legion_memory.gitops.install import HOOK_FORMAT, hook_script


def _state(repo: Path) -> dict[str, object]:
    """Everything install may touch: the work tree, this clone's config, the hooks and modes."""
    hooks = repo / ".git" / "hooks"
    return {
        "tree": read_bytes_of(repo),
        "config": (repo / ".git" / "config").read_bytes(),
        "hooks": {
            path.name: (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
            for path in sorted(hooks.iterdir())
        },
    }


def test_install_adds_the_attribute_the_driver_and_the_hooks(cli: CLI, repo: Path) -> None:
    result = cli("git", "install", cwd=repo)
    assert result.code == 0
    assert result.stdout.splitlines() == [
        "added `.planning/memory/*.md merge=legion-memory` to .gitattributes",
        "set git config merge.legion-memory.name",
        "set git config merge.legion-memory.driver",
        "set git config pull.octopus legion-memory",
        "set git config am.threeWay true",
        "installed .git/hooks/post-merge",
        "installed .git/hooks/post-rewrite",
        "installed .git/hooks/post-commit",
        "installed .git/hooks/post-applypatch",
        "installed .git/hooks/pre-push",
        "installed .git/hooks/post-checkout",
    ]
    assert (repo / ".gitattributes").read_text() == ".planning/memory/*.md merge=legion-memory\n"
    assert git(repo, "config", "--get-regexp", "^merge\\.legion-memory").splitlines() == [
        "merge.legion-memory.name legion-memory: row-aware merge of .planning/memory tables",
        "merge.legion-memory.driver legion-memory git merge-driver %O %A %B %L %P && exit 0; "
        "grep -q '^<<<<<<<' %A || git merge-file -L ours -L base -L theirs --marker-size=%L "
        "%A %O %B; exit 1",
        "merge.legion-memory.setthreewayam true",
    ]
    hook = repo / ".git" / "hooks" / "post-merge"
    assert hook.read_text() == hook_script("post-merge", "legion-memory")
    assert stat.S_IMODE(hook.stat().st_mode) & 0o111 == 0o111
    assert 'legion-memory doctor --fix --quiet >&2 || echo "legion-memory:' in hook.read_text()


def test_install_twice_changes_nothing_the_second_time(cli: CLI, repo: Path) -> None:
    cli("git", "install", cwd=repo)
    installed = _state(repo)
    result = cli("git", "install", cwd=repo)
    assert (result.code, result.stdout) == (
        0,
        "legion-memory git integration is already installed\n",
    )
    assert _state(repo) == installed


def test_uninstall_restores_the_prior_state_exactly(cli: CLI, repo: Path) -> None:
    (repo / ".gitattributes").write_bytes(b"*.png binary\r\n*.md text")  # CRLF, no final newline
    hook = repo / ".git" / "hooks" / "post-merge"
    hook.write_text("#!/bin/sh\necho mine > merged-by-my-hook\n")
    hook.chmod(0o750)
    git(repo, "config", "merge.other.driver", "true")
    before = _state(repo)
    assert cli("git", "install", cwd=repo).stdout.splitlines()[5] == (
        "installed .git/hooks/post-merge (the existing hook still runs first, kept as "
        "post-merge.legion-memory-chained)"
    )
    assert (repo / ".gitattributes").read_bytes() == (
        b"*.png binary\r\n*.md text\r\n.planning/memory/*.md merge=legion-memory"
    )
    result = cli("git", "install", "--uninstall", cwd=repo)
    assert result.stdout.splitlines() == [
        "removed `.planning/memory/*.md merge=legion-memory` from .gitattributes",
        "removed git config am.threeWay",
        "removed git config merge.legion-memory",
        "removed git config pull.octopus",
        "removed .git/hooks/post-merge",
        "restored the previous post-merge hook",
        "removed .git/hooks/post-rewrite",
        "removed .git/hooks/post-commit",
        "removed .git/hooks/post-applypatch",
        "removed .git/hooks/pre-push",
        "removed .git/hooks/post-checkout",
    ]
    assert _state(repo) == before
    again = cli("git", "install", "--uninstall", cwd=repo)
    assert again.stdout == "legion-memory git integration is not installed\n"


def test_uninstall_removes_a_gitattributes_file_install_created(cli: CLI, repo: Path) -> None:
    before = _state(repo)
    cli("git", "install", cwd=repo)
    cli("git", "install", "--uninstall", cwd=repo)
    assert _state(repo) == before
    assert not (repo / ".gitattributes").exists()


def test_an_existing_post_merge_hook_keeps_working(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "post-merge"
    hook.write_text('#!/bin/sh\necho "squash=$1" > "$(git rev-parse --show-toplevel)/hook-ran"\n')
    hook.chmod(0o755)
    init_memory(repo, driver=True)
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature", "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main", "main")
    commit(repo, "main")
    assert run_git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert (repo / "hook-ran").read_text() == "squash=0\n"
    assert [record[0] for record in rows(repo)] == ["O-001", "O-002"]


def test_the_hook_repairs_a_merge_made_without_the_driver(repo: Path) -> None:
    """A clone whose attribute line is not committed yet still gets repaired by the hook."""
    init_memory(repo, driver=True)
    (repo / ".gitattributes").write_text(".planning/memory/*.md merge=union\n")
    commit(repo, "union merges")
    git(repo, "checkout", "-q", "-b", "feature")
    add_outcome(repo, "feature", "feature")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    add_outcome(repo, "main", "main")
    commit(repo, "main")
    done = run_git(repo, "merge", "--no-edit", "feature")
    assert done.returncode == 0
    assert done.stderr.splitlines()[-2:] == [
        "repaired .planning/memory/OUTCOMES.md:10: renumbered duplicate O-001 to O-002",
        "legion-memory: committed the repair of .planning/memory as its own commit",
    ]
    # Same date: `feature` sorts before `main`, so main's row takes the next number.
    assert rows(repo) == [("O-002", "main", "main"), ("O-001", "feature", "feature")]
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "-1", "--format=%s") == (
        "Repair .planning/memory after post-merge (legion-memory doctor --fix)\n"
    )


def test_install_refuses_when_a_chained_hook_is_already_there(cli: CLI, repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    (hooks / "post-merge").write_text("#!/bin/sh\n")
    (hooks / "post-merge.legion-memory-chained").write_text("#!/bin/sh\n")
    before = _state(repo)
    result = cli("git", "install", cwd=repo)
    assert result.code == 1
    assert result.stderr == (
        f"Error: {hooks}: both post-merge and post-merge.legion-memory-chained exist "
        "(move post-merge.legion-memory-chained away, then install again)\n"
    )
    # The attribute and config steps ran before the refusal; the hooks are untouched.
    assert _state(repo)["hooks"] == before["hooks"]


def test_outside_a_git_working_tree_is_one_line_exit_1(cli: CLI, tmp_path: Path) -> None:
    result = cli("--root", str(tmp_path), "git", "install", cwd=tmp_path)
    assert result.code == 1
    assert result.stderr == (
        f"Error: {tmp_path}: not inside a git working tree (run it inside a git clone)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_custom_command_reaches_the_driver_and_the_hooks(cli: CLI, repo: Path) -> None:
    cli("git", "install", "--command", COMMAND, cwd=repo)
    driver = git(repo, "config", "--get", "merge.legion-memory.driver").strip()
    assert driver.startswith(f"{COMMAND} git merge-driver %O %A %B %L %P && exit 0; ")
    hook = (repo / ".git" / "hooks" / "post-rewrite").read_text()
    assert f"{COMMAND} doctor --fix --quiet" in hook


def test_the_hook_fast_path_knows_the_hooks_install_writes() -> None:
    from legion_memory.cli.lean import hook
    from legion_memory.gitops import install

    assert hook.HOOK_NAMES == install.HOOKS
    assert install.HOOK_MARK.encode() == hook.HOOK_MARK
    assert install.HOOK_FORMAT.encode() == hook.HOOK_FORMAT


def _removed(hook: Path) -> None:
    hook.unlink()


def _of_an_older_format(hook: Path) -> None:
    older = hook.read_text(encoding="utf-8").replace(HOOK_FORMAT + "\n", "")
    hook.write_text(older, encoding="utf-8")


@pytest.mark.parametrize(
    ("outdate", "reinstalled"),
    [(_removed, "installed"), (_of_an_older_format, "updated")],
    ids=["a hook added since", "a hook changed since"],
)
def test_a_clone_whose_hooks_are_out_of_date_is_told_to_install_again(
    cli: CLI, repo: Path, outdate: Callable[[Path], None], reinstalled: str
) -> None:
    init_memory(repo, driver=False)
    cli("git", "install", cwd=repo)
    outdate(repo / ".git" / "hooks" / "post-commit")
    before = read_bytes_of(repo)

    stale = cli("doctor", "--fix", "--quiet", cwd=repo)

    assert (stale.code, stale.stdout) == (0, "")
    assert stale.stderr == (
        "legion-memory: this clone's git hooks are out of date; run: legion-memory git install\n"
    )
    assert read_bytes_of(repo) == before
    assert cli("git", "install", cwd=repo).stdout == f"{reinstalled} .git/hooks/post-commit\n"
    assert cli("doctor", "--fix", "--quiet", cwd=repo).stderr == ""


def test_install_leaves_a_clone_s_own_am_three_way_and_uninstall_keeps_it(
    cli: CLI, repo: Path
) -> None:
    git(repo, "config", "am.threeWay", "false")
    assert "am.threeWay" not in cli("git", "install", cwd=repo).stdout
    assert git(repo, "config", "--get", "am.threeWay") == "false\n"
    git(repo, "config", "am.threeWay", "true")  # the user's own, set after install
    assert "am.threeWay" not in cli("git", "install", "--uninstall", cwd=repo).stdout
    assert git(repo, "config", "--get", "am.threeWay") == "true\n"


def test_uninstall_removes_the_am_three_way_install_set(cli: CLI, repo: Path) -> None:
    before = _state(repo)
    cli("git", "install", cwd=repo)
    assert git(repo, "config", "--get", "am.threeWay") == "true\n"
    result = cli("git", "install", "--uninstall", cwd=repo)
    assert "removed git config am.threeWay" in result.stdout.splitlines()
    assert _state(repo) == before
