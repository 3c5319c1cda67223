"""What a probed server's output must not show: the values its `${secret:…}` and
`${env:…}` references took, and every credential-named env value and header.
`redact.redact` hides them in what the server says (stderr, a quoted stdout line,
an error)."""

from __future__ import annotations

import os
from pathlib import Path

from mcpctl.credentials.redact import substitutions
from mcpctl.credentials.secretlike import find_secret
from mcpctl.launch import Launch
from mcpctl.model import ServerSpec


def hidden_values(spec: ServerSpec, launch: Launch) -> list[str]:
    """What `resolve_launch` substituted into `spec` from secrets and env vars, learnt by
    matching each field as written with its resolved form; plus every env value (an
    `envFile`'s too) and header that is a credential by its name (`API_KEY=…`,
    `Authorization: Bearer …`), which a server may echo in no recognisable shape."""
    pairs: list[tuple[str, str]] = []
    if spec.command is not None:
        pairs += zip(spec.argv(), launch.argv, strict=False)
    pairs += [(text, launch.env[key]) for key, text in spec.env.items() if key in launch.env]
    pairs += [(text, launch.headers[key]) for key, text in spec.headers.items()
              if key in launch.headers]
    if spec.url is not None and launch.url is not None:
        pairs.append((spec.url, launch.url))
    if spec.cwd is not None and launch.cwd is not None:
        pairs.append((spec.cwd, _as_written_relative(spec.cwd, launch.cwd, launch.root)))
    values = [value for written, resolved in pairs for value in substitutions(written, resolved)]
    for key, value in [*launch.env.items(), *launch.headers.items()]:
        match = find_secret(value, name=key)
        if match is not None and match.certain:
            values.append(match.text)
    return list(dict.fromkeys(values))


def _as_written_relative(written: str, resolved: str, root: Path) -> str:
    """A relative `cwd` is resolved under the root; compare the part that was written."""
    prefix = f"{root}{os.sep}"
    if not written.startswith(("/", "~", "${")) and resolved.startswith(prefix):
        return resolved[len(prefix):]
    return resolved
