"""What tool definitions cost in context tokens."""
