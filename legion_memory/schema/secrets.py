"""Refusal of values that look like credentials: memory is committed to git and read by agents."""

from __future__ import annotations

import re

from legion_memory.errors import InputError

# Patterns, not compiled regexes: `re` compiles them on the first store (and caches them), so
# that commands that only read memory do not pay for compiling them at import.
_SECRETS = (
    ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----"),
    ("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("OpenAI-style API key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),
    (
        "password or API key assignment",
        # A reference such as $DB_PASSWORD, ${TOKEN} or <password> is not a secret.
        r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
        r"\s*[:=]\s*[\"']?(?![$<{*])[^\s\"'`,;]{4,}",
    ),
)


def secret_kind(value: str) -> str | None:
    """The kind of credential `value` seems to hold, or None."""
    return next((kind for kind, pattern in _SECRETS if re.search(pattern, value)), None)


def refuse_secrets(field: str, value: str) -> None:
    """InputError naming the field and the kind of secret; the value itself is never echoed."""
    kind = secret_kind(value)
    if kind is not None:
        raise InputError(
            f"{field} looks like it contains a {kind}; secrets are never stored in memory",
            hint="remove it and describe the change instead (e.g. 'rotated the API key')",
        )
