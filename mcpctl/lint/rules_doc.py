"""docs/rules.md, generated from the rule table: `python -m mcpctl.lint.rules_doc`.

A test compares the committed page with this output, so the page cannot drift from
the rules `check` runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcpctl.lint.rules import RULES, Rule

_HEAD = """# `mcpctl check` rules

Generated from `mcpctl/lint/rules.py` by `uv run python -m mcpctl.lint.rules_doc >
docs/rules.md`; a test fails when this page and the table differ.

Severities: **error**, the client will misbehave, or a secret or code injection is
committed (the hook fails); **warning**, risky but sometimes intended; **info**, worth
knowing. `--fail-on warning` (or `info`) makes the hook stricter. Select and ignore
rules with `--select`/`--ignore` or `[tool.mcpctl.check]` in pyproject.toml.

| code | name | severity |
|------|------|----------|
"""


def render(rules: Iterable[Rule]) -> str:
    listed = list(rules)
    table = "".join(f"| [{r.code}](#{r.code.lower()}) | {r.name} | {r.severity} |\n"
                    for r in listed)
    return _HEAD + table + "".join(_section(rule) for rule in listed)


def _section(rule: Rule) -> str:
    return (f"\n## {rule.code}\n\n**{rule.name}**, {rule.severity}. {rule.rationale}\n\n"
            f"Fix: {rule.fix}.\n\nBad:\n\n```\n{rule.bad}\n```\n\nGood:\n\n```\n{rule.good}\n```\n")


if __name__ == "__main__":
    print(render(RULES.values()), end="")
