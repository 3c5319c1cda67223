"""One test per leak of issue 14: after each, every file under the test's folders (the
home and mcpctl's home) and every output stream is searched for the secret, plain and
base64-, hex- and URL-encoded (tests/credentials/leaks.py). Each fails without its fix.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import REPO, Result, run_mcpctl
from tests.credentials.leaks import leaks

ECHO_SERVER = REPO / "tests" / "servers" / "echo_server.py"


def plain_secret() -> str:
    """A password that does not look random: only its field gives it away."""
    return f"orange{uuid.uuid4().int % 10_000:04d}tree"


def github_token() -> str:
    return "ghp_" + uuid.uuid4().hex[:18] + "A1b2C3d4E5f6G7h8I9"


def mcpctl(*args: str, stdin: str | None = None) -> Result:
    return run_mcpctl(list(args), stdin=stdin)


def revealed(name: str) -> str:
    return mcpctl("secret", "get", name, "--reveal").out.removesuffix("\n")


def assert_nowhere(secret: str, tmp_path: Path, results: list[Result],
                   exclude: tuple[Path, ...] = ()) -> None:
    outputs = [text for result in results for text in (result.out, result.err)]
    found = [where for where in leaks(secret, tmp_path, outputs)
             if Path(where) not in exclude]
    assert found == []


# --- missed on the way in ----------------------------------------------------------


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize(("label", "argv", "stored_as"), [
    ("PGPASSWORD", ["--env", "PGPASSWORD={s}", "--", "psql-mcp"], "{n}-PGPASSWORD"),
    ("X-Api-Key header", ["--url", "https://api.example.com/mcp", "--header", "X-Api-Key={s}"],
     "{n}-X-Api-Key"),
    ("Authorization header", ["--url", "https://api.example.com/mcp",
                              "--header", "Authorization=Bearer {s}"], "{n}-Authorization"),
    ("URI password in args", ["--", "pg-mcp", "postgres://app:{s}@db.internal/app"],
     "{n}-arg0"),
    ("URI password in env", ["--env", "DATABASE_URL=postgres://app:{s}@db.internal/app",
                             "--", "pg-mcp"], "{n}-DATABASE_URL"),
    ("unknown --json field", ["--json", '{{"command": "srv", "x-auth": {{"apiKey": "{s}"}}}}'],
     "{n}-x-auth-apiKey"),
])
def test_add_moves_a_credential_known_by_its_field(
    label: str, argv: list[str], stored_as: str, tmp_path: Path, user_config: Path,
) -> None:
    secret, name = plain_secret(), f"in{uuid.uuid4().hex[:6]}"
    added = mcpctl("add", name, *(a.format(s=secret) for a in argv))
    assert added.code == 0, added.err
    assert revealed(stored_as.format(n=name)) == secret
    assert f"${{secret:{stored_as.format(n=name)}}}" in user_config.read_text()
    shown = [mcpctl("show", name, "--workspace", str(tmp_path)),
             mcpctl("list", "--json", "--workspace", str(tmp_path))]
    assert [r.code for r in shown] == [0, 0]
    assert_nowhere(secret, tmp_path, [added, *shown])


@pytest.mark.usefixtures("secret_service")
def test_add_moves_a_token_out_of_a_url_path(tmp_path: Path, user_config: Path) -> None:
    token = github_token()
    added = mcpctl("add", "pathy", "--url", f"https://api.example.com/{token}/mcp")
    assert added.code == 0
    assert 'url = "https://api.example.com/${secret:pathy-url}/mcp"' in user_config.read_text()
    assert revealed("pathy-url") == token
    assert_nowhere(token, tmp_path, [added])


@pytest.mark.usefixtures("secret_service")
def test_import_moves_credentials_known_by_their_field(
    tmp_path: Path, isolated_home: Path, user_config: Path,
) -> None:
    password, uri_password = plain_secret(), plain_secret()
    client_file = isolated_home / ".cursor" / "mcp.json"
    client_file.parent.mkdir(parents=True)
    client_file.write_text(json.dumps({"mcpServers": {"pg": {
        "command": "pg-mcp", "args": [f"postgres://app:{uri_password}@db/app"],
        "env": {"PGPASSWORD": password}}}}))
    imported = mcpctl("import", "--from", "cursor")
    assert imported.code == 0, imported.err
    assert (revealed("pg-PGPASSWORD"), revealed("pg-arg0")) == (password, uri_password)
    for secret in (password, uri_password):
        assert_nowhere(secret, tmp_path, [imported], exclude=(client_file,))


# --- left at rest ---------------------------------------------------------------------


@pytest.mark.usefixtures("secret_service")
def test_export_backups_hold_no_secret_and_are_pruned(
    tmp_path: Path, isolated_home: Path, mcpctl_home: Path,
) -> None:
    token = github_token()
    client_file = isolated_home / ".cursor" / "mcp.json"
    client_file.parent.mkdir(parents=True)
    client_file.write_text(json.dumps({"mcpServers": {"gh": {
        "command": "gh-mcp", "env": {"GITHUB_TOKEN": token}}}}, indent=2))
    results = [mcpctl("import", "--from", "cursor"),
               mcpctl("export", "--to", "cursor", "--replace")]
    assert [r.code for r in results] == [0, 0], results[1].err
    [backup] = sorted((mcpctl_home / "data" / "backups" / "cursor").iterdir())
    assert json.loads(backup.read_text()) == {"mcpServers": {"gh": {
        "command": "gh-mcp", "env": {"GITHUB_TOKEN": "${secret:gh-GITHUB_TOKEN}"}}}}
    assert "with 1 secret value(s) replaced by ${secret:…} references" in results[1].out
    assert_nowhere(token, tmp_path, results)
    for round_trip in range(7):  # each export that changes the file makes a backup
        client_file.write_text(json.dumps({"mcpServers": {f"x{round_trip}": {
            "command": "x", "env": {"GITHUB_TOKEN": token}}}}))
        assert mcpctl("export", "--to", "cursor").code == 0
    assert len(list((mcpctl_home / "data" / "backups" / "cursor").iterdir())) == 5
    client_file.unlink()
    assert_nowhere(token, tmp_path, [])


def echo_config(user_config: Path, secret_name: str) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(
        f'[servers.echo]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(ECHO_SERVER))}]\n'
        f'env = {{ API_TOKEN = "${{secret:{secret_name}}}" }}\n')


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize("secret", ["q7Zx", "correct-horse-battery-staple-4242"])
def test_a_server_that_echoes_its_secret_leaks_it_nowhere(
    secret: str, tmp_path: Path, user_config: Path, mcpctl_home: Path,
) -> None:
    """The probe cache, cost's and doctor's outputs, whatever the secret's length."""
    name = f"echo-{uuid.uuid4().hex[:8]}"
    assert mcpctl("secret", "set", name, "--stdin", stdin=secret).code == 0
    echo_config(user_config, name)
    workspace = ["--workspace", str(tmp_path)]
    results = [mcpctl("cost", *workspace, "--timeout", "10"),
               mcpctl("cost", "--json", "--refresh", *workspace, "--timeout", "10"),
               mcpctl("doctor", *workspace, "--timeout", "10"),
               mcpctl("doctor", "--json", *workspace, "--timeout", "10"),
               mcpctl("list", "--json", *workspace)]
    assert [r.code for r in results] == [0] * 5, results[0].err
    probes = list((mcpctl_home / "cache" / "probes").glob("*.json"))
    assert len(probes) == 1
    cached = json.loads(probes[0].read_text())["probes"]
    [entry] = cached.values()
    assert entry["tools"][0]["description"] == "Calls the API as *** (the configured token)" \
        if len(secret) < 8 else "Calls the API as corr*** (the configured token)"
    assert "stderr: starting with token " in results[2].out
    assert_nowhere(secret, tmp_path, results)


@pytest.mark.usefixtures("secret_service")
def test_run_errors_quote_the_resolved_cwd_and_command_redacted(
    tmp_path: Path, user_config: Path,
) -> None:
    secret = plain_secret()
    name = f"run-{uuid.uuid4().hex[:8]}"
    assert mcpctl("secret", "set", name, "--stdin", stdin=secret).code == 0
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(
        f'[servers.badcwd]\ncommand = "true"\ncwd = "/nonexistent/${{secret:{name}}}"\n\n'
        f'[servers.badcmd]\ncommand = "/nonexistent/${{secret:{name}}}"\n')
    results = [run_mcpctl(["run", server, "--workspace", str(tmp_path)], stdin="")
               for server in ("badcwd", "badcmd")]
    assert [r.code for r in results] == [6, 6]
    assert results[0].err == ("mcpctl: error: server 'badcwd': cannot enter cwd "
                              "/nonexistent/*** : No such file or directory\n"
                              ).replace("*** :", f"{secret[:3]}***:")
    assert results[1].err == ("mcpctl: error: server 'badcmd': command "
                              f"'/nonexistent/{secret[:3]}***' not found on PATH\n")
    assert_nowhere(secret, tmp_path, results)
