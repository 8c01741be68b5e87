"""The outcome a SUMMARY file reports, for `store outcome --from-summary`: plan, agent, status.

Legion writes SUMMARY files in three styles: plain headings (`## Status: Complete`,
`## Agent: engineering-backend-architect`), the wave-executor template (`## Agent` with the ID on
the next line) and YAML front-matter (`phase:`/`plan:` keys, no agent; the plan's own front-matter
names its agents or says `autonomous: true`). Each fact is looked for in that order of reliability
and left None when the file does not say.
"""

import re
from pathlib import Path
from typing import NamedTuple

from legion_memory.errors import InputError
from legion_memory.markdown.frontmatter import Value, split_front_matter, strings

_PLAN_IN_TEXT = re.compile(r"\bPlan\s+(\d+)-(\d+)\b", re.IGNORECASE)
_PHASE_PLAN_IN_TEXT = re.compile(r"\bPhase\s+(\d+)\s+Plan\s+(\d+)\b", re.IGNORECASE)
_PLAN_IN_NAME = re.compile(r"^(\d+)-(\d+)-SUMMARY", re.IGNORECASE)
_PLAN_ID = re.compile(r"^(\d+)-(\d+)$")
_LEADING_NUMBER = re.compile(r"^(\d+)")
_LABELLED = r"^\s*(?:#{{1,6}}\s*)?(?:\*\*)?{label}(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*?)\s*$"
_LABEL_HEADING = r"^ {{0,3}}#{{1,6}}\s+{label}\s*:?\s*$"


class _Label(NamedTuple):
    """`## Label: value`, `**Label:** value`, or a `## Label` heading with the value below."""

    inline: re.Pattern[str]
    heading: re.Pattern[str]

    @classmethod
    def of(cls, label: str) -> "_Label":
        flags = re.IGNORECASE
        return cls(
            re.compile(_LABELLED.format(label=label), flags),
            re.compile(_LABEL_HEADING.format(label=label), flags),
        )


_AGENT = _Label.of("Agents?")
_STATUS = _Label.of("Status")
_SELF_CHECK = _Label.of("Self-Check")
_ONE_LINER = _Label.of("One-liner")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_TITLE = re.compile(r"^ {0,3}#\s+(.*?)\s*$", re.MULTILINE)
# Checked in order: "Partially complete" is partial and "Incomplete" is not a success.
_STATUS_WORDS = (
    ("partial", "partial"),
    ("incomplete", "partial"),
    ("fail", "failed"),
    ("block", "failed"),
    ("abandon", "failed"),
    ("complete", "success"),
    ("done", "success"),
    ("success", "success"),
    ("pass", "success"),
)


class SummaryFacts(NamedTuple):
    plan: str | None = None
    phase: str | None = None
    agent: str | None = None
    outcome: str | None = None
    status: str | None = None
    summary: str | None = None


def read_summary_facts(path: Path) -> SummaryFacts:
    """The facts of a SUMMARY file, with its sibling PLAN file's agents when it names none."""
    text = _read(path)
    if text is None:
        raise InputError(f"--from-summary '{path}' cannot be read", hint="give a SUMMARY.md path")
    plan_path = path.with_name(re.sub("SUMMARY", "PLAN", path.name, flags=re.IGNORECASE))
    plan_text = _read(plan_path) if plan_path != path else None
    return summary_facts(text, path.name, plan_text)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def summary_facts(text: str, filename: str = "", plan_text: str | None = None) -> SummaryFacts:
    data, body = split_front_matter(text)
    plan = _plan_id(data, body, filename)
    status = _status(data, body)
    return SummaryFacts(
        plan=plan,
        phase=str(int(plan.split("-")[0])) if plan else None,
        agent=_agent(data, body) or _plan_agent(plan_text),
        outcome=outcome_of_status(status) if status else None,
        status=status,
        summary=_summary(body),
    )


def _plan_id(data: dict[str, Value], body: str, filename: str) -> str | None:
    plan = _scalar(data.get("plan"))
    if plan and (match := _PLAN_ID.match(plan)):
        return _format(match.group(1), match.group(2))
    phase = _LEADING_NUMBER.match(_scalar(data.get("phase")))
    if plan.isdigit() and phase:
        return _format(phase.group(1), plan)
    for pattern in (_PLAN_IN_TEXT, _PHASE_PLAN_IN_TEXT):
        if match := pattern.search(_first_heading(body)):
            return _format(match.group(1), match.group(2))
    if match := _PLAN_IN_NAME.match(filename):
        return _format(match.group(1), match.group(2))
    return None


def _format(phase: str, plan: str) -> str:
    return f"{int(phase):02d}-{int(plan):02d}"


def _scalar(value: Value | None) -> str:
    return value.strip() if isinstance(value, str) else ""


def _first_heading(body: str) -> str:
    match = _TITLE.search(body)
    return match.group(1) if match else ""


def _agent(data: dict[str, Value], body: str) -> str | None:
    listed = strings(data.get("agents")) or strings(data.get("agent"))
    if listed:
        return ", ".join(listed)
    return _labelled(_AGENT, body)


def _plan_agent(plan_text: str | None) -> str | None:
    if plan_text is None:
        return None
    data, _ = split_front_matter(plan_text)
    listed = strings(data.get("agents")) or strings(data.get("agent"))
    if listed:
        return ", ".join(listed)
    return "autonomous" if _scalar(data.get("autonomous")).lower() == "true" else None


def _labelled(label: _Label, body: str) -> str | None:
    """The first value given for `label`, inline or as the line under a heading."""
    lines = body.split("\n")
    for index, line in enumerate(lines):
        if label.heading.match(line):
            following = next((x for x in lines[index + 1 :] if x.strip()), "")
            if following and not _HEADING.match(following):
                return _clean(following) or None
        elif (match := label.inline.match(line)) and _clean(match.group(1)):
            return _clean(match.group(1))
    return None


def _clean(text: str) -> str:
    return text.strip().lstrip("-*").strip().strip("`*").strip()


def _status(data: dict[str, Value], body: str) -> str | None:
    return (
        _scalar(data.get("status"))
        or _labelled(_STATUS, body)
        or _labelled(_SELF_CHECK, body)
        or None
    )


def outcome_of_status(status: str) -> str | None:
    """`Complete` -> success, `Partially complete` -> partial, `Failed` -> failed, else None."""
    folded = status.casefold()
    return next((outcome for word, outcome in _STATUS_WORDS if word in folded), None)


def _summary(body: str) -> str | None:
    """The `**One-liner:**`, else a wholly bold first paragraph, else the title after its colon."""
    one_liner = _labelled(_ONE_LINER, body)
    if one_liner:
        return one_liner
    title = _TITLE.search(body)
    if title is None:
        return None
    after = body[title.end() :].lstrip("\n").split("\n\n", 1)[0].strip()
    if after.startswith("**") and after.endswith("**") and "\n" not in after:
        return after.strip("*").strip()
    head, colon, rest = title.group(1).partition(":")
    return rest.strip() if colon and rest.strip() else head.strip() or None
