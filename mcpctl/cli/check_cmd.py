"""`mcpctl check`: the pre-commit hook that lints a repo's MCP config (DESIGN §7).

Its options are parsed by argparse in `run_check`, which imports neither typer nor
rich: importing typer alone costs ~10x a bare interpreter here, more than the whole
budget of a pre-commit hook (DESIGN §1.6, issue 6). The typer command registered below
hands its raw arguments to `run_check`, so `mcpctl --help` lists `check` as usual, and
an entry point may call `run_check` directly to skip typer altogether.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

from mcpctl.cli.handler import say_error
from mcpctl.errors import ConfigError, ExitCode, UsageError

if TYPE_CHECKING:
    import argparse

    import typer

SUMMARY = "Lint MCP config files without starting anything (the pre-commit hook)."
_DESCRIPTION = (
    SUMMARY + " With no FILES, checks the workspace's .mcp.json, mcp.json, .vscode/mcp.json, "
    ".cursor/mcp.json and .claude/settings.json. Exit status: 0 no error-severity finding, "
    "1 at least one (or one at the --fail-on level), 2 usage error, 3 a file could not be read."
)
_EPILOG = """Examples:
  mcpctl check                                  the current repo's MCP config files
  mcpctl check .mcp.json .vscode/mcp.json       these files (format from the path)
  mcpctl check --format-of vscode config.jsonc  a file whose name says nothing
  mcpctl check --output github                  annotations for a GitHub workflow
  mcpctl check --fail-on warning                fail on warnings too, not only errors
  mcpctl check --ignore MCP022 --list-rules     every rule: code, severity, why, fix

Settings: [tool.mcpctl.check] in pyproject.toml or [check] in .mcpctl.toml,
with select = [...] and ignore = [...] (rule codes or prefixes such as MCP02).
"""
OUTPUTS = ("text", "json", "github")
FAIL_ON = ("error", "warning", "info")


class _HelpShown(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415 - not for the hook's own line (`plain_files`)

    from mcpctl.lint import KINDS  # noqa: PLC0415

    class Parser(argparse.ArgumentParser):
        """argparse that reports through mcpctl's error handler instead of exiting."""

        def error(self, message: str) -> NoReturn:
            sys.stderr.write(self.format_usage())
            raise UsageError(f"check: {message}")

        def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
            if message:
                sys.stderr.write(message)
            raise _HelpShown

    parser = Parser(prog="mcpctl check", description=_DESCRIPTION, epilog=_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", metavar="FILES",
                        help="config files to check (default: the workspace's own)")
    parser.add_argument("--format-of", choices=KINDS, metavar="FORMAT",
                        help=f"read FILES as this format: {', '.join(KINDS)}")
    parser.add_argument("--output", choices=OUTPUTS, default="text",
                        help="text (default), json (schemas/check-report.schema.json) "
                             "or github (workflow annotations)")
    parser.add_argument("--json", dest="output", action="store_const", const="json",
                        help="the same as --output json")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="error", metavar="SEVERITY",
                        help="exit 1 on findings of this severity or worse: error "
                             "(default), warning or info")
    parser.add_argument("--select", action="append", default=[], metavar="CODES",
                        help="only these rules (comma-separated codes or prefixes)")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES",
                        help="skip these rules as well as those the settings ignore")
    parser.add_argument("--list-rules", action="store_true",
                        help="print every rule with its severity, rationale and fix")
    parser.add_argument("--workspace", "-w", metavar="PATH",
                        help="workspace root (default: nearest folder with .git, else cwd)")
    return parser


def plain_files(argv: Sequence[str]) -> Any:
    """The hook's own line, `mcpctl check [FILE...]`, as argparse would read it, without
    importing argparse (its help formatter alone imports shutil and gettext's locale
    lookups); None when any word could be an option."""
    if any(not arg or arg.startswith("-") for arg in argv):
        return None
    return SimpleNamespace(files=list(argv), format_of=None, output="text",
                              fail_on="error", select=[], ignore=[], list_rules=False,
                              workspace=None)


def run_check(argv: Sequence[str]) -> int:
    """Run `mcpctl check ARGV...`; return the exit code or raise an McpctlError."""
    options = plain_files(argv)
    try:
        if options is None:
            options = build_parser().parse_args(list(argv))
    except _HelpShown:
        return int(ExitCode.OK)
    from mcpctl import lint  # noqa: PLC0415 - only once the options are known
    from mcpctl.lint import report  # noqa: PLC0415
    from mcpctl.lint.rules import RULES  # noqa: PLC0415

    if options.list_rules:
        sys.stdout.write(report.render_rules(list(RULES.values()), options.output))
        return int(ExitCode.OK)
    from mcpctl.lint.settings import load_selection  # noqa: PLC0415

    root = lint.cwd_root(options.workspace)
    selection = load_selection(root, options.select, options.ignore)
    targets = lint.find_targets(options.files, root, options.format_of)
    result = lint.check_targets(targets, selection)
    sys.stdout.write(report.render(result, options.output))
    if options.output == "text":
        sys.stderr.write(report.summary(result))
    if result.unreadable:
        reasons = "; ".join(f"{path}: {reason}" for path, reason in result.unreadable)
        if options.output == "json":
            # The document on stdout already lists them; a second one would break parsers.
            say_error(f"cannot read {reasons}")
            return int(ExitCode.INVALID_CONFIG)
        raise ConfigError(f"cannot read {reasons}")
    from mcpctl.lint.rules import Severity  # noqa: PLC0415

    failed = result.fails(Severity(options.fail_on))
    return int(ExitCode.FINDINGS if failed else ExitCode.OK)


def register(app: typer.Typer) -> None:
    import typer  # noqa: PLC0415 - already imported by whoever built `app`

    @app.command(
        "check",
        help=SUMMARY + "\n\nExample: mcpctl check .mcp.json .vscode/mcp.json "
                       "(mcpctl check --help lists every option)",
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
    def check(ctx: typer.Context) -> None:
        raise typer.Exit(run_check(ctx.args))

    # typer resolves annotations by name in this module's globals, where typer is absent
    # on purpose (see the module docstring): hand it the class itself.
    check.__annotations__["ctx"] = typer.Context
