"""What a doctor check reports: where, and what is wrong there."""

from typing import NamedTuple


class Finding(NamedTuple):
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"
