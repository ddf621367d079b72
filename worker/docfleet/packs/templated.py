"""What the record → template → PDF packs (receipt, purchase_order, bank_statement) share
beyond the invoice pack's machinery, which they reuse by import:

- :class:`PackOptions` / :func:`parse_pack_options`: the run options every such pack takes
  (``format``, ``archetypes``, ``locales``, ``conditions``, ``lines``, ``cover``), parsed
  with the invoice pack's mix syntax;
- :class:`DocumentSteps`: the four steps a pack supplies (source, context, template, record
  rows); :class:`TemplatedSession` runs them on the invoice session's pipeline (one
  Chromium per task, pages in flight, scan, boxes carried, golden fields and words);
- :class:`StepsPack`: the :class:`~docfleet.packs.base.TemplatedPack` built from its steps;
- small helpers: labels with an English fallback for locales a pack has no words for,
  money rounded to the currency's minor unit, text fitted to a column budget.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Protocol

import pyarrow as pa

from docfleet.core.errors import ConfigError
from docfleet.packs.base import DocumentSource, RenderedDocument
from docfleet.packs.invoice.golden import (
    BoxMap,
    QuadMap,
    cell_rows,
    field_rows,
    label_rows,
    page_rows,
    text_line_rows,
    word_rows,
)
from docfleet.packs.invoice.locales import Jurisdiction
from docfleet.packs.invoice.options import (
    _lines,
    choose,
    parse_common,
    parse_cover,
)
from docfleet.packs.invoice.pack import MARKABLE, InvoiceSession, _Pending
from docfleet.packs.invoice.schema import CELLS, FIELDS, LABELS, LINES, LINKS, PAGES, WORDS
from docfleet.render.html import Field, PrintedField, render_html
from docfleet.render.layout import Layout

_MEDIABOX = re.compile(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]")

KNOWN = ("format", "archetypes", "locales", "conditions", "lines", "cover")

#: ISO 4217 minor units where they are not 2
MINOR_UNITS = {"JPY": 0, "KRW": 0, "VND": 0, "ISK": 0, "CLP": 0, "BHD": 3, "KWD": 3,
               "OMR": 3, "JOD": 3, "TND": 3}


class ReconciliationError(ValueError):
    """A record's amounts do not add up; it must never be rendered."""


def money_quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-MINOR_UNITS.get(currency, 2))


def round_money(value: Decimal, currency: str) -> Decimal:
    """``value`` rounded half-up to the currency's minor unit (cents for most)."""
    return value.quantize(money_quantum(currency), rounding=ROUND_HALF_UP)


def money_field(jur: Jurisdiction, name: str, amount: Decimal, line: int | None = None
                ) -> Field:
    """A printed amount: the locale's money text, canonical value ``1234.50``."""
    return Field(name, jur.money(amount), format(amount, "f"), line)


def text_field(name: str, text: str, line: int | None = None) -> Field:
    return Field(name, text, text, line)


def labels_for(table: Mapping[str, Mapping[str, str]], language: str) -> dict[str, str]:
    """The pack's printed words for ``language``; English words for a language the pack
    has none for (a locale added after the pack), so every locale renders."""
    return {**table["en"], **table.get(language, {})}


def columns(text: str) -> int:
    """Monospace columns ``text`` takes: wide (CJK) and non-Latin characters count 2."""
    width = 0
    for ch in text:
        wide = unicodedata.east_asian_width(ch) in "WF" or ord(ch) > 0x24F
        width += 2 if wide else 1
    return width


def fit(text: str, budget: int) -> str:
    """``text`` cut at a word boundary (else a character) to at most ``budget`` columns."""
    if columns(text) <= budget:
        return text
    words, out = text.split(" "), ""
    for word in words:
        candidate = f"{out} {word}".strip()
        if columns(candidate) > budget:
            break
        out = candidate
    if not out:
        out = text
        while columns(out) > budget:
            out = out[:-1]
    return out.rstrip(" ,.-")


@dataclass(frozen=True)
class PackOptions:
    pack: str
    format: str
    archetypes: dict[str, float]
    locales: dict[str, float]
    conditions: dict[str, float]
    lines: tuple[int, int] | None
    #: mixes taken in turn by index (see :func:`docfleet.packs.invoice.options.choose`)
    cover: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        cover = {"cover": list(self.cover)} if self.cover else {}  # unset: as before
        return {
            "format": self.format,
            "archetypes": self.archetypes,
            "locales": self.locales,
            "conditions": self.conditions,
            "lines": f"{self.lines[0]}-{self.lines[1]}" if self.lines else None,
            **cover,
        }


