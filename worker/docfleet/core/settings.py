"""Settings: every option from ``DOCFLEET_*`` environment variables (a Cloud Run job is
configured by env), overridable by CLI flags, validated with clear errors."""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from docfleet.core.durations import DAY
from docfleet.core.errors import ConfigError
from docfleet.core.tracemode import resolve_mode
from docfleet.core.uris import BLOB_SCHEMES, STATE_SCHEMES, parse_uri

DEFAULT_PACK = "invoice"
DEFAULT_STATE = "sqlite:///.docfleet/state.db"
DEFAULT_OUT = "file://./out"
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # always fullmatch
#: Bounds of the documented numeric settings (README "Configuration").
MAX_TOTAL = 1_000_000_000
MAX_UNIT_SIZE = 1000

#: The CLI flag of each setting that has one (an error names only flags that exist).
FLAGS = {
    "run_id": "--run-id", "total": "--total", "pack": "--pack", "unit_size": "--unit-size",
    "state": "--state", "out": "--out", "out_moved": "--out-moved",
    "lease_seconds": "--lease-seconds", "max_attempts": "--max-attempts", "options": "--option",
    "trace": "--trace",
    "cloud_run_job": "--job", "cloud_run_project": "--project", "cloud_run_region": "--region",
}


def env_var(field: str) -> str:
    """The environment variable of setting ``field``."""
    return f"DOCFLEET_{field.upper()}"


def source_of(field: str, flags: set[str] | None = None) -> str:
    """Where setting ``field`` came from, for an error message: its flag if ``flags`` (the
    settings given as flags) holds it, else its variable; with no ``flags``, both (only
    flags that exist are named)."""
    if flags is None:
        return f"{FLAGS[field]} / {env_var(field)}" if field in FLAGS else env_var(field)
    return FLAGS[field] if field in flags and field in FLAGS else env_var(field)


CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")


def default_chromium() -> str:
    """The first Debian Chromium installed: the headless-shell binary itself (its
    /usr/bin wrapper is a shell that does not exec), else full chromium."""
    return next((p for p in CHROMIUM_CANDIDATES if os.path.exists(p)), CHROMIUM_CANDIDATES[0])


