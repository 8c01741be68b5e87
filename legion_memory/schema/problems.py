"""A finding of `validate`: a file, a line, a severity and what is wrong there."""

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
