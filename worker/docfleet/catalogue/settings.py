"""Task-local catalogue settings (not run parameters): ``DOCFLEET_CATALOGUE_*``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from docfleet.core.settings import load_env_model

#: default block size on Firestore: one budget-document write per 16 calls (reserve) plus
#: one (settle), i.e. a fleet making ~8 calls/s keeps that document near 1 write/s
FIRESTORE_BLOCK_CALLS = 16


class CatalogueSettings(BaseSettings):
    """How one task makes its calls. Field ``x`` is read from ``DOCFLEET_CATALOGUE_X``."""

    model_config = SettingsConfigDict(env_prefix="DOCFLEET_CATALOGUE_", extra="ignore")

    concurrency: int = Field(default=8, ge=1, le=1024)
    call_timeout: float = Field(default=30.0, gt=0, le=3600, allow_inf_nan=False)
    retries: int = Field(default=3, ge=0, le=20)
    backoff_base: float = Field(default=0.25, ge=0, le=60, allow_inf_nan=False)
    api_base: str | None = None
    #: worst cases per budget reservation write (1 = one write per call); default 1, or
    #: FIRESTORE_BLOCK_CALLS on firestore:// (a document takes ~1 sustained write/s)
    block_calls: int | None = Field(default=None, ge=1, le=10_000)
    #: reservation expiry; default: 2 x call timeout + 30 s (block mode: 600 s)
    reservation_ttl: float | None = Field(default=None, gt=0, le=86_400, allow_inf_nan=False)
    quarantine_refresh: float = Field(default=2.0, gt=0, le=3600, allow_inf_nan=False)

    @classmethod
    def load(cls, **overrides: Any) -> CatalogueSettings:
        """From the environment, with ``overrides`` (a command's flags, as in
        :attr:`PackContext.pack_settings`) on top; :class:`ConfigError` naming a bad value
        by its variable. Reads ``os.environ``, never writes it."""

        return load_env_model(
            cls, "DOCFLEET_CATALOGUE_", **{k: str(v) for k, v in overrides.items()})

    @staticmethod
    def env_of(overrides: Mapping[str, Any]) -> dict[str, str]:
        """``overrides`` as the ``DOCFLEET_CATALOGUE_*`` variables of a child task."""
        return {f"DOCFLEET_CATALOGUE_{k.upper()}": str(v) for k, v in overrides.items()}

    def blocks_for(self, state_uri: str) -> int:
        """Calls per reservation for a store: the setting, else by backend."""
        if self.block_calls is not None:
            return self.block_calls
        return FIRESTORE_BLOCK_CALLS if state_uri.startswith("firestore://") else 1

    def ttl_for(self, block_calls: int) -> float:
        """Reservation expiry: the setting, else 2 x call timeout + 30 s (600 s for blocks,
        which live as long as a unit)."""
        if self.reservation_ttl is not None:
            return self.reservation_ttl
        return 600.0 if block_calls > 1 else 2 * self.call_timeout + 30.0