class Settings(BaseSettings):
    """One task's configuration. Field ``x`` is read from ``DOCFLEET_X``."""

    model_config = SettingsConfigDict(env_prefix="DOCFLEET_", extra="ignore")

    run_id: str | None = None
    total: int | None = Field(default=None, ge=1, le=MAX_TOTAL)
    pack: str = DEFAULT_PACK
    unit_size: int | None = Field(default=None, ge=1, le=MAX_UNIT_SIZE)
    state: str = DEFAULT_STATE
    out: str = DEFAULT_OUT
    #: ``out`` is not the URI the run recorded but a copy of its outputs: use it anyway
    #: (:mod:`docfleet.core.outputs`)
    out_moved: bool = False
    lease_seconds: float = Field(default=30.0, gt=0, le=DAY, allow_inf_nan=False)
    max_attempts: int = Field(default=3, ge=1, le=1000)
    heartbeat_seconds: float | None = Field(default=None, gt=0, le=DAY, allow_inf_nan=False)
    linger_seconds: float | None = Field(default=None, ge=0, le=DAY, allow_inf_nan=False)
    poll_seconds: float = Field(default=1.0, gt=0, le=3600, allow_inf_nan=False)
    #: on a store that claims in batches (PostgreSQL): the work one batch of claims may
    #: hold, in seconds of the task's own unit time; 0 = one unit at a time
    #: (docfleet.kernel.claimbatch)
    claim_batch_seconds: float = Field(default=1.0, ge=0, le=3600, allow_inf_nan=False)
    #: how long a cloud store call is retried before the task exits 4 (read by retry.py)
    store_retry_seconds: float = Field(default=60.0, ge=0, le=DAY, allow_inf_nan=False)
    options: dict[str, Any] = Field(default_factory=dict)
    log_format: Literal["auto", "json", "text"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    #: rendering: the Chromium executable (default: Debian's chromium-headless-shell, else
    #: chromium; measured: bench/documents.py) and how many pages one task keeps in flight
    chromium_path: str = Field(default_factory=lambda: default_chromium())
    render_pages: int = Field(default=2, ge=1, le=16)  # measured: bench/documents.py
    #: where compiled templates are cached ("" = the user cache dir, "off" = no cache);
    #: read by docfleet.render.template_cache
    template_cache: str = ""
    #: where the browser driver's compiled code is cached ("" = the user cache dir, "off"
    #: = no cache; an operator's NODE_COMPILE_CACHE wins); read by
    #: docfleet.render.driver_cache
    driver_cache: str = ""
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
        if value is not None and not RUN_ID_PATTERN.fullmatch(value):
            raise ValueError(
                "must be 1-100 characters of letters, digits, '.', '_' or '-', "
                "starting with a letter or digit"
            )
        return value

    @field_validator("trace")
    @classmethod
    def _trace(cls, value: str | None) -> str | None:
        if value is not None:
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
            raise ConfigError(
                "heartbeat_seconds must be shorter than lease_seconds: "
                f"DOCFLEET_HEARTBEAT_SECONDS={self.heartbeat_seconds:g} is not shorter than "
                f"the lease ({self.lease_seconds:g}s), which would expire before its renewal",
                "set DOCFLEET_HEARTBEAT_SECONDS below --lease-seconds / "
                "DOCFLEET_LEASE_SECONDS, or unset it (default: a third of the lease)")
        return self

    @property
    def heartbeat(self) -> float:
        """How often a worker renews its lease: a third of the lease by default."""
        return self.heartbeat_seconds or self.lease_seconds / 3

    @property
    def linger(self) -> float:
        """How long an idle worker waits for peers' RUNNING units: two leases by default."""
        return self.linger_seconds if self.linger_seconds is not None else 2 * self.lease_seconds


def _problem(err: Any, flags: set[str], prefix: str = "DOCFLEET_") -> str:
    field = str(err["loc"][0]) if err["loc"] else ""
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "finite_number":
        msg = "must be a finite number"
    if not field:  # a whole-model check raises its own ConfigError; never dump the model
        return msg
    source = source_of(field, flags) if prefix == "DOCFLEET_" else f"{prefix}{field.upper()}"
    return f"{field}: {msg} (got {err.get('input')!r}; set by {source})"


def load_env_model(model: Any, prefix: str, **overrides: Any) -> Any:
    """Another settings class read from ``{prefix}*`` variables (e.g. the catalogue's
    ``DOCFLEET_CATALOGUE_*``) with ``overrides`` on top, with :func:`load_settings`'
    one-line errors (a bad value is named by its variable)."""
    try:
        return model(**overrides)
    except ValidationError as exc:
        problems = [_problem(err, set(), prefix) for err in exc.errors()]
        raise ConfigError("invalid settings: " + "; ".join(problems),
                          "fix the value named, see README 'Configuration'") from None


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment with non-``None`` ``overrides`` (CLI flags) on top.
    Raises :class:`ConfigError` with one readable line naming each bad value, where it
    came from (a flag or variable that exists) and what is allowed."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = [_problem(err, set(given)) for err in exc.errors()]
        raise ConfigError("invalid settings: " + "; ".join(problems),
                          "fix the value named, see README 'Configuration'") from None
    except ConfigError:
        raise
    except SettingsError as exc:  # an env value that is not JSON (DOCFLEET_OPTIONS)
        match = re.search(r'field "(\w+)"', str(exc))
        var = env_var(match.group(1)) if match else "a DOCFLEET_* variable"
        raw = os.environ.get(var, "")
        what = " (the pack options)" if var == "DOCFLEET_OPTIONS" else ""
        raise ConfigError(f"{var}{what} is not valid JSON (got {raw[:80]!r})",
                          f'{var} is a JSON object, e.g. {{"lines": "1-3"}}; or use --option '
                          "KEY=VALUE") from None
