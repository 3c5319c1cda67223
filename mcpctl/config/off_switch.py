"""A workspace entry its own client does not start: Codex's `enabled = false`.

Measured with Codex 0.171.0's app-server (docs/design.md, "What each client reads"):
an entry of a project's `.codex/config.toml` with `enabled = false` (after the layers
merge, the nearest file winning per key) is reported `disabled` and never started.
mcpctl still lists it, and starts it when asked by name once approved; `list` and
`show` mark it as the client does, and `run` says so before starting it (issue 22).
Pure: the definition is read already.
"""

from typing import NamedTuple

from mcpctl.model import Definition, Tier


class OffSwitch(NamedTuple):
    client: str  # the client's id, as in `[clients] sync`
    title: str
    key: str
    value: object  # the value that turns the entry off
    written: str  # how the file says it


# The workspace format's id → its client's switch (only the measured one).
OFF_SWITCHES = {"codex": OffSwitch("codex", "Codex", "enabled", False, "enabled = false")}


def switched_off(definition: Definition) -> OffSwitch | None:
    """The switch that keeps the client reading this workspace entry from starting it."""
    if definition.source.tier is not Tier.WORKSPACE:
        return None
    switch = OFF_SWITCHES.get(definition.source.format_id or "")
    if switch is None or definition.spec.extra.get(switch.key, None) is not switch.value:
        return None
    return switch


def disabled_note(definition: Definition) -> str:
    """`disabled in Codex: enabled = false`, or "" when the client starts it."""
    switch = switched_off(definition)
    return f"disabled in {switch.title}: {switch.written}" if switch else ""
