"""`add --from-registry`, `search`, `outdated` and `upgrade` as real processes against a
real registry on loopback serving captured server.json documents, with the real keyring
and the real npm reference server. No test reaches the network: the registry is on
127.0.0.1 and npx runs offline from the tests/.npm tree."""

from __future__ import annotations

import json
import shutil
import socket
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.components import missing, require_program
from tests.conftest import Result, run_mcpctl
from tests.registry.registry_server import Registry, at_version, fixture
from tests.tier_files import assert_valid

NPM = Path(__file__).resolve().parent.parent / ".npm"
EVERYTHING = "io.github.modelcontextprotocol/server-everything"
INSTALLED = "2026.8.31"  # what tests/.npm holds
APIFY_TOKEN = "apify_api_" + "Q7r8S9t0U1v2W3x4Y5z6A7b8C9d0E1f2G3h4"


def mcpctl(*args: str, stdin: str | None = None, cwd: Path | None = None,
           env: dict[str, str] | None = None) -> Result:
    return run_mcpctl(list(args), stdin=stdin, cwd=cwd, env=env, timeout=120)


def config(user_config: Path) -> dict[str, Any]:
    return tomllib.loads(user_config.read_text(encoding="utf-8"))


def offline_npm(home: Path) -> dict[str, str]:
    """npx without the network: a user-tier server starts in the home folder, so the
    home folder is made an npm project holding tests/.npm's packages (npx uses a
    package installed there at the exact version asked) and npm is told it is offline."""
    require_program("npx")
    if not (NPM / "node_modules" / "@modelcontextprotocol" / "server-everything").is_dir():
        missing("the npm reference servers", "run: npm install --prefix tests/.npm "
                "@modelcontextprotocol/server-everything")
    (home / "node_modules").symlink_to(NPM / "node_modules")
    shutil.copy(NPM / "package.json", home / "package.json")
    return {"npm_config_offline": "true", "npm_config_update_notifier": "false"}


def test_a_registry_npm_server_is_added_pinned_upgraded_and_costed(
        registry: Registry, user_config: Path, isolated_home: Path) -> None:
    """The whole path: add at an old version, see it outdated, upgrade (only the pinned
    word moves, the diff is shown), then `cost` starts the real server and lists its
    tools."""
    registry.publish(at_version(fixture("everything"), INSTALLED))
    env = offline_npm(isolated_home)
    added = mcpctl("add", "everything", "--from-registry", f"{EVERYTHING}@2.0.0",
                   "--registry", registry.url)
    assert (added.code, added.err) == (0, "")
    assert added.out.splitlines()[1:] == [
        f"  from:      {EVERYTHING}@2.0.0 from {registry.url}",
        "  runs:      npx -y @modelcontextprotocol/server-everything@2.0.0 stdio"]
    entry = config(user_config)["servers"]["everything"]
    assert entry["args"] == ["-y", "@modelcontextprotocol/server-everything@2.0.0", "stdio"]
    assert entry["origin"] == {"registry": registry.url, "name": EVERYTHING,
                               "version": "2.0.0",
                               "package": "npm:@modelcontextprotocol/server-everything",
                               "pinned": "@modelcontextprotocol/server-everything@2.0.0"}

    outdated = mcpctl("outdated", "--json")
    assert outdated.code == 0, outdated.err
    assert json.loads(outdated.out)["servers"] == [
        {"name": "everything", "server": EVERYTHING, "current": "2.0.0",
         "latest": INSTALLED, "status": "outdated"}]

    before = user_config.read_text(encoding="utf-8")
    upgraded = mcpctl("upgrade", "everything")
    assert (upgraded.code, upgraded.err) == (0, "")
    assert upgraded.out == (
        f"upgraded everything: 2.0.0 -> {INSTALLED}\n"
        "  args[1]: @modelcontextprotocol/server-everything@2.0.0 -> "
        f"@modelcontextprotocol/server-everything@{INSTALLED}\n"
        f"  origin.version: 2.0.0 -> {INSTALLED}\n")
    after = user_config.read_text(encoding="utf-8")
    assert after == before.replace("server-everything@2.0.0", f"server-everything@{INSTALLED}"
                                   ).replace('version = "2.0.0"', f'version = "{INSTALLED}"')
    again = mcpctl("upgrade", "everything")
    assert (again.code, again.out) == (0, f"everything is at {INSTALLED} already\n")

    listed = mcpctl("list")
    assert f"config.toml:1 from {EVERYTHING}@{INSTALLED}" in listed.out
    shown = mcpctl("show", "everything")
    assert f"  from:      {EVERYTHING}@{INSTALLED} ({registry.url})\n" in shown.out

    cost = mcpctl("cost", "everything", "--tools", "--json", env=env)
    assert cost.code == 0, cost.err[-2000:]
    tools = [t["name"] for t in json.loads(cost.out)["servers"][0]["tools"]]
    assert "echo" in tools
    assert len(tools) >= 5


