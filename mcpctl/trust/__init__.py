"""Approvals by fingerprint: the fingerprint, states, the store and the gate."""
