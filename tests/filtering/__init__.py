"""Tests of the per-tool policy and its filter (issue 29)."""
