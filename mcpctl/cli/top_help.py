"""`mcpctl --help` without typer: the top-level help as typer renders it (issue 15).

Importing typer costs about six bare interpreters here, and building every command for
the listing as much again, to print a text that is the same on every run at a given
width. click lays help out `min(columns, 80) - 2` wide, so every terminal of 80 columns
or more, a pipe and a file all get one text. That text is kept in `top_help_text.py`,
written as docs/rules.md is (`uv run python -m mcpctl.cli.top_help >
mcpctl/cli/top_help_text.py`); a test fails when it differs from typer's own rendering,
so it cannot drift from the commands. A narrower terminal goes through typer.
"""

from __future__ import annotations

import os
import shutil

HELP_WIDTH = 78  # click's width for 80 columns and more (its `max_width` is 80)


def stored_help() -> str | None:
    """The top-level help as typer would print it here; None when the width differs.
    The width is click's own: from `shutil.get_terminal_size`, as click reads it."""
    if max(min(shutil.get_terminal_size().columns, 80) - 2, 50) != HELP_WIDTH:
        return None
    from mcpctl.cli.top_help_text import TEXT  # noqa: PLC0415

    return TEXT


def module_text() -> str:
    """`top_help_text.py`: the help typer renders at 80 columns, as a module."""
    import contextlib  # noqa: PLC0415
    import io  # noqa: PLC0415

    from mcpctl.cli import app  # noqa: PLC0415

    os.environ["COLUMNS"] = "80"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = app.run(["--help"])
    text = out.getvalue()
    if code != 0 or '"""' in text or "\\" in text:
        raise SystemExit(f"cannot store this help (exit {code}): {text[:200]!r}")
    return ('"""`mcpctl --help` at 80 columns, written by `uv run python -m mcpctl.cli.top_help >\n'
            'mcpctl/cli/top_help_text.py`: do not edit (tests/cli/test_top_help.py)."""\n\n'
            f'TEXT = """\\\n{text}"""\n')


if __name__ == "__main__":
    print(module_text(), end="")
