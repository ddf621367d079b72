"""Settings: every option from ``DOCFLEET_*`` environment variables (a Cloud Run job is
configured by env), overridable by CLI flags, validated with clear errors."""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from docfleet.errors import ConfigError
from docfleet.uris import BLOB_SCHEMES, STATE_SCHEMES, parse_uri

DEFAULT_PACK = "invoice"
DEFAULT_STATE = "sqlite:///.docfleet/state.db"
DEFAULT_OUT = "file://./out"
RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")


def default_chromium() -> str:
    """The first Debian Chromium installed: the headless-shell binary itself (its
    /usr/bin wrapper is a shell that does not exec), else full chromium."""
    return next((p for p in CHROMIUM_CANDIDATES if os.path.exists(p)), CHROMIUM_CANDIDATES[0])


class Settings(BaseSettings):
    """One task's configuration. Field ``x`` is read from ``DOCFLEET_X``."""

    model_config = SettingsConfigDict(env_prefix="DOCFLEET_", extra="ignore")

    run_id: str | None = None
    total: int | None = Field(default=None, ge=1)
    pack: str = DEFAULT_PACK
    unit_size: int | None = Field(default=None, ge=1)
    state: str = DEFAULT_STATE
    out: str = DEFAULT_OUT
    lease_seconds: float = Field(default=30.0, gt=0)
    max_attempts: int = Field(default=3, ge=1)
    heartbeat_seconds: float | None = Field(default=None, gt=0)
    linger_seconds: float | None = Field(default=None, ge=0)
    poll_seconds: float = Field(default=1.0, gt=0)
    options: dict[str, Any] = Field(default_factory=dict)
    log_format: Literal["auto", "json", "text"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    #: rendering: the Chromium executable (default: Debian's chromium-headless-shell, else
    #: chromium; measured: bench/documents.py) and how many pages one task keeps in flight
    chromium_path: str = Field(default_factory=lambda: default_chromium())
    render_pages: int = Field(default=2, ge=1, le=16)  # measured: bench/documents.py
    #: `docfleet launch`: the Cloud Run job, its project and region (Terraform's outputs)
    cloud_run_job: str = "docfleet"
    cloud_run_project: str | None = None
    cloud_run_region: str | None = None
    #: Cloud Run Admin API endpoint; a plain http:// one (a local fake) gets anonymous creds
    cloud_run_endpoint: str | None = None
    #: none | otlp | console | gcp | file:PATH; unset → OTEL_TRACES_EXPORTER, else none.
    trace: str | None = None

    @field_validator("run_id")
    @classmethod
    def _run_id(cls, value: str | None) -> str | None:
        if value is not None and not RUN_ID_PATTERN.match(value):
            raise ValueError(
                "must be 1-100 characters of letters, digits, '.', '_' or '-', "
                "starting with a letter or digit"
            )
        return value

    @field_validator("trace")
    @classmethod
    def _trace(cls, value: str | None) -> str | None:
        if value is not None:
            from docfleet.telemetry import resolve_mode

            resolve_mode(value, {})
        return value

    @field_validator("state")
    @classmethod
    def _state(cls, value: str) -> str:
        parse_uri(value, STATE_SCHEMES, "state store")
        return value

    @field_validator("out")
    @classmethod
    def _out(cls, value: str) -> str:
        parse_uri(value, BLOB_SCHEMES, "output")
        return value

    @model_validator(mode="after")
    def _lease(self) -> Settings:
        if self.heartbeat_seconds is not None and self.heartbeat_seconds >= self.lease_seconds:
            raise ValueError("heartbeat_seconds must be shorter than lease_seconds")
        return self

    @property
    def heartbeat(self) -> float:
        """How often a worker renews its lease: a third of the lease by default."""
        return self.heartbeat_seconds or self.lease_seconds / 3

    @property
    def linger(self) -> float:
        """How long an idle worker waits for peers' RUNNING units: two leases by default."""
        return self.linger_seconds if self.linger_seconds is not None else 2 * self.lease_seconds


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment with non-``None`` ``overrides`` (CLI flags) on top.
    Raises :class:`ConfigError` with one readable line per problem."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "settings"
            msg = err["msg"].removeprefix("Value error, ")
            source = f"--{field.replace('_', '-')} / DOCFLEET_{field.upper()}"
            problems.append(f"{field}: {msg} (got {err.get('input')!r}; set by {source})")
        raise ConfigError("invalid settings: " + "; ".join(problems)) from None
    except ConfigError:
        raise
    except SettingsError as exc:  # an env value that is not JSON (DOCFLEET_OPTIONS)
        raise ConfigError(f"invalid settings: {exc}",
                          'DOCFLEET_OPTIONS is a JSON object, e.g. {"seller_count": 3}') from None
