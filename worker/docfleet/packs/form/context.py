"""Form record → render context: every printed answer, box and stamp date a
:class:`Field`, every question a label naming the fields it asks for, the writers' CSS,
and the pages as the record split them.

Field names: an answer is its question's key (``family_name``); a date in boxes prints
one field per part (``birth_date_day``, ``_month``, ``_year``); a struck first attempt is
``{key}_struck``; a checkbox or radio box is ``{group}.{option}`` with an empty text and
its state as value; the office stamp's date is ``stamp_date``."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from markupsafe import Markup

from docfleet.packs.form.layouts import LAYOUTS
from docfleet.packs.form.marks import mark_svg
from docfleet.packs.form.records import Block, Choice, Entry, FormRecord, Option, date_parts
from docfleet.packs.form.vocabulary import WORDS
from docfleet.packs.form.writers import FALLBACK, FONT_CONTENT, Writer, script_of
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.pages import Page
from docfleet.packs.sdk.style import PALETTES, SANS, SERIF, embedded_fonts
from docfleet.packs.sdk.text import labels_for
from docfleet.render.html import Field
from docfleet.render.logo import logo_svg

#: the lined layout's title face
TITLE_SERIF = "Liberation Serif, serif"
#: any date: how many boxes an empty date prints
EMPTY = dt.date(2000, 1, 1)
#: one box of a date written in boxes, px; the box size of checkboxes
COMB, BOX = 22, 14


def page_size(form: FormRecord) -> tuple[int, int]:
    page = JURISDICTIONS[form.locale].page
    return page[0], page[1]


def writer_css(writers: tuple[Writer, ...], script: str, fallback: str | None = None
               ) -> Markup:
    """Every writer's classes, and its spacing in a date's boxes (``.comb .w{n}``);
    ``fallback``: the families after each writer's own (default the script's)."""
    rules = []
    for w in writers:
        rules.append(w.css(script, fallback))
        # a date's digits: each centred in its box (.comb .d), never spaced by guess
        rules.append(f".comb .w{w.number} {{ font-size: {min(w.size, 16.0)}px; "
                     "letter-spacing: 0; transform: none; }")
        # a comment's lines keep the slant, not the tilt (a tilted paragraph leaves its box)
        rules.append(f".cmbox .w{w.number} {{ transform: skewX({w.slant}deg); }}")
    return Markup("\n".join(rules))


def _cls(entry: Entry) -> str:
    return f"hw w{entry.writer} j{entry.jitter}" if entry.writer else f"tw w0 j{entry.jitter}"


def _entry(e: Entry, locale: str) -> dict[str, Any]:
    names = [f"{e.key}_{part}" for part, _ in e.parts] if e.kind == "date" else [e.key]
    out: dict[str, Any] = {
        "key": e.key, "q": e.question, "label": " ".join(names), "kind": e.kind,
        "cls": _cls(e), "box": e.box, "overflow": e.overflow, "drift": e.drift, "field": None,
        "struck": None, "parts": [], "lines": None, "writer": e.writer,
    }
    if not e.filled:
        out["parts"] = [(None, len(digits)) for _, digits in date_parts(locale, EMPTY)]
        return out
    if e.kind == "date":
        out["parts"] = [(Field(f"{e.key}_{part}", digits, digits), len(digits))
                        for part, digits in e.parts]
    elif e.kind == "comment":
        out["lines"] = Field(e.key, "\n".join(e.lines), e.value or "")
    else:
        assert e.text is not None and e.value is not None
        out["field"] = Field(e.key, e.text, e.value)
        if e.struck:
            out["struck"] = Field(f"{e.key}_struck", e.struck, e.struck)
    return out




def _option(c: Choice, o: Option, writers: tuple[Writer, ...]) -> dict[str, Any]:
    w = writers[c.writer]
    ink = w.ink if c.writer else "#111111"
    return {"label": c.field(o), "text": o.text, "field": Field(c.field(o), "", o.state),
            "mark": Markup(mark_svg(o, BOX, ink, w.weight > 400))}


def _choice(c: Choice, writers: tuple[Writer, ...]) -> dict[str, Any]:
    return {"q": c.question, "label": " ".join(c.field(o) for o in c.options),
            "radio": c.radio, "options": [_option(c, o, writers) for o in c.options]}


def _block(b: Block, writers: tuple[Writer, ...], locale: str) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": b.kind, "q": b.question,
                           "cells": [_entry(e, locale) for e in b.entries],
                           "choices": [_choice(c, writers) for c in b.choices]}
    return out


def build_context(form: FormRecord) -> dict[str, Any]:
    jur = JURISDICTIONS[form.locale]
    layout = LAYOUTS[form.archetype]
    style = random.Random(form.style_seed)
    primary, secondary = style.choice(PALETTES)
    font = jur.fonts[0] if jur.fonts else style.choice(SANS + SERIF[:1])
    width, height = page_size(form)
    words = labels_for(WORDS, jur.language)
    if jur.locale == "en-US":
        words = {**words, "date_hint": words["date_hint_us"]}
    script = script_of(jur.language)
    # content 3 on: a writer's missing glyphs too from a font the PDF embeds
    embedded = form.content >= FONT_CONTENT
    fallback = embedded_fonts(FALLBACK[script], jur.language) if embedded else None
    title_serif = embedded_fonts(TITLE_SERIF, jur.language) if embedded else TITLE_SERIF
    count = len(form.pages)
    pages = []
    for n, parts in enumerate(form.pages, start=1):
        printed = []
        for part in parts:
            section = form.sections[part.section]
            printed.append({"key": section.key, "number": part.section + 1,
                            "heading": section.title if part.heading else None,
                            "blocks": [_block(section.blocks[b], form.writers, form.locale)
                                       for b in part.blocks]})
        pages.append(Page(n, count, printed, n == count))
    return {
        "lang": jur.language, "dir": jur.direction, "title": form.title, "page_w": width,
        "page_h": height, "font": font, "font_size": style.choice((12, 12.5, 13)),
        "line_height": jur.line_height, "primary": primary, "secondary": secondary,
        "logo": logo_svg(style.getrandbits(32), primary, secondary, 44),
        "W": words, "layout": layout, "box": BOX, "comb_w": COMB,
        "writer_css": writer_css(form.writers, script, fallback), "title_serif": title_serif,
        "form_title": form.title, "form_code": form.form_code,
        "instructions": form.instructions, "declaration": form.declaration,
        "stamp": form.stamp,
        "stamp_date": Field("stamp_date", jur.date(form.stamp_date),
                            form.stamp_date.isoformat()),
        "stamp_turn": round(style.uniform(-4, 4), 1),
        "pages": pages,
    }
