"""The one error hierarchy and the one table of exit codes (DESIGN §8).

Every failure a user can cause is a `McpctlError` subclass whose class-level
`exit_code` says how the process ends; one handler in `mcpctl.cli.handler` turns it into
a one-line message on stderr.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1
    USAGE = 2
    INVALID_CONFIG = 3
    TRUST_REFUSED = 4
    KEYRING_UNAVAILABLE = 5
    SERVER_FAILED = 6
    REGISTRY_FAILED = 7  # an MCP registry unreachable, or its answer refused (issue 28)
    CANNOT_WRITE = 8  # a file mcpctl must write cannot be (permissions, read-only, full)
    INTERNAL = 70  # an mcpctl bug: the message names the log with the traceback
    HANGUP = 129  # SIGHUP while probing: the servers were stopped first
    INTERRUPTED = 130
    TERMINATED = 143  # SIGTERM while probing: the servers were stopped first


class McpctlError(Exception):
    """Base of every error mcpctl reports to a user."""

    exit_code: ExitCode = ExitCode.FINDINGS


class UsageError(McpctlError):
    """The command line asks for something that cannot be done as asked."""

    exit_code = ExitCode.USAGE


class ConfigError(McpctlError):
    """A config file (ours or a repo's) cannot be read or does not mean anything valid."""

    exit_code = ExitCode.INVALID_CONFIG


class CannotWrite(ConfigError):
    """A file mcpctl must write or lock cannot be: the file itself is fine (issue 26), so
    not exit 3, which says a file is broken. A ConfigError for the callers that catch
    any trouble with mcpctl's own files."""

    exit_code = ExitCode.CANNOT_WRITE


class TrustRefused(McpctlError):
    """A workspace server may not start: it is not approved at its current fingerprint."""

    exit_code = ExitCode.TRUST_REFUSED


class KeyringUnavailable(McpctlError):
    """No usable OS keyring backend."""

    exit_code = ExitCode.KEYRING_UNAVAILABLE


class ServerFailed(McpctlError):
    """A server failed to start or to answer."""

    exit_code = ExitCode.SERVER_FAILED


class RegistryFailed(McpctlError):
    """An MCP registry could not be reached, or answered something mcpctl refuses."""

    exit_code = ExitCode.REGISTRY_FAILED