def parse_pack_options(pack: str, options: Mapping[str, Any], archetypes: tuple[str, ...],
                       max_lines: int) -> PackOptions:
    """Validate and normalise a templated pack's options (every locale the invoice pack
    knows is accepted); :class:`ConfigError` names the bad option and a fix."""
    fmt, mix, locales, conditions = parse_common(pack, options, KNOWN, archetypes)
    lines = _lines(options.get("lines"))
    if lines and lines[1] > max_lines:
        raise ConfigError(f"option lines={options.get('lines')!r} is out of range for the "
                          f"{pack} pack", f"need 1 <= MIN <= MAX <= {max_lines}")
    cover = parse_cover(options.get("cover"), {"locales": locales, "archetypes": mix,
                                                "conditions": conditions})
    return PackOptions(pack, fmt, mix, locales, conditions, lines, cover)


class DocumentSteps(Protocol):
    """The steps a templated pack supplies; records carry ``document``, ``file``,
    ``archetype``, ``locale``, ``condition`` and ``issue_date`` (the PDF's date)."""

    #: the record tables (the session adds ``fields`` and ``words``)
    tables: dict[str, pa.Schema]
    @property
    def line_field(self) -> str | None:
        """The per-line field whose page is the line's page (``None``: no per-line pages)."""
        ...

    def source(self, options: PackOptions) -> DocumentSource[Any]: ...

    def page_size(self, record: Any) -> tuple[int, int]:
        """CSS px; deterministic from the record."""
        ...

    def template(self, record: Any) -> str: ...

    def context(self, record: Any) -> dict[str, Any]:
        """Template context; ``pages`` is the list of pages the template prints."""
        ...

    def rows(self, record: Any, pages: int | None, size: tuple[float, float] | None,
             line_pages: dict[int, int] | None) -> dict[str, list[dict[str, Any]]]:
        """The record tables' rows (``pages``/``size``/``line_pages`` are None in html)."""
        ...


class TemplatedSession(InvoiceSession):
    """The invoice session's pipeline with a :class:`DocumentSteps`'s steps."""

    #: values an annotator highlights, ticks or circles: the invoice's and the packs' own
    #: (a statement's balances, an order's number and delivery date, a receipt's total)
    markable = (*MARKABLE, "po_number", "delivery_date", "receipt_number", "opening_balance",
                "balance", "balance_carried_forward", "closing_balance", "statement_number")

    def __init__(self, steps: DocumentSteps, options: PackOptions, chromium_path: str,
                 pages: int, chromium: Any = None) -> None:
        self.steps = steps
        # a pack's PackOptions in InvoiceSession's InvoiceOptions slot: the base reads only
        # the members both have (format, conditions, capture knobs)
        super().__init__(options, chromium_path, pages, chromium)  # type: ignore[arg-type]

    def make_source(self, options: Any) -> Any:
        return self.steps.source(options)

    def page_size(self, record: Any) -> tuple[int, int]:
        return self.steps.page_size(record)

    def prepare(self, run_id: str, index: int) -> tuple[Any, str, list[PrintedField], int]:
        record = self.source.generate(run_id, index)
        context = self.steps.context(record)
        html, printed = render_html(self.steps.template(record), context)
        return record, html, printed, len(context["pages"])

    def _html_document(self, invoice: Any, html: str, printed: list[PrintedField]
                       ) -> RenderedDocument:
        rows = self.steps.rows(invoice, None, None, None)
        rows["fields"] = field_rows(invoice.document, printed, None)
        rows.update({table: [] for table in _LAYOUT_TABLES})  # no page, no layout
        return RenderedDocument(index=invoice.document, files={invoice.file: html.encode()},
                                rows=rows)

    def pdf_document(self, item: _Pending, pdf: bytes, layout: Layout,
                     size: tuple[float, float], carry: BoxMap | None, *,
                     quad: QuadMap | None = None, sizes: list[tuple[float, float]] | None = None,
                     page_params: list[dict[str, Any]] | None = None) -> RenderedDocument:
        record = item.invoice
        line_pages = None
        if self.steps.line_field:
            line_pages = {f.line: f.page for f in layout.fields
                          if f.field == self.steps.line_field and f.occurrence == 0
                          and f.line is not None}
        box = _MEDIABOX.search(pdf)
        if box is not None:  # the size Chromium printed (it rounds the CSS page size)
            size = (float(box.group(1)), float(box.group(2)))
        rows = self.steps.rows(record, item.pages, size, line_pages)
        labels, links = label_rows(record.document, layout, carry)
        rows.update({
            "fields": field_rows(record.document, item.printed, layout, carry, quad),
            "words": word_rows(record.document, layout, carry, quad),
            "lines": text_line_rows(record.document, layout, carry),
            "labels": labels,
            "links": links,
            "cells": cell_rows(record.document, layout, carry),
            "pages": page_rows(record.document, record.condition,
                               sizes or [size] * item.pages, page_params),
        })
        return RenderedDocument(index=record.document, files={record.file: pdf}, rows=rows)


