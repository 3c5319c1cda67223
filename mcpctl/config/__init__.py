"""Server definitions: formats, entries, the user and workspace tiers, the merge."""
