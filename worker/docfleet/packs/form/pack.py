"""The ``form`` pack: administrative and business forms (account opening, customer
registration, insurance claim, employee onboarding, customs declaration, medical intake)
filled in as people fill them: typed or handwritten by one to three writers, boxes
ticked or crossed (inside, past their edges, or ambiguously), corrections struck through,
answers left empty or running past their box; one or more pages, in every locale.
Layouts: boxed, lined, banded, numbered, compact, shaded. Written through the pack SDK
alone (docs/packs.md uses it as the second worked example)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from docfleet.packs.form.context import build_context, page_size
from docfleet.packs.form.layouts import LAYOUTS
from docfleet.packs.form.records import FormRecord
from docfleet.packs.form.schema import TABLES
from docfleet.packs.form.source import FormSource
from docfleet.packs.form.writers import FONT_CONTENT
from docfleet.packs.sdk.options import PackOptions
from docfleet.packs.sdk.pack import TemplatedPack
from docfleet.packs.sdk.rows import document_meta
from docfleet.packs.sdk.session import PrintedDocument

PX_TO_PT = 0.75


class FormSteps:
    tables: dict[str, pa.Schema] = TABLES
    #: ink truth and the visibility check from the pack's first content version on
    ink_content = 1
    #: photo recipe 2 (the same geometry for about half the CPU) from this version on
    photo_content = 2
    #: Japanese in fonts the PDF embeds (BIZ UD, no synthesised bold) from this version on
    font_content = FONT_CONTENT
    #: printed values an annotator highlights, ticks or circles
    markable = ("family_name", "birth_date_year", "policy_number", "signature")

    def source(self, options: PackOptions) -> FormSource:
        return FormSource(options)

    def page_size(self, record: FormRecord) -> tuple[int, int]:
        return page_size(record)

    def template(self, record: FormRecord) -> str:
        return LAYOUTS[record.archetype].template

    def context(self, record: FormRecord) -> dict[str, Any]:
        return build_context(record)

    def rows(self, form: FormRecord, printed: PrintedDocument | None
             ) -> dict[str, list[dict[str, Any]]]:
        pages = printed.pages if printed else None
        page_of = _pages(form)
        entries = form.entries
        boxes = [(c, o) for c in form.choices for o in c.options]
        head = {
            **document_meta(form, pages, printed.size if printed else None),
            "form_kind": form.kind, "title": form.title, "form_code": form.form_code,
            "issue_date": form.issue_date, "fill": form.fill,
            "writers": len(form.writers) - 1, "entries": len(entries),
            "filled": sum(e.filled for e in entries),
            "handwritten": sum(e.handwritten for e in entries),
            "checkboxes": len(boxes), "checked": sum(o.state == "checked" for _, o in boxes),
            "stamp_date": form.stamp_date if form.stamp else None,
        }
        entry_rows = [{
            "document": form.document, "entry": e.number,
            "page": page_of[e.number] if printed else None, "section": e.section,
            "key": e.key, "question": e.question, "kind": e.kind, "value": e.value,
            "filled": e.filled, "handwritten": e.handwritten,
            "writer": e.writer if e.filled else None, "overflow": e.overflow,
            "box_width": round(e.box * PX_TO_PT, 3), "struck_text": e.struck,
        } for e in entries]
        box_rows = [{
            "document": form.document, "entry": c.number,
            "page": page_of[c.number] if printed else None, "section": c.section,
            "group": c.key, "question": c.question, "kind": "radio" if c.radio else "checkbox",
            "grid": c.grid, "option": o.key, "option_text": o.text, "field": c.field(o),
            "state": o.state, "selected": o.state == "checked", "mark": o.mark,
            "outside": o.outside, "handwritten": c.writer > 0 and o.mark != "none",
        } for c, o in boxes]
        return {"forms": [head], "form_entries": entry_rows, "form_checkboxes": box_rows}


def _pages(form: FormRecord) -> dict[int, int]:
    """entry number → the page it is printed on."""
    out = {}
    for n, parts in enumerate(form.pages, start=1):
        for part in parts:
            for b in part.blocks:
                block = form.sections[part.section].blocks[b]
                for number in [e.number for e in block.entries] + [
                        c.number for c in block.choices]:
                    out[number] = n
    return out


class FormPack(TemplatedPack):
    """Filled forms with exact golden truth (see the module docstring)."""

    name = "form"
    archetypes = tuple(LAYOUTS)
    steps = FormSteps()
    #: the shared ``lines`` option is accepted (up to this) and has nothing to count
    max_lines = 200
    #: 3: Japanese typed and labelled in BIZ UDPGothic (embedded; SetoFont's missing
    #: glyphs too); 2: photos with photo recipe 2; 1: the first forms (a run planned
    #: before stays 1)
    content_versions = (1, 2, 3)
