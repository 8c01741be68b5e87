"""Commits that stand for others. A squash names the commits it folded (git's own message of
`merge --squash`, or this clone's note of a `rebase -i` fold); a rebase or a pick writes a copy
that keeps the author, the author's date and the message (the copy key), not the hash."""

from collections.abc import Iterable
from pathlib import Path

from legion_memory.gitops.branch import run_git
from legion_memory.gitops.folded_commits import folded_by
from legion_memory.gitops.repository import Replay

_UPSTREAM_LIMIT = 500  # upstream commits read for the changes it already made, newest first


SQUASHED = "Squashed commit of the following:"


def upstream_commits(start: Path, replay: Replay, directory: Path) -> tuple[str, ...]:
    """The replay's upstream: the commits of its `onto` that changed `directory` and its `apart`
    commits do not reach (newest first, at most `_UPSTREAM_LIMIT`), and the commits a squash
    among them names: `git merge --squash` lists them (`commit <sha>` lines under "Squashed
    commit of the following:") in the message `git commit` then takes, so a squash's folded
    changes (a forget, and the restore that undid it) count as the upstream's. Asked only when
    a record may have been replayed stale: the hook of every rebase reads no more than that."""
    limit = f"--max-count={_UPSTREAM_LIMIT}"
    revs = [replay.onto, "--not", *replay.apart, "--", str(directory)]
    # In full: by default git leaves out a merged branch whose files ended as the first parent
    # has them, and with it the changes it made (a forget and the restore that undid it).
    listed = run_git(["rev-list", "--full-history", limit, *revs], start)
    commits = (listed or "").split()
    if not commits:
        return ()
    shown = run_git(["show", "-s", "--format=%B%x00", *commits], start) or ""
    return (*commits, *squashed_in(shown.split("\0")))


def squashed_in(messages: Iterable[str]) -> list[str]:
    """The commits squashes name, as git's own message of `merge --squash` lists them (`commit
    <sha>` lines under "Squashed commit of the following:"), in the order the messages list them."""
    named = []
    for message in messages:
        if SQUASHED in message:
            lines = message.partition(SQUASHED)[2].splitlines()
            named += [line[7:].strip() for line in lines if line.startswith("commit ")]
    return [sha for sha in named if len(sha) == 40 and sha.isalnum()]


def squashes_of(start: Path, revs: str) -> dict[str, list[str]] | None:
    """The squashes of `revs` (a revision or a range) whose message is git's own, each with the
    commits it names (`squashed_in`), by full hash, and the commits this clone's `rebase -i`
    folded others into, with those (`gitops.folded_commits`); None when git cannot say."""
    listed = run_git(
        ["log", "--format=%x01%H%n%B", "--fixed-strings", f"--grep={SQUASHED}", revs], start
    )
    if listed is None:
        return None
    entries = (entry.partition("\n") for entry in listed.split("\x01") if entry.strip())
    squashes = {sha: squashed_in([message]) for sha, _, message in entries}
    named = {sha for names in squashes.values() for sha in names}
    for new, folded in folded_by(start, revs, named).items():
        squashes[new] = [*squashes.get(new, []), *folded]
    return squashes


COPY_KEY = "%ae %at %s"
"""What a copy of a commit keeps (a rebase or a pick keeps the author, the author's date and the
message, not the hash), as `git log --format` gives it."""
HASH_AND_COPY_KEY = f"%H {COPY_KEY}"


def copy_keys_listed(listed: str | None) -> dict[str, str]:
    """Each commit's copy key by full hash, from `git log --format=HASH_AND_COPY_KEY` output."""
    return {line[:40]: line[41:] for line in (listed or "").splitlines() if line}


def copies_in_history(start: Path, rev: str, keys: set[str], directory: Path) -> dict[str, str]:
    """The commits of `rev`'s history (its newest `_UPSTREAM_LIMIT` that changed `directory`,
    merges aside) whose author, author date and message are one of `keys` (what a copy of a
    commit keeps), each with that key."""
    if not keys:
        return {}
    listed = run_git(
        ["log", "--full-history", "--no-merges", f"--max-count={_UPSTREAM_LIMIT}",
         f"--format={HASH_AND_COPY_KEY}", rev, "--", str(directory)],
        start,
    )  # fmt: skip
    return {commit: key for commit, key in copy_keys_listed(listed).items() if key in keys}
