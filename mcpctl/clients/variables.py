"""Variables in a client's entry, compared with mcpctl's expansion (pure; DESIGN §3).

A value a client passes on literally must not gain a meaning in mcpctl: a `${` there
is a reason to refuse the entry. Gemini CLI also expands bare `$NAME`, which is
written as `${NAME}`. References mcpctl cannot resolve at run time (`${input:}`,
unknown kinds) are reasons too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcpctl.clients.table import ClientFormat, Variables
from mcpctl.model import ServerSpec
from mcpctl.variables import Kind, references_in

_BARE_DOLLAR = re.compile(r"\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)")
_STRING_FIELDS = ("command", "cwd", "url", "envFile")


def check_variables(client: ClientFormat, entry: dict[str, Any], notes: list[str],
                     unsupported: list[str]) -> None:
    if client.variables is Variables.NONE:
        literal = [where for where, text in _strings(entry) if "${" in text]
        if literal:
            unsupported.append(f"{literal[0]} contains '${{', which {client.title} passes on "
                               "literally and mcpctl would expand")
    elif client.variables is Variables.DOLLAR and _brace_bare_dollars(entry):
        notes.append(f"$NAME written as ${{NAME}} ({client.title} expands both)")


def _strings(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    found = [(key, entry[key]) for key in _STRING_FIELDS if isinstance(entry.get(key), str)]
    args = entry.get("args")
    if isinstance(args, list):
        found += [(f"args[{i}]", arg) for i, arg in enumerate(args) if isinstance(arg, str)]
    for table in ("env", "headers"):
        values = entry.get(table)
        if isinstance(values, dict):
            found += [(f"{table} {k}", v) for k, v in values.items() if isinstance(v, str)]
    return found


def _brace_bare_dollars(entry: dict[str, Any]) -> bool:
    """Rewrite `$NAME` as `${NAME}` in every string; True when one changed."""
    before = _strings(entry)
    for key in _STRING_FIELDS:
        if key in entry:
            entry[key] = _braced(entry[key])
    if isinstance(entry.get("args"), list):
        entry["args"] = [_braced(arg) for arg in entry["args"]]
    for table in ("env", "headers"):
        if isinstance(entry.get(table), dict):
            entry[table] = {k: _braced(v) for k, v in entry[table].items()}
    return _strings(entry) != before


def _braced(text: Any) -> Any:
    return _BARE_DOLLAR.sub(r"${\1}", text) if isinstance(text, str) else text


def reference_problems(client: ClientFormat, spec: ServerSpec) -> list[str]:
    """Why references in `spec` cannot be imported (`${input:}`, unknown kinds)."""
    found = []
    for reference in references_in(spec):
        if reference.kind is Kind.INPUT:
            found.append(f"asks {client.title} for input ({reference.text}); store the value "
                         "with `mcpctl secret set` and add the server with `mcpctl add`")
        elif reference.kind is Kind.UNKNOWN:
            found.append(f"uses {reference.text}, which mcpctl does not expand")
        elif reference.kind is Kind.SECRET:
            # The client passes it on as text; in mcpctl it would become a keyring secret,
            # sent wherever the entry says (an argument, a URL).
            found.append(f"has {reference.text} as literal text in {client.title}, which "
                         "mcpctl would replace with a keyring secret")
    return found