@pytest.mark.usefixtures("secret_service")
def test_a_remote_with_a_secret_header_keeps_the_value_in_the_keyring_only(
        registry: Registry, user_config: Path) -> None:
    added = mcpctl("add", "apify", "--from-registry", "com.apify/apify-mcp-server",
                   "--registry", registry.url, "--stdin", "--json",
                   stdin=f"Bearer {APIFY_TOKEN}\n")
    assert added.code == 0, added.err
    document = json.loads(added.out)
    assert_valid(document, "add")
    assert document["secrets"] == [{"name": "apify-Authorization", "action": "stored"}]
    text = user_config.read_text(encoding="utf-8")
    assert APIFY_TOKEN not in text
    assert config(user_config)["servers"]["apify"] == {
        "type": "http", "url": "https://mcp.apify.com/",
        "headers": {"Authorization": "${secret:apify-Authorization}"},
        "origin": {"registry": registry.url, "name": "com.apify/apify-mcp-server",
                   "version": "0.17.4"}}
    kept = mcpctl("secret", "get", "apify-Authorization", "--reveal")
    assert kept.out == f"Bearer {APIFY_TOKEN}\n"
    assert APIFY_TOKEN not in added.out + added.err


@pytest.mark.usefixtures("secret_service")
def test_upgrade_keeps_secrets_and_changes_only_the_pin(registry: Registry,
                                                        user_config: Path) -> None:
    env = {"BRAVE_TOKEN_FOR_TEST": "BSAx" + "9" * 27}
    added = mcpctl("add", "brave", "--from-registry", "io.github.brave/brave-search-mcp-server",
                   "--registry", registry.url,
                   "--secret-from-env", "BRAVE_API_KEY=BRAVE_TOKEN_FOR_TEST", env=env)
    assert added.code == 0, added.err
    registry.publish(at_version(fixture("brave-search"), "2.2.0"))
    upgraded = mcpctl("upgrade", "brave", "--json")
    assert upgraded.code == 0, upgraded.err
    document = json.loads(upgraded.out)
    assert_valid(document, "upgrade")
    assert (document["from"], document["to"], document["status"]) == ("2.1.3", "2.2.0",
                                                                      "upgraded")
    entry = config(user_config)["servers"]["brave"]
    assert entry["args"] == ["-y", "@brave/brave-search-mcp-server@2.2.0"]
    assert entry["env"] == {"BRAVE_API_KEY": "${secret:brave-BRAVE_API_KEY}"}
    assert mcpctl("secret", "get", "brave-BRAVE_API_KEY", "--reveal").out == \
        env["BRAVE_TOKEN_FOR_TEST"] + "\n"


