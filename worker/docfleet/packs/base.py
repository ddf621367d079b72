"""The pack contract: a document type the kernel can generate without knowing it.

The kernel asks a pack for its golden tables (declared up front, with what each holds:
:class:`GoldenTables`), opens one :class:`PackSession` per task with a
:class:`PackContext` (its settings, loaded once for the task; the state store only for a
pack that declares ``uses_store``), and renders a unit's indexes through it. A pack never
touches the blob store (its outputs leave as :class:`RenderedDocument`).

:class:`DocumentPack` is the whole protocol: every member, required or optional. A pack
inherits :class:`Pack`, which implements each optional member with its stated default,
so the kernel, export, dry runs and the CLI call every member directly (no member is
looked up by name); :func:`docfleet.packs.load_pack` refuses an object that lacks one.
A pack whose documents are records rendered through HTML templates builds on the pack
SDK (:mod:`docfleet.packs.sdk`); docs/packs.md is the guide.
"""

from __future__ import annotations

import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    import pyarrow as pa
    from jinja2 import BaseLoader

    from docfleet.core.settings import Settings


@dataclass
class RenderedDocument:
    """One generated document: its files (name relative to ``documents/`` → bytes) and
    its golden rows per table: row dicts, or for a table of thousands of rows a
    :class:`docfleet.core.columns.Columns` (a sequence of the same rows, converted to
    Arrow once). Both must be a pure function of (run_id, index, options)."""

    index: int
    files: dict[str, bytes]
    rows: dict[str, Sequence[dict[str, Any]]] = field(default_factory=dict)


#: what a golden table may hold (:attr:`GoldenTables.roles`)
ROLES = {
    "documents": "one row per document (the document table)",
    "records": "the pack's own rows per document (line items, transactions)",
    "fields": "one row per printed golden value, with its box",
    "words": "one row per printed word, with its box",
    "chars": "one row per printed glyph, with its typographic and ink boxes and its word",
    "lines": "one row per printed line of text, with its box",
    "labels": "one row per printed key or heading, with its box",
    "links": "one row per key → value link",
    "cells": "one row per table cell, with its box",
    "pages": "one row per printed page: its size and capture parameters",
}
#: roles whose rows carry a box on a page (``page``, ``x0`` … ``y1``)
BOXED_ROLES = ("fields", "words", "chars", "lines", "labels", "cells")


@dataclass(frozen=True, eq=False)
class GoldenTables(Mapping[str, "pa.Schema"]):
    """The golden tables a pack writes: a read-only mapping of table name → Arrow schema
    (in the pack's order), and what each table holds, so a reader (export, the dataset
    card) finds any pack's documents, boxes and splits without knowing the pack.

    ``document``: the table with one row per document; ``key``: the column every table
    joins on (the document index); ``roles``: table → a key of :data:`ROLES` (the document
    table is ``documents``, a table not named is ``records``); ``split``: the document
    table's column holding train/validation/test, if the pack assigns splits. Raises
    ``ValueError`` for a declaration that names a table or role that does not exist."""

    schemas: Mapping[str, pa.Schema]
    document: str
    roles: Mapping[str, str] = field(default_factory=dict)
    key: str = "document"
    split: str | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.roles) - set(self.schemas))
        if self.document not in self.schemas or unknown:
            raise ValueError(f"golden tables: no table {self.document!r} or {unknown} among "
                             f"{', '.join(self.schemas)}")
        bad = sorted(r for r in self.roles.values() if r not in ROLES)
        if bad or self.roles.get(self.document, "documents") != "documents":
            raise ValueError(f"golden tables: roles {bad} are not among {', '.join(ROLES)}, "
                             "or the document table has another role")

    def __getitem__(self, name: str) -> pa.Schema:
        return self.schemas[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.schemas)

    def __len__(self) -> int:
        return len(self.schemas)

    def role(self, table: str) -> str:
        """What ``table`` holds (a key of :data:`ROLES`)."""
        if table not in self.schemas:
            raise KeyError(table)
        if table == self.document:
            return "documents"
        return self.roles.get(table, "records")

    def table(self, role: str) -> str | None:
        """The first table holding ``role`` (``"pages"``, ``"words"``, …), or ``None``."""
        return next((t for t in self.schemas if self.role(t) == role), None)

    @property
    def boxed(self) -> tuple[str, ...]:
        """The tables whose rows carry boxes on pages."""
        return tuple(t for t in self.schemas if self.role(t) in BOXED_ROLES)


@dataclass(frozen=True)
class PackContext:
    """What :meth:`DocumentPack.open` and :meth:`DocumentPack.preflight` receive: the run,
    the task's settings (``settings``: ``chromium_path``, ``render_pages``, …) and the
    pack's own (``pack_settings``: what :meth:`DocumentPack.load_settings` returned, once
    for the task), the task's identity (``owner``), logger and stop event, and the task's
    state store (``store``) for a pack that declares ``uses_store = True`` — ``None`` for
    every other pack and always in ``preflight``, which must write nothing. Built by
    :func:`pack_context`."""

    run_id: str
    settings: Settings
    pack_settings: Any = None
    store: Any = None
    owner: str = ""
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("docfleet.pack"))
    stop: threading.Event = field(default_factory=threading.Event)


