"""The form :class:`DocumentSource`: ``generate(run_id, index)`` → :class:`FormRecord`, every
draw from ``document_rng(run_id, index)`` in a fixed order: the (locale, layout,
condition) draw, the Faker, the form kind and its words, the writers, the person, then
section by section every answer and box, and the look's seed last."""

from __future__ import annotations

import datetime as dt
import math
import random

from docfleet.core.seeding import document_rng
from docfleet.packs.form.answers import Answers
from docfleet.packs.form.kinds import KINDS
from docfleet.packs.form.layouts import FOOT, LAYOUTS, SIGNATURE, TITLE, TOP, Layout
from docfleet.packs.form.marks import draw_options
from docfleet.packs.form.records import (
    Block,
    Choice,
    Entry,
    FormRecord,
    PagePart,
    Section,
    date_parts,
)
from docfleet.packs.form.vocabulary import (
    DECLARATIONS,
    INSTRUCTIONS,
    OPTIONS,
    QUESTIONS,
    SECTIONS,
    TITLES,
)
from docfleet.packs.form.writers import FONT_CONTENT, Writer, draw_writers
from docfleet.packs.sdk.locales import JURISDICTIONS, Jurisdiction
from docfleet.packs.sdk.options import PackOptions, kinds
from docfleet.packs.sdk.parties import seeded_faker
from docfleet.packs.sdk.telemetry import traced
from docfleet.packs.sdk.text import columns, digits, fit
from docfleet.packs.sdk.variation import pick

FIRST_DAY = dt.date(2023, 1, 1)
DAYS = 3 * 365
#: lines a comment box holds
COMMENT_LINES = 3
#: content 2: a hand whose tilted, shifted line may reach further than this (px) above or
#: below its middle may cross its answer box's edge, as real hands do: the box allows it
DRIFT_PX = 1.5


def drifts(writer: Writer, jitter: int, *texts: str) -> bool:
    """Whether ``texts`` in ``writer``'s hand with jitter class ``jitter`` (a baseline
    offset and a tilt about each span's middle) may reach more than :data:`DRIFT_PX`
    above or below where an untilted line sits."""
    dy, rot = writer.jitter[jitter]
    wide = max(writer.max_width(t) for t in texts)
    return abs(dy) + wide / 2 * math.sin(math.radians(abs(rot))) > DRIFT_PX


def _case(rng: random.Random, language: str) -> tuple[bool, str]:
    """A form's convention for its questions: in capitals (Latin scripts), with a colon."""
    upper = language in ("en", "fr", "de") and rng.random() < 0.2
    colon = ":" if language in ("en", "fr", "de") and rng.random() < 0.4 else ""
    return upper, colon


