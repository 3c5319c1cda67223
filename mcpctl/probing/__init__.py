"""Probing servers here: gate, resolve, start, list tools, cache; doctor's checks."""
