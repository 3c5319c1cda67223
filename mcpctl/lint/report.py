"""Render findings: text for people and pre-commit, JSON for tools, GitHub annotations.

Renderers return strings; the command prints them. The JSON shape is documented by
schemas/check-report.schema.json and only grows (new keys), never changes meaning.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence

from mcpctl.lint.rules import Finding, Rule, Severity

REPORT_VERSION = 1


class CheckResult:
    """What `check` found: the files read, the findings and the files it could not read."""

    __slots__ = ("files", "findings", "unreadable")

    def __init__(self, files: list[str] | None = None, findings: list[Finding] | None = None,
                 unreadable: list[tuple[str, str]] | None = None) -> None:
        self.files = [] if files is None else files
        self.findings = [] if findings is None else findings
        self.unreadable = [] if unreadable is None else unreadable  # (path, reason)

    @property
    def has_errors(self) -> bool:
        return self.fails(Severity.ERROR)

    def fails(self, threshold: Severity) -> bool:
        """Does a finding reach `threshold` (`--fail-on`: error, warning or info)?"""
        rank = _RANK[threshold]
        return any(_RANK[f.rule.severity] <= rank for f in self.findings)


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def render(result: CheckResult, output: str) -> str:
    findings = sorted(result.findings)
    if output == "json":
        return render_json(result)
    if output == "github":
        return "".join(github_line(f) + "\n" for f in findings)
    return "".join(text_line(f) + "\n" for f in findings)


def text_line(finding: Finding) -> str:
    rule = finding.rule
    return (f"{finding.path}:{finding.line}:{finding.column}: {finding.code} "
            f"{rule.severity}: {finding.message} (fix: {rule.fix})")


def github_line(finding: Finding) -> str:
    # Workflow commands: properties escape , and : as well as %, CR and LF.
    rule = finding.rule
    command = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(rule.severity, "notice")
    props = ",".join(f"{key}={_escape(value, True)}" for key, value in (
        ("file", finding.path), ("line", str(finding.line)), ("col", str(finding.column)),
        ("title", f"{finding.code} {rule.name}")))
    return f"::{command} {props}::{_escape(f'{finding.message} (fix: {rule.fix})', False)}"


def _escape(text: str, is_property: bool) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if is_property else text


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    tally = Counter(f.rule.severity.value for f in findings)
    return {severity.value: tally[severity.value] for severity in Severity}


def render_json(result: CheckResult) -> str:
    document = {
        "schema_version": REPORT_VERSION,
        "files": result.files,
        "findings": [_finding_json(f) for f in sorted(result.findings)],
        "counts": counts(result.findings),
        "unreadable": [{"path": path, "reason": reason} for path, reason in result.unreadable],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _finding_json(finding: Finding) -> dict[str, object]:
    rule = finding.rule
    return {"path": finding.path, "line": finding.line, "column": finding.column,
            "code": finding.code, "name": rule.name, "severity": rule.severity.value,
            "message": finding.message, "fix": rule.fix}


def summary(result: CheckResult) -> str:
    """One line for stderr, so stdout holds only findings."""
    if not result.files and not result.unreadable:
        return "mcpctl check: no MCP config files to check\n"
    tally = counts(result.findings)
    files = len(result.files)
    return (f"mcpctl check: {files} file{'s' if files != 1 else ''}, "
            f"{tally['error']} error(s), {tally['warning']} warning(s), {tally['info']} info\n")


def render_rules(rules: Sequence[Rule], output: str) -> str:
    if output == "json":
        listed = [{"code": r.code, "name": r.name, "severity": r.severity.value,
                   "rationale": r.rationale, "fix": r.fix} for r in rules]
        return json.dumps({"schema_version": REPORT_VERSION, "rules": listed}, indent=2) + "\n"
    return "".join(f"{r.code}  {r.severity.value:<7}  {r.name}: {r.rationale}\n"
                   f"{'':17}fix: {r.fix}\n" for r in rules)