class _Filler:
    """Draws one form's answers in order (one per question, as the pages print them)."""

    def __init__(self, rng: random.Random, jur: Jurisdiction, layout: Layout,
                 writers: tuple[Writer, ...], fill: str, answers: Answers,
                 content: int = 1) -> None:
        self.rng, self.jur, self.layout, self.content = rng, jur, layout, content
        self.writers, self.fill, self.answers = writers, fill, answers
        self.language = jur.language
        self.page_width = jur.page[0]
        self.upper, self.colon = _case(rng, self.language)
        self.number = 0

    def question(self, key: str) -> str:
        text = pick(self.rng, QUESTIONS[self.language][key])
        return (text.upper() if self.upper else text) + self.colon

    def writer(self, section_writer: int) -> int:
        if self.fill == "typed":
            return 0
        if self.fill == "mixed" and self.rng.random() < 0.35:
            return 0
        return section_writer

    def entry(self, section: str, key: str, cells: int, section_writer: int,
              kind: str = "text") -> Entry:
        rng = self.rng
        self.number += 1
        question = self.question(key)
        writer = self.writers[self.writer(section_writer)]
        empty = rng.random() < (0.04 if kind == "signature" else 0.1)
        box = self.layout.answer_width(self.page_width, cells)
        jitter = rng.randrange(len(writer.jitter))
        if kind == "date":
            day = self.answers.date(key)
            parts = date_parts(self.jur.locale, day)
            if empty:
                return Entry(self.number, section, key, question, kind, None, None, (), (),
                             writer.number, jitter, False, None, box)
            return Entry(self.number, section, key, question, kind, day.isoformat(), None,
                         parts, (), writer.number, jitter, False, None, box)
        if kind == "comment":
            text = self.answers.comment(key)
            lines = wrap(text, writer, self.layout.content_width(self.page_width) - 60
                         )[:COMMENT_LINES]
            if empty or not lines:
                return Entry(self.number, section, key, question, kind, None, None, (), (),
                             writer.number, jitter, False, None, box)
            return Entry(self.number, section, key, question, kind, "\n".join(lines), None,
                         (), tuple(lines), writer.number, jitter, False, None, box)
        if kind == "signature":
            writer = self.writers[max(1, writer.number)]
        value, text = self.answers.value(key)
        room = (box - 12) if kind != "signature" else SIGNATURE - 12
        overflow = False
        if (kind == "text" and rng.random() < 0.06 and writer.max_width(text) <= room
                and writer.min_width(text) >= 110):  # a box too short for what is written
            overflow = True
            box = int(writer.min_width(text) * 0.7)
        elif writer.max_width(text) > room and value is None:
            text = fit_width(text, writer, room)  # a name or place cut where the box ends
        elif writer.min_width(text) > box + 6 and kind == "text":
            overflow = True  # a value that cannot be cut (an e-mail, a number) runs past
        struck = None
        if (writer.handwritten and kind == "text" and not overflow and rng.random() < 0.07
                and len(text) > 3):
            struck = misspelt(rng, text)
            if writer.max_width(f"{struck}  {text}") > room:
                struck = None
        if empty:
            return Entry(self.number, section, key, question, kind, None, None, (), (),
                         writer.number, jitter, False, None, box)
        # content 2: a tilted hand may cross its box's edge (content 1 refused the form)
        drift = self.content >= 2 and kind == "text" and drifts(
            writer, jitter, text, *((struck,) if struck else ()))
        return Entry(self.number, section, key, question, kind,
                     text if value is None else value, text, (), (),
                     writer.number, jitter, overflow, struck, box, drift)

    def choice(self, section: str, group: str, radio: bool, section_writer: int,
               grid: str | None = None, question: str | None = None,
               options: tuple[tuple[str, str], ...] | None = None) -> Choice:
        self.number += 1
        writer = self.writer(section_writer)
        options = options or OPTIONS[self.language][group]
        drawn = draw_options(self.rng, options, radio, typed=writer == 0)
        return Choice(self.number, section, group, question or self.question(group), radio,
                      drawn, writer, grid)


def fit_width(text: str, writer: Writer, room: float) -> str:
    """``text`` cut (at a word boundary where it can) to what ``writer`` fits in
    ``room`` px."""
    budget = columns(text)
    while budget > 1 and writer.max_width(fit(text, budget)) > room:
        budget -= 1
    return fit(text, budget)


def wrap(text: str, writer: Writer, room: float) -> list[str]:
    """``text`` broken into lines ``writer`` fits in ``room`` px (at spaces where it has
    them, else anywhere)."""
    lines: list[str] = []
    rest = text
    while rest:
        line = fit_width(rest, writer, room)
        if not line:
            break
        lines.append(line)
        rest = rest[len(line):].lstrip(" ,")
    return lines


def misspelt(rng: random.Random, text: str) -> str:
    """A first attempt at ``text`` with a slip: two neighbours swapped or one doubled."""
    i = rng.randrange(len(text) - 1)
    if rng.random() < 0.5 and text[i] != text[i + 1]:
        return text[:i] + text[i + 1] + text[i] + text[i + 2:]
    return text[:i + 1] + text[i] + text[i + 1:]


