"""A finding of `validate`: a file, a line, a severity and what is wrong there."""

from collections.abc import Iterable

from legion_memory.named_tuple import NamedTuple

ERROR = "error"
WARNING = "warning"
NOTE = "note"


class Problem(NamedTuple):
    path: str
    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.path,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
        }


def duplicate_ids(path: str, held: Iterable[tuple[int, str]]) -> list[Problem]:
    """An error for each line (0-based index, given in order) whose ID an earlier line holds."""
    first_line: dict[str, int] = {}
    found = []
    for index, record_id in held:
        if record_id in first_line:
            message = f"duplicate ID {record_id} (also on line {first_line[record_id]})"
            found.append(Problem(path, index + 1, ERROR, message))
        else:
            first_line[record_id] = index + 1
    return found
