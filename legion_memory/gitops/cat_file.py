"""What `git cat-file --batch` prints, read back: for each name asked, in order,
`<sha> <type> <size>\\n<content>\\n`, or `<name> missing` (or `ambiguous`)."""

from collections.abc import Sequence
from pathlib import Path

from legion_memory.named_tuple import NamedTuple


class GitObject(NamedTuple):
    type: bytes  # b"blob", b"commit", b"tree", b"tag"
    content: bytes


def batch_objects(output: bytes, count: int) -> list[GitObject | None]:
    """The objects printed for `count` names, None for each name git has no object for."""
    found: list[GitObject | None] = []
    position = 0
    while len(found) < count and position < len(output):
        end = output.index(b"\n", position)
        header = output[position:end].split()
        position = end + 1
        if len(header) != 3 or not header[2].isdigit():  # `<name> missing`
            found.append(None)
            continue
        size = int(header[2])
        found.append(GitObject(header[1], output[position : position + size]))
        position += size + 1
    return found + [None] * (count - len(found))


def blob_text(found: GitObject | None) -> str | None:
    """A blob's text (undecodable bytes replaced); None for anything else."""
    if found is None or found.type != b"blob":
        return None
    return found.content.decode("utf-8", "replace")


def blob_texts(start: Path, asked: Sequence[str]) -> list[str | None] | None:
    """The text of each object name asked (`HEAD^:path`, a blob's hash), None for one git has
    not; None for all when git cannot be run. One `git cat-file --batch` for the names not read
    before in this process (`settled_answers`: a file at a commit named by its full name)."""
    from legion_memory.gitops import settled_answers

    keys = [settled_answers.text_key(name, start) for name in asked]
    known = [settled_answers.text(key) if key else None for key in keys]
    missing = [name for name, held in zip(asked, known, strict=True) if held is None]
    read = _read_batch(start, missing) if missing else []
    if read is None:
        return None
    fresh = iter(read)
    texts = [held if held is not None else next(fresh) for held in known]
    for key, held, found in zip(keys, known, texts, strict=True):
        if key is not None and held is None and found is not None:
            settled_answers.keep_text(key, found)
    return texts


def _read_batch(start: Path, asked: Sequence[str]) -> list[str | None] | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "cat-file", "--batch"],
            cwd=start,
            input="".join(f"{line}\n" for line in asked).encode(),
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return [blob_text(found) for found in batch_objects(done.stdout, len(asked))]
