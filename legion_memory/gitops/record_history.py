"""How often each side of an integration moved a record into or out of ARCHIVE.md, or wrote a
version of it, since the two sides parted, asked of git's pickaxe.

A forget or a restore is one move. Rebased and picked copies of commits make a merge's base stale:
one side may have forgotten a record and restored it again, after the very forget the other side
still holds, while base says only "ours kept it, theirs forgot it". The side that moved the record
more often since they parted has seen the other's move and made one more: its state is the later
one (docs/decisions.md#archive-moves). Likewise for an error fix updated in place: the side whose
commits wrote, then replaced, the very version the other side holds has seen it and changed it
since (docs/decisions.md#later-version).
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from legion_memory.gitops.commit_copies import HASH_AND_COPY_KEY, copy_keys_listed, squashes_of
from legion_memory.gitops.rebase_state import rebase_started_from
from legion_memory.gitops.record_moves import count_change, way_moved
from legion_memory.gitops.repository import run_git

KeptLater = Callable[[str, str], bool]
"""(the record's row text, `schema.identity.history_text`; the side that keeps it: "ours" or
"theirs") -> whether that side's state of the record is later than the other side's removal."""
LaterVersion = Callable[[str, str], str | None]
"""(ours's and theirs's row texts of one record, each side's own version) -> the side holding
the later version, "ours" or "theirs"; None when the history does not say."""
VersionSeen = Callable[[str, str], bool]
"""(a row's text after its ID, a side) -> whether that side's history since the sides parted
wrote or replaced that very version."""


def any_changed(start: Path, commits: Sequence[str], path: Path) -> bool:
    """Whether one of `commits` changed the file `path` (True when git cannot say)."""
    if not commits:
        return False
    listed = run_git(
        ["log", "--no-walk=unsorted", "--format=%H", *commits, "--", path.resolve().as_posix()],
        start,
    )
    return listed is None or bool(listed.split())


def commits_changing(
    start: Path, commits: Sequence[str], row_texts: Sequence[str], directory: Path
) -> list[str]:
    """Of `commits`, in their order, those that changed how often one of `row_texts` occurs in
    a file of `directory` (a merge: against either parent), one pickaxe call per text: the only
    commits whose versions can hold a change of those records. All of them when git cannot say."""
    if not commits or not row_texts:
        return []
    found: set[str] = set()
    for text in row_texts:
        listed = run_git(
            ["log", "--no-walk=unsorted", "-m", "--format=%H", f"-S{text}", *commits, "--",
             directory.resolve().as_posix()],
            start,
        )  # fmt: skip
        if listed is None:
            return list(commits)
        found.update(listed.split())
    return [commit for commit in commits if commit in found]


def copy_keys(start: Path, commits: Sequence[str]) -> dict[str, str] | None:
    """What a copy of each of `commits` keeps (a rebase or a pick keeps the author, the author's
    date and the message, not the hash), by full hash; None when git cannot say."""
    if not commits:
        return {}
    # A squash names commits of the clone that made it, which this one may never have fetched.
    listed = run_git(
        [
            "log",
            "--no-walk=unsorted",
            "--ignore-missing",
            f"--format={HASH_AND_COPY_KEY}",
            *commits,
        ],
        start,
    )
    return None if listed is None else copy_keys_listed(listed)


def tip_holding(start: Path, onto: str) -> str | None:
    """The tip a rebase just done started from, when its history already held
    `onto`: the rebase brought nothing new and only replayed the branch's own commits, its merges
    flattened (`git pull --rebase` with nothing to pull). None otherwise."""
    before = (rebase_started_from(start) or "").strip()
    if not before:
        return None
    held = run_git(["merge-base", "--is-ancestor", onto, before], start)
    return before if held is not None else None


def parting(start: Path, sides: Sequence[str]) -> str | None:
    """The commit where the sides parted (their merge base), None when git knows none."""
    found = run_git(["merge-base", "--octopus", *sides], start)
    return found.split()[0] if found else None


def changes_since(start: Path, base: str, side: str, path: Path, row_text: str) -> int | None:
    """How many of `side`'s commits since `base` changed how often `row_text` occurs in `path`
    (`commits_since_changing`); None when git cannot say."""
    commits = commits_since_changing(start, base, side, path, row_text)
    return None if commits is None else len(commits)


def commits_since_changing(
    start: Path, base: str, side: str, path: Path, row_text: str
) -> list[str] | None:
    """`side`'s commits since `base` that changed how often `row_text` (a row after its ID,
    `schema.identity.history_text`) occurs in `path`: wrote or replaced that very version there;
    merges are not among them (their changes are the commits they merge). None when git cannot
    say. Every history is walked in full: by default git skips a merged branch whose file ended
    as the merge's first parent has it, commits and all."""
    listed = run_git(
        ["log", "--full-history", "--format=%H", f"-S{row_text}", f"{base}..{side}", "--",
         path.resolve().as_posix()],
        start,
    )  # fmt: skip
    return None if listed is None else listed.split()


def most_moved(
    start: Path, base: str, sides: Sequence[str], archive: Path, row_text: str
) -> set[str] | None:
    """The sides holding the record's later state: those with the most moves since `base` after
    the newest of their moves every other side has seen, then with the most moves of all since
    `base`. A move of one side is seen, and not counted, when every other side's history holds
    it or a copy of it (a move all have seen tells none apart); what a side did before a move
    the others have seen cannot outweigh what they did after it (docs/decisions.md#archive-moves).
    None when git cannot say for one of them."""
    since = {side: _side_moves(start, f"{base}..{side}", archive, row_text) for side in sides}
    whole = {side: _side_moves(start, side, archive, row_text) for side in sides}
    if any(moves is None for moves in (*since.values(), *whole.values())):
        return None
    ranks = {}
    for side in sides:
        moves, others = since[side] or [], [whole[other] or [] for other in sides if other != side]
        held = [_held(moves, other) for other in others]
        unseen = sum(not all(i in seen for seen in held) for i in range(len(moves)))
        ranks[side] = (_newer_than_seen(moves, others), unseen)
    best = max(ranks.values(), default=(0, 0))
    tied = {side for side, rank in ranks.items() if rank == best}
    return _moved_last(tied, since, best[0]) if best[0] and len(tied) > 1 else tied


def _moved_last(
    sides: set[str], since: Mapping[str, list[tuple[str, str]] | None], newer: int
) -> set[str]:
    """Of sides tied by moves the others have not seen (each side's `newer` newest), those whose
    newest such move was made last, by its author's date (which a copy keeps): a branch that
    folded its forget into its store (`rebase -i`, squash) and restored since holds a move the
    other side's copy of that forget cannot be matched with, yet the restore came after it (seed
    8016 of the collaboration simulation's `--merges-kinds`). Moves made in one second stay a
    tie, which archiving wins."""
    made = {side: max(_authored(copy) for _, copy in (since[side] or [])[:newer]) for side in sides}
    newest = max(made.values())
    return {side for side, at in made.items() if at == newest}


def _authored(copy: str) -> int:
    """The author's date in a move's copy key (`%ae %at %s ...`)."""
    parts = copy.split(" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def _newer_than_seen(moves: list[tuple[str, str]], others: list[list[tuple[str, str]]]) -> int:
    """How many of `moves` (newest first) are newer than the newest one every other side holds,
    itself or as a copy of any of its commits: main picked a branch's forget and restore three
    times over, the branch then forgot the record again; main's later copies replay moves the
    branch made, and the branch's new forget is the later state (seed 5041 of the collaboration
    simulation's --stash-kinds)."""
    held = [{part for move in other for part in move} for other in others]
    return next(
        (i for i, (sha, copy) in enumerate(moves) if all({sha, copy} & seen for seen in held)),
        len(moves),
    )


def _held(moves: list[tuple[str, str]], other: list[tuple[str, str]]) -> set[int]:
    """The indexes of `moves` (one side's) that `other` (another side's whole history of moves)
    holds, itself or as a copy. Each of the other's commits stands for one move only: moves alike
    by what a copy keeps (a forget, a restore and a forget again within one second with one
    subject) need a copy each, or one side's second restore passes for a copy of the other's
    first (seed 4041 of the collaboration simulation). A commit held itself is matched first."""
    shas = {sha for sha, _ in other}
    copies = Counter(copy for _, copy in other)
    held = {i for i, (sha, _) in enumerate(moves) if sha in shas}
    copies.subtract(moves[i][1] for i in held)
    for i in range(len(moves) - 1, -1, -1):  # oldest first: `_side_moves` lists the newest first
        if i not in held and copies[moves[i][1]] > 0:
            copies[moves[i][1]] -= 1
            held.add(i)
    return held


def _side_moves(start: Path, revs: str, path: Path, row_text: str) -> list[tuple[str, str]] | None:
    """The moves of `revs`'s commits, newest first, a squash (git's own message of `merge
    --squash`) or a noted fold standing for the commits it names: a squash of a forget and the
    restore that undid it moves nothing in its own diff, yet its side made both moves, and a
    copy of that forget arriving from another branch is one of them
    (docs/decisions.md#archive-moves). None when git cannot say."""
    own = _moves(start, ["--full-history", revs], path, row_text)
    squashes = squashes_of(start, revs)
    if own is None or squashes is None:
        return None
    held = {sha for sha, _ in own}
    named = [sha for names in squashes.values() for sha in names]
    folded = [sha for sha in dict.fromkeys(named) if sha not in held]
    # A squash names commits of the clone that made it, which this one may never have fetched.
    listed = ["--no-walk=unsorted", "--ignore-missing", *folded]
    moved = _moves(start, listed, path, row_text) if folded else []
    if moved is None:
        return None
    # A squash's own move is the sum of those it names: counted once, by the commits that made it.
    movers = held | {sha for sha, _ in moved}
    standing_for = {squash for squash, names in squashes.items() if movers.intersection(names)}
    moves = [move for move in (*own, *_since(start, revs, moved)) if move[0] not in standing_for]
    return _newest_first(moves)


def _newest_first(moves: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The moves in the order they were made, newest first: by the author's date, which a copy
    keeps, not by when each commit was written, which is the order git lists them in. A side
    that replayed a branch's older moves after its own later forget (`pull --rebase`) lists the
    copies above it, and that forget passed for older than a move the other side holds (seed
    12512 of the collaboration simulation's `--stacked-kinds`); the commits a squash names come
    in the squash's order. Moves made in one second keep git's order."""
    return sorted(moves, key=lambda move: _authored(move[1]), reverse=True)


def _since(start: Path, revs: str, moved: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of the moves of commits a squash in `revs` names, those `revs` does not start after: a
    squash made after two sides parted may name commits they both hold (a branch squashed into
    main, then merged too), whose moves are no side's since (seed 12002 of the collaboration
    simulation's `--stacked-kinds` counted one for main and kept a record archived)."""
    after, dots, _ = revs.partition("..")
    if not dots or not moved:
        return moved
    return [
        move
        for move in moved
        if run_git(["merge-base", "--is-ancestor", move[0], after], start) is None
    ]


def _moves(
    start: Path, revs: Sequence[str], path: Path, row_text: str
) -> list[tuple[str, str]] | None:
    """The commits of `revs` that moved the record (its row `row_text`, after the ID) between
    ARCHIVE.md (`path`) and a live file beside it, each as (its hash, what a copy of it keeps):
    a rebase or a pick keeps the author, the author's date and the message, not the hash, and
    moves the record the way the original did (docs/decisions.md#archive-moves); the key ends in
    that way, so a forget and the restore after it, made in one second with one subject, are no
    copies of each other (seed 4017 of the collaboration simulation). A merge is asked against
    each parent (`-m`): pickaxe looks at no merge's diff otherwise, yet a forget or a restore
    made before committing a `merge --no-commit` is the merge's own move, also when it undid a
    parent's move (`gitops.merge_own_moves`)."""
    listed = run_git(
        ["log", "-m", "--format=%x01%H%x00%P%x00%ae %at %s", "-p", "--unified=0", "--no-color",
         "--no-ext-diff", "--no-textconv", f"-S{row_text}", *revs, "--",
         path.resolve().parent.as_posix()],
        start,
    )  # fmt: skip
    if listed is None:
        return None
    changes: dict[tuple[str, str], list[tuple[int, int]]] = {}
    parents: dict[str, list[str]] = {}
    for entry in listed.split("\x01"):
        if entry.strip():
            head, _, patch = entry.partition("\n")
            sha, parent_list, copy = head.split("\0", 2)
            parents[sha] = parent_list.split()
            changes.setdefault((sha, copy), []).append(count_change(patch, row_text, path.name))
    moved = (
        (sha, copy, way_moved(start, (sha, parents[sha]), against, path, row_text))
        for (sha, copy), against in changes.items()
    )
    return [(sha, f"{copy} {way}") for sha, copy, way in moved if way]


def kept_later_in_merge(start: Path, archive: Path, theirs: str, ours: str = "HEAD") -> KeptLater:
    """For a `git merge` of `theirs` into `ours` (HEAD, or an octopus step's commit): whether the
    side that kept a record (unchanged) moved it more often since the sides parted than the side
    that removed it. Git is asked only when a merge has such a record."""
    revs = {"ours": ours, "theirs": theirs}
    base_of = _parting_once(start, revs)

    def kept_later(text: str, side: str) -> bool:
        base = base_of() if text else None
        if base is None:
            return False
        return most_moved(start, base, list(revs.values()), archive, text) == {revs[side]}

    return kept_later


def version_seen_in_merge(start: Path, path: Path, theirs: str, ours: str = "HEAD") -> VersionSeen:
    """For a `git merge` of `theirs` into `ours` (HEAD, or an octopus step's commit): whether a
    side's commits since the sides parted wrote or replaced a row's very version in `path` (that
    side saw the version, and what it holds now came after it). Git is asked only when a merge
    has such a record."""
    revs = {"ours": ours, "theirs": theirs}
    base_of = _parting_once(start, revs)

    def seen(text: str, side: str) -> bool:
        base = base_of() if text else None
        return base is not None and bool(changes_since(start, base, revs[side], path, text))

    return seen


def later_version_in_merge(
    start: Path, path: Path, theirs: str, ours: str = "HEAD"
) -> LaterVersion:
    """For a `git merge` of `theirs` into `ours` (HEAD, or an octopus step's commit)."""
    return later_version(version_seen_in_merge(start, path, theirs, ours))


def later_version(seen: VersionSeen) -> LaterVersion:
    """Of a record both sides hold in versions of their own: the side whose commits since the
    sides parted wrote or replaced the other side's version (it saw that version and changed it
    since), when only one side did."""

    def later(ours_text: str, theirs_text: str) -> str | None:
        if not (ours_text and theirs_text):
            return None
        other = {"ours": theirs_text, "theirs": ours_text}
        sides = [side for side in ("ours", "theirs") if seen(other[side], side)]
        return sides[0] if len(sides) == 1 else None

    return later


def later_in_series(later: LaterVersion, start: Path, path: Path, replayed: str) -> LaterVersion:
    """`later`, and where it cannot say, in a replay of one commit of a series (its end,
    `gitops.series_tip`, asked only then): ours holds the version the series' own later commits
    wrote in place of the replayed commit's, so ours's is the later one. Ours took the series'
    end before (a squash, a `cherry-pick -n`), so its history never held the replayed commit's
    version, and the replay of it is stale (docs/decisions.md#later-version)."""

    def found(ours_text: str, theirs_text: str) -> str | None:
        said = later(ours_text, theirs_text)
        if said is not None or not (ours_text and theirs_text):
            return said
        from legion_memory.gitops.series_tip import series_tip

        end = series_tip(start, replayed)
        if end is None:
            return None
        replaced = changes_since(start, replayed, end, path, theirs_text)
        wrote = replaced and changes_since(start, replayed, end, path, ours_text)
        return "ours" if wrote else None

    return found


def _parting_once(start: Path, revs: dict[str, str]) -> Callable[[], str | None]:
    """Where the merge's sides parted, asked of git at the first call only (a merge with no
    record to weigh asks nothing)."""
    found: list[str | None] = []

    def base() -> str | None:
        if not found:
            found.append(parting(start, list(revs.values())))
        return found[0]

    return base
