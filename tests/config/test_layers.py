"""Codex's project layers read as one (issue 22 item 2): from a subfolder, each
`.codex/config.toml` up to the project root merges key by key into one entry per name,
the nearest file winning per key (measured against the real Codex in
tests/clients/test_reading_rule.py); these pin mcpctl's side with real files."""

from __future__ import annotations

from pathlib import Path

from mcpctl.config.formats import format_by_id
from mcpctl.config.layers import merged
from mcpctl.config.merge import merge
from mcpctl.config.workspace import folder_of, load_workspace
from mcpctl.model import Tier


def test_tables_merge_at_every_depth_and_everything_else_is_replaced() -> None:
    far = {"command": "node", "args": ["a.js", "--x"], "env": {"FOO": "far", "OTHER": "x"},
           "headers": {"A": "1"}}
    near = {"args": ["b.js"], "env": {"FOO": "near"}, "headers": "not a table"}
    assert merged([far, near]) == {"command": "node", "args": ["b.js"],
                                   "env": {"FOO": "near", "OTHER": "x"},
                                   "headers": "not a table"}
    # Three layers, farthest first; the input is left as it was.
    assert merged([far, {"env": {"NEW": "1"}}, near])["env"] == {
        "FOO": "near", "OTHER": "x", "NEW": "1"}
    assert far["env"] == {"FOO": "far", "OTHER": "x"}
    assert merged([near]) is near


def _codex(folder: Path, text: str) -> Path:
    (folder / ".codex").mkdir(parents=True, exist_ok=True)
    path = folder / ".codex" / "config.toml"
    path.write_text(text)
    return path


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "sub" / "deep").mkdir(parents=True)
    return root, root / "sub" / "deep"


def test_a_nearer_layer_setting_one_key_is_one_merged_definition_with_both_files(
    tmp_path: Path,
) -> None:
    root, here = _repo(tmp_path)
    far = _codex(root, '[mcp_servers.other]\ncommand = "o"\n\n'
                       '[mcp_servers.m]\ncommand = "run-m"\nargs = ["--far"]\n'
                       'env = { FOO = "far", OTHER = "x" }\n')
    near = _codex(root / "sub", '# the subfolder only changes FOO\n[mcp_servers.m.env]\n'
                                'FOO = "near"\n')
    load = load_workspace(root, here)
    assert load.problems == []
    assert load.files == [near, far]
    servers = {s.name: s for s in merge(load.definitions)}
    m = servers["m"]
    assert m.shadowed == ()
    assert (m.winner.spec.command, m.winner.spec.args, dict(m.winner.spec.env)) == (
        "run-m", ("--far",), {"FOO": "near", "OTHER": "x"})
    source = m.winner.source
    assert (source.tier, source.path, source.line, source.layers) == (
        Tier.WORKSPACE, near, 2, ((far, 4),))
    assert folder_of(source, root) == root / "sub"  # gated as the nearer file's folder
    # A name only the farther file has is that file's own, as before.
    assert (servers["other"].winner.source.path, servers["other"].winner.source.layers) \
        == (far, ())
    # -w ROOT (no current folder): the root's file alone, `m` as it writes it.
    alone = {d.name: d for d in load_workspace(root).definitions}
    assert dict(alone["m"].spec.env) == {"FOO": "far", "OTHER": "x"}
    # From the root itself there is one layer: nothing to merge.
    assert [d.source.layers for d in load_workspace(root, root).definitions] == [(), ()]


def test_a_merged_entry_that_is_no_server_is_an_error_at_the_nearer_file(
    tmp_path: Path,
) -> None:
    root, here = _repo(tmp_path)
    _codex(root, '[mcp_servers.m]\nurl = "https://example.com/mcp"\n')
    near = _codex(root / "sub", '[mcp_servers.m]\ncommand = "local"\n\n'
                                '[mcp_servers.fine]\ncommand = "f"\n')
    load = load_workspace(root, here)
    assert [(p.path, p.line, p.message) for p in load.problems] == [
        (near, 1, "server 'm' has both 'command' and 'url'; it needs exactly one")]
    assert [d.name for d in load.definitions] == ["fine"]


def test_a_layer_that_cannot_be_read_leaves_no_codex_server(tmp_path: Path) -> None:
    """Codex loads none of its layers then (measured): a nearer entry alone is not
    what it would start."""
    root, here = _repo(tmp_path)
    far = _codex(root, '[mcp_servers.m\ncommand = "x"\n')
    _codex(root / "sub", '[mcp_servers.m]\ncommand = "near"\n')
    (root / ".mcp.json").write_text('{"mcpServers": {"c": {"command": "claude-side"}}}')
    load = load_workspace(root, here)
    assert [(p.path, p.line) for p in load.problems] == [(far, 1)]
    assert [(d.name, d.source.format_id) for d in load.definitions] == [("c", "claude")]
    codex = format_by_id("codex")
    assert codex is not None
    assert codex.layered
