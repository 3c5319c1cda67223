"""`mcpctl check` over a corpus of committed MCP config files: per-rule counts, fail rate.

The corpus is a folder of `<owner>__<repo>/<path inside the repo>` files (gathered from
public repositories; it is never committed: see `corpus/` in .gitignore). Each file is
checked as the pre-commit hook would check it in its own repo: the format comes from
its path inside the repo, and the file fails the hook when it has an error-severity
finding. A crash (any exception) is counted and named, never hidden.

    uv run python bench/corpus_check.py CORPUS [--findings FILE.tsv] [--sample N]

`--findings` writes every finding as a TSV row for judging by hand; `--sample N` prints
N random non-error findings (seeded, so a rerun shows the same ones).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcpctl.config.formats import hook_pattern
from mcpctl.lint import Target, check_targets, kind_for_path
from mcpctl.lint.rules import Finding, Severity
from mcpctl.lint.settings import Selection

# What the hook is given in a commit: the `files:` pattern of .pre-commit-hooks.yaml.
HOOK_FILES = re.compile(hook_pattern((".claude/settings.json", ".claude/settings.local.json")))


def corpus_files(corpus: Path) -> list[tuple[Path, str]]:
    """(file, its path inside its repo) for every file of the corpus."""
    found: list[tuple[Path, str]] = []
    for repo in sorted(p for p in corpus.iterdir() if p.is_dir()):
        found.extend((path, path.relative_to(repo).as_posix())
                     for path in sorted(p for p in repo.rglob("*") if p.is_file()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--findings", type=Path)
    parser.add_argument("--sample", type=int, default=0)
    options = parser.parse_args()
    files = corpus_files(options.corpus)
    by_rule: Counter[str] = Counter()
    failing: list[str] = []
    unknown: list[str] = []
    crashes: list[str] = []
    rows: list[tuple[str, Finding]] = []
    for path, inside in files:
        kind = kind_for_path(inside)
        shown = path.relative_to(options.corpus).as_posix()
        if kind is None or not HOOK_FILES.search(inside):
            unknown.append(shown)
            continue
        try:
            result = check_targets([Target(path, shown, kind)], Selection())
        except Exception:  # noqa: BLE001 - a crash is what this script exists to find
            crashes.append(f"{shown}: {traceback.format_exc(limit=-1).strip()}")
            continue
        by_rule.update(f"{f.code} {f.rule.severity}" for f in result.findings)
        rows.extend((kind, f) for f in result.findings)
        if result.has_errors:
            failing.append(shown)
    checked = len(files) - len(unknown)
    repos = {p.relative_to(options.corpus).parts[0] for p, _ in files}
    print(f"corpus: {len(files)} files in {len(repos)} repos; {checked} checked as the hook "
          f"would, {len(unknown)} at paths the hook leaves alone")
    for rule, count in sorted(by_rule.items()):
        print(f"  {rule:<16} {count}")
    rate = len(failing) / checked if checked else 0.0
    print(f"fail the hook: {len(failing)} of {checked} files ({rate:.1%})")
    print(f"crashes: {len(crashes)}")
    for crash in crashes:
        print("  " + crash)
    if options.findings:
        options.findings.write_text("".join(
            f"{f.path}\t{f.line}\t{f.column}\t{f.code}\t{f.rule.severity}\t{kind}\t"
            f"{f.message}\n" for kind, f in rows), encoding="utf-8")
    others = [f for _, f in rows if f.rule.severity is not Severity.ERROR]
    for finding in random.Random(13).sample(  # noqa: S311 - a repeatable sample, no secret
others, min(options.sample, len(others))):
        print(f"sample: {finding.path}:{finding.line}:{finding.column} {finding.code} "
              f"{finding.message}")


if __name__ == "__main__":
    main()
