"""The ledger's rules (docs/design.md, "The coordination contract", item 7), written once:
a reservation is granted only if spent + reserved + its amount stays within the cap, and a
settlement adds each model's spend and their total. Each backend applies them inside its
own atomic write (an SQLite transaction, a Firestore compare-and-set, a DynamoDB
conditional transaction, a locked PostgreSQL row). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping

from docfleet.state.base import TOTAL_SPEND_KEY


def fits(spent: int, reserved: int, nano: int, cap_nano: int) -> bool:
    """Whether a reservation of ``nano`` may be held: ``spent + reserved + nano <= cap``."""
    return int(spent) + int(reserved) + int(nano) <= int(cap_nano)


def headroom(spent: int, nano: int, cap_nano: int) -> int:
    """The most the live reservations may already hold for one of ``nano`` to
    :func:`fits` (negative: it never does). For a store that checks ``reserved <=
    headroom`` in a conditional write (DynamoDB)."""
    return int(cap_nano) - int(spent) - int(nano)


def settled(spend: Mapping[str, int]) -> dict[str, int]:
    """What a settlement adds to the rollup: each model's spend (integer nano-dollars) and
    their sum under :data:`TOTAL_SPEND_KEY` (a total given by the caller is ignored)."""
    amounts = {m: int(v) for m, v in spend.items() if m != TOTAL_SPEND_KEY}
    amounts[TOTAL_SPEND_KEY] = sum(amounts.values())
    return amounts
