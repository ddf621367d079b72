"""Typed errors. Every error a user can cause carries a message that says what was wrong
and what to do; the CLI prints it on one line and exits non-zero, never with a traceback."""

from __future__ import annotations


class DocfleetError(Exception):
    """Base of every error docfleet raises on purpose. ``exit_code`` is the CLI's exit status."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(DocfleetError):
    """A bad flag, setting or URI."""


class MissingExtraError(ConfigError):
    """A backend whose optional dependency is not installed."""

    def __init__(self, what: str, extra: str) -> None:
        super().__init__(
            f"{what} needs the optional extra '{extra}'",
            f"install it with: pip install 'docfleet[{extra}]'",
        )


class RunConflictError(DocfleetError):
    """A run id re-created with other parameters."""


class RunNotFoundError(DocfleetError):
    """A command named a run the state store does not hold."""


class StoreUnavailableError(DocfleetError):
    """The state or blob store did not answer within its retry bound."""

    exit_code = 4


class ManifestGapError(DocfleetError):
    """The root manifest was refused: a part is missing or does not match."""

    exit_code = 1


class RootConflictError(ManifestGapError):
    """A root manifest at the run's key that is not this run's (another run's, or damaged):
    never taken as done."""


class BlobNotFoundError(DocfleetError):
    """A key that does not exist in a blob store."""
