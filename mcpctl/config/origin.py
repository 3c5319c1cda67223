"""Where a user-tier entry came from, when a registry made it (issue 28).

`mcpctl add --from-registry` writes an `origin` table into the entry:

```toml
[servers.everything.origin]
registry = "https://registry.example.com"   # or file = "/path/server.json"
name = "io.github.modelcontextprotocol/server-everything"
version = "2.0.0"
package = "npm:@modelcontextprotocol/server-everything"
pinned = "@modelcontextprotocol/server-everything@2.0.0"
```

`show` and `list` say so; `outdated` and `upgrade` read it. Pure: a spec in, an
`Origin` or None out. A malformed table is not an origin (the entry still runs as
written).
"""

from typing import NamedTuple

from mcpctl.model import ServerSpec

ORIGIN_KEY = "origin"


class Origin(NamedTuple):
    name: str
    version: str
    registry: str | None = None
    file: str | None = None
    package: str | None = None  # "npm:pkg", "pypi:pkg", "oci:repo"; None for a remote
    # The launch's pinned word. Not `pin`: a key called so reads as a credential.
    pinned: str | None = None

    def describe(self) -> str:
        where = self.registry or (f"file {self.file}" if self.file else "a registry")
        return f"{self.name}@{self.version} from {where}"


def origin_of(spec: ServerSpec) -> Origin | None:
    table = spec.extra.get(ORIGIN_KEY)
    if not isinstance(table, dict):
        return None
    fields: dict[str, str] = {}
    for key in Origin._fields:
        value = table.get(key)
        if value is not None and not isinstance(value, str):
            return None
        if value is not None:
            fields[key] = value
    if not fields.get("name") or not fields.get("version"):
        return None
    return Origin(**fields)
