"""The rule table of `mcpctl check` and the finding every rule produces (DESIGN §7).

Codes are stable: users select, ignore and search for them, so a code is never reused
for another meaning. Severity `error` fails the check (exit 1); `warning` and `info`
are reported and pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum

from mcpctl.credentials.secretlike import looks_secret, mask
from mcpctl.syntax.jsonc import JsonPath


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    rationale: str
    fix: str


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    column: int
    code: str
    message: str

    @property
    def rule(self) -> Rule:
        return RULES[self.code]


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

_TABLE = (
    Rule("MCP001", "parse-error", _E,
         "A file the client cannot parse silently disables every server in it.",
         "fix the syntax at the position shown (comments and trailing commas only in JSONC "
         "formats such as .vscode/mcp.json)"),
    Rule("MCP002", "schema", _E,
         "A field of the wrong type or shape makes the client skip or misread the server.",
         "give the field the type and shape the format's schema in schemas/ describes"),
    Rule("MCP003", "top-level-key", _E,
         "Servers under a key the client does not read are never started and never reviewed.",
         "put the servers under the format's key: 'servers' in .vscode/mcp.json, "
         "'mcpServers' elsewhere"),
    Rule("MCP004", "duplicate-key", _E,
         "Parsers disagree about which duplicate wins, so a reviewer can see one value "
         "while a client runs the other.",
         "keep exactly one of the duplicated keys"),
    Rule("MCP010", "literal-secret", _E,
         "A credential committed to a repo is leaked to everyone who can read it, forever.",
         "revoke the credential, then reference it: ${env:NAME} or ${NAME} for the client, "
         "${secret:NAME} for mcpctl run"),
    Rule("MCP011", "possible-secret", _W,
         "A long random-looking string is often a credential that matches no known format.",
         "if it is a credential, revoke it and use a reference; if not, ignore MCP011 here"),
    Rule("MCP012", "secret-in-argv", _W,
         "A secret expanded into a server's arguments is visible to every local user in the "
         "process list; its environment is not.",
         "pass it in env (\"env\": {\"KEY\": \"${secret:NAME}\"}) if the server reads it from "
         "there"),
    Rule("MCP020", "unpinned-package", _W,
         "A package runner without an exact version runs whatever was published last, on "
         "every colleague's machine.",
         "pin an exact version: npx pkg@1.2.3, uvx pkg==1.2.3, pipx run pkg==1.2.3"),
    Rule("MCP021", "unpinned-image", _W,
         "A container image without a tag, or tagged latest, changes under the same name.",
         "pin a version tag and preferably a digest: image:1.2.3@sha256:..."),
    Rule("MCP022", "image-without-digest", _I,
         "A tag can be moved to different content; only a digest names exact bytes.",
         "add the digest: image:1.2.3@sha256:..."),
    Rule("MCP030", "shell-wrapper", _W,
         "A command run through a shell is a script that hides what actually starts.",
         "put the program in 'command' and its arguments in 'args'"),
    Rule("MCP031", "pipe-to-shell", _E,
         "Downloading a script and piping it into a shell runs unreviewed remote code.",
         "install a pinned package instead and run it directly"),
    Rule("MCP032", "injection-env", _W,
         "These variables load code into the server process before it starts "
         "(NODE_OPTIONS, LD_PRELOAD, DYLD_*, PYTHONPATH, ...).",
         "remove the variable; configure the server through its own options"),
    Rule("MCP040", "server-name", _W,
         "Clients namespace tools as server__tool; a name outside [A-Za-z0-9_-]{1,64} "
         "breaks or truncates the tool names.",
         "rename the server using letters, digits, '_' and '-' (at most 64)"),
    Rule("MCP041", "user-path", _W,
         "A path under one person's home directory does not exist on anyone else's machine.",
         "use ${workspaceFolder} or ${userHome} instead of the absolute path"),
    Rule("MCP042", "plain-http", _E,
         "Plain http to another host exposes tokens and tool traffic to the network.",
         "use https:// (plain http is fine for localhost and 127.0.0.1)"),
    Rule("MCP050", "undefined-input", _E,
         "A ${input:ID} with no matching entry in 'inputs' cannot be prompted for, so the "
         "server cannot start.",
         "declare the input in the top-level 'inputs' list (VS Code) or use ${env:NAME}"),
    Rule("MCP051", "unknown-variable", _W,
         "A ${...} that no client understands is passed on literally.",
         "use ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${env:NAME}, "
         "${VAR}, ${VAR:-default}, ${secret:NAME} or ${input:ID}"),
    Rule("MCP052", "client-variable", _I,
         "The client that reads this file does not expand this kind of reference; only "
         "a launch through mcpctl would.",
         "use the client's own syntax: ${VAR} in .mcp.json, ${env:VAR} in .vscode/mcp.json "
         "and .cursor/mcp.json"),
    Rule("MCP060", "committed-approval", _E,
         "A committed .claude/settings.json that approves the repo's own servers lets the "
         "repo approve itself on every clone.",
         "remove enableAllProjectMcpServers / enabledMcpjsonServers; each user approves "
         "servers in their own settings"),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _TABLE}


@dataclass(frozen=True)
class Hit:
    """A finding before it has a file and a position: the JSON path it is about.

    `at` overrides the position looked up from `path` (a duplicate key is not where
    the first key of that name is).
    """

    code: str
    path: JsonPath
    message: str
    at: tuple[int, int] | None = None


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def where(path: JsonPath) -> str:
    """`mcpServers.github.args[2]`: a JSON path as a reader would write it, in ASCII."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text or "(top level)"


def shown(value: str) -> str:
    """A value from the file, quoted for a message: masked if it looks like a secret."""
    if looks_secret(value):
        return json.dumps(mask(value))
    return json.dumps(value if len(value) <= 80 else value[:77] + "...")
