"""The rule table of `mcpctl check` and the finding every rule produces (DESIGN §7).

Codes are stable: users select, ignore and search for them, so a code is never reused
for another meaning. Severity `error` fails the check (exit 1) unless `--fail-on`
sets another threshold; `warning` and `info` are reported and pass.
"""

import json
import re
from enum import StrEnum
from typing import NamedTuple

from mcpctl.credentials.secretlike import looks_secret, mask
from mcpctl.syntax.jsonc import JsonPath


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Rule(NamedTuple):
    """One lint rule: its code, name, severity, why it exists and how to fix it."""

    code: str
    name: str
    severity: Severity
    rationale: str
    fix: str
    bad: str = ""  # a server entry (or file) that has the problem, for docs/rules.md
    good: str = ""  # the same, fixed


class Finding(NamedTuple):  # ordered by path, line, column, code
    """One rule broken at one place of one file."""

    path: str
    line: int
    column: int
    code: str
    message: str

    @property
    def rule(self) -> Rule:
        return RULES[self.code]


# Severities mean one thing each (issue 13): error, the client will misbehave or a
# secret or code injection is committed; warning, risky but sometimes intended; info,
# worth knowing. The hook fails on errors unless --fail-on says otherwise.
_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

_TABLE = (
    Rule("MCP001", "parse-error", _E,
         "A file the client cannot parse silently disables every server in it.",
         "fix the syntax at the position shown (comments and trailing commas only in JSONC "
         "formats such as .vscode/mcp.json)",
         '{"mcpServers": {"a": {"command": "x"},}}', '{"mcpServers": {"a": {"command": "x"}}}'),
    Rule("MCP002", "schema", _E,
         "A field of the wrong type or shape makes the client skip or misread the server.",
         "give the field the type and shape the format's schema in schemas/ describes",
         '"a": {"command": "npx", "args": "-y pkg"}',
         '"a": {"command": "npx", "args": ["-y", "pkg"]}'),
    Rule("MCP003", "top-level-key", _E,
         "Servers under a key the client does not read are never started and never reviewed.",
         "put the servers under the format's key: 'servers' in .vscode/mcp.json, "
         "'mcp_servers' in .codex/config.toml, 'mcpServers' elsewhere",
         '{"servers": {"a": {"command": "x"}}}  (in .mcp.json)',
         '{"mcpServers": {"a": {"command": "x"}}}'),
    Rule("MCP004", "duplicate-key", _E,
         "Parsers disagree about which duplicate wins, so a reviewer can see one value "
         "while a client runs the other.",
         "keep exactly one of the duplicated keys",
         '"a": {"command": "safe", "command": "other"}', '"a": {"command": "safe"}'),
    Rule("MCP005", "extra-top-level-key", _I,
         "A top-level key beside the servers that the client ignores: harmless, but "
         "often a note or a setting meant for another file.",
         "remove the key, or move it to the file of the tool it is for",
         '{"_comment": "team servers", "mcpServers": {}}', '{"mcpServers": {}}'),
    Rule("MCP006", "client-rejects", _E,
         "The client that reads this path will not load the entry (or the whole file), "
         "so the server silently does not start.",
         "write the entry the way the named client expects (see the message)",
         '"docs": {"url": "https://example.com/mcp"}  (in .mcp.json)',
         '"docs": {"type": "http", "url": "https://example.com/mcp"}'),
    Rule("MCP007", "misspelled-field", _E,
         "A misspelled field is ignored without a word: the server starts without its "
         "arguments or environment.",
         "use the field's name: args, env, command, headers, url",
         '"a": {"command": "npx", "arg": ["-y", "pkg@1.0.0"]}',
         '"a": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}'),
    Rule("MCP008", "command-line-in-command", _E,
         "Clients start 'command' without a shell: a whole command line there names a "
         "program that does not exist.",
         "put the program in 'command' and each argument in 'args'",
         '"a": {"command": "docker run --rm -i img:1.0"}',
         '"a": {"command": "docker", "args": ["run", "--rm", "-i", "img:1.0"]}'),
    Rule("MCP009", "not-a-config", _I,
         "A file at a config's path that is no config: a template's source (Handlebars, "
         "Jinja, ERB markers) or a comment-only file kept in an archive or deprecated "
         "folder. It is not linted; the file it generates is.",
         "nothing, if the file is meant to be inert; a template is best named as one "
         "(.mcp.json.hbs, .mcp.json.j2), and the file it generates is what to lint",
         '{"mcpServers": {"{{name}}": {{> server}} }}  (in .mcp.json)',
         '{"mcpServers": {"docs": {"command": "docs-mcp"}}}  (the generated file)'),
    Rule("MCP010", "literal-secret", _E,
         "A credential committed to a repo is leaked to everyone who can read it, forever.",
         "revoke the credential, then reference it: ${env:NAME} or ${NAME} for the client, "
         "${secret:NAME} for mcpctl run",
         '"env": {"GITHUB_TOKEN": "ghp_<a real token>"}',
         '"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}'),
    Rule("MCP011", "possible-secret", _W,
         "A long random-looking string is often a credential that matches no known format.",
         "if it is a credential, revoke it and use a reference; if not, ignore MCP011 here",
         '"args": ["--key", "<40 random letters and digits>"]', '"args": ["--key", "${env:KEY}"]'),
    Rule("MCP012", "placeholder-secret", _I,
         "A placeholder where a credential goes (YOUR_API_KEY, xxx, changeme) invites "
         "each user to paste a real one into a committed file.",
         "reference the credential instead: ${env:NAME} or ${NAME} for the client, "
         "${secret:NAME} for mcpctl run",
         '"env": {"API_KEY": "YOUR_API_KEY"}', '"env": {"API_KEY": "${API_KEY}"}'),
    Rule("MCP013", "secret-in-argv", _W,
         "A secret expanded into a server's arguments is visible to every local user in the "
         "process list; its environment is not.",
         "pass it in env (\"env\": {\"KEY\": \"${secret:NAME}\"}) if the server reads it from "
         "there",
         '"args": ["--token", "${secret:github-pat}"]',
         '"env": {"GITHUB_TOKEN": "${secret:github-pat}"}'),
    Rule("MCP020", "unpinned-package", _W,
         "A package runner without an exact version, a git source without a commit, or a "
         "tarball URL runs whatever was published last, on every colleague's machine.",
         "pin an exact version: npx pkg@1.2.3, uvx pkg==1.2.3, pipx run pkg==1.2.3, "
         "git+https://...@<commit>",
         '"args": ["-y", "@scope/server"]', '"args": ["-y", "@scope/server@1.2.3"]'),
    Rule("MCP021", "unpinned-image", _W,
         "A container image without a tag, or tagged latest, changes under the same name.",
         "pin a version tag and preferably a digest: image:1.2.3@sha256:...",
         '"args": ["run", "-i", "--rm", "team/server"]',
         '"args": ["run", "-i", "--rm", "team/server:1.2.3"]'),
    Rule("MCP022", "image-without-digest", _I,
         "A tag can be moved to different content; only a digest names exact bytes.",
         "add the digest: image:1.2.3@sha256:...",
         '"args": ["run", "-i", "team/server:1.2.3"]',
         '"args": ["run", "-i", "team/server:1.2.3@sha256:<digest>"]'),
    Rule("MCP024", "scope-typosquat", _W,
         "A package scope one or two letters away from a well-known one "
         "(@modelcontexprotocol for @modelcontextprotocol) is how typosquatted packages "
         "get run: whoever registered the look-alike publishes what starts.",
         "spell the scope exactly: @modelcontextprotocol/server-...",
         '"args": ["-y", "@modelcontexprotocol/server-memory@1.0.0"]',
         '"args": ["-y", "@modelcontextprotocol/server-memory@1.0.0"]'),
    Rule("MCP030", "shell-wrapper", _W,
         "A command run through a shell is a script that hides what actually starts.",
         "put the program in 'command' and its arguments in 'args' (cmd /c before a "
         "package runner, as Windows needs for npx, is not reported)",
         '"command": "bash", "args": ["-c", "cd srv && node index.js"]',
         '"command": "node", "args": ["index.js"], "cwd": "srv"'),
    Rule("MCP031", "pipe-to-shell", _E,
         "Downloading a script and piping it into a shell runs unreviewed remote code.",
         "install a pinned package instead and run it directly",
         '"args": ["-c", "curl -s https://get.example.com | sh"]',
         '"command": "npx", "args": ["-y", "pkg@1.2.3"]'),
    Rule("MCP032", "injection-env", _E,
         "These variables load code into the server process before it starts "
         "(NODE_OPTIONS, LD_PRELOAD, DYLD_*, BASH_ENV, ...): committed, they are code "
         "injection into every colleague's client.",
         "remove the variable; configure the server through its own options",
         '"env": {"NODE_OPTIONS": "--require ./hook.js"}', '"env": {}'),
    Rule("MCP033", "download-command", _E,
         "An entry whose program is a downloader (curl, wget, Invoke-WebRequest) is no "
         "MCP server: it fetches a URL every time the client starts.",
         "remove the entry, or start the real server directly",
         '"command": "cmd.exe", "args": ["/c", "curl https://x.example/p"]',
         '"command": "npx", "args": ["-y", "pkg@1.2.3"]'),
    Rule("MCP034", "search-path-env", _W,
         "A module search path (PYTHONPATH, NODE_PATH, LD_LIBRARY_PATH) decides which "
         "code the server imports; fine when it points into the repo, risky elsewhere.",
         "install the server as a package, or point the path into the repo only",
         '"env": {"PYTHONPATH": "/opt/shared/lib"}',
         '"env": {"PYTHONPATH": "${workspaceFolder}/src"}'),
    Rule("MCP040", "server-name", _W,
         "Clients namespace tools as server__tool; a name outside [A-Za-z0-9_-]{1,64} "
         "breaks or truncates the tool names (the registry names VS Code and Roo write "
         "themselves excepted).",
         "rename the server using letters, digits, '_' and '-' (at most 64)",
         '"remote docs": {"url": "https://example.com/mcp"}',
         '"remote-docs": {"url": "https://example.com/mcp"}'),
    Rule("MCP041", "user-path", _W,
         "A path under one person's home directory does not exist on anyone else's machine "
         "(reported once per file and user).",
         "use ${workspaceFolder} or ${userHome} instead of the absolute path",
         '"args": ["/Users/ann/code/server.js"]', '"args": ["${workspaceFolder}/server.js"]'),
    Rule("MCP042", "plain-http", _E,
         "Plain http to another host exposes tokens and tool traffic to the network.",
         "use https:// (plain http is fine for this machine, private addresses and "
         "single-label hosts such as a compose service)",
         '"url": "http://mcp.example.com/mcp"', '"url": "https://mcp.example.com/mcp"'),
    Rule("MCP043", "tilde-path", _W,
         "Clients start servers without a shell, so '~' in 'command' or 'cwd' is not the "
         "home directory but a folder named '~'.",
         "use ${userHome} (VS Code, mcpctl) or a path relative to the repo",
         '"command": "~/bin/server"', '"command": "${userHome}/bin/server"'),
    Rule("MCP044", "not-expanded", _E,
         "Clients start servers without a shell: a $(...) or `...` substitution, or a "
         "Windows %VAR%, reaches the program as those very characters.",
         "use the client's own variables (${env:NAME}, ${workspaceFolder}), or pass the "
         "value in env",
         '"args": ["--root", "$(pwd)"]', '"args": ["--root", "${workspaceFolder}"]'),
    Rule("MCP045", "nothing-to-run", _E,
         "A package runner with no package (npx -y), or docker without a subcommand "
         "(docker -i --rm img), exits at once: the server never starts.",
         "name the package after the runner's options, or the docker subcommand first "
         "(docker run -i --rm img)",
         '"command": "docker", "args": ["-i", "--rm", "team/server:1.2.3"]',
         '"command": "docker", "args": ["run", "-i", "--rm", "team/server:1.2.3"]'),
    Rule("MCP046", "headers-on-stdio", _W,
         "Headers are sent only to a server reached by URL; on an entry that starts a "
         "program they are ignored, so the credential meant for it never arrives.",
         "pass the value in env (the program reads it there), or give the entry a url",
         '"a": {"command": "srv", "headers": {"X-Api-Key": "${env:KEY}"}}',
         '"a": {"command": "srv", "env": {"API_KEY": "${env:KEY}"}}'),
    Rule("MCP050", "undefined-input", _E,
         "A ${input:ID} with no matching entry in 'inputs' cannot be prompted for, so the "
         "server cannot start.",
         "declare the input in the top-level 'inputs' list (VS Code) or use ${env:NAME}",
         '"env": {"KEY": "${input:key}"}  (no "inputs")',
         '"inputs": [{"id": "key", "type": "promptString", "password": true}]'),
    Rule("MCP051", "unknown-variable", _W,
         "A ${...} that no client understands is passed on literally.",
         "use ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${env:NAME}, "
         "${VAR}, ${VAR:-default}, ${secret:NAME} or ${input:ID}",
         '"args": ["${workspace}"]', '"args": ["${workspaceFolder}"]'),
    Rule("MCP052", "client-variable", _I,
         "The client that reads this file does not expand this kind of reference; only "
         "a launch through mcpctl would.",
         "use the client's own syntax: ${VAR} in .mcp.json, ${env:VAR} in .vscode/mcp.json "
         "and .cursor/mcp.json",
         '"env": {"KEY": "${env:KEY}"}  (in .mcp.json)', '"env": {"KEY": "${KEY}"}'),
    Rule("MCP060", "committed-approval", _E,
         "A committed .claude/settings.json that approves the repo's own servers lets the "
         "repo approve itself on every clone.",
         "remove enableAllProjectMcpServers / enabledMcpjsonServers; each user approves "
         "servers in their own settings",
         '{"enableAllProjectMcpServers": true}', "{}"),
    Rule("MCP065", "unsafe-agent-settings", _W,
         "A committed project config that turns the agent's safety off (Codex's "
         "approval_policy = \"never\", sandbox_mode = \"danger-full-access\") applies to "
         "everyone who trusts the repo: commands run unasked, outside any sandbox.",
         "keep these in your own ~/.codex/config.toml; commit on-request and "
         "workspace-write at most",
         'approval_policy = "never"  (in .codex/config.toml)',
         'approval_policy = "on-request"'),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _TABLE}


class Hit(NamedTuple):
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
