"""What a killed writer leaves in the memory directory: a journal to roll back, temporary files
to delete. `doctor` finds and repairs them; taking the lock (`locking.locked`) rolls a journal
back anyway."""

from pathlib import Path

from legion_memory.storage.files import TEMP_PREFIX, TEMP_SUFFIX, remove
from legion_memory.storage.locking import locked
from legion_memory.storage.reading import Memory
from legion_memory.storage.writing import journal_files


def recover(memory: Memory) -> list[str]:
    """Roll back a change a killed process left half done; the files restored (relative paths)."""
    if not memory.journal_path.exists():
        return []
    with locked(memory) as restored:
        return restored


def leftover_journal(memory: Memory) -> list[str] | None:
    """What rolling back a journal left by a killed process would restore, read without the lock
    (None: no journal); RollbackError when it cannot be rolled back automatically."""
    from legion_memory.storage import journal

    return journal.pending(memory.journal_path, journal_files())


def stray_temp_files(memory: Memory) -> list[Path]:
    """Temporary files a killed writer left in the memory directory."""
    return sorted(memory.directory.glob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"))


def remove_stray_temp_files(memory: Memory) -> list[Path]:
    """Delete them under the lock: every write holds it, so none is a write in progress."""
    if not stray_temp_files(memory):
        return []  # nothing to do: no lock taken
    with locked(memory):
        strays = stray_temp_files(memory)
        for path in strays:
            remove(path)
    return strays