#: golden tables of the page layout: empty in the html format
_LAYOUT_TABLES = ("words", "lines", "labels", "links", "cells", "pages")


class StepsPack:
    """A :class:`~docfleet.packs.base.TemplatedPack` made of :class:`DocumentSteps`.
    Subclasses set ``name``, ``archetypes``, ``steps`` and ``max_lines`` (not ``kind``: that
    attribute of a pack names its run kind)."""

    name: str
    archetypes: tuple[str, ...]
    steps: DocumentSteps
    max_lines: int

    def parse(self, options: Mapping[str, Any]) -> PackOptions:
        return parse_pack_options(self.name, options, self.archetypes, self.max_lines)

    def tables(self, options: Mapping[str, Any]) -> dict[str, pa.Schema]:
        return {**self.steps.tables, "fields": FIELDS, "words": WORDS, "lines": LINES,
                "labels": LABELS, "links": LINKS, "cells": CELLS, "pages": PAGES}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return self.parse(options).to_dict()

    def source(self, options: Mapping[str, Any]) -> DocumentSource[Any]:
        return self.steps.source(self.parse(options))

    def choose_archetype(self, record: Any) -> str:
        return str(record.archetype)

    def template(self, archetype: str) -> str:
        return f"{self.name}/{archetype}.html.j2"

    def context(self, record: Any) -> dict[str, Any]:
        return self.steps.context(record)

    def session(self, options: Mapping[str, Any], chromium_path: str, pages: int,
                chromium: Any = None) -> TemplatedSession:
        """A session outside a worker (tests, benchmarks); ``chromium`` is borrowed."""
        return TemplatedSession(self.steps, self.parse(options), chromium_path, pages, chromium)

    def open(self, options: Mapping[str, Any]) -> TemplatedSession:
        from docfleet.core.settings import load_settings

        settings = load_settings()
        return self.session(options, settings.chromium_path, settings.render_pages)


def document_meta(record: Any, pages: int | None, size: tuple[float, float] | None
                  ) -> dict[str, Any]:
    """The columns every templated pack's document table starts/ends with."""
    return {
        "document": record.document, "archetype": record.archetype, "locale": record.locale,
        "condition": record.condition, "format": record.format, "file": record.file,
        "currency": record.currency, "page_count": pages,
        "page_width": size[0] if size else None, "page_height": size[1] if size else None,
    }


def meta_fields() -> tuple[list[pa.Field], list[pa.Field]]:
    """Arrow fields of :func:`document_meta`: (head, page columns)."""
    head = [
        pa.field("document", pa.int64(), nullable=False),
        pa.field("archetype", pa.string(), nullable=False),
        pa.field("locale", pa.string(), nullable=False),
        pa.field("condition", pa.string(), nullable=False),
        pa.field("format", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),
        pa.field("currency", pa.string(), nullable=False),
    ]
    tail = [
        pa.field("page_count", pa.int32()),
        pa.field("page_width", pa.float64()),
        pa.field("page_height", pa.float64()),
    ]
    return head, tail


def kinds(rng: Any, index: int, options: PackOptions) -> tuple[str, str, str]:
    """Document ``index``'s (locale, archetype, condition), drawn or covered in turn."""
    return choose(rng, index, {"locales": options.locales, "archetypes": options.archetypes,
                               "conditions": options.conditions}, options.cover)


def pick(rng: Any, mix: Mapping[str, float]) -> str:
    keys = list(mix)
    return str(rng.choices(keys, weights=[mix[k] for k in keys])[0])


def digits(rng: Any, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def file_name(document: int, fmt: str) -> str:
    return f"{document:06d}.{'html' if fmt == 'html' else 'pdf'}"


def unique_lines(items: Sequence[Any]) -> bool:
    return [i.line for i in items] == list(range(1, len(items) + 1))
