"""The helpers a receipt's row builders share (content version 2): its money, keys,
dates and times in the receipt's :class:`~.variation.ReceiptStyle`, key/value rows that
never wrap, centred free lines and the tax codes of its rates."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from docfleet.packs.receipt.layouts import ReceiptLayout
from docfleet.packs.receipt.pieces import Piece, Row, lab, row, txt, width
from docfleet.packs.receipt.records import Receipt
from docfleet.packs.receipt.variation import (
    ReceiptStyle,
    canonical_time,
    format_date,
    format_time,
)
from docfleet.packs.sdk.locales import Jurisdiction
from docfleet.packs.sdk.text import columns, fit
from docfleet.render.html import Field


class RowKit:
    """One receipt, its style and layout, and the row helpers every block uses."""

    def __init__(self, r: Receipt, jur: Jurisdiction, layout: ReceiptLayout,
                 words: dict[str, str]) -> None:
        assert r.style is not None
        self.r, self.jur, self.layout, self.words = r, jur, layout, words
        self.s: ReceiptStyle = r.style
        self.cols = layout.columns

    # ------------------------------------------------------------------ values
    def amount_text(self, amount: Decimal, code: bool = False) -> str:
        jur, mode = self.jur, self.s.currency
        if mode == "symbol":
            return jur.money(amount)
        number = jur.number(amount, jur.places)
        if code and mode == "code":
            return f"{jur.currency} {number}"
        return number

    def money(self, name: str, amount: Decimal, line: int | None = None,
              code: bool = False) -> Field:
        return Field(name, self.amount_text(amount, code), format(amount, "f"), line)

    def key(self, name: str, word: str | None = None, key: str | None = None,
            colon: bool = True) -> str:
        """The printed word of key ``key`` (default ``name``) in this style."""
        return self.s.label(key or name, word if word is not None else
                            self.words.get(key or name, ""), colon)

    def column(self, name: str, key: str, w: int = 0, word: str | None = None) -> Piece:
        """A column heading labelling every ``name`` field of the page."""
        return lab(name, self.key(name, word, key, colon=False), w=w, scope="column")

    def kv(self, name: str, right: list[Piece], key: str | None = None,
           word: str | None = None, units: int = 1, cls: str = "",
           left_extra: list[Piece] | None = None) -> list[Row]:
        """A key on the left, ``right`` on the right; where the key leaves the value no
        room, the value goes on the row below (a key is never cut to a shorter word)."""
        text = self.key(name, word, key)
        extra = left_extra or []
        room = self.cols - width(right) - width(extra) - 2
        if not text:
            return [row(extra, right, units=units, cls=cls)]
        if columns(text) <= room:
            return [row([lab(name, text), *extra], right, units=units, cls=cls)]
        # the key on a row of its own (cut only if longer than a whole row), the value under
        return [row([lab(name, fit(text, self.cols - width(extra) - 1)), *extra], units=units,
                    cls=cls),
                row([], right, units=units, cls=cls)]

    def center(self, text: str, cls: str = "center") -> list[Row]:
        """A free line, centred, wrapped at words onto as many rows as it needs."""
        rows, line = [], ""
        for word in self.s.line(text).split():
            word = fit(word, self.cols)
            if line and columns(f"{line} {word}") > self.cols:
                rows.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        rows.append(line)
        return [row([txt(t)], cls=cls) for t in rows if t]

    def date_field(self, name: str, pattern: str, day: Any) -> Field:
        return Field(name, format_date(self.jur, pattern, day), day.isoformat())

    def time_field(self, name: str, value: str) -> Field:
        hh, mm, *ss = (int(x) for x in value.split(":"))
        pattern = self.s.time_format
        if not ss:
            pattern = pattern.replace(":{SS}", "")
        text = format_time(pattern, hh, mm, ss[0] if ss else 0)
        return Field(name, text, canonical_time(pattern, hh, mm, ss[0] if ss else 0))

    def tax_codes(self) -> dict[Decimal, str]:
        """Rate → its code letter (the highest rate is A), as receipts print them."""
        rates = sorted({t.rate for t in self.r.taxes}, reverse=True)
        return {rate: "ABCDE"[k] for k, rate in enumerate(rates)}
