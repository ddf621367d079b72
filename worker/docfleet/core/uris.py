"""Backend URIs. A backend is chosen by its URI scheme, so moving a run from a laptop to a
fleet is a config change: ``sqlite://`` → ``firestore://`` / ``dynamodb://`` /
``postgresql://`` and ``file://`` → ``gs://`` / ``s3://``. The state schemes come from
the backend registry (:mod:`docfleet.core.backends`)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from docfleet.core.backends import schemes
from docfleet.core.errors import ConfigError

BLOB_SCHEMES = ("file", "gs", "s3")
#: Every state-store scheme, in registry order.
STATE_SCHEMES: tuple[str, ...] = schemes()


@dataclass(frozen=True)
class ParsedURI:
    scheme: str
    netloc: str
    path: str
    query: dict[str, str]
    raw: str


def parse_uri(uri: str, schemes: tuple[str, ...], what: str) -> ParsedURI:
    """Split ``uri`` and check its scheme is one of ``schemes``; raise
    :class:`ConfigError` naming the schemes that exist otherwise."""
    if not uri or "://" not in uri:
        raise ConfigError(
            f"{what} URI {uri!r} has no scheme",
            f"use one of: {', '.join(s + '://' for s in schemes)}",
        )
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise ConfigError(
            f"unknown {what} URI scheme '{scheme}://' in {uri!r}",
            f"the schemes that exist are: {', '.join(s + '://' for s in schemes)}",
        )
    return ParsedURI(scheme, parts.netloc, parts.path, dict(parse_qsl(parts.query)), uri)


def redact(uri: str) -> str:
    """``uri`` without user info, query or fragment: safe for logs, messages and span
    attributes (the one redaction docfleet applies; :mod:`docfleet.telemetry` uses it)."""
    parts = urlsplit(uri)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    # never urlunsplit: it drops the "//" of an empty host (sqlite:///rel → sqlite:/rel)
    return f"{parts.scheme}://{netloc}{parts.path}"

