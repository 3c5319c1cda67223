"""A progress line on stderr while servers are probed (terminal only), with the time
spent: a cold `npx`/`uvx` first start can take a minute (issue 26). Without a terminal
nothing is printed until the end, so a script's stderr holds only results; a probe that
times out on a downloader's first start says so in its error."""

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
    from rich.progress import (  # noqa: PLC0415
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{label} 0/{total}", total=total)
        done: list[str] = []

        def advance(name: str) -> None:
            done.append(name)
            bar.update(task, advance=1, description=f"{label} {len(done)}/{total} ({name} done)")

        yield advance
