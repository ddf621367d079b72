"""Money and rounding: exact decimals, rounded half-up to the currency's minor unit.

Every amount a pack prints or records is a :class:`~decimal.Decimal` rounded here, and a
record that does not add up raises :class:`ReconciliationError` instead of being rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

#: ISO 4217 minor units where they are not 2
MINOR_UNITS = {"JPY": 0, "KRW": 0, "VND": 0, "ISK": 0, "CLP": 0, "BHD": 3, "KWD": 3,
               "OMR": 3, "JOD": 3, "TND": 3}


class ReconciliationError(ValueError):
    """A record's amounts do not add up; it must never be rendered."""


def cents(value: Decimal, places: int = 2) -> Decimal:
    """``value`` rounded half-up to ``places`` decimals (the currency's minor unit)."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def money_quantum(currency: str) -> Decimal:
    """The currency's minor unit as a decimal (``0.01``, ``1`` for JPY)."""
    return Decimal(1).scaleb(-MINOR_UNITS.get(currency, 2))


def round_money(value: Decimal, currency: str) -> Decimal:
    """``value`` rounded half-up to the currency's minor unit (cents for most)."""
    return value.quantize(money_quantum(currency), rounding=ROUND_HALF_UP)


def unique_lines(items: Sequence[Any]) -> bool:
    """Whether ``items`` (each with a ``line``) are numbered 1..n in order."""
    return [i.line for i in items] == list(range(1, len(items) + 1))