def test_a_server_json_file_is_added_without_any_registry(user_config: Path,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "server.json"
    shutil.copy(Path(__file__).parent.parent / "fixtures" / "registry" / "playwright.json",
                path)
    # A registry URL nothing listens on: the file alone must do.
    added = mcpctl("add", "pw", "--from-registry", str(path), "--registry", dead_url())
    assert (added.code, added.err) == (0, "")
    entry = config(user_config)["servers"]["pw"]
    assert entry["args"] == ["-y", "@playwright/mcp@0.1.0"]
    assert entry["origin"]["file"] == str(path)


def test_an_added_registry_server_reaches_the_enabled_clients_at_once(
        user_config: Path, tmp_path: Path, isolated_home: Path) -> None:
    """As after any other `add`: a client in `[clients] sync` gets the entry now, and
    `--no-sync` leaves it saying `mcpctl sync` is needed."""
    path = tmp_path / "server.json"
    shutil.copy(Path(__file__).parent.parent / "fixtures" / "registry" / "playwright.json",
                path)
    assert mcpctl("clients", "enable", "cursor").code == 0
    added = mcpctl("add", "pw", "--from-registry", str(path), "--registry", dead_url())
    assert added.code == 0, added.err
    cursor = json.loads((isolated_home / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["pw"]["args"][-2:] == ["run", "pw"]
    left = mcpctl("add", "pw2", "--from-registry", str(path), "--registry", dead_url(),
                  "--no-sync")
    assert left.code == 0
    assert "note: cursor not updated (--no-sync); run `mcpctl sync`" in left.err
    cursor = json.loads((isolated_home / ".cursor" / "mcp.json").read_text())
    assert "pw2" not in cursor["mcpServers"]


def test_search_lists_latest_versions_and_what_they_need(registry: Registry) -> None:
    result = mcpctl("search", "brave", "--registry", registry.url)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "NEEDS", "DESCRIPTION"]
    assert lines[1].startswith("io.github.brave/brave-search-mcp-server  2.1.3    npm, 1 secret")
    assert lines[2].startswith("io.github.triuzzi/brave-mcp")
    document = json.loads(mcpctl("search", "apify", "--registry", registry.url, "--json").out)
    assert_valid(document, "search")
    assert document["servers"][0]["needs"] == {"kinds": ["remote"],
                                               "secrets": ["Authorization"], "required": []}


def test_the_registry_url_is_a_setting(registry: Registry, user_config: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[registry]\nurl = "{registry.url}"\n', encoding="utf-8")
    found = mcpctl("search", "context7", "--json")
    assert json.loads(found.out)["registry"] == registry.url


def test_search_answers_are_cached_as_the_registry_says(registry: Registry) -> None:
    registry.cache_control = "max-age=600"
    for _ in range(2):
        assert mcpctl("search", "redis", "--registry", registry.url).code == 0
    assert len(registry.requests) == 1


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.parametrize(("args", "fault", "stdin", "code", "message"), [
    (["--from-registry", "io.github.nobody/nothing"], None, None, 2,
     "{url} has no server named 'io.github.nobody/nothing'; find its name with: "
     "mcpctl search nothing"),
    (["--from-registry", "io.github.upstash/context7@9.9.9"], None, None, 2,
     "io.github.upstash/context7 has no version '9.9.9' in {url} (it has: 1.0.0); give one "
     "of them, or leave @VERSION out for the latest"),
    (["--from-registry", "io.github.upstash/context7@"], None, None, 2,
     "--from-registry 'io.github.upstash/context7@': give a version after '@', or leave "
     "'@' out for the latest"),
    (["--from-registry", "io.github.github/github-mcp-server"], None, None, 2,
     "io.github.github/github-mcp-server@${{VERSION}} has no package or remote mcpctl can "
     "use ('ghcr.io/github/github-mcp-server:${{VERSION}}' is not an OCI image reference "
     "mcpctl can pin); mcpctl cannot add it; add it by hand with `mcpctl add NAME -- "
     "COMMAND`"),
    (["--from-registry", "io.github.upstash/context7"], "malformed", None, 7,
     "{url} answered malformed JSON for /v0.1/servers/io.github.upstash%2Fcontext7/"
     "versions/latest; refused"),
    (["--from-registry", "io.github.upstash/context7"], "html", None, 7,
     "{url} answered text/html for /v0.1/servers/io.github.upstash%2Fcontext7/versions/"
     "latest, not JSON; check the registry URL"),
    (["--from-registry", "io.github.brave/brave-search-mcp-server", "--stdin"], None, "\n",
     2, "env BRAVE_API_KEY was left empty; give it on a terminal, with --stdin, or with "
        "--secret-from-env BRAVE_API_KEY=VAR"),
    (["--from-registry", "io.github.dynatrace-oss/Dynatrace-mcp"], None, None, 2,
     "env DT_ENVIRONMENT is required and there is no terminal to ask on; give it with "
     "--env DT_ENVIRONMENT=VALUE"),
    (["--from-registry", "io.github.upstash/context7", "--env", "CONTEXT7_KEY=x"], None, None,
     2, "the server declares no value named 'CONTEXT7_KEY' (it declares: CONTEXT7_API_KEY)"),
    (["--from-registry", "com.example/multi-region-mcp", "--env", "region=mars"], None, None,
     2, "variable region must be one of us-east-1, eu-west-1, ap-southeast-1, not 'mars'"),
    (["--from-registry", "io.github.upstash/context7", "--", "npx", "x"], None, None, 2,
     "--from-registry makes the whole entry; leave out -- COMMAND"),
])
def test_bad_input_is_one_line_with_its_fix_and_nothing_is_written(
        registry: Registry, user_config: Path, args: list[str], fault: str | None,
        stdin: str | None, code: int, message: str) -> None:
    registry.fault = fault
    result = mcpctl("add", "x", *args[:2], "--registry", registry.url, *args[2:], stdin=stdin)
    assert (result.code, result.out) == (code, "")
    assert result.err == f"mcpctl: error: {message.format(url=registry.url)}\n"
    assert not user_config.exists()


def test_a_registry_that_is_down_exits_7(user_config: Path) -> None:
    url = dead_url()
    result = mcpctl("add", "x", "--from-registry", "a.b/c", "--registry", url, "--json")
    assert result.code == 7
    document = json.loads(result.out)
    assert_valid(document, "error")
    assert document["error"]["type"] == "registry_failed"
    assert document["error"]["message"].startswith(f"cannot reach the registry at {url} (")
    assert not user_config.exists()


def test_an_oversized_answer_is_refused(registry: Registry) -> None:
    registry.fault = "oversized"
    result = mcpctl("search", "x", "--registry", registry.url)
    assert result.code == 7
    assert result.err == (f"mcpctl: error: {registry.url} answered more than 4 MiB for "
                          "/v0.1/servers?search=x&version=latest&limit=50; refused (is it a "
                          "registry?)\n")


def test_the_official_registry_url_is_written_once_in_mcpctl() -> None:
    from mcpctl.registry.settings import DEFAULT_REGISTRY  # noqa: PLC0415

    package = Path(__file__).resolve().parent.parent.parent / "mcpctl"
    holding = [p for p in package.rglob("*.py")
               if DEFAULT_REGISTRY.split("//")[1] in p.read_text(encoding="utf-8")]
    assert [p.relative_to(package).as_posix() for p in holding] == ["registry/settings.py"]


@pytest.mark.usefixtures("no_keyring")
def test_with_no_keyring_a_secret_is_refused_and_nothing_is_written(
        registry: Registry, user_config: Path) -> None:
    result = mcpctl("add", "apify", "--from-registry", "com.apify/apify-mcp-server",
                    "--registry", registry.url, "--stdin", stdin=f"Bearer {APIFY_TOKEN}\n")
    assert result.code == 5
    assert result.err.startswith("mcpctl: error: no OS keyring available")
    assert APIFY_TOKEN not in result.err
    assert not user_config.exists()


def test_a_malformed_server_json_file_is_exit_3(tmp_path: Path, user_config: Path) -> None:
    path = tmp_path / "server.json"
    path.write_text('{"name": "io.github.x/y", "version": "1", "packages": [{}]}',
                    encoding="utf-8")
    result = mcpctl("add", "x", "--from-registry", str(path))
    assert (result.code, result.out) == (3, "")
    assert result.err == (f"mcpctl: error: {path}: not a server.json mcpctl can use: "
                          "packages[0].registryType: missing\n")
    assert not user_config.exists()


@pytest.mark.usefixtures("secret_service")
def test_the_readme_example_is_what_mcpctl_prints(registry: Registry,
                                                  isolated_home: Path) -> None:
    """README's "From the registry" session, run against the loopback registry (named as
    the official one in what is compared). The prompt line is a terminal's; here the
    secret comes from --secret-from-env."""
    from mcpctl.registry.settings import DEFAULT_REGISTRY  # noqa: PLC0415
    from tests.test_first_session import README  # noqa: PLC0415

    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## From the registry\n"):]
    block = section.split("\n```\n")[1]
    # MCPCTL_HOME empty: the config is found where a user has it (~/.config/mcpctl).
    env = {"MCPCTL_HOME": "", "README_TOKEN": "BSA" + "r3adme" * 5}
    config = isolated_home / ".config" / "mcpctl" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[registry]\nurl = "{registry.url}"\n', encoding="utf-8")
    steps = [chunk.split("\n") for chunk in block.split("$ ")[1:]]
    for command, *said in steps:
        words = command.split()[1:]
        expected = [line for line in said if line]
        assert "--registry" not in words  # the config's loopback URL must be the one used
        if words[0] == "add":
            words += ["--secret-from-env", "BRAVE_API_KEY=README_TOKEN"]
            expected = [line for line in expected if not line.startswith("env BRAVE_API_KEY")]
        done = run_mcpctl(words, env=env, cwd=isolated_home)
        assert done.code == 0, (command, done.err)
        shown = (done.out + done.err).replace(registry.url, DEFAULT_REGISTRY)
        assert shown.splitlines() == expected, command


def test_outdated_names_a_registry_it_could_not_ask(user_config: Path) -> None:
    path = Path(__file__).parent.parent / "fixtures" / "registry" / "playwright.json"
    assert mcpctl("add", "pw", "--from-registry", str(path)).code == 0
    url = dead_url()
    result = mcpctl("outdated", "--registry", url, "--json")
    assert result.code == 7
    document = json.loads(result.out)
    assert_valid(document, "outdated")
    assert document["servers"] == [{"name": "pw", "server": "io.github.microsoft/playwright-mcp",
                                    "current": "0.1.0", "latest": None, "status": "unknown"}]
    assert result.err.startswith(f"mcpctl: error: pw: cannot reach the registry at {url} (")


@pytest.mark.usefixtures("secret_service")
def test_upgrading_a_remote_moves_only_its_origin_version(registry: Registry,
                                                          user_config: Path) -> None:
    assert mcpctl("add", "apify", "--from-registry", "com.apify/apify-mcp-server",
                  "--registry", registry.url, "--stdin", stdin=f"Bearer {APIFY_TOKEN}\n"
                  ).code == 0
    before = user_config.read_text(encoding="utf-8")
    registry.publish(at_version(fixture("apify"), "0.18.0"))
    result = mcpctl("upgrade", "apify")
    assert (result.code, result.out) == (0, "upgraded apify: 0.17.4 -> 0.18.0\n"
                                             "  origin.version: 0.17.4 -> 0.18.0\n")
    assert user_config.read_text(encoding="utf-8") == before.replace('"0.17.4"', '"0.18.0"')


def test_upgrade_of_a_server_not_from_a_registry_says_how(user_config: Path) -> None:
    assert mcpctl("add", "plain", "--", "npx", "-y", "x@1.0.0").code == 0
    result = mcpctl("upgrade", "plain")
    assert (result.code, result.err) == (2, "mcpctl: error: plain was not added from a "
                                            "registry (it has no origin); add it with: mcpctl "
                                            "add plain --from-registry SERVER --replace\n")


def test_registry_options_without_from_registry_are_refused(user_config: Path) -> None:
    result = mcpctl("add", "x", "--use", "npm", "--", "npx", "-y", "x@1.0.0")
    assert (result.code, result.err) == (2, "mcpctl: error: --registry, --use and "
                                            "--secret-from-env go with --from-registry\n")
    assert not user_config.exists()


@pytest.mark.parametrize("origin", ['origin = "by hand"', '[servers.plain.origin]\nname = "x"'])
def test_an_origin_table_that_is_not_one_is_no_origin_in_list_and_show(
        user_config: Path, tmp_path: Path, origin: str) -> None:
    """A malformed `origin` (not a table, or without a version) is not an origin: the
    entry is listed and shown as written, with no "from" note. With the None check in
    the note dropped (`list_start.py:163`, planted by hand) both ended with an internal
    error (exit 70)."""
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.plain]\ncommand = "plain-mcp"\n{origin}\n')
    for args in (["list"], ["show", "plain"]):
        done = mcpctl(*args, "-w", str(tmp_path))
        assert done.code == 0, (args, done.err)
        assert "plain-mcp" in done.out
        assert " from " not in done.out