def paginate(layout: Layout, page_height: int, sections: tuple[Section, ...]
             ) -> tuple[tuple[PagePart, ...], ...]:
    """Sections over pages, block by block (a heading stays with its first block)."""
    pages: list[list[PagePart]] = [[]]
    room = page_height - TOP - FOOT - TITLE
    for s, section in enumerate(sections):
        blocks: list[int] = []
        heading = True
        for b, block in enumerate(section.blocks):
            options = sum(len(c.options) for c in block.choices)
            lines = len(block.choices) if block.kind == "grid" else COMMENT_LINES
            need = layout.block_height((block.kind,), options, lines)
            need += layout.section if heading and not blocks else 0
            if need > room and (blocks or pages[-1]):
                if blocks:
                    pages[-1].append(PagePart(s, tuple(blocks), heading))
                    heading = False
                pages.append([])
                blocks = []
                room = page_height - TOP - FOOT
                need = layout.block_height((block.kind,), options, lines)
                need += layout.section if heading else 0
            blocks.append(b)
            room -= need
        pages[-1].append(PagePart(s, tuple(blocks), heading))
    return tuple(tuple(p) for p in pages if p)


class FormSource:
    """Deterministic filled forms for one run's options."""

    def __init__(self, options: PackOptions) -> None:
        self.options = options

    @traced("docfleet.render.record", lambda self, run_id, index: {
        "docfleet.document.index": index})
    def generate(self, run_id: str, index: int) -> FormRecord:
        rng = document_rng(run_id, index)
        locale, archetype, condition = kinds(rng, index, self.options)
        jur = JURISDICTIONS[locale]
        language = jur.language
        fake = seeded_faker(rng, jur)
        layout = LAYOUTS[archetype]
        kind = rng.choice(tuple(KINDS))
        title = pick(rng, TITLES[language][kind])
        fill = rng.choices(("typed", "handwritten", "mixed"), (2, 5, 3))[0]
        hands = rng.choices((1, 2, 3), (7, 2.5, 0.5))[0]
        writers = draw_writers(rng, language, hands, self.options.content >= FONT_CONTENT)
        signed = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        answers = Answers(rng, fake, jur, signed)
        filler = _Filler(rng, jur, layout, writers, fill, answers, self.options.content)
        sections = []
        for key, blocks in KINDS[kind]:
            hand = rng.randint(1, hands)
            built = []
            for block in blocks:
                built.append(self._block(filler, key, block, hand))
            sections.append(Section(key, pick(rng, SECTIONS[language][key]), tuple(built)))
        done = tuple(sections)
        return FormRecord(
            document=index, archetype=archetype, locale=locale, condition=condition,
            format=self.options.format, currency=jur.currency, issue_date=signed, kind=kind,
            title=title, form_code=f"{kind[:3].upper()}-{digits(rng, 3)}/{signed.year % 100}",
            instructions=pick(rng, INSTRUCTIONS[language]),
            declaration=pick(rng, DECLARATIONS[language]), sections=done,
            pages=paginate(layout, jur.page[1], done), writers=writers, fill=fill,
            stamp=rng.random() < 0.4,
            stamp_date=signed + dt.timedelta(days=rng.randrange(0, 12)),
            style_seed=rng.getrandbits(32), content=self.options.content,
        )

    @staticmethod
    def _block(filler: _Filler, section: str, block: tuple, hand: int) -> Block:
        kind = block[0]
        if kind == "row":
            keys = block[1]
            return Block(kind, tuple(filler.entry(section, k, len(keys), hand)
                                     for k in keys))
        if kind == "date":
            return Block(kind, (filler.entry(section, block[1], 1, hand, "date"),))
        if kind == "comment":
            return Block(kind, (filler.entry(section, block[1], 1, hand, "comment"),))
        if kind == "choice":
            return Block(kind, choices=(filler.choice(section, block[1], not block[2],
                                                      hand),))
        if kind == "grid":
            group = block[1]
            language = filler.language
            items = list(OPTIONS[language][group])
            keep = sorted(filler.rng.sample(range(len(items)), filler.rng.randint(4, 6)))
            heading = filler.question(group)
            rows = tuple(filler.choice(section, f"{group}.{items[i][0]}", True, hand,
                                       grid=group, question=items[i][1],
                                       options=OPTIONS[language]["answer"])
                         for i in keep)
            return Block(kind, choices=rows, question=heading)
        # sign: place and date (two cells), then the signature
        return Block(kind, (filler.entry(section, "signed_place", 2, hand),
                            filler.entry(section, "signed_date", 2, hand),
                            filler.entry(section, "signature", 1, hand, "signature")))
