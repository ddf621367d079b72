"""The pack contract: a document type the kernel can generate without knowing it.

The kernel asks a pack for its golden table schemas (declared up front), opens one
:class:`PackSession` per task (a pack may hold a browser or a model there), and renders a
unit's indexes through it. A pack never touches the blob store (its outputs leave as
:class:`RenderedDocument`), and touches the state store only if it declares
``uses_context = True``: it is then opened with a :class:`PackContext` holding the task's
store (the catalogue's shared budget and quarantine); every other pack never sees one.

:class:`DocumentPack` lists what every pack must have; :class:`PackDefaults` lists the
members a pack may omit, each with the value the kernel assumes then. The kernel reads
those only through :func:`run_kind`, :func:`uses_context`, :func:`preflight`,
:func:`cost` and :func:`describe`, so a pack need not inherit :class:`PackDefaults`.

A pack whose documents are records rendered through HTML templates (the invoice pack)
also implements :class:`TemplatedPack`: a deterministic :class:`DocumentSource`, its
archetypes and templates, and the record → render context step, so a second document
type is a new pack, not a fork.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class RenderedDocument:
    """One generated document: its files (name relative to ``documents/`` → bytes) and
    its golden rows per table. Both must be a pure function of (run_id, index, options)."""

    index: int
    files: dict[str, bytes]
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class PackContext:
    """What a pack that declares ``uses_context = True`` receives as ``open(options,
    context=...)``: the task's state store (for packs that coordinate, e.g. the catalogue's
    budget and quarantine), its run, identity, settings, logger and stop event. Other
    packs are opened as ``open(options)`` and never see a store. ``pack_settings``: the
    task-local settings the command that started the task gave this pack (``catalogue
    build --concurrency 16``), over the pack's own environment variables."""

    store: Any
    run_id: str
    owner: str
    settings: Any
    log: Any
    stop: Any
    pack_settings: Mapping[str, Any] = field(default_factory=dict)


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
    #: the name users pass with ``--pack``
    name: str

    def tables(self, options: Mapping[str, Any]) -> dict[str, pa.Schema]:
        """The golden tables this pack writes, with their Arrow schemas."""
        ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return the normalised run options (they join the run's fingerprint); raise
        :class:`ConfigError` for a bad one."""
        ...

    def open(self, options: Mapping[str, Any]) -> PackSession:
        """Start one task's session (called once per task). A pack whose class sets
        ``uses_context = True`` is called as ``open(options, context=PackContext)``
        instead (see :class:`PackDefaults`)."""
        ...


class PackDefaults:
    """The optional members of a :class:`DocumentPack` and the defaults the kernel
    assumes for a pack that omits one. A pack may inherit this class to state them; the
    kernel reads them through the module's functions, which apply the same defaults."""

    #: the kind of run the pack makes (:attr:`RunSpec.kind`): ``"generate"`` (documents)
    #: or ``"catalogue"`` (LLM text other runs draw from)
    kind: str = "generate"
    #: ``True``: :meth:`DocumentPack.open` is called as ``open(options, context=...)`` with
    #: a :class:`PackContext` (the task's state store among it); ``False``: ``open(options)``
    uses_context: bool = False

    def preflight(self, options: Mapping[str, Any]) -> None:
        """Check, before a run is planned, what this machine needs to work it (a browser,
        a catalogue it reads); raise :class:`ConfigError` naming what is missing. Must not
        write anything. Default: nothing to check."""
        return None

    def cost(self, options: Mapping[str, Any]) -> dict[str, float] | None:
        """Estimated cost per document for ``docfleet run --dry-run`` (keys as the
        invoice pack's: pages, bytes, cpu_seconds); ``None``: no estimate (the default)."""
        return None

    def describe(self) -> dict[str, Any]:
        """What the dataset card says about the pack's documents (archetypes, locales,
        conditions); ``{}``: nothing beyond the tables (the default)."""
        return {}


_DEFAULTS = PackDefaults()


def run_kind(pack: DocumentPack) -> str:
    """``pack.kind``, else :attr:`PackDefaults.kind`."""
    return str(getattr(pack, "kind", PackDefaults.kind))


def uses_context(pack: DocumentPack) -> bool:
    """``pack.uses_context``, else :attr:`PackDefaults.uses_context`."""
    return bool(getattr(pack, "uses_context", PackDefaults.uses_context))


def preflight(pack: DocumentPack, options: Mapping[str, Any]) -> None:
    """``pack.preflight(options)`` if the pack has one (:meth:`PackDefaults.preflight`)."""
    getattr(pack, "preflight", _DEFAULTS.preflight)(options)


def cost(pack: DocumentPack, options: Mapping[str, Any]) -> dict[str, float] | None:
    """``pack.cost(options)`` if the pack has one, else ``None`` (:meth:`PackDefaults.cost`)."""
    return cast("dict[str, float] | None", getattr(pack, "cost", _DEFAULTS.cost)(options))


def describe(pack: DocumentPack) -> dict[str, Any]:
    """``pack.describe()`` if the pack has one, else ``{}`` (:meth:`PackDefaults.describe`)."""
    return cast("dict[str, Any]", getattr(pack, "describe", _DEFAULTS.describe)() or {})


R_co = TypeVar("R_co", covariant=True)


@runtime_checkable
class DocumentSource(Protocol[R_co]):
    def generate(self, run_id: str, index: int) -> R_co:
        """The record of document ``index``: a pure function of (run_id, index) and the
        source's options, identical in every process and on every machine. Raises rather
        than return a record that is internally inconsistent."""
        ...


@runtime_checkable
class TemplatedPack(DocumentPack, Protocol):
    """A pack that renders records through templates (archetypes = distinct layouts)."""

    #: the archetype names this pack can draw
    archetypes: tuple[str, ...]

    def source(self, options: Mapping[str, Any]) -> DocumentSource[Any]:
        """The record source for (normalised) run ``options``."""
        ...

    def choose_archetype(self, record: Any) -> str:
        """The archetype ``record`` is rendered with (deterministic)."""
        ...

    def template(self, archetype: str) -> str:
        """The template name of ``archetype``."""
        ...

    def context(self, record: Any) -> dict[str, Any]:
        """The template context of ``record``: every printed golden value included."""
        ...