@runtime_checkable
class PackSession(Protocol):
    def render(self, run_id: str, indexes: Sequence[int], total: int | None = None
               ) -> Iterator[RenderedDocument]:
        """Yield one document per index, in order. ``total``: the run's document count
        (no index at or past it exists: a session that renders a document's neighbours
        along with it skips those), ``None`` if unknown. The kernel may stop iterating
        early (lost lease, shutdown) and then closes the iterator."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class DocumentPack(Protocol):
    """Every member of a pack. :class:`Pack` states the defaults of the optional ones
    (``kind``, ``uses_store``, :meth:`load_settings`, :meth:`preflight`, :meth:`cost`,
    :meth:`describe`, :meth:`template_loader`)."""

    #: the name users pass with ``--pack``
    name: str
    #: the kind of run the pack makes (:attr:`RunSpec.kind`): ``"generate"`` (documents)
    #: or ``"catalogue"`` (LLM text other runs draw from)
    kind: str
    #: whether the pack's context carries the task's state store (the catalogue's shared
    #: budget and quarantine); ``False``: ``PackContext.store`` is ``None``
    uses_store: bool

    def tables(self, options: Mapping[str, Any]) -> GoldenTables:
        """The golden tables this pack writes, with their schemas and roles."""
        ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return the normalised run options (they join the run's fingerprint); raise
        :class:`ConfigError` for a bad one."""
        ...

    def load_settings(self, environ: Mapping[str, str], overrides: Mapping[str, Any]
                      ) -> Any:
        """The pack's task-local settings (not run parameters) from ``environ`` (the
        task's environment) and ``overrides`` (a command's flags); :class:`ConfigError`
        naming a bad value. Called once per task and before planning; the result is
        ``PackContext.pack_settings``."""
        ...

    def preflight(self, options: Mapping[str, Any], context: PackContext) -> None:
        """Check, before a run is planned, what this machine needs to work it (a browser,
        a catalogue it reads); raise :class:`ConfigError` naming what is missing. Must not
        write anything (``context.store`` is ``None``)."""
        ...

    def open(self, options: Mapping[str, Any], context: PackContext) -> PackSession:
        """Start one task's session (called once per task)."""
        ...

    def cost(self, options: Mapping[str, Any]) -> dict[str, float] | None:
        """Estimated cost per document for ``docfleet run --dry-run`` (keys as the
        invoice pack's: pages, bytes, cpu_seconds); ``None``: no estimate."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the dataset card says about the pack's documents (column meanings, the
        tokenisation rule); ``{}``: nothing beyond the tables."""
        ...

    def template_loader(self) -> BaseLoader | None:
        """The Jinja loader of the pack's own templates (shipped in its package), for the
        template cache warmed at image build; ``None``: the pack has no templates."""
        ...


class Pack(ABC):
    """The base of every pack: the required members are abstract, each optional member
    has its stated default. Subclasses set ``name`` (and ``kind`` / ``uses_store`` when
    not the defaults)."""

    name: ClassVar[str]
    kind: ClassVar[str] = "generate"
    uses_store: ClassVar[bool] = False

    @abstractmethod
    def tables(self, options: Mapping[str, Any]) -> GoldenTables: ...

    @abstractmethod
    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    def open(self, options: Mapping[str, Any], context: PackContext) -> PackSession: ...

    def load_settings(self, environ: Mapping[str, str], overrides: Mapping[str, Any]
                      ) -> Any:
        """Default: the pack has no settings of its own (``None``)."""
        return None

    def preflight(self, options: Mapping[str, Any], context: PackContext) -> None:
        """Default: nothing to check."""
        return None

    def cost(self, options: Mapping[str, Any]) -> dict[str, float] | None:
        """Default: no estimate."""
        return None

    def describe(self) -> dict[str, Any]:
        """Default: nothing beyond the tables."""
        return {}

    def template_loader(self) -> BaseLoader | None:
        """Default: no templates."""
        return None


def pack_context(pack: DocumentPack, run_id: str, settings: Settings, *,
                 overrides: Mapping[str, Any] | None = None, store: Any = None,
                 owner: str = "", log: logging.Logger | None = None,
                 stop: threading.Event | None = None,
                 environ: Mapping[str, str] | None = None) -> PackContext:
    """The context ``pack`` is opened (or preflighted) with: its settings loaded from
    ``environ`` (default: this process's environment) with ``overrides`` on top, and
    ``store`` only if the pack declares ``uses_store``. :class:`ConfigError` for a bad
    pack setting."""
    loaded = pack.load_settings(os.environ if environ is None else environ,
                                dict(overrides or {}))
    return PackContext(run_id=run_id, settings=settings, pack_settings=loaded,
                       store=store if pack.uses_store else None, owner=owner,
                       log=log if log is not None else logging.getLogger("docfleet.pack"),
                       stop=stop if stop is not None else threading.Event())


R_co = TypeVar("R_co", covariant=True)


@runtime_checkable
class DocumentSource(Protocol[R_co]):
    def generate(self, run_id: str, index: int) -> R_co:
        """The record of document ``index``: a pure function of (run_id, index) and the
        source's options, identical in every process and on every machine. Raises rather
        than return a record that is internally inconsistent."""
        ...
