"""Files mcpctl owns: bounded reads, atomic writes, locks."""
