"""Where a run's outputs are. The output URI is recorded with the run when it is planned
(:attr:`docfleet.core.models.RunSpec.out`, stored in the run marker, never fingerprinted),
and every command that reads or writes a run's outputs takes it from there.

The one rule (:func:`choose_out`), for ``status``, ``verify``, ``resume``, ``report``,
``export``, ``card``, ``delete``, ``run`` and ``work``:

- a run that recorded its URI uses it when no ``--out`` (nor ``DOCFLEET_OUT``) is given;
- a given URI that names the same place (:func:`same_out`) is that URI;
- a given URI that names another place is refused in one line (:class:`ConfigError`),
  unless the caller says the outputs were copied there (``--out-moved``): then it is used
  for that command only, and the recorded URI stays as it was;
- a run planned before outputs were recorded (none stored) uses the given URI or the
  default, as it always did.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from docfleet.core.errors import ConfigError
from docfleet.core.models import Run
from docfleet.core.settings import Settings
from docfleet.core.uris import redact

#: The flag that lets a command use a ``--out`` other than the run's recorded one.
OUT_MOVED_FLAG = "--out-moved"


def canonical_out(uri: str) -> str:
    """``uri`` as it is recorded and compared: a ``file://`` path made absolute (a
    relative ``file://./out`` names a different place from another directory), any other
    URI without a trailing ``/``."""
    parts = urlsplit(uri)
    query = f"?{parts.query}" if parts.query else ""
    if parts.scheme.lower() == "file":
        return f"file://{os.path.abspath(parts.netloc + parts.path)}{query}"
    return f"{parts.scheme.lower()}://{parts.netloc}{parts.path.rstrip('/')}{query}"


def same_out(a: str, b: str) -> bool:
    """Whether two output URIs name the same place."""
    return canonical_out(a) == canonical_out(b)


def given_out(settings: Settings) -> str | None:
    """The output URI the caller gave (``--out`` or ``DOCFLEET_OUT``), ``None`` when
    ``settings.out`` is only the default."""
    return settings.out if "out" in settings.model_fields_set else None


def choose_out(run_id: str, recorded: str | None, given: str | None, default: str, *,
               moved: bool = False, flag: str = "--out") -> str:
    """The output URI a command uses for run ``run_id`` (the rule in the module
    docstring). ``recorded``: the run's recorded URI (``None``: an unknown run or one
    planned before URIs were recorded); ``given``: the caller's (``None``: not given);
    ``flag``: the command's name for it, for the messages. Raises :class:`ConfigError`
    for a given URI that is not the recorded one without ``moved``, and for ``moved``
    without a given URI."""
    if moved and given is None:
        raise ConfigError(f"{OUT_MOVED_FLAG} needs {flag}",
                          f"name where the outputs of run '{run_id}' are now with {flag} URI")
    if recorded is None:
        return given if given is not None else default
    if given is None:
        return recorded
    if moved or same_out(given, recorded):
        return given
    raise ConfigError(
        f"run '{run_id}' keeps its outputs at {redact(recorded)} (recorded when it was "
        f"planned), not {redact(canonical_out(given))}",
        f"omit {flag} (and DOCFLEET_OUT) to use the recorded URI; if the outputs were "
        f"copied to {redact(canonical_out(given))}, add {OUT_MOVED_FLAG}")


def run_out(run_id: str, settings: Settings, run: Run | None, *, moved: bool | None = None,
            flag: str = "--out") -> str:
    """:func:`choose_out` for run ``run_id`` as the store holds it (``run``; ``None``:
    not there) from ``settings`` (the given URI: :func:`given_out`); ``moved`` defaults
    to ``settings.out_moved``."""
    recorded = run.spec.out if run is not None else None
    return choose_out(run_id, recorded, given_out(settings), settings.out,
                      moved=settings.out_moved if moved is None else moved, flag=flag)
