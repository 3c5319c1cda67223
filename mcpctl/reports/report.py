"""A command's answer as one value (issue 10 item 3).

Every command's core call returns a `Report`: the JSON document it stands for (always
with `schema_version`, described by `schemas/<schema>.schema.json`), its exit code,
the problems met while reading (one shape everywhere: path, line, column, message),
warnings, and the typed data its text view needs. `mcpctl.cli.render.emit` is the one
place that turns it into text or JSON and writes it; no command prints on its own.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from mcpctl.errors import ExitCode
from mcpctl.model import Problem

T = TypeVar("T")


def problem_document(problem: Problem) -> dict[str, Any]:
    """The one shape of a problem in every `--json` output."""
    return {"path": str(problem.path), "line": problem.line, "column": problem.column,
            "message": problem.message}


class Report(NamedTuple, Generic[T]):
    """What a command says: `document()` for `--json`, `data` for its text view."""

    schema: str  # the stem of the file in schemas/ that describes document()
    body: Mapping[str, Any]
    data: T
    exit_code: int = ExitCode.OK
    # None: the document has no `problems` member; else it ends with them.
    problems: Sequence[Problem] | None = None
    # Lines for stderr in both modes (a person reading JSON on stdout still sees them).
    warnings: Sequence[str] = ()
    # Errors about one item that did not stop the others; shown as `mcpctl: error:`.
    errors: Sequence[str] = ()
    version: int = 1

    def document(self) -> dict[str, Any]:
        document = {"schema_version": self.version, **self.body}
        if self.problems is not None:
            document["problems"] = [problem_document(p) for p in self.problems]
        return document


def problems_exit(code: int, problems: Sequence[Problem]) -> int:
    """Exit 3 for config problems unless something worse already decided the code: a
    typo must never look like success (issue 15), but 4, 5 and 6 say more."""
    if problems and code in (ExitCode.OK, ExitCode.FINDINGS):
        return ExitCode.INVALID_CONFIG
    return code


def error_document(message: str, kind: str, exit_code: int) -> dict[str, Any]:
    """What stdout holds in JSON mode when a command fails (schemas/error.schema.json)."""
    return {"schema_version": 1, "error": {"message": message, "type": kind},
            "exit_code": exit_code}
