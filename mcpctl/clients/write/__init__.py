"""Writing clients' files: export plans, in-place edits, diffs, strict parses."""
