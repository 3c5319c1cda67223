"""The atomic write is durable, not only atomic: the data, then the folder, reach disk.

Watched from outside with strace in a real process: the temp file's descriptor is
fsynced before the rename (else a crash can leave the new name on empty data), and
the folder is fsynced after it (else the rename itself can be lost).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.components import missing

WRITER = ("import sys\nfrom pathlib import Path\n"
          "from mcpctl.files.atomic import atomic_write_text\n"
          "atomic_write_text(Path(sys.argv[1]), 'new text\\n')\n")


def traced_write(target: Path) -> list[str]:
    strace = shutil.which("strace")
    if strace is None:
        missing("strace")
    trace = target.parent / "trace.txt"
    subprocess.run(
        [str(strace), "-f", "-qq", "-o", str(trace), "-e",
         "trace=openat,fsync,fdatasync,rename,renameat,renameat2,close",
         sys.executable, "-c", WRITER, str(target)],
        check=True, timeout=60, capture_output=True)
    return trace.read_text().splitlines()


def test_the_file_then_its_folder_are_fsynced_around_the_rename(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    target = folder / "trust.json"
    target.write_text("old text\n")
    lines = traced_write(target)
    assert target.read_text() == "new text\n"

    temp = re.compile(rf'openat\(.*"{re.escape(str(folder))}/\.trust\.json\.[^"]+\.tmp".* = (\d+)')
    temp_fds = [match[1] for line in lines if (match := temp.search(line))]
    assert len(temp_fds) == 1, lines
    dir_open = re.compile(rf'openat\(.*"{re.escape(str(folder))}", O_RDONLY.* = (\d+)')
    rename = next(i for i, line in enumerate(lines) if re.search(r"rename(at2?)?\(", line)
                  and "trust.json" in line)
    synced_before = [line for line in lines[:rename] if f"fsync({temp_fds[0]})" in line]
    assert synced_before, "the temp file was not fsynced before the rename"
    after = lines[rename:]
    dir_fds = [match[1] for line in after if (match := dir_open.search(line))]
    assert dir_fds, "the folder was not opened after the rename"
    assert any(f"fsync({fd})" in line for fd in dir_fds for line in after), \
        "the folder was not fsynced after the rename"
