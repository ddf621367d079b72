"""Exporter setup: which exporter a mode names (:func:`resolve_mode`, the ``--trace``
syntax, in :mod:`docfleet.core.tracemode` so settings can check it), the exporters
docfleet adds (JSON lines to a file, Google Cloud's Telemetry API) and
:func:`setup_tracing`, which builds the SDK provider and installs its tracer. The SDK is
imported only here, and only when a mode other than ``none`` is set up."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from docfleet.core.errors import ConfigError, MissingExtraError
from docfleet.core.tracemode import TRACE_MODES, resolve_mode
from docfleet.core.version import __version__
from docfleet.telemetry import api
from docfleet.telemetry.api import Attributes

__all__ = ["TRACE_MODES", "resolve_mode", "setup_tracing"]

GCP_TRACES_ENDPOINT = "https://telemetry.googleapis.com/v1/traces"


def _json_line(s: Any) -> str:
    """One span as one compact JSON line (the SDK's ``to_json`` is indented)."""
    return json.dumps(json.loads(s.to_json()), separators=(",", ":")) + "\n"


def check_trace_target(flag: str | None) -> None:
    """Refuse a ``file:PATH`` trace mode whose file cannot be appended to, before anything
    runs (a bad path would otherwise lose every span in the exporter thread). Opens the
    file for append (creating it, never truncating). Raises :class:`ConfigError`."""
    if not flag or not flag.strip().startswith("file:"):
        return
    path = flag.strip().split(",")[0].strip()[5:]
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
    except OSError as exc:
        raise ConfigError(f"--trace file:{path}: cannot write the span file "
                          f"({exc.strerror or exc})",
                          "give a file in an existing, writable directory") from None


class JsonLinesSpanExporter:
    """A span exporter writing each span as one JSON line (``ReadableSpan.to_json``
    compacted) appended to a file; one ``write`` per batch, so processes can share it."""

    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        lines = "".join(_json_line(s) for s in spans)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _gcp_exporter(env: Mapping[str, str]) -> tuple[Any, str | None]:
    try:
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError
        from google.auth.transport.requests import AuthorizedSession
    except ImportError:
        raise MissingExtraError("--trace gcp", "gcp") from None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    try:
        credentials, project = google.auth.default(
            scopes=["https://www.googleapis.com/auth/cloud-platform"]
        )
    except DefaultCredentialsError as exc:
        raise ConfigError(f"--trace gcp found no Google credentials ({exc})",
                          "run on Google Cloud with a service account, or set "
                          "GOOGLE_APPLICATION_CREDENTIALS") from None
    project = env.get("GOOGLE_CLOUD_PROJECT") or project
    endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not endpoint and env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces"
    endpoint = endpoint or GCP_TRACES_ENDPOINT
    headers = {"x-goog-user-project": project} if project else None
    return OTLPSpanExporter(endpoint=endpoint, headers=headers,
                            session=AuthorizedSession(credentials)), project


def setup_tracing(
    mode: str | None, resource: Attributes | None = None, env: Mapping[str, str] | None = None,
    *, exporter: Any = None,
) -> bool:
    """Install the process's tracer for ``mode`` (see :func:`resolve_mode`), with extra
    ``resource`` attributes. ``exporter`` (an SDK ``SpanExporter``, e.g. the in-memory
    one) overrides the mode and is exported synchronously. Returns whether tracing is
    on. Call :func:`shutdown` before the process exits. Raises :class:`ConfigError` for
    an unknown mode, missing ``gcp`` extra or missing Google credentials."""
    env = os.environ if env is None else env
    try:
        mode = "custom" if exporter is not None else resolve_mode(mode, env)
    except ValueError as exc:
        raise ConfigError(str(exc), "set --trace / DOCFLEET_TRACE, or OTEL_TRACES_EXPORTER"
                          ) from None
    if mode == "none":
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    attrs: dict[str, Any] = {"service.version": __version__, **(resource or {})}
    project = env.get("GOOGLE_CLOUD_PROJECT") or env.get("GCP_PROJECT")
    if mode == "gcp":
        exporter, project = _gcp_exporter(env)
        if project:
            attrs["gcp.project_id"] = project
    elif mode == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    elif mode == "console":
        import sys

        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporter = ConsoleSpanExporter(out=sys.stderr, formatter=_json_line)
    elif mode.startswith("file:"):
        exporter = JsonLinesSpanExporter(mode[5:])
    if "service.name" not in attrs and not env.get("OTEL_SERVICE_NAME"):
        attrs["service.name"] = "docfleet"
    resource_obj = Resource.create(attrs)
    if not project and resource_obj.attributes.get("gcp.project_id"):
        project = str(resource_obj.attributes["gcp.project_id"])
    # shutdown_on_exit=False: :func:`shutdown` bounds the final flush; an atexit hook
    # would block the exit again on an unreachable collector.
    provider = TracerProvider(resource=resource_obj, shutdown_on_exit=False)
    processor = SimpleSpanProcessor(exporter) if mode == "custom" else BatchSpanProcessor(exporter)
    provider.add_span_processor(processor)
    api.install(provider.get_tracer("docfleet", __version__), provider, project)
    return True


