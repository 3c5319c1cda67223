"""A change to a client's file shown as a diff, without leaking a neighbour's token.

The context lines of `export --dry-run` may show other servers' entries, tokens
included: every string literal that looks like a secret is masked (pure).
"""

from __future__ import annotations

import re

_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_BARE_KEY = re.compile(r"^[+\- ]?\s*([A-Za-z0-9_-]+)\s*=")


def masked_diff(old: str, new: str, label: str) -> str:
    """A unified diff of the file, with secret-looking string values masked (the
    context lines may show other servers' tokens)."""
    import difflib  # noqa: PLC0415

    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"{label} (before)", f"{label} (after)")
    return "".join(mask_line(line if line.endswith("\n") else line + "\n") for line in lines)


def mask_line(line: str) -> str:
    """Mask every string literal in `line` that looks like a secret, using the key it
    is written under (`"TOKEN": "..."`, `TOKEN = "..."`) as context."""
    from mcpctl.secretlike import looks_secret, mask  # noqa: PLC0415

    bare = _BARE_KEY.match(line)
    key: str | None = bare[1] if bare else None
    out: list[str] = []
    last = 0
    for match in _LITERAL.finditer(line):
        literal = match.group(0)
        inner = literal[1:-1]
        out.append(line[last:match.start()])
        last = match.end()
        if line[match.end():].lstrip().startswith((":", "=")):
            key = inner
            out.append(literal)
        elif looks_secret(inner, name=key):
            out.append(literal[0] + mask(inner) + literal[-1])
        else:
            out.append(literal)
    out.append(line[last:])
    return "".join(out)
