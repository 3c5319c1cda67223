"""The command line: typer commands that parse, call one core function and render."""
