"""How fast `mcpctl check` is where it matters: in a pre-commit hook (issue 6).

Targets (issue 13): start-up on a clean repo under 5x `python -c pass` (same run, whole
processes, medians); a 1 MB config, and each adversarial shape (60 KB of text that made
the old JSONC blanking quadratic, or that would mislead or slow a TOML key index), linted
in under 0.5 s. Printed: `mcpctl check` as installed, and `run_check` called without
typer (what an entry point that dispatches `check` first would cost), each on a clean
repo and on one whose config has a schema error (the only case that imports jsonschema).

    uv run python bench/bench_check.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, bare_python, median_seconds, report

STARTUP_TARGET = 5.0
MEGABYTE_TARGET = 0.5
ADVERSARIAL = {
    "escaped quotes, never closed": '{"servers": {"a": {"command": "' + '\\"' * 30_000,
    "quote runs": '"\\"\\"' * 20_000,
    "open block comments": "/*" * 30_000,
    "commas before comments": '{"servers": {' + '"a": 1, // x ] }\n' * 3_000 + "}}",
}
# Codex's TOML: valid text (tomllib refuses the rest before positions are looked for)
# that a line-by-line reader would misplace or a careless one take quadratic time over.
ADVERSARIAL_TOML = {
    "a multi-line string of decoy headers":
        'x = """' + '""\\"[mcp_servers.d]\nk = 1\n' * 2_000 + '"""\n',
    "inline tables in arrays 300 deep":
        "a = " + "[" * 300 + "{k = 1}, " * 6_000 + "]" * 300 + "\n",
}
WITHOUT_TYPER = ("import sys; from mcpctl.cli.check_cmd import run_check; "
                 "sys.exit(run_check(sys.argv[1:]))")


def clean_repo(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
        "time": {"command": "uvx", "args": ["mcp-server-time==2025.9.25"]},
    }}, indent=2))
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text(
        '{\n  // team servers\n  "servers": {"docs": {"type": "http", '
        '"url": "https://docs.example.com/mcp"}},\n}\n')


def megabyte_config(path: Path, *, findings: bool) -> int:
    """About 1 MB of servers; with `findings`, each has an unpinned package (a warning)
    and every tenth a number among its args (a schema error, which jsonschema explains)."""

    def servers(count: int) -> dict[str, object]:
        package = "@scope/server-x" if findings else "@scope/server-x@1.2.3"
        return {f"server-{index}": {
            "command": "npx",
            "args": ["-y", package, "--root", "./data", *([7] if findings and index % 10 == 0
                                                          else [])],
            "env": {"TOKEN": "${TOKEN}", "LEVEL": "info"},
        } for index in range(count)}

    sample = len(json.dumps({"mcpServers": servers(100)}, indent=2))
    text = json.dumps({"mcpServers": servers(100 * 1_000_000 // sample)}, indent=2)
    path.write_text(text)
    return len(text)


def in_process_seconds(path: Path, kind: str | None = None) -> float:
    from mcpctl.lint import SCHEMA_NAMES, kind_for_path, load_schema  # noqa: PLC0415
    from mcpctl.lint.checks import lint_bytes  # noqa: PLC0415

    kind = kind or kind_for_path(path.name) or "claude"
    start = time.perf_counter()
    lint_bytes(path.read_bytes(), kind, path.name, load_schema(SCHEMA_NAMES[kind]))
    return time.perf_counter() - start


def parse_seconds(path: Path) -> float:
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    text = path.read_text()
    start = time.perf_counter()
    jsonc.parse(text, jsonc=True)
    return time.perf_counter() - start


def expect_exit(argv: list[str], code: int, cwd: Path) -> None:
    """A timing of a command that fails for another reason would mean nothing."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != code:
        sys.exit(f"{' '.join(argv)} exited {done.returncode}, not {code}: {done.stderr.strip()}")


def main() -> None:
    # Measure modules as installed: pip writes their bytecode, so let this run write it too
    # (warm-up runs), or every start-up would include compiling mcpctl's sources.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        clean_repo(root)
        expect_exit([MCPCTL, "check"], 0, root)
        baseline = bare_python(runs=15)
        installed = median_seconds([MCPCTL, "check"], cwd=root, runs=15)
        direct = median_seconds([sys.executable, "-c", WITHOUT_TYPER], cwd=root, runs=15)
        (root / ".cursor").mkdir()
        (root / ".cursor" / "mcp.json").write_text('{"mcpServers": {"x": {"command": 1}}}')
        direct_bad = median_seconds([sys.executable, "-c", WITHOUT_TYPER], cwd=root, runs=15)
        report("python -c pass", baseline)
        report("mcpctl check, clean repo (installed entry point)", installed, baseline)
        report("run_check without typer, clean repo", direct, baseline)
        report("run_check without typer, a schema error (jsonschema)", direct_bad, baseline)
        verdict = "meets" if installed / baseline < STARTUP_TARGET else "MISSES"
        print(f"start-up target {STARTUP_TARGET:.0f}x: mcpctl check {verdict} it "
              f"({installed / baseline:.1f}x); without typer {direct / baseline:.1f}x")

        for findings in (False, True):
            big = root / ("findings" if findings else "clean") / ".mcp.json"
            big.parent.mkdir()
            size = megabyte_config(big, findings=findings)
            expect_exit([MCPCTL, "check", str(big)], 1 if findings else 0, root)
            whole = median_seconds([MCPCTL, "check", str(big)], cwd=root, runs=5)
            label = "with a finding per server" if findings else "clean"
            report(f"mcpctl check, {size / 1e6:.2f} MB config, {label}", whole)
            linted = in_process_seconds(big)
            report("  of which linting in process", linted)
            report("  of which reading the JSON (the scanner)", parse_seconds(big))
            verdict = "meets" if linted < MEGABYTE_TARGET else "MISSES"
            print(f"1 MB target {MEGABYTE_TARGET} s (linting): {verdict} it")
        adversarial(root)


def adversarial(root: Path) -> None:
    folder = root / "adversarial" / ".vscode"
    folder.mkdir(parents=True)
    for name, text in ADVERSARIAL.items():
        path = folder / "mcp.json"
        path.write_text(text)
        linted = min(in_process_seconds(path, "vscode") for _ in range(3))
        verdict = "meets" if linted < MEGABYTE_TARGET else "MISSES"
        report(f"adversarial {len(text) // 1000} KB, {name} ({verdict} {MEGABYTE_TARGET} s)",
               linted)
    codex = root / "adversarial" / ".codex"
    codex.mkdir()
    for name, text in ADVERSARIAL_TOML.items():
        path = codex / "config.toml"
        path.write_text(text)
        linted = min(in_process_seconds(path, "codex") for _ in range(3))
        verdict = "meets" if linted < MEGABYTE_TARGET else "MISSES"
        report(f"adversarial {len(text) // 1000} KB TOML, {name} ({verdict} "
               f"{MEGABYTE_TARGET} s)", linted)


if __name__ == "__main__":
    main()
