"""Make text from config files and servers safe to show on a terminal (pure).

A repo's strings reach the screen in `list`, `show` and the `trust` prompt. A carriage
return, an escape sequence or a bidi override inside an argument could redraw or
reorder what the user reads before approving it, so every control character and
bidi control is shown as an escape (`\\x1b`, `\\r`, `\\u202e`) instead.
"""

from __future__ import annotations

_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPES = {code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]}
_ESCAPES.update({ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"})
_ESCAPES.update({code: f"\\u{code:04x}" for code in _BIDI})


def printable(text: str) -> str:
    """`text` with every control character and bidi control escaped; newlines too."""
    return text.translate(_ESCAPES)


def printable_lines(text: str) -> str:
    """Like `printable`, keeping the line breaks of a multi-line block (a diff)."""
    return "\n".join(printable(line) for line in text.split("\n"))
