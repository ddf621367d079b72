"""Form records: what a filled form prints and every fact of how it was filled.

A :class:`FormRecord` refuses to exist unless it adds up: an entry that is printed has
text and a value (and none when left empty), a radio group has at most one checked
option, every option's state is one of :data:`STATES`, and the pages hold every block
exactly once, in order."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from docfleet.packs.form.writers import Writer
from docfleet.packs.sdk.money import ReconciliationError

#: what a box shows: ticked or crossed, left empty, or a mark one cannot read as either
STATES = ("checked", "unchecked", "ambiguous")
#: how a box was marked
MARKS = ("tick", "cross", "fill", "stroke", "dash", "none")


def date_parts(locale: str, day: dt.date) -> tuple[tuple[str, str], ...]:
    """A date as written in boxes, in the locale's order: (part, digits)."""
    d, m, y = ("day", f"{day.day:02d}"), ("month", f"{day.month:02d}"), ("year", str(day.year))
    if locale == "en-US":
        return m, d, y
    if locale == "ja-JP":
        return y, m, d
    return d, m, y


@dataclass(frozen=True)
class Entry:
    """One question with a written answer (or none)."""

    number: int  # reading order in the form, 1-based
    section: str
    key: str  # the question; its answer's field name
    question: str  # as printed
    kind: str  # text | date | comment | signature
    value: str | None  # canonical (ISO date, 1234.50, the text); None if left empty
    text: str | None  # printed, one line; None for a date (``parts``) or a comment
    parts: tuple[tuple[str, str], ...]  # a boxed date: (part name, digits) in print order
    lines: tuple[str, ...]  # a comment's lines
    writer: int  # 0 typed, else the handwriting writer
    jitter: int
    overflow: bool  # the answer runs past its box
    struck: str | None  # a first attempt struck through before the answer
    box: int  # the drawn answer box's width, CSS px
    #: content 2: its tilted line may cross the box's top or bottom edge (allowed)
    drift: bool = False

    @property
    def filled(self) -> bool:
        return self.value is not None

    @property
    def handwritten(self) -> bool:
        return self.filled and self.writer > 0


@dataclass(frozen=True)
class Option:
    key: str
    text: str
    state: str  # see STATES
    mark: str  # see MARKS
    dx: float  # the mark's offset from the box's centre, in box sizes
    dy: float
    scale: float
    rotation: float

    @property
    def outside(self) -> bool:
        """Whether the mark reaches past the box."""
        return self.mark != "none" and (max(abs(self.dx), abs(self.dy)) > 0.12
                                        or self.scale > 1.15)


@dataclass(frozen=True)
class Choice:
    """A checkbox group (several may be ticked) or radio group (one), or one yes/no row
    of a grid (``grid``: the grid's key)."""

    number: int
    section: str
    key: str  # the group
    question: str
    radio: bool
    options: tuple[Option, ...]
    writer: int
    grid: str | None = None

    def field(self, option: Option) -> str:
        """The field name of ``option``'s box."""
        return f"{self.key}.{option.key}"


@dataclass(frozen=True)
class Block:
    kind: str  # row | date | choice | grid | comment | sign
    entries: tuple[Entry, ...] = ()
    choices: tuple[Choice, ...] = ()
    question: str = ""  # a grid's heading


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class PagePart:
    """The blocks of one section printed on one page (``heading``: the section starts
    here)."""

    section: int
    blocks: tuple[int, ...]
    heading: bool


@dataclass(frozen=True)
class FormRecord:
    document: int
    archetype: str
    locale: str
    condition: str
    format: str
    currency: str
    issue_date: dt.date  # the signing date (and the PDF's date)
    kind: str
    title: str
    form_code: str
    instructions: str
    declaration: str
    sections: tuple[Section, ...]
    pages: tuple[tuple[PagePart, ...], ...]
    writers: tuple[Writer, ...]
    fill: str  # typed | handwritten | mixed
    stamp: bool  # an office stamp with its date
    stamp_date: dt.date
    style_seed: int
    content: int = 1

    def __post_init__(self) -> None:
        check(self)

    @property
    def file(self) -> str:
        return f"{self.document:06d}.{'html' if self.format == 'html' else 'pdf'}"

    @property
    def entries(self) -> list[Entry]:
        return [e for s in self.sections for b in s.blocks for e in b.entries]

    @property
    def choices(self) -> list[Choice]:
        return [c for s in self.sections for b in s.blocks for c in b.choices]


def check(form: FormRecord) -> None:
    """Every rule of the module docstring; :class:`ReconciliationError` names the broken
    ones."""
    problems = []
    for e in form.entries:
        printed = e.text is not None or bool(e.parts) or bool(e.lines)
        if printed != e.filled:
            problems.append(f"entry {e.key}: printed {printed} but filled {e.filled}")
        if e.struck is not None and not e.filled:
            problems.append(f"entry {e.key}: a correction of nothing")
    for c in form.choices:
        if any(o.state not in STATES or o.mark not in MARKS for o in c.options):
            problems.append(f"group {c.key}: unknown state or mark")
        if c.radio and sum(o.state == "checked" for o in c.options) > 1:
            problems.append(f"radio group {c.key}: more than one checked")
        if any((o.state == "unchecked") != (o.mark == "none") for o in c.options):
            problems.append(f"group {c.key}: a mark on an unchecked box")
    placed = [(p.section, b) for page in form.pages for p in page for b in p.blocks]
    every = [(i, b) for i, s in enumerate(form.sections) for b in range(len(s.blocks))]
    if placed != every:
        problems.append("the pages do not hold every block once, in order")
    if problems:
        raise ReconciliationError(f"form {form.form_code} (document {form.document}) does "
                                  f"not add up: {'; '.join(problems)}")
