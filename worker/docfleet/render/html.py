"""Jinja2 HTML: a pack's templates (through the loader the pack gives), and the printer
that marks every golden value in the page.

A template prints a golden value only through ``F(field)``, which wraps the exact text
in ``<span data-field=… data-line=… data-occ=…>`` and records the printing, so the list
of printed fields (with their occurrence numbers) is known before any browser runs and
the browser's boxes can be matched to it one to one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from docfleet.telemetry import traced

if TYPE_CHECKING:
    from jinja2 import BaseLoader, Environment


@dataclass(frozen=True)
class Field:
    """A golden value as it will be printed: ``text`` exactly, ``value`` canonical."""

    name: str
    text: str
    value: str
    line: int | None = None


@dataclass(frozen=True)
class PrintedField:
    name: str
    line: int | None
    occurrence: int
    text: str
    value: str

    @property
    def key(self) -> tuple[str, int | None, int]:
        return self.name, self.line, self.occurrence


class FieldPrinter:
    """``F`` in templates: prints a :class:`Field` as a marked span and remembers it."""

    def __init__(self) -> None:
        self.printed: list[PrintedField] = []
        self._seen: Counter[tuple[str, int | None]] = Counter()

    def __call__(self, field: Field, cls: str = "", each: str = "") -> Markup:
        """The field's span (classes ``f`` and ``cls``); with ``each``, every character
        in a span of that class of its own (a digit in its box of a boxed date)."""
        if not isinstance(field, Field):
            raise TypeError(f"F() prints Field objects, got {field!r}")
        occurrence = self._seen[(field.name, field.line)]
        self._seen[(field.name, field.line)] += 1
        self.printed.append(
            PrintedField(field.name, field.line, occurrence, field.text, field.value)
        )
        line = "" if field.line is None else f' data-line="{field.line}"'
        classes = f"f {cls}".strip()
        return Markup(
            f'<span class="{classes}" data-field="{escape(field.name)}"{line} '
            f'data-occ="{occurrence}" dir="auto">{self._text(field.text, each)}</span>'
        )

    @staticmethod
    def _text(text: str, each: str) -> Markup:
        if not each:
            return escape(text)
        opening, closing = Markup(f'<span class="{escape(each)}">'), Markup("</span>")
        return Markup("").join(opening + ch + closing for ch in text)


class Templates:
    """A pack's templates: one Jinja environment over the ``loader`` the pack gives (its
    own package's templates: :func:`docfleet.packs.sdk.templates.pack_templates`), with
    strict undefined (a missing context key is an error, never an empty string on the
    page) and compiled templates cached on disk (:mod:`docfleet.render.template_cache`).
    Jinja is imported when the environment is first used, not with the module: a process
    that only validates options never pays for it."""

    def __init__(self, loader: BaseLoader) -> None:
        self.loader = loader
        self._environment: Environment | None = None

    @property
    def environment(self) -> Environment:
        if self._environment is None:
            from jinja2 import Environment, StrictUndefined, select_autoescape

            from docfleet.render.template_cache import bytecode_cache  # lazy: start-up

            self._environment = Environment(
                loader=self.loader,
                bytecode_cache=bytecode_cache(),
                autoescape=select_autoescape(["html", "j2"], default=True),
                undefined=StrictUndefined,
                # a pack's templates do not change under a running task: no stat of the
                # template files on every render (~3 a document)
                auto_reload=False,
                trim_blocks=True,
                lstrip_blocks=True,
                keep_trailing_newline=True,
            )
        return self._environment

    def render(self, template: str, context: dict[str, Any]) -> tuple[str, list[PrintedField]]:
        """Render ``template`` with ``context`` (plus ``F``); return the HTML and the fields
        it printed, in document order."""
        return render_html(self, template, context)


@traced("docfleet.render.html", lambda templates, template, context: {
    "docfleet.render.template": template})
def render_html(templates: Templates, template: str, context: dict[str, Any]
                ) -> tuple[str, list[PrintedField]]:
    """Render ``template`` of ``templates`` with ``context`` (plus ``F``); return the HTML
    and the fields it printed, in document order."""
    printer = FieldPrinter()
    html = templates.environment.get_template(template).render(**context, F=printer)
    return html, printer.printed
