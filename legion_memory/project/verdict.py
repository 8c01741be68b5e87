"""A plan's verdict: the status its SUMMARY declares and the failure counts it states, read once
for both `store outcome --from-summary` and compaction.

A plan passes when its status says complete and no non-zero failure count is stated; a failure
called pre-existing, expected or unrelated is not this plan's (docs/decisions.md#plan-verdict).
"""

import re

PASS = "pass"
FAIL = "fail"
UNKNOWN = "unknown"
SUCCESS = "success"
PARTIAL = "partial"
FAILED = "failed"

# Checked in order: "Partially complete" is partial and "Incomplete" is not a success; a
# complete status that leaves work deferred or gaps open (`complete-local (device steps
# deferred)`, `complete-with-gaps`) did part of the plan.
_STATUS_WORDS = (
    ("partial", PARTIAL),
    ("deferred", PARTIAL),
    ("with gaps", PARTIAL),
    ("gaps found", PARTIAL),
    ("gaps remain", PARTIAL),
    ("incomplete", PARTIAL),
    ("not complete", PARTIAL),
    ("in progress", PARTIAL),
    ("fail", FAILED),
    ("block", FAILED),
    ("abandon", FAILED),
    ("complete", SUCCESS),
    ("done", SUCCESS),
    ("success", SUCCESS),
    ("pass", SUCCESS),
    ("shipped", SUCCESS),
)
_NOT_THIS_PLAN = re.compile(r"pre-?existing|expected|unrelated|known|flaky", re.IGNORECASE)
_COUNTED = re.compile(
    r"\b(\d+)\s+(?:\w+\s+)?(?:tests?\s+|checks?\s+|assertions?\s+)?"
    r"(?:failed|failing|failures?|fails?)\b"
)
_LABELLED_COUNT = re.compile(r"\b(?:fail(?:ed|ures?|ing)?)\b\s*[:=|]?\s*(\d+)\b")
_RATIO = re.compile(r"\b(\d+)\s*/\s*(\d+)\b(?=[^/\n]{0,40}\b(?:pass(?:ed|ing)?|succeeded|ok)\b)")
_FAILED_MARK = re.compile(r"^(?:[-*]\s*)?(?:❌|✗|fail(?:ed)?\b\s*[:—-]|self-check\s*:\s*fail)")
_PASSED = re.compile(r"\b(?:pass(?:ed|es|ing)?|succeeded|verified|found)\b|✅|✓|✔")


def outcome_of_status(status: str) -> str | None:
    """`Complete` -> success, `Partially complete` -> partial, `Failed` -> failed, else None."""
    folded = re.sub(r"[-_]", " ", status.casefold())  # `complete-with-gaps`, `gaps_found`
    return next((outcome for word, outcome in _STATUS_WORDS if word in folded), None)


def stated_failures(line: str, *, shortfalls: bool = True) -> int:
    """The failure count a result line states for this plan: `3 failed` -> 3, node's
    `fail 0` -> 0, `11/12 tests pass` -> 1, `Self-Check: FAILED` -> 1; 0 when it states none
    or calls its failures pre-existing, expected or unrelated. Without `shortfalls`, a ratio
    below its total (explained elsewhere as pre-existing) is not counted."""
    lowered = line.casefold()
    if _NOT_THIS_PLAN.search(lowered):
        return 0
    counts = [int(found) for found in _COUNTED.findall(lowered)]
    counts += [int(found) for found in _LABELLED_COUNT.findall(lowered)]
    if shortfalls:
        counts += [int(total) - int(done) for done, total in _RATIO.findall(lowered)]
    found = max([0, *counts])
    if not found and _FAILED_MARK.match(lowered.strip()):
        return 1
    return found


def _explained_failure(line: str) -> bool:
    return _NOT_THIS_PLAN.search(line) is not None and re.search(r"fail", line, re.I) is not None


def verdict(status: str, results: list[str]) -> str:
    """FAIL when the status says failed or partial or a line states a failure count; PASS when
    the status says complete or a result line reports a pass; else UNKNOWN."""
    declared = outcome_of_status(status) if status else None
    if declared in {FAILED, PARTIAL}:
        return FAIL
    explained = declared == SUCCESS and any(_explained_failure(line) for line in results)
    if any(stated_failures(line, shortfalls=not explained) for line in results):
        return FAIL
    if declared == SUCCESS or any(_PASSED.search(line.casefold()) for line in results):
        return PASS
    return UNKNOWN


def outcome(status: str, plan_verdict: str) -> str | None:
    """The outcome to store: the declared failure or partial; `partial` for a plan declared
    complete that states failures; success for a pass; None when nothing tells."""
    declared = outcome_of_status(status) if status else None
    if declared in {FAILED, PARTIAL}:
        return declared
    if plan_verdict == FAIL:
        return PARTIAL if declared == SUCCESS else FAILED
    return SUCCESS if plan_verdict == PASS else None
