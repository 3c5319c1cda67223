"""A change to a client's file shown as a diff, without leaking a neighbour's token.

The context lines of `export --dry-run` may show other servers' entries, tokens
included. The secrets are found in the parsed documents, where each string has its
key or the option before it as context (bare TOML keys inside inline tables, `--token
VALUE`, a URL's password), and every such literal is masked wherever the diff shows it;
a pass over each line's quoted literals follows (pure).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_BARE_KEY = re.compile(r"^[+\- ]?\s*([A-Za-z0-9_-]+)\s*=")
# A masked literal this long is masked even outside quotes (in a comment, say);
# a shorter one only as a whole quoted string, so that its letters elsewhere stay.
_ANYWHERE = 8


def masked_diff(old: str, new: str, label: str, documents: Iterable[Any] = ()) -> str:
    """A unified diff of the file, with secret-looking string values masked (the
    context lines may show other servers' tokens). `documents` are the parsed old and
    new files, where the secrets are found."""
    import difflib  # noqa: PLC0415

    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"{label} (before)", f"{label} (after)")
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    shown = {}
    for document in documents:
        shown.update(secret_literals(document))
    return "".join(mask_line(line) for line in
                   mask_literals(text, shown).splitlines(keepends=True))


def secret_literals(document: Any) -> dict[str, str]:
    """Each string in `document` that masking would change, with how it is shown;
    judged with its key, or the option before it in a list, as context."""
    found: dict[str, str] = {}
    stack: list[tuple[Any, str | None]] = [(document, None)]
    while stack:  # not recursive: an unrelated value may nest hundreds of levels
        value, key = stack.pop()
        if isinstance(value, dict):
            stack += [(item, str(name)) for name, item in value.items()]
        elif isinstance(value, list):
            for index, item in enumerate(value):
                before = value[index - 1] if index else None
                option = before if isinstance(before, str) and before.startswith("-") \
                    else None
                stack.append((item, key) if option is None or not isinstance(item, str)
                             else (item, option))
        elif isinstance(value, str):
            masked = _masked_string(value, key)
            if masked != value:
                found[value] = masked
    return found


def _masked_string(value: str, key: str | None) -> str:
    from mcpctl.credentials.masking import masked_args, masked_url, masked_value  # noqa: PLC0415

    if "://" in value and (url := masked_url(value)) != value:
        return url
    if key is not None and key.startswith("-"):
        return masked_args([key, value])[1]
    return masked_args([value])[0] if value.startswith("-") else masked_value(value, key)


def mask_literals(text: str, shown: dict[str, str]) -> str:
    """`text` with each literal of `shown` replaced, quoted as JSON or TOML writes it."""
    for literal in sorted(shown, key=len, reverse=True):
        replacement = shown[literal]
        escaped, masked = json.dumps(literal, ensure_ascii=False)[1:-1], \
            json.dumps(replacement, ensure_ascii=False)[1:-1]
        if len(literal) >= _ANYWHERE:
            text = text.replace(escaped, masked).replace(literal, replacement)
        else:
            text = text.replace(f'"{escaped}"', f'"{masked}"') \
                .replace(f"'{literal}'", f"'{replacement}'")
    return text


def mask_line(line: str) -> str:
    """Mask every string literal in `line` that looks like a secret, using the key it
    is written under (`"TOKEN": "..."`, `TOKEN = "..."`) as context."""
    from mcpctl.credentials.secretlike import looks_secret, mask  # noqa: PLC0415

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
