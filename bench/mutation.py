"""Mutation testing of the security core with cosmic-ray (issue 16; run by hand, not in CI).

Each module of the core is mutated by cosmic-ray, one mutant at a time, and only the
tests that target it are run against each mutant. The work happens in a copy of the
checkout in a temporary folder, so an interrupted run never leaves a mutant behind in
the real tree; PYTHONPATH points at the copy so that `python -m mcpctl` subprocesses
started by the tests run the mutant too. Printed per module: killed/total, every
survivor (line, operator, diff), and the survivors recorded as equivalent below; at the
end the score over the non-equivalent mutants.

    uv run python bench/mutation.py                      # the whole core (slow: ~1 h)
    uv run python bench/mutation.py trust/state.py gate  # modules by a unique suffix

Exit status: 0 when no unrecorded survivor is left, 1 when one is, 2 on bad arguments
or when the targeted tests fail before any mutation (the score would mean nothing).
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COSMIC_RAY = str(Path(sys.executable).with_name("cosmic-ray"))

# The module under test and the tests aimed at it, fastest first (pytest runs with -x,
# so a killed mutant usually costs only the first failing test).
TARGETS: dict[str, tuple[str, ...]] = {
    "mcpctl/trust/fingerprint.py": ("tests/trust/test_fingerprint.py",
                                    "tests/pinning/test_pinned_files.py"),
    "mcpctl/trust/state.py": ("tests/trust/test_diff.py", "tests/trust/test_status.py",
                              "tests/trust/test_gate.py"),
    "mcpctl/trust/gate.py": ("tests/trust/test_admission.py", "tests/trust/test_gate.py"),
    "mcpctl/trust/status.py": ("tests/trust/test_status.py", "tests/trust/test_diff.py"),
    "mcpctl/trust/view.py": ("tests/trust/test_view.py", "tests/trust/test_gate.py"),
    "mcpctl/trust/store.py": ("tests/trust/test_store_edges.py", "tests/trust/test_store.py",
                              "tests/cli/test_trust.py"),
    "mcpctl/launch.py": ("tests/test_launch.py", "tests/trust/test_gate.py"),
    "mcpctl/credentials/masking.py": ("tests/credentials/test_masking.py",
                                      "tests/credentials/test_secrets.py"),
    "mcpctl/credentials/redact.py": ("tests/credentials/test_redact_bounds.py",
                                     "tests/credentials/test_redact.py"),
    "mcpctl/credentials/keyring_store.py": ("tests/credentials/test_keyring_store.py",
                                            "tests/credentials/test_keyring_backend.py"),
    "mcpctl/credentials/secret_service.py": ("tests/credentials/test_secret_service.py",),
    "mcpctl/files/atomic.py": (
        "tests/files/test_atomic.py",
        "tests/cli/test_add_remove.py::test_a_write_killed_midway_leaves_the_old_or_the_new_file"),
}

# Survivors that no test can kill because the mutant behaves exactly like the original:
# (module, operator, the mutated source line stripped) → why. docs/design.md lists them.
EQUIVALENT: dict[tuple[str, str, str], str] = {
    ("mcpctl/trust/state.py", "core/ReplaceComparisonOperator_Gt_NotEq",
     'more = f" (+{len(others) - 1} more)" if len(others) > 1 else ""'):
        "with no change left `more` is dropped, so len > 1 and len != 1 agree",
    ("mcpctl/trust/state.py", "core/NumberReplacer", 'others.append(f"file {files[0]}")'):
        "this branch has exactly one file, so its first is its last",
    ("mcpctl/trust/state.py", "core/ReplaceComparisonOperator_Is_Eq", "if tier is Tier.USER:"):
        "a Tier member equals Tier.USER exactly when it is Tier.USER",
    ("mcpctl/trust/state.py", "core/AddNot", "if TYPE_CHECKING:"):
        "PinSet is named only in annotations; importing it at run time too costs an import",
    ("mcpctl/trust/gate.py", "core/ReplaceComparisonOperator_Is_Eq",
     "if definition.source.tier is Tier.USER:"):
        "a Tier member equals Tier.USER exactly when it is Tier.USER",
    ("mcpctl/trust/gate.py", "core/ReplaceComparisonOperator_IsNot_NotEq",
     "if definition.source.tier is not Tier.WORKSPACE:"):
        "a Tier member equals Tier.WORKSPACE exactly when it is Tier.WORKSPACE",
    ("mcpctl/trust/gate.py", "core/ReplaceComparisonOperator_IsNot_Lt",
     "if definition.source.tier is not Tier.WORKSPACE:"):
        "USER has returned above; of the rest only 'client' sorts before 'workspace'",
    ("mcpctl/trust/gate.py", "core/ReplaceComparisonOperator_NotEq_IsNot",
     "if states is None or states.root != root or states.trust_file != trust_file:"):
        "an equal root or trust file that is another object only makes the gate read the "
        "same store and workspace again: the same answer, at a cost",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_Eq_GtE",
     'if self.after is None or self.what == "removed":'):
        "of modified, added and removed only removed sorts at or after 'removed'",
    ("mcpctl/trust/status.py", "core/NumberReplacer",
     'return f"{self.after.lines if self.after else 0} lines"'):
        "status_of makes an added FileChange only for a path in the new set, so `after` "
        "is never None there",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_Eq_LtE",
     'if self.before is None or self.what == "added":'):
        "of modified, added and removed nothing sorts before 'added'",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_Is_Eq",
     "if definition.source.tier is Tier.USER:"):
        "a Tier member equals Tier.USER exactly when it is Tier.USER",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_NotEq_Gt",
     "if entry.digest != ABSENT}"):
        "every digest and marker (sha256:, folder, unpinned:) sorts after 'absent'",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_NotEq_Gt",
     "after = {path: digest for path, digest in pins.files.items() if digest != ABSENT}"):
        "every digest and marker (sha256:, folder, unpinned:) sorts after 'absent'",
    ("mcpctl/trust/status.py", "core/ReplaceComparisonOperator_NotEq_IsNot",
     "after = {path: digest for path, digest in pins.files.items() if digest != ABSENT}"):
        "pin_set marks an absent input with the ABSENT object itself, and no digest "
        "equals it otherwise",
    ("mcpctl/credentials/masking.py", "core/NumberReplacer",
     'netloc = netloc.replace(f":{parts.password}@", ":***@", 1)'):
        "the password runs from the first ':' of the userinfo to the netloc's last '@', "
        "so ':password@' occurs once: replacing at most 1 or 2 is the same",
    ("mcpctl/credentials/redact.py", "core/NumberReplacer", "SECRET_MARGIN = 2048"):
        "a wider margin only scans one more character past the cut; the output differs "
        "only for a credential-looking run longer than 2048 characters, which none is",
    ("mcpctl/credentials/redact.py", "core/ReplaceBinaryOperator_Add_Mul",
     "shown = redact(text[: limit + SECRET_MARGIN], secrets)"):
        "scanning further past the cut masks the same prefix (it only costs time)",
    ("mcpctl/credentials/redact.py", "core/ReplaceComparisonOperator_Lt_IsNot",
     'if index + 1 < len(kinds) and literals[index + 1] == "":'):
        "index + 1 never exceeds len(kinds), and small ints are identical when equal",
    ("mcpctl/credentials/redact.py", "core/ReplaceBinaryOperator_Add_LShift",
     "shown = redact(text[: limit + SECRET_MARGIN], secrets)"):
        "scanning further past the cut masks the same prefix (it only costs time)",
    ("mcpctl/credentials/redact.py", "core/ReplaceBinaryOperator_Add_Pow",
     "shown = redact(text[: limit + SECRET_MARGIN], secrets)"):
        "scanning further past the cut masks the same prefix (it only costs time)",
    ("mcpctl/credentials/redact.py", "core/ReplaceComparisonOperator_Lt_NotEq",
     'if index + 1 < len(kinds) and literals[index + 1] == "":'):
        "index + 1 never exceeds len(kinds), so < and != agree",
    ("mcpctl/credentials/redact.py", "core/ReplaceComparisonOperator_Eq_LtE",
     'if index + 1 < len(kinds) and literals[index + 1] == "":'):
        "no string sorts before the empty one, so <= '' means == ''",
    ("mcpctl/credentials/redact.py", "core/ReplaceBreakWithContinue", "break"):
        "once nothing more is found, the remaining rounds find nothing either",
    ("mcpctl/trust/store.py", "core/ReplaceComparisonOperator_NotEq_IsNot",
     "if version != SCHEMA_VERSION or isinstance(version, bool) or not _well_formed(data):"):
        "a JSON integer 1 is the cached small int; only a float 1.0, which mcpctl never "
        "writes, would be told apart",
    ("mcpctl/launch.py", "core/ReplaceComparisonOperator_Is_GtE",
     "workspace = admission.definition.source.tier is Tier.WORKSPACE"):
        "only 'workspace' sorts at or after 'workspace' among the tiers",
    ("mcpctl/launch.py", "core/ReplaceComparisonOperator_Is_Eq",
     "workspace = admission.definition.source.tier is Tier.WORKSPACE"):
        "a Tier member equals Tier.WORKSPACE exactly when it is Tier.WORKSPACE",
    ("mcpctl/launch.py", "core/ReplaceComparisonOperator_Eq_GtE",
     "whole = pins is not None and pins.kind == WORKSPACE"):
        "of the pin set kinds (workspace, remote, npx, uvx) none sorts after 'workspace'",
    ("mcpctl/launch.py", "core/ReplaceComparisonOperator_Eq_Is",
     "whole = pins is not None and pins.kind == WORKSPACE"):
        "pin_set makes a workspace set with the WORKSPACE object itself, and no other "
        "kind equals it",
    ("mcpctl/credentials/secret_service.py", "core/NumberReplacer",
     'if not items or locked(items[0], "org.freedesktop.Secret.Item"):'):
        "gnome-keyring locks an item only with its collection, found unlocked just above; "
        "which item is asked, the first or the last, is the same answer there",
    ("mcpctl/credentials/secret_service.py", "core/NumberReplacer",
     "return bool(_unwrap(connection.send_and_get_reply(message, timeout=_TIMEOUT))[0][1])"):
        "Properties.Get answers one value, so the reply's first and last are the same",
    ("mcpctl/credentials/secret_service.py", "core/ReplaceOrWithAnd",
     'if not items or locked(items[0], "org.freedesktop.Secret.Item"):'):
        "no items: items[0] raises, and the read gives None as before; some items: "
        "gnome-keyring locks an item only with its collection, found unlocked just above",
    ("mcpctl/credentials/keyring_store.py", "core/ReplaceComparisonOperator_Eq_GtE",
     'chained = getattr(backend, "backends", None) '
     'if type(backend).__name__ == "ChainerBackend" \\'):
        "only a chainer has `backends`: for any other backend getattr gives the default None",
    ("mcpctl/credentials/keyring_store.py", "core/ReplaceComparisonOperator_Eq_LtE",
     'chained = getattr(backend, "backends", None) '
     'if type(backend).__name__ == "ChainerBackend" \\'):
        "only a chainer has `backends`: for any other backend getattr gives the default None",
    ("mcpctl/credentials/keyring_store.py", "core/ReplaceComparisonOperator_Eq_GtE",
     'return type(backend).__name__ == "ChainerBackend" '
     'and not getattr(backend, "backends", [1])'):
        "only a chainer has `backends`: for any other backend getattr gives the non-empty "
        "default",
    ("mcpctl/credentials/keyring_store.py", "core/ReplaceComparisonOperator_Eq_LtE",
     'return type(backend).__name__ == "ChainerBackend" '
     'and not getattr(backend, "backends", [1])'):
        "only a chainer has `backends`: for any other backend getattr gives the non-empty "
        "default",
    ("mcpctl/credentials/keyring_store.py", "core/NumberReplacer",
     'return type(backend).__name__ == "ChainerBackend" '
     'and not getattr(backend, "backends", [1])'):
        "a chainer always has `backends`, so the default is never used",
    ("mcpctl/credentials/keyring_store.py", "core/NumberReplacer",
     'if data.get("schema_version", 0) > INDEX_SCHEMA_VERSION:'):
        "an index without a version, read as 0, 1 or -1, is not newer than version 1",
    ("mcpctl/files/atomic.py", "core/ReplaceBinaryOperator_BitOr_BitXor",
     "fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)"):
        "O_RDWR and O_CREAT share no bit, so ^ and | give the same flags",
    ("mcpctl/files/atomic.py", "core/ReplaceBinaryOperator_BitOr_Add",
     "fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)"):
        "O_RDWR and O_CREAT share no bit, so + and | give the same flags",
    ("mcpctl/files/atomic.py", "core/ReplaceComparisonOperator_Eq_GtE",
     'if sys.platform == "win32":'):
        "on Linux 'linux' >= 'win32' is false, as == is; the branch is for Windows",
    ("mcpctl/files/atomic.py", "core/ReplaceComparisonOperator_Eq_Gt",
     'if sys.platform == "win32":'):
        "on Linux 'linux' > 'win32' is false, as == is; the branch is for Windows",
    ("mcpctl/files/atomic.py", "core/NumberReplacer", "msvcrt.locking(fd, msvcrt.LK_LOCK, 1)"):
        "Windows-only code: not run where the suite runs",
}
# In a module that starts with `from __future__ import annotations` an annotation is a
# string that is never evaluated: `str | None` → `str - None` runs the same. Such
# mutants are marked done before the run (they would cost a full test run each, for
# nothing) and counted apart as equivalent, not listed one by one. The modules that
# define NamedTuples evaluate their annotations (see mcpctl/model.py): a mutant there
# fails on import, and is run and killed like any other.
IN_ANNOTATION = "in an annotation, which is never evaluated"

MUTANT_TIMEOUT = 300.0  # a mutant that makes the tests hang is killed by this


@dataclass(frozen=True)
class Mutant:
    module: str
    operator: str
    line: int
    column: int
    source: str
    outcome: str
    diff: str
    in_annotation: bool

    @property
    def equivalence(self) -> str | None:
        if self.in_annotation:
            return IN_ANNOTATION
        return EQUIVALENT.get((self.module, self.operator, self.source))


def annotation_spans(text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) as (line, column) of every annotation in the module's source."""
    if "from __future__ import annotations" not in text:
        return []
    spans = []
    for node in ast.walk(ast.parse(text)):
        annotations: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            annotations.append(node.returns)
        elif isinstance(node, ast.arg | ast.AnnAssign):
            annotations.append(node.annotation)
        spans += [((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0))
                  for a in annotations if a is not None]
    return spans


