"""Helpers for tests of the tiers and trust: real files in a real folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def json_manifest(trust_file: Path, named_by: str, files: dict[str, str]) -> None:
    """A manifest as an older mcpctl wrote it beside `trust_file`: JSON, named by
    `named_by`, each path with its full digest, 10 bytes and 1 line."""
    path = trust_file.parent / "approved-files" / f"{named_by.removeprefix('sha256:')}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"files": {name: [digest, 10, 1] for name, digest in
                                          files.items()}}, ensure_ascii=False),
                    encoding="utf-8")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_workspace(parent: Path, files: dict[str, str], *, name: str = "repo") -> Path:
    """A folder with `.git` and the given files (relative path → text)."""
    root = parent / name
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        write(root / relative, text)
    return root


def mcp_json(servers: dict[str, Any], top_key: str = "mcpServers") -> str:
    return json.dumps({top_key: servers}, indent=2) + "\n"


def write_servers(root: Path, servers: dict[str, Any], relative: str = ".mcp.json") -> Path:
    top_key = "servers" if relative == ".vscode/mcp.json" else "mcpServers"
    return write(root / relative, mcp_json(servers, top_key))


def assert_valid(document: Any, schema_name: str) -> None:
    """Validate against `schemas/<schema_name>.schema.json` (Draft 2020-12, formats checked)."""
    # No stubs ship for jsonschema; the ignore stays quiet if an override is added.
    import jsonschema  # type: ignore[import-untyped, unused-ignore]  # noqa: PLC0415

    schema = json.loads((SCHEMAS / f"{schema_name}.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
    assert errors == []
