"""Running one git command for its output by `os.posix_spawnp` and a pipe, without `subprocess`
(docs/decisions.md#git-without-subprocess)."""

import os
import select
import time
from pathlib import Path

TIMEOUT_SECONDS = 30.0
"""As long as `run_git` waits for git."""
_MAX_GIVEN = 16384
"""Input written before the output is read: well within a pipe's buffer, so that git never waits
for its output to be read while the input is still being written."""


def git_stdout(args: list[str], cwd: Path, given: bytes = b"") -> bytes | None:
    """git's stdout run in `cwd` with `given` on its stdin (stderr dropped); None when git cannot
    start, fails or takes longer than TIMEOUT_SECONDS."""
    if len(given) > _MAX_GIVEN:
        raise ValueError("git_stdout writes at most 16 KiB to git")
    null = os.open(os.devnull, os.O_RDWR)
    stdin_read, stdin_write = os.pipe() if given else (null, -1)
    stdout_read, stdout_write = os.pipe()
    try:
        actions = [(os.POSIX_SPAWN_DUP2, stdin_read, 0), (os.POSIX_SPAWN_DUP2, stdout_write, 1)]
        actions.append((os.POSIX_SPAWN_DUP2, null, 2))
        try:
            pid = os.posix_spawnp("git", ["git", "-C", str(cwd), *args], os.environ,
                                  file_actions=actions)  # fmt: skip
        except OSError:
            for descriptor in (stdout_read, stdin_write):
                if descriptor >= 0:
                    os.close(descriptor)
            return None
    finally:
        for descriptor in {null, stdin_read, stdout_write}:
            os.close(descriptor)
    return _output_of(pid, stdout_read, stdin_write, given)


def _output_of(pid: int, stdout: int, stdin: int, given: bytes) -> bytes | None:
    """Writes `given` to the child's stdin, reads its stdout to the end, and reaps it; the child
    is killed if this takes too long or is interrupted (Ctrl-C)."""
    finished = False
    try:
        if stdin >= 0:
            # Not contextlib.suppress: importing contextlib costs the lean commands' start.
            try:  # noqa: SIM105
                os.write(stdin, given)
            except BrokenPipeError:  # git ended without reading it: its exit status says why
                pass
            os.close(stdin)
            stdin = -1
        output = _read_all(stdout, time.monotonic() + TIMEOUT_SECONDS)
        if output is None:
            return None
        _, status = os.waitpid(pid, 0)
        finished = True
        return output if os.waitstatus_to_exitcode(status) == 0 else None
    finally:
        if stdin >= 0:
            os.close(stdin)
        os.close(stdout)
        if not finished:
            _kill(pid)


def _read_all(descriptor: int, deadline: float) -> bytes | None:
    """Everything read from `descriptor` until its end; None past the deadline."""
    poller = select.poll()
    poller.register(descriptor, select.POLLIN)
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return None
        chunk = os.read(descriptor, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
