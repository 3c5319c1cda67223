"""The neighbours' spellings (`claude mcp`, `gemini mcp`, `codex mcp`), made mcpctl's
before typer reads the line (issue 26 item 7). Pure: words in, words out.

Taken where the meaning is the same: `version` (`--version`), `help [COMMAND]`
(`--help`), `get NAME` (`show NAME`), `add-json NAME JSON` (`add NAME --entry JSON`);
`add --scope user|local` is an option of `add` itself. A command given after the name
with options of its own (`add fs npx -y pkg`) cannot be read without `--`: click's
error then gets a hint with the line that works (`usage_hint`).
"""

from __future__ import annotations

from collections.abc import Sequence

# add's options that take a value: their value is not a positional word.
_ADD_VALUED = frozenset({"-e", "--env", "--cwd", "--url", "-H", "--header", "-t",
                         "--transport", "--entry", "--command-line", "--secret-env",
                         "--config", "-w", "--workspace", "--output", "-s", "--scope"})


def neighbours(argv: list[str]) -> list[str]:
    """`argv` with a neighbour's spelling of the command word replaced by mcpctl's."""
    if not argv:
        return argv
    first, rest = argv[0], argv[1:]
    if first == "version" and not rest:
        return ["--version"]
    if first == "help":
        return [*rest, "--help"]
    if first == "get":
        return ["show", *rest]
    if first == "add-json" and len(rest) >= 2 and not rest[0].startswith("-"):
        return ["add", rest[0], "--entry", rest[1], *rest[2:]]
    return argv


# The neighbours' commands with another meaning here: where mcpctl does it instead.
_ELSEWHERE = {
    "mcp": "mcpctl's commands take no `mcp` before them: mcpctl add|list|show|remove …",
    "add-from-claude-desktop": "mcpctl import --from claude-desktop",
    "reset-project-choices": "approvals are by fingerprint here: mcpctl revoke "
                             "--whole-workspace",
    "login": "a remote server's token goes in a header: mcpctl add NAME URL -H "
             "\"Authorization: Bearer $TOKEN\"",
    "logout": "mcpctl remove NAME (its secrets go with it), or mcpctl secret rm NAME",
    "enable": "mcpctl clients enable CLIENT picks the clients sync writes; a server is "
              "switched off in a client's own entry, which sync keeps",
    "disable": "mcpctl clients disable CLIENT; a server is switched off in a client's own "
               "entry, which sync keeps",
    "serve": "mcpctl run NAME starts one server on stdio",
}


def command_hint(word: str) -> str | None:
    """For a neighbour's command word mcpctl does not have: mcpctl's way to do it."""
    return _ELSEWHERE.get(word)


def usage_hint(argv: Sequence[str], option: str) -> str | None:
    """For `add NAME COMMAND -y …`, where click met `option` it does not know: the same
    line with the command after `--`."""
    words = list(argv)
    if not words or words[0] != "add" or "--" in words:
        return None
    positional: list[int] = []
    index = 1
    while index < len(words):
        word = words[index]
        if word in _ADD_VALUED:
            index += 2
            continue
        if not word.startswith("-"):
            positional.append(index)
        elif word.split("=", 1)[0] == option and len(positional) >= 2:
            start = positional[1]
            before = [w for i, w in enumerate(words[1:start], 1) if i != positional[0]]
            line = ["mcpctl", "add", words[positional[0]], *before, "--", *words[start:]]
            return ("a command with options of its own goes after --: " + " ".join(line))
        index += 1
    return None
