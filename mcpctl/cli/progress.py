"""A progress line on stderr while servers are probed (terminal only)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def progress(label: str, total: int) -> Iterator[Callable[[str], None]]:
    """Yield a callback to call as each item finishes; silent when stderr is no terminal."""
    if total == 0 or not sys.stderr.isatty():
        yield lambda _name: None
        return
    from rich.console import Console  # noqa: PLC0415
    from rich.progress import Progress, SpinnerColumn, TextColumn  # noqa: PLC0415

    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{label} 0/{total}", total=total)
        done: list[str] = []

        def advance(name: str) -> None:
            done.append(name)
            bar.update(task, advance=1, description=f"{label} {len(done)}/{total} ({name} done)")

        yield advance
