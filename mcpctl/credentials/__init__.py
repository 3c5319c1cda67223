"""Secrets: the detector, masking, redaction, extraction and the OS keyring."""
