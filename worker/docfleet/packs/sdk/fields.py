"""Golden values as printed: a :class:`~docfleet.render.html.Field` holds the exact text a
template prints (formatted by the locale, :mod:`.locales`) and its canonical value, so
``fields.text`` and the page agree by construction."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from docfleet.packs.sdk.locales import NBSP, Jurisdiction, canonical
from docfleet.packs.sdk.parties import Party
from docfleet.render.html import Field


def money_field(jur: Jurisdiction, name: str, amount: Decimal, line: int | None = None
                ) -> Field:
    """A printed amount: the locale's money text, canonical value ``1234.50``."""
    return Field(name, jur.money(amount), format(amount, "f"), line)


def text_field(name: str, text: str, line: int | None = None) -> Field:
    """Text printed as it is recorded."""
    return Field(name, text, text, line)


def date_field(jur: Jurisdiction, name: str, day: dt.date, long: bool = False,
               line: int | None = None) -> Field:
    """A printed date (numeric, or with the month's name), canonical ``2024-03-31``."""
    return Field(name, jur.date(day, long=long), day.isoformat(), line)


def number_field(jur: Jurisdiction, name: str, value: Decimal, places: int,
                 line: int | None = None) -> Field:
    """A printed quantity with exactly ``places`` decimals, canonical ``format(value)``."""
    return Field(name, jur.number(value, places), format(value, "f"), line)


def percent_field(jur: Jurisdiction, name: str, rate: Decimal, line: int | None = None
                  ) -> Field:
    """A printed percentage (``20 %``), canonical without trailing zeros (``5.5``)."""
    return Field(name, jur.percent(rate), canonical(rate), line)


def unit_price_text(jur: Jurisdiction, price: Decimal, places: int) -> str:
    """A unit price with its own decimals (``0.0450``) and the currency symbol where the
    locale prints it (not the locale's money pattern: prices print the bare symbol)."""
    number = jur.number(price, places)
    return f"{jur.symbol}{number}" if jur.symbol_first else f"{number}{NBSP}{jur.symbol}"


def party_fields(role: str, party: Party) -> dict[str, Any]:
    """A party's printed fields, named ``{role}_name``, ``{role}_address`` (lines joined
    by ``\\n``), ``{role}_tax_id``, ``_phone``, ``_email``, ``_iban``, ``_bic``,
    ``_account`` (``None`` where the party has none), and ``address_lines``."""

    def opt(name: str, text: str | None) -> Field | None:
        return Field(f"{role}_{name}", text, text) if text else None

    address = "\n".join(party.address)
    return {
        "name": Field(f"{role}_name", party.name, party.name),
        "address": Field(f"{role}_address", address, address),
        "address_lines": len(party.address),
        "tax_id": opt("tax_id", party.tax_id),
        "phone": opt("phone", party.phone),
        "email": opt("email", party.email),
        "iban": opt("iban", party.iban),
        "bic": opt("bic", party.bic),
        "account": opt("account", party.account),
    }
