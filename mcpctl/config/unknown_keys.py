"""Keys mcpctl does not know in a server entry: warnings, with a "did you mean" (issue 15).

`arg` for `args` or `envs` for `env` is accepted silently by every parser (the entry is
still a valid server, only not the one meant), so it must be said. In config.toml,
mcpctl's own format, every unknown key is worth a warning. A repo's file is also read
by other clients, which invent fields of their own (`disabled`, `alwaysAllow`,
`trust`...), so there only a near miss of a known key is reported. Pure: definitions in,
warnings out.
"""

from collections.abc import Iterable
from typing import NamedTuple

from mcpctl.config.entries import KNOWN_FIELDS
from mcpctl.model import Definition, Tier

# The spellings other formats use for known fields count as known too.
_ALIASES = frozenset({"serverUrl", "httpUrl", "env_file", "envfile"})
# Keys mcpctl itself writes into config.toml entries (`add --from-registry`; `workspace`
# makes a server one folder's, issue 26: it was called unknown inside that very folder).
_OWN = frozenset({"origin", "workspace"})
_KNOWN = sorted(KNOWN_FIELDS)


class UnknownKey(NamedTuple):
    """A key mcpctl does not know in an entry, with the known key it may mean."""

    definition: Definition
    key: str
    suggestion: str | None

    def message(self) -> str:
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else \
            " (mcpctl keeps it but does not use it)"
        return (f"{self.definition.source.location()}: warning: server "
                f"{self.definition.name!r}: unknown key {self.key!r}{hint}")


def suggestion_for(key: str) -> str | None:
    lowered = {known.lower(): known for known in _KNOWN}
    if key.lower() in lowered:
        return lowered[key.lower()]
    from difflib import get_close_matches  # noqa: PLC0415 - an unknown key only

    close = get_close_matches(key, _KNOWN, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_keys(definitions: Iterable[Definition]) -> list[UnknownKey]:
    found = []
    for definition in definitions:
        for key in definition.spec.extra:
            if key in _ALIASES or (key in _OWN and definition.source.tier == Tier.USER):
                continue
            suggestion = suggestion_for(key)
            if definition.source.tier == Tier.USER or suggestion is not None:
                found.append(UnknownKey(definition, key, suggestion))
    return found
