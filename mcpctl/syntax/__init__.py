"""Config text as text: JSON/JSONC and TOML with positions and surgical edits."""