def copy_checkout(destination: Path) -> None:
    """The tracked and new (not ignored) files as they are now, plus the npm servers."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    npm = REPO / "tests" / ".npm"
    if npm.is_dir():
        (destination / "tests" / ".npm").symlink_to(npm)


def test_command(tests: tuple[str, ...]) -> list[str]:
    # One process (`-n 0`): a few tests per mutant gain nothing from workers, whose
    # start would cost each mutant seconds (the suite's default is `-n auto`).
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0",
            *tests]


def write_config(path: Path, module: str) -> None:
    command = " ".join(test_command(TARGETS[module]))
    path.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {MUTANT_TIMEOUT}\n"
        "excluded-modules = []\n"
        f'test-command = "{command}"\n'
        "\n[cosmic-ray.distributor]\nname = \"local\"\n", encoding="utf-8")


def skip_annotations(database: Path, text: str) -> None:
    """Record every mutant inside an annotation as done, so `exec` does not run it."""
    spans = annotation_spans(text)
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT job_id, start_pos_row, start_pos_col FROM mutation_specs").fetchall()
        skipped = [(IN_ANNOTATION, job) for job, row, column in rows
                   if any(start <= (row, column) < end for start, end in spans)]
        connection.executemany(
            "INSERT INTO work_results (worker_outcome, output, test_outcome, diff, job_id) "
            "VALUES ('SKIPPED', ?, NULL, NULL, ?)", skipped)


def read_results(database: Path, module: str, text: str) -> list[Mutant]:
    query = ("SELECT m.operator_name, m.start_pos_row, m.start_pos_col, r.test_outcome, "
             "r.diff FROM mutation_specs m JOIN work_results r ON m.job_id = r.job_id "
             "ORDER BY m.start_pos_row, m.start_pos_col, m.operator_name")
    with sqlite3.connect(database) as connection:
        rows = connection.execute(query).fetchall()
    lines, spans = text.splitlines(), annotation_spans(text)
    mutants = []
    for operator, row, column, outcome, diff in rows:
        typed = any(start <= (row, column) < end for start, end in spans)
        mutants.append(Mutant(module, operator, row, column, lines[row - 1].strip(),
                              "survived" if typed else str(outcome).lower(), diff or "", typed))
    return mutants


def mutate(copy: Path, work: Path, module: str) -> list[Mutant]:
    """Baseline the targeted tests, then run every mutant of `module` against them."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    baseline = subprocess.run(test_command(TARGETS[module]), cwd=copy, env=env,
                              capture_output=True, text=True, check=False)
    if baseline.returncode != 0:
        print(baseline.stdout[-3000:], file=sys.stderr)
        raise SystemExit(f"mutation: the tests for {module} fail unmutated; fix them first")
    config, database = work / "config.toml", work / f"{Path(module).stem}.sqlite"
    write_config(config, module)
    text = (copy / module).read_text(encoding="utf-8")
    subprocess.run([COSMIC_RAY, "init", str(config), str(database)], cwd=copy, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    skip_annotations(database, text)
    subprocess.run([COSMIC_RAY, "exec", str(config), str(database)], cwd=copy, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return read_results(database, module, text)


def report(module: str, mutants: list[Mutant], seconds: float) -> None:
    survived = [m for m in mutants if m.outcome == "survived"]
    killed = sum(m.outcome == "killed" for m in mutants)
    typed = sum(m.equivalence == IN_ANNOTATION for m in survived)
    print(f"\n{module}: {killed}/{len(mutants)} killed, {len(survived)} not killed, of which "
          f"{typed} {IN_ANNOTATION} (not run) ({seconds:.0f} s)", flush=True)
    for mutant in survived:
        if mutant.equivalence == IN_ANNOTATION:
            continue
        why = mutant.equivalence
        tag = f"equivalent: {why}" if why else "SURVIVOR"
        print(f"  {tag}\n    line {mutant.line} {mutant.operator}: {mutant.source}")
        if not why:
            print("".join(f"      {line}\n" for line in mutant.diff.splitlines()
                          if line.startswith(("-", "+")) and not line.startswith(("---",
                                                                                   "+++"))),
                  end="", flush=True)


def choose(names: list[str]) -> list[str]:
    if not names:
        return list(TARGETS)
    chosen = []
    for name in names:
        matches = [module for module in TARGETS if module.removesuffix(".py").endswith(
            name.removesuffix(".py"))]
        if len(matches) != 1:
            raise SystemExit(f"mutation: {name!r} names {len(matches)} of: "
                             f"{', '.join(TARGETS)}")
        chosen += matches
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="suffixes of modules in TARGETS")
    modules = choose(parser.parse_args().modules)
    everything: list[Mutant] = []
    with tempfile.TemporaryDirectory(prefix="mcpctl-mutation-") as scratch:
        copy, work = Path(scratch) / "repo", Path(scratch) / "work"
        copy.mkdir()
        work.mkdir()
        copy_checkout(copy)
        for module in modules:
            started = time.monotonic()
            mutants = mutate(copy, work, module)
            report(module, mutants, time.monotonic() - started)
            everything += mutants
    equivalent = [m for m in everything if m.outcome == "survived" and m.equivalence]
    survivors = [m for m in everything if m.outcome == "survived" and not m.equivalence]
    scored = [m for m in everything if m.outcome in ("killed", "survived")]
    killed = len(scored) - len(equivalent) - len(survivors)
    denominator = len(scored) - len(equivalent)
    score = 100 * killed / denominator if denominator else 100.0
    print(f"\nscore: {killed}/{denominator} non-equivalent mutants killed ({score:.1f} %); "
          f"{len(equivalent)} equivalent, {len(survivors)} unrecorded survivors, "
          f"{len(everything) - len(scored)} incompetent")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
